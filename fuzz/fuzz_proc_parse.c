/* libFuzzer target: the procfs parsers (proc_parse.h). The first byte picks
 * the parser, the rest is the file's text. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/parse/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    switch (data[0] % 7) {
    case 0: {
        struct proc_stat st;
        proc_parse_stat(text, len, &st);
        proc_parse_stat_delay(text, len, &st);
        break;
    }
    case 1: {
        struct proc_status st;
        proc_parse_status(text, len, &st);
        break;
    }
    case 2: {
        struct proc_rollup r;
        proc_parse_smaps_rollup(text, len, &r);
        break;
    }
    case 3: {
        pid_t pids[16];
        size_t count;
        if (proc_parse_pid_list(text, len, pids, 16, &count) == 0 && count > 1u << 30)
            __builtin_trap();
        break;
    }
    case 4: {
        struct sys_cpu c;
        if (proc_parse_cpu_stat(text, len, &c) == 0 && c.busy > c.total)
            __builtin_trap(); /* busy is a part of total */
        break;
    }
    case 5: {
        struct meminfo m;
        proc_parse_meminfo(text, len, &m);
        break;
    }
    default: {
        struct proc_io io;
        proc_parse_io(text, len, &io);
        break;
    }
    }
    return 0;
}
