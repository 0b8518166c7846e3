/* parts_read.h - a summary's and a snapshot's parts read back (the
 * library writes them: output/): the summary itself (usage_read.c), who
 * held the resources (who_read.c), the job's cgroup, the GPU driver's
 * figures, the CPUs' energy, the server's GPU names and the cloud
 * (parts_read.c). Each checks every key and bounds every number and list;
 * problems go to the json_reader with their key paths. Private to the
 * snapshot wing (its face re-exports nothing of it). */
#ifndef GT_PARTS_READ_H
#define GT_PARTS_READ_H

#include <json-c/json.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"
#include "common/json_span.h"

/* Reads a "cgroup" object (common/summary/cgroup_json.c writes it) into *c (its
 * struct_size kept), every value checked; problems go to r with key paths
 * under path ("cgroup"). */
void cgroup_json_read(struct json_reader *r, json_object *o, const char *path,
                      gt_cgroup_usage *c);

/* Reads a "gpu_run" object (common/summary/run_parts_json.c writes it) into *g
 * (its struct_size kept), every value checked; problems go to r with key
 * paths under path. g->devices is
 * malloc'd (the caller frees it; NULL when none were listed). */
void gpu_run_json_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_run *g);

/* Reads a "cpu_energy" object (common/summary/run_parts_json.c writes it) into *e
 * (its struct_size kept), every value checked; problems go to r with key
 * paths under path. */
void cpu_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_cpu_energy *e);

/* Reads an "energy" object (the job's energy: lib/output/results.c writes
 * it) into *e (its struct_size kept), every value checked; problems go to r
 * with key paths under path. */
void job_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_job_energy *e);

/* Parses the part at span (name for messages), which may have at most max
 * bytes; NULL after a failure (recorded in r) and for a JSON null. */
json_object *snapshot_parse_part(struct json_reader *r, const char *text, struct json_span span,
                                 const char *name, size_t max);

/* cloud_info (NULL: not asked) into c. */
void snapshot_read_cloud(struct json_reader *r, json_object *cloud, gt_cloud_info *c);

/* server_info's "gpu_names" (a list of at most GT_MAX_GPUS strings that
 * fit) into si. */
void snapshot_read_gpu_names(struct json_reader *r, json_object *server_info, gt_server_info *si);

/* Reads a summary object (gt_usage_from_json's checks) into *u; problems go
 * to r, with key paths under prefix ("", or "summary" in a snapshot). */
void usage_json_read(struct json_reader *r, json_object *root, const char *prefix,
                     gt_resource_usage *u);

/* Frees the GPU list usage_json_read() allocated in *u (gt_usage_release;
 * a snapshot's summary at gt_snapshot_free). */
void usage_json_release(gt_resource_usage *u);

/* Readers of the at_peak, gpu_idle and processes objects
 * (common/summary/who_json.c writes them), every value checked, problems going to r with
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
