/* system.h - system-wide figures: CPU time of all cores and memory. */
#ifndef GT_SYSTEM_H
#define GT_SYSTEM_H

#include "common/parse/proc_parse.h"

struct system_reader {
    int stat_fd;
    int meminfo_fd;
    char *buf;
    size_t bufcap;
    /* system_open()'s reading and its monotonic time (0: handed out, or
     * too old): the next system_read() within SYSTEM_REUSE_SECONDS of it
     * returns it rather than reading both files again. */
    struct sys_cpu open_cpu;
    struct meminfo open_mem;
    double open_time;
};

/* How young system_open()'s reading must be for the first system_read() to
 * take it: the tracker's baseline comes a fraction of a millisecond after
 * the open, and /proc/stat counts in ticks of 10 ms, so a reading this young
 * holds the same figures; a library caller that starts later reads anew. */
#define SYSTEM_REUSE_SECONDS 0.002

/* Opens <proc_root>/stat and <proc_root>/meminfo and reads them once into
 * cpu and mem. Returns 0, or -1 with errno and the failing file in *what. */
int system_open(struct system_reader *r, const char *proc_root, struct sys_cpu *cpu,
                struct meminfo *mem, const char **what);
void system_close(struct system_reader *r);

/* Re-reads both files (the first call within SYSTEM_REUSE_SECONDS of the
 * open takes the open's reading instead). -1 with errno (ERR_MALFORMED:
 * malformed, see internal.h) and *what set. */
int system_read(struct system_reader *r, struct sys_cpu *cpu, struct meminfo *mem,
                const char **what);

#endif
