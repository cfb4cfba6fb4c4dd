/* Batched engine: one pass over the events per block of combinations. For each event, a cheap test
 * decides per combination whether the event can change anything for it (section 8 of docs/model.md);
 * only then does it run the full step. The test is conservative: skipping must leave the state exactly as
 * the step would, which the checker (tests/checkmodel.c) verifies bit for bit against mm_sim_run_c. */
#include <errno.h>
#include <stdlib.h>

#include "mm_internal.h"
#include "sim_tape.h"

#define MM_BLOCK 512

/* Flags of one event shared by every combination. */
typedef struct evflags {
    int px_changed;   /* best prices or side presence changed: the mid-based fair price may have moved */
    int book_changed; /* any of the four top-of-book fields changed: the microprice may have moved */
} evflags;

static inline int side_quiet(const mm_side *o, const mm_event *ev, int k)
{
    if (o->qty <= 0) return 1;
    int32_t px = o->px;
    if (k == 0) {
        /* A buy strictly below both the old and new best bids, not reached by a sell trade or the ask. */
        if (ev->pbs == 0 || ev->bs == 0 || px >= ev->pb || px >= ev->b) return 0;
        if (ev->tsz > 0 && ev->tside < 0 && ev->tpx <= px) return 0;
        if (ev->as > 0 && ev->a <= px) return 0;
    } else {
        if (ev->pas == 0 || ev->as == 0 || px <= ev->pa || px <= ev->a) return 0;
        if (ev->tsz > 0 && ev->tside > 0 && ev->tpx >= px) return 0;
        if (ev->bs > 0 && ev->b >= px) return 0;
    }
    return 1;
}

static inline int can_skip(const mm_state *st, const mm_derived *d, const mm_event *ev, const evflags *f)
{
    if (st->s[0].land_ns <= ev->ts || st->s[1].land_ns <= ev->ts) return 0;
    if (d->time_varying) return 0;
    if (d->fair_micro ? f->book_changed : f->px_changed) return 0;
    return side_quiet(&st->s[0], ev, 0) && side_quiet(&st->s[1], ev, 1);
}

int mm_sim_run_batch(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n, mm_metrics *out,
                     mm_error *err)
{
    if (!t || !c || (!p && n > 0) || (!out && n > 0) || n < 0) return mm__errf(err, -EINVAL, "mm_sim_run_batch: bad argument");
    if (c->sample_ns <= 0) return mm__errf(err, MM_EUSAGE, "sample: must be > 0 ns");
    for (int64_t j = 0; j < n; j++) {
        int rc = mm_params_check(&p[j], err);
        if (rc) return rc;
    }
    mm__tape tp;
    int rc = mm__tape_init(&tp, t, c);
    if (rc) return mm__errf(err, rc, "cannot allocate the tape tables");
    int64_t blk = n < MM_BLOCK ? n : MM_BLOCK;
    mm_state *st = aligned_alloc(64, ((size_t)(blk > 0 ? blk : 1) * sizeof(mm_state) + 63) / 64 * 64);
    mm_derived *d = malloc((size_t)(blk > 0 ? blk : 1) * sizeof(mm_derived));
    if (!st || !d) {
        free(st);
        free(d);
        mm__tape_free(&tp);
        return mm__errf(err, -ENOMEM, "cannot allocate %lld combination states", (long long)blk);
    }
    for (int64_t j0 = 0; j0 < n; j0 += blk) {
        int64_t m = n - j0 < blk ? n - j0 : blk;
        for (int64_t j = 0; j < m; j++) {
            mm__derive(&p[j0 + j], &t->inst, &d[j]);
            mm__state_init(&st[j], &tp);
        }
        mm_event ev;
        for (int64_t i = 0; i < t->n; i++) {
            mm__event(&tp, i, &ev);
            evflags f;
            f.px_changed = ev.b != ev.pb || ev.a != ev.pa || (ev.bs == 0) != (ev.pbs == 0) || (ev.as == 0) != (ev.pas == 0);
            f.book_changed = f.px_changed || ev.bs != ev.pbs || ev.as != ev.pas;
            if (ev.n_samples) {
                for (int64_t j = 0; j < m; j++) mm_step_c(&st[j], &ev, &d[j], NULL);
                continue;
            }
            for (int64_t j = 0; j < m; j++)
                if (!can_skip(&st[j], &d[j], &ev, &f)) mm_step_c(&st[j], &ev, &d[j], NULL);
        }
        for (int64_t j = 0; j < m; j++) mm__finish(&st[j], &tp, &d[j], c, &out[j0 + j]);
    }
    free(st);
    free(d);
    mm__tape_free(&tp);
    return 0;
}
