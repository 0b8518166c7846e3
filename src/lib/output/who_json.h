/* who_json.h - who held the run's resources, as JSON both ways: who made
 * up the peaks ("at_peak"), the GPUs held but idle ("gpu_idle"), the
 * processes by command ("processes") and the top process over time
 * ("top_processes"), for the summary JSON of a tracker and for snapshots'
 * metadata (docs/snapshot.md). */
#ifndef GT_WHO_JSON_H
#define GT_WHO_JSON_H

#include <json-c/json.h>
#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"

/* The peaks ("at_peak": memory and gpu_memory, each left out when not
 * available); peaks[GT_PEAK_MEMORY], peaks[GT_PEAK_GPU_MEMORY]. */
json_object *at_peak_json_object(const gt_peak_breakdown *peaks);

/* The GPUs held but idle ("gpu_idle"). */
json_object *gpu_idle_json_object(const gt_gpu_idle *idle);

/* The processes by command ("processes"). */
json_object *processes_json_object(const gt_command_groups *g);

/* The top process over time ("top_processes"): [[at, pid, command], ...]. */
json_object *top_processes_json_object(const gt_top_process *top, size_t n);

/* Readers of those objects, every value checked, problems going to r with
 * key paths under path; what is read goes into *out (struct_size set).
 * at_peak fills both peaks (one left out: not available). */
void at_peak_json_read(struct json_reader *r, json_object *o, const char *path,
                       gt_peak_breakdown out[2]);
void gpu_idle_json_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_idle *out);
void processes_json_read(struct json_reader *r, json_object *o, const char *path,
                         gt_command_groups *out);

/* The most entries a snapshot's top_processes may have (the tracker keeps
 * at most this many: census.h). */
#define TOP_PROCESSES_MAX 4096

/* top_processes into a malloc'd array (*n entries; NULL when empty or after
 * a failure). Times must not go backwards. */
gt_top_process *top_processes_json_read(struct json_reader *r, json_object *o, const char *path,
                                        size_t *n);

#endif
