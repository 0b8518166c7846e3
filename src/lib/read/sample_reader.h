/* sample_reader.h - all the I/O of a sample, in one step.
 *
 * The reader owns everything that touches the system while tracking: the
 * process tree's descriptors (tree.h), /proc/stat and meminfo (system.h),
 * the system series' disks, interfaces and filesystems (system_series.h),
 * the GPU library (gpu.h) and the count of the library's own threads. One
 * sample_read() fills a struct sample (sample.h); what it means is the
 * pipeline's business (pipeline.h). Whoever samples owns the reader: the
 * sampling thread while it runs, the API call after it has stopped. */
#ifndef GT_SAMPLE_READER_H
#define GT_SAMPLE_READER_H

#include "read/cgroup.h"
#include "read/gpu/gpu.h"
#include "read/gpu_holders.h"
#include "read/rapl.h"
#include "sample.h"
#include "read/system.h"
#include "read/system_series.h"
#include "read/tree.h"
#include "common/warn.h"

#define PID_NAMESPACE_REASON \
    "gpu-tracker runs in a PID namespace (a container): the driver's process IDs are the host's"

/* What to read (from gt_options; the strings stay the caller's). */
struct sample_reader_config {
    const char *proc_root, *sys_root;
    pid_t pid;                /* the main process */
    pid_t reaper_pid;         /* see gt_options */
    int max_kept_files;       /* see gt_options; 0: a quarter of the limit */
    int self;                 /* pid is the calling process */
    int series;               /* GT_SERIES_* bits: what else to read */
    int sampled_only;
    int main_only;            /* the main process alone (gt_options) */
    const char *gpu_brand, *gpu_uuids; /* NULL: every vendor, all GPUs */
    const char *nvml_library, *rsmi_library; /* NULL: the system's */
    double gpu_open_timeout;  /* seconds the GPU library's init may take */
    int cgroup;               /* read the main process's cgroup */
    int gpu_details;          /* gpu_vendor.details for every sample */
    double ticks_per_second;  /* the clock ticks of v1's cpuacct.stat */
};

struct sample_reader {
    struct sample_reader_config cfg;
    struct tree tree;
    struct system_reader sys;
    int ncpu;                 /* online CPUs, from the first /proc/stat */
    unsigned long long mem_total_kb; /* MemTotal, from the first meminfo */
    int extra_open;           /* sysx is open (the system series) */
    struct system_series_reader sysx;
    struct system_series_sample extra; /* the buffers sample.extra points at */
    struct gpu gpu;           /* gpu.nvendors 0: no GPU figures */
    char gpu_reason[256];     /* why there are no GPU figures ("" if there are) */
    int gpu_failed;           /* the driver failed mid-run: no more GPU samples */
    int in_pid_namespace;     /* (asked only with GPUs) the driver's PIDs are the host's: they are
                                 translated (gpu_pidmap.h) where the GPUs'
                                 device files are known, else not matched */
    int pid_translation;      /* in_pid_namespace, and every GPU has a
                                 device file number to match by */
    struct gpu_holder *holders; /* the translation's buffers */
    size_t capholders;
    struct gpu_claim *claims;
    size_t capclaims;
    pid_t *tree_pids;         /* for a GPU backend that reads the tree's
                                 processes itself (gpu.needs_tree_pids) */
    size_t cap_tree_pids;
    struct cgroup_reader cg;  /* cg.version 0: no group (cg.reason) */
    struct rapl_reader rapl;  /* the CPUs' energy (rapl.nzones 0: rapl.reason) */
    struct warn_channel *warn_channel;
};

/* Opens everything cfg asks for. GT_OK, or the status with gt_last_error()
 * naming the problem: GT_ERR_NO_PROCESS (no such pid), GT_ERR_IO (procfs
 * cannot be opened, or belongs to another PID namespace), GT_ERR_PARSE
 * (/proc/stat or meminfo malformed), GT_ERR_INVALID_ARGUMENT (gpu_uuids
 * names a GPU that is not there), GT_ERR_NO_MEMORY. A GPU library that is
 * missing or fails is not an error: gpu_reason says why. On failure the
 * reader is closed. w receives the warnings of later samples. */
/* A reader with nothing open: safe to close (sample_reader_close) before
 * or after a failed open. */
void sample_reader_init(struct sample_reader *r);

gt_status sample_reader_open(struct sample_reader *r, const struct sample_reader_config *cfg,
                             struct warn_channel *w);

/* Where a tracker reads from and whom it tracks (the rest comes from its
 * options). */
struct reader_place {
    const char *proc_root, *sys_root;
    pid_t pid;                /* the tracked process */
    int self;                 /* pid is the calling process */
    int sampled_only;         /* a plain sampler's comparison run */
};

/* sample_reader_open() with the configuration options o ask for. */
gt_status reader_open(struct sample_reader *r, const gt_options *o, const struct reader_place *at,
                      struct warn_channel *w);

/* The short name of process pid (its comm: "python"), at most cap - 1
 * bytes; "" when it cannot be read. */
void read_process_name(const char *proc_root, pid_t pid, char *out, size_t cap);

/* What the next sample should read beyond what every sample reads: the
 * feedback of the stages after the reader, decided by the tracker in one
 * place (tracker.c, next_read_plan) and handed to sample_read(). */
struct read_plan {
    int io;       /* each process's I/O counters even without the process
                     series (the exporter's, when someone will see them) */
    int cgroup;   /* the job's cgroup files (0 once the group is found
                     shared: its figures will not be used) */
    /* Members outside the tree at the two samples before (the pipeline's
     * count of sightings): one still there and still outside makes the
     * group shared at this sample, which then reads the members alone. */
    const pid_t *cgroup_outsiders;
    size_t ncgroup_outsiders;
};

/* Closes what is open; safe on a reader whose open failed, and again. */
void sample_reader_close(struct sample_reader *r);

/* Sends sig to every process of the tree as the last sample found it (not
 * the caller, not the reaper): how many it reached (gt_tracker_signal). */
int sample_reader_signal_tree(struct sample_reader *r, int sig);

/* Who held a new peak of kind (GT_PEAK_MEMORY, GT_PEAK_GPU_MEMORY) at the
 * sample s just read (tree_memory_breakdown, tree_gpu_breakdown): the
 * largest processes named, at seconds into the run, of total_bytes; for
 * memory, the pages they share with others as the rest of the total.
 * O(n) in the tree: only at a new peak. */
void sample_reader_peak(struct sample_reader *r, const struct sample *s, int kind, double at,
                        double total_bytes, gt_peak_breakdown *out);

/* For the copy of a reader in a child made by fork(): frees our memory and
 * descriptors without calling the GPU library (its state is the parent's). */
void sample_reader_forget(struct sample_reader *r);

/* Takes one sample of everything into *s for slot (sample.h), and what
 * plan adds; a part that fails is marked not ok, with a warning the first
 * time. */
void sample_read(struct sample_reader *r, long slot, const struct read_plan *plan,
                 struct sample *s);

#endif
