/* pyfloat.c - Python-compatible float formatting.
 *
 * gpu_tracker prints round(value, 3) with str(), and its JSON carries repr()
 * of each float; both are the shortest round-tripping digits. We find those
 * digits with "%.*e" at increasing precision (glibc formats exactly), then lay
 * them out with Python's rules (Python/pystrtod.c, format code 'r'). */
#include "util/pyfloat.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "util/hot_path.h"

/* Shortest decimal digits of |v| (no dot, no trailing zeros) and the decimal
 * point position: |v| = 0.DIGITS * 10^decpt.
 *
 * If some decimal of at most 15 significant digits reads back as v, the
 * correctly rounded 15-digit one does too, and it is that decimal padded
 * with zeros (v is within half an ulp, far less than half a unit of the
 * 15th digit); likewise for 16. So 15, 16 and 17 digits are all there is
 * to try: one snprintf for most values, not up to 17 (this runs for every
 * number of every row written). */
static void shortest_digits(double v, char *digits, size_t cap, int *decpt)
{
    char buf[40];
    /* A subnormal has fewer than 53 bits: the argument above does not hold,
     * every length is tried. */
    for (int prec = v < DBL_MIN ? 0 : 14; prec <= 16; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec, v);
        if (prec == 16 || strtod(buf, NULL) == v)
            break;
    }
    /* buf is "D.DDDDe[+-]XX" or "De[+-]XX" */
    char *e = strchr(buf, 'e');
    int exp10 = atoi(e + 1);
    size_t n = 0;
    for (char *p = buf; p < e && n + 1 < cap; p++)
        if (*p >= '0' && *p <= '9')
            digits[n++] = *p;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    *decpt = exp10 + 1;
}

/* sign then body at out, cut to cap bytes with the terminator, as
 * snprintf("%s%s") but without its format parsing. */
GT_HOT static void put(char *out, size_t cap, const char *sign, const char *body)
{
    if (cap == 0)
        return;
    size_t n = 0;
    for (const char *c = sign; *c && n + 1 < cap; c++)
        out[n++] = *c;
    for (const char *c = body; *c && n + 1 < cap; c++)
        out[n++] = *c;
    out[n] = '\0';
}

/* 10^k, each exact in a double (up to 10^22). */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define POW10_EXACT_MAX ((int)(sizeof pow10_exact / sizeof pow10_exact[0]) - 1)

/* The fast paths below take a scaled value y = |v| * 10^k only below 2^50.
 * There the double nearest m / 10^k (m an integer) times 10^k is within
 * 2^-3 of m, and the multiplication adds at most 2^-4: rounding y gives m
 * back. And the spacing of doubles near |v| is under a quarter of 10^-k,
 * so two decimals of k places (10^-k apart) never read back as the same
 * double: the one that does is the only one of its length. */
#define FAST_SCALED_LIMIT 0x1p50

/* a > 0 as the fewest decimal places k that read back as a: its digits m
 * (a = m * 10^-k once read back). 0 when a needs more than 2^50 in m: the
 * exact search (shortest_digits) then.
 *
 * m / 10^k is correctly rounded (both exact, IEEE division), so it is what
 * reading "m e-k" gives; and by the note above no other decimal of k
 * places or fewer reads back as a, and one of more places has at least as
 * many digits: m's digits are the shortest, as Python's repr() finds them.
 * The series' values, rounded to 2-6 places, take a few steps here instead
 * of two or three printf and strtod calls each (5,700 instructions). */
GT_HOT static int short_decimal(double a, unsigned long long *m, int *k)
{
    for (int places = 0; places <= POW10_EXACT_MAX; places++) {
        double y = a * pow10_exact[places];
        if (!(y < FAST_SCALED_LIMIT))
            return 0;
        unsigned long long digits = (unsigned long long)(y + 0.5);
        if ((double)digits / pow10_exact[places] == a) {
            *m = digits;
            *k = places;
            return 1;
        }
    }
    return 0;
}

/* Digits and decimal point of |v| = 0.DIGITS * 10^decpt, as shortest_digits
 * gives them, from short_decimal's m and k. */
GT_HOT static void decimal_digits(unsigned long long m, int k, char *digits, int *decpt)
{
    unsigned n = num_u64_digits(m, digits);
    *decpt = (int)n - k;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
}

