/* proc_start.c - when a process started, to tell it from a later one that
 * got its PID. */
#define _GNU_SOURCE
#include "common/proc_start.h"

#include <fcntl.h>
#include <stdio.h>

#include "common/file_read.h"
#include "common/parse/proc_parse.h"

unsigned long long proc_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    size_t n;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    struct proc_stat st;
    if (file_read_at(AT_FDCWD, path, buf, sizeof buf, &n) < 0 || n == 0 ||
        proc_parse_stat(buf, n, &st) < 0 || st.state == 'Z' || st.state == 'X')
        return 0;
    return st.starttime;
}

