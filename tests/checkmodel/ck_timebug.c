/* checkmodel's test of itself for kind 4's time guard (Meson test checkmodel_time_bug): the CUDA
 * kernel's per-thread function (mm_thread.h) compiled with the time guard of a time-varying
 * strategy (AS with horizon 0) taken without proof and twice too long (the planted bug "timebug" of
 * planted.py, whose patched headers this file is compiled against: its targets may have moved with
 * the time left while it skips). The checker must report it as differing from the reference. Built
 * into checkmodel_selftest only. */
#include "checkmodel.h"
#include "mm_thread.h"

int ck_advance_timebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1)
{
    for (int64_t j = 0; j < m; j++)
        mm__thread_advance(&tp->v, &d[j], &st[j], i0, i1);
    return 0;
}
