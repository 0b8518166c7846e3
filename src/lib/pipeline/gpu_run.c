/* gpu_run.c - see gpu_run.h. */
#include "pipeline/gpu_run.h"

#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


_Static_assert(GT_GPU_THROTTLE_REASONS == GPU_THROTTLE_N, "one name per throttle reason");

void gpu_run_acc_init(struct gpu_run_acc *a)
{
    memset(a, 0, sizeof *a);
    a->xid_last_device = -1;
}

void gpu_run_acc_free(struct gpu_run_acc *a)
{
    free(a->procs);
    a->procs = NULL;
    a->nprocs = a->capprocs = 0;
}

static unsigned long long device_bit(int d)
{
    return d >= 0 && d < 64 ? 1ULL << d : 0;
}

/* The job's entry for record r, NULL when it has none. */
static struct gpu_run_process *find_process(struct gpu_run_acc *a,
                                            const struct gpu_account_record *r)
{
    for (size_t i = 0; i < a->nprocs; i++) {
        struct gpu_run_process *p = &a->procs[i];
        if (p->pid == r->pid && p->device == r->device && p->start_us == r->start_us)
            return p;
    }
    return NULL;
}

static struct gpu_run_process *add_process(struct gpu_run_acc *a,
                                           const struct gpu_account_record *r, int role)
{
    if (grow_array(&a->procs, &a->capprocs, a->nprocs + 1, sizeof *a->procs, 16) < 0)
        return NULL;
    struct gpu_run_process *p = &a->procs[a->nprocs++];
    memset(p, 0, sizeof *p);
    p->pid = r->pid;
    p->device = r->device;
    p->start_us = r->start_us;
    p->role = role;
    return p;
}

/* Takes the sample's accounting records: a record of a process in the tree
 * is the job's (and stays so after it ends); one that ended before any
 * sample saw it is kept as unseen, decided at fill time; one running
 * outside the tree marks its device shared. */
static int step_accounting(struct gpu_run_acc *a, const struct gpu_sample *s,
                           const struct pid_roles *roles)
{
    if (!s->accounting_read)
        return 0;
    a->accounting_seen = 1;
    for (size_t i = 0; i < s->nrecords; i++) {
        const struct gpu_account_record *r = &s->records[i];
        int role = roles ? pid_roles_get(roles, r->pid) : 0;
        struct gpu_run_process *p = find_process(a, r);
        if (!p && role == 0 && r->running) {
            a->shared_devices |= device_bit(r->device);
            continue;
        }
        if (!p && !(p = add_process(a, r, role)))
            return -1;
        if (role && !p->role)
            p->role = role; /* the tree has it now: it is the job's for sure */
        if (r->max_bytes > p->max_bytes)
            p->max_bytes = r->max_bytes;
        if (r->time_ms > p->time_ms)
            p->time_ms = r->time_ms;
    }
    return 0;
}

/* Each interval counts for the throttle reasons read at its end. */
static void step_throttle(struct gpu_run_acc *a, double dt, const struct gpu_sample *s)
{
    if (dt <= 0 || !s->throttle_read)
        return;
    unsigned any = 0;
    int any_read = 0;
    for (int d = 0; d < GPU_MAX_DEVICES; d++) {
        if (!(s->throttle_read >> d & 1))
            continue;
        a->device_time[d] += dt;
        for (int b = 0; b < GPU_THROTTLE_N; b++)
            if (s->device_throttle[d] >> b & 1)
                a->device_reason_time[d][b] += dt;
        if (a->selected >> d & 1) {
            any |= s->device_throttle[d];
            any_read = 1;
        }
    }
    if (!any_read)
        return;
    a->any_time += dt;
    for (int b = 0; b < GPU_THROTTLE_N; b++)
        if (any >> b & 1)
            a->any_reason_time[b] += dt;
}

static void step_ecc(struct gpu_run_acc *a, const struct gpu_sample *s)
{
    for (int d = 0; d < GPU_MAX_DEVICES; d++) {
        if (!(s->ecc_read >> d & 1))
            continue;
        if (!(a->ecc_first_read >> d & 1)) {
            a->ecc_first[d][0] = s->ecc_corrected[d];
            a->ecc_first[d][1] = s->ecc_uncorrected[d];
            a->ecc_first_read |= 1ULL << d;
        }
        a->ecc_last[d][0] = s->ecc_corrected[d];
        a->ecc_last[d][1] = s->ecc_uncorrected[d];
        a->ecc_last_read |= 1ULL << d;
    }
}

