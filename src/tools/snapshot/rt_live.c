/* rt_live.c - resource_tracker's views of a live run and of the system now
 * (gpu_tracker_tools.h): its ResourceTracker's server_info and cloud_info,
 * and the one reading its get_process_stats() and get_system_stats() are
 * made of, through the gate the tools take a live run by. The Python
 * package's resource_tracker module builds its dicts from these. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker_internal.h"
#include "gpu_tracker_tools.h"
#include "common/internal.h"
#include "common/file_read.h"
#include "common/parse/proc_parse.h"

gt_status gt_rt_server_info(gt_tracker *t, gt_server_info *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    return gt_tracker_server_info(t, out);
}

int gt_rt_cloud_info(gt_tracker *t, double max_wait, gt_cloud_info *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    return gt_tracker_cloud_info(t, max_wait, out);
}

gt_status gt_rt_counters_read(int pid, int children, gt_counters **out)
{
    *out = NULL;
    if (pid <= 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid process ID %d: give a positive PID",
                         pid);
    gt_options o;
    gt_options_init(&o);
    o.process_id = pid;
    o.main_only = !children;
    o.disable_logs = 1; /* a reading, not a run: its readers' warnings are not the caller's */
    return gt_counters_read(&o, out);
}

void gt_rt_counters_free(gt_counters *c)
{
    gt_counters_free(c);
}

/* Appends the children of every thread of pid to *list. 0, or -1 when out
 * of memory. A process gone in between has none. */
static int children_of(int pid, int **list, size_t *n, size_t *cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *tasks = opendir(path);
    if (!tasks)
        return 0;
    char buf[65536];
    int failed = 0;
    struct dirent *e;
    while (!failed && (e = readdir(tasks)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char name[300];
        snprintf(name, sizeof name, "%s/children", e->d_name);
        size_t len;
        if (file_read_at(dirfd(tasks), name, buf, sizeof buf, &len) != 0)
            continue;
        size_t count = 0;
        pid_t one[1];
        proc_parse_pid_list(buf, len, one, 0, &count);
        if (*n + count > *cap) {
            size_t want = (*n + count) * 2 + 16;
            int *grown = realloc(*list, want * sizeof **list);
            if (!grown) {
                failed = 1;
                break;
            }
            *list = grown;
            *cap = want;
        }
        pid_t *got = malloc((count + 1) * sizeof *got);
        if (!got) {
            failed = 1;
            break;
        }
        proc_parse_pid_list(buf, len, got, count, &count);
        for (size_t i = 0; i < count; i++)
            (*list)[(*n)++] = (int)got[i];
        free(got);
    }
    closedir(tasks);
    return failed ? -1 : 0;
}

gt_status gt_rt_process_read(int pid, gt_rt_process *out)
{
    memset(out, 0, sizeof *out);
    out->pss_kb = out->read_bytes = out->write_bytes = -1;
    if (pid <= 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid process ID %d: give a positive PID",
                         pid);
    char path[32];
    snprintf(path, sizeof path, "/proc/%d", pid);
    int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return errno == ENOENT ? error_set(GT_ERR_NO_PROCESS, "no process %d", pid)
                               : error_set(GT_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    static _Thread_local char buf[65536];
    size_t len;
    struct proc_stat st;
    gt_status status = GT_OK;
    if (file_read_at(dir, "stat", buf, sizeof buf, &len) != 0 || proc_parse_stat(buf, len, &st) != 0) {
        status = errno == ENOENT || errno == ESRCH
                     ? error_set(GT_ERR_NO_PROCESS, "no process %d", pid)
                     : error_set(GT_ERR_IO, "cannot read %s/stat", path);
    } else {
        out->utime = st.utime;
        out->stime = st.stime;
        out->cutime = st.cutime;
        out->cstime = st.cstime;
        struct proc_status ps;
        if (file_read_at(dir, "status", buf, sizeof buf, &len) == 0 &&
            proc_parse_status(buf, len, &ps) == 0)
            out->rss_kb = (long long)ps.vm_rss_kb;
        struct proc_rollup r;
        if (file_read_at(dir, "smaps_rollup", buf, sizeof buf, &len) == 0 &&
            proc_parse_smaps_rollup(buf, len, &r) == 0)
            out->pss_kb = (long long)r.pss_kb;
        struct proc_io io;
        if (file_read_at(dir, "io", buf, sizeof buf, &len) == 0 && proc_parse_io(buf, len, &io) == 0) {
            out->read_bytes = (long long)io.read_bytes;
            out->write_bytes = (long long)io.write_bytes;
        }
    }
    close(dir);
    /* The descendants, breadth first: each listed process's children. */
    size_t cap = 0;
    if (status == GT_OK && children_of(pid, &out->descendants, &out->ndescendants, &cap) == 0) {
        for (size_t i = 0; i < out->ndescendants; i++)
            if (out->ndescendants > 4194304) { /* the kernel's PID_MAX_LIMIT: PIDs reused meanwhile */
                status = error_set(GT_ERR_IO, "process %d's descendants changed faster than they "
                                   "could be listed", pid);
                break;
            } else if (children_of(out->descendants[i], &out->descendants, &out->ndescendants, &cap) != 0) {
                status = error_set(GT_ERR_NO_MEMORY, "out of memory listing the descendants of %d",
                                   pid);
                break;
            }
    } else if (status == GT_OK) {
        status = error_set(GT_ERR_NO_MEMORY, "out of memory listing the descendants of %d", pid);
    }
    if (status != GT_OK)
        gt_rt_process_release(out);
    return status;
}

void gt_rt_process_release(gt_rt_process *p)
{
    free(p->descendants);
    p->descendants = NULL;
    p->ndescendants = 0;
}
