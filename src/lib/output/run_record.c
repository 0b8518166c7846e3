/* run_record.c - see run_record.h. */
#include "output/run_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/summary/snapshot_parts.h"
#include "common/internal.h"
#include "read/read.h"
#include "pipeline/pipeline.h"

void run_record_begin(struct run_record *r, pid_t pid, double interval, const char *proc_root,
                      const char *sys_root, const struct gpu_device *devices, int ndevices,
                      int describe_now)
{
    memset(r, 0, sizeof *r);
    r->pid = pid;
    r->interval = interval;
    r->proc_root = proc_root;
    r->sys_root = sys_root;
    r->devices = devices;
    r->ndevices = ndevices;
    pthread_mutex_init(&r->describe_lock, NULL);
    if (describe_now)
        run_record_describe(r);
}

void run_record_describe(struct run_record *r)
{
    pthread_mutex_lock(&r->describe_lock);
    if (!r->described) {
        server_info_collect(&r->server, r->proc_root, r->sys_root, r->devices, r->ndevices);
        r->filesystems = system_series_filesystems(r->proc_root, 1024);
        r->described = 1;
    }
    pthread_mutex_unlock(&r->describe_lock);
}

void run_record_free(struct run_record *r)
{
    free(r->filesystems);
    r->filesystems = NULL;
    server_info_release(&r->server);
    r->described = 0;
}

gt_status run_record_snapshot(const struct run_record *r, const char *command, int exit_status,
                              const gt_resource_usage *usage, const struct row_source *rows,
                              gt_snapshot *s)
{
    snapshot_init(s);
    s->command = strdup(command ? command : "");
    s->filesystems = r->filesystems ? strdup(r->filesystems) : NULL;
    if (!s->command || (r->filesystems && !s->filesystems)) {
        free(s->command);
        free(s->filesystems);
        s->command = s->filesystems = NULL;
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    s->format_version = GT_SNAPSHOT_FORMAT;
    snprintf(s->tracker_version, sizeof s->tracker_version, "%s", gt_version());
    s->pid = (int)r->pid;
    s->interval = r->interval;
    s->start_time = r->epoch_start;
    s->stop_time = r->epoch_stop;
    s->duration = r->epoch_stop - r->epoch_start;
    s->exit_status = exit_status;
    s->usage = *usage;
    s->server = r->server;
    if (snapshot_take_lists(s) < 0) {
        free(s->command);
        free(s->filesystems);
        s->command = s->filesystems = NULL;
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    snprintf(s->server.allocation, sizeof s->server.allocation, "%s",
             allocation_of_rows(rows));
    snprintf(s->host, sizeof s->host, "%s", s->server.hostname);
    s->cloud = r->cloud;
    s->job = r->job;
    s->server.struct_size = sizeof s->server;
    s->cloud.struct_size = sizeof s->cloud;
    s->usage.struct_size = sizeof s->usage;
    s->job.struct_size = sizeof s->job;
    s->series.interval = r->interval;
    s->series.start_time = r->epoch_start;
    s->series.nprocess = rows->count[GT_SERIES_KIND_PROCESS];
    s->series.nsystem = rows->count[GT_SERIES_KIND_SYSTEM];
    return GT_OK;
}
