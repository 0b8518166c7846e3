/* gpu_advice.h - the sentences of what a run's GPUs say to ask for next
 * time (gpu_advice.c), and the names of the GPU's throttle reasons: pure
 * functions over the results' structs, which the library's text summary
 * and its users' texts (the command, the report) all say alike. */
#ifndef GT_GPU_ADVICE_H
#define GT_GPU_ADVICE_H

#include <stddef.h>

#include "gpu_tracker_internal.h"

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

/* The name of throttle reason i ("sw_power_cap", "hw_thermal", ...: the
 * index of gt_gpu_run.throttle_share), NULL past GT_GPU_THROTTLE_REASONS. */
const char *gpu_throttle_name(int i);

/* The name of activity counter i ("sm", "tensor", "dram", ...: the index
 * of gt_gpu_run.activity_mean), NULL past GT_GPU_ACTIVITY_METRICS. */
const char *gpu_activity_name(int i);

/* "SM 62% (peak 97%), tensor 40% (peak 88%), DRAM 31% (peak 55%)": the
 * headline counters of read (SM, tensor, DRAM, GFX) with their means and
 * peaks into out, as the text summary and -f human say them; 0 (out "")
 * when read holds none of them. */
int gpu_activity_phrase(unsigned read, const double *mean, const double *peak, char *out,
                        size_t cap);

/* The i-th value gt_options.gpu_brand takes besides NULL ("nvidia", "amd",
 * "intel", "drm"), NULL past the last: the one list the library checks
 * the option against and the Python package its arguments. */
const char *gpu_brand_name(size_t i);

#endif
