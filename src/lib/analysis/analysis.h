/* analysis/analysis.h - the face of the analysis wing: the judgements the
 * tracker makes of a run: gpu_tracker's sub-tracking marks (the GPU
 * advice is the toolkit's, common/gpu_advice.h). Other wings
 * include this header, never the wing's others (tests/test_layers.sh). */
#ifndef GT_ANALYSIS_H
#define GT_ANALYSIS_H

#include <stddef.h>

#include "gpu_tracker_internal.h"

#endif
