/*
 * gpu_tracker_internal.h - what the tests, the benchmark and the gpu-tracker
 * command need that is not part of the stable interface.
 *
 * Nothing here carries gpu_tracker.h's promise: these hooks may change or
 * go in any release, and the header is not installed. They point the
 * tracker at fixture files instead of the system's, and turn on the plain
 * sampler the benchmark compares us with.
 */
#ifndef GPU_TRACKER_INTERNAL_H
#define GPU_TRACKER_INTERNAL_H

#include "gpu_tracker.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_testing_hooks {
    /* Where procfs and sysfs are mounted (NULL: "/proc", "/sys"). */
    const char *proc_root;
    const char *sys_root;
    /* Base address of the cloud metadata services (NULL: the real ones,
     * 169.254.169.254 and metadata.google.internal). */
    const char *metadata_url;
    /* Non-zero: the figures a plain sampling tracker gets, for comparison:
     * peaks only from samples (no VmHWM or ru_maxrss floor), CPU only from
     * the changes seen between two samples of a live process (nothing of
     * what exited between samples, nothing of reaped children). */
    int sampled_only;
} gt_testing_hooks;

/* gt_tracker_new() with hooks (NULL: none; the strings are copied). */
GT_API gt_status gt_testing_tracker_new(const gt_options *opts, const gt_testing_hooks *hooks,
                                        gt_tracker **out);

#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_INTERNAL_H */
