/* sinks.c - see sinks.h. */
#define _GNU_SOURCE
#include "sink/sinks.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/output.h"
#include "common/background.h"
#include "common/internal.h"

void sinks_init(struct sinks *k)
{
    memset(k, 0, sizeof *k);
    k->backup.target.dirfd = -1;
    k->tracking.file.fd = -1;
}

/* The exporter's and the pusher's labels: host, the job, the command's
 * short name (the tracked process's own name when no command was said)
 * and PID, and the GPUs; into *ms. */
static void run_labels(struct metrics_static *ms, const gt_options *o, const struct sinks_facts *f,
                       const char *host)
{
    char comm[64] = "";
    const char *command = o->command;
    if (!command || !*command) {
        read_process_name(f->proc_root, f->pid, comm, sizeof comm);
        command = comm;
    }
    metrics_static_labels(ms, host, f->job, command, (long)f->pid);
    const struct gpu *g = f->gpu;
    ms->ngpus = g->nvendors ? (g->ndevices < METRICS_MAX_GPUS ? g->ndevices : METRICS_MAX_GPUS) : 0;
    for (int i = 0; i < ms->ngpus; i++) {
        text_copy(ms->gpus[i].uuid, sizeof ms->gpus[i].uuid, g->devices[i].uuid);
        text_copy(ms->gpus[i].name, sizeof ms->gpus[i].name, g->devices[i].name);
        ms->gpus[i].total = g->devices[i].memory_total;
    }
}

/* The exporter (metrics_listen, metrics_textfile_dir) and the pusher
 * (metrics_push_url), those o asks for. */
static gt_status open_metrics(struct sinks *k, const gt_options *o, const struct sinks_facts *f,
                              struct warn_channel *w)
{
    struct metrics_static *ms = calloc(1, sizeof *ms);
    if (!ms)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    run_labels(ms, o, f, host);
    gt_status st = GT_OK;
    if (o->metrics_listen || o->metrics_textfile_dir) {
        st = metrics_sink_init(&k->metrics, o->metrics_listen, o->metrics_textfile_dir, f->pid,
                               ms, w);
        k->metrics_on = st == GT_OK;
        if (k->metrics_on)
            k->list[k->n++] = &k->metrics.base;
    }
    if (st == GT_OK && o->metrics_push_url) {
        st = push_sink_init(&k->push, o->metrics_push_url, o->metrics_push_interval, ms, f->job,
                            host, (long)f->pid, w);
        k->push_on = st == GT_OK;
        if (k->push_on)
            k->list[k->n++] = &k->push.base;
    }
    free(ms);
    return st;
}

gt_status sinks_open(struct sinks *k, const gt_options *o, const struct sinks_facts *f,
                     struct warn_channel *w)
{
    const char *backup_path = *o->resource_usage_file ? o->resource_usage_file : NULL;
    if (backup_sink_init(&k->backup, backup_path, o->sleep_time, o->stop_timeout, w) != GT_OK ||
        (k->backup.path && backup_sink_set_identity(&k->backup, f->pid, o->command) != GT_OK))
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    csv_sink_init(&k->csv, o->process_csv_fd, o->system_csv_fd, o->csv_no_header, w);
    k->list[k->n++] = &k->csv.base;
    k->list[k->n++] = &k->backup.base;
    if (o->tracking_file) {
        /* As gpu_tracker, the file and its static data are made with the
         * tracker: a name that cannot be used fails here, not mid-run. */
        const struct gpu *g = f->gpu;
        unsigned long long gpu_capacity = 0;
        for (int i = 0; i < g->ndevices; i++)
            gpu_capacity += g->devices[i].memory_total;
        struct tracking_static ts = {
            .ram_unit = o->ram_unit, .gpu_ram_unit = o->gpu_ram_unit, .time_unit = o->time_unit,
            .ram_divisor = f->units->ram_divisor, .gpu_ram_divisor = f->units->gpu_ram_divisor,
            .ram_total_kb = f->mem_total_kb, .gpu_total_bytes = gpu_capacity,
            .system_core_count = f->units->system_core_count,
            .n_expected_cores = f->units->n_expected_cores, .system_gpu_count = g->ndevices,
            .n_expected_gpus = g->nselected,
        };
        gt_status st = tracking_file_open(&k->tracking, o->tracking_file, o->overwrite, &ts, w);
        if (st != GT_OK)
            return st;
        k->list[k->n++] = &k->tracking.base;
    }
    if (o->metrics_listen || o->metrics_textfile_dir || o->metrics_push_url) {
        gt_status st = open_metrics(k, o, f, w);
        if (st != GT_OK)
            return st;
    }
    if (o->on_sample) {
        sample_sink_init(&k->sample, o->on_sample, o->sample_data, f->tracker);
        k->list[k->n++] = &k->sample.base;
    }
    return GT_OK;
}

int sinks_want_io(struct sinks *k, int final)
{
    if (!k->metrics_on && !k->push_on)
        return 0;
    double now = monotonic_now();
    return (k->metrics_on && metrics_sink_wants_io(&k->metrics, now)) ||
           (k->push_on && push_sink_wants_io(&k->push, now, final));
}

const struct metrics_point *sinks_take_point(struct sinks *k, const struct pipeline *p,
                                             const struct sample *s)
{
    if (!k->metrics_on && !k->push_on)
        return NULL;
    int next = !k->cur;
    pipeline_metrics(p, s, s->slot == 0 ? NULL : &k->points[k->cur], &k->points[next]);
    k->cur = next;
    return &k->points[next];
}

void sinks_feed(struct sinks *k, const struct pipeline_rows *rows, double now,
                const gt_resource_usage *(*summary)(void *ctx, double now), void *ctx)
{
    const gt_resource_usage *u = NULL;
    for (int i = 0; i < k->n; i++) {
        struct sink *s = k->list[i];
        if (s->ops->rows)
            s->ops->rows(s, rows);
        if (!s->ops->summary || (s->ops->wants_summary && !s->ops->wants_summary(s, now)))
            continue;
        if (!u)
            u = summary(ctx, now);
        s->ops->summary(s, u, now);
    }
}

void sinks_start(struct sinks *k, double epoch_start)
{
    for (int i = 0; i < k->n; i++)
        if (k->list[i]->ops->start)
            k->list[i]->ops->start(k->list[i], epoch_start);
}

void sinks_finish(struct sinks *k, const struct pipeline_rows *final)
{
    for (int i = 0; i < k->n; i++)
        if (k->list[i]->ops->finish)
            k->list[i]->ops->finish(k->list[i], final);
}

const char *sinks_backup_path(const struct sinks *k)
{
    return k->backup.path;
}

const char *sinks_metrics_address(const struct sinks *k)
{
    return k->metrics_on && k->metrics.daemon ? k->metrics.address : NULL;
}

int sinks_csv_failed(const struct sinks *k, gt_series_kind kind)
{
    return (kind == GT_SERIES_KIND_PROCESS || kind == GT_SERIES_KIND_SYSTEM) &&
           k->csv.failed[kind];
}

void sinks_destroy(struct sinks *k)
{
    /* Only the owner closes it: a SQLite connection must not be used in a
     * child made by fork() (sinks_forget leaves it there). */
    tracking_file_close(&k->tracking);
    backup_sink_destroy_lock(&k->backup);
    if (k->metrics_on)
        metrics_sink_destroy(&k->metrics);
    if (k->push_on)
        push_sink_destroy(&k->push);
}

void sinks_forget(struct sinks *k)
{
    backup_sink_forget(&k->backup);
    metrics_sink_forget(&k->metrics);
    if (k->push_on)
        push_sink_forget(&k->push);
}
