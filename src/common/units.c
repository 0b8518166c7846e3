/* units.c - unit names and their factors. */
#include "common/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

const char *units_ram_name(size_t i)
{
    return i < sizeof ram_units / sizeof ram_units[0] ? ram_units[i].name : NULL;
}

const char *units_time_name(size_t i)
{
    return i < sizeof time_units / sizeof time_units[0] ? time_units[i].name : NULL;
}

double units_ram_divisor(const char *name)
{
    return lookup(ram_units, sizeof ram_units / sizeof ram_units[0], name);
}

double units_time_divisor(const char *name)
{
    return lookup(time_units, sizeof time_units / sizeof time_units[0], name);
}

static const struct unit size_units[] = {
    {"B", 1.0}, {"bytes", 1.0}, {"byte", 1.0},
    {"kB", 1e3}, {"KB", 1e3}, {"kilobytes", 1e3}, {"MB", 1e6}, {"megabytes", 1e6},
    {"GB", 1e9}, {"gigabytes", 1e9}, {"TB", 1e12}, {"terabytes", 1e12},
    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"K", 1024.0}, {"M", 1048576.0}, {"G", 1073741824.0}, {"T", 1099511627776.0},
};

#define SIZE_UNITS_TEXT "B, kB, MB, GB, TB (decimal), KiB, MiB, GiB, TiB or K, M, G, T (binary)"

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

double units_strtod_decimal(const char *s, char **end)
{
    /* strtod also reads hexadecimal (0x10, 0x1p4), "inf" and "nan": a
     * number a person types here is decimal, so only what starts as one
     * and is read from decimal characters alone is taken. */
    const char *p = s + (*s == '+' || *s == '-');
    double v = strtod(s, end);
    size_t decimal = strspn(s, "+-0123456789.eE");
    if (*end == s || !(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) ||
        (size_t)(*end - s) > decimal) {
        *end = (char *)s;
        return 0;
    }
    return v;
}

int units_parse_size(const char *text, double *bytes, char *err, size_t errcap)
{
    const char *s = text ? skip_space(text) : "";
    char *end;
    double v = units_strtod_decimal(s, &end);
    if (end == s || !isfinite(v) || v <= 0) {
        snprintf(err, errcap, "invalid size '%s': give a number above 0 and a unit (%s), "
                 "e.g. 500MB or 2GiB", text ? text : "", SIZE_UNITS_TEXT);
        return -1;
    }
    const char *unit = skip_space(end);
    size_t n = strlen(unit);
    while (n > 0 && isspace((unsigned char)unit[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++)
        if (n > 0 && strlen(size_units[i].name) == n && strncmp(size_units[i].name, unit, n) == 0) {
            *bytes = v * size_units[i].factor;
            return 0;
        }
    snprintf(err, errcap, "invalid size '%s': %s; valid units: %s", text,
             n ? "unknown unit" : "no unit (500 what?)", SIZE_UNITS_TEXT);
    return -1;
}

static const struct unit duration_units[] = {
    {"s", 1.0}, {"sec", 1.0}, {"seconds", 1.0}, {"m", 60.0}, {"min", 60.0}, {"minutes", 60.0},
    {"h", 3600.0}, {"hours", 3600.0}, {"d", 86400.0}, {"days", 86400.0},
};

#define DURATION_TEXT "seconds (90), a number and a unit (90s, 1.5h, 2d), units in a row " \
                      "(1h30m) or a clock (1:30:00, minutes and seconds under 60), in decimal"

static int duration_fail(const char *text, char *err, size_t errcap)
{
    snprintf(err, errcap, "invalid duration '%s': give %s", text ? text : "", DURATION_TEXT);
    return -1;
}

int units_parse_duration(const char *text, double *seconds, char *err, size_t errcap)
{
    const char *s = text ? skip_space(text) : "";
    if (!*s)
        return duration_fail(text, err, errcap);
    if (strchr(s, ':')) { /* [[H:]M:]S: the fields whole but the last, M and S under 60 */
        double total = 0;
        int fields = 0;
        for (;;) {
            char *end;
            double v = units_strtod_decimal(s, &end);
            if (end == s || !isfinite(v) || v < 0 || ++fields > 3 || (fields > 1 && v >= 60))
                return duration_fail(text, err, errcap);
            total = total * 60 + v;
            s = end;
            if (*s != ':')
                break;
            if (v != floor(v))
                return duration_fail(text, err, errcap);
            s++;
        }
        if (*skip_space(s) || fields < 2 || total <= 0)
            return duration_fail(text, err, errcap);
        *seconds = total;
        return 0;
    }
    double total = 0;
    int parts = 0;
    while (*(s = skip_space(s))) {
        char *end;
        double v = units_strtod_decimal(s, &end);
        if (end == s || !isfinite(v) || v < 0)
            return duration_fail(text, err, errcap);
        const char *u = end;
        size_t n = 0;
        while (isalpha((unsigned char)u[n]))
            n++;
        double factor = 0;
        if (n == 0) {
            if (parts > 0 || *skip_space(u)) /* a bare number: seconds, alone */
                return duration_fail(text, err, errcap);
            factor = 1.0;
        }
        for (size_t i = 0; n && i < sizeof duration_units / sizeof duration_units[0]; i++)
            if (strlen(duration_units[i].name) == n && strncasecmp(duration_units[i].name, u, n) == 0)
                factor = duration_units[i].factor;
        if (factor == 0)
            return duration_fail(text, err, errcap);
        total += v * factor;
        parts++;
        s = u + n;
    }
    if (total <= 0)
        return duration_fail(text, err, errcap);
    *seconds = total;
    return 0;
}

int units_parse_decimal(const char *text, double *out)
{
    char *end;
    double v = text ? units_strtod_decimal(text, &end) : 0;
    if (!text || end == text || *end)
        return -1;
    *out = v;
    return 0;
}
