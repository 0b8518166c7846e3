/* sample.h - what one sample holds: the types every stage of the sampling
 * pipeline shares, and nothing else (no functions, no state).
 *
 * The pipeline runs one way (docs/architecture.md):
 *
 *   sample_reader (all the I/O of a sample: procfs, sysfs, the GPU library)
 *        |  struct sample
 *        v
 *   pipeline (pure: GPU attribution, the library's own threads taken out,
 *        |    the running aggregates, the series' rows)
 *        |  rows and the summary so far
 *        v
 *   sinks (the row store, CSV streams, the backup file, the tracking file,
 *         the metrics exporter)
 *
 * Producers fill these types, consumers read them; neither includes the
 * other's header. Memory in kB and CPU in clock ticks unless a name says
 * otherwise. */
#ifndef GT_SAMPLE_H
#define GT_SAMPLE_H

#include <stddef.h>
#include <sys/types.h>

#include "common/background.h"
#include "common/parse/cgroup_parse.h"
#include "common/pid_index.h"
#include "common/parse/proc_parse.h"
#include "common/parse/sys_parse.h"

/* The resources pressure stall information is kept for (the order of the
 * system's /proc/pressure files and of a cgroup's *.pressure). */
enum { CGROUP_PSI_CPU, CGROUP_PSI_MEMORY, CGROUP_PSI_IO, CGROUP_PSI_N };

/* ---- The process tree (tree.c produces it) ---- */

/* The busiest group of worker processes at one walk (census.c): the tree's
 * descendants of one command (comm), what their CPU clocks advanced since
 * the last walk and what their main threads were runnable (ran or waited
 * in a run queue, schedstat) in it. processes 0: no live descendant. */
struct worker_load {
    char command[16];
    long processes;                 /* its live descendants at this walk */
    unsigned long long ticks;       /* their CPU since the last walk */
    unsigned long long runnable_ns; /* their main threads' run + run-queue wait */
};

/* What one walk saw. Memory in kB, CPU in clock ticks. */
struct tree_sample {
    int main_alive;                 /* main seen (running or zombie) */
    int main_zombie;                /* ... and seen as a zombie: it has ended */
    unsigned long long main_ticks;  /* cumulative utime+stime of main */
    unsigned long long desc_ticks;  /* cumulative CPU of all descendants */
    /* The same in nanoseconds: each live process's run time as the kernel
     * keeps it where it can be read (its CPU clock), its ticks otherwise;
     * what reaped children used is in ticks either way (cutime/cstime).
     * A window of a few milliseconds is measured to the microsecond where
     * ticks would be off by 10 ms a process. */
    unsigned long long main_ns, desc_ns;
    /* The resolution of this walk's live processes' own CPU: 1 where every
     * clock was read, the tick (10 ms) where one was counted in ticks
     * (a PID namespace not ours, a fixture, a clock that failed). */
    unsigned long long cpu_resolution_ns;
    long main_threads, desc_threads;

    /* RSS now; private/shared from the latest smaps_rollup (see tree.c). */
    unsigned long long main_rss_kb, main_private_kb, main_shared_kb, main_pss_kb;
    unsigned long long desc_rss_kb, desc_private_kb, desc_shared_kb; /* sums */
    unsigned long long desc_shared_max_kb;      /* largest shared of one desc */
    unsigned long long desc_pss_shared_kb;      /* sum of (Pss - Private) */

    /* Kernel high-water marks (VmHWM) that were reached while tracked. */
    unsigned long long main_hwm_kb, desc_hwm_max_kb;

    /* main's reaped-children fault counters: both 0 means main reaped no
     * child, so its wait4 ru_maxrss is its own high-water mark. */
    unsigned long long main_cminflt, main_cmajflt;
    /* main's own page faults (minor + major, every thread's; a zombie's are
     * all it made) and its command name: what main could have grown since
     * a sample read its VmHWM is bounded by the faults it made since
     * (usage.c), and a new name or a lower VmHWM says it exec'd. */
    unsigned long long main_faults;
    char main_comm[16];

