/*
 * gpu_tracker_internal.h - the library's inner face: what the tools, the
 * tests and the benchmark take of it beyond the public interface
 * (gpu_tracker.h): the tracker's results as structs (gpu_tracker's
 * ResourceUsage and the parts of our own, whose types the command and the
 * Python module use too), the series' rows, the gate the tools write a
 * live run's snapshot and report through, the machine and cloud a tracker
 * found, and one reading of the system now.
 *
 * Nothing here carries gpu_tracker.h's promise: it may change or go in any
 * release, the header is not installed, and none of these functions is
 * exported from libgputracker.so (GT_INTERNAL: hidden). Their users link
 * the library's objects (the build's internal static library
 * libgputracker_internal.a, or the Python module's own copy). The command,
 * the plugin and the Python module call none of them (tests/test_faces.sh):
 * they use its types, and the tools' calls (gpu_tracker_tools.h).
 */
#ifndef GPU_TRACKER_INTERNAL_H
#define GPU_TRACKER_INTERNAL_H

#include "gpu_tracker.h"

#include <stdlib.h>
#include <sys/types.h>

/* Defined by the library, visible to what links its objects, never
 * exported from the shared library. */
#if defined(__GNUC__)
#define GT_INTERNAL __attribute__((visibility("hidden")))
#else
#define GT_INTERNAL
#endif


#ifdef __cplusplus
extern "C" {
#endif

/* ---- Results: the fields of gpu_tracker's ResourceUsage ---------------- */

#define GT_UNIT_LEN 16

typedef struct gt_rss_values {
    double total_rss;   /* private + shared, never below the kernel's
                           high-water mark where the kernel gave us one */
    double private_rss; /* pages mapped by this process only */
    double shared_rss;  /* pages also mapped by another process */
} gt_rss_values;

typedef struct gt_max_ram {
    char unit[GT_UNIT_LEN];
    double system_capacity; /* MemTotal */
    double system;          /* peak of MemTotal - MemAvailable */
    gt_rss_values main;
    gt_rss_values descendants;
    gt_rss_values combined;
} gt_max_ram;

typedef struct gt_max_gpu_ram {
    char unit[GT_UNIT_LEN];
    double system_capacity;
    double system;
    double main;
    double descendants;
    double combined;
} gt_max_gpu_ram;

typedef struct gt_pu_percentages {
    double max_sum_percent;
    double max_hardware_percent;
    double mean_sum_percent;
    double mean_hardware_percent;
} gt_pu_percentages;

typedef struct gt_cpu_utilization {
    int system_core_count;
    int n_expected_cores;
    gt_pu_percentages system;
    gt_pu_percentages main;
    gt_pu_percentages descendants;
    gt_pu_percentages combined;
    int main_n_threads;
    int descendants_n_threads;
    int combined_n_threads;
} gt_cpu_utilization;

typedef struct gt_gpu_utilization {
    int system_gpu_count;
    int n_expected_gpus;
    gt_pu_percentages gpu_percentages;
} gt_gpu_utilization;

typedef struct gt_compute_time {
    char unit[GT_UNIT_LEN];
    double time;
} gt_compute_time;

/* Beyond gpu_tracker (the "gpu_details" section of the JSON): each GPU, and
 * figures the driver may or may not give, each with why not. */
/* The most GPUs a run tracks, every vendor together, and the most a
 * document read back may list: on a node with more, the first GT_MAX_GPUS
 * are tracked and a warning says how many were left out. No public struct
 * is sized by it: the lists below are counted arrays. */
#define GT_MAX_GPUS 64
#define GT_REASON_LEN 256

typedef struct gt_gpu_device {
    char uuid[96];
    char name[96];
    double memory_total; /* in gpu_ram_unit */
    int selected;        /* counted in gpu_utilization (--guuids) */
} gt_gpu_device;

typedef struct gt_gpu_details {
    int unknown;                     /* 1: a document without this section
                                        (gpu_tracker's own): nothing here is
                                        known, and the JSON leaves it out */
    int ndevices;                    /* entries of devices: all GPUs */
    /* The GPUs (a counted array, not a table of GT_MAX_GPUS). They
     * belong to whoever filled the struct: the tracker (gt_tracker_usage,
     * until gt_tracker_free), the snapshot (until gt_snapshot_free), or,
     * after gt_usage_from_json() and gt_usage_read_file(), the struct
     * itself, until gt_usage_release(). A struct copied by value shares
     * them. A program that fills a gt_resource_usage itself points this at
     * its own array (or NULL with ndevices 0). */
    const gt_gpu_device *devices;
    int process_memory_available;    /* main/descendants/combined GPU RAM */
    char process_memory_reason[GT_REASON_LEN];
    int process_utilization_available; /* SM percent of the tree's processes */
    char process_utilization_reason[GT_REASON_LEN];
    gt_pu_percentages main, descendants, combined; /* hardware: / expected GPUs */
    int energy_available;            /* energy of the selected GPUs during the run */
    char energy_reason[GT_REASON_LEN];
    double energy_joules;
} gt_gpu_details;

/* Whose the combined RSS peak was (gt_measurement.rss_peak_holder). */
#define GT_RSS_PEAK_SAMPLED 0    /* a sample saw it: the process list says */
#define GT_RSS_PEAK_MAIN 1       /* main's own, from its reaped record */
#define GT_RSS_PEAK_DESCENDANT 2 /* a descendant no sample saw at it (main
                                    reaped it, or we did) */
#define GT_RSS_PEAK_EITHER 3     /* main's or a child's: not told apart */
#define GT_RSS_PEAK_UNSEEN 4     /* no sample saw the job, and the kernel's
                                    record is no more than gpu-tracker's own
                                    fork held before the exec: the job's
                                    peak is at most that */

