/* rt_live.c - resource_tracker's views of a live run and of the system now
 * (gpu_tracker_tools.h): its ResourceTracker's server_info and cloud_info,
 * and the one reading its get_process_stats() and get_system_stats() are
 * made of, through the gate the tools take a live run by. The Python
 * package's resource_tracker module builds its dicts from these. */
#include <string.h>

#include "gpu_tracker_internal.h"
#include "gpu_tracker_tools.h"
#include "common/internal.h"

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
