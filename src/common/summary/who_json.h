/* who_json.h - who held the run's resources, as JSON (read back by the
 * tools: snapshot/who_read.c): who made up the peaks ("at_peak"), the GPUs
 * held but idle ("gpu_idle"), the processes by command ("processes") and
 * the top process over time ("top_processes"), for the summary JSON of a
 * tracker and for snapshots' metadata (docs/snapshot.md). */
#ifndef GT_WHO_JSON_H
#define GT_WHO_JSON_H

#include <json-c/json.h>
#include <stddef.h>

#include "gpu_tracker_internal.h"

/* The peaks ("at_peak": memory and gpu_memory, each left out when not
 * available); peaks[GT_PEAK_MEMORY], peaks[GT_PEAK_GPU_MEMORY]. */
json_object *at_peak_json_object(const gt_peak_breakdown *peaks);

/* The GPUs held but idle ("gpu_idle"). */
json_object *gpu_idle_json_object(const gt_gpu_idle *idle);

/* The processes by command ("processes"). */
json_object *processes_json_object(const gt_command_groups *g);

/* The top process over time ("top_processes"): [[at, pid, command], ...]. */
json_object *top_processes_json_object(const gt_top_process *top, size_t n);


#endif
