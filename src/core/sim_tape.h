/* Shared per-tape precomputation for the simulation engines (reference, batched, CUDA): the last
 * valid mid, the mid at each markout horizon, and the sampling-clock crossings, per event. */
#ifndef MM_SIM_TAPE_H
#define MM_SIM_TAPE_H

#include "mm_step.h"
#include "mmsim/ticks.h"

typedef struct mm__tape {
    const mm_ticks *t;
    int64_t *mid2;                /* [n] twice the last valid mid after event i (0: none yet) */
    int64_t *mid2_h[MM_MARKOUTS]; /* [n] twice the mid at ts_i + horizon k */
    int32_t *nsamp;               /* [n] sampling boundaries crossed since event i-1 */
    int64_t t0, t_end;
} mm__tape;

int mm__tape_init(mm__tape *tp, const mm_ticks *t, const mm_sim_config *c);
void mm__tape_free(mm__tape *tp);

/* Build event i (0 <= i < n). */
static inline void mm__event(const mm__tape *tp, int64_t i, mm_event *ev)
{
    const mm_ticks *t = tp->t;
    ev->i = i;
    ev->ts = t->ts_ns[i];
    if (i > 0) {
        ev->pb = t->bid_px[i - 1];
        ev->pa = t->ask_px[i - 1];
        ev->pbs = t->bid_sz[i - 1];
        ev->pas = t->ask_sz[i - 1];
        ev->prev_mid2 = tp->mid2[i - 1];
    } else {
        ev->pb = MM_PX_NONE_BID;
        ev->pa = MM_PX_NONE_ASK;
        ev->pbs = ev->pas = 0;
        ev->prev_mid2 = 0;
    }
    ev->b = t->bid_px[i];
    ev->a = t->ask_px[i];
    ev->bs = t->bid_sz[i];
    ev->as = t->ask_sz[i];
    ev->tpx = t->trade_px[i];
    ev->tsz = t->trade_sz[i];
    ev->tside = t->trade_side[i];
    ev->n_samples = tp->nsamp[i];
    ev->mid2 = tp->mid2[i];
    for (int k = 0; k < MM_MARKOUTS; k++)
        ev->mid2_h[k] = tp->mid2_h[k][i];
    ev->tau_end_s = (double)(tp->t_end - ev->ts) * 1e-9;
}

/* Derived constants of a combination; tick/lot sizes from the tape. */
void mm__derive(const mm_params *p, const mm_instrument *inst, mm_derived *d);
void mm__state_init(mm_state *st, const mm__tape *tp);
/* The batched kernel's per-combination guards, dense arrays of m entries each (25 bytes per
 * combination): lo   = price of the live buy, or INT64_MIN when there is none; hi   = price of the
 * live sell, or INT64_MAX when there is none; land = earliest land_ns of the actions in flight
 * (MM_NEVER: none); kind = 0: needs every event (time-varying strategy), 1: fair = mid, 2: fair =
 * microprice. */
typedef struct mm__guards {
    int64_t *lo, *hi, *land;
    uint8_t *kind;
} mm__guards;
/* The batched kernel proper: advance the m states st[0..m) (constants d[0..m)) through events [i0,
 * i1) of the tape, running mm_step_c only where the event can change a state (sim_batch.c). The
 * guards g (m entries of scratch) are recomputed from the states on entry, so a run split at any
 * events gives the same states bit for bit as one call over [0, n): the checker (tests/checkmodel/)
 * compares the whole states at checkpoints. */
void mm__sim_batch_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                           const mm__guards *g, int64_t m, int64_t i0, int64_t i1);
/* The batched engine on a prepared tape (the sweep prepares each tape once and shares it). */
int mm__sim_batch_tape(const mm__tape *tp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       mm_metrics *out, mm_error *err);
void mm__finish(const mm_state *st, const mm__tape *tp, const mm_derived *d, const mm_sim_config *c,
                mm_metrics *m);
/* The -ERANGE error of a run whose accounting passed MM_CASH2_MAX (ovf_event = 1 + event; combo -1:
 * single run). */
int mm__overflow_err(int64_t ovf_event, int64_t combo, mm_error *err);

#endif