int gpu_run_acc_step(struct gpu_run_acc *a, double now, unsigned long long selected,
                     const struct gpu_sample *s, const struct pid_roles *roles,
                     const struct gpu_tree_sample *gs)
{
    a->selected = selected;
    double dt = a->prev_now > 0 ? now - a->prev_now : 0;
    a->prev_now = now;
    if (roles)
        for (size_t i = 0; i < s->nprocs; i++)
            if (!pid_roles_get(roles, s->procs[i].pid))
                a->shared_devices |= s->procs[i].memory_devices | s->procs[i].busy_devices;
    step_throttle(a, dt, s);
    step_ecc(a, s);
    if (s->pid_namespace) {
        a->pid_namespace = 1;
        if (s->pids_translated > a->pids_translated)
            a->pids_translated = s->pids_translated;
        if (s->pids_untranslated > a->pids_untranslated)
            a->pids_untranslated = s->pids_untranslated;
    }
    a->xid_events += s->xid_events;
    if (s->xid_events) {
        a->xid_last = s->xid_last;
        a->xid_last_device = s->xid_last_device;
    }
    if (gs && dt > 0) {
        if (!gs->proc_util_ok)
            a->job_sm_missing = 1;
        a->job_sm_time += (gs->main_sm + gs->desc_sm) * dt;
        a->gpu_busy_time += gs->util_sum_percent * dt;
        a->busy_seen = 1;
    }
    return step_accounting(a, s, roles);
}

/* reason, or "" when NULL. */
static const char *text(const char *reason)
{
    return reason ? reason : "";
}

static void set_reason(char *out, const char *reason, const char *fallback)
{
    snprintf(out, GT_REASON_LEN, "%s", reason && *reason ? reason : fallback);
}

/* Whether p counts as the job's: the tree had it, or it ended unseen on a
 * GPU no process outside the tree used. */
static int counted(const struct gpu_run_acc *a, const struct gpu_run_process *p)
{
    return p->role != 0 || !(a->shared_devices & device_bit(p->device));
}

void gpu_run_acc_peaks(const struct gpu_run_acc *a, unsigned long long *main_peak,
                       unsigned long long *descendants_peak)
{
    *main_peak = *descendants_peak = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct gpu_run_process *p = &a->procs[i];
        if (!counted(a, p))
            continue;
        unsigned long long *peak = p->role == 1 ? main_peak : descendants_peak;
        if (p->max_bytes > *peak)
            *peak = p->max_bytes;
    }
}

static void fill_accounting(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                            gt_gpu_run *out)
{
    if (why->gpu && *why->gpu) {
        set_reason(out->accounting_reason, why->gpu, "");
        return;
    }
    if (*text(why->accounting)) {
        set_reason(out->accounting_reason, why->accounting, "");
        return;
    }
    if (!a->accounting_seen) {
        set_reason(out->accounting_reason, NULL, "no accounting records were read yet");
        return;
    }
    out->accounting_available = 1;
    double seconds_ms = 0;
    for (size_t i = 0; i < a->nprocs; i++) {
        const struct gpu_run_process *p = &a->procs[i];
        if (!counted(a, p)) {
            out->accounting_unattributed++;
            continue;
        }
        out->accounting_processes++;
        out->accounting_unseen += p->role == 0;
        seconds_ms += (double)p->time_ms;
    }
    unsigned long long main_peak, descendants_peak;
    gpu_run_acc_peaks(a, &main_peak, &descendants_peak);
    out->accounting_main_peak = (double)main_peak;
    out->accounting_descendants_peak = (double)descendants_peak;
    out->accounting_gpu_seconds = seconds_ms / 1000.0;
}

