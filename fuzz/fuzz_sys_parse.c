/* libFuzzer target: the system-file parsers and name rules (sys_parse.h),
 * line by line as the readers use them. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys_parse.h"

static int each(const char *line, size_t n, void *arg)
{
    int which = *(int *)arg;
    if (which == 0) {
        struct diskstats_line d;
        if (sys_parse_diskstats_line(line, n, &d) == 0) {
            if (strlen(d.name) >= sizeof d.name)
                __builtin_trap();
            sys_block_is_virtual(d.name);
            sys_block_looks_like_partition(d.name);
        }
    } else if (which == 1) {
        struct netdev_line l;
        if (sys_parse_netdev_line(line, n, &l) == 0 && strlen(l.name) >= sizeof l.name)
            __builtin_trap();
    } else {
        static struct mountinfo_line m;
        if (sys_parse_mountinfo_line(line, n, &m) == 0) {
            sys_fs_is_pseudo(m.fstype);
            sys_fs_is_network(m.fstype);
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int which = data[0] % 3;
    sys_each_line((const char *)data + 1, size - 1, each, &which);
    return 0;
}
