/* mm_det_exp, mm_det_log, mm_det_log1p and their array variants (mm_detmath_n.h) give the bits
 * they gave when fixtures/detmath_table.h was made (commit 2332994; golden hashes and docs/model.md
 * 1.3 depend on them), and agree with a frozen copy of that commit's text on millions of draws. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../fixtures/detmath_table.h"
#include "mm_accel.h"
#include "mm_detmath.h"
#include "mm_detmath_n.h"
#include "mm_draw.h"
#include "mm_rng.h"
#include <math.h>

static double dbl(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* The text of mm_det_exp and mm_det_log at commit 2332994, frozen here: the reference the table
 * was made with, which no later change of src/core/mm_detmath.h touches. */
static double frozen_exp_c(double x)
{
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double t = x * 1.4426950408889634;
    int n = (int)(t < 0 ? t - 0.5 : t + 0.5);
    double r = (x - (double)n * ln2_hi) - (double)n * ln2_lo;
    double sum = 1.0;
    for (int k = 14; k >= 1; k--)
        sum = 1.0 + sum * r / (double)k;
    uint64_t b = (uint64_t)(n + 1023) << 52;
    double scale;
    memcpy(&scale, &b, sizeof scale);
    return sum * scale;
}

static double frozen_log_c(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int e = (int)((b >> 52) & 0x7FF) - 1023;
    b = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
    double m;
    memcpy(&m, &b, sizeof m);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e += 1;
    }
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double sum = 1.0 / 23.0;
    for (int k = 21; k >= 1; k -= 2)
        sum = sum * s2 + 1.0 / (double)k;
    double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    return (double)e * ln2_hi + (2.0 * s * sum + (double)e * ln2_lo);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

Test(detmath, scalar_functions_give_the_tables_bits)
{
    for (size_t i = 0; i < COUNT(detmath_exp); i++) {
        double x = dbl(detmath_exp[i][0]);
        cr_assert_eq(bits(mm_det_exp(x)), detmath_exp[i][1], "exp(%a) = %a, the table has %a", x,
                     mm_det_exp(x), dbl(detmath_exp[i][1]));
        cr_assert_eq(bits(frozen_exp_c(x)), detmath_exp[i][1], "frozen exp(%a)", x);
    }
    for (size_t i = 0; i < COUNT(detmath_log); i++) {
        double x = dbl(detmath_log[i][0]);
        cr_assert_eq(bits(mm_det_log(x)), detmath_log[i][1], "log(%a) = %a, the table has %a", x,
                     mm_det_log(x), dbl(detmath_log[i][1]));
        cr_assert_eq(bits(frozen_log_c(x)), detmath_log[i][1], "frozen log(%a)", x);
    }
    for (size_t i = 0; i < COUNT(detmath_log1p); i++) {
        double x = dbl(detmath_log1p[i][0]);
        cr_assert_eq(bits(mm_det_log1p(x)), detmath_log1p[i][1], "log1p(%a) = %a, the table has %a",
                     x, mm_det_log1p(x), dbl(detmath_log1p[i][1]));
    }
    cr_assert_geq(COUNT(detmath_exp), 2000);
    cr_assert_geq(COUNT(detmath_log), 2000);
}

/* Every instruction set this CPU has, against the table. */
Test(detmath, array_variants_give_the_tables_bits_on_every_instruction_set)
{
    enum { NE = COUNT(detmath_exp), NL = COUNT(detmath_log) };
    static double x[NE > NL ? NE : NL], y[NE > NL ? NE : NL];
    int ran = 0;
    for (int isa = 0; isa < MM_ISA_COUNT; isa++) {
        if (!mm__batch_isa_supported(isa)) {
            cr_assert_eq(mm__det_exp_n_isa(isa, x, y, 1), -ENODEV);
            continue;
        }
        ran++;
        /* Every length up to 19 first, so each vector loop's remainder runs, then the whole table.
         */
        for (size_t len = 1; len <= NE; len = len < 19 ? len + 1 : NE) {
            for (size_t i = 0; i < len; i++)
                x[i] = dbl(detmath_exp[i][0]);
            cr_assert_eq(mm__det_exp_n_isa(isa, x, y, len), 0);
            for (size_t i = 0; i < len; i++)
                cr_assert_eq(bits(y[i]), detmath_exp[i][1], "%s exp(%a) = %a, the table has %a",
                             mm__batch_isa_name(isa), x[i], y[i], dbl(detmath_exp[i][1]));
            if (len == NE) break;
        }
        for (size_t i = 0; i < NL; i++)
            x[i] = dbl(detmath_log[i][0]);
        cr_assert_eq(mm__det_log_n_isa(isa, x, x, NL), 0); /* in place */
        for (size_t i = 0; i < NL; i++)
            cr_assert_eq(bits(x[i]), detmath_log[i][1], "%s log(%a) = %a, the table has %a",
                         mm__batch_isa_name(isa), dbl(detmath_log[i][0]), x[i],
                         dbl(detmath_log[i][1]));
    }
    cr_assert_geq(ran, 1);
    cr_assert_eq(mm__det_exp_n_isa(MM_ISA_COUNT, x, y, 1), -ENODEV);
    cr_assert_eq(mm__det_log_n_isa(-1, x, y, 1), -ENODEV);
}

/* 4 M draws per function over the whole domain, uniform and log-uniform (exp) or log-uniform over
 * every binade (log): the functions and every array variant equal the frozen reference. */
