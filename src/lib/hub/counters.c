/* counters.c - gt_counters_read(): one reading, now, of the cumulative
 * counters the series are made of (gpu_tracker_internal.h), through the
 * same reader a tracker samples with. The reader is opened for this one
 * sample and closed again: no thread, no pipeline, no sinks. */
#define _GNU_SOURCE
#include "gpu_tracker_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hub/options.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "common/internal.h"

#define KIB 1024ULL

static void take_process(gt_counters *c, const struct sample *s, double ticks_per_second)
{
    const struct tree_sample *t = &s->tree;
    c->children = t->children;
    c->user_seconds = (double)t->utime_ticks / ticks_per_second;
    c->system_seconds = (double)t->stime_ticks / ticks_per_second;
    c->pss_bytes = t->pss_kb * KIB;
    c->read_bytes = t->read_bytes;
    c->write_bytes = t->write_bytes;
}

static void take_gpu(gt_counters *c, const struct sample *s)
{
    struct gpu_tree_sample gs;
    struct series_gpu proc, sys;
    pipeline_attribute_gpu(&s->gpu, s->gpu_ndevices, &s->roles, &gs, &proc, &sys);
    c->gpu_usage = proc.usage;
    c->gpu_vram_mib = proc.vram_mib;
    c->gpu_utilized = proc.utilized;
    c->gpu_utilized_devices = proc.utilized_devices;
    c->system_gpu_usage = sys.usage;
    c->system_gpu_vram_mib = sys.vram_mib;
    c->system_gpu_utilized = sys.utilized;
}

/* The filesystems the system series counts, each with its own figures
 * (the series keeps only their sums). -1 with ENOMEM. */
static int take_spaces(gt_counters *c, const struct system_series_reader *r)
{
    if (!r->mounts_valid || !r->nmounts)
        return 0;
    c->spaces = calloc(r->nmounts, sizeof *c->spaces);
    if (!c->spaces)
        return -1;
    const char *m = r->mounts;
    for (size_t i = 0; i < r->nmounts; i++, m += strlen(m) + 1) {
        struct statvfs v;
        if (statvfs(m, &v) != 0 || v.f_blocks == 0)
            continue; /* unmounted since the reading */
        unsigned long long unit = v.f_frsize ? v.f_frsize : v.f_bsize;
        gt_counters_space *sp = &c->spaces[c->nspaces];
        sp->mount = strdup(m);
        if (!sp->mount)
            return -1;
        sp->total_bytes = (unsigned long long)v.f_blocks * unit;
        sp->used_bytes = (unsigned long long)(v.f_blocks - v.f_bfree) * unit;
        sp->free_bytes = (unsigned long long)v.f_bavail * unit;
        c->nspaces++;
    }
    return 0;
}

static int take_system(gt_counters *c, const struct sample *s, const struct sample_reader *r,
                       double ticks_per_second)
{
    if (s->sys_ok) {
        const struct meminfo *m = &s->mem;
        c->system_ok = 1;
        c->system_user_seconds = (double)s->cpu.user_nice / ticks_per_second;
        c->system_system_seconds = (double)s->cpu.system / ticks_per_second;
        c->mem_total_kb = m->total_kb;
        c->mem_available_kb = m->available_kb;
        c->mem_free_kb = m->free_kb;
        c->mem_buffers_kb = m->buffers_kb;
        c->mem_cached_kb = m->cached_kb;
        c->mem_sreclaimable_kb = m->sreclaimable_kb;
        c->mem_active_kb = m->active_kb;
        c->mem_inactive_kb = m->inactive_kb;
    }
    const struct system_series_sample *x = s->extra;
    if (!x)
        return 0;
    c->processes = x->processes_ok ? x->processes : 0;
    if (x->disks_ok && x->ndisks) {
        c->disks = calloc(x->ndisks, sizeof *c->disks);
        if (!c->disks)
            return -1;
        for (size_t i = 0; i < x->ndisks; i++) {
            gt_counters_disk *d = &c->disks[c->ndisks++];
            snprintf(d->name, sizeof d->name, "%s", x->disks[i].name);
            d->read_bytes = x->disks[i].read_sectors * DISK_SECTOR_BYTES;
            d->write_bytes = x->disks[i].write_sectors * DISK_SECTOR_BYTES;
        }
    }
    if (x->nets_ok)
        for (size_t i = 0; i < x->nnets; i++) {
            c->net_recv_bytes += x->nets[i].rx_bytes;
            c->net_sent_bytes += x->nets[i].tx_bytes;
        }
    return x->fs_ok ? take_spaces(c, &r->sysx) : 0;
}

void gt_counters_free(gt_counters *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nspaces; i++)
        free(c->spaces[i].mount);
    free(c->spaces);
    free(c->disks);
    free(c);
}

gt_status gt_counters_read(const gt_options *opts, gt_counters **out)
{
    error_clear();
    *out = NULL;
    struct options_copy cfg;
    gt_status st = options_copy_make(&cfg, opts);
    if (st != GT_OK)
        return st;
    /* Both series: what the process series reads of the tree (PSS at this
     * sample, I/O) and the system series' disks, interfaces, filesystems. */
    cfg.o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    const gt_options *o = &cfg.o;
    long tck = sysconf(_SC_CLK_TCK);
    double ticks_per_second = tck > 0 ? (double)tck : 100.0;
    pid_t pid = o->process_id ? o->process_id : getpid();
    struct reader_place at = {cfg.proc_root, cfg.sys_root, pid, pid == getpid(), cfg.sampled_only};
    struct warn_channel w;
    warn_channel_init(&w, o->on_warning, o->warning_data, o->disable_logs);
    struct sample_reader r;
    sample_reader_init(&r);
    gt_counters *c = calloc(1, sizeof *c);
    if (!c) {
        options_copy_free(&cfg);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    st = reader_open(&r, o, &at, &w);
    if (st == GT_OK) {
        struct read_plan plan = {.io = 1};
        struct sample s;
        sample_read(&r, 0, &plan, &s);
        c->timestamp = s.wall;
        c->pid = pid;
        snprintf(c->gpu_reason, sizeof c->gpu_reason, "%s", r.gpu_reason);
        if (s.tree_ok)
            take_process(c, &s, ticks_per_second);
        if (s.tree_ok && s.gpu_ok)
            take_gpu(c, &s);
        else if (!c->gpu_reason[0] && r.gpu.nvendors)
            snprintf(c->gpu_reason, sizeof c->gpu_reason, "%s", "the GPU driver failed to answer");
        if (take_system(c, &s, &r, ticks_per_second) < 0)
            st = error_set(GT_ERR_NO_MEMORY, "out of memory");
        else if (!s.tree_ok)
            st = error_set(GT_ERR_NO_PROCESS, "process %d ended before it could be read",
                           (int)pid);
        sample_reader_close(&r);
    }
    options_copy_free(&cfg);
    if (st != GT_OK) {
        gt_counters_free(c);
        return st;
    }
    *out = c;
    return GT_OK;
}
