/* pipeline.c - see pipeline.h. */
#include "pipeline/pipeline.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"

#define MIB (1024.0 * 1024.0)

void pipeline_attribute_gpu(const struct gpu_sample *s, int ndevices,
                            const struct pid_roles *roles, struct gpu_tree_sample *gs,
                            struct series_gpu *proc, struct series_gpu *sys)
{
    memset(gs, 0, sizeof *gs);
    memset(proc, 0, sizeof *proc);
    memset(sys, 0, sizeof *sys);
    gs->system_used = s->memory_used;
    gs->util_sum_percent = s->util_sum_percent;
    gs->proc_util_ok = s->proc_util_ok;
    gs->energy_ok = s->energy_ok;
    gs->energy_mj = s->energy_mj;
    if (ndevices > GPU_MAX_DEVICES)
        ndevices = GPU_MAX_DEVICES;
    /* Bit d: the tree holds memory on / keeps busy device d. */
    unsigned long long memory_devices = 0, busy_devices = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gpu_process *p = &s->procs[i];
        int role = pid_roles_get(roles, p->pid);
        if (role == 1) {
            gs->main_bytes += p->bytes;
            gs->main_sm += p->sm_percent;
        } else if (role == 2) {
            gs->desc_bytes += p->bytes;
            gs->desc_sm += p->sm_percent;
        }
        if (role) {
            memory_devices |= p->memory_devices;
            busy_devices |= p->busy_devices;
        }
    }

    /* Each device's SM time: the tree's, and everyone's (the job's share). */
    gs->proc_util_read = s->proc_util_read;
    for (size_t i = 0; i < s->nproc_sm; i++) {
        const struct gpu_proc_sm *e = &s->proc_sm[i];
        if (e->device < 0 || e->device >= ndevices || !(s->proc_util_read >> e->device & 1))
            continue;
        gs->device_all_sm[e->device] += e->sm_percent;
        if (pid_roles_get(roles, e->pid))
            gs->device_job_sm[e->device] += e->sm_percent;
    }

    sys->vram_mib = (double)s->memory_used / MIB;
    for (int d = 0; d < ndevices; d++)
        if (s->device_util[d] >= 0) {
            sys->usage += s->device_util[d] / 100.0;
            sys->utilized += s->device_util[d] > 0;
        }
    unsigned long long bytes = gs->main_bytes + gs->desc_bytes;
    proc->vram_mib = (double)bytes / MIB;
    if (bytes > 0 && memory_devices == 0)
        memory_devices = ~0ULL; /* the driver does not say which GPUs */
    gs->memory_devices = memory_devices;
    if (s->proc_util_ok) {
        proc->usage = (gs->main_sm + gs->desc_sm) / 100.0;
        proc->utilized_devices = busy_devices;
        proc->utilized = __builtin_popcountll(busy_devices);
        return;
    }
    for (int d = 0; d < ndevices; d++)
        if ((memory_devices >> d & 1) && s->device_util[d] >= 0) {
            proc->usage += s->device_util[d] / 100.0;
            if (s->device_util[d] > 0) /* ndevices <= GPU_MAX_DEVICES, 64 */
                proc->utilized_devices |= 1ULL << d;
        }
    proc->utilized = __builtin_popcountll(proc->utilized_devices);
}

static unsigned long long ticks_minus(unsigned long long a, unsigned long long b)
{
    return a > b ? a - b : 0;
}

void pipeline_exclude_library(struct tree_sample *ts, const struct library_threads *lib,
                              unsigned long long tick_ns)
{
    ts->main_ticks = ticks_minus(ts->main_ticks, lib->utime + lib->stime);
    ts->main_ns = ticks_minus(ts->main_ns, lib->run_ns_ok ? lib->run_ns
                                           : (lib->utime + lib->stime) * tick_ns);
    ts->utime_ticks = ticks_minus(ts->utime_ticks, lib->utime);
    ts->stime_ticks = ticks_minus(ts->stime_ticks, lib->stime);
    ts->cpu_ns = ticks_minus(ts->cpu_ns, lib->run_ns_ok ? lib->run_ns
                                         : (lib->utime + lib->stime) * tick_ns);
    if (lib->others >= 0)
        ts->main_threads = lib->others;
}

