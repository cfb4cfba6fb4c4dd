/* checkmodel's own test of the lanes kernel's skip test for loose leaders (Meson test
 * checkmodel_loose_bug): a copy of the lanes kernel, AVX2 build (sim_lanes.h), whose test for a
 * leader that a split left outside the vectors forgets its actions in flight (MM_LOOSE_BUG), so
 * such a leader may skip the event where its order lands. The checker must report it as differing
 * from the reference. Built into checkmodel_selftest only; -ENODEV where the AVX2 build or the CPU
 * is missing. */
#define MM_LOOSE_BUG 1
#include <assert.h>
#include <errno.h>

#include "checkmodel.h"
#include "sim_batch_kernel.h"

#if MM_X86_ISA
#include "sim_batch_x86.h"
#define MM_W 4
#define MM_LANES_ANY(m) (!__builtin_ia32_ptestz256((mm__vll)(m), (mm__vll)(m)))
#define MM_LANES lanes_loosebug
#define MM_LANES_T(n) lanes_loosebug_##n
#define MM_LANES_ATTR __attribute__((target("avx2,bmi2")))
#define MM_LANES_INLINE static inline __attribute__((always_inline, target("avx2,bmi2")))
#include "sim_lanes.h"
#endif

int ck_lanes_loosebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                      int64_t i1)
{
#if MM_X86_ISA
    if (!mm__batch_isa_supported(MM_ISA_AVX2)) return -ENODEV;
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    lanes_loosebug(tp, d, st, &g, m, i0, i1);
    mm__guards_free(&g);
    return 0;
#else
    (void)tp, (void)d, (void)st, (void)m, (void)i0, (void)i1;
    return -ENODEV;
#endif
}