/* repr(v); fast: short_decimal before the exact search. */
GT_HOT static void repr_with(double v, char *out, size_t cap, int fast)
{
    if (isnan(v)) {
        put(out, cap, "", "nan");
        return;
    }
    const char *sign = signbit(v) ? "-" : "";
    if (isinf(v)) {
        put(out, cap, sign, "inf");
        return;
    }
    /* Zero, the most common value of all (an idle process's CPU, no GPU),
     * also without printf. */
    if (v == 0.0) {
        put(out, cap, sign, "0.0");
        return;
    }
    /* A whole number below 1e16 (the series' counts, sizes and zeros) is
     * its digits and ".0" in Python: no search for the shortest digits,
     * nor printf's float formatting (exact: it fits an integer). */
    if (fabs(v) < 1e16 && v == trunc(v)) {
        char whole[24];
        unsigned n = num_i64_digits((long long)v, whole);
        whole[n++] = '.';
        whole[n++] = '0';
        whole[n] = '\0';
        put(out, cap, "", whole);
        return;
    }
    char digits[24];
    int decpt;
    unsigned long long m;
    int k;
    if (fast && short_decimal(fabs(v), &m, &k))
        decimal_digits(m, k, digits, &decpt);
    else
        shortest_digits(fabs(v), digits, sizeof digits, &decpt);
    int nd = (int)strlen(digits);

    if (decpt > -4 && decpt <= 16) {
        /* Fixed notation: leading "0.000", the digits with the dot placed
         * inside them, or the digits padded with zeros and ".0". */
        char fixed[48];
        size_t n = 0;
        if (decpt <= 0) {
            fixed[n++] = '0';
            fixed[n++] = '.';
            for (int i = 0; i < -decpt; i++)
                fixed[n++] = '0';
            memcpy(fixed + n, digits, (size_t)nd);
            n += (size_t)nd;
        } else if (decpt >= nd) {
            memcpy(fixed + n, digits, (size_t)nd);
            n += (size_t)nd;
            for (int i = 0; i < decpt - nd; i++)
                fixed[n++] = '0';
            fixed[n++] = '.';
            fixed[n++] = '0';
        } else {
            memcpy(fixed + n, digits, (size_t)decpt);
            n += (size_t)decpt;
            fixed[n++] = '.';
            memcpy(fixed + n, digits + decpt, (size_t)(nd - decpt));
            n += (size_t)(nd - decpt);
        }
        fixed[n] = '\0';
        put(out, cap, sign, fixed);
        return;
    }
    int exp10 = decpt - 1;
    if (nd == 1)
        snprintf(out, cap, "%s%se%c%02d", sign, digits, exp10 < 0 ? '-' : '+', abs(exp10));
    else
        snprintf(out, cap, "%s%c.%se%c%02d", sign, digits[0], digits + 1,
                 exp10 < 0 ? '-' : '+', abs(exp10));
}

GT_HOT void pyfloat_repr(double v, char *out, size_t cap)
{
    repr_with(v, out, cap, 1);
}

void pyfloat_repr_exact(double v, char *out, size_t cap)
{
    repr_with(v, out, cap, 0);
}

/* round(v, ndigits) without printf where one multiplication tells. Below
 * 2^50 every integer and every integer and a half is a double, and
 * rounding is monotonic: y = |v| * 10^ndigits lies on the same side of each
 * as the exact product, or on it. So y rounds to the same integer m as the
 * exact product does unless y is an integer and a half itself (the
 * product may be just either side: a tie, or not); and m / 10^ndigits
 * (both exact, one correctly rounded division) is the double nearest that
 * decimal, as reading it back gives. 0 when it cannot tell (y a half, or
 * 2^50 or more): the exact way then. */
GT_HOT static int round_fast(double v, int ndigits, double *out)
{
    if (ndigits < 0 || ndigits > POW10_EXACT_MAX)
        return 0;
    double y = fabs(v) * pow10_exact[ndigits];
    if (!(y < FAST_SCALED_LIMIT))
        return 0;
    double whole = (double)(unsigned long long)y; /* floor: y >= 0 */
    double fraction = y - whole;                  /* exact */
    if (fraction == 0.5)
        return 0;
    double m = fraction > 0.5 ? whole + 1 : whole;
    *out = copysign(m / pow10_exact[ndigits], v);
    return 1;
}

GT_HOT double pyfloat_round(double v, int ndigits)
{
    /* A whole number is its own rounding (ndigits >= 0): most of a
     * series' values each sample (zero CPU of an idle process, no GPU). */
    if (!isfinite(v) || (ndigits >= 0 && v == trunc(v)))
        return v;
    double fast;
    if (round_fast(v, ndigits, &fast))
        return fast;
    return pyfloat_round_exact(v, ndigits);
}

double pyfloat_round_exact(double v, int ndigits)
{
    if (!isfinite(v))
        return v;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", ndigits, v);
    return strtod(buf, NULL);
}

double pyfloat_round3(double v)
{
    return pyfloat_round(v, 3);
}
