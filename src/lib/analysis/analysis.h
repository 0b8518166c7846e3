/* analysis/analysis.h - the face of the analysis wing: what is computed
 * from a finished run or from files (resource_tracker's statistics and
 * recommendations, a Slurm job's summary, gpu_tracker's sub-tracking
 * analysis and comparison). Other wings include this header, never the
 * wing's others (tests/test_layers.sh). */
#ifndef GT_ANALYSIS_H
#define GT_ANALYSIS_H

#include "analysis/stats.h"
#include "analysis/subtrack_blocks.h"

#endif
