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

/* What the GPUs waited for, as advice (gpu_advice.c): the verdict's bits
 * (GT_GPU_WAIT_*) with a sentence in out ("more CPU cores per GPU: the GPU
 * waited (18% busy) on 4 saturated pt_data_worker workers at 0.98 cores
 * each 71% of the time it was in use"; "faster storage: ..."; both joined
 * by "; "); 0 with out "" when there is no verdict (w NULL, GPU-bound, idle
 * or held back by nothing the figures show). The worker's command is the
 * job's text: print out through the escaper. */
int gpu_wait_advice(const gt_gpu_wait *w, char *out, size_t cap);

#endif
