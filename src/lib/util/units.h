/* units.h - the RAM and time units users may choose, and their factors. */
#ifndef GT_UNITS_H
#define GT_UNITS_H

/* Bytes per unit of a RAM unit name (decimal: 1 kilobyte = 1000 bytes), or
 * 0 when the name is not one of GT_RAM_UNITS. */
double units_ram_divisor(const char *name);

/* Seconds per unit of a time unit name, or 0 when not one of GT_TIME_UNITS. */
double units_time_divisor(const char *name);

/* The valid names, for error messages. */
#define GT_RAM_UNITS "bytes, kilobytes, megabytes, gigabytes, terabytes"
#define GT_TIME_UNITS "seconds, minutes, hours, days"

#endif
