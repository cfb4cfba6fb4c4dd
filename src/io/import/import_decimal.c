/* Exact decimal strings -> integer ticks and lots. A price "61800.20" with tick "0.1" is 618002
 * ticks because 6180020 * 10^-2 / (1 * 10^-1) divides exactly in integers; no double is ever
 * involved, so there are no rounding surprises ("0.3" / "0.1" is 3, not 2.9999999999999996). */
#include <limits.h>
#include <string.h>

#include "import_internal.h"

static const int64_t POW10[19] = {1,
                                  10,
                                  100,
                                  1000,
                                  10000,
                                  100000,
                                  1000000,
                                  10000000,
                                  100000000,
                                  1000000000,
                                  10000000000,
                                  100000000000,
                                  1000000000000,
                                  10000000000000,
                                  100000000000000,
                                  1000000000000000,
                                  10000000000000000,
                                  100000000000000000,
                                  1000000000000000000};

int mm__parse_i64(const char *s, size_t n, int64_t *out)
{
    if (n == 0 || n > 19) return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i] - '0';
        if (c > 9) return -1;
        v = v * 10 + c;
    }
    if (v > (uint64_t)INT64_MAX) return -1;
    *out = (int64_t)v;
    return 0;
}

int mm__dec_parse(const char *s, size_t n, mm__dec *d)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    size_t int_start = i;
    uint64_t m = 0;
    int sig = 0, exp = 0;
    for (; i < n && (unsigned char)(s[i] - '0') <= 9; i++) {
        if (m == 0 && s[i] == '0') continue; /* leading zeros are not significant */
        if (++sig > 19) return -2;
        m = m * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == int_start) return -1;
    if (i < n && s[i] == '.') {
        size_t f = ++i;
        for (; i < n && (unsigned char)(s[i] - '0') <= 9; i++) {
            exp++;
            if (m == 0 && s[i] == '0') continue;
            if (++sig > 19) return -2;
            m = m * 10 + (uint64_t)(s[i] - '0');
        }
        if (i == f) return -1;
        if (exp > 18) return -2;
    }
    if (i != n) return -1;
    /* Drop trailing fraction zeros so that exponents stay small. */
    while (exp > 0 && m % 10 == 0 && m) {
        m /= 10;
        exp--;
    }
    if (m == 0) exp = 0;
    if (m > (uint64_t)INT64_MAX) return -2;
    d->mant = neg ? -(int64_t)m : (int64_t)m;
    d->exp = exp;
    return 0;
}

int mm__dec_unit(const char *s, mm__dec *unit)
{
    if (!s || mm__dec_parse(s, strlen(s), unit) || unit->mant <= 0) return -1;
    return 0;
}

int mm__dec_to_units(const char *s, size_t n, const mm__dec *unit, int64_t *out)
{
    mm__dec v;
    int rc = mm__dec_parse(s, n, &v);
    if (rc == -2) return -3;
    if (rc) return -1;
    /* v / unit = (v.mant * 10^(e - v.exp)) / (unit.mant * 10^(e - unit.exp)), e = max of the
     * exponents. */
    int e = v.exp > unit->exp ? v.exp : unit->exp;
    int64_t num, den;
    if (e - v.exp > 18 || e - unit->exp > 18) return -3;
    if (__builtin_mul_overflow(v.mant, POW10[e - v.exp], &num)) return -3;
    if (__builtin_mul_overflow(unit->mant, POW10[e - unit->exp], &den)) return -3;
    if (num % den) return -2;
    *out = num / den;
    return 0;
}

double mm__dec_double(const mm__dec *unit)
{
    /* Correctly rounded for mant < 2^53 and exp <= 22 (both exact doubles, one IEEE division). */
    return (double)unit->mant / (double)POW10[unit->exp > 18 ? 18 : unit->exp];
}
