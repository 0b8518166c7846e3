/* system.h - system-wide figures: CPU time of all cores and memory. */
#ifndef GT_SYSTEM_H
#define GT_SYSTEM_H

#include "util/parse/proc_parse.h"

struct system_reader {
    int stat_fd;
    int meminfo_fd;
    char *buf;
    size_t bufcap;
};

/* Opens <proc_root>/stat and <proc_root>/meminfo and reads them once into
 * cpu and mem. Returns 0, or -1 with errno and the failing file in *what. */
int system_open(struct system_reader *r, const char *proc_root, struct sys_cpu *cpu,
                struct meminfo *mem, const char **what);
void system_close(struct system_reader *r);

/* Re-reads both files. -1 with errno (ERR_MALFORMED: malformed, see internal.h) and *what set. */
int system_read(struct system_reader *r, struct sys_cpu *cpu, struct meminfo *mem,
                const char **what);

#endif