/* How the figures were obtained (the "measurement" section of the JSON). */
typedef struct gt_measurement {
    int unknown;         /* 1: a document without this section (gpu_tracker's
                            own): nothing here is known, the JSON leaves it out */
    int complete;        /* 1: a finished run; 0: a backup written while tracking */
    long samples;        /* samples taken, the first (baseline) included */
    double sleep_time;   /* seconds between samples */
    int gpu_available;   /* 0: the GPU figures are zeros, see gpu_reason */
    char gpu_reason[256];/* why GPU figures are not available ("" if they are) */
    /* How late the periodic samples came after their scheduled times, and
     * how many scheduled samples were skipped because the one before took
     * longer than the interval (the next one is then the next slot due). */
    double lateness_mean_ms, lateness_max_ms;
    long skipped;
    int sampled_only;    /* a comparison run with a plain sampler's figures
                            (gpu_tracker_internal.h) */
    /* The corners where a figure is a bound, not exact (docs/metrics.md,
     * "Corners"; in the JSON, keys of "measurement" that only a run
     * which met the corner has). */
    int unseen_children_pid; /* a tracked process that ignores SIGCHLD: the
                                kernel reaps its children, and those that
                                live between two samples are missed by the
                                RAM peaks and the CPU time (0: none seen) */
    char unseen_children_command[16]; /* its command name, as the kernel has
                                it (untrusted text: print it escaped) */
    int rss_split_unknown;   /* the main process was reaped with a peak above
                                what samples saw of it and of its
                                descendants, after waiting for children of
                                its own: the combined peak holds it, but
                                main's and descendants' are what samples saw */
    double rss_unattributed_bytes; /* by how much (above gpu-tracker's own
                                fork's high-water mark, which exec carries
                                into the command's) */
    int rss_peak_holder;     /* whose the combined RSS peak was where no
                                sample saw it (GT_RSS_PEAK_*) */
    double rss_main_sampled_bytes, rss_descendants_sampled_bytes; /* with
                                rss_split_unknown: what samples saw of each */
    double rss_main_at_most_bytes, rss_descendants_at_most_bytes; /* ... and
                                the most each can have held */
    double rss_unseen_at_most_bytes; /* GT_RSS_PEAK_UNSEEN: the most the job
                                can have held */
    int rss_parts_unknown;   /* private and shared RSS not known (a peak
                                from a kernel record, above every sample):
                                bit 0 main, 1 descendants, 2 combined */
    double cpu_resolution_seconds; /* of the live processes' CPU: 1e-9 where
                                every CPU clock was read, a clock tick
                                (0.01) where one was counted in ticks (a PID
                                namespace not ours); 0: not known */
    int cpu_wait_available;  /* the run-queue delay below was read */
    double cpu_wait_seconds; /* time the tree's processes were runnable and
                                waited for a CPU (schedstat), over the run */
    double cpu_run_seconds;  /* their time on a CPU over the same span */
} gt_measurement;

typedef struct gt_resource_usage {
    size_t struct_size;       /* sizeof(this struct) in the caller's header */
    gt_max_ram max_ram;
    gt_max_gpu_ram max_gpu_ram;
    gt_cpu_utilization cpu_utilization;
    gt_gpu_utilization gpu_utilization;
    gt_compute_time compute_time;
    gt_gpu_details gpu_details;
    gt_measurement measurement;
} gt_resource_usage;

/* The job's cgroup (gt_tracker_cgroup, snapshots' "cgroup"): what the
 * kernel counted for the group the tracked tree is in, when the tree is
 * alone in it (a Slurm step, a container, systemd-run --scope, or
 * options.own_cgroup). Bytes and seconds whatever the options' units; a
 * part with available 0 is zeros and says why in its reason. The struct
 * grows at its end: set struct_size to sizeof(gt_cgroup_usage). */
#define GT_CGROUP_PATH_LEN 512
typedef struct gt_cgroup_usage {
    size_t struct_size;        /* set by the caller */
    int available;             /* the group's figures are the job's */
    char reason[GT_REASON_LEN];/* why not ("" when available) */
    int version;               /* 1 or 2 (0: no group found) */
    char path[GT_CGROUP_PATH_LEN]; /* in its hierarchy (v1: the memory one) */
    int created;               /* made for the run (options.own_cgroup) */
    char created_reason[GT_REASON_LEN]; /* own_cgroup asked, none made: why */

    /* Memory (the memory controller). */
    int memory_available;
    char memory_reason[GT_REASON_LEN];
    double memory_peak;        /* the group's high-water mark (memory.peak,
                                  v1 max_usage_in_bytes): page cache and
                                  kernel memory included, every process
                                  that ever ran in it, between samples too */
    int memory_peak_kernel;    /* 1: the kernel's mark; 0: the highest sampled
                                  usage (a kernel before 5.19 has no
                                  memory.peak) */
    double peak_anon, peak_file, peak_shmem; /* memory.stat at the sample
                                  with the highest usage */
    double memory_limit;       /* memory.max / limit_in_bytes; 0: none */
    long oom_events;           /* the limit was hit and reclaim failed */
    long oom_kills;            /* processes the OOM killer ended in it */
    double first_oom_kill_time;/* epoch seconds of the first sample that saw
                                  one (0: none) */
    long limit_hits;           /* usage reached the limit (v2 "max" events,
                                  v1 failcnt) */

    /* CPU during the run (v2 cpu.stat; v1 cpuacct, cpu.stat). */
    int cpu_available;
    char cpu_reason[GT_REASON_LEN];
    double cpu_seconds, cpu_user_seconds, cpu_system_seconds;
    double cpu_quota;          /* cores the quota allows; 0: none */
    long throttle_periods;     /* quota periods that ran */
    long throttled_periods;    /* of which the group was throttled in */
    double throttled_seconds;

    /* Pressure stall information during the run: the share of the wall
     * time (0 to 1) in which some (or all: full) of its runnable tasks
     * waited for the CPU, memory or I/O. cgroup v2 only. */
    int pressure_available;
    char pressure_reason[GT_REASON_LEN];
    double cpu_some, cpu_full, memory_some, memory_full, io_some, io_full;
    double pressure_seconds;   /* the wall time the shares are of */

    /* (A struct_size that ends before these is still taken.)
     * Non-zero: the tracked process was found outside the group (it moved
     * itself out, or was moved): the group's figures leave out what it
     * used from then on, and undercount the job. The group is still the
     * job's (available), and still right for what ran in it. */
    int incomplete;
    char incomplete_reason[GT_REASON_LEN];
} gt_cgroup_usage;

/* The energy of the machine's CPU packages and DRAM over the run
 * (gt_tracker_cpu_energy, the JSON's "cpu_energy", snapshots'
 * metadata.cpu_energy), from RAPL through the powercap sysfs. RAPL counts
 * per socket, not per process: these are the whole machine's joules; a
 * job's part can only be estimated (job_share). The struct grows at its
 * end: set struct_size to sizeof(gt_cpu_energy). */
