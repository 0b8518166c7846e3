/* tracker_make.c - a tracker made from its options (gt_tracker_new) and
 * unmade. Every stage is a wing that builds itself from the options
 * (docs/architecture.md): read/ does a sample's I/O (reader_open), the
 * pipeline turns it into aggregates and rows (pipeline_open), the sinks
 * keep and write them (sinks_open); making a tracker is those calls and
 * the error path, and unmaking it closes whatever was opened. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The memory that the process that made t and a child made by fork() both
 * release (the reader is released by each in its own way; the locks only by
 * the owner: in a child another thread may have held them at the fork). */
static void release_memory(gt_tracker *t)
{
    pipeline_free(&t->pipe);
    row_store_free(&t->store);
    free(t->all_process);
    free(t->all_system);
    results_free(&t->res);
    sinks_forget(&t->sinks);
    run_record_free(&t->run);
    options_copy_free(&t->cfg);
    free(t);
}

void tracker_destroy(gt_tracker *t)
{
    if (t->cloud) {
        gt_cloud_info ignored;
        cloud_discovery_finish(t->cloud, 0, &ignored); /* it frees itself when it ends */
    }
    sample_reader_close(&t->reader);
    /* After the reader: the job's group is removed once nothing reads it. */
    char why[256];
    if (cgroup_own_remove(&t->own_cg, why, sizeof why) < 0)
        warn_always(&t->warn_channel, "%s (left in place)", why);
    sinks_destroy(&t->sinks);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->lock);
    pthread_mutex_destroy(&t->reader_lock);
    release_memory(t);
}

/* A cgroup of the job's own (options.own_cgroup), made before the reader
 * opens: it reads the group the process is in. */
static gt_status make_own_cgroup(gt_tracker *t)
{
    if (!t->cfg.o.process_id || t->cfg.o.process_id == t->owner)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "own_cgroup needs process_id, a process the caller started and holds: "
                         "memory already used stays charged to the group it was used in");
    if (cgroup_own_make(&t->own_cg, t->cfg.proc_root, t->cfg.sys_root, t->pid) < 0)
        warn_always(&t->warn_channel, "no cgroup of the job's own: %s; tracking goes on without one",
                    t->own_cg.reason);
    else if (t->own_cg.memory_reason[0])
        warn_always(&t->warn_channel, "the job's cgroup has no memory figures: %s",
                    t->own_cg.memory_reason);
    return GT_OK;
}

/* The expected cores' default: the CPUs the tracked process may use. The
 * quota comes from the cgroup reader's descriptors where it has them (the
 * process's cgroup file and the group's quota files are not read twice). */
static double usable_cpus(gt_tracker *t, const struct reader_place *at)
{
    double quota = cgroup_quota_cores(&t->reader.cg); /* no thread yet */
    if (quota < 0)
        return server_usable_cpus(at->proc_root, at->sys_root, t->pid, t->reader.ncpu);
    return server_usable_cpus_quota(at->proc_root, t->pid, t->reader.ncpu, quota);
}

/* The wings of t, each built from the options: the reader, the pipeline
 * and the results' state from what the reader found, then the sinks. */
static gt_status open_wings(gt_tracker *t)
{
    const gt_options *o = &t->cfg.o;
    struct reader_place at = {t->cfg.proc_root, t->cfg.sys_root, t->pid, t->pid == t->owner,
                              t->cfg.sampled_only};
    gt_status st = reader_open(&t->reader, o, &at, &t->warn_channel);
    if (st != GT_OK)
        return st;
    const struct gpu *g = &t->reader.gpu;
    struct pipeline_facts pf = {
        .pid = t->pid, .sampled_only = t->cfg.sampled_only, .ncpu = t->reader.ncpu,
        /* Only the expected cores' default: not read when they are given. */
        .usable_cpus = o->n_expected_cores > 0 ? 0 : usable_cpus(t, &at),
        .ngpus = g->ndevices, .nselected = g->nselected,
    };
    for (int i = 0; i < g->ndevices; i++)
        pf.gpu_capacity += g->devices[i].memory_total;
    pipeline_open(&t->pipe, o, &pf, &t->res.units);
    t->res.sampled_only = t->cfg.sampled_only;
    t->res.cg = &t->reader.cg;
    t->res.rapl = &t->reader.rapl;
    t->res.own_cg = &t->own_cg;
    t->res.own_cg_asked = o->own_cgroup;
    results_take_reasons(&t->res, &t->reader); /* no thread yet */
    if (results_list_gpus(&t->res, g) < 0)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    struct sinks_facts sf = {t->pid, at.proc_root, &t->res.units, t->reader.mem_total_kb, g,
                             o->job ? &t->job : NULL, t};
    return sinks_open(&t->sinks, o, &sf, &t->warn_channel);
}

gt_status gt_tracker_new(const gt_options *user, gt_tracker **out)
{
    error_clear();
    *out = NULL;
    gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    gt_status st = options_copy_make(&t->cfg, user);
    if (st != GT_OK) {
        free(t);
        return st;
    }
    /* Before anything can fail: tracker_destroy() closes whatever is open. */
    row_store_init(&t->store);
    sample_reader_init(&t->reader);
    sinks_init(&t->sinks);
    warn_channel_init(&t->warn_channel, t->cfg.o.on_warning, t->cfg.o.warning_data, t->cfg.o.disable_logs);
    pthread_mutex_init(&t->lock, NULL);
    pthread_mutex_init(&t->reader_lock, NULL);
    cond_init_monotonic(&t->done);
    t->owner = getpid();
    t->pid = t->cfg.o.process_id ? t->cfg.o.process_id : t->owner;
    if (t->cfg.o.job)
        t->job = *t->cfg.o.job;
    st = t->cfg.o.own_cgroup ? make_own_cgroup(t) : GT_OK;
    if (st == GT_OK)
        st = open_wings(t);
    if (st != GT_OK) {
        tracker_destroy(t);
        return st;
    }
    t->cfg.o.resource_usage_file = sinks_backup_path(&t->sinks);
    t->state = STATE_NEW;
    *out = t;
    return GT_OK;
}

/* In a child made by fork(): the child's copy of the tracker, whose thread
 * does not exist here and whose lock another thread may have held at the
 * fork. Its memory and descriptors are released without locking, waiting or
 * removing anything (the backup file and the thread are the parent's). */
void tracker_free_forked_copy(gt_tracker *t)
{
    sample_reader_forget(&t->reader); /* the GPU library's state is the parent's */
    release_memory(t);
}