    /* A live process of the tree that ignores SIGCHLD (0: none this walk):
     * the kernel reaps its children, whose CPU and peaks then reach no
     * counter we read unless a sample saw them alive. */
    pid_t sigchld_ignorer;
    char sigchld_ignorer_comm[16];

    /* gpu-tracker's fork's VmHWM before the command's exec (0: none): the
     * kernel carries it into main's wait4 ru_maxrss, so a maxrss up to it
     * says nothing of the command. */
    unsigned long long fork_hwm_kb;

    /* What the main threads of the tree's processes ran and waited for a
     * CPU while runnable (schedstat), nanoseconds, summed over the walks
     * since the first; sched_ok 0: the kernel does not account it. */
    int sched_ok;
    unsigned long long sched_run_ns, sched_wait_ns;

    /* The main process's block I/O delay (/proc/PID/stat field 42),
     * cumulative clock ticks: blkio 1 when read, 0 when its stat line has no
     * such field, -1 when the kernel's delay accounting is off (the
     * kernel.task_delayacct sysctl), where the counter stays 0. */
    int blkio;
    unsigned long long main_blkio_ticks;

    /* The busiest group of worker processes (descendants of one command)
     * at this walk: what they used and were runnable since the last walk. */
    struct worker_load workers;

    /* For the process series (tree->series set), of the whole tree:
     * cumulative CPU ticks split into user and system, cumulative bytes
     * read/written at the storage layer (as /proc/<pid>/io counts them: a
     * reaped child's bytes move into its parent's), PSS now, and the number
     * of live descendants. */
    unsigned long long utime_ticks, stime_ticks;
    unsigned long long read_bytes, write_bytes;
    unsigned long long pss_kb;
    long children;
    /* The same CPU as utime + stime, in nanoseconds and finer: each live
     * process's run time as the kernel keeps it (its CPU clock: every
     * thread, the exited ones too) where it can be read, ticks otherwise;
     * the CPU of reaped children is in ticks (cutime/cstime) either way. */
    unsigned long long cpu_ns;
};

/* Where each PID stood in the tree at the walk that made the sample: index
 * maps a PID to a slot, role[slot] is 1 for main, 2 for a descendant (0:
 * not in the tree). Both belong to the walker; valid until its next walk. */
struct pid_roles {
    const struct pid_index *index;
    const unsigned char *role;
};


/* ---- GPUs (gpu.c and its backends produce them) ---- */

#define GPU_MAX_DEVICES 64
#define GPU_ID_LEN 96

struct gpu_device {
    char uuid[GPU_ID_LEN];
    char name[GPU_ID_LEN];
    unsigned long long memory_total; /* bytes */
    int selected;                    /* in gpu_uuids (or all when none given) */
    int minor;                       /* its device file, /dev/nvidia<minor>
                                        (-1: unknown, or not NVIDIA's) */
    int mig;                         /* a MIG instance of an NVIDIA GPU */
};

/* A process's GPU memory and SM utilization, summed over its devices, and
 * on which devices (bit i: device i; 0 when the library does not say). */
struct gpu_process {
    pid_t pid;
    unsigned long long bytes;
    double sm_percent;
    unsigned long long memory_devices; /* where it holds memory */
    unsigned long long busy_devices;   /* where its SM utilization is > 0 */
};

/* A process's record in the driver's accounting (NVML accounting mode):
 * the driver's own high-water mark of its GPU memory, kept after it exits,
 * as VmHWM is for RAM. */
struct gpu_account_record {
    pid_t pid;
    int device;                      /* index in the device list */
    unsigned long long max_bytes;    /* its peak GPU memory */
    unsigned util_percent;           /* its mean utilization over its life */
    unsigned long long time_ms;      /* how long it ran on the GPU */
    unsigned long long start_us;     /* when it started, epoch microseconds */
    int running;
};