typedef struct gt_cpu_energy {
    size_t struct_size;        /* set by the caller */
    int available;
    char reason[GT_REASON_LEN];/* why not ("" when available) */
    int packages;              /* CPU package zones counted (one a socket) */
    double package_joules;     /* the packages: cores, caches, uncore */
    int dram_available;        /* a DRAM zone was counted too */
    double dram_joules;
    double job_share;          /* the tracked tree's CPU time over the whole
                                  machine's in the run, 0 to 1: the share of
                                  package_joules the report gives the job, an
                                  estimate (idle power and other work share
                                  the socket) */
} gt_cpu_energy;

/* What the GPU driver counted for the run beyond what samples see
 * (gt_tracker_gpu_run, the JSON's "gpu_run", snapshots' metadata.gpu_run):
 * the driver's per-process accounting records, why the clocks were
 * lowered, errors, and the job's share of the GPUs' energy. Bytes, seconds
 * and joules whatever the options' units; a part with available 0 is zeros
 * and says why in its reason. The struct grows at its end: set
 * struct_size to sizeof(gt_gpu_run). */
#define GT_GPU_THROTTLE_REASONS 9 /* names: gpu_throttle_name() */
/* The GPUs' own activity counters (docs/metrics.md, "What the GPU did"):
 * SM activity, SM occupancy, tensor activity, DRAM bandwidth (AMD: the
 * memory controller's activity), FP64, FP32 and FP16 activity, AMD's GFX
 * activity; names: gpu_activity_name(). */
#define GT_GPU_ACTIVITY_METRICS 8
/* One GPU over the run (gt_gpu_run.devices). Throttle shares are of the
 * time it was tracked; the activity, PCIe and share figures of the time
 * the job used it (held memory on it or ran a kernel there). */
typedef struct gt_gpu_run_device {
    int throttle_read;         /* 0: never read over a whole interval */
    double throttle_share[GT_GPU_THROTTLE_REASONS];
    unsigned activity_read;    /* bit m: activity_*[m] hold */
    double activity_seconds;   /* the time they cover */
    double activity_mean[GT_GPU_ACTIVITY_METRICS], activity_peak[GT_GPU_ACTIVITY_METRICS];
    int pcie_read;             /* bytes per second, mean and peak */
    double pcie_tx_mean, pcie_rx_mean, pcie_tx_peak, pcie_rx_peak;
    /* The job's own share: its processes' SM percent-seconds over the
     * GPU's time (share_seconds x 100 %), and the other processes'. */
    int share_read;
    double share_seconds, job_sm_share, others_sm_share;
    /* The GPU's energy over the run, and the job's part of it: the GPU's
     * energy times the job's part of the SM time everyone used (all of it
     * when no one else ran there); an estimate. */
    int energy_read;
    double energy_joules, job_energy_joules;
} gt_gpu_run_device;

typedef struct gt_gpu_run {
    size_t struct_size;        /* set by the caller */
    /* NVML accounting mode (an administrator's setting): each process's GPU
     * memory high-water mark as the driver kept it, its exited processes'
     * too. max_gpu_ram's main and descendants are never below these. */
    int accounting_available;
    char accounting_reason[GT_REASON_LEN];
    int accounting_processes;  /* the job's processes with a record */
    int accounting_unseen;     /* of them, ended between two samples: no
                                  sample saw them, only their record */
    int accounting_unattributed; /* records that ended unseen on a GPU that
                                  others used too: not counted (their owner
                                  is unknown) */
    double accounting_main_peak;        /* bytes, the main process's record */
    double accounting_descendants_peak; /* bytes, the largest descendant's */
    double accounting_gpu_seconds;      /* the job's processes' time on GPUs */
    /* Why the selected GPUs' clocks were lowered: the share of the tracked
     * time each reason held on any of them (index: gpu_throttle_name),
     * and per GPU (its index in gpu_details). */
    int throttle_available;
    char throttle_reason[GT_REASON_LEN];
    double throttle_share[GT_GPU_THROTTLE_REASONS];
    /* Per GPU (a counted array, not tables of GT_MAX_GPUS): devices[d]
     * for the GPU of index d in gpu_details, ngpus of them (the last GPU
     * read, plus one). They belong to whoever filled the struct: the
     * tracker for gt_tracker_gpu_run() (until its next call on that
     * tracker, or gt_tracker_free), or the snapshot. */
    int ngpus;
    const gt_gpu_run_device *devices;
    /* Memory errors the selected GPUs corrected and could not correct during
     * the run (volatile ECC counters). */
    int ecc_available;
    char ecc_reason[GT_REASON_LEN];
    double ecc_corrected, ecc_uncorrected;
    /* XID events (the driver's critical errors) on any GPU during the run. */
    int xid_available;
    char xid_reason[GT_REASON_LEN];
    long xid_events;
    long long xid_last;        /* the last one's code (0: none) */
    int xid_last_gpu;          /* its GPU's index (-1: none or unknown) */
    /* The job's share of the selected GPUs' energy (gpu_details.energy):
     * its processes' SM utilization over the GPUs' utilization, both over
     * the run; an estimate (idle power and other work share the GPU). */
    int job_energy_available;
    char job_energy_reason[GT_REASON_LEN];
    double job_energy_share;   /* 0 to 1 */
    double job_energy_joules;
    /* Inside a PID namespace (a container), where NVML names processes by
     * their host PIDs: those matched to ours by the GPU device files each
     * of our processes holds open (docs/metrics.md). */
    int pid_namespace;         /* gpu-tracker ran in one */
    int pids_translated;       /* the most GPU processes matched at a sample */
    int pids_untranslated;     /* the most that could not be: never counted
                                  as the job's */
    char pid_reason[GT_REASON_LEN]; /* why some could not be ("" if all were) */
    /* MIG: a GPU in MIG mode is listed as its instances (gpu_details); their
     * utilization comes from GPM metrics where the GPU has them. */
    int mig_instances;         /* listed devices that are MIG instances */
    int mig_utilization_available; /* 0 when there is none, or (with the
                                  reason) when GPM cannot tell */
    char mig_utilization_reason[GT_REASON_LEN];
    /* What the GPUs did, over the time the job used them (the devices'
     * figures, time-weighted): each activity counter's mean and peak
     * (bit m of activity_read), the PCIe rates summed over the GPUs. */
    int activity_available;
    char activity_reason[GT_REASON_LEN];
    unsigned activity_read;
    double activity_mean[GT_GPU_ACTIVITY_METRICS], activity_peak[GT_GPU_ACTIVITY_METRICS];
    int pcie_available;
    double pcie_tx_mean, pcie_rx_mean, pcie_tx_peak, pcie_rx_peak; /* bytes per second */
    /* The job's share of the GPUs it used: its processes' SM time over
     * the GPUs' time, and the other processes' (0 to 1); shared_gpus: those
     * others took at least GT_GPU_WAIT_SHARE_PERCENT of. */
    int share_available;
    char share_reason[GT_REASON_LEN];
    double job_sm_share, others_sm_share;
    int shared_gpus;
} gt_gpu_run;



