/* live.h - the status line gpu-tracker shows while a command runs, as pv or
 * hyperfine do: elapsed time, CPU cores now, RSS now and peak, GPU memory
 * and utilization now, samples; redrawn in place on standard error about
 * once a second and erased when tracking ends. Only on a terminal: with
 * standard error a file or a pipe nothing is ever drawn. */
#ifndef GT_CLI_LIVE_H
#define GT_CLI_LIVE_H

#include "gpu_tracker.h"

/* Turns the line on when fd is a terminal and enabled is non-zero (the
 * options did not ask for quiet). 1 when it is on. */
int live_begin(int fd, int enabled);

/* Redraws the line from t's progress (at most twice a second; calls in
 * between do nothing). Called by the thread that waits for the command. */
void live_tick(gt_tracker *t);

/* Erases the line and turns it off: what follows starts on a clean line. */
void live_end(void);

/* Another message for standard error (a warning, from any thread): the
 * line is erased first and redrawn at the next tick. Call live_resume()
 * once the message is written. */
void live_pause(void);
void live_resume(void);

#endif
