/* Shared per-tape precomputation for the simulation engines (reference, batched, CUDA): the last
 * valid mid, the mid at each markout horizon, and the sampling-clock crossings, per event. */
#ifndef MM_SIM_TAPE_H
#define MM_SIM_TAPE_H

#include "mm_event.h"
#include "mm_step.h"
#include "mmsim/ticks.h"

typedef struct mm__tape {
    const mm_ticks *t;
    int64_t *mid2;                /* [n] twice the last valid mid after event i (0: none yet) */
    int64_t *mid2_h[MM_MARKOUTS]; /* [n] twice the mid at ts_i + horizon k */
    int32_t *nsamp;               /* [n] sampling boundaries crossed since event i-1 */
    int64_t *traded[2]; /* [n] per side (bid, ask): lots traded at the level before event i since
                           it last changed (docs/model.md section 2, 4.4) */
    int64_t *lat_e, *lat_r; /* [n] the latency series at ts_i: entry, response (NULL: no series) */
    int64_t t0, t_end;
    uint64_t seed; /* the master seed of the random streams (mm_sim_config.seed) */
    /* The depth stream's index (book = l2; a tape with depth only, else NULL): dbeg [n + 1],
     * lv_key and lv_beg [nlv (+1)], lv_idx [depth rows] (mm__depth_view). */
    int64_t *dbeg, *lv_key, *lv_beg, *lv_idx;
    mm__depth_view dv;
    mm__tape_view v; /* the columns of t and the tables above, as the kernels read them */
} mm__tape;

int mm__tape_init(mm__tape *tp, const mm_ticks *t, const mm_sim_config *c);
/* The depth stream's index of tp->t (tape_depth.c; a tape with depth): 0 or -ENOMEM (what was
 * allocated is freed by mm__tape_free). */
int mm__tape_depth(mm__tape *tp);
void mm__tape_free(mm__tape *tp);

/* MM_EUSAGE when p asks of tape t what it lacks (book = l2 without a depth stream), else 0. */
int mm__params_tape_check(const mm_params *p, const mm_ticks *t, mm_error *err);
/* Derived constants of a combination on tape t (its tick and lot sizes; whether it has depth:
 * book = auto). */
void mm__derive(const mm_params *p, const mm_ticks *t, mm_derived *d);
/* The state of combination id (constants d) on path `path` before the first event (docs/model.md,
 * section 3): nothing live, flat, (id, path) recorded, the key of its random streams that of its
 * family and path (3.3; 0 when it draws nothing). */
void mm__state_init(mm_state *st, const mm__tape *tp, const mm_derived *d, int64_t id,
                    int32_t path);
/* Ladders (docs/model.md 6.2): the live orders of rungs 1..levels-1 of the m combinations d[0..m),
 * in one block the caller frees after their run (NULL when none has levels > 1, or *rc = -ENOMEM),
 * each d[j].rungs pointing into it, set as mm__state_init sets a side. mm__rungs_reset sets them so
 * again (a new run of the same combinations). */
mm_side *mm__rungs_attach(mm_derived *d, int64_t m, int *rc);
void mm__rungs_reset(const mm_derived *d, int64_t m);
/* The metrics of a finished state (docs/model.md, section 7). */
void mm__finish(const mm_state *st, const mm__tape *tp, const mm_derived *d, const mm_sim_config *c,
                mm_metrics *m);
/* The -ERANGE error of a run whose accounting passed MM_CASH2_MAX (ovf_event = 1 + event; combo -1:
 * single run). */
int mm__overflow_err(int64_t ovf_event, int64_t combo, mm_error *err);

#endif
