/* pyfloat.c - Python-compatible float formatting.
 *
 * gpu_tracker prints round(value, 3) with str(), and its JSON carries repr()
 * of each float; both are the shortest round-tripping digits. We find those
 * digits with "%.*e" at increasing precision (glibc formats exactly), then lay
 * them out with Python's rules (Python/pystrtod.c, format code 'r'). */
#include "common/pyfloat.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/num.h"

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
static void put(char *out, size_t cap, const char *sign, const char *body)
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

void pyfloat_repr(double v, char *out, size_t cap)
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

double pyfloat_round(double v, int ndigits)
{
    /* A whole number is its own rounding (ndigits >= 0): most of a
     * series' values each sample (zero CPU of an idle process, no GPU). */
    if (!isfinite(v) || (ndigits >= 0 && v == trunc(v)))
        return v;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", ndigits, v);
    return strtod(buf, NULL);
}

double pyfloat_round3(double v)
{
    return pyfloat_round(v, 3);
}

double pyfloat_pandas_read(const char *text, double exact)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    int negative = *p == '-';
    p += negative || *p == '+';
    double number = 0;
    int exponent = 0, digits = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (digits < 17) {
            number = number * 10. + (*p - '0');
            digits++;
        } else {
            exponent++;
        }
    }
    if (*p == '.') {
        int decimals = 0;
        for (p++; digits < 17 && *p >= '0' && *p <= '9'; p++, digits++, decimals++)
            number = number * 10. + (*p - '0');
        while (*p >= '0' && *p <= '9')
            p++;
        exponent -= decimals;
    }
    if (digits == 0)
        return exact;
    if (*p == 'e' || *p == 'E') {
        char *end;
        long e = strtol(p + 1, &end, 10);
        if (end == p + 1 || e < -400 || e > 400)
            return exact;
        exponent += (int)e;
        p = end;
    }
    while (*p == ' ')
        p++;
    if (*p || exponent < -308 || exponent > 308)
        return exact; /* not its plain decimal, or its subnormal and overflow paths */
    if (negative)
        number = -number;
    /* its table of powers holds the literals 1e0 .. 1e308: the nearest doubles */
    char power[8];
    snprintf(power, sizeof power, "1e%d", exponent < 0 ? -exponent : exponent);
    double scale = strtod(power, NULL);
    return exponent < 0 ? number / scale : number * scale;
}