/* ---- Time series --------------------------------------------------------
 * The columns, order and units of resource_tracker's ProcessTracker and
 * SystemTracker (docs/series.md defines each). CPU seconds and bytes are
 * what happened in the row's interval; memory and GPU figures are what the
 * row's sample saw. */

typedef struct gt_process_row {
    double timestamp;            /* scheduled sample time, epoch seconds (ms) */
    int pid;                     /* the tracked (main) process */
    long children;               /* live descendants */
    double utime, stime;         /* CPU seconds of the tree in the interval */
    double cpu_usage;            /* cores: (utime + stime) / interval */
    unsigned long long memory;   /* PSS of the tree, kB */
    unsigned long long read_bytes, write_bytes; /* storage I/O in the interval */
    double gpu_usage;            /* GPUs (1.0 = one GPU fully busy) */
    double gpu_vram;             /* GPU memory of the tree, MiB */
    int gpu_utilized;            /* GPUs the tree keeps busy */
} gt_process_row;

typedef struct gt_system_row {
    double timestamp;
    long processes;              /* processes that exist now */
    double utime, stime;         /* CPU seconds of all cores (user+nice, system) */
    double cpu_usage;            /* cores */
    unsigned long long memory_free, memory_used, memory_buffers, memory_cached,
        memory_active, memory_inactive; /* kB */
    unsigned long long disk_read_bytes, disk_write_bytes; /* in the interval */
    double disk_space_total_gb, disk_space_used_gb, disk_space_free_gb; /* GiB */
    unsigned long long net_recv_bytes, net_sent_bytes;    /* in the interval */
    double gpu_usage;            /* GPUs, all of them */
    double gpu_vram;             /* MiB used on all GPUs */
    int gpu_utilized;            /* GPUs with utilization > 0 */
    /* Not in resource_tracker's layout (its CSV and snapshot formats leave
     * them out):
     * Pressure stall information of the whole system (/proc/pressure): the
     * share of the interval (0 to 1) in which some (full: all) runnable
     * tasks waited for the CPU, memory or I/O; 0 where the kernel keeps
     * none (pressure_ok 0). */
    int pressure_ok;
    double pressure_cpu_some, pressure_cpu_full, pressure_memory_some, pressure_memory_full,
        pressure_io_some, pressure_io_full;
    /* The machine's CPU packages' and DRAM's energy in the interval, joules,
     * from RAPL (energy_ok 0: not read, then both 0). */
    int energy_ok;
    double cpu_energy_joules, dram_energy_joules;
} gt_system_row;

/* Both series of a run (an empty one when it was not asked for). */
typedef struct gt_series {
    size_t struct_size;       /* sizeof(this struct) in the caller's header */
    double interval;             /* seconds between rows */
    double start_time;           /* epoch seconds of the baseline sample */
    size_t nprocess;
    const gt_process_row *process;
    size_t nsystem;
    const gt_system_row *system;
    /* Writing rows to options.process_csv_fd / system_csv_fd failed at some
     * row (a warning said why): the file lacks rows that are here. */
    int process_csv_failed, system_csv_failed;
} gt_series;

/* The series as CSV (header and rows, "\r\n" line ends, as Python's csv
 * module writes with QUOTE_NONNUMERIC). Caller frees; NULL when out of
 * memory. */
GT_INTERNAL char *gt_series_to_csv(const gt_series *series, gt_series_kind kind);


/* The machine a run was on. */
typedef struct gt_server_info {
    size_t struct_size;       /* sizeof(this struct) in the caller's header */
    char os[128];           /* PRETTY_NAME of /etc/os-release */
    char kernel[128];       /* uname: release */
    char hostname[256];
    char cpu_model[256];    /* model name of /proc/cpuinfo */
    int vcpus;              /* online CPUs */
    double vcpus_usable;    /* what this job may use: its CPU affinity, and
                               the cgroup CPU quota (may be fractional) */
    double memory_mib;      /* MemTotal */
    double memory_limit_mib;/* the cgroup memory limit; 0 = none */
    int gpu_count;
    int ngpu_names;
    /* The GPUs' names, ngpu_names of them (a counted array, not a
     * table of GT_MAX_GPUS), each at most 95 bytes. They belong to whoever
     * filled the struct: the tracker (gt_tracker_server_info, until
     * gt_tracker_free) or the snapshot. */
    const char *const *gpu_names;
    double gpu_memory_mib;  /* all GPUs */
    char allocation[16];    /* "dedicated" or "shared" (from the series, see
                               docs/snapshot.md), "unknown" without rows */
} gt_server_info;

/* The cloud instance a run was on, when asked for (options.discover_cloud). */
typedef struct gt_cloud_info {
    size_t struct_size;       /* sizeof(this struct) in the caller's header */
    int asked;              /* 0: not asked (JSON null) */
    int found;              /* a metadata service answered */
    char vendor[32];        /* aws, gcp, azure, hcloud, upcloud, vultr, alicloud, ovh; "unknown" */
    char instance_type[96];
    char region[96];
    double discovery_time;  /* seconds the discovery took */
} gt_cloud_info;

/* ---- Who held it: kept by a tracker and in its snapshots ---- */

/* Who held the peak: at the sample where the tree's combined RSS (or
 * its GPU memory) was highest, the processes that made it up, largest
 * first, at most GT_AT_PEAK_MAX, and the rest summed. */
#define GT_AT_PEAK_MAX 8
#define GT_PEAK_MEMORY 0     /* the combined RSS peak */
#define GT_PEAK_GPU_MEMORY 1 /* the tree's GPU memory peak */