Test(detmath, everything_equals_the_frozen_reference_on_millions_of_draws)
{
    enum { B = 4096, ROUNDS = 1000 };
    static double xe[B], xl[B], ye[B], yl[B];
    for (uint32_t round = 0; round < ROUNDS; round++) {
        for (uint32_t i = 0; i < B; i++) {
            mm_u32x4 r = mm_rng4(34, round, i, 0, 0);
            double u = mm_u01(r.v[0], r.v[1]);
            xe[i] = (i & 1) ? (u - 0.5) * 1400.0
                            : (r.v[3] & 1 ? -1 : 1) * u * ldexp(1.0, -(int)(r.v[2] % 64));
            mm_u32x4 s = mm_rng4(35, round, i, 0, 0);
            xl[i] = ldexp(1.0 + mm_u01(s.v[0], s.v[1]), (int)(s.v[2] % 2046) - 1022);
        }
        for (int isa = 0; isa < MM_ISA_COUNT; isa++) {
            if (!mm__batch_isa_supported(isa)) continue;
            mm__det_exp_n_isa(isa, xe, ye, B);
            mm__det_log_n_isa(isa, xl, yl, B);
            for (uint32_t i = 0; i < B; i++) {
                double re = frozen_exp_c(xe[i]), rl = frozen_log_c(xl[i]);
                if (isa == 0) {
                    cr_assert_eq(bits(mm_det_exp(xe[i])), bits(re), "exp(%a)", xe[i]);
                    cr_assert_eq(bits(mm_det_log(xl[i])), bits(rl), "log(%a)", xl[i]);
                }
                cr_assert_eq(bits(ye[i]), bits(re), "%s exp(%a): %a vs %a", mm__batch_isa_name(isa),
                             xe[i], ye[i], re);
                cr_assert_eq(bits(yl[i]), bits(rl), "%s log(%a): %a vs %a", mm__batch_isa_name(isa),
                             xl[i], yl[i], rl);
            }
        }
    }
}

/* The lognormal latency of docs/model.md 3.3 as written there: min(floor(base x mm_det_exp(v)),
 * the cap), the frozen exp. */
static int64_t lat_lognormal_ref(int64_t base, double v)
{
    double x = (double)base * frozen_exp_c(v);
    if (!(x < (double)MM_SIM_LATENCY_MAX_NS)) return MM_SIM_LATENCY_MAX_NS;
    return (int64_t)x;
}

/* Whether mm__lat_lognormal's quick test decides (its interval holds no integer and not the cap).
 */
static int quick_decides(int64_t base, double v)
{
    double y = (double)base * mm__exp_quick(v), cap = (double)MM_SIM_LATENCY_MAX_NS;
    double lo = y * (1.0 - 0x1p-40), hi = y * (1.0 + 0x1p-40);
    return lo >= cap || (hi < cap && (int64_t)lo == (int64_t)hi);
}

/* mm__exp_quick, the division-free exp behind the lognormal draw, is within 2^-49 of the model's
 * mm_det_exp (relative) over its whole domain: the bound mm__lat_lognormal's proof needs (2^-47
 * with the roundings), 128x inside its 2^-40 interval. */
Test(detmath, quick_exp_is_within_2_pow_minus_49_of_det_exp)
{
    double worst = 0;
    for (uint32_t i = 0; i < 4000000; i++) {
        mm_u32x4 r = mm_rng4(36, i, 0, 0, 0);
        double u = mm_u01(r.v[0], r.v[1]);
        double x = (i & 1) ? (u - 0.5) * 1400.0 : (u - 0.5) * 90.0;
        double q = mm__exp_quick(x), e = frozen_exp_c(x);
        double rel = fabs(q - e) / e;
        if (rel > worst) worst = rel;
        cr_assert_leq(rel, 0x1p-49, "exp(%a): quick %a, det %a", x, q, e);
    }
    cr_assert_gt(worst, 0.0, "the quick exp never differed: the test would not see a difference");
}

/* The draw equals the model's formula on millions of (base, sigma z) pairs, and on pairs made to
 * land within a few ulp of a whole number of ns and of the cap, where mm_det_exp decides (checked
 * to happen). */
Test(detmath, lognormal_latency_equals_the_formula_also_next_to_whole_ns)
{
    for (uint32_t i = 0; i < 2000000; i++) {
        mm_u32x4 r = mm_rng4(37, i, 0, 0, 0);
        int64_t base = (int64_t)ldexp(1.0, (int)(r.v[2] % 42)) + (int64_t)(r.v[3] % 1000);
        double sigma = 5.0 * mm_u01(r.v[1], r.v[3]);
        double v = sigma * mm__norm_inv(mm_u01(r.v[0], r.v[1]));
        cr_assert_eq(mm__lat_lognormal(base, v), lat_lognormal_ref(base, v), "base %lld v %a",
                     (long long)base, v);
    }
    int64_t slow = 0;
    for (uint32_t i = 0; i < 200000; i++) {
        mm_u32x4 r = mm_rng4(38, i, 0, 0, 0);
        int64_t base = 1 + (int64_t)(r.v[0] % 1000000);
        /* a target a whole number of ns (or the cap): v = ln(target / base), then a few ulp either
         * way, so that base x exp(v) falls just below, on or just above it */
        double target = (i % 16 == 0) ? (double)MM_SIM_LATENCY_MAX_NS
                                      : (double)(1 + (int64_t)(r.v[1] % 100000000));
        double v = log(target / (double)base);
        if (!(v > -44.0 && v < 44.0)) continue;
        uint64_t b = bits(v);
        int k = (int)(r.v[2] % 9) - 4;
        double w = v == 0 ? v : dbl((uint64_t)((int64_t)b + k));
        slow += !quick_decides(base, w);
        cr_assert_eq(mm__lat_lognormal(base, w), lat_lognormal_ref(base, w), "base %lld v %a",
                     (long long)base, w);
    }
    cr_assert_gt(slow, 100000, "only %lld of the near-integer draws took the exact path",
                 (long long)slow);
}
