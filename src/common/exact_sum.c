/* exact_sum.c - exact sums and correctly rounded means (see exact_sum.h). */
#include "common/exact_sum.h"

#include <math.h>
#include <string.h>

#define W EXACT_SUM_WORDS

void exact_sum_init(struct exact_sum *s)
{
    memset(s, 0, sizeof *s);
}

/* Adds (or, negative, subtracts) the integer m << shift, shift in bits. */
static void add_shifted(struct exact_sum *s, uint64_t m, unsigned shift, int negative)
{
    unsigned word = shift / 64, bit = shift % 64;
    unsigned __int128 wide = (unsigned __int128)m << bit;
    uint64_t part[2] = {(uint64_t)wide, (uint64_t)(wide >> 64)};
    if (!negative) {
        unsigned __int128 carry = 0;
        for (unsigned i = word; i < W && (i < word + 2 || carry); i++) {
            unsigned __int128 t = (unsigned __int128)s->w[i] + (i < word + 2 ? part[i - word] : 0) +
                                  carry;
            s->w[i] = (uint64_t)t;
            carry = t >> 64;
        }
    } else {
        uint64_t borrow = 0;
        for (unsigned i = word; i < W && (i < word + 2 || borrow); i++) {
            uint64_t sub = i < word + 2 ? part[i - word] : 0;
            uint64_t before = s->w[i];
            uint64_t after = before - sub - borrow;
            borrow = (before < sub) || (before - sub < borrow);
            s->w[i] = after;
        }
    }
}

void exact_sum_add(struct exact_sum *s, double v)
{
    if (v == 0 || !isfinite(v))
        return;
    int e;
    double f = frexp(fabs(v), &e); /* |v| = f * 2^e, 0.5 <= f < 1 */
    /* As an integer of 53 bits times 2^(e - 53). */
    uint64_t m = (uint64_t)ldexp(f, 53);
    int shift = e - 53 + 1074;
    if (shift < 0) { /* subnormal: f's low bits are zeros */
        m >>= -shift;
        shift = 0;
    }
    add_shifted(s, m, (unsigned)shift, v < 0);
}

/* The highest set bit of q (W words), or -1 when q is 0. */
static int top_bit(const uint64_t *q)
{
    for (int i = W - 1; i >= 0; i--)
        if (q[i])
            return i * 64 + 63 - __builtin_clzll(q[i]);
    return -1;
}

static int bit_at(const uint64_t *q, int b)
{
    return b >= 0 && (q[b / 64] >> (b % 64) & 1);
}

/* 1 when any bit of q below b is set. */
static int any_below(const uint64_t *q, int b)
{
    for (int i = 0; i < W && i * 64 < b; i++) {
        uint64_t mask = (i + 1) * 64 <= b ? ~0ULL : (1ULL << (b - i * 64)) - 1;
        if (q[i] & mask)
            return 1;
    }
    return 0;
}

double exact_sum_mean(const struct exact_sum *s, uint64_t n)
{
    if (n == 0)
        return NAN;
    uint64_t q[W];
    memcpy(q, s->w, sizeof q);
    int negative = (q[W - 1] >> 63) != 0;
    if (negative) { /* magnitude: two's complement negation */
        unsigned carry = 1;
        for (int i = 0; i < W; i++) {
            q[i] = ~q[i] + carry;
            carry = carry && q[i] == 0;
        }
    }
    /* q / n by long division, from the top word down. */
    unsigned __int128 rem = 0;
    for (int i = W - 1; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | q[i];
        q[i] = (uint64_t)(cur / n);
        rem = cur % n;
    }
    /* The mean is (q + rem / n) * 2^-1074: round it to 53 bits. */
    int top = top_bit(q);
    uint64_t mant;
    int exp, up;
    if (top < 53) {
        /* Fewer than 54 bits: the unit 2^-1074 is kept whole (such a value
         * is a double exactly), and rem / n is what is rounded away. */
        mant = q[0];
        exp = -1074;
        unsigned __int128 twice = 2 * rem;
        up = twice > n || (twice == n && (mant & 1));
    } else {
        int low = top - 52; /* the lowest bit kept */
        mant = 0;
        for (int b = top; b >= low; b--)
            mant = mant << 1 | (uint64_t)bit_at(q, b);
        exp = low - 1074;
        int half = bit_at(q, low - 1), more = any_below(q, low - 1) || rem != 0;
        up = half && (more || (mant & 1));
    }
    if (up)
        mant++; /* ties to even; 2^53 after this is still exact */
    double mean = ldexp((double)mant, exp);
    return negative ? -mean : mean;
}
