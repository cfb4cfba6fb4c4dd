/* Batched engine: one pass over the events per block of combinations. For each event, a cheap test
 * decides per combination whether the event can change anything for it (section 8 of
 * docs/model.md); only then does it run the full step. The test is conservative: skipping must
 * leave the state exactly as the step would, which the checker (tests/checkmodel/) verifies, whole
 * state at checkpoints, against mm_step_c. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "mm_internal.h"
#include "sim_tape.h"

#define MM_BLOCK 512

/* Per-combination guards (mm__guards, sim_tape.h), a pure function of the state and the derived
 * constants. */
static inline void guard_update(const mm__guards *g, int64_t j, const mm_state *st)
{
    g->lo[j] = st->s[0].qty > 0 ? st->s[0].px : INT64_MIN;
    g->hi[j] = st->s[1].qty > 0 ? st->s[1].px : INT64_MAX;
    g->land[j] = st->s[0].land_ns < st->s[1].land_ns ? st->s[0].land_ns : st->s[1].land_ns;
}

/* Event thresholds: a live buy at p is quiet when p < tb, a live sell at p when p > ta (section 8).
 * A side absent before or after the event makes every live order on it non-quiet (INT32_MIN /
 * INT32_MAX are below / above every price, and above / below the "no order" guard values). */
static inline void thresholds(const mm_event *ev, int64_t *tb, int64_t *ta)
{
    int64_t b = (ev->pbs > 0 && ev->bs > 0) ? (ev->pb < ev->b ? ev->pb : ev->b) : INT32_MIN;
    if (ev->tsz > 0 && ev->tside < 0 && ev->tpx < b) b = ev->tpx;
    if (ev->as > 0 && ev->a < b) b = ev->a;
    int64_t a = (ev->pas > 0 && ev->as > 0) ? (ev->pa > ev->a ? ev->pa : ev->a) : INT32_MAX;
    if (ev->tsz > 0 && ev->tside > 0 && ev->tpx > a) a = ev->tpx;
    if (ev->bs > 0 && ev->b > a) a = ev->b;
    *tb = b;
    *ta = a;
}

void mm__sim_batch_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                           const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    assert(i0 >= 0 && i0 <= i1 && i1 <= tp->t->n && m >= 0);
    for (int64_t j = 0; j < m; j++) {
        guard_update(g, j, &st[j]);
        g->kind[j] = d[j].time_varying ? 0 : d[j].fair_micro ? 2 : 1;
    }
    mm_event ev;
    for (int64_t i = i0; i < i1; i++) {
        mm__event(tp, i, &ev);
        int px_changed = ev.b != ev.pb || ev.a != ev.pa || (ev.bs == 0) != (ev.pbs == 0) ||
                         (ev.as == 0) != (ev.pas == 0);
        int book_changed = px_changed || ev.bs != ev.pbs || ev.as != ev.pas;
        /* Which kinds must run the step for this event regardless of their orders. */
        uint8_t must[3] = {1, (uint8_t)px_changed, (uint8_t)book_changed};
        if (ev.n_samples) must[1] = must[2] = 1;
        int64_t tb, ta;
        thresholds(&ev, &tb, &ta);
        for (int64_t j = 0; j < m; j++) {
            if (!must[g->kind[j]] && g->land[j] > ev.ts && g->lo[j] < tb && g->hi[j] > ta) continue;
            mm_step_c(&st[j], &ev, &d[j], NULL);
            guard_update(g, j, &st[j]);
        }
    }
}

int mm_sim_run_batch(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n,
                     mm_metrics *out, mm_error *err)
{
    if (!t || !c || (!p && n > 0) || (!out && n > 0) || n < 0)
        return mm__errf(err, -EINVAL, "mm_sim_run_batch: bad argument");
    int rc = mm_sim_config_check(c, t, err);
    if (rc) return rc;
    mm__tape tp;
    if ((rc = mm__tape_init(&tp, t, c)))
        return mm__errf(err, rc, "cannot allocate the tape tables");
    rc = mm__sim_batch_tape(&tp, c, p, n, out, err);
    mm__tape_free(&tp);
    return rc;
}

int mm__sim_batch_tape(const mm__tape *tpp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       mm_metrics *out, mm_error *err)
{
    for (int64_t j = 0; j < n; j++) {
        int rc = mm_params_check(&p[j], err);
        if (rc) return rc;
    }
    int rc = 0;
    const mm__tape tp = *tpp;
    const mm_ticks *t = tp.t;
    int64_t blk = n < MM_BLOCK ? n : MM_BLOCK;
    size_t cap = (size_t)(blk > 0 ? blk : 1);
    mm_state *st = aligned_alloc(64, (cap * sizeof(mm_state) + 63) / 64 * 64);
    mm_derived *d = malloc(cap * sizeof(mm_derived));
    mm__guards g = {malloc(cap * 8), malloc(cap * 8), malloc(cap * 8), malloc(cap)};
    if (!st || !d || !g.lo || !g.hi || !g.land || !g.kind) {
        free(st);
        free(d);
        free(g.lo);
        free(g.hi);
        free(g.land);
        free(g.kind);
        return mm__errf(err, -ENOMEM, "cannot allocate %lld combination states", (long long)blk);
    }
    for (int64_t j0 = 0; j0 < n; j0 += blk) {
        int64_t m = n - j0 < blk ? n - j0 : blk;
        for (int64_t j = 0; j < m; j++) {
            mm__derive(&p[j0 + j], &t->inst, &d[j]);
            mm__state_init(&st[j], &tp);
        }
        mm__sim_batch_advance(&tp, d, st, &g, m, 0, t->n);
        for (int64_t j = 0; j < m; j++)
            mm__finish(&st[j], &tp, &d[j], c, &out[j0 + j]);
        for (int64_t j = 0; j < m && rc == 0; j++)
            if (st[j].ovf_event) rc = mm__overflow_err(st[j].ovf_event, j0 + j, err);
        if (rc) break;
    }
    free(g.lo);
    free(g.hi);
    free(g.land);
    free(g.kind);
    free(st);
    free(d);
    return rc;
}