/* Why a GPU's clocks were below their maximum (NVML's clocks event
 * reasons, one bit each in gpu_sample.device_throttle). */
enum gpu_throttle {
    GPU_THROTTLE_IDLE,
    GPU_THROTTLE_APP_CLOCKS,        /* applications clocks setting */
    GPU_THROTTLE_SW_POWER_CAP,
    GPU_THROTTLE_HW_SLOWDOWN,
    GPU_THROTTLE_SYNC_BOOST,
    GPU_THROTTLE_SW_THERMAL,
    GPU_THROTTLE_HW_THERMAL,
    GPU_THROTTLE_HW_POWER_BRAKE,
    GPU_THROTTLE_DISPLAY_CLOCKS,
    GPU_THROTTLE_N
};

/* What a GPU's own performance counters said it did over an interval
 * (NVML's GPM metrics on Hopper and later, per MIG instance too; ROCm
 * SMI's gpu_metrics on AMD): percent of the interval, each where the GPU
 * gives it (bit m of read). */
enum gpu_activity_metric {
    GPU_ACTIVITY_SM,         /* SMs busy (NVIDIA GPM SM_UTIL) */
    GPU_ACTIVITY_OCCUPANCY,  /* warps resident over the maximum */
    GPU_ACTIVITY_TENSOR,     /* any tensor core pipe active */
    GPU_ACTIVITY_DRAM,       /* DRAM bandwidth over the peak (AMD: the
                                memory controller's activity) */
    GPU_ACTIVITY_FP64,
    GPU_ACTIVITY_FP32,
    GPU_ACTIVITY_FP16,
    GPU_ACTIVITY_GFX,        /* AMD: the graphics/compute engine's activity */
    GPU_ACTIVITY_N
};

struct gpu_activity {
    double seconds;          /* the interval the figures cover; 0: none read */
    unsigned read;           /* bit m: percent[m] holds */
    double percent[GPU_ACTIVITY_N];
    int pcie_read;           /* PCIe rates, bytes per second, over the */
    double pcie_tx, pcie_rx; /* interval (GPM) or NVML's last 20 ms */
};

/* One process's SM utilization on one device at this sample (NVML's
 * process utilization): the pairs behind gpu_process.sm_percent. */
struct gpu_proc_sm {
    pid_t pid;
    int device;
    double sm_percent;
};

/* One sample of every device. */
struct gpu_sample {
    unsigned long long memory_used;  /* bytes, all devices */
    double util_sum_percent;         /* selected devices */
    struct gpu_process *procs;       /* owned by the gpu; valid until the next sample */
    size_t nprocs;
    int proc_util_ok;                /* sm_percent was measured (else see reason) */
    int energy_ok;                   /* energy_mj was measured */
    unsigned long long energy_mj;    /* selected devices, since gpu_open */
    /* Each device (index as in gpu.devices): utilization percent (-1 when
     * the library could not tell) and memory used (bytes). */
    double device_util[GPU_MAX_DEVICES];
    unsigned long long device_memory_used[GPU_MAX_DEVICES];
    /* The driver's accounting records read at this sample (accounting_read
     * 0: none read; they are read every few seconds and at the baseline and
     * final samples): processes running now, and those that ended since
     * the GPUs were opened. Owned by the gpu, valid until the next sample. */
    int accounting_read;
    struct gpu_account_record *records;
    size_t nrecords;
    /* Bit d set: device d's throttle reasons (bits 1 << enum gpu_throttle)
     * were read into device_throttle[d]. */
    unsigned long long throttle_read;
    unsigned device_throttle[GPU_MAX_DEVICES];
    /* Bit d: device d's per-process utilization was read at this sample
     * (proc_sm then lists each process's share of it; none listed: no
     * process ran a kernel there). Owned by the gpu, as procs. */
    unsigned long long proc_util_read;
    struct gpu_proc_sm *proc_sm;
    size_t nproc_sm;
    /* Each device's activity counters over the interval up to this sample. */
    struct gpu_activity activity[GPU_MAX_DEVICES];
    /* Bit d: device d's energy counter (mJ since gpu_open) is in
     * device_energy_mj[d], read at this sample or earlier. */
    unsigned long long device_energy_read;
    unsigned long long device_energy_mj[GPU_MAX_DEVICES];
    /* Bit d set: device d's ECC error counters (volatile: since the driver
     * loaded) were read, at the baseline and final samples only. */
    unsigned long long ecc_read;
    unsigned long long ecc_corrected[GPU_MAX_DEVICES], ecc_uncorrected[GPU_MAX_DEVICES];
    /* XID (critical error) events the driver reported since the previous
     * sample, on any device; the last one's code and device. */
    unsigned xid_events;
    unsigned long long xid_last;
    int xid_last_device;
    /* Inside a PID namespace (sample_reader): the driver's PIDs were
     * translated to ours (procs and records); how many were, and how many
     * could not be (their pid is then minus the host's, matching nothing). */
    int pid_namespace;
    unsigned pids_translated, pids_untranslated;
};

