/* checkmodel's test of itself for kind 3's band (Meson test checkmodel_band_bug): the CUDA kernel's
 * per-thread function (mm_thread.h) compiled with the microprice band of a microprice combination
 * a quarter tick too wide below and unchecked (the targets may have moved while it skips; the
 * planted bug "bandbug" of planted.py, whose patched headers this file is compiled against). The
 * checker must report it as differing from the reference. Built into checkmodel_selftest only. */
#include "checkmodel.h"
#include "mm_thread.h"

int ck_advance_bandbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1)
{
    for (int64_t j = 0; j < m; j++)
        mm__thread_advance(&tp->v, &d[j], &st[j], i0, i1);
    return 0;
}
