/* The batched kernels built for AVX-512 (F, BW, VL, DQ + AVX2, BMI2): the skip kernel
 * (sim_batch_body.h) and the lanes kernel, 8 combinations per vector (sim_lanes.h). Chosen at run
 * time by sim_batch.c when the CPU has them; the same bits as the baseline build (tests/checkmodel
 * checks both). */
#include "mm_accel.h"
#if MM_X86_ISA
#include "sim_batch_x86.h"

#define MM_ISA_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi2")))
#include "sim_batch_body.h"

#define MM_W 8
/* Any lane of 8: the two halves or'd, then one vptest. */
#define MM_LANES_ANY(m)                                                                            \
    mm__any4(__builtin_shufflevector((m), (m), 0, 1, 2, 3) |                                       \
             __builtin_shufflevector((m), (m), 4, 5, 6, 7))
#define mm__any4(h) (!__builtin_ia32_ptestz256((mm__vll)(h), (mm__vll)(h)))
#include "sim_lanes.h"

void mm__skip_avx512(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                     int64_t m, int64_t i0, int64_t i1)
{
    skip_advance(tp, d, st, g, m, i0, i1);
}

void mm__lanes_avx512(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                      int64_t m, int64_t i0, int64_t i1)
{
    lanes_advance(tp, d, st, g, m, i0, i1);
}
#endif