/* What one GPU sample means for the tracked tree (bytes, percent). */
struct gpu_tree_sample {
    unsigned long long system_used; /* all GPUs */
    unsigned long long main_bytes, desc_bytes;
    double util_sum_percent;        /* selected GPUs */
    int proc_util_ok;               /* main_sm/desc_sm were measured */
    double main_sm, desc_sm;        /* SM percent of the tree's processes */
    unsigned long long memory_devices; /* where the tree holds memory (bit d:
                                       device d; every bit when the driver
                                       does not say which) */
    int energy_ok;
    unsigned long long energy_mj;   /* selected GPUs, since tracking began */
    /* Per device where proc_util_read (bit d): the SM percent of the
     * tree's processes, and of every process, at this sample. */
    unsigned long long proc_util_read;
    double device_job_sm[GPU_MAX_DEVICES], device_all_sm[GPU_MAX_DEVICES];
};

/* GPU figures of one reading: usage in GPUs (1.0 = one GPU fully busy),
 * memory in MiB, and how many GPUs are busy. */
struct series_gpu {
    double usage;
    double vram_mib;
    int utilized;
    unsigned long long utilized_devices; /* which (bit d: device d); the process figures only */
};

/* ---- The system series' extra counters (system_series.c) ---- */

/* /proc/diskstats counts 512-byte sectors on every device, whatever its
 * hardware sector size. */
#define DISK_SECTOR_BYTES 512ULL

struct disk_counter {
    char name[SYS_NAME_LEN];
    unsigned major, minor;
    unsigned long long read_sectors, write_sectors;
};

struct net_counter {
    char name[SYS_NAME_LEN];
    unsigned long long rx_bytes, tx_bytes;
    int physical; /* a device is behind it (see the file comment) */
};

/* One reading. Each part has its own ok flag: a part that could not be read
 * is left out of the rows (zeros), the rest still counts. */
struct system_series_sample {
    int processes_ok, disks_ok, nets_ok, fs_ok;
    long processes;
    struct disk_counter *disks; /* grown as needed; free with _sample_free */
    size_t ndisks, capdisks;
    struct net_counter *nets;
    size_t nnets, capnets;
    /* Summed over the filesystems counted, as df shows them: used is what
     * is taken (blocks - bfree), free what users may still take (bavail);
     * reserved blocks make used + free less than total. */
    unsigned long long fs_total_bytes, fs_used_bytes, fs_free_bytes;
    /* /proc/pressure/{cpu,memory,io}: cumulative stall microseconds */
    int psi_ok[CGROUP_PSI_N];
    struct psi_totals psi[CGROUP_PSI_N];
};

/* ---- The job's cgroup (cgroup.c) ---- */