void pipeline_init(struct pipeline *p, double interval, double ticks_per_second, int series,
                   pid_t pid, int sampled_only)
{
    memset(p, 0, sizeof *p);
    usage_init(&p->acc, interval);
    p->acc.sampled_only = sampled_only != 0;
    p->series = series;
    p->interval = interval;
    p->ticks_per_second = ticks_per_second;
    p->pid = pid;
    cgroup_acc_init(&p->cg);
    energy_acc_init(&p->energy);
    gpu_run_acc_init(&p->gpu_run);
    gpu_wait_init(&p->gpu_wait, 1, ticks_per_second);
    gpu_activity_init(&p->gpu_activity);
}

void pipeline_open(struct pipeline *p, const gt_options *o, const struct pipeline_facts *f,
                   struct usage_units *units)
{
    long tck = sysconf(_SC_CLK_TCK);
    pipeline_init(p, o->sleep_time, tck > 0 ? (double)tck : 100.0, o->series, f->pid,
                  f->sampled_only);
    usage_set_gpus(&p->acc, f->gpu_capacity, f->ngpus, f->nselected);
    units->ram_unit = o->ram_unit;
    units->gpu_ram_unit = o->gpu_ram_unit;
    units->time_unit = o->time_unit;
    units->ram_divisor = units_ram_divisor(o->ram_unit);
    units->gpu_ram_divisor = units_ram_divisor(o->gpu_ram_unit);
    units->time_divisor = units_time_divisor(o->time_unit);
    units->system_core_count = f->ncpu;
    /* Not the node's count: the CPUs this job may use (its affinity and
     * cgroup quota, a fraction rounded up), as a scheduler gave them. */
    int usable_cores = f->usable_cpus >= 1 ? (int)ceil(f->usable_cpus - 1e-9) : 1;
    units->n_expected_cores = o->n_expected_cores > 0 ? o->n_expected_cores : usable_cores;
    gpu_wait_init(&p->gpu_wait, units->n_expected_cores, p->ticks_per_second);
}

void pipeline_free(struct pipeline *p)
{
    /* The previous reading's disk and interface arrays are ours (exchanged
     * with the reader's at each step). */
    system_series_sample_free(&p->extra_prev);
    gpu_run_acc_free(&p->gpu_run);
    memset(p, 0, sizeof *p);
}

/* The series' part of a sample: the rows of its slot (from the previous
 * readings to these) and the readings kept for the next row. A series whose
 * reading failed gets no row for this slot and starts again from its next
 * reading. */
