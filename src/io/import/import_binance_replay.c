/* Binance capture importer (import_binance.c): the replay. The parsed messages are ordered by
 * update id (book messages) and trade id (trades) and replayed through the L2 book into tape rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_binance_int.h"
#include "mm_internal.h"

static int cmp_dep(const void *x, const void *y)
{
    const depth_ev *a = x, *b = y;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_tk(const void *x, const void *y)
{
    const ticker_ev *a = x, *b = y;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_tr(const void *x, const void *y)
{
    const trade_ev *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* Set a level; 0 or -ENOMEM (the depth stream's log). */
static int l2_set(l2 *k, int bid, int32_t px, int32_t qty, uint32_t stamp)
{
    int64_t i = (int64_t)px - k->base;
    int32_t old = bid ? k->bq[i] : k->aq[i];
    if ((old > 0) != (qty > 0)) *(bid ? &k->live_b : &k->live_a) += qty > 0 ? 1 : -1;
    if (k->dep && old != qty && mm__bdepth_log(k->dep, bid, px, old)) return -ENOMEM;
    if (bid) {
        k->bq[i] = qty;
        if (k->bs) k->bs[i] = stamp;
        if (qty > 0 && i > k->best_b)
            k->best_b = i;
        else if (qty == 0 && i == k->best_b)
            while (k->best_b >= 0 && k->bq[k->best_b] == 0)
                k->best_b--;
    } else {
        k->aq[i] = qty;
        if (k->as) k->as[i] = stamp;
        if (qty > 0 && i < k->best_a)
            k->best_a = i;
        else if (qty == 0 && i == k->best_a)
            while (k->best_a < k->range && k->aq[k->best_a] == 0)
                k->best_a++;
    }
    return 0;
}

static void l2_top(const l2 *k, mm__imp_row *r)
{
    memset(r, 0, sizeof *r);
    if (k->best_b >= 0)
        r->bid_px = (int32_t)(k->base + k->best_b), r->bid_sz = k->bq[k->best_b];
    else
        r->bid_px = MM_PX_NONE_BID, r->bid_sz = 0;
    if (k->best_a < k->range)
        r->ask_px = (int32_t)(k->base + k->best_a), r->ask_sz = k->aq[k->best_a];
    else
        r->ask_px = MM_PX_NONE_ASK, r->ask_sz = 0;
}

typedef struct emit {
    mm__imp_tape *tape;
    struct bdepth *dep; /* the depth stream once it has started, else NULL */
    mm__imp_row top;    /* current top of book (last book row) */
    int64_t last_ns;
    const trade_ev *tr;
    int64_t ntr, k;
    int have_top;    /* a book row exists */
    int64_t dropped; /* trades before the first book row */
} emit;

/* Emit the trades with time <= t_ms (all of them when t_ms < 0), each carrying the current top of
 * book. */
static int flush_trades(emit *em, int64_t t_ms)
{
    for (; em->k < em->ntr && (t_ms < 0 || em->tr[em->k].t_ms <= t_ms); em->k++) {
        const trade_ev *v = &em->tr[em->k];
        if (!em->have_top) {
            em->dropped++; /* no book known yet */
            continue;
        }
        mm__imp_row r = em->top;
        r.ts_ns = v->t_ms * 1000000;
        r.trade_px = v->px;
        r.trade_sz = v->qty;
        r.trade_side = v->side;
        if (mm__imp_tape_push(em->tape, &r)) return -ENOMEM;
        if (em->dep && mm__bdepth_trade(em->dep, v->side, v->px, v->qty)) return -ENOMEM;
        em->last_ns = r.ts_ns;
    }
    return 0;
}

static int book_row(emit *em, int64_t t_ms, const mm__imp_row *top)
{
    int rc = flush_trades(em, t_ms);
    if (rc) return rc;
    em->top = *top;
    em->have_top = 1;
    mm__imp_row r = *top;
    r.ts_ns = t_ms * 1000000;
    r.trade_px = r.trade_sz = 0;
    r.trade_side = 0;
    em->last_ns = r.ts_ns;
    return mm__imp_tape_push(em->tape, &r);
}

/* A bookTicker as a top-of-book row (an empty side when its quantity is 0); crossed is an error. */
static int ticker_top(bn *b, const ticker_ev *v, mm__imp_row *r)
{
    memset(r, 0, sizeof *r);
    r->bid_px = v->bid_qty ? v->bid_px : MM_PX_NONE_BID;
    r->bid_sz = v->bid_qty;
    r->ask_px = v->ask_qty ? v->ask_px : MM_PX_NONE_ASK;
    r->ask_sz = v->ask_qty;
    if (r->bid_sz && r->ask_sz && r->bid_px >= r->ask_px)
        return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": bookTicker u=%" PRId64 " is crossed",
                        PATH(b, v->f), v->line, v->u);
    return 0;
}