typedef struct gt_peak_process {
    int pid;
    int role;           /* 1 the main process, 2 a descendant */
    char command[16];   /* its short name (comm: "python") */
    char cmdline[256];  /* its command line, arguments joined by spaces, cut
                           at 255 bytes; "" when it could not be read */
    double bytes;       /* its RSS (GT_PEAK_MEMORY) or GPU memory then */
    double private_bytes; /* GT_PEAK_MEMORY: its private RSS (USS: what it
                           alone holds) as last read (smaps_rollup); -1: not
                           read. The list is ordered by it where known (by
                           RSS otherwise): shared pages are not anyone's */
    double pss_bytes;   /* its PSS as last read (smaps_rollup); -1: not read */
    long threads;
} gt_peak_process;

typedef struct gt_peak_breakdown {
    size_t struct_size;     /* set by the caller: sizeof(gt_peak_breakdown) */
    int available;          /* a sample saw the tree's processes at a peak */
    double at_seconds;      /* into the run */
    double total_bytes;     /* the tree's figure at that sample (the peak as
                               sampled; RSS with shared pages once) */
    int nprocesses;         /* entries in processes */
    gt_peak_process processes[GT_AT_PEAK_MAX];
    long others;            /* processes of the tree not listed */
    double others_bytes;    /* their RSS (or GPU memory) summed */
    double others_private_bytes; /* GT_PEAK_MEMORY: their private RSS (RSS
                               where not read) summed */
    double shared_bytes;    /* GT_PEAK_MEMORY: total_bytes less every
                               process's private RSS: the pages the tree's
                               processes share, counted once */
    /* GT_PEAK_MEMORY: where the kernel's record of a process put the peak
     * above every sample, whose it was (GT_RSS_PEAK_MAIN, _DESCENDANT,
     * _EITHER; 0: a sample saw the peak) and how much; the list above is
     * then the largest sample's. */
    int unseen_holder;
    double unseen_bytes;
} gt_peak_breakdown;

/* GPUs held but idle: a GPU on which the tracked tree held memory,
 * and whose utilization was under GT_GPU_IDLE_PERCENT in at least
 * GT_GPU_IDLE_SHARE_PERCENT of the samples where it did, is idle: a GPU
 * the job reserved and did not use. */
#define GT_GPU_IDLE_PERCENT 5.0
#define GT_GPU_IDLE_SHARE_PERCENT 80.0

typedef struct gt_gpu_idle_device {
    int index;             /* the GPU's index (as NVML / ROCm SMI count) */
    char uuid[96];
    long held_samples;     /* samples in which the tree held memory on it */
    long idle_samples;     /* of those, with its utilization under the threshold */
    double held_bytes;     /* the most the tree held on it */
    double idle_percent;   /* idle_samples / held_samples, percent */
    int idle;              /* idle_percent >= GT_GPU_IDLE_SHARE_PERCENT */
} gt_gpu_idle_device;

/* What the job's GPUs waited for (docs/metrics.md, "What the GPU waited
 * for"). Each interval between two samples in which the job held memory on
 * a GPU whose utilization was read is GPU time; in it the GPUs waited when
 * their mean utilization (of those the job held memory on) was under
 * GT_GPU_WAIT_BUSY_PERCENT. The CPU side held them back in such an interval
 * when a group of the job's worker processes (descendants of one command)
 * was saturated: runnable (running or queued for a CPU) at least
 * GT_GPU_WAIT_SATURATED of it each, or using that share of the cores it
 * could have (the fewer of its processes and the job's CPUs); or when the
 * job waited on storage at least GT_GPU_WAIT_STORAGE of it (the main
 * process's block I/O delay, /proc/PID/stat field 42, or the job's cgroup
 * io.pressure "some"). Either in at least GT_GPU_WAIT_SHARE_PERCENT of the
 * GPU time is a verdict. Times in seconds, weighted by each interval. */
#define GT_GPU_WAIT_BUSY_PERCENT 50.0
#define GT_GPU_WAIT_SATURATED 0.9
#define GT_GPU_WAIT_STORAGE 0.2
#define GT_GPU_WAIT_SHARE_PERCENT 25.0
#define GT_GPU_WAIT_WORKERS 1       /* verdict bit: more CPU cores per GPU */
#define GT_GPU_WAIT_STORAGE_BOUND 2 /* verdict bit: faster storage */
/* What the GPU itself was held back by, over the same GPU time, each a
 * verdict in at least GT_GPU_WAIT_SHARE_PERCENT of the time it was read
 * in: its clocks lowered by a power cap or heat (throttle reasons
 * sw_power_cap, hw_slowdown, hw_power_brake; sw_thermal, hw_thermal); busy
 * (utilization at least GT_GPU_WAIT_SM_BUSY_PERCENT) while its SMs were
 * idle (SM activity at most GT_GPU_WAIT_SM_IDLE_PERCENT: a kernel stalled
 * or waiting, as in a collective); other processes taking at least
 * GT_GPU_WAIT_SHARE_PERCENT of the SM time of a GPU the job used. */
#define GT_GPU_WAIT_SM_BUSY_PERCENT 90.0
#define GT_GPU_WAIT_SM_IDLE_PERCENT 10.0
#define GT_GPU_WAIT_THROTTLED 4     /* verdict bit: clocks held down */
#define GT_GPU_WAIT_SMS_IDLE 8      /* verdict bit: busy but the SMs idle */
#define GT_GPU_WAIT_SHARED 16       /* verdict bit: another job's processes */

typedef struct gt_gpu_wait {
    double gpu_seconds;      /* the job on a GPU, its utilization read */
    double waiting_seconds;  /* of it, its GPUs under GT_GPU_WAIT_BUSY_PERCENT */
    double waiting_busy_percent; /* their utilization then, mean */
    double worker_seconds;   /* of the waiting time, a worker group saturated */
    char worker_command[16]; /* the group saturated the longest */
    double worker_processes; /* its live processes then, mean */
    double worker_cores;     /* the cores each used then, mean */
    double worker_runnable;  /* the share of the time each was runnable, mean */
    int storage_available;   /* a storage wait could be read */
    char storage_source[64]; /* "block I/O delay", "cgroup io.pressure" or
                                both joined by " and " */
    char storage_reason[GT_REASON_LEN]; /* why not, when not available */
    double storage_seconds;  /* of the waiting time, waiting on storage */
    double storage_wait;     /* the share of it spent waiting, mean */
    /* Throttle reasons read on the job's GPUs over throttle_read_seconds
     * of the GPU time: of it, clocks lowered by power (power_seconds) or
     * heat (thermal_seconds), either (throttled_seconds). */
    double throttle_read_seconds, throttled_seconds, power_seconds, thermal_seconds;
    /* SM activity read over sm_read_seconds of it; of that, busy with the
     * SMs idle, and the mean utilization and SM activity then. */
    double sm_read_seconds, sm_idle_seconds, sm_idle_util_percent, sm_idle_sm_percent;
    /* The GPU the job used that others took the most SM time of: its index
     * (-1: none read) and their share of its time (0 to 1). */
    int shared_gpu;
    double shared_others_share;
    int verdict;             /* GT_GPU_WAIT_* bits; 0: none */
} gt_gpu_wait;

