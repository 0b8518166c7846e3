/* libFuzzer target: the server-info parsers (os-release, cpuinfo,
 * /proc/self/cgroup, cpu.max, memory limits). They take NUL-terminated
 * text, as read from the files. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/server_info.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char out[256];
    switch (data[0] % 6) {
    case 0: server_parse_os_release(text, out, sizeof out); break;
    case 1: server_parse_cpu_model(text, out, sizeof out); break;
    case 2: server_parse_cgroup_path(text, NULL, out, sizeof out); break;
    case 3: server_parse_cgroup_path(text, "cpu", out, sizeof out); break;
    case 4: server_parse_cpu_max(text); break;
    default: server_parse_memory_limit(text); break;
    }
    free(text);
    return 0;
}
