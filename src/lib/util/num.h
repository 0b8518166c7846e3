/* num.h - the larger and smaller of two doubles, as fmax() and fmin() (a
 * NaN gives way to the other value), without a call into libm: a program
 * of ours that calls no libm function is linked without it (--as-needed),
 * and mapping libm cost every run 388 KiB of RSS and its IFUNC resolution
 * at start (docs/performance.md, "Start-up"). */
#ifndef GT_NUM_H
#define GT_NUM_H

static inline double max_d(double a, double b)
{
    return a > b || b != b ? a : b;
}

static inline double min_d(double a, double b)
{
    return a < b || b != b ? a : b;
}

#endif
