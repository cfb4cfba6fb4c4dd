/* checkmodel's own test of the batched kernel's shared states (Meson test checkmodel_share_bug): a
 * copy of the batched kernel (sim_batch_kernel.h + sim_batch_body.h) whose test of a clean step
 * looks at the fills only (the planted bug "sharebug" of planted.py, whose patched
 * headers this file is compiled against), so a leader's step that takes a fill report into its
 * known position leaves its members' known positions behind. The checker must report it as
 * differing from the reference. Built into checkmodel_selftest only. */
#include <assert.h>
#include <errno.h>

#include "checkmodel.h"
#include "sim_batch_kernel.h"

#define MM_ISA_ATTR /* the baseline */
#include "sim_batch_body.h"

int ck_advance_sharebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1)
{
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    skip_advance(tp, d, st, &g, m, i0, i1);
    mm__guards_free(&g);
    return 0;
}

/* The same bug in the lanes kernel, AVX2 build: "lanes_sharebug" (ck_lanes_copy.h). */
#define CK_LANES lanes_sharebug
#include "ck_lanes_copy.h"