/* A bookTicker with the same update id as a book state must show that state's top. */
static int ticker_check(bn *b, const ticker_ev *t, const mm__imp_row *top, const char *what)
{
    mm__imp_row r;
    int rc = ticker_top(b, t, &r);
    if (rc) return rc;
    if (r.bid_px == top->bid_px && r.bid_sz == top->bid_sz && r.ask_px == top->ask_px &&
        r.ask_sz == top->ask_sz)
        return 0;
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": bookTicker u=%" PRId64 " (%" PRId32 " x %" PRId32 " / %" PRId32
                    " x %" PRId32 ") disagrees with the %s (%" PRId32 " x %" PRId32 " / %" PRId32
                    " x %" PRId32 "), in ticks and lots",
                    PATH(b, t->f), t->line, t->u, t->bid_px, t->bid_qty, t->ask_px, t->ask_qty,
                    what, top->bid_px, top->bid_sz, top->ask_px, top->ask_sz);
}

/* ---- replay ---- */

typedef struct rp {
    emit em;
    int64_t off;    /* clock offset, ns */
    int64_t last_t; /* time of the last book message in update-id order, ms; INT64_MIN: none */
    int64_t dj;     /* first depth diff (all of them, used or not) with u >= the current id */
} rp;

/* Time of the first depth diff with u >= id (its changes include update id `id`), or INT64_MAX. */
static int64_t next_dep_t(const bn *b, rp *r, int64_t id)
{
    while (r->dj < b->ndep && b->dep[r->dj].u < id)
        r->dj++;
    return r->dj < b->ndep ? b->dep[r->dj].t_ms : INT64_MAX;
}

/* The time of a book message at update id `id`, in ms, into *out and r->last_t. With an exchange
 * time (t_ms >= 0): that time, which must not go back in update-id order. Without (spot bookTicker,
 * spot snapshot): receive time + clock offset, clamped into [time of the previous book message,
 * time of the first diff with u >= id]; more than TIME_TOL_NS outside that window is an error. */
static int book_time(bn *b, rp *r, int64_t t_ms, int64_t recv_ns, int64_t id, int32_t f,
                     int64_t line, const char *what, int64_t *out)
{
    if (t_ms >= 0) {
        if (r->last_t != INT64_MIN && t_ms < r->last_t)
            return mm__errf(b->err, MM_EINVALID,
                            "%s:%" PRId64 ": %s (update id %" PRId64 ") has time %" PRId64
                            " ms, before an earlier update id's %" PRId64 " ms",
                            PATH(b, f), line, what, id, t_ms, r->last_t);
        *out = r->last_t = t_ms;
        return 0;
    }
    int64_t lo = r->last_t == INT64_MIN ? 0 : r->last_t, hi = next_dep_t(b, r, id);
    int64_t e = mm__binance_est_ms(recv_ns, r->off), tol = TIME_TOL_NS / 1000000;
    if (e < lo - tol || (hi != INT64_MAX && e - hi > tol))
        return mm__errf(b->err, MM_EINVALID,
                        "%s:%" PRId64 ": %s (update id %" PRId64 ") was received at %" PRId64
                        " ms (receive ns + the capture's clock offset), more than %" PRId64
                        " s outside the times of the book messages around its update id (%" PRId64
                        " to %" PRId64 " ms)",
                        PATH(b, f), line, what, id, e, tol / 1000, lo, hi == INT64_MAX ? lo : hi);
    *out = r->last_t = e < lo ? lo : e > hi ? hi : e;
    return 0;
}

static int ticker_row(bn *b, rp *r, const ticker_ev *v, mm_import_report *rep)
{
    int64_t t = 0;
    mm__imp_row top;
    int rc = book_time(b, r, v->t_ms, v->recv_ns, v->u, v->f, v->line, "bookTicker", &t);
    if (!rc) rc = ticker_top(b, v, &top);
    if (rc) return rc;
    rep->book_tickers++;
    if (book_row(&r->em, t, &top)) return -ENOMEM;
    return 0;
}

/* Is diff v the next link of the update-id chain? first: the first diff applied after a snapshot
 * of id snap. USD-M: U <= snap <= u, then pu = previous u; spot: U <= snap + 1 <= u, then U =
 * previous u + 1. Without a snapshot (first, snap < 0) any diff starts the chain. */