typedef struct gt_gpu_idle {
    size_t struct_size;    /* set by the caller: sizeof(gt_gpu_idle) */
    double threshold_percent;   /* GT_GPU_IDLE_PERCENT */
    double idle_share_percent;  /* GT_GPU_IDLE_SHARE_PERCENT */
    int ndevices;          /* GPUs the tree held memory on, below */
    int idle_count;        /* of those, idle */
    gt_gpu_idle_device devices[64];
    /* The GPUs the job was given (options.job: gpus_requested), and whether
     * it held memory on none of them although the GPUs could be read: a
     * request to drop. */
    int requested;
    char requested_by[32];
    int request_unused;
    /* What the GPUs waited for. */
    gt_gpu_wait wait;
} gt_gpu_idle;

/* Per command over the run: the tree's processes grouped by their
 * short name (comm: the data loader workers, the compiler jobs of `make
 * -j`), from what each sample's walk saw. A process that exec'd another
 * program counts in both names' groups, unless it used no CPU time under
 * the first (a child seen between its fork and its exec). CPU time is what
 * samples saw processes use (a process's time up to its last sample): the
 * run's exact CPU time (the summary's) less cpu_seconds is
 * unseen_cpu_seconds, used after processes' last samples (before they
 * exited) and by processes too short-lived for any sample to see. */
#define GT_COMMAND_GROUPS_MAX 16

typedef struct gt_command_group {
    char command[16];        /* the short name ("python", "cc1") */
    long processes;          /* distinct processes that ran under it */
    long peak_concurrent;    /* the most alive at one sample */
    double cpu_seconds;      /* their CPU time, as sampled */
    double peak_pss_bytes;   /* the most their PSS summed to at one sample
                                (shared pages split between the sharers, so
                                groups add up to the tree's PSS) */
} gt_command_group;

typedef struct gt_command_groups {
    size_t struct_size;      /* set by the caller: sizeof(gt_command_groups) */
    int available;           /* a sample saw the tree */
    int ngroups;             /* entries in groups: most CPU time first */
    gt_command_group groups[GT_COMMAND_GROUPS_MAX];
    long others;             /* commands not listed */
    long others_processes;   /* their processes */
    double others_cpu_seconds;
    long commands;           /* distinct commands in all */
    long processes;          /* distinct processes in all */
    double cpu_seconds;      /* all groups' CPU time, as sampled */
    double unseen_cpu_seconds; /* the run's CPU time no sample saw used; -1 when
                                  not known (a snapshot without a summary) */
    long folded;             /* processes counted under "(others)" because
                                1024 commands had been told apart */
    int partial;             /* out of memory once: the figures are short */
} gt_command_groups;

/* The process that held the most memory (PSS) from a moment of the run on,
 * until the next change: a snapshot's timeline of who was on top, which the
 * report's memory chart names on hover. */
typedef struct gt_top_process {
    double at;               /* seconds into the run */
    int pid;
    char command[16];
} gt_top_process;

#define GT_SNAPSHOT_FORMAT 1 /* the format version the snapshots are written and read in */

/* A run, as saved by gt_snapshot_write() and read by gt_snapshot_read(). */
typedef struct gt_snapshot {
    size_t struct_size;      /* set by the library: sizeof(gt_snapshot) in its header */
    int format_version;      /* GT_SNAPSHOT_FORMAT */
    char tracker_version[32];/* gt_version() of the writer */
    char *command;           /* what ran, malloc'd (NULL or "" when a library
                                tracked itself); freed by gt_snapshot_free() */
    int pid;                 /* the tracked process */
    double interval;         /* seconds between rows */
    double start_time, stop_time; /* epoch seconds */
    double duration;         /* stop - start, seconds */
    int exit_status;         /* the command's, or -1 when not known */
    char host[256];          /* hostname */
    gt_server_info server;
    gt_cloud_info cloud;
    gt_resource_usage usage; /* the gpu_tracker summary */
    gt_series series;        /* both series; the arrays belong to the snapshot */
    /* 1: read from a resource_tracker snapshot, which has no gpu_tracker
     * summary (usage is all zero); its writer's name and version are in
     * tracker_version ("resource_tracker 0.5.0"). */
    int no_summary;
    /* 1: the main process alone was tracked (options.main_only;
     * resource_tracker's children=False). Kept in resource_tracker's
     * format (its metadata.children); ours does not carry it yet. */
    int main_only;
    /* The local filesystems the disk-space figures (the system series'
     * disk_space_* columns) add up, as "MOUNT (TYPE on SOURCE)" joined by
     * ", " (and "and N more" past what fits): malloc'd, freed by
     * gt_snapshot_free(); NULL when not recorded (older snapshots,
     * resource_tracker's format). */
    char *filesystems;
    /* Who the run was in a batch system (options.job); all empty when not
     * recorded. */
    gt_job_info job;
    /* A job merged from its tasks' snapshots (gt_snapshot_merge, `gpu-tracker
     * merge`): this snapshot is the job's first task (the lowest rank) and
     * other_tasks the rest, in order, each a whole snapshot owned by this
     * one (freed with it). 0 and NULL for a single run. A reader that does
     * not know tasks sees the first task's run. */
    size_t nother_tasks;
    struct gt_snapshot **other_tasks;
    /* The job's cgroup figures (gt_tracker_cgroup); struct_size 0 when not
     * recorded (older snapshots, resource_tracker's format). */
    gt_cgroup_usage cgroup;
    /* The machine's CPU energy (gt_tracker_cpu_energy); struct_size 0 when
     * not recorded. */
    gt_cpu_energy cpu_energy;
    /* The GPU driver's figures (gt_tracker_gpu_run); struct_size 0 when not
     * recorded. */
    gt_gpu_run gpu_run;
    /* Who held the peaks (gt_tracker_at_peak, by GT_PEAK_*), the GPUs held
     * but idle (gt_tracker_gpu_idle) and the processes by command
     * (gt_tracker_processes); struct_size 0 when not recorded. */
    gt_peak_breakdown at_peak[2];
    gt_gpu_idle gpu_idle;
    gt_command_groups processes;
    /* The top process over the run, in time order (ntop_processes entries,
     * at most 4096; NULL when not recorded), freed by gt_snapshot_free(). */
    size_t ntop_processes;
    gt_top_process *top_processes;
} gt_snapshot;



