/* human.c - figures in units a person reads at a glance. */
#include "human.h"

#include <math.h>
#include <stdio.h>

char *human_bytes(char *buf, size_t cap, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = 0;
    while (bytes >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024.0;
        u++;
    }
    /* Three significant figures: 1.25 GiB, 12.5 GiB, 125 GiB. A value that
     * rounds up to 1024 stays in its unit (1023.6 MiB reads "1024 MiB"),
     * rather than jump to a "1.00 GiB" it has not reached. */
    if (u == 0)
        snprintf(buf, cap, "%.0f %s", bytes, units[u]);
    else if (bytes < 10)
        snprintf(buf, cap, "%.2f %s", bytes, units[u]);
    else if (bytes < 100)
        snprintf(buf, cap, "%.1f %s", bytes, units[u]);
    else
        snprintf(buf, cap, "%.0f %s", bytes, units[u]);
    return buf;
}

char *human_clock(char *buf, size_t cap, double seconds)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    unsigned long long s = (unsigned long long)seconds;
    if (s < 3600)
        snprintf(buf, cap, "%llu:%02llu", s / 60, s % 60);
    else
        snprintf(buf, cap, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

char *human_duration(char *buf, size_t cap, double seconds)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    if (seconds < 10)
        snprintf(buf, cap, "%.2f s", seconds);
    else if (seconds < 60)
        snprintf(buf, cap, "%.1f s", seconds);
    else
        human_clock(buf, cap, seconds);
    return buf;
}
