/* test_tracker_new.h - how the unit tests make trackers.
 *
 * The library reads no environment variable; the gpu-tracker command maps
 * them to options (src/cli/environment.c). The unit tests
 * choose fake GPU libraries and metadata servers the same way, through
 * those variables and the command's own mapping, and point the tracker at
 * fixture trees through test_sources (options.proc_root and its kin), which
 * test_options_init() clears so that nothing of one test leaks into the
 * next. */
#ifndef GT_TEST_TRACKER_NEW_H
#define GT_TEST_TRACKER_NEW_H

#include "environment.h"
#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

#include <string.h>

/* Where the next test_tracker_new() reads from (NULL, 0: the system's),
 * set into its options as gpu-tracker sets what its environment says. */
static struct {
    const char *proc_root, *sys_root, *metadata_url;
    int sampled_only;
} test_sources;

/* gt_options_init(o), and no testing source set. */
#define test_options_init(o) (gt_options_init(o), memset(&test_sources, 0, sizeof test_sources))

/* gt_tracker_new() with test_sources and the environment, as gpu-tracker
 * would make it. */
static inline gt_status test_tracker_new(const gt_options *opts, gt_tracker **out)
{
    gt_options o = *opts;
    cli_read_environment(&o);
    if (test_sources.proc_root)
        o.proc_root = test_sources.proc_root;
    if (test_sources.sys_root)
        o.sys_root = test_sources.sys_root;
    if (test_sources.metadata_url)
        o.metadata_url = test_sources.metadata_url;
    if (test_sources.sampled_only)
        o.sampled_only = 1;
    return gt_tracker_new(&o, out);
}

#endif