/* Frees a snapshot, this one or one a tool read (gt_snapshot_read()); NULL
 * is a no-op. The toolkit's (common/summary/snapshot_parts.c), as both
 * make them. */
void gt_snapshot_free(gt_snapshot *s);



/* The results, in the units of the options. NULL (GT_ERR_STATE in
 * gt_last_error()) unless STOPPED. Owned by the tracker; valid until the
 * next call on it. */
GT_INTERNAL const gt_resource_usage *gt_tracker_usage(gt_tracker *t);

/* What a run added up to, beside the summary's peaks and percentages: the
 * figures a person reads first (CPU seconds, bytes read and written), as
 * gt_run_results_read() gives them from the public figures. The struct
 * grows at its end: set struct_size to sizeof(gt_totals). */
typedef struct gt_totals {
    size_t struct_size;        /* set by the caller */
    double wall_seconds;       /* baseline to final sample: the compute time */
    double cpu_main_seconds;   /* user + system CPU of the main process (and of
                                  the children it waited for) in that span */
    double cpu_descendants_seconds; /* of its descendants */
    /* Storage I/O (bytes that reached or came from the block layer, as
     * /proc/<pid>/io's read_bytes and write_bytes count them) of the
     * processes a reaper (options.reaper_pid) reaped and passed to
     * gt_tracker_add_reaped(): each its own and that of the children it
     * waited for. io_available is 1 once the main process was among them
     * (the gpu-tracker command); 0 otherwise (attached to a PID, or a
     * program tracking itself): then the two are 0. Processes still running
     * at the stop are not in them. */
    int io_available;
    double read_bytes, write_bytes;
} gt_totals;

/* The rows kept (options.series) in *out. GT_ERR_STATE unless STOPPED. The
 * arrays are the tracker's, valid until gt_tracker_free(). While tracking,
 * a long run's rows are kept on disk (docs/api.md); this copies all of
 * them into memory (once): for long runs prefer gt_tracker_write_*.
 * GT_ERR_NO_MEMORY, GT_ERR_IO (the rows could not be read back). */
GT_INTERNAL gt_status gt_tracker_series(gt_tracker *t, gt_series *out);

/* ---- A run while it goes on  ----------------------------------------
 * These may be called while the tracker is STARTED, from any thread (one
 * call on a tracker at a time, and never with gt_tracker_free()); the
 * sampling thread is not held up by them: rows a long run keeps on disk
 * are read back without the tracker's lock. gt_tracker_snapshot(),
 * gt_tracker_write_snapshot() and gt_tracker_write_report() work
 * while STARTED too, giving the run so far (the summary as of now,
 * measurement.complete 0; stop_time now). */

/* The job's cgroup figures so far (final once STOPPED) into *out, whose
 * struct_size the caller sets. GT_OK (out->available 0 with the reason
 * when the tree has no group of its own), GT_ERR_INVALID_ARGUMENT
 * (struct_size), GT_ERR_STATE before start. */
GT_INTERNAL gt_status gt_tracker_cgroup(gt_tracker *t, gt_cgroup_usage *out);

/* The machine's CPU and DRAM energy during the run so far (final once
 * STOPPED), as gt_tracker_cgroup. */
GT_INTERNAL gt_status gt_tracker_cpu_energy(gt_tracker *t, gt_cpu_energy *out);

/* What the GPU driver counted for the run so far (final once STOPPED), as
 * gt_tracker_cgroup. */
GT_INTERNAL gt_status gt_tracker_gpu_run(gt_tracker *t, gt_gpu_run *out);


/* The job's energy: one figure for the run, each part labelled with
 * how it was obtained and how good it is (docs/metrics.md, "The job's
 * energy"). Joules and grams. */
#define GT_GPU_ENERGY_UNCERTAINTY_PERCENT 5.0 /* NVIDIA's stated accuracy of the
                                                 board power sensor */
typedef struct gt_job_energy {
    size_t struct_size;          /* set by the caller: sizeof(gt_job_energy) */
    int available;               /* at least one part was measured */
    char reason[GT_REASON_LEN];  /* none was ("" when available): the parts'
                                    reasons say why */
    /* The selected GPUs' energy from NVML's (or ROCm SMI's) energy counter,
     * read at the first and last samples: whole GPUs, as they are charged. */
    int gpu_available;
    char gpu_reason[GT_REASON_LEN];
    double gpu_joules;
    double gpu_uncertainty_percent; /* GT_GPU_ENERGY_UNCERTAINTY_PERCENT */
    /* The CPU sockets' (package and DRAM, RAPL) energy times the job's share
     * of the machine's CPU time: an estimate, between that share and the
     * whole sockets' energy (idle power and other work share them). */
    int cpu_available;
    char cpu_reason[GT_REASON_LEN];
    double cpu_joules, cpu_joules_low, cpu_joules_high;
    /* The two together, with the bounds of their uncertainties. */
    double joules, joules_low, joules_high;
    /* With options.carbon_intensity: kWh x PUE x intensity. */
    int co2e_available;
    double carbon_intensity, pue;
    double co2e_grams, co2e_grams_low, co2e_grams_high;
} gt_job_energy;

/* Fills *out for the run so far (the run's once STOPPED). GT_ERR_STATE when
 * NEW; GT_ERR_INVALID_ARGUMENT for another struct_size. */
GT_INTERNAL gt_status gt_tracker_energy(gt_tracker *t, gt_job_energy *out);

/* Who held it (the types are above, with the snapshot that keeps them). */

/* Fills *out with who held the peak of kind (GT_PEAK_MEMORY or
 * GT_PEAK_GPU_MEMORY) so far. GT_ERR_STATE when NEW;
 * GT_ERR_INVALID_ARGUMENT for another kind or struct_size. */