static int chained(const bn *b, const depth_ev *v, int first, int64_t snap, int64_t prev_u)
{
    int spot = b->market == MK_SPOT;
    if (first)
        return snap < 0 ||
               (spot ? v->U <= snap + 1 && v->u >= snap + 1 : v->U <= snap && v->u >= snap);
    return spot ? v->U == prev_u + 1 : v->pu == prev_u;
}

static int gap_error(bn *b, const depth_ev *v, int first, int64_t prev_u)
{
    if (first)
        return mm__errf(b->err, MM_EINVALID,
                        "%s:%" PRId64 ": gap: the first depthUpdate after the snapshot "
                        "(lastUpdateId %" PRId64 ") starts at U=%" PRId64
                        " (set mm_import_opts.skip_gaps to go on)",
                        PATH(b, v->f), v->line, b->snap_id, v->U);
    if (b->market == MK_SPOT)
        return mm__errf(b->err, MM_EINVALID,
                        "%s:%" PRId64 ": gap in depth update ids: U=%" PRId64
                        " but the previous u=%" PRId64
                        " (U must be the previous u + 1; set mm_import_opts.skip_gaps to go on)",
                        PATH(b, v->f), v->line, v->U, prev_u);
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": gap in depth update ids: pu=%" PRId64
                    " but the previous u=%" PRId64 " (set mm_import_opts.skip_gaps to go on)",
                    PATH(b, v->f), v->line, v->pu, prev_u);
}

/* ticks x the tick size as an exact decimal string (falls back to %g if it does not fit). */
static void fmt_price(const bn *b, int32_t ticks, char *out, size_t cap)
{
    int64_t m = b->tick.mant, v;
    if (m > INT64_MAX / (ticks < 0 ? -(int64_t)ticks : (int64_t)ticks + 1)) {
        snprintf(out, cap, "%g", (double)ticks * mm__dec_double(&b->tick));
        return;
    }
    v = (int64_t)ticks * m;
    int64_t p = 1;
    for (int i = 0; i < b->tick.exp; i++)
        p *= 10;
    if (b->tick.exp == 0)
        snprintf(out, cap, "%" PRId64, v);
    else
        snprintf(out, cap, "%s%" PRId64 ".%0*" PRId64, v < 0 ? "-" : "", (v < 0 ? -v : v) / p,
                 b->tick.exp, (v < 0 ? -v : v) % p);
}

/* The price range is wider than the dense book: name the level that stretched it, the extreme
 * farther from the snapshot's best bid (or from the first level read), and the other extreme. */
static int span_error(bn *b, int64_t range)
{
    int32_t ref = b->have_snap && b->snap_nb ? b->lv[b->snap_off].px : b->lv[0].px;
    int hi_far = (int64_t)b->px_max - ref >= (int64_t)ref - b->px_min;
    char far[48], near[48];
    fmt_price(b, hi_far ? b->px_max : b->px_min, far, sizeof far);
    fmt_price(b, hi_far ? b->px_min : b->px_max, near, sizeof near);
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": a level at price %s makes the prices span %" PRId64
                    " ticks, from the %s price %s at %s:%" PRId64 ", more than the %" PRId64
                    " the dense book holds (is the tick too small?)",
                    PATH(b, hi_far ? b->max_f : b->min_f), hi_far ? b->max_line : b->min_line, far,
                    range, hi_far ? "lowest" : "highest", near,
                    PATH(b, hi_far ? b->min_f : b->max_f), hi_far ? b->min_line : b->max_line,
                    BOOK_MAX_RANGE);
}

