/* units.h - the RAM and time units users may choose, and their factors. */
#ifndef GT_UNITS_H
#define GT_UNITS_H

#include <stddef.h>

/* Bytes per unit of a RAM unit name (decimal: 1 kilobyte = 1000 bytes), or
 * 0 when the name is not one of GT_RAM_UNITS. */
double units_ram_divisor(const char *name);

/* Seconds per unit of a time unit name, or 0 when not one of GT_TIME_UNITS. */
double units_time_divisor(const char *name);

/* strtod of a number as a person types it: decimal digits, a point, an
 * exponent; hexadecimal (0x10), "inf" and "nan" are not numbers here
 * (*end == s then, as strtod says for no number). */
double units_strtod_decimal(const char *s, char **end);

/* A number as a person types it (units_strtod_decimal's), the whole of
 * text: 0 and *out, or -1 (text NULL, empty, or more than a number). */
int units_parse_decimal(const char *text, double *out);

/* A size as a person writes it ("500MB", "1.5 GiB", "2e9 bytes"): a
 * number and a unit, decimal (B, kB/KB, MB, GB, TB and the names above) or
 * binary (KiB, MiB, GiB, TiB; K, M, G, T as Slurm and Snakemake mean them).
 * Sets *bytes and returns 0; -1 with the reason in err (one line naming
 * what is valid) for no number, no unit, an unknown unit or a size that is
 * not finite and above 0. */
int units_parse_size(const char *text, double *bytes, char *err, size_t errcap);

/* A duration: seconds as a bare number, a number with a unit (s, m, h, d
 * or the names above, "90s", "1.5h"), units in a row ("1h30m") or a clock
 * ("1:30:00", "30:00"). Sets *seconds and returns 0; -1 with the reason in
 * err. */
int units_parse_duration(const char *text, double *seconds, char *err, size_t errcap);

/* The i-th valid RAM or time unit name (in the order above); NULL past the
 * last: the one list the Python package checks its arguments against too. */
const char *units_ram_name(size_t i);
const char *units_time_name(size_t i);

/* The valid names, for error messages. */
#define GT_RAM_UNITS "bytes, kilobytes, megabytes, gigabytes, terabytes"
#define GT_TIME_UNITS "seconds, minutes, hours, days"

#endif
