/* report_slow.h - the report's section "Why it was slow". Private to the
 * report wing. */
#ifndef GT_REPORT_SLOW_H
#define GT_REPORT_SLOW_H

#include "gpu_tracker_tools.h"
#include "common/buf.h"

/* "Why it was slow" of s: each thing that held the job back (starved of
 * CPU, throttled by its quota, waiting for memory or I/O, OOM kills, memory
 * at its limit, the GPU's clocks lowered, the GPUs waiting for the CPU
 * side), or that nothing did, with the cards of what was looked at.
 * starved: gt_cpu_contention()'s sentence ("" when not starved). */
void report_slow_section(struct buf *b, const gt_snapshot *s, const char *starved);

#endif
