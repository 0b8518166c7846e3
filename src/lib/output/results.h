/* results.h - a run's results assembled from what the pipeline accumulated
 * and what the readers said: the summary (gt_resource_usage), the job's
 * cgroup, the CPUs' energy, what the GPU driver counted, and the summary
 * document that gathers the four. The hub keeps a struct run_results
 * beside its pipeline and calls these under its lock (the JSON document
 * outside it, from the four filled structs); none of them samples, locks
 * or reads a clock. */
#ifndef GT_RESULTS_H
#define GT_RESULTS_H

#include <json-c/json.h>

#include "gpu_tracker_internal.h"
#include "pipeline/pipeline.h"
#include "read/read.h"

/* Why GPU figures are missing, as of the newest sample ("" where they are
 * not): copied from the reader under the hub's lock, so that a caller
 * reading results never touches the reader the sampler owns. */
struct gpu_reasons {
    char gpu[256];
    char proc_memory[GT_REASON_LEN], proc_util[GT_REASON_LEN], energy[GT_REASON_LEN];
    char accounting[GT_REASON_LEN], throttle[GT_REASON_LEN], ecc[GT_REASON_LEN],
        xid[GT_REASON_LEN], mig[GT_REASON_LEN], activity[GT_REASON_LEN];
    int pids_unmatched;  /* in a PID namespace with no way to match the driver's PIDs */
};

struct run_results {
    struct usage_units units;
    int sampled_only;            /* a plain sampler's comparison run */
    double start_time;           /* monotonic time of the baseline sample */
    double lateness_sum, lateness_max; /* seconds past each periodic sample's deadline */
    long lateness_n;
    long skipped;                /* scheduled samples the one before overran */
    struct gpu_reasons why;
    /* The GPUs as the results list them (gpu_details.devices points
     * here), made once when they open; and the table gt_tracker_gpu_run()
     * lends its caller. */
    gt_gpu_device *gpu_list;
    gt_gpu_run_device *gpu_run_list;
    int ngpu_list;
    int mig_instances;           /* listed devices that are MIG instances */
    /* The readers whose reasons the cgroup and energy parts give (the
     * hub's, alive as long as it is), and the group made for the job. */
    const struct cgroup_reader *cg;
    const struct rapl_reader *rapl;
    const struct cgroup_own *own_cg;
    int own_cg_asked;
};

/* Lists the GPUs of g in the result units (units set first). -1 (ENOMEM). */
int results_list_gpus(struct run_results *res, const struct gpu *g);

/* The reasons of r's newest sample into res->why. */
void results_take_reasons(struct run_results *res, const struct sample_reader *r);

/* Frees what results_list_gpus() made. */
void results_free(struct run_results *res);

/* The summary at end_time (monotonic; complete: a finished run) into *out:
 * the pipeline's figures in the result units, the schedule's lateness, the
 * GPU list and reasons, GPU peaks never below the driver's records. */
void results_usage(const struct run_results *res, const struct pipeline *p, double end_time,
                   int complete, gt_resource_usage *out);

/* The job's cgroup figures into *out (struct_size kept). */
void results_cgroup(const struct run_results *res, const struct pipeline *p,
                    gt_cgroup_usage *out);

/* The CPUs' energy into *out, the job's share from the summary u. */
void results_energy(const struct run_results *res, const struct pipeline *p,
                    const gt_resource_usage *u, gt_cpu_energy *out);

/* What the GPU driver counted into *out, its per-GPU figures into table
 * (room for res->ngpu_list; out->devices points there). */
void results_gpu_run(const struct run_results *res, const struct pipeline *p,
                     const gt_resource_usage *u, gt_gpu_run *out,
                     gt_gpu_run_device *table);

/* The summary document of gt_tracker_to_json(): u's object with the
 * cgroup, cpu_energy and gpu_run parts (g may be NULL: left out), who
 * held the peaks (peaks NULL:
 * left out), the GPUs held but idle (idle NULL or no GPU held: left out),
 * the job's energy (energy NULL: left out), the processes by command (procs
 * NULL or none seen: left out) and the measurement's sources of
 * the figures beyond gpu_tracker's. malloc'd text; NULL when out of
 * memory. */
char *results_document(const gt_resource_usage *u, const gt_cgroup_usage *c,
                       const gt_cpu_energy *e, const gt_gpu_run *g,
                       const gt_peak_breakdown *peaks, const gt_gpu_idle *idle,
                       const gt_job_energy *energy, const gt_command_groups *procs);


/* The job's energy ("energy"): a new object. */
json_object *job_energy_json_object(const gt_job_energy *e);



struct buf;

/* What the GPUs did (g's activity and share parts) as lines of the text
 * summary, when the GPUs gave activity counters or others shared them; 1
 * when it wrote any. */
int gpu_activity_text(const gt_gpu_run *g, struct buf *b);

/* What the GPUs waited for, when a verdict ("GPU waiting:", the share
 * and the advice), then the GPUs held but idle, or given and unused, as
 * the text summary ends with them ("GPUs held idle:", a line per idle GPU
 * and the advice), appended to *b; 1 when something was, 0 (nothing
 * appended) otherwise. */
int gpu_idle_text(const gt_gpu_idle *g, struct buf *b);

#endif
