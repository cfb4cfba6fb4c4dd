/* The batched kernel's helpers (sim_batch.c includes them, then the kernel's text,
 * sim_batch_body.h, once per instruction set; checkmodel's own test of the shared states builds
 * one more copy with MM_SHARE_BUG): the guards of a position, kinds and the shared states. */
#ifndef MM_SIM_BATCH_KERNEL_H
#define MM_SIM_BATCH_KERNEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "sim_tape.h"

/* Events per window: guards hold event indices relative to the window's first event, as int32. */
#define MM_WINDOW (INT64_C(1) << 30)

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

/* ---- Shared states (docs/model.md section 8, "Shared states") ----
 *
 * Two combinations of a block whose constants differ only in the inventory limit, that draw no
 * random number (their streams' keys differ) and whose states are equal but for the key (id,
 * path, key) stay equal for as long as no step reaches the smaller limit: the limit enters a step
 * only as room = limit -/+ position, at a landing (an order of qty lots needs room >= qty) and at
 * a decision (a new order of `size` lots needs room >= size). The larger limit (the leader) steps;
 * the other (a follower) is parked: left out of the skip test, the samples and the steps. Before
 * each step of a leader, every follower whose limit is below the step's bound (share_bound) is
 * unparked: it takes the leader's state as it is before the step, then steps itself. When the
 * kernel returns, every parked follower takes its leader's state. */

/* No random number drawn by a combination with constants d (section 3.3): its state does not
 * depend on its stream key. */
static inline int share_draws_none(const mm_derived *d)
{
    int lat = d->lat_dist == MM_LAT_CONSTANT ||
              (d->lat_dist != MM_LAT_EMPIRICAL && d->entry_ns == 0 && d->resp_ns == 0);
    return lat && !d->join_uniform && d->reach32 > UINT32_MAX && !d->cancel_binom;
}

/* The constants without the limit and the state without its key, as compared bytes (both
 * structures are memset before they are filled, so their padding compares equal). */
static inline void share_images(const mm_derived *d, const mm_state *s, mm_derived *dc,
                                mm_state *sc)
{
    memcpy(dc, d, sizeof *dc);
    dc->limit = 0;
    memcpy(sc, s, sizeof *sc);
    sc->id = sc->path = 0;
    sc->key = 0;
}

static inline uint64_t share_hash(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * UINT64_C(0x100000001b3);
        h ^= h >> 29;
    }
    return h;
}

static int share_key_cmp(const void *a, const void *b)
{
    const mm__share_key *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    if (x->limit != y->limit) return x->limit > y->limit ? -1 : 1; /* larger limit first */
    return x->j < y->j ? -1 : x->j > y->j;
}

/* Bound on the room any landing or decision of the next step of state s may need: the position
 * (as it is, or as known once every pending report is known) moves in that step by at most the
 * lots of the live and landing orders, a landing needs its own lots on top, a decision `size`. */
static inline int64_t share_bound(const mm_state *s, const mm_derived *d)
{
    int64_t q = s->q < 0 ? -s->q : s->q, kq = s->kq < 0 ? -s->kq : s->kq;
    for (int32_t r = 0; r < s->nrep; r++) {
        int64_t x = s->rep_q[(s->rep0 + r) & (MM_REPORTS - 1)];
        kq += x < 0 ? -x : x;
    }
    int64_t f = (int64_t)s->s[0].qty + s->s[1].qty + (s->s[0].new_qty > 0 ? s->s[0].new_qty : 0) +
                (s->s[1].new_qty > 0 ? s->s[1].new_qty : 0);
#ifdef MM_SHARE_BUG
    f = 0; /* checkmodel's own test (tests/checkmodel/ck_sharebug.c): the orders left out */
#endif
    return (q > kq ? q : kq) + f + d->size;
}

/* State f takes state j's, keeping its own key. */
static inline void share_copy(mm_state *f, const mm_state *j)
{
    int64_t id = f->id, path = f->path;
    uint64_t key = f->key;
    memcpy(f, j, sizeof *f);
    f->id = id;
    f->path = path;
    f->key = key;
}

/* Finds the followers of the block (m combinations at positions perm), parks them (live[q] = 0 at
 * their positions, 1 elsewhere; pos = the inverse of perm) and links them to their leaders.
 * Returns the number parked. */
static int64_t share_park(const mm_derived *d, const mm_state *st, const mm__guards *g, int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        g->lead[j] = g->fhead[j] = g->fnext[j] = -1;
    for (int64_t q = 0; q < m; q++) {
        g->pos[g->perm[q]] = (int32_t)q;
        g->live[q] = 1;
    }
    int64_t n = 0;
    mm_derived dc;
    mm_state sc;
    for (int64_t j = 0; j < m; j++) {
        if (!share_draws_none(&d[j])) continue;
        share_images(&d[j], &st[j], &dc, &sc);
        uint64_t h = share_hash(&dc, sizeof dc, UINT64_C(0xcbf29ce484222325));
        g->key[n++] = (mm__share_key){share_hash(&sc, sizeof sc, h), d[j].limit, (int32_t)j};
    }
    if (n < 2) return 0;
    qsort(g->key, (size_t)n, sizeof *g->key, share_key_cmp);
    mm_derived dl;
    mm_state sl;
    int64_t parked = 0;
    for (int64_t r0 = 0, r1; r0 < n; r0 = r1) {
        for (r1 = r0 + 1; r1 < n && g->key[r1].h == g->key[r0].h; r1++) {
        }
        if (r1 - r0 < 2) continue;
        int32_t l = g->key[r0].j; /* the largest limit of the run leads */
        share_images(&d[l], &st[l], &dl, &sl);
        /* Descending limits: each follower goes to the head, so the list ascends. */
        for (int64_t r = r0 + 1; r < r1; r++) {
            int32_t f = g->key[r].j;
            share_images(&d[f], &st[f], &dc, &sc);
            if (memcmp(&dc, &dl, sizeof dc) || memcmp(&sc, &sl, sizeof sc)) continue;
            g->lead[f] = l;
            g->fnext[f] = g->fhead[l];
            g->fhead[l] = f;
            g->live[g->pos[f]] = 0;
            parked++;
        }
    }
    return parked;
}

/* Before leader j (of kind `kind`) steps at ev: each follower whose limit that step
 * might reach leaves, with the leader's state before it (ascending limits: a prefix of the list),
 * and steps itself; live (the kernel's, based on g->live) marks its position. Returns how many
 * left. Out of line: the kernel's loop keeps one copy of the step. */
__attribute__((noinline)) static int64_t share_leave(const mm__guards *g, uint8_t *live,
                                                     const mm_derived *d, mm_state *st, int64_t j,
                                                     int kind, const mm_event *ev,
                                                     const mm__tape_view *v, int64_t w1, int64_t w0)
{
    int64_t n = 0;
    for (int32_t f = g->fhead[j];
         f >= 0 && d[f].limit < d[j].limit && d[f].limit < share_bound(&st[j], &d[j]);
         f = g->fhead[j]) {
        int64_t p = g->pos[f];
        live[p] = 1;
        g->fhead[j] = g->fnext[f];
        g->lead[f] = -1;
        share_copy(&st[f], &st[j]);
        mm_step_c(&st[f], ev, &d[f], NULL);
        guard_set(g, p, &st[f], &d[f], kind, ev, v, ev->i + 1, w1, w0);
        n++;
    }
    return n;
}

/* Every parked follower takes its leader's state (the kernel returns). */
static void share_unpark_all(mm_state *st, const mm__guards *g, int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        if (g->lead[j] >= 0) share_copy(&st[j], &st[g->lead[j]]);
}

#endif
