/* units.c - unit names and their factors. */
#include "util/units.h"

#include <string.h>

struct unit { const char *name; double factor; };

static const struct unit ram_units[] = {
    {"bytes", 1.0}, {"kilobytes", 1e3}, {"megabytes", 1e6},
    {"gigabytes", 1e9}, {"terabytes", 1e12},
};

static const struct unit time_units[] = {
    {"seconds", 1.0}, {"minutes", 60.0}, {"hours", 3600.0}, {"days", 86400.0},
};

static double lookup(const struct unit *units, size_t n, const char *name)
{
    if (!name)
        return 0.0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(units[i].name, name) == 0)
            return units[i].factor;
    return 0.0;
}

double units_ram_divisor(const char *name)
{
    return lookup(ram_units, sizeof ram_units / sizeof ram_units[0], name);
}

double units_time_divisor(const char *name)
{
    return lookup(time_units, sizeof time_units / sizeof time_units[0], name);
}