static void series_step(struct pipeline *p, struct sample *s, const struct series_gpu *proc_gpu,
                        const struct series_gpu *sys_gpu, struct pipeline_rows *rows)
{
    struct process_reading pr;
    struct system_reading sr;
    int want_p = (p->series & GT_SERIES_PROCESS) && s->tree_ok;
    int want_s = (p->series & GT_SERIES_SYSTEM) != 0;
    if (want_p) {
        memset(&pr, 0, sizeof pr);
        pr.utime_ticks = s->tree.utime_ticks;
        pr.stime_ticks = s->tree.stime_ticks;
        pr.cpu_ns = s->tree.cpu_ns;
        pr.read_bytes = s->tree.read_bytes;
        pr.write_bytes = s->tree.write_bytes;
        pr.pss_kb = s->tree.pss_kb;
        pr.children = s->tree.children;
        pr.gpu = *proc_gpu;
        pr.ncpu = s->sys_ok ? s->cpu.ncpu : 0;
    }
    if (want_s) {
        memset(&sr, 0, sizeof sr);
        sr.cpu_ok = s->sys_ok;
        if (s->sys_ok) {
            sr.cpu = s->cpu;
            sr.mem = s->mem;
        }
        sr.extra = s->extra;
        sr.gpu = *sys_gpu;
        sr.rapl = s->rapl;
    }
    if (s->slot > 0) {
        double ts = series_timestamp(p->epoch_start, s->slot, p->interval);
        if (want_p && p->have_proc_prev && s->now > p->proc_prev_time) {
            series_process_row(&p->proc_prev, &pr, s->now - p->proc_prev_time,
                               p->ticks_per_second, ts, p->pid, &rows->process);
            rows->have_process = 1;
        }
        if (want_s && p->have_sys_prev && s->now > p->sys_prev_time) {
            series_system_row(&p->sys_prev, &sr, s->now - p->sys_prev_time,
                              p->ticks_per_second, ts, &rows->system);
            rows->have_system = 1;
        }
    }
    if (s->slot < 0)
        return; /* the final sample: not on the schedule, nothing to keep */
    p->have_proc_prev = want_p;
    if (want_p) {
        p->proc_prev = pr;
        p->proc_prev_time = s->now;
    }
    if (want_s) {
        p->sys_prev = sr;
        p->sys_prev.extra = NULL;
        if (s->extra) {
            system_series_sample_swap(&p->extra_prev, s->extra);
            p->sys_prev.extra = &p->extra_prev;
        }
        p->sys_prev_time = s->now;
        p->have_sys_prev = 1;
    }
}

void pipeline_step(struct pipeline *p, struct sample *s, struct pipeline_rows *rows)
{
    memset(rows, 0, sizeof *rows);
    rows->now = s->now;
    if (s->slot == 0)
        p->epoch_start = s->wall;
    if (s->tree_ok && s->self)
        pipeline_exclude_library(&s->tree, &s->library,
                                 (unsigned long long)(1e9 / p->ticks_per_second));
    struct gpu_tree_sample gs;
    struct series_gpu proc_gpu = {0}, sys_gpu = {0};
    int gpu_ok = s->tree_ok && s->gpu_ok;
    if (gpu_ok)
        pipeline_attribute_gpu(&s->gpu, s->gpu_ndevices, &s->roles, &gs, &proc_gpu, &sys_gpu);
    usage_add(&p->acc, s->now, s->tree_ok ? &s->tree : NULL, s->sys_ok ? &s->cpu : NULL,
              s->sys_ok ? &s->mem : NULL, gpu_ok ? &gs : NULL);
    if (s->cgroup_ok)
        cgroup_acc_step(&p->cg, &s->cgroup, s->tree_ok ? &s->roles : NULL, s->slot == 0, s->now,
                        s->wall);
    energy_acc_step(&p->energy, &s->rapl);
    if (gpu_ok && s->tree_ok)
        gpu_idle_step(&p->gpu_idle, &s->gpu, s->gpu_ndevices, &s->roles);
    gpu_wait_step(&p->gpu_wait, gpu_ok ? &s->gpu : NULL, gpu_ok ? &gs : NULL, s->gpu_ndevices,
                  s->tree_ok ? &s->tree : NULL, s->cgroup_ok ? &s->cgroup : NULL, s->now);
    if (s->gpu_ok)
        gpu_activity_step(&p->gpu_activity, s->now, &s->gpu, gpu_ok ? &gs : NULL,
                          s->gpu_ndevices);
    if (s->gpu_ok && gpu_run_acc_step(&p->gpu_run, s->now, s->gpu_selected, &s->gpu,
                                      s->tree_ok ? &s->roles : NULL, gpu_ok ? &gs : NULL) < 0)
        p->gpu_run_lost = 1;
    if (p->acc.latest.have_timepoint) {
        rows->have_timepoint = 1;
        rows->timepoint = p->acc.latest.timepoint;
        rows->timepoint_wall = s->wall;
    }
    if (p->series)
        series_step(p, s, &proc_gpu, &sys_gpu, rows);
}

