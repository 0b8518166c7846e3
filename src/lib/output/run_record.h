/* run_record.h - what a snapshot says about a run besides its figures:
 * which process, when, on which machine and cloud; and the assembly of a
 * snapshot from that record, the summary and the rows.
 *
 * The machine is described once, at the first need (run_record_describe):
 * at start when the run keeps a series (its snapshot or report will need
 * it), when the job's cgroup, CPU affinity and GPUs are those it ran with;
 * otherwise only if a caller asks (gt_tracker_server_info, a snapshot),
 * so that a run that never shows it never reads it. */
#ifndef GT_RUN_RECORD_H
#define GT_RUN_RECORD_H

#include <pthread.h>

#include "gpu_tracker_internal.h"
#include "common/row_source.h"
#include "sample.h"

struct run_record {
    pid_t pid;
    double interval;
    double epoch_start, epoch_stop; /* wall clock of the first and last sample */
    gt_server_info server;          /* allocation is filled from the rows */
    gt_cloud_info cloud;            /* asked = 0: not asked */
    char *filesystems;              /* the disk-space figures' (NULL: none) */
    gt_job_info job;                /* options.job (all empty: none) */
    /* What describing needs, kept from run_record_begin(); described: 1
     * once server and filesystems are filled (under describe_lock). */
    const char *proc_root, *sys_root;
    const struct gpu_device *devices;
    int ndevices;
    int described;
    pthread_mutex_t describe_lock;
};

/* Begins the record of a run of pid; the machine is that of proc_root and
 * sys_root with the GPUs the tracker found (ndevices of devices, which must
 * outlive the record; 0: none), described now when describe_now. */
void run_record_begin(struct run_record *r, pid_t pid, double interval, const char *proc_root,
                      const char *sys_root, const struct gpu_device *devices, int ndevices,
                      int describe_now);

/* Describes the machine (server_info.h) unless that is done; safe from
 * several threads. */
void run_record_describe(struct run_record *r);

/* Frees what run_record_begin() allocated. */
void run_record_free(struct run_record *r);

/* Everything of a snapshot but its row arrays (s->filesystems, like
 * s->command and the GPU lists, is a copy the snapshot owns): s->series gets the counts
 * and interval from rows, s->command a copy of command (NULL: ""), and the
 * server's allocation is judged from the rows. GT_ERR_NO_MEMORY. */
gt_status run_record_snapshot(const struct run_record *r, const char *command, int exit_status,
                              const gt_resource_usage *usage, const struct row_source *rows,
                              gt_snapshot *s);

#endif
