/* num.h - the larger and smaller of two doubles, as fmax() and fmin() (a
 * NaN gives way to the other value), inline; and integers as decimal
 * digits without printf (a series row writes about thirty of them). */
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

/* The decimal digits of v written at out (no terminator, at most 20);
 * returns how many. What snprintf("%llu") writes, without its format
 * parsing: the series' rows write about thirty numbers a sample. */
static inline unsigned num_u64_digits(unsigned long long v, char *out)
{
    char rev[20];
    unsigned n = 0;
    do {
        rev[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (unsigned i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

/* The same for a signed v ("-" first when negative; at most 20 chars). */
static inline unsigned num_i64_digits(long long v, char *out)
{
    if (v >= 0)
        return num_u64_digits((unsigned long long)v, out);
    out[0] = '-';
    /* -(v + 1) + 1: LLONG_MIN's magnitude does not fit a long long */
    return 1 + num_u64_digits((unsigned long long)(-(v + 1)) + 1, out + 1);
}

#endif
