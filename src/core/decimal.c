/* Numbers as a person writes them (docs/sweep.md, "Ranges"): a grid range a:b:step is computed in
 * decimal from its text and converted to binary once per value, so 0.1:0.3:0.1 gives 0.1, 0.2 and
 * 0.3, not 0.30000000000000004 (0.1 + 2 x 0.1 in binary); and a double prints as the shortest text
 * that reads back to the same double. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mm_internal.h"

/* At most 18 significant digits: 10^18 - 1 fits an int64 with room for one more digit. */
enum { DEC_DIGITS_MAX = 18, DEC_EXP_MAX = 100000 };

/* s (a strict decimal, mm__is_decimal(s, 0)) as exactly m x 10^e. 0, or -1 when s has more than
 * DEC_DIGITS_MAX significant digits or an exponent beyond +-DEC_EXP_MAX. Zero is m = 0, e = 0. */
static int dec_parse(const char *s, int64_t *m, int32_t *e)
{
    int neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    int64_t v = 0;
    int32_t nd = 0, ex = 0, zeros = 0; /* digits taken; exponent; trailing zeros held back */
    for (int frac = 0;; s++) {
        if (*s == '.') {
            frac = 1;
            continue;
        }
        if (*s < '0' || *s > '9') break;
        if (frac) ex--;
        if (*s == '0') {     /* a leading zero is nothing; a later one is held back, since a */
            zeros += nd > 0; /* trailing zero of the mantissa is only a larger exponent */
            continue;
        }
        for (; zeros > 0; zeros--, nd++)
            v *= 10;
        v = v * 10 + (*s - '0');
        nd++;
        if (nd > DEC_DIGITS_MAX) return -1;
    }
    ex += zeros; /* the held-back zeros: m stays short, e grows */
    if (*s == 'e' || *s == 'E') {
        s++;
        int eneg = *s == '-';
        if (*s == '+' || *s == '-') s++;
        long x = 0;
        for (; *s >= '0' && *s <= '9'; s++)
            if ((x = x * 10 + (*s - '0')) > DEC_EXP_MAX) return -1;
        ex += (int32_t)(eneg ? -x : x);
    }
    if (ex > DEC_EXP_MAX || ex < -DEC_EXP_MAX) return -1;
    *m = neg ? -v : v;
    *e = v ? ex : 0;
    return 0;
}

/* m x 10^d into *out, d >= 0: 0, or -1 on overflow. */
static int dec_scale(int64_t m, int32_t d, int64_t *out)
{
    for (; d > 0 && m != 0; d--)
        if (__builtin_mul_overflow(m, 10, &m)) return -1;
    *out = m;
    return 0;
}

int mm__decimal_range_init(const char *lo, const char *step, mm__decimal_range *r)
{
    int64_t ml, ms;
    int32_t el, es;
    if (dec_parse(lo, &ml, &el) || dec_parse(step, &ms, &es)) return -1;
    /* The common exponent: the smaller of the two (a zero bound has none of its own). */
    int32_t e = ml == 0 ? es : es < el ? es : el;
    if (dec_scale(ml, ml ? el - e : 0, &r->lo) || dec_scale(ms, es - e, &r->step)) return -1;
    r->e = e;
    return 0;
}

int mm__decimal_range_value(const mm__decimal_range *r, int64_t k, double *v)
{
    int64_t m;
    if (__builtin_mul_overflow(k, r->step, &m) || __builtin_add_overflow(m, r->lo, &m)) return -1;
    char t[48];
    snprintf(t, sizeof t, "%" PRId64 "e%" PRId32, m, r->e);
    *v = strtod(t, NULL); /* correctly rounded (glibc): the double nearest the decimal */
    return 0;
}

const char *mm__fmt_shortest(double v, char *buf, size_t cap)
{
    /* An integer below 2^53 prints as one (60, not 6e+01). */
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        snprintf(buf, cap, "%.0f", v); /* -0 stays "-0": it reads back as -0 */
        return buf;
    }
    /* If some text of at most 15 significant digits reads back as v, "%.15g" prints it (v is
     * within half an ulp of it, and %g drops the trailing zeros); likewise 16. So three tries find
     * the shortest. */
    for (int p = 15; p <= 17; p++) {
        snprintf(buf, cap, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return buf;
    }
    snprintf(buf, cap, "%.17g", v); /* NaN: no form reads back equal */
    return buf;
}
