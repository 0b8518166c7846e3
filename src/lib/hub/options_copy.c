/* options_copy.c - the tracker's own copy of its options (strings copied,
 * defaults filled in: the backup file's name), and what the options may
 * not ask of it (a signal to an ancestor). */
#define _GNU_SOURCE
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/background.h"
#include "common/file_read.h"
#include "common/parse/proc_parse.h"
#include "hub/options.h"

/* ".gpu-tracker_<random UUID>.json" in the working directory, as gpu_tracker
 * names its pickle; NULL when out of memory. */
static char *default_backup_path(void)
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* Entropy is not ready this early in boot: time and pid will do. */
        unsigned long long x = (unsigned long long)(monotonic_now() * 1e9) ^ (unsigned long long)getpid();
        for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
            r[i] = (unsigned char)(x >> 56);
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* UUID version 4 */
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
    char *p = NULL;
    if (asprintf(&p,
                 ".gpu-tracker_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x.json",
                 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                 r[13], r[14], r[15]) < 0)
        return NULL;
    return p;
}


/* Keeps a copy of s (NULL stays NULL) in c->owned; sets *failed when out
 * of memory. */
static const char *own(struct options_copy *c, const char *s, int *failed)
{
    if (!s)
        return NULL;
    if (c->nowned == (int)(sizeof c->owned / sizeof c->owned[0])) {
        *failed = 1; /* a string added to the options without room here */
        return NULL;
    }
    char *d = dup_or_null(s, failed);
    if (d)
        c->owned[c->nowned++] = d;
    return d;
}

/* 1 when pid is this process's parent, or its parent's, ... up to the
 * first process of its PID namespace (each step one /proc/PID/stat, read
 * and parsed as the tree walk does; a PID that cannot be read ends it). */
static int is_own_ancestor(pid_t pid)
{
    pid_t at = getppid();
    for (int depth = 0; at > 0 && depth < 4096; depth++) {
        if (at == pid)
            return 1;
        char path[64], text[1024];
        size_t len;
        struct proc_stat st;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)at);
        if (file_read_prefix(path, text, sizeof text, &len) != 0 ||
            proc_parse_stat(text, len, &st) != 0)
            return 0;
        at = st.ppid;
    }
    return 0;
}

gt_status options_signal_refusal(const struct options_copy *c)
{
    const gt_options *o = &c->o;
    if (o->process_id == 0 || o->process_id == getpid())
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "cannot signal the tracked tree: it is the tracking program's own "
                         "(process_id is its own)");
    /* The tree of an ancestor holds this program, and the rest of what
     * that ancestor runs (a pipeline's other commands): a signal would
     * reach them, and an init (PID 1) ignores the SIGKILL. */
    if (strcmp(c->proc_root, "/proc") == 0 && is_own_ancestor(o->process_id))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "cannot signal the tracked tree: process %d started the tracking "
                         "program (its tree holds the tracking program and whatever else that "
                         "process runs, a pipeline's other commands among them)",
                         (int)o->process_id);
    return GT_OK;
}

gt_status options_copy_make(struct options_copy *c, const gt_options *user)
{
    memset(c, 0, sizeof *c);
    gt_status st = gt_options_validate(user);
    if (st != GT_OK)
        return st;
    options_import(user, &c->o);
    gt_options *o = &c->o;
    int failed = 0;
    o->ram_unit = own(c, o->ram_unit, &failed);
    o->gpu_ram_unit = own(c, o->gpu_ram_unit, &failed);
    o->time_unit = own(c, o->time_unit, &failed);
    o->gpu_uuids = own(c, o->gpu_uuids, &failed);
    o->gpu_brand = own(c, o->gpu_brand, &failed);
    o->nvml_library = own(c, o->nvml_library, &failed);
    o->rsmi_library = own(c, o->rsmi_library, &failed);
    o->command = own(c, o->command, &failed);
    o->tracking_file = own(c, o->tracking_file, &failed);
    o->metrics_listen = own(c, o->metrics_listen, &failed);
    o->metrics_textfile_dir = own(c, o->metrics_textfile_dir, &failed);
    o->metrics_push_url = own(c, o->metrics_push_url, &failed);
    if (o->job) {
        /* as much as the caller's struct holds (a 1.0 program's ends before
         * the 1.1 fields; options_validate checked it holds 1.0's) */
        size_t size = o->job->struct_size < sizeof c->job ? o->job->struct_size : sizeof c->job;
        memset(&c->job, 0, sizeof c->job);
        memcpy(&c->job, o->job, size);
        c->job.struct_size = sizeof c->job;
        o->job = &c->job;
    }
    if (!o->resource_usage_file) {
        char *path = default_backup_path();
        o->resource_usage_file = own(c, path, &failed);
        failed |= !path;
        free(path);
    } else {
        o->resource_usage_file = own(c, o->resource_usage_file, &failed);
    }
    /* A descriptor to write a series to asks for that series. */
    if (o->process_csv_fd >= 0)
        o->series |= GT_SERIES_PROCESS;
    if (o->system_csv_fd >= 0)
        o->series |= GT_SERIES_SYSTEM;
    o->proc_root = c->proc_root = own(c, o->proc_root ? o->proc_root : "/proc", &failed);
    o->sys_root = c->sys_root = own(c, o->sys_root ? o->sys_root : "/sys", &failed);
    o->metadata_url = c->metadata_url = own(c, o->metadata_url, &failed);
    c->sampled_only = o->sampled_only != 0;
    if (failed) {
        options_copy_free(c);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    return GT_OK;
}

void options_copy_free(struct options_copy *c)
{
    for (int i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    c->nowned = 0;
}
