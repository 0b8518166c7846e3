/* gpu_run.h - what the GPU driver counted for a run beyond samples
 * (gt_gpu_run), from the GPU parts of its samples (sample.h): the
 * accounting records of the job's processes (the exited ones too), the
 * share of the run each clock throttle reason held, ECC and XID errors, and
 * the job's share of the GPUs' energy. Pure, as usage.h is; and the
 * "gpu_run" object of the JSON and of snapshots, both ways. */
#ifndef GT_GPU_RUN_H
#define GT_GPU_RUN_H


#include "gpu_tracker_internal.h"
#include "sample.h"

/* One process's accounting record as the job's: role 1 main, 2 a
 * descendant, 0 never seen in the tree (it ended between two samples). */
struct gpu_run_process {
    pid_t pid;
    int device;
    unsigned long long start_us;
    int role;
    unsigned long long max_bytes, time_ms;
};

struct gpu_run_acc {
    unsigned long long selected;     /* bit d: device d is selected (the
                                        latest sample's gpu_selected) */
    int accounting_seen;             /* a sample read records */
    struct gpu_run_process *procs;
    size_t nprocs, capprocs;
    /* Bit d: a process outside the tree used device d at some sample; a
     * record that ended unseen there may be anyone's. */
    unsigned long long shared_devices;
    /* Throttle reasons: seconds read, and seconds each reason held, per
     * device and on any selected device. */
    double prev_now;                 /* the previous sample's time (0: none) */
    double device_time[GPU_MAX_DEVICES];
    double device_reason_time[GPU_MAX_DEVICES][GPU_THROTTLE_N];
    double any_time, any_reason_time[GPU_THROTTLE_N];
    /* ECC counters at the first and latest readings (bit d of *_read). */
    unsigned long long ecc_first_read, ecc_last_read;
    unsigned long long ecc_first[GPU_MAX_DEVICES][2], ecc_last[GPU_MAX_DEVICES][2];
    long xid_events;
    unsigned long long xid_last;
    int xid_last_device;
    /* The job's SM time and the selected GPUs' busy time, percent-seconds,
     * for the energy share; job_sm_missing: a sample lacked the job's SM. */
    double job_sm_time, gpu_busy_time;
    int job_sm_missing, busy_seen;
    /* PID translation inside a namespace (gpu_sample.pid_namespace). */
    int pid_namespace;
    unsigned pids_translated, pids_untranslated; /* the most at one sample */
};

/* An empty accumulator. */
void gpu_run_acc_init(struct gpu_run_acc *a);
void gpu_run_acc_free(struct gpu_run_acc *a);

/* Adds one GPU sample taken at monotonic time now on the devices whose
 * bits are in selected: its records attributed by roles (the tree's at the
 * same sample; the backend passes only records running now or ended since
 * the GPUs were opened), its processes outside the tree marking their
 * devices shared; gs its attribution to the tree (NULL: the tree was not
 * read). 0, or -1 when out of memory (the sample's records are then lost,
 * nothing else). */
int gpu_run_acc_step(struct gpu_run_acc *a, double now, unsigned long long selected,
                     const struct gpu_sample *s, const struct pid_roles *roles,
                     const struct gpu_tree_sample *gs);

/* The job's accounting peaks so far, bytes: the main process's record and
 * the largest descendant's (unseen ones on a GPU no one else used
 * included), 0 when there is none. */
void gpu_run_acc_peaks(const struct gpu_run_acc *a, unsigned long long *main_peak,
                       unsigned long long *descendants_peak);

/* Why each part is missing (the GPU reader's reasons; "" or NULL: there). */
struct gpu_run_reasons {
    const char *gpu;        /* no GPU figures at all */
    const char *accounting, *throttle, *ecc, *xid, *energy, *proc_util;
    const char *pids;       /* in a PID namespace, no translation at all */
};

/* The run's figures into *out (its struct_size kept); energy_joules: the
 * selected GPUs' energy over the run (gpu_details). The per-GPU figures go
 * into table (room for min(ndevices, GT_MAX_GPUS); NULL: none), which
 * out->devices then points at. */
void gpu_run_acc_fill(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                      int ndevices, double energy_joules, gt_gpu_run_device *table,
                      gt_gpu_run *out);

#endif
