/* live.h - the status line gpu-tracker shows while a command runs, as apt
 * does: elapsed time, CPU cores now, RSS now and peak, GPU memory and
 * utilization now, samples; kept on the terminal's last row (the command's
 * output scrolls above it), redrawn about once a second and erased when
 * tracking ends. Only on a terminal that is standard error (TERM set, not
 * "dumb"): with standard error a file or a pipe nothing is ever drawn. */
#ifndef GT_CLI_LIVE_H
#define GT_CLI_LIVE_H

#include "gpu_tracker_tools.h"

/* Turns the line on when fd is a terminal and enabled is non-zero (the
 * options did not ask for quiet). 1 when it is on. */
int live_begin(int fd, int enabled);

/* Redraws the line from t's progress (at most twice a second; calls in
 * between do nothing). Called by the thread that waits for the command. */
void live_tick(gt_tracker *t);

/* A signal that concerns the terminal, taken by the thread that waits for
 * the command: SIGWINCH (set the region for the new size, redraw),
 * SIGTSTP (give the terminal back whole, then stop gpu-tracker as the
 * signal would have), SIGCONT (set it again at the next tick, if in the
 * foreground). */
void live_signal(int signo);

/* Erases the line and turns it off: what follows starts on a clean line. */
void live_end(void);

/* Another message for standard error (a warning, from any thread): it
 * scrolls above the line like the command's output; pausing only keeps a
 * redraw from coming in the middle of it. Call live_resume() once the
 * message is written. */
void live_pause(void);
void live_resume(void);

#endif
