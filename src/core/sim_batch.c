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

/* Per-combination guards (mm__guards, sim_tape.h), a pure function of the state (mm__guard_of). */
static inline void guard_update(const mm__guards *g, int64_t j, const mm_state *st)
{
    mm__guard_of(st, &g->lo[j], &g->hi[j], &g->land[j]);
}

void mm__sim_batch_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                           const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    const mm__tape_view *v = &tp->v;
    assert(i0 >= 0 && i0 <= i1 && i1 <= v->n && m >= 0);
    for (int64_t j = 0; j < m; j++) {
        guard_update(g, j, &st[j]);
        g->kind[j] = mm__guard_kind(&d[j]);
    }
    mm_event ev;
    mm__gate gt;
    for (int64_t i = i0; i < i1; i++) {
        mm__event(v, i, &ev);
        mm__gate_of(&ev, &gt);
        /* Locals the steps below cannot write, kept in registers (reading them from gt inside the
         * loop cost 8% more instructions). */
        const int64_t tb = gt.tb, ta = gt.ta, ts = gt.ts;
        const uint8_t must[3] = {gt.must[0], gt.must[1], gt.must[2]};
        for (int64_t j = 0; j < m; j++) {
            if (mm__can_skip(must[g->kind[j]], g->lo[j], g->hi[j], g->land[j], ts, tb, ta))
                continue;
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
    rc = mm__sim_batch_tape(&tp, c, p, n, 0, 0, 1, out, err);
    mm__tape_free(&tp);
    return rc;
}

int mm__sim_batch_tape(const mm__tape *tpp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       int64_t first_id, int32_t path0, int32_t n_paths, mm_metrics *out,
                       mm_error *err)
{
    assert(n >= 0 && n_paths >= 1 && first_id >= 0 && path0 >= 0);
    for (int64_t k = 0; k < n; k++) {
        int rc = mm_params_check(&p[k], err);
        if (rc) return rc;
    }
    int rc = 0;
    const mm__tape tp = *tpp;
    /* A slot is one (combination, path): slot s is combination k = s / n_paths, path path0 + s %
     * n_paths, and its metrics go to out[s]. Slots are stepped in blocks of up to MM_BLOCK. */
    int64_t slots = n * n_paths;
    int64_t blk = slots < MM_BLOCK ? slots : MM_BLOCK;
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
    for (int64_t s0 = 0; s0 < slots; s0 += blk) {
        int64_t m = slots - s0 < blk ? slots - s0 : blk;
        for (int64_t j = 0; j < m; j++) {
            int64_t k = (s0 + j) / n_paths;
            int32_t path = path0 + (int32_t)((s0 + j) % n_paths);
            mm__derive(&p[k], &tp.t->inst, &d[j]);
            mm__state_init(&st[j], &tp, first_id + k, path);
        }
        mm__sim_batch_advance(&tp, d, st, &g, m, 0, tp.v.n);
        for (int64_t j = 0; j < m; j++)
            mm__finish(&st[j], &tp, &d[j], c, &out[s0 + j]);
        for (int64_t j = 0; j < m && rc == 0; j++)
            if (st[j].ovf_event) rc = mm__overflow_err(st[j].ovf_event, st[j].id, err);
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