/* One reading of the group the main process is in. Counters are the
 * kernel's (cumulative since the group was made); each part has its own
 * ok flag. The slow-moving parts (CPU, throttling, pressure, the limits)
 * are read at the baseline and the final sample only: the run's share is
 * last minus first. */
struct cgroup_sample {
    const char *path;            /* the reader's: the group, in its hierarchy */
    int version;                 /* 1 or 2 */
    /* Its member processes (the reader's array); pids not in the tree's
     * roles are outsiders, except self_pid, the tracker's own process. */
    int members_ok;
    const pid_t *members;
    size_t nmembers;
    pid_t self_pid;
    /* The tracked process is in neither the group nor a group beneath it
     * (it moved out): outside_path is where it is now (the reader's). */
    int root_outside;
    pid_t root_pid;
    const char *outside_path;
    int mem_ok;                  /* usage now */
    unsigned long long mem_current;
    int peak_ok;                 /* the kernel's high-water mark */
    unsigned long long mem_peak;
    int split_ok;                /* read when mem_current is the highest yet */
    unsigned long long anon, file, shmem;
    int limit_ok;                /* mem_limit 0: no limit */
    unsigned long long mem_limit;
    int events_ok;
    unsigned long long oom, oom_kill, limit_hits;
    int cpu_ok;
    unsigned long long cpu_usage_us, cpu_user_us, cpu_system_us;
    int throttle_ok;
    unsigned long long nr_periods, nr_throttled, throttled_us;
    double quota_cores;          /* 0: no quota (with throttle_ok) */
    int psi_ok[CGROUP_PSI_N];
    struct psi_totals psi[CGROUP_PSI_N];
};

/* ---- CPU energy (rapl.c) ---- */

/* The energy of the machine's CPU packages and DRAM since the reader was
 * opened, microjoules, the counters' wraps undone. */
struct rapl_sample {
    int ok;
    int have_dram;
    unsigned long long package_uj, dram_uj;
};

/* ---- One sample ---- */

/* Everything one sample read, each part with its own ok flag: a part that
 * could not be read is left out of that sample's figures, the rest counts.
 * The pointers belong to the reader and stay valid until its next sample. */
struct sample {
    double now;               /* monotonic seconds when it was taken */
    double wall;              /* the same moment, seconds since the epoch */
    long slot;                /* 0 baseline, k > 0 at start + k * interval,
                                 -1 the final one at stop (no row) */
    int sys_ok;
    struct sys_cpu cpu;
    struct meminfo mem;
    int tree_ok;
    struct tree_sample tree;
    int tree_series;          /* tree has the process series' figures (PSS
                                 at this sample, I/O) */
    int tree_io;              /* tree has I/O counters (the series', or the
                                 exporter's without the rest) */
    struct pid_roles roles;   /* with tree_ok */
    int self;                 /* the tracker tracks its own process: */
    struct library_threads library; /* its threads, to be taken out */
    int gpu_ok;
    int gpu_ndevices;
    unsigned long long gpu_selected; /* bit d: device d is selected */
    struct gpu_sample gpu;    /* procs: the reader's */
    struct system_series_sample *extra; /* NULL: not read (no system series);
                                 the pipeline may exchange its buffers */
    int cgroup_ok;            /* the job's group was read */
    struct cgroup_sample cgroup;
    struct rapl_sample rapl;  /* rapl.ok 0: not read */
};

/* The few helpers every stage shares (sample.c). */

/* Where pid stood at the walk: 1 main, 2 a descendant, 0 not in the tree. */
int pid_roles_get(const struct pid_roles *roles, pid_t pid);

/* Frees a system series sample's arrays and zeroes it. */
void system_series_sample_free(struct system_series_sample *s);

/* Exchanges two samples (for keeping the previous one without copying). */
void system_series_sample_swap(struct system_series_sample *a, struct system_series_sample *b);

#endif
