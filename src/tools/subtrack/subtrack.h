/* subtrack/subtrack.h - the face of the sub-tracking wing of the tools:
 * gpu_tracker's sub-tracking analysis (gt_subtrack_analyze and the
 * comparison, gpu_tracker_tools.h) and, for the other tools, a
 * sub-tracking file's code blocks paired into calls (the report shades
 * them). */
#ifndef GT_SUBTRACK_H
#define GT_SUBTRACK_H

#include "subtrack/subtrack_blocks.h"

#endif
