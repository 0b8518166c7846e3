/* analysis/analysis.h - the face of the analysis wing: the judgements the
 * tracker makes of a run (the GPUs to ask for) and gpu_tracker's
 * sub-tracking marks. Other wings
 * include this header, never the wing's others (tests/test_layers.sh). */
#ifndef GT_ANALYSIS_H
#define GT_ANALYSIS_H

#include <stddef.h>

#include "gpu_tracker_tools.h"

/* What to ask for next time about GPUs (gpu_advice.c): 1 with a sentence
 * in out ("1 of the 2 GPUs the run held was idle (GPU 1 91% of the time):
 * ask for 1"; "... idle: it may need none" when every GPU it held was;
 * "2 GPUs given (CUDA_VISIBLE_DEVICES) and none used: ask for none") when GPUs were held idle or given and unused; 0 (out "") when
 * not, or not recorded (g NULL or its struct_size 0). */
int gpu_advice(const gt_gpu_idle *g, char *out, size_t cap);

#endif
