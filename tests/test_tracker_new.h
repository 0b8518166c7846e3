/* test_tracker_new.h - how the unit tests make trackers.
 *
 * The library reads no environment variable; the gpu-tracker command maps
 * them to options and testing sources (src/cli/environment.c). The unit tests
 * choose fake GPU libraries and metadata servers the same way, through
 * those variables and the command's own mapping, and point the tracker at
 * fixture trees through test_sources, which test_options_init() clears so
 * that nothing of one test leaks into the next. */
#ifndef GT_TEST_TRACKER_NEW_H
#define GT_TEST_TRACKER_NEW_H

#include "environment.h"
#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

static gt_sources test_sources;

/* gt_options_init(o), and no testing hook set. */
#define test_options_init(o) (gt_options_init(o), test_sources = (gt_sources){0})

/* gt_tracker_new() with test_sources and the environment, as gpu-tracker
 * would make it. */
static inline gt_status test_tracker_new(const gt_options *opts, gt_tracker **out)
{
    gt_options o = *opts;
    gt_sources h = test_sources;
    cli_read_environment(&o, &h);
    return gt_tracker_new_from(&o, &h, out);
}

#endif
