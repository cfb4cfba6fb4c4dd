/* Section 4.5 of docs/model.md (book = l2): the depth stream as the step reads it, written once for
 * the host compiler and nvcc (MM_HD; the CUDA engine has no depth stream yet and refuses l2). The
 * level index and the per-event rows are built once per tape by mm__tape_init (mm__depth_view). */
#ifndef MM_DEPTHQ_H
#define MM_DEPTHQ_H

#include <stdint.h>

#include "mm_hd.h"
#include "mm_state.h"
#include "mmsim/ticks.h"

/* The key of level (side index k: 0 bid, 1 ask; price px ticks) in mm__depth_view.lv_key. */
MM_HD int64_t mm__level_key(int k, int32_t px)
{
    return (int64_t)((uint64_t)(uint32_t)k << 32 | (uint32_t)px);
}

/* The first entry of the level index whose key is at least key (dv->nlv: none). */
MM_HD int64_t mm__level_lower(const mm__depth_view *dv, int64_t key)
{
    int64_t lo = 0, hi = dv->nlv;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (dv->lv_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The size of the level of index entry j as the depth stream shows it before event i, lots: the
 * size after its last depth row at a row before i; -1 when it has none or that row hid it (a HIDE:
 * the level is beyond the kept window, its size unknown). A binary search of the level's rows. */
MM_HD int32_t mm__level_size_at(const mm__depth_view *dv, int64_t j, int64_t i)
{
    int64_t a = dv->lv_beg[j], b = dv->lv_beg[j + 1], first = a;
    while (a < b) { /* the first of the level's rows at row i or later */
        int64_t mid = a + (b - a) / 2;
        if (dv->row[dv->lv_idx[mid]] < i)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == first) return -1;
    int64_t r = dv->lv_idx[a - 1];
    return dv->cause[r] == MM_DEPTH_HIDE ? -1 : dv->sz[r];
}

/* The size of level (k, px) before event i (mm__level_size_at; -1: not shown). Binary searches:
 * log2 of the levels, then of the level's rows. */
MM_HD int32_t mm__level_size(const mm__depth_view *dv, int k, int32_t px, int64_t i)
{
    int64_t key = mm__level_key(k, px), j = mm__level_lower(dv, key);
    if (j == dv->nlv || dv->lv_key[j] != key) return -1;
    return mm__level_size_at(dv, j, i);
}

/* What event ev's depth rows did to level (k, px), whose size was lsz before them (-1: unknown):
 * seen = 1 when it has at least one; the lots cancelled and traded away (the decreases of its
 * CANCEL and TRADE rows, counted from a known size); sz its size after them (-1: hidden by the
 * last). */
typedef struct mm__level_move {
    int32_t seen, sz;
    int64_t cancelled, traded;
} mm__level_move;

MM_HD void mm__level_rows(const mm_event *ev, int k, int32_t px, int32_t lsz, mm__level_move *mv)
{
    const mm__depth_view *dv = ev->dv;
    int8_t sd = k == 0 ? 1 : -1;
    int32_t cur = lsz;
    mv->seen = 0;
    mv->cancelled = mv->traded = 0;
    for (int64_t j = ev->d0; j < ev->d1; j++) {
        if (dv->side[j] != sd || dv->px[j] != px) continue;
        int32_t sz = dv->sz[j];
        mv->seen = 1;
        if (dv->cause[j] == MM_DEPTH_HIDE) {
            cur = -1;
            continue;
        }
        if (cur > sz && dv->cause[j] == MM_DEPTH_CANCEL) mv->cancelled += cur - sz;
        if (cur > sz && dv->cause[j] == MM_DEPTH_TRADE) mv->traded += cur - sz;
        cur = sz;
    }
    mv->sz = cur;
}

#endif
