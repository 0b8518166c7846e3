/* server_info.h - what machine a run is on: OS, kernel, CPUs (and how many
 * this job may use), memory (and its cgroup limit), GPUs. The parsers are
 * pure and tested on fixture strings; server_info_collect() reads the
 * files. */
#ifndef GT_SERVER_INFO_H
#define GT_SERVER_INFO_H

#include <stddef.h>

#include "sample.h"
#include "gpu_tracker_internal.h"

/* PRETTY_NAME of an os-release file, unquoted. -1 when there is none. */
int server_parse_os_release(const char *buf, char *out, size_t cap);

/* The first "model name" of /proc/cpuinfo (or "Processor" / "Hardware" on
 * ARM). -1 when there is none. */
int server_parse_cpu_model(const char *buf, char *out, size_t cap);

/* The path of a cgroup in /proc/<pid>/cgroup: the v2 line ("0::/path")
 * when controller is NULL, else the v1 line naming controller. -1 if none. */
int server_parse_cgroup_path(const char *buf, const char *controller, char *out, size_t cap);

/* CPUs a cgroup v2 cpu.max allows ("max 100000": 0 = no limit; "150000
 * 100000": 1.5). -1 when malformed. */
double server_parse_cpu_max(const char *buf);

/* A memory limit file (v2 memory.max, v1 memory.limit_in_bytes) in MiB: 0
 * for "max" or a v1 "no limit" (>= 2^60). -1 when malformed. */
double server_parse_memory_limit(const char *buf);

/* Fills si (all but allocation) from proc_root, sys_root (cgroups under
 * <sys_root>/fs/cgroup), /etc/os-release, uname and the ndevices GPUs
 * of devices (NULL, 0: none). Never fails: what cannot be read stays empty or 0. */
/* The CPUs process pid (0: this one) may use, out of ncpu online: its CPU
 * affinity (on the real /proc only) and its cgroup's CPU quota (v2
 * cpu.max, v1 cfs_quota_us / cfs_period_us), which may be fractional. */
double server_usable_cpus(const char *proc_root, const char *sys_root, pid_t pid, int ncpu);

/* The same with the cgroup's quota already known (cores, 0 for none:
 * cgroup_quota_cores): the affinity alone is read. */
double server_usable_cpus_quota(const char *proc_root, pid_t pid, int ncpu, double quota_cores);

void server_info_collect(gt_server_info *si, const char *proc_root, const char *sys_root,
                         const struct gpu_device *devices, int ndevices);

/* Frees the GPU names server_info_collect() allocated (none: nothing). */
void server_info_release(gt_server_info *si);

#endif
