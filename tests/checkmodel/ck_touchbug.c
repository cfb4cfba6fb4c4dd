/* checkmodel's own test of the batched kernel's skip test under book = l2 / l3 (Meson test
 * checkmodel_touch_bug): a copy of the batched kernel (sim_batch_kernel.h + sim_batch_body.h) whose
 * mm__depth_touch looks at the bid only (the planted bug "touchbug" of planted.py, whose patched
 * headers this file is compiled against), so an event whose depth rows change the level of a live
 * ask behind the best is skipped and the ask's queue misses them. The generated tapes' depth
 * streams (ck_depth.c) must show it. Built into checkmodel_selftest only. */
#include <assert.h>
#include <errno.h>

#include "checkmodel.h"
#include "sim_batch_kernel.h"

#define MM_ISA_ATTR /* the baseline */
#include "sim_batch_body.h"

int ck_advance_touchbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1)
{
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    skip_advance(tp, d, st, &g, m, i0, i1);
    mm__guards_free(&g);
    return 0;
}
