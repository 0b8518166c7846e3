/* proc_start.h - when a process started (proc_start.c). */
#ifndef GT_PROC_START_H
#define GT_PROC_START_H

#include <sys/types.h>

/* The start time (ticks after boot, /proc/PID/stat's field 22) of process
 * pid on this machine; 0 when it does not exist, cannot be read, or has
 * ended (a zombie waiting for its parent still has its stat). A PID and
 * its start time name one process: a PID alone may have been reused. */
unsigned long long proc_start_ticks(pid_t pid);

#endif
