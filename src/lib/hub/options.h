/* options.h - the library's side of gt_options (gpu_tracker.h). */
#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

#include "gpu_tracker_internal.h"

#define DEFAULT_STOP_TIMEOUT 10.0

/* A tracker's own copy of its options: complete (this library's struct,
 * whatever size the caller's was), every string copied, the defaults
 * applied: resource_usage_file is the backup's path ("" for none), series
 * includes what a CSV descriptor asks for. */
struct options_copy {
    gt_options o;                 /* its strings point at owned[] */
    const char *proc_root, *sys_root; /* o's, never NULL ("/proc", "/sys") */
    const char *metadata_url;     /* o's; NULL: the real services */
    int sampled_only;             /* o's, 0 or 1 */
    gt_job_info job;              /* o.job points here when given */
    char *owned[24];
    int nowned;
};

/* Validates user (as gt_options_validate) and copies it into c. GT_OK, or
 * the failure with gt_last_error() set (then nothing is left to free). */
gt_status options_copy_make(struct options_copy *c, const gt_options *user);

/* Whether a tracker with options c may signal its tree (gt_tracker_signal):
 * GT_OK, or GT_ERR_INVALID_ARGUMENT with gt_last_error() saying why: the
 * tree is the tracking program's own, or an ancestor's (read from /proc
 * when the tracker reads the real one). */
gt_status options_signal_refusal(const struct options_copy *c);

/* Frees the strings of c; safe twice. */
void options_copy_free(struct options_copy *c);

/* The caller's options as this library's whole struct (options.c): its
 * struct_size bytes over the defaults. GT_ERR_INVALID_ARGUMENT for a size
 * gt_options_init_size() did not write, or for a newer struct that sets a
 * field this library does not have. */
gt_status options_import(const gt_options *user, gt_options *out);

#endif
