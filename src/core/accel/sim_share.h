/* The shared states of the batched kernels (sim_batch_kernel.h includes it): families, leaders and
 * members, their merges and splits, and the members' replay log (docs/model.md section 8, "Shared
 * states"). */
#ifndef MM_SIM_SHARE_H
#define MM_SIM_SHARE_H

#include <stdint.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_internal.h"

/* ---- Shared states (docs/model.md section 8, "Shared states") ----
 *
 * Combinations of a block whose constants differ only in the inventory limit and the fee rates
 * (which only the accounts read: a fill's fee, section 5) and that draw no random number are a
 * family. Two of a family whose states agree on every shared field (the
 * orders, actions in flight, responses, reports, pacing: all but their own, role OWN in
 * MM_STATE_FIELDS; dead fields aside, sim_share_dead.h) and whose rooms clamped at the quote size
 * agree (share_rooms) take the same branches in a step that fills nothing and moves no known
 * position: the limit enters a step only through those rooms, and their own fields only through the
 * rooms, the samples and the fills. So one of them (the leader) steps and the others (members) are
 * parked: no skip test, no step; each takes its own samples. Their counters (orders, cancels,
 * rejects, messages, held) move with the leader's: a member's is the leader's plus an offset fixed
 * when it was parked. When a leader's step fills or moves its known position (share_clean fails),
 * each member whose rooms after the step clamp as the leader's do gets the leader's fills replayed
 * on its own fields (with its own fee rate); every other member takes the leader's state from
 * before that step (keeping its own fields), steps itself, and joins the leader again, or another
 * member that stepped to the same state, or leads on its own (share_split). At each window the
 * kernel merges the leaders whose states agree again (share_park); when it returns, every member
 * takes its leader's state (share_unpark_all). */

/* A combination with constants d may share a state (the key table says so, MM_CAP_SHARE). One that
 * draws (section 3.3) draws at the family's key and the event's positions, so a member draws what
 * its leader draws; the key is a shared field: states of other families or paths never share. */
static inline int share_ok(const mm_derived *d)
{
    return (d->caps & MM_CAP_SHARE) != 0;
}

/* What two combinations must agree on to share: the constants without the limit, the state
 * without its own fields, and the four rooms clamped at the quote size. Compared as bytes (every
 * structure is memset before it is filled, so padding compares equal). */
typedef struct mm__share_img {
    mm_derived d;
    mm_state s;
    int64_t room[4];
    int64_t rest[2]; /* the kernels' rest times (mm__guards.rest), canonical */
} mm__share_img;

/* The skew is zero at every time left: the known position does not move the targets. */
static inline int share_no_skew(const mm_derived *d)
{
    return d->sk0 == 0.0 && d->sk1 == 0.0;
}

/* The four rooms of state s a step compares (section 3.1 with q, section 6 with kq: bid, ask),
 * clamped at the quote size: every comparison a step makes with a room is room <= 0, min(new_qty,
 * room) or min(size, room), with new_qty <= size, which the clamped room decides alike. */
static inline void share_rooms(const mm_state *s, const mm_derived *d, int64_t room[4])
{
    int64_t S = d->size, L = d->limit;
    int64_t r[4] = {L - s->q, L + s->q, L - s->kq, L + s->kq};
    for (int k = 0; k < 4; k++)
        room[k] = r[k] < S ? r[k] : S;
}

/* The counters a member keeps as the leader's plus an offset. */
static inline void share_counters(const mm_state *s, int64_t c[MM_SHARE_NOFF])
{
    c[0] = s->orders;
    c[1] = s->cancels;
    c[2] = s->rejects;
    c[3] = s->held;
}

/* A state's own fields, which a member keeps (the known position too where the skew is zero), are
 * those of role OWN in mm_state.h's MM_STATE_FIELDS. */

#include "sim_share_dead.h"

