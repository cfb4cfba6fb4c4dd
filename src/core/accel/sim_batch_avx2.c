/* The batched kernels built for AVX2 (+ BMI2): the skip kernel (sim_batch_body.h) and the lanes
 * kernel, 4 combinations per vector (sim_lanes.h). Chosen at run time by sim_batch.c when the CPU
 * has AVX2; the same bits as the baseline build (tests/checkmodel checks both). */
#include "mm_accel.h"
#if MM_X86_ISA
#include "sim_batch_x86.h"

#define MM_ISA_ATTR __attribute__((target("avx2,bmi2")))
#include "sim_batch_body.h"

#define MM_W 4
#define MM_LANES_ANY(m) (!__builtin_ia32_ptestz256((mm__vll)(m), (mm__vll)(m)))
#include "sim_lanes.h"

void mm__skip_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                   int64_t m, int64_t i0, int64_t i1)
{
    skip_advance(tp, d, st, g, m, i0, i1);
}

void mm__lanes_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                    int64_t m, int64_t i0, int64_t i1)
{
    lanes_advance(tp, d, st, g, m, i0, i1);
}
#endif
