/* The batched kernel's helpers (sim_batch.c includes them, then the kernel's text,
 * sim_batch_body.h, once per instruction set; checkmodel's own test of the shared states builds
 * one more copy against a patched sim_share.h, tests/checkmodel/planted.py): the guards of a
 * position, kinds and the shared states. */
#ifndef MM_SIM_BATCH_KERNEL_H
#define MM_SIM_BATCH_KERNEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_internal.h"

/* Events per window of the skip kernel: guards hold event indices relative to the window's first
 * event, as int32; the shared states are found again at each window (share_park). */
#define MM_SHARE_WINDOW 512

/* The first event k in [from, end) with ts[k] >= t, or end when there is none: a galloping search
 * from `from` (an action in flight lands a few events ahead), then bisection. */
static inline int64_t first_at(const int64_t *ts, int64_t from, int64_t end, int64_t t)
{
    if (from >= end || ts[end - 1] < t) return end;
    if (ts[from] >= t) return from;
    int64_t lo = from, step = 1, hi = from + 1; /* ts[lo] < t */
    while (ts[hi] < t) {
        lo = hi;
        step *= 2;
        hi = from + step < end - 1 ? from + step : end - 1;
    }
    while (hi - lo > 1) { /* ts[lo] < t <= ts[hi] */
        int64_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < t)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* Guards of the combination at position q (state s, constants d), a pure function of the state
 * (mm__guard_of) in int32: the live buy's price or INT32_MIN, the live sell's or INT32_MAX (a gate
 * bound of INT32_MIN / INT32_MAX, a side absent, then makes a combination without an order step:
 * never wrong, only a step more), and the first event of [from, end) at or after its time guard,
 * relative to w0 (INT32_MAX: none in the window). For kind 4 the time guard is also at most
 * mm__tv_until of the step just taken at ev (ev NULL, no step seen: the first event steps). For
 * kind 3, the band of the step just taken at ev (mm__band_of), or an empty one when ev is NULL or
 * when the time guard falls on the next event (from): that event steps anyway and sets the band
 * again. */
static inline void guard_set(const mm__guards *g, int64_t q, const mm_state *s, const mm_derived *d,
                             int kind, const mm_event *ev, const mm__tape_view *v, int64_t from,
                             int64_t end, int64_t w0)
{
    int64_t lo, hi, land;
    mm__guard_of(s, &lo, &hi, &land);
    g->lo[q] = lo < INT32_MIN ? INT32_MIN : (int32_t)lo;
    g->hi[q] = hi > INT32_MAX ? INT32_MAX : (int32_t)hi;
    int64_t k = land == MM_NEVER ? end : first_at(v->ts_ns, from, end, land);
    if (kind == MM_KIND_TIME && k > from) {
        /* (Not computed when the next event steps anyway.) */
        int64_t u = ev ? mm__tv_until(s, d, ev, v->t_end) : INT64_MIN;
        if (u < land) k = first_at(v->ts_ns, from, end, u);
    }
    g->landi[q] = k >= end ? INT32_MAX : (int32_t)(k - w0);
    if (kind != MM_KIND_BAND) return;
    /* The band only matters for an event that may skip: none when the very next one must step
     * for the time guard (an order sent at ev lands there), so it is not computed then. */
    if (ev && k > from) {
        mm__band_of(s, d, ev, &g->flo[q], &g->fhi[q]);
    } else {
        g->flo[q] = MM_BAND_EMPTY_LO;
        g->fhi[q] = MM_BAND_EMPTY_HI;
    }
}

/* The kind of position q in a block ordered by kind (kind k holds [beg[k], beg[k + 1])). */
static inline int kind_at(const int64_t *beg, int64_t q)
{
    int k = 0;
    while (k + 1 < MM_KINDS && q >= beg[k + 1])
        k++;
    return k;
}

#include "sim_share.h"

#endif
