/* exact_sum.h - the exact sum of doubles, and their mean correctly rounded:
 * what Python's statistics.mean() gives (it sums exactly with fractions),
 * which resource_tracker's statistics use. A plain running sum loses bits
 * and can land a mean on the other side of a rounding boundary (an exact
 * mean of 1.495 read as 1.4950000000000001 recommends 2 CPUs, not 1).
 *
 * The sum is a fixed-point number wide enough for any finite double (bits
 * from 2^-1074 to 2^1024, plus 64 bits of headroom for the count). Adding
 * costs a few word operations; no allocation. */
#ifndef GT_EXACT_SUM_H
#define GT_EXACT_SUM_H

#include <stdint.h>

#define EXACT_SUM_WORDS 35 /* 2240 bits: 1074 + 1024 + 64 of headroom, and a sign */

struct exact_sum {
    uint64_t w[EXACT_SUM_WORDS]; /* two's complement; bit 0 of w[0] is 2^-1074 */
};

void exact_sum_init(struct exact_sum *s);

/* Adds v, which must be finite. */
void exact_sum_add(struct exact_sum *s, double v);

/* The sum divided by n (n > 0), correctly rounded to the nearest double,
 * ties to even: Python's statistics.mean() of the values added. */
double exact_sum_mean(const struct exact_sum *s, uint64_t n);

#endif
