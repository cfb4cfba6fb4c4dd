/* Events, written once for the host compiler and nvcc (MM_HD):
 * every kernel (reference, batched, and the CUDA engine) builds event i the same way, from a flat
 * view of the tape's columns (33 bytes a row: ts_ns 8, bid/ask price and size 4 x 4, trade price
 * and size 4 x 2, trade side 1) and of the per-tape tables that mm__tape_init computes once per
 * tape (mid2 8, mid2_h 8 x MM_MARKOUTS, nsamp 4, traded 8 x 2 bytes a row), never from prebuilt
 * event records. The view holds only pointers and numbers, so a copy of it whose pointers are
 * device addresses is what a GPU kernel receives. docs/model.md, section 2, is the specification;
 * the skip test over these events is the fast kernels' (accel/mm_skip.h). */
#ifndef MM_EVENT_H
#define MM_EVENT_H

#include <stdint.h>

#include "mm_step.h"

/* One tape as the kernels read it: n rows; the columns of mm_ticks; the tables of mm__tape. */
typedef struct mm__tape_view {
    int64_t n;
    int64_t t0, t_end; /* ts_ns of the first and last row (0 when n = 0) */
    const int64_t *ts_ns;
    const int32_t *bid_px, *ask_px, *bid_sz, *ask_sz; /* ticks, lots (size 0: empty side) */
    const int32_t *trade_px, *trade_sz;               /* ticks, lots (size 0: no trade) */
    const int8_t *trade_side;                         /* +1 buyer-initiated, -1 seller, 0 none */
    const int64_t *mid2;                /* [n] twice the last valid mid after row i (0: none yet) */
    const int64_t *mid2_h[MM_MARKOUTS]; /* [n] twice the mid at ts_i + horizon k */
    const int32_t *nsamp;               /* [n] sampling boundaries crossed since row i-1 */
    const int64_t *traded[2];       /* [n] per side: lots traded at the level before row i since it
                                       last changed, over rows before i (mm_event.traded) */
    const int64_t *lat_e, *lat_r;   /* [n] the recorded latency series at ts_i (NULL: none), ns */
    const int64_t *samp_e, *samp_r; /* [nsamp_lat] latency samples (empirical draws; NULL: none) */
    int64_t nsamp_lat;
    const mm__depth_view *dv; /* the depth stream with its index (NULL: none; host memory only) */
    const double *signal;     /* [n] the tape's signal (NULL: none; host memory only) */
} mm__tape_view;

/* Build event i (0 <= i < v->n): the book before (row i-1; "no book" for i = 0) and after (row
 * i), the trade of row i and the tables' values at i. */
MM_HD void mm__event(const mm__tape_view *v, int64_t i, mm_event *ev)
{
    MM_HD_ASSERT(i >= 0 && i < v->n);
    ev->i = i;
    ev->ts = v->ts_ns[i];
    if (i > 0) {
        ev->pb = v->bid_px[i - 1];
        ev->pa = v->ask_px[i - 1];
        ev->pbs = v->bid_sz[i - 1];
        ev->pas = v->ask_sz[i - 1];
        ev->prev_mid2 = v->mid2[i - 1];
    } else {
        ev->pb = MM_PX_NONE_BID;
        ev->pa = MM_PX_NONE_ASK;
        ev->pbs = ev->pas = 0;
        ev->prev_mid2 = 0;
    }
    ev->b = v->bid_px[i];
    ev->a = v->ask_px[i];
    ev->bs = v->bid_sz[i];
    ev->as = v->ask_sz[i];
    ev->tpx = v->trade_px[i];
    ev->tsz = v->trade_sz[i];
    ev->tside = v->trade_side[i];
    ev->n_samples = v->nsamp[i];
    ev->traded[0] = v->traded[0][i];
    ev->traded[1] = v->traded[1][i];
    ev->mid2 = v->mid2[i];
    for (int k = 0; k < MM_MARKOUTS; k++)
        ev->mid2_h[k] = v->mid2_h[k][i];
    ev->tau_end_s = (double)(v->t_end - ev->ts) * 1e-9;
    ev->lat_e = v->lat_e ? v->lat_e[i] : 0;
    ev->lat_r = v->lat_r ? v->lat_r[i] : 0;
    ev->samp_e = v->samp_e;
    ev->samp_r = v->samp_r;
    ev->nsamp_lat = v->nsamp_lat;
    ev->dv = v->dv;
    ev->d0 = v->dv ? v->dv->dbeg[i] : 0;
    ev->d1 = v->dv ? v->dv->dbeg[i + 1] : 0;
    ev->sig = v->signal ? v->signal[i] : 0.0;
}

#endif
