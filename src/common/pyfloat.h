/* pyfloat.h - numbers printed the way Python prints them. */
#ifndef GT_PYFLOAT_H
#define GT_PYFLOAT_H

#include <stddef.h>

/* Writes repr(v) as Python 3 does: the shortest digits that read back as v,
 * fixed notation when the decimal exponent is in [-4, 16), else exponent
 * notation ("1e+16"); always a '.' or 'e' so that it reads as a float
 * ("5.0"). Non-finite values give "nan", "inf", "-inf". out needs 32 bytes. */
void pyfloat_repr(double v, char *out, size_t cap);

/* Python's round(v, ndigits) for 0 <= ndigits <= 17: the double nearest the
 * correctly rounded decimal (glibc's printf rounds the exact binary value
 * half-to-even, as Python does). */
double pyfloat_round(double v, int ndigits);

/* Python's round(v, 3): the double nearest the correctly rounded decimal. */
double pyfloat_round3(double v);

/* The double pandas' CSV reader gives for the decimal text: its default
 * converter (precise_xstrtod) sums the first 17 significant digits in a
 * double and scales by a power of ten, which can miss the nearest double by
 * an ulp (1745449613.5325919 reads as 1745449613.532592). exact (the text's
 * strtod) where the text is not a plain decimal pandas reads so. For
 * figures that must match what gpu_tracker computed from a CSV file. */
double pyfloat_pandas_read(const char *text, double exact);

#endif
