/* A copy of the lanes kernel, AVX2 build (sim_lanes.h), for checkmodel's injected-bug kernels: the
 * includer defines CK_LANES (the copy's name, e.g. lanes_sharebug) first, is compiled against its
 * planted bug's patched headers (planted.py), and gets the registry's entry point ck_<CK_LANES>:
 * -ENODEV where the AVX2 build or the CPU is missing. */
#include <assert.h>
#include <errno.h>

#include "checkmodel.h"
#include "sim_batch_kernel.h"

#define CK_CAT_(a, b) a##b
#define CK_CAT(a, b) CK_CAT_(a, b)

#if MM_X86_ISA
#include "sim_batch_x86.h"
#define MM_W 4
#define MM_LANES_ANY(m) (!__builtin_ia32_ptestz256((mm__vll)(m), (mm__vll)(m)))
#undef MM_ISA_ATTR
#define MM_ISA_ATTR __attribute__((target("avx2,bmi2")))
#include "sim_lanes.h"
#endif

int CK_CAT(ck_, CK_LANES)(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
#if MM_X86_ISA
    if (!mm__batch_isa_supported(MM_ISA_AVX2)) return -ENODEV;
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    lanes_advance(tp, d, st, &g, m, i0, i1);
    mm__guards_free(&g);
    return 0;
#else
    (void)tp, (void)d, (void)st, (void)m, (void)i0, (void)i1;
    return -ENODEV;
#endif
}
