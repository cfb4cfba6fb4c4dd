/* checkmodel's test of itself for the skip test (Meson test checkmodel_skip_bug): the CUDA
 * kernel's per-thread function (mm_thread.h) compiled with one bound of the skip test broken
 * (the planted bug "skipbug" of planted.py, whose patched headers this file is compiled
 * against: a buy inside the spread is taken as quiet even when a seller-initiated trade
 * reaches its price, so the trade's fill is skipped). The checker must report it as differing from
 * the reference. Built into checkmodel_selftest only. */
#include "checkmodel.h"
#include "mm_thread.h"

int ck_advance_skipbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1)
{
    for (int64_t j = 0; j < m; j++)
        mm__thread_advance(&tp->v, &d[j], &st[j], i0, i1);
    return 0;
}
