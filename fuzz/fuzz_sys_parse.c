/* libFuzzer target: the system-file parsers and name rules (sys_parse.h),
 * line by line as the readers use them; and the cgroup files' parsers
 * (cgroup_parse.h), whole files as they are read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse/cgroup_parse.h"
#include "common/parse/sys_parse.h"

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
    int which = data[0] % 7;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    if (which < 3) {
        sys_each_line(text, len, each, &which);
    } else if (which == 3) {
        static struct cgroup_membership m;
        if (cgroup_parse_membership(text, len, &m) == 0 &&
            (strlen(m.unified) >= sizeof m.unified || (m.unified[0] && m.unified[0] != '/') ||
             strstr(m.unified, "/../") || strstr(m.memory, "/../")))
            __builtin_trap(); /* a path joined to a mount point must stay under it */
    } else if (which == 4) {
        unsigned long long v;
        int is_max;
        cgroup_parse_value(text, len, &v, &is_max);
    } else if (which == 5) {
        static const char *const keys[] = {"anon", "file", "shmem", "oom_kill"};
        unsigned long long values[4];
        unsigned found;
        if (cgroup_parse_keyed(text, len, keys, 4, values, &found) == 0 && found > 15)
            __builtin_trap();
    } else {
        struct psi_totals p;
        cgroup_parse_pressure(text, len, &p);
    }
    return 0;
}