int mm__binance_replay(bn *b, mm_import_report *rep, mm__imp_tape *tape)
{
    mm_error *err = b->err;
    l2 k = {0};
    if (!b->have_snap && !b->o->no_snapshot)
        return mm__errf(
            err, MM_EINVALID,
            "%s: no REST depth snapshot line (\"lastUpdateId\") in the capture (a later "
            "day of a capture: give the day with the snapshot first, or set "
            "mm_import_opts.no_snapshot "
            "for a tape of the bookTickers alone)",
            PATH(b, 0));
    if (b->ndep > 1) qsort(b->dep, (size_t)b->ndep, sizeof *b->dep, cmp_dep);
    if (b->ntk > 1) qsort(b->tk, (size_t)b->ntk, sizeof *b->tk, cmp_tk);
    if (b->ntr > 1) qsort(b->tr, (size_t)b->ntr, sizeof *b->tr, cmp_tr);
    for (int64_t i = 1; i < b->ndep; i++)
        if (b->dep[i].u == b->dep[i - 1].u)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": depthUpdate u=%" PRId64 " repeats %s:%" PRId64,
                            PATH(b, b->dep[i].f), b->dep[i].line, b->dep[i].u,
                            PATH(b, b->dep[i - 1].f), b->dep[i - 1].line);
    for (int64_t i = 1; i < b->ntk; i++)
        if (b->tk[i].u == b->tk[i - 1].u)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": bookTicker u=%" PRId64 " repeats %s:%" PRId64,
                            PATH(b, b->tk[i].f), b->tk[i].line, b->tk[i].u, PATH(b, b->tk[i - 1].f),
                            b->tk[i - 1].line);
    int rc = 0;
    rp r = {{tape, NULL, {0}, INT64_MIN, b->tr, b->ntr, 0, 0, 0}, 0, INT64_MIN, 0};
    struct bdepth *dep = NULL;
    if ((rc = mm__binance_clock_offset(b, &r.off)) < 0) goto nomem;
    rep->clock_offset_ns = r.off;
    if ((rc = mm__binance_check_times(b, r.off))) return rc;
    /* Trade ids rise with time: in id order, times never decrease. */
    for (int64_t i = 1; i < b->ntr; i++) {
        const trade_ev *p = &b->tr[i - 1], *v = &b->tr[i];
        if (v->id == p->id)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": trade id %" PRId64 " repeats %s:%" PRId64,
                            PATH(b, v->f), v->line, v->id, PATH(b, p->f), p->line);
        if (v->t_ms < p->t_ms)
            return mm__errf(
                err, MM_EINVALID,
                "%s:%" PRId64 ": trade id %" PRId64 " has time %" PRId64 " ms, before the %" PRId64
                " ms of the lower trade id %" PRId64 " (%s:%" PRId64 "); trade ids rise with time",
                PATH(b, v->f), v->line, v->id, v->t_ms, p->t_ms, p->id, PATH(b, p->f), p->line);
    }
    mm__imp_row top = {0};
    int64_t di = 0, ti = 0, prev_u = -1;
    if (!b->have_snap) {
        /* --no-snapshot: no L2 state is ever known. The diffs are checked for an unbroken chain but
         * not applied; every bookTicker is a row. */
        for (; di < b->ndep; di++) {
            const depth_ev *v = &b->dep[di];
            if (di > 0 && !chained(b, v, 0, -1, prev_u)) {
                if (!b->o->skip_gaps) return gap_error(b, v, 0, prev_u);
                rep->gaps++;
            }
            prev_u = v->u;
        }
        rep->dropped_before_sync += b->ndep;
        for (; ti < b->ntk; ti++)
            if ((rc = ticker_row(b, &r, &b->tk[ti], rep))) goto out;
        goto trades;
    }
    if (b->nlv) {
        k.base = b->px_min;
        k.range = (int64_t)b->px_max - b->px_min + 1;
    } else {
        k.range = 1;
    }
    if (k.range > BOOK_MAX_RANGE) return span_error(b, k.range);
    k.bq = calloc((size_t)k.range, 4);
    k.aq = calloc((size_t)k.range, 4);
    if (b->o->skip_gaps) {
        k.bs = calloc((size_t)k.range, 4);
        k.as = calloc((size_t)k.range, 4);
    }
    if (!k.bq || !k.aq || (b->o->skip_gaps && (!k.bs || !k.as))) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory for the book (%" PRId64 " ticks)",
                      PATH(b, 0), k.range);
        goto out;
    }
    k.best_b = -1;
    k.best_a = k.range;
    for (int32_t i = 0; i < b->snap_nb; i++) {
        const lvl *l = &b->lv[b->snap_off + i];
        if (l->qty > 0) l2_set(&k, 1, l->px, l->qty, 0);
    }
    for (int32_t i = 0; i < b->snap_na; i++) {
        const lvl *l = &b->lv[b->snap_off + b->snap_nb + i];
        if (l->qty > 0) l2_set(&k, 0, l->px, l->qty, 0);
    }
    if (!(dep = mm__bdepth_new(b->depth_levels, &tape->depth, &rc)) && rc) goto nomem;
    /* Before the snapshot, depth diffs cannot be applied (no L2 state yet), but bookTickers are the
     * exchange's own L1: they are rows, and trades after the first of them carry it. USD-M diffs
     * with u < lastUpdateId precede the snapshot, spot ones with u <= lastUpdateId. */
    int spot = b->market == MK_SPOT;
    while (di < b->ndep && (b->dep[di].u < b->snap_id || (spot && b->dep[di].u == b->snap_id)))
        di++;
    rep->dropped_before_sync += di;
    for (; ti < b->ntk && b->tk[ti].u < b->snap_id; ti++)
        if ((rc = ticker_row(b, &r, &b->tk[ti], rep))) goto out;
    l2_top(&k, &top);
    if (k.best_b >= 0 && k.best_a < k.range && k.best_b >= k.best_a) {
        rc = mm__errf(err, MM_EINVALID, "%s:%" PRId64 ": the snapshot's book is crossed",
                      PATH(b, b->snap_f), b->snap_line);
        goto out;
    }
    int64_t snap_t;
    if ((rc = book_time(b, &r, b->snap_t_ms, b->snap_recv, b->snap_id, b->snap_f, b->snap_line,
                        "the snapshot", &snap_t)))
        goto out;
    /* Trades before the snapshot's millisecond carry the previous L1; those of its millisecond
     * follow the snapshot row. */
    if (flush_trades(&r.em, snap_t - 1)) goto nomem;
    r.em.top = top;
    r.em.have_top = 1;
    top.ts_ns = snap_t * 1000000;
    if (mm__imp_tape_push(tape, &top)) goto nomem;
    if (dep) {
        /* The depth stream starts with the snapshot's book, at its row. */
        if (mm__bdepth_start(dep, &k, tape->n - 1)) goto nomem;
        k.dep = r.em.dep = dep;
    }
    if (ti < b->ntk && b->tk[ti].u == b->snap_id) {
        rep->ticker_checks++;
        if ((rc = ticker_check(b, &b->tk[ti++], &top, "snapshot"))) goto out;
    }
    int gapped = 0;
    uint32_t stamp = 0;
    while (di < b->ndep || ti < b->ntk) {
        int is_dep = di < b->ndep && (ti >= b->ntk || b->dep[di].u <= b->tk[ti].u);
        if (!is_dep) {
            if ((rc = ticker_row(b, &r, &b->tk[ti++], rep))) goto out;
            continue;
        }
        const depth_ev *v = &b->dep[di++];
        int64_t t_ms;
        if ((rc = book_time(b, &r, v->t_ms, v->recv_ns, v->u, v->f, v->line, "depthUpdate", &t_ms)))
            goto out;
        int first = prev_u < 0;
        if (!chained(b, v, first, b->snap_id, prev_u)) {
            if (!b->o->skip_gaps) {
                rc = gap_error(b, v, first, prev_u);
                goto out;
            }
            rep->gaps++;
            gapped = 1;
        }
        prev_u = v->u;
        stamp++;
        for (int32_t i = 0; i < v->nb + v->na; i++) {
            const lvl *l = &b->lv[v->off + i];
            if (l2_set(&k, i < v->nb, l->px, l->qty, stamp)) goto nomem;
        }
        while (k.best_b >= 0 && k.best_a < k.range && k.best_b >= k.best_a) {
            /* Crossed: only possible from stale levels after a skipped gap; drop the side not just
             * updated. */
            if (!gapped) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": the book is crossed after depthUpdate u=%" PRId64,
                              PATH(b, v->f), v->line, v->u);
                goto out;
            }
            if (k.as[k.best_a] != stamp) {
                if (l2_set(&k, 0, (int32_t)(k.base + k.best_a), 0, stamp)) goto nomem;
            } else if (k.bs[k.best_b] != stamp) {
                if (l2_set(&k, 1, (int32_t)(k.base + k.best_b), 0, stamp)) goto nomem;
            } else {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": depthUpdate u=%" PRId64 " crosses the book",
                              PATH(b, v->f), v->line, v->u);
                goto out;
            }
        }
        l2_top(&k, &top);
        rep->depth_updates++;
        if (book_row(&r.em, t_ms, &top)) goto nomem;
        if (dep && mm__bdepth_diff(dep, &k, tape->n - 1)) goto nomem;
        if (ti < b->ntk && b->tk[ti].u == v->u) {
            /* After a skipped gap the book may be stale: counted, not compared. */
            rep->ticker_checks++;
            if (!gapped && (rc = ticker_check(b, &b->tk[ti], &top, "depth book"))) goto out;
            ti++;
        }
    }
trades:
    if (flush_trades(&r.em, -1)) goto nomem;
    rep->trade_msgs = r.em.k - r.em.dropped;
    rep->dropped_before_sync += r.em.dropped;
    goto out;
nomem:
    rc = mm__errf(err, -ENOMEM, "%s: out of memory", PATH(b, 0));
out:
    mm__bdepth_free(dep);
    free(k.bq);
    free(k.aq);
    free(k.bs);
    free(k.as);
    return rc;
}
