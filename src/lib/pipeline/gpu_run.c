/* gpu_run.c - see gpu_run.h. */
#include "pipeline/gpu_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_write.h"
#include "pipeline/pipeline.h"

static const char *const throttle_names[GT_GPU_THROTTLE_REASONS] = {
    "gpu_idle",   "applications_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
    "sw_thermal", "hw_thermal",          "hw_power_brake", "display_clocks",
};

_Static_assert(GT_GPU_THROTTLE_REASONS == GPU_THROTTLE_N, "one name per throttle reason");

const char *gt_gpu_throttle_name(int i)
{
    return i >= 0 && i < GT_GPU_THROTTLE_REASONS ? throttle_names[i] : NULL;
}

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
    if (a->nprocs == a->capprocs) {
        size_t ncap = a->capprocs ? a->capprocs * 2 : 16;
        struct gpu_run_process *p = realloc(a->procs, ncap * sizeof *p);
        if (!p)
            return NULL;
        a->procs = p;
        a->capprocs = ncap;
    }
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
                          int ndevices, gt_gpu_run *out)
{
    int n = ndevices < GT_MAX_GPUS ? ndevices : GT_MAX_GPUS;
    for (int d = 0; d < n; d++) {
        if (a->device_time[d] <= 0)
            continue;
        out->ngpus = d + 1;
        out->device_throttle_read[d] = 1;
        for (int b = 0; b < GPU_THROTTLE_N; b++)
            out->device_throttle_share[d][b] = a->device_reason_time[d][b] / a->device_time[d];
    }
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
                      int ndevices, double energy_joules, gt_gpu_run *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    fill_accounting(a, why, out);
    fill_throttle(a, why, ndevices, out);
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

/* ---- JSON ---- */

/* {"available": b, "reason": ...} with the reason only when not available. */
static json_object *part_object(int available, const char *reason)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(available));
    if (!available)
        json_object_object_add(o, "reason", json_new_text(reason));
    return o;
}

static json_object *shares_object(const double *share)
{
    json_object *o = json_object_new_object();
    for (int b = 0; b < GT_GPU_THROTTLE_REASONS; b++)
        json_object_object_add(o, throttle_names[b], json_new_pyfloat(share[b]));
    return o;
}

json_object *gpu_run_json_object(const gt_gpu_run *g)
{
    json_object *root = json_object_new_object();
    json_object *acc = part_object(g->accounting_available, g->accounting_reason);
    json_object_object_add(acc, "processes", json_object_new_int(g->accounting_processes));
    json_object_object_add(acc, "ended_unseen", json_object_new_int(g->accounting_unseen));
    json_object_object_add(acc, "unattributed", json_object_new_int(g->accounting_unattributed));
    json_object_object_add(acc, "main_peak_bytes", json_new_pyfloat(g->accounting_main_peak));
    json_object_object_add(acc, "descendants_peak_bytes",
                           json_new_pyfloat(g->accounting_descendants_peak));
    json_object_object_add(acc, "gpu_seconds", json_new_pyfloat(g->accounting_gpu_seconds));
    json_object_object_add(root, "accounting", acc);

    json_object *thr = part_object(g->throttle_available, g->throttle_reason);
    json_object_object_add(thr, "share", shares_object(g->throttle_share));
    json_object *devices = json_object_new_array();
    for (int d = 0; d < g->ngpus && d < GT_MAX_GPUS; d++) {
        if (!g->device_throttle_read[d])
            continue;
        json_object *dev = json_object_new_object();
        json_object_object_add(dev, "index", json_object_new_int(d));
        json_object_object_add(dev, "share", shares_object(g->device_throttle_share[d]));
        json_object_array_add(devices, dev);
    }
    json_object_object_add(thr, "devices", devices);
    json_object_object_add(root, "throttle", thr);

    json_object *ecc = part_object(g->ecc_available, g->ecc_reason);
    json_object_object_add(ecc, "corrected", json_new_pyfloat(g->ecc_corrected));
    json_object_object_add(ecc, "uncorrected", json_new_pyfloat(g->ecc_uncorrected));
    json_object_object_add(root, "ecc", ecc);

    json_object *xid = part_object(g->xid_available, g->xid_reason);
    json_object_object_add(xid, "events", json_object_new_int64(g->xid_events));
    json_object_object_add(xid, "last", json_object_new_int64(g->xid_last));
    json_object_object_add(xid, "last_gpu", json_object_new_int(g->xid_last_gpu));
    json_object_object_add(root, "xid", xid);

    json_object *en = part_object(g->job_energy_available, g->job_energy_reason);
    json_object_object_add(en, "share", json_new_pyfloat(g->job_energy_share));
    json_object_object_add(en, "joules", json_new_pyfloat(g->job_energy_joules));
    json_object_object_add(en, "measurement",
                           json_new_text("an estimate: the job's SM utilization over the "
                                         "selected GPUs' utilization, times their energy"));
    json_object_object_add(root, "job_energy", en);

    json_object *pids = json_object_new_object();
    json_object_object_add(pids, "pid_namespace", json_object_new_boolean(g->pid_namespace));
    json_object_object_add(pids, "translated", json_object_new_int(g->pids_translated));
    json_object_object_add(pids, "untranslated", json_object_new_int(g->pids_untranslated));
    if (g->pid_reason[0])
        json_object_object_add(pids, "reason", json_new_text(g->pid_reason));
    json_object_object_add(root, "process_ids", pids);

    json_object *mig = json_object_new_object();
    json_object_object_add(mig, "instances", json_object_new_int(g->mig_instances));
    json_object_object_add(mig, "utilization_available",
                           json_object_new_boolean(g->mig_utilization_available));
    if (g->mig_instances && !g->mig_utilization_available)
        json_object_object_add(mig, "reason", json_new_text(g->mig_utilization_reason));
    json_object_object_add(root, "mig", mig);
    return root;
}

