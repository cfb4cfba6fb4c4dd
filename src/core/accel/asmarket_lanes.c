/* mm__as_path_lanes (mm_asmarket_lanes.h): the model market's path with its draws computed 64
 * steps at a time. The draw loop is compiled three times (baseline, AVX2, AVX-512); the compiler
 * runs its Philox4x32-10 rounds for several steps in the lanes of one vector. */
#include "mm_asmarket_lanes.h"

#include <errno.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_detmath_lanes.h"
#include "mm_rng.h"

enum { MM_AS_DRAW_BLOCK = 64 };

/* mm_u01(hi, lo) with the conversion of k (< 2^52) to double done by the bits: 2^52 + k has the
 * pattern 0x4330000000000000 | k, and subtracting 2^52 gives k exactly, as (double)k does; then
 * the same + 0.5 and product as mm_u01. So the same bits, and the loop vectorises without AVX-512's
 * 64-bit integer conversions. */
static inline double u01_lanes(uint32_t hi, uint32_t lo)
{
    uint64_t k = ((uint64_t)hi << 20) | (lo >> 12);
    uint64_t b = k | 0x4330000000000000ull;
    double v;
    memcpy(&v, &b, sizeof v);
    v -= 4503599627370496.0;
    return (v + 0.5) * (1.0 / 4503599627370496.0);
}

/* Steps i0 .. i0 + n - 1 of the stream `key`: ub, ua from mm_stream4(key, MM_RNG_AS_FILL, i, 0)
 * words 0,1 and 2,3; um from mm_stream4(key, MM_RNG_AS_MID, i, 0) words 0,1 (mm_as_step_c's);
 * lb, la: mm_det_log of ub and ua (mm__det_log_lane, the same bits), for mm__as_fills_fast. */
#define MM_AS_DRAWS_BODY                                                                           \
    {                                                                                              \
        for (int j = 0; j < n; j++) {                                                              \
            uint64_t a = (uint64_t)i0 + (uint64_t)j;                                               \
            mm_u32x4 f = mm_stream4(key, MM_RNG_AS_FILL, a, 0);                                    \
            mm_u32x4 g = mm_stream4(key, MM_RNG_AS_MID, a, 0);                                     \
            ub[j] = u01_lanes(f.v[0], f.v[1]);                                                     \
            ua[j] = u01_lanes(f.v[2], f.v[3]);                                                     \
            um[j] = u01_lanes(g.v[0], g.v[1]);                                                     \
            lb[j] = mm__det_log_lane(ub[j]);                                                       \
            la[j] = mm__det_log_lane(ua[j]);                                                       \
        }                                                                                          \
    }

/* A whole path: the draws of each block of 64 steps, then its steps (mm__as_step_uf, fast). Each
 * instruction set's copy compiles the steps too (scalar code; AVX-512's 32 registers spill less).
 */
#define MM_AS_PATH_BODY(draws)                                                                     \
    {                                                                                              \
        double ub[MM_AS_DRAW_BLOCK], ua[MM_AS_DRAW_BLOCK], um[MM_AS_DRAW_BLOCK];                   \
        double lb[MM_AS_DRAW_BLOCK], la[MM_AS_DRAW_BLOCK];                                         \
        mm__as_state st;                                                                           \
        mm__as_state_init(d, &st);                                                                 \
        for (int64_t i0 = 0; i0 < d->n_steps; i0 += MM_AS_DRAW_BLOCK) {                            \
            int n =                                                                                \
                d->n_steps - i0 < MM_AS_DRAW_BLOCK ? (int)(d->n_steps - i0) : MM_AS_DRAW_BLOCK;    \
            draws(key, i0, n, ub, ua, um, lb, la);                                                 \
            for (int j = 0; j < n; j++)                                                            \
                mm__as_step_uf(d, &st, i0 + j, ub[j], ua[j], um[j], lb[j], la[j], 1);              \
        }                                                                                          \
        mm__as_path_result_of(d, &st, out);                                                        \
    }

#define MM_AS_DRAWS_ARGS                                                                           \
    uint64_t key, int64_t i0, int n, double *restrict ub, double *restrict ua,                     \
        double *restrict um, double *restrict lb, double *restrict la

static void draws_scalar(MM_AS_DRAWS_ARGS) MM_AS_DRAWS_BODY

    static void path_scalar(const mm__as_derived *d, uint64_t key, mm_as_path_result *out)
        MM_AS_PATH_BODY(draws_scalar)

#if MM_X86_ISA
#define MM_AS_AVX2 __attribute__((target("avx2,bmi2")))
#define MM_AS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi2")))

            MM_AS_AVX2 static void draws_avx2(MM_AS_DRAWS_ARGS) MM_AS_DRAWS_BODY

    MM_AS_AVX2 static void path_avx2(const mm__as_derived *d, uint64_t key, mm_as_path_result *out)
        MM_AS_PATH_BODY(draws_avx2)

            MM_AS_AVX512 static void draws_avx512(MM_AS_DRAWS_ARGS) MM_AS_DRAWS_BODY

    MM_AS_AVX512
    static void path_avx512(const mm__as_derived *d, uint64_t key, mm_as_path_result *out)
        MM_AS_PATH_BODY(draws_avx512)
#endif

            int mm__as_path_lanes_isa(int isa, const mm__as_derived *d, uint64_t key,
                                      mm_as_path_result *out)
{
    if (!mm__batch_isa_supported(isa)) return -ENODEV;
#if MM_X86_ISA
    if (isa == MM_ISA_AVX2) {
        path_avx2(d, key, out);
        return 0;
    }
    if (isa == MM_ISA_AVX512) {
        path_avx512(d, key, out);
        return 0;
    }
#endif
    if (isa != MM_ISA_SCALAR) return -ENODEV;
    path_scalar(d, key, out);
    return 0;
}

void mm__as_path_lanes(const mm__as_derived *d, uint64_t key, mm_as_path_result *out)
{
    (void)mm__as_path_lanes_isa(mm__batch_isa_best(), d, key, out);
}