GT_INTERNAL gt_status gt_tracker_at_peak(gt_tracker *t, int kind, gt_peak_breakdown *out);

/* GPUs held but idle so far. GT_ERR_STATE when NEW;
 * GT_ERR_INVALID_ARGUMENT for another struct_size. */
GT_INTERNAL gt_status gt_tracker_gpu_idle(gt_tracker *t, gt_gpu_idle *out);

/* The processes by command so far (unseen_cpu_seconds from the figures of
 * the moment). GT_ERR_STATE when NEW; GT_ERR_INVALID_ARGUMENT for another
 * struct_size. */
GT_INTERNAL gt_status gt_tracker_processes(gt_tracker *t, gt_command_groups *out);



/* ---- The gate the tools take a live run through (src/tools) -----------
 * What gt_tracker_write_snapshot(), gt_tracker_write_report(),
 * gt_tracker_stats() and resource_tracker's server and cloud info
 * (gpu_tracker_tools.h) read of a tracker, so that a run's snapshot or
 * report is written row by row without its rows in memory. */
struct row_source; /* common/row_source.h */

/* Everything of a snapshot of t but its rows (series: counts and interval
 * only, no arrays) into *s, and a source over the rows in *rows: a stopped
 * run, or while STARTED the run so far (the summary as of now, in *live).
 * The cloud discovery's answer is waited for once and kept for the next
 * call. command is copied into s->command. Release with
 * gt_tracker_snapshot_parts_release() whatever it returned. GT_ERR_STATE
 * (NEW, or before a delayed start), GT_ERR_NO_MEMORY. */
GT_INTERNAL gt_status gt_tracker_snapshot_parts(gt_tracker *t, const char *command,
                                                int exit_status, gt_snapshot *s,
                                                struct row_source *rows,
                                                gt_resource_usage **live);
GT_INTERNAL void gt_tracker_snapshot_parts_release(gt_snapshot *s, gt_resource_usage *live);

/* A source over the rows t has kept so far (read while the sampler may
 * still append to them) and the run's interval. GT_ERR_STATE while NEW. */
GT_INTERNAL gt_status gt_tracker_rows(gt_tracker *t, struct row_source *rows, double *interval);

/* The machine the run is on, as described at gt_tracker_start(), with its
 * allocation judged from the rows so far. GT_ERR_STATE when NEW. */
GT_INTERNAL gt_status gt_tracker_server_info(gt_tracker *t, gt_server_info *out);

/* The cloud instance (options.discover_cloud), waiting up to max_wait
 * seconds for the discovery. 1 with *out filled when it has ended (or
 * ended before); 0 when it is still going on, was not asked for, or the
 * tracker is NEW; -1 (gt_last_error) when out's struct_size is not set. */
GT_INTERNAL int gt_tracker_cloud_info(gt_tracker *t, double max_wait, gt_cloud_info *out);

/* ---- One reading, now ----------------------------------------------------
 * The cumulative counters the process and system series are made of, read
 * once through a tracker's readers (the same tree walk, the same /proc and
 * /sys readers, the same GPU library) without tracking anything: what
 * resource_tracker's get_process_stats() and get_system_stats() return
 * (the tools' gt_rt_counters_read() asks it for them). Each call opens the
 * readers and closes them again (the GPU library's start-up included), so
 * it suits an occasional look, not a loop. */

/* A whole disk's bytes moved since boot (its sectors of 512 bytes). */
typedef struct gt_counters_disk {
    char name[64];
    unsigned long long read_bytes, write_bytes;
} gt_counters_disk;

/* A filesystem the disk-space figures count (each device once, as the
 * system series counts them), as df shows it. */
typedef struct gt_counters_space {
    char *mount;               /* where it is mounted */
    unsigned long long total_bytes, used_bytes, free_bytes;
} gt_counters_space;

typedef struct gt_counters {
    double timestamp;          /* seconds since the epoch */
    /* The process (opts.process_id, else the caller) and, unless
     * opts.main_only, its descendants: CPU since each started (with the
     * CPU of the children they reaped), PSS now, bytes moved at the
     * storage layer (with the reaped children's), GPU use now. */
    pid_t pid;
    long children;             /* live descendants (0 with main_only) */
    double user_seconds, system_seconds;
    unsigned long long pss_bytes;
    unsigned long long read_bytes, write_bytes;
    double gpu_usage;          /* GPUs' worth of SM time (0 .. GPU count) */
    double gpu_vram_mib;       /* GPU memory the processes hold */
    int gpu_utilized;          /* GPUs they keep busy */
    unsigned long long gpu_utilized_devices; /* bit d: device d is one */
    /* The system. */
    int system_ok;             /* /proc/stat and meminfo were read */
    long processes;
    double system_user_seconds;   /* user + nice, all CPUs, since boot */
    double system_system_seconds; /* system, all CPUs */
    /* /proc/meminfo's own figures (MemTotal, MemAvailable, MemFree,
     * Buffers, Cached, SReclaimable, Active, Inactive), each reader's
     * definition of "used" and "cached" made from them. */
    unsigned long long mem_total_kb, mem_available_kb, mem_free_kb, mem_buffers_kb,
        mem_cached_kb, mem_sreclaimable_kb, mem_active_kb, mem_inactive_kb;
    size_t ndisks;
    gt_counters_disk *disks;
    size_t nspaces;
    gt_counters_space *spaces;
    unsigned long long net_recv_bytes, net_sent_bytes; /* interfaces with a device */
    double system_gpu_usage, system_gpu_vram_mib;
    int system_gpu_utilized;
    char gpu_reason[256];      /* why there are no GPU figures ("" if there are) */
} gt_counters;

/* Reads the counters of opts' process (its tree unless main_only; the GPU
 * options choose the GPUs as a tracker's would) and of the system, from
 * where opts' proc_root and sys_root say, into *out (free with
 * gt_counters_free()).
 * GT_ERR_NO_PROCESS when there is no such process, the failures of
 * gt_tracker_new() otherwise, with gt_last_error() saying why. A part
 * that cannot be read is left at zero (system_ok, gpu_reason say which). */
GT_INTERNAL gt_status gt_counters_read(const gt_options *opts, gt_counters **out);
GT_INTERNAL void gt_counters_free(gt_counters *c);


#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_INTERNAL_H */