/* A part's "available" and, when not, its "reason"; the part's object (or
 * NULL after a problem). */
static json_object *read_part(struct json_reader *r, json_object *o, const char *key,
                              const char *path, int *available, char *reason)
{
    char sub[128];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    json_object *p = json_read_member(r, o, key, json_type_object, path);
    if (!p)
        return NULL;
    *available = json_read_bool(r, p, "available", sub);
    if (!*available)
        json_read_string(r, p, "reason", sub, reason, GT_REASON_LEN);
    return p;
}

static void read_shares(struct json_reader *r, json_object *o, const char *path, double *share)
{
    json_object *sh = json_read_member(r, o, "share", json_type_object, path);
    char sub[160];
    snprintf(sub, sizeof sub, "%s.share", path);
    for (int b = 0; sh && b < GT_GPU_THROTTLE_REASONS; b++)
        share[b] = json_read_number(r, sh, throttle_names[b], sub, 0, 1);
}

void gpu_run_json_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_run *g)
{
    size_t size = g->struct_size;
    memset(g, 0, sizeof *g);
    g->struct_size = size;
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    char sub[128];
    snprintf(sub, sizeof sub, "%s.accounting", path);
    json_object *p = read_part(r, o, "accounting", path, &g->accounting_available,
                               g->accounting_reason);
    g->accounting_processes = (int)json_read_integer(r, p, "processes", sub, 0, 1 << 30);
    g->accounting_unseen = (int)json_read_integer(r, p, "ended_unseen", sub, 0, 1 << 30);
    g->accounting_unattributed = (int)json_read_integer(r, p, "unattributed", sub, 0, 1 << 30);
    g->accounting_main_peak = json_read_number(r, p, "main_peak_bytes", sub, 0, 1e18);
    g->accounting_descendants_peak =
        json_read_number(r, p, "descendants_peak_bytes", sub, 0, 1e18);
    g->accounting_gpu_seconds = json_read_number(r, p, "gpu_seconds", sub, 0, 1e12);

    snprintf(sub, sizeof sub, "%s.throttle", path);
    p = read_part(r, o, "throttle", path, &g->throttle_available, g->throttle_reason);
    if (p)
        read_shares(r, p, sub, g->throttle_share);
    json_object *devices = json_read_member(r, p, "devices", json_type_array, sub);
    size_t n = devices ? json_object_array_length(devices) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(r, "\"%s.devices\" lists %zu GPUs; at most %d", sub, n, GT_MAX_GPUS);
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        json_object *dev = json_object_array_get_idx(devices, i);
        char dpath[160];
        snprintf(dpath, sizeof dpath, "%s.devices[%zu]", sub, i);
        if (!json_object_is_type(dev, json_type_object)) {
            json_read_fail(r, "\"%s\" should be an object", dpath);
            break;
        }
        int d = (int)json_read_integer(r, dev, "index", dpath, 0, GT_MAX_GPUS - 1);
        if (r->status != GT_OK)
            break;
        g->device_throttle_read[d] = 1;
        read_shares(r, dev, dpath, g->device_throttle_share[d]);
        if (d + 1 > g->ngpus)
            g->ngpus = d + 1;
    }

    snprintf(sub, sizeof sub, "%s.ecc", path);
    p = read_part(r, o, "ecc", path, &g->ecc_available, g->ecc_reason);
    g->ecc_corrected = json_read_number(r, p, "corrected", sub, 0, 1e18);
    g->ecc_uncorrected = json_read_number(r, p, "uncorrected", sub, 0, 1e18);

    snprintf(sub, sizeof sub, "%s.xid", path);
    p = read_part(r, o, "xid", path, &g->xid_available, g->xid_reason);
    g->xid_events = (long)json_read_integer(r, p, "events", sub, 0, 1LL << 40);
    g->xid_last = json_read_integer(r, p, "last", sub, 0, 1LL << 40);
    g->xid_last_gpu = (int)json_read_integer(r, p, "last_gpu", sub, -1, GT_MAX_GPUS - 1);

    snprintf(sub, sizeof sub, "%s.job_energy", path);
    p = read_part(r, o, "job_energy", path, &g->job_energy_available, g->job_energy_reason);
    g->job_energy_share = json_read_number(r, p, "share", sub, 0, 1);
    g->job_energy_joules = json_read_number(r, p, "joules", sub, 0, 1e15);

    snprintf(sub, sizeof sub, "%s.process_ids", path);
    p = json_read_member(r, o, "process_ids", json_type_object, path);
    g->pid_namespace = json_read_bool(r, p, "pid_namespace", sub);
    g->pids_translated = (int)json_read_integer(r, p, "translated", sub, 0, 1 << 30);
    g->pids_untranslated = (int)json_read_integer(r, p, "untranslated", sub, 0, 1 << 30);
    json_object *reason;
    if (p && json_object_object_get_ex(p, "reason", &reason))
        json_read_string(r, p, "reason", sub, g->pid_reason, sizeof g->pid_reason);

    snprintf(sub, sizeof sub, "%s.mig", path);
    p = json_read_member(r, o, "mig", json_type_object, path);
    g->mig_instances = (int)json_read_integer(r, p, "instances", sub, 0, GT_MAX_GPUS);
    g->mig_utilization_available = json_read_bool(r, p, "utilization_available", sub);
    if (p && json_object_object_get_ex(p, "reason", &reason))
        json_read_string(r, p, "reason", sub, g->mig_utilization_reason,
                         sizeof g->mig_utilization_reason);
}