/* The image of state s at time t: what two states must agree on to share from t on. */
static inline void share_image(const mm_derived *d, const mm_state *s, const int64_t rest[2],
                               mm__share_img *img, int64_t t)
{
    memcpy(&img->d, d, sizeof img->d);
    img->d.limit = 0;
    img->d.maker_rate = img->d.taker_rate = 0.0; /* read by the accounts alone */
    memcpy(&img->s, s, sizeof img->s);
#define MM_SHARE_ZERO(kind, f, init, role) MM_STATE_IF_OWN(role, img->s.f = 0;)
    MM_STATE_FIELDS(MM_SHARE_ZERO)
#undef MM_SHARE_ZERO
    if (!share_no_skew(d)) img->s.kq = s->kq; /* the known position moves the targets */
    for (int k = 0; k < 2; k++)
        share_canon(s, k, t, &img->s.s[k], &img->s.wait_ns[k]);
    for (int k = 0; k < 2; k++)
        img->rest[k] = share_canon_rest(rest[k], t);
    share_rooms(s, d, img->room);
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

/* A hash of the fields that decide most of share_image (states whose images are equal have equal
 * hashes; equal hashes are then compared whole): the orders and actions, the reports' count and
 * times of the channel and wake-up, the clamped rooms, the known position where the skew reads it,
 * on top of ch, the hash of the constants without the limit, and the stream key (3.3: the paths of
 * a family make runs of their own). */
static inline uint64_t share_quick(const mm_state *s, const mm_derived *d, uint64_t ch, int64_t t)
{
    int64_t w[24];
    for (int k = 0; k < 2; k++) {
        mm_side c;
        int64_t wait;
        share_canon(s, k, t, &c, &wait);
        const mm_side *o = &c;
        w[8 * k] = (int64_t)((uint64_t)(uint32_t)o->px << 32 | (uint32_t)o->qty);
        w[8 * k + 1] = (int64_t)((uint64_t)(uint32_t)o->ahead << 32 | (uint32_t)o->deep);
        w[8 * k + 2] = o->land_ns;
        w[8 * k + 3] = (int64_t)((uint64_t)(uint32_t)o->new_px << 32 | (uint32_t)o->new_qty);
        w[8 * k + 4] = o->resp_ns;
        w[8 * k + 5] = o->done_ns;
        w[8 * k + 6] = o->acc;
        w[8 * k + 7] = wait;
    }
    w[16] = s->nrep;
    w[17] = s->chan_ns;
    w[18] = s->wake_ns;
    w[19] = share_no_skew(d) ? 0 : s->kq;
    share_rooms(s, d, w + 20);
    return share_hash(w, sizeof w, ch ^ s->key); /* the stream key: 0 where nothing is drawn */
}

#include "sim_share_sort.h"

/* mm_step_c on state s, and the kernels' rest times of s (mm__guards.rest): a side whose action
 * landed at this event (land_ns at or before it, before the step: one landing per side and event,
 * as an action sent at ev lands after it) and that the landing left accepted (acc) came to rest. */
static inline void share_rested(const mm_state *s, int64_t rest[2], int64_t land0, int64_t land1,
                                int64_t ts)
{
    if (land0 <= ts && s->s[0].acc) rest[0] = ts;
    if (land1 <= ts && s->s[1].acc) rest[1] = ts;
}
static inline void share_step(mm_state *s, int64_t rest[2], const mm_event *ev, const mm_derived *d,
                              mm_trace_sink *tr)
{
    int64_t land0 = s->s[0].land_ns, land1 = s->s[1].land_ns;
    mm_step_c(s, ev, d, tr);
    share_rested(s, rest, land0, land1, ev->ts);
}

/* share_step out of line, for the splits and the lanes' rare steps: mm_step_c is inlined at the
 * skip kernel's one hot call site only (four inlined copies took 50 s of compiling per instruction
 * set). */
__attribute__((noinline)) static void share_step_out(mm_state *s, int64_t rest[2],
                                                     const mm_event *ev, const mm_derived *d,
                                                     mm_trace_sink *tr)
{
    share_step(s, rest, ev, d, tr);
}

/* Member f (own fields and counter offsets off, parked at time t; frest its rest times) takes
 * leader state l (lrest its rest times). */
static inline void share_take(mm_state *f, int64_t frest[2], const mm_state *l,
                              const int64_t lrest[2], const int64_t *off, int64_t t)
{
    mm_state own;
    int64_t orest[2] = {frest[0], frest[1]};
    memcpy(&own, f, sizeof own);
    memcpy(f, l, sizeof *f);
    frest[0] = lrest[0];
    frest[1] = lrest[1];
#define MM_SHARE_KEEP(kind, x, init, role) MM_STATE_IF_OWN(role, f->x = own.x;)
    MM_STATE_FIELDS(MM_SHARE_KEEP)
#undef MM_SHARE_KEEP
    share_restore(f, frest, &own, orest, t);
    int64_t c[MM_SHARE_NOFF];
    share_counters(l, c);
    f->orders = c[0] + off[0];
    f->cancels = c[1] + off[1];
    f->rejects = c[2] + off[2];
    f->held = c[3] + off[3];
}

/* ---- The replay log. A leader's step that is not clean but leaves every member's rooms clamped
 * as the leader's (no member splits) is not replayed on the members at once: its fills and the move
 * of its known position are appended to the leader's log, and a member replays the entries it has
 * not replayed (share_flush) whenever its own fields are read: before its samples (with deferred
 * samples, interleaved with them in event order: share_flush_all), before a split of its leader,
 * at each window's merge and when the kernel returns. A member replays the same
 * fills, in the same order, with the same moves, as at once, so its fields are the same bit for
 * bit. While parked, a member's position and known position differ from its leader's by fixed
 * offsets (each takes the same fills and the same move of the known position), so the leader's
 * positions at which its rooms clamp as the leader's form a range (share_narrow); the leader's
 * range is the intersection over its members, and a step that leaves the leader in its range
 * splits no member. */

/* A leader's fill m on member s (constants df): its own accounts, with its own fee rate (members
 * may differ from their leader in their fee rates, which only the accounts read). */
static inline void share_fill_own(mm_state *s, const mm__fill_move *m, const mm_derived *df,
                                  int64_t ts, int64_t i)
{
    mm__fill_move mf = *m;
    mf.fee = (mf.taker ? df->taker_rate : df->maker_rate) * mf.notional;
    mm__fill_own(s, &mf, ts, i);
}

/* Member f replays the entries of its leader's log it has not replayed. */
static inline void share_flush(const mm__guards *g, const mm_derived *d, mm_state *st, int32_t f)
{
    int32_t l = g->lead[f], p = g->logpos[f], n = g->logn[l];
    if (p == n) return;
    const mm__share_log *e = &g->log[(int64_t)l * MM_SHARE_LOG];
    mm_state *s = &st[f];
    for (; p < n; p++) {
        if (e[p].fill) share_fill_own(s, &e[p].mv, &d[f], e[p].ts, e[p].i);
        s->kq += e[p].dkq;
    }
    g->logpos[f] = n;
}

/* Every member of leader j replays its log, which is then empty; with deferred samples (the lanes
 * kernel, g->sw->settle) it also takes its samples through event `through`, in event order with
 * the replays. */
static inline void share_flush_all(const mm__guards *g, const mm_derived *d, mm_state *st,
                                   int32_t j, int64_t through)
{
    if (g->sw->settle) {
        if (g->fhead[j] >= 0) g->sw->settle(g, d, st, j, through);
        g->logn[j] = 0;
        return;
    }
    if (g->logn[j] == 0) return;
    for (int32_t f = g->fhead[j]; f >= 0; f = g->fnext[f]) {
        share_flush(g, d, st, f);
        g->logpos[f] = 0;
    }
    g->logn[j] = 0;
}

/* Leader l's range: every position (no member yet). */
static inline void share_range_all(const mm__guards *g, int32_t l)
{
    int64_t *r = &g->range[4 * (int64_t)l];
    r[0] = r[2] = INT64_MIN;
    r[1] = r[3] = INT64_MAX;
}

/* Narrows leader l's range to the positions x (then known positions) of l at which member f's rooms
 * clamp as l's, f's position being x + o with o its offset now (both states current). With S the
 * quote size, the rooms min(L - x, S) and min(L + x, S) of l (limit Ll) and f (limit Lm, at x + o)
 * agree for every x when Lm - o = Ll (resp. Lm + o = Ll), else exactly when x <= min(Lm - o, Ll) -
 * S (resp. x >= S - min(Lm + o, Ll)): both rooms then reach S, and below it they differ. */
static inline void share_narrow(const mm__guards *g, const mm_derived *d, const mm_state *st,
                                int32_t f, int32_t l)
{
    int64_t *r = &g->range[4 * (int64_t)l];
    int64_t S = d[l].size, Ll = d[l].limit, Lm = d[f].limit;
    int64_t o[2] = {st[f].q - st[l].q, st[f].kq - st[l].kq};
    for (int k = 0; k < 2; k++) {
        int64_t A = Lm - o[k], B = Lm + o[k];
        if (A != Ll) {
            int64_t hi = (A < Ll ? A : Ll) - S;
            if (hi < r[2 * k + 1]) r[2 * k + 1] = hi;
        }
        if (B != Ll) {
            int64_t lo = S - (B < Ll ? B : Ll);
            if (lo > r[2 * k]) r[2 * k] = lo;
        }
    }
}

/* Parks f (a combination with no members, its state current but for the samples before event cur
 * that it has not taken) as a member of leader l, whose states agree from time t on (l's log is
 * replayed on its members or empty). */
static inline void share_link(const mm__guards *g, const mm_derived *d, const mm_state *st,
                              int32_t f, int32_t l, int64_t t, int64_t cur)
{
    g->tlink[f] = t;
    g->scur[f] = cur;
    if (g->fhead[l] < 0) share_range_all(g, l);
    share_narrow(g, d, st, f, l);
    g->logpos[f] = g->logn[l];
    int64_t cf[MM_SHARE_NOFF], cl[MM_SHARE_NOFF];
    share_counters(&st[f], cf);
    share_counters(&st[l], cl);
    for (int k = 0; k < MM_SHARE_NOFF; k++)
        g->off[(int64_t)f * MM_SHARE_NOFF + k] = cf[k] - cl[k];
    g->lead[f] = l;
    g->fnext[f] = g->fhead[l];
    g->fhead[l] = f;
    g->live[g->pos[f]] = 0;
}

/* share_park's merge: the leaders and the combinations on their own whose states agree. */
static int64_t share_merge(const mm_derived *d, mm_state *st, const mm__guards *g, int64_t m,
                           int first, int64_t t, int64_t ev)
{
    int64_t n = 0, parked = 0;
    mm__share_img ic, il;
    memset(&ic, 0, sizeof ic);
    memset(&il, 0, sizeof il);
    for (int64_t j = 0; j < m; j++) {
        if (g->lead[j] >= 0) {
            parked++;
            continue;
        }
        if (!share_ok(&d[j])) continue;
        if (first) { /* the constants' hash, once per kernel call */
            memcpy(&ic.d, &d[j], sizeof ic.d);
            ic.d.limit = 0;
            ic.d.maker_rate = ic.d.taker_rate = 0.0;
            g->chash[j] = share_hash(&ic.d, sizeof ic.d, UINT64_C(0xcbf29ce484222325));
        }
        g->key[n++] =
            (mm__share_key){share_quick(&st[j], &d[j], g->chash[j], t), d[j].limit, (int32_t)j};
    }
    if (n < 2) return parked;
    share_sort(g->key, n);
    for (int64_t r0 = 0, r1; r0 < n; r0 = r1) {
        for (r1 = r0 + 1; r1 < n && g->key[r1].h == g->key[r0].h; r1++) {
        }
        if (r1 - r0 < 2) continue;
        int32_t l = g->key[r0].j; /* the largest limit of the run leads */
        share_image(&d[l], &st[l], &g->rest[2 * (int64_t)l], &il, t);
        for (int64_t r = r0 + 1; r < r1; r++) {
            int32_t f = g->key[r].j;
            share_image(&d[f], &st[f], &g->rest[2 * (int64_t)f], &ic, t);
            if (memcmp(&ic, &il, sizeof ic)) continue; /* a collision of the hash */
            /* f's members follow it to l: each takes f's state (its own fields kept) and is
             * parked with l from t on (counted in parked already). */
            for (int32_t e = g->fhead[f], next; e >= 0; e = next) {
                next = g->fnext[e];
                share_take(&st[e], &g->rest[2 * (int64_t)e], &st[f], &g->rest[2 * (int64_t)f],
                           &g->off[(int64_t)e * MM_SHARE_NOFF], g->tlink[e]);
                share_link(g, d, st, e, l, t, g->scur[e]); /* (its samples still wait) */
            }
            g->fhead[f] = -1;
            share_link(g, d, st, f, l, t, ev);
            parked++;
        }
    }
    return parked;
}

/* Finds the families' shared states among the m combinations of the block (at positions perm) and
 * parks their members (live[q] = 0 at their positions) at event ev (time t). With `first` (the
 * kernel starts: every state whole) it sets up the links (pos = the inverse of perm, every position
 * live); otherwise it merges the leaders (and combinations on their own) whose states agree now:
 * one leads, the others and their members become its members. Returns the number of members
 * parked. */
static int64_t share_park(const mm_derived *d, mm_state *st, const mm__guards *g, int64_t m,
                          int first, int64_t t, int64_t ev)
{
    if (first) {
        for (int64_t j = 0; j < m; j++) {
            g->lead[j] = g->fhead[j] = g->fnext[j] = -1;
            g->logn[j] = 0;
            g->rest[2 * j] = g->rest[2 * j + 1] = INT64_MIN; /* none in this call yet */
        }
        for (int64_t q = 0; q < m; q++) {
            g->pos[g->perm[q]] = (int32_t)q;
            g->live[q] = 1;
        }
    } else { /* every member current, every log empty */
        for (int64_t j = 0; j < m; j++)
            if (g->fhead[j] >= 0 && g->logn[j]) share_flush_all(g, d, st, (int32_t)j, ev - 1);
    }
    return share_merge(d, st, g, m, first, t, ev);
}

/* Every member takes its leader's state (the kernel returns). */
static void share_unpark_all(const mm_derived *d, mm_state *st, const mm__guards *g, int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        if (g->lead[j] >= 0) {
            share_flush(g, d, st, (int32_t)j);
            share_take(&st[j], &g->rest[2 * j], &st[g->lead[j]], &g->rest[2 * (int64_t)g->lead[j]],
                       &g->off[j * MM_SHARE_NOFF], g->tlink[j]);
        }
}

/* A step from pre to post that its members may share: no fill, the known position unmoved. */
static inline int share_clean(const mm_state *pre, const mm_state *post)
{
    return pre->fills[0] == post->fills[0] && pre->fills[1] == post->fills[1] &&
           pre->kq == post->kq;
}

/* The fills of one step, from its trace (share_split). */
#define MM_SHARE_FILLS 8
typedef struct mm__share_fills {
    int n, over; /* over: more than MM_SHARE_FILLS */
    int32_t side[MM_SHARE_FILLS], px[MM_SHARE_FILLS], qty[MM_SHARE_FILLS], taker[MM_SHARE_FILLS];
} mm__share_fills;

static void share_record(const mm_trace_rec *r, void *user)
{
    mm__share_fills *f = user;
    if (r->kind != MM_TR_FILL) return;
    if (f->n == MM_SHARE_FILLS) {
        f->over = 1;
        return;
    }
    f->side[f->n] = r->side > 0 ? 0 : 1;
    f->px[f->n] = r->px;
    f->qty[f->n] = r->qty;
    f->taker[f->n] = r->taker;
    f->n++;
}

/* Leader j stepped event ev from pre (its state before, with the leader's counters) and the step
 * was not clean. Each member took the same fills (its orders are the leader's) and its known
 * position moved as the leader's (the same reports): where its rooms after the step, so computed,
 * clamp as the leader's do, it took every branch the leader took (the landings compared the rooms
 * before the step, the decision the rooms after it) and only its own accounts differ: the fills
 * are replayed on them (mm__fill_own) and it stays. Every other member takes pre (keeping its own
 * fields), steps ev_ns (ev without samples: taken at once, or settled through ev), then joins j or
 * a member with the same state (at most MM_SHARE_SUBS compared), or leads itself. The new leaders
 * are appended to out (*nout; their positions are live again). *shared (slots parked until the
 * window's end, left events from ev on) is kept. Returns the number of members stepped. The
 * leader's fills: fills when the caller recorded them in its step (a fills_only sink on
 * share_record), else from its step again, from pre, traced. Out of line: the kernels keep one copy
 * of the step. */
#define MM_SHARE_SUBS 8
__attribute__((noinline)) static int64_t
share_split(const mm__guards *g, const mm_derived *d, mm_state *st, int32_t j, const mm_state *pre,
            const int64_t pre_rest[2], const mm_event *ev_ns, int32_t *out, int64_t *nout,
            int64_t *shared, int64_t left, const mm__share_fills *fills)
{
    mm__share_fills fl;
    if (fills) {
        fl = *fills;
    } else {
        fl.n = fl.over = 0;
        mm_state t;
        memcpy(&t, pre, sizeof t);
        mm_trace_sink sink = {share_record, &fl, 1};
        int64_t trest[2] = {0, 0}; /* (the trial's rest times are not kept) */
        share_step_out(&t, trest, ev_ns, &d[j], &sink);
    }
    /* The fills' moves, the same for every member but for the fee (share_fill_own: members differ
     * in inv_limit and the fee rates only). */
    mm__fill_move mv[MM_SHARE_FILLS];
    int64_t dq = 0, dkq = st[j].kq - pre->kq, lroom[4];
    for (int k = 0; k < fl.n; k++) {
        mm__fill_move_of(&mv[k], ev_ns, &d[j], fl.side[k], fl.px[k], fl.qty[k], fl.taker[k]);
        dq += mv[k].dq;
    }
    /* No member splits: the step goes to the log (after the members replay it when it is full). */
    const int64_t *rg = &g->range[4 * (int64_t)j];
    if (!fl.over && st[j].q >= rg[0] && st[j].q <= rg[1] && st[j].kq >= rg[2] &&
        st[j].kq <= rg[3]) {
        int ne = fl.n ? fl.n : 1;
        if (g->logn[j] + ne > MM_SHARE_LOG) share_flush_all(g, d, st, j, ev_ns->i);
        mm__share_log *e = &g->log[(int64_t)j * MM_SHARE_LOG + g->logn[j]];
        for (int k = 0; k < ne; k++) {
            if (k < fl.n) e[k].mv = mv[k];
            e[k].fill = k < fl.n;
            e[k].ts = ev_ns->ts;
            e[k].i = ev_ns->i;
            e[k].dkq = k == ne - 1 ? dkq : 0;
        }
        g->logn[j] += ne;
        return 0;
    }
    share_flush_all(g, d, st, j, ev_ns->i);
    share_range_all(g, j);
    share_rooms(&st[j], &d[j], lroom);
    /* The states a stepped member may join: j and the new leaders, up to MM_SHARE_SUBS, each with
     * its quick hash (share_quick: equal images have equal hashes); an image is made only where
     * the hashes agree (most stepped members join no one: their images were half of a split's
     * copying), and kept for the next member. */
    mm__share_img sub[MM_SHARE_SUBS], ic;
    int32_t subj[MM_SHARE_SUBS];
    uint64_t subq[MM_SHARE_SUBS];
    int subimg[MM_SHARE_SUBS];
    int nsub = 0;
    int64_t n = 0;
    int32_t f = g->fhead[j];
    g->fhead[j] = -1;
    while (f >= 0) {
        int32_t next = g->fnext[f];
        mm_state *s = &st[f];
        if (!fl.over) {
            mm_state t; /* only q and kq are read */
            t.q = s->q + dq;
            t.kq = s->kq + dkq;
            int64_t r[4];
            share_rooms(&t, &d[f], r);
            if (!memcmp(r, lroom, sizeof r)) {
                for (int k = 0; k < fl.n; k++)
                    share_fill_own(s, &mv[k], &d[f], ev_ns->ts, ev_ns->i);
                s->kq = t.kq;
                g->fnext[f] = g->fhead[j]; /* stays: counters moved as the leader's */
                g->fhead[j] = f;
                g->logpos[f] = 0;
                share_narrow(g, d, st, f, j);
                f = next;
                continue;
            }
        }
        g->lead[f] = g->fnext[f] = -1;
        int64_t *frest = &g->rest[2 * (int64_t)f];
        share_take(s, frest, pre, pre_rest, &g->off[(int64_t)f * MM_SHARE_NOFF], g->tlink[f]);
        share_step_out(s, frest, ev_ns, &d[f], NULL);
        n++;
        *shared -= left;
        if (!nsub) {
            subq[0] = share_quick(&st[j], &d[j], g->chash[j], ev_ns->ts);
            subimg[0] = 0;
            subj[nsub++] = j;
        }
        uint64_t qf = share_quick(s, &d[f], g->chash[f], ev_ns->ts);
        int k = 0, icset = 0;
        for (; k < nsub; k++) {
            if (subq[k] != qf) continue;
            if (!subimg[k]) { /* (st[subj[k]] has not changed since it stepped) */
                memset(&sub[k], 0, sizeof sub[k]);
                share_image(&d[subj[k]], &st[subj[k]], &g->rest[2 * (int64_t)subj[k]], &sub[k],
                            ev_ns->ts);
                subimg[k] = 1;
            }
            if (!icset) {
                memset(&ic, 0, sizeof ic);
                share_image(&d[f], s, frest, &ic, ev_ns->ts);
                icset = 1;
            }
            if (!memcmp(&ic, &sub[k], sizeof ic)) break;
        }
        if (k < nsub) {
            share_link(g, d, st, f, subj[k], ev_ns->ts, ev_ns->i + 1);
            *shared += left - 1;
        } else {
            g->live[g->pos[f]] = 1;
            g->logn[f] = 0;
            out[(*nout)++] = f;
            if (nsub < MM_SHARE_SUBS) {
                if (icset) memcpy(&sub[nsub], &ic, sizeof ic);
                subimg[nsub] = icset;
                subq[nsub] = qf;
                subj[nsub++] = f;
            }
        }
        f = next;
    }
    return n;
}

#endif
