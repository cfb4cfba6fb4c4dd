/* Counter-based RNG and deterministic math: known answers and accuracy. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "mm_detmath.h"
#include "mm_rng.h"

/* Random123 kat_vectors, "philox4x32 10": counter (4 words), key (2 words), expected (4 words). */
Test(rng, philox4x32_10_known_answers)
{
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        mm_u32x4 c = {{kat[i][0], kat[i][1], kat[i][2], kat[i][3]}};
        mm_u32x4 r = mm_philox4x32_10(c, kat[i][4], kat[i][5]);
        for (int w = 0; w < 4; w++)
            cr_assert_eq(r.v[w], kat[i][6 + w], "vector %d word %d: %08x", i, w, r.v[w]);
    }
}

Test(rng, u01_is_strictly_inside_unit_interval)
{
    cr_assert_gt(mm_u01(0, 0), 0.0);
    cr_assert_lt(mm_u01(0xffffffffu, 0xffffffffu), 1.0);
    double sum = 0;
    for (uint32_t i = 0; i < 100000; i++) {
        mm_u32x4 r = mm_rng4(42, i, 0, 0, 0);
        sum += mm_u01(r.v[0], r.v[1]);
    }
    cr_assert_float_eq(sum / 100000, 0.5, 0.005);
}

Test(rng, prob32_thresholds)
{
    cr_assert_eq(mm_prob32(0), 0);
    cr_assert_eq(mm_prob32(-1), 0);
    cr_assert_eq(mm_prob32(1), (uint64_t)1 << 32);
    cr_assert_eq(mm_prob32(0.5), (uint64_t)1 << 31);
}

static int64_t ulps(double a, double b)
{
    int64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x > y ? x - y : y - x;
}

Test(detmath, log_and_exp_match_libm_within_4_ulp)
{
    for (int i = 0; i < 500000; i++) {
        mm_u32x4 r = mm_rng4(9, (uint32_t)i, 1, 0, 0);
        double x = mm_u01(r.v[0], r.v[1]) * ldexp(1.0, (int)(r.v[2] % 80) - 40);
        cr_assert_leq(ulps(mm_det_log(x), log(x)), 4, "log(%a): %a vs %a", x, mm_det_log(x),
                      log(x));
        double y = (mm_u01(r.v[3], r.v[0]) - 0.5) * 1000.0;
        cr_assert_leq(ulps(mm_det_exp(y), exp(y)), 4, "exp(%a): %a vs %a", y, mm_det_exp(y),
                      exp(y));
    }
    cr_assert_eq(mm_det_log(1.0), 0.0);
    cr_assert_eq(mm_det_exp(0.0), 1.0);
}

/* docs/model.md 1.3's reference values, to the bit: a reimplementation of the steps written there
 * must give these (libm need not: its exp(1) is 0x1.5bf0a8b145769p+1, one ulp below). */
Test(detmath, reference_values_to_the_bit)
{
    static const struct {
        double x, log_x;
    } L[] = {{2.0, 0x1.62e42fefa39efp-1},
             {0.1, -0x1.26bb1bbb55515p+1},
             {1e-300, -0x1.5963447f87fb5p+9},
             {123456.789, 0x1.77281cad8a844p+3}};
    static const struct {
        double x, exp_x;
    } E[] = {{1.0, 0x1.5bf0a8b14576ap+1},
             {-0.5, 0x1.368b2fc6f960ap-1},
             {700.0, 0x1.d945df4f8ec8ep+1009},
             {-700.0, 0x1.14f2b0fb9307fp-1010}};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(ulps(mm_det_log(L[i].x), L[i].log_x), 0, "log(%a) = %a", L[i].x,
                     mm_det_log(L[i].x));
        cr_assert_eq(ulps(mm_det_exp(E[i].x), E[i].exp_x), 0, "exp(%a) = %a", E[i].x,
                     mm_det_exp(E[i].x));
    }
}

Test(detmath, log1p_matches_libm_within_4_ulp_also_for_tiny_x)
{
    /* x = +-u 2^e, e in [-60, 1]: the series for -0.29 < x < 0.41, mm_det_log(1 + x) beyond. */
    for (int i = 0; i < 200000; i++) {
        mm_u32x4 r = mm_rng4(10, (uint32_t)i, 1, 0, 0);
        double x = mm_u01(r.v[0], r.v[1]) * ldexp(1.0, (int)(r.v[2] % 62) - 60);
        if (r.v[3] & 1) x = -x;
        if (x <= -0.75) continue;
        cr_assert_leq(ulps(mm_det_log1p(x), log1p(x)), 4, "log1p(%a): %a vs %a", x, mm_det_log1p(x),
                      log1p(x));
    }
    cr_assert_eq(mm_det_log1p(0.0), 0.0);
}
