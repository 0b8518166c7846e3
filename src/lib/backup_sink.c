/* backup_sink.c - see backup_sink.h. */
#include "backup_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figures that change with every sample even when nothing new happened
 * (the means, the elapsed time, cumulative energy, the counts) set to zero:
 * what is left changes only when a peak, a count or a reason does. */
static void normalise(gt_resource_usage *u)
{
    gt_pu_percentages *means[] = {&u->cpu_utilization.system, &u->cpu_utilization.main,
                                  &u->cpu_utilization.descendants, &u->cpu_utilization.combined,
                                  &u->gpu_utilization.gpu_percentages, &u->gpu_details.main,
                                  &u->gpu_details.descendants, &u->gpu_details.combined};
    for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        means[i]->mean_sum_percent = 0;
        means[i]->mean_hardware_percent = 0;
    }
    u->compute_time.time = 0;
    u->gpu_details.energy_joules = 0;
    u->measurement.samples = 0;
    u->measurement.lateness_mean_ms = 0;
    u->measurement.lateness_max_ms = 0;
    u->measurement.skipped = 0;
}

int backup_same_figures(const gt_resource_usage *a, const gt_resource_usage *b)
{
    /* Compared field by field through memcmp of normalised copies: both
     * come from the same code, so padding and strings are zero-filled
     * alike (usage_result fills a zeroed struct). */
    gt_resource_usage x = *a, y = *b;
    normalise(&x);
    normalise(&y);
    return memcmp(&x, &y, sizeof x) == 0;
}

static int backup_wants(struct sink *s, double now)
{
    struct backup_sink *b = (struct backup_sink *)s;
    /* No file, or one whose directory could not be resolved: the first
     * look warned, later ones would only fill summaries for nothing. */
    if (!b->path || (b->target.dirfd < 0 && b->last_look != 0))
        return 0;
    /* Half an interval of slack, so that at an interval >= BACKUP_PERIOD
     * schedule jitter never skips a look. */
    return b->last_look == 0 || now - b->last_look >= BACKUP_PERIOD - b->interval / 2;
}

static void backup_write(struct backup_sink *b, const gt_resource_usage *u, double now)
{
    if (b->target.dirfd < 0) {
        warn_once(b->warner, WARN_BACKUP, "cannot write the backup file: %s", b->error);
        return;
    }
    char *json = gt_usage_to_json(u);
    size_t len = json ? strlen(json) : 0;
    char *text = json ? realloc(json, len + 2) : NULL;
    gt_status st = GT_ERR_NO_MEMORY;
    if (text) {
        text[len++] = '\n';
        text[len] = '\0';
        output_target_refresh(&b->target);
        int durable = b->last_fsync == 0 || now - b->last_fsync >= BACKUP_FSYNC_PERIOD;
        st = output_target_replace(&b->target, b->path, text, len, durable);
        if (st == GT_OK && durable)
            b->last_fsync = now;
    } else {
        free(json);
        gt_fail(st, "cannot write '%s': out of memory", b->path);
    }
    free(text);
    if (st != GT_OK)
        warn_once(b->warner, WARN_BACKUP, "cannot write the backup file: %s", gt_last_error());
    /* A finish() that came while we wrote has already removed the file: our
     * rename may have put it back. */
    pthread_mutex_lock(&b->lock);
    if (b->off)
        output_target_remove(&b->target);
    pthread_mutex_unlock(&b->lock);
}

static void backup_summary(struct sink *s, const gt_resource_usage *u, double now)
{
    struct backup_sink *b = (struct backup_sink *)s;
    pthread_mutex_lock(&b->lock);
    int off = b->off;
    pthread_mutex_unlock(&b->lock);
    if (!b->path || off)
        return;
    b->last_look = now;
    if (b->written && now - b->last_write < BACKUP_REFRESH_PERIOD &&
        backup_same_figures(u, &b->last))
        return;
    backup_write(b, u, now);
    b->last = *u;
    b->written = 1;
    b->last_write = now;
}

static const struct sink_ops backup_ops = {.wants_summary = backup_wants,
                                           .summary = backup_summary};

gt_status backup_sink_init(struct backup_sink *b, const char *path, double interval,
                           struct warner *w)
{
    memset(b, 0, sizeof *b);
    b->base.ops = &backup_ops;
    b->target.dirfd = -1;
    b->interval = interval;
    b->warner = w;
    pthread_mutex_init(&b->lock, NULL);
    if (!path)
        return GT_OK;
    b->path = strdup(path);
    if (!b->path)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    if (output_resolve(b->path, &b->target) != GT_OK)
        snprintf(b->error, sizeof b->error, "%s", gt_last_error());
    return GT_OK;
}

void backup_sink_finish(struct backup_sink *b)
{
    pthread_mutex_lock(&b->lock);
    b->off = 1;
    if (b->path)
        output_target_remove(&b->target);
    pthread_mutex_unlock(&b->lock);
}

void backup_sink_forget(struct backup_sink *b)
{
    output_target_close(&b->target);
    free(b->path);
    b->path = NULL;
}

void backup_sink_destroy_lock(struct backup_sink *b)
{
    pthread_mutex_destroy(&b->lock);
}
