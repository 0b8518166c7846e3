/* common/human_units.c - figures in the units people read at a glance: sizes in
 * binary units chosen by size, durations as a clock, energy in J/kJ/MJ and
 * Wh. One convention for every people-facing output (-f human, the status
 * line, limits, compare, stats, the GPU-idle text, the report): sizes are
 * powers of 1024 and say so (KiB, MiB, GiB), as free(1) -h and htop do. In
 * the toolkit so that the library's own texts use it as the tools do. */
#include "common/internal.h"
#include "common/toolkit.h"

#include <math.h>
#include <stdio.h>

/* v (at least 0) with three significant figures, no exponent: 4.27, 42.7,
 * 427, 4271. */
static void three_figures(char *buf, size_t cap, double v, const char *unit)
{
    if (v < 10)
        snprintf(buf, cap, "%.2f %s", v, unit);
    else if (v < 100)
        snprintf(buf, cap, "%.1f %s", v, unit);
    else
        snprintf(buf, cap, "%.0f %s", v, unit);
}

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
    else
        three_figures(buf, cap, bytes, units[u]);
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

/* v in the largest of units (each factor 1000 times the last) that keeps
 * it at least 1; "-" for what is no figure. */
static char *scaled(char *buf, size_t cap, double v, const char *const *units, size_t n)
{
    if (!isfinite(v) || v < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = 0;
    while (v >= 1000.0 && u + 1 < n) {
        v /= 1000.0;
        u++;
    }
    if (v == 0)
        snprintf(buf, cap, "0 %s", units[0]);
    else if (u == 0 && v < 0.01)
        snprintf(buf, cap, "%.2g %s", v, units[0]); /* "0.0042 Wh", not "0.00 Wh" */
    else
        three_figures(buf, cap, v, units[u]);
    return buf;
}

char *human_energy(char *buf, size_t cap, double joules)
{
    static const char *const units[] = {"J", "kJ", "MJ", "GJ", "TJ"};
    return scaled(buf, cap, joules, units, sizeof units / sizeof units[0]);
}

char *human_watt_hours(char *buf, size_t cap, double joules)
{
    static const char *const units[] = {"Wh", "kWh", "MWh", "GWh"};
    return scaled(buf, cap, joules / 3600.0, units, sizeof units / sizeof units[0]);
}
