/* stats/group_memory.c - how much of a cgroup's memory peak was page cache
 * the kernel could have reclaimed (gpu_tracker_tools.h).
 *
 * A group's high-water mark counts file pages: a job that streams a large
 * file through the page cache reads as hundreds of MB with an RSS under
 * 1 MiB. memory.stat at the sample with the highest usage splits it:
 * "file" (v1 "total_cache") holds the page cache and tmpfs/shared memory,
 * and only the first can be dropped without swap. What is left, anonymous
 * memory, shared memory and the kernel's own, is what a memory request
 * must hold. The split is of the highest sample, not of the kernel's mark
 * between two samples: an estimate of the peak's make-up. */
#include "gpu_tracker_tools.h"

double gt_cgroup_reclaimable(const gt_cgroup_usage *cg)
{
    if (!cg || !cg->struct_size || !cg->available || !cg->memory_available)
        return 0;
    double cache = cg->peak_file - cg->peak_shmem;
    if (!(cache > 0))
        return 0;
    return cache < cg->memory_peak ? cache : cg->memory_peak;
}

double gt_cgroup_working_peak(const gt_cgroup_usage *cg)
{
    if (!cg || !cg->struct_size || !cg->available || !cg->memory_available)
        return 0;
    return cg->memory_peak - gt_cgroup_reclaimable(cg);
}