static void fill_throttle(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                          int ndevices, gt_gpu_run_device *table, gt_gpu_run *out)
{
    int n = ndevices < GT_MAX_GPUS ? ndevices : GT_MAX_GPUS;
    if (!table)
        n = 0;
    for (int d = 0; d < n; d++) {
        memset(&table[d], 0, sizeof table[d]);
        if (a->device_time[d] <= 0)
            continue;
        out->ngpus = d + 1;
        table[d].throttle_read = 1;
        for (int b = 0; b < GPU_THROTTLE_N; b++)
            table[d].throttle_share[b] = a->device_reason_time[d][b] / a->device_time[d];
    }
    out->devices = out->ngpus ? table : NULL;
    const char *none = why->gpu && *why->gpu ? why->gpu : NULL;
    if (none || a->any_time <= 0) {
        set_reason(out->throttle_reason, none ? none : why->throttle,
                   "no throttle reasons were read over a whole interval yet");
        return;
    }
    out->throttle_available = 1;
    for (int b = 0; b < GPU_THROTTLE_N; b++)
        out->throttle_share[b] = a->any_reason_time[b] / a->any_time;
}

static void fill_errors(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                        gt_gpu_run *out)
{
    const char *none = why->gpu && *why->gpu ? why->gpu : NULL;
    unsigned long long both = a->ecc_first_read & a->ecc_last_read & a->selected;
    if (none || *text(why->ecc) || !both) {
        set_reason(out->ecc_reason, none ? none : why->ecc,
                   "the ECC counters were not read at the start and the end");
    } else {
        out->ecc_available = 1;
        for (int d = 0; d < GPU_MAX_DEVICES; d++) {
            if (!(both >> d & 1))
                continue;
            for (int k = 0; k < 2; k++) {
                unsigned long long first = a->ecc_first[d][k], last = a->ecc_last[d][k];
                /* a counter reset by a driver reload counts from zero again */
                double delta = (double)(last >= first ? last - first : last);
                if (k == 0)
                    out->ecc_corrected += delta;
                else
                    out->ecc_uncorrected += delta;
            }
        }
    }
    out->xid_last_gpu = -1;
    if (none || *text(why->xid)) {
        set_reason(out->xid_reason, none ? none : why->xid, "");
        return;
    }
    out->xid_available = 1;
    out->xid_events = a->xid_events;
    out->xid_last = (long long)a->xid_last;
    out->xid_last_gpu = a->xid_events ? a->xid_last_device : -1;
}

static void fill_energy(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                        double energy_joules, gt_gpu_run *out)
{
    const char *reason = NULL;
    if (why->gpu && *why->gpu)
        reason = why->gpu;
    else if (*text(why->energy))
        reason = why->energy;
    else if (*text(why->proc_util))
        reason = why->proc_util;
    else if (a->job_sm_missing)
        reason = "the job's GPU utilization was not read at every sample";
    else if (!a->busy_seen || a->gpu_busy_time <= 0)
        reason = "the selected GPUs were never busy";
    if (reason) {
        set_reason(out->job_energy_reason, reason, "");
        return;
    }
    double share = a->job_sm_time / a->gpu_busy_time;
    out->job_energy_available = 1;
    out->job_energy_share = share > 1 ? 1 : share;
    out->job_energy_joules = energy_joules * out->job_energy_share;
}

void gpu_run_acc_fill(const struct gpu_run_acc *a, const struct gpu_run_reasons *why,
                      int ndevices, double energy_joules, gt_gpu_run_device *table,
                      gt_gpu_run *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    fill_accounting(a, why, out);
    fill_throttle(a, why, ndevices, table, out);
    fill_errors(a, why, out);
    fill_energy(a, why, energy_joules, out);
    out->pid_namespace = a->pid_namespace || *text(why->pids);
    out->pids_translated = (int)a->pids_translated;
    out->pids_untranslated = (int)a->pids_untranslated;
    if (*text(why->pids))
        set_reason(out->pid_reason, why->pids, "");
    else if (a->pids_untranslated)
        snprintf(out->pid_reason, GT_REASON_LEN,
                 "%u of the driver's GPU processes (host PIDs) could not be matched to ours by "
                 "the GPU device files they hold (a GPU shared with processes outside this PID "
                 "namespace, or several of ours alike on one GPU): they are not counted",
                 a->pids_untranslated);
}