void pipeline_metrics(const struct pipeline *p, const struct sample *s,
                      const struct metrics_point *prev, struct metrics_point *m)
{
    const struct usage_acc *a = &p->acc;
    memset(m, 0, offsetof(struct metrics_point, gpu_used));
    m->samples = a->samples;
    if (s->tree_ok) {
        const struct tree_sample *t = &s->tree;
        m->tree_ok = 1;
        m->rss[0] = t->main_rss_kb * 1024;
        m->rss[1] = t->desc_rss_kb * 1024;
        m->rss[2] = a->latest.rss_kb * 1024;
        m->private_bytes[0] = t->main_private_kb * 1024;
        m->private_bytes[1] = t->desc_private_kb * 1024;
        m->shared_bytes[0] = t->main_shared_kb * 1024;
        m->shared_bytes[1] = t->desc_shared_kb * 1024;
        m->threads[0] = t->main_threads;
        m->threads[1] = t->desc_threads;
        /* PSS at this sample with the process series only; I/O when read */
        m->have_pss = s->tree_series;
        m->have_io = s->tree_io;
        m->pss = t->pss_kb * 1024;
        m->processes = t->main_alive + t->children;
        m->read_bytes = t->read_bytes;
        m->write_bytes = t->write_bytes;
    }
    if (prev && prev->have_io) {
        m->have_io = 1;
        if (!s->tree_ok || !s->tree_io) {
            m->read_bytes = prev->read_bytes;
            m->write_bytes = prev->write_bytes;
        }
        if (m->read_bytes < prev->read_bytes)
            m->read_bytes = prev->read_bytes;
        if (m->write_bytes < prev->write_bytes)
            m->write_bytes = prev->write_bytes;
    }
    struct rss_peak pk[3];
    usage_rss_peaks(a, &pk[0], &pk[1], &pk[2]);
    for (int i = 0; i < 3; i++) {
        m->peak_rss[i] = pk[i].total_kb * 1024;
        m->peak_private[i] = pk[i].private_kb * 1024;
        m->peak_shared[i] = pk[i].shared_kb * 1024;
    }
    usage_cpu_seconds(a, &m->cpu_seconds[0], &m->cpu_seconds[1]);
    if (s->sys_ok) {
        m->sys_ok = 1;
        m->system_total = s->mem.total_kb * 1024;
        m->system_used = s->mem.total_kb > s->mem.available_kb
                             ? (s->mem.total_kb - s->mem.available_kb) * 1024 : 0;
    }
    if (s->gpu_ok) {
        m->ngpus = s->gpu_ndevices < METRICS_MAX_GPUS ? s->gpu_ndevices : METRICS_MAX_GPUS;
        m->gpu_throttle_read = s->gpu.throttle_read;
        m->gpu_share_read = s->tree_ok ? s->gpu.proc_util_read : 0;
        for (int i = 0; i < m->ngpus; i++) {
            m->gpu_used[i] = s->gpu.device_memory_used[i];
            m->gpu_util[i] = s->gpu.device_util[i];
            m->gpu_activity[i] = s->gpu.activity[i];
            m->gpu_throttle[i] = s->gpu.device_throttle[i];
            m->gpu_job_sm[i] = 0;
        }
        for (size_t k = 0; s->tree_ok && k < s->gpu.nproc_sm; k++) {
            const struct gpu_proc_sm *e = &s->gpu.proc_sm[k];
            if (e->device >= 0 && e->device < m->ngpus && pid_roles_get(&s->roles, e->pid))
                m->gpu_job_sm[e->device] += e->sm_percent;
        }
    } else {
        m->gpu_throttle_read = m->gpu_share_read = 0;
    }
    m->have_gpu_tree = a->latest.have_gpu;
    m->gpu_tree_now = a->latest.gpu_bytes;
    m->gpu_tree_peak[0] = a->gpu_main_max;
    m->gpu_tree_peak[1] = a->gpu_desc_max;
    m->gpu_tree_peak[2] = a->gpu_comb_max;
    m->energy_ok = s->gpu_ok && s->gpu.energy_ok;
    m->energy_joules = (double)a->gpu_energy_mj / 1000.0;
}
