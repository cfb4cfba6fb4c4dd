/* Binance USD-M futures capture importer (docs/import-binance.md).
 *
 * Input: one message per line, "<local receive ns> <raw JSON>": combined-stream websocket messages
 * {"stream":..., "data":{...}} of the depthUpdate, bookTicker and trade streams, and one REST depth
 * snapshot {"lastUpdateId":..., "T":..., "bids":[...], "asks":[...]}.
 *
 * Local receive order is meaningless (the streams arrive on different connections), so the whole
 * capture is read into memory first. Book messages (depth diffs and bookTickers) are then ordered
 * by update id and trades by (trade time, trade id). The L2 book starts from the snapshot and is
 * kept by the depth diffs, whose id chain (pu = previous u) must be unbroken. Rows: bookTickers
 * before the snapshot (the exchange's own L1 while no L2 state is known); the snapshot; every depth
 * diff (top of the L2 book); every bookTicker whose update id falls between two diffs (the L1 at
 * that id, finer than the diffs); every trade. A bookTicker with the same update id as the snapshot
 * or a diff is not a row: it is compared with the L2 book instead, and a disagreement is an error.
 * Trades go before book messages of the same millisecond (a trade is printed before the depth diff
 * that shows the liquidity it took). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mm_internal.h"
#include "import_internal.h"

/* The dense book spans at most 16M price ticks between the lowest and highest price seen (4 arrays
 * of 64 MiB at most; calloc'd, so pages never touched cost nothing). */
#define BOOK_MAX_RANGE (INT64_C(1) << 24)

typedef struct lvl {
    int32_t px, qty; /* ticks, lots; qty 0 deletes */
} lvl;

typedef struct depth_ev {
    int64_t t_ms, U, u, pu, line;
    int64_t off; /* first level in the level array: bids then asks */
    int32_t nb, na;
} depth_ev;

typedef struct ticker_ev {
    int64_t t_ms, u, line;
    int32_t bid_px, bid_qty, ask_px, ask_qty;
} ticker_ev;

typedef struct trade_ev {
    int64_t t_ms, id, line;
    int32_t px, qty;
    int8_t side;
} trade_ev;

typedef struct bn {
    const char *path;
    const mm_import_opts *o;
    mm__dec tick, lot;
    mm_error *err;
    int64_t line;
    mm__json j;
    /* parsed messages */
    depth_ev *dep;
    int64_t ndep, cdep;
    ticker_ev *tk;
    int64_t ntk, ctk;
    trade_ev *tr;
    int64_t ntr, ctr;
    lvl *lv;
    int64_t nlv, clv;
    int have_snap;
    int64_t snap_id, snap_t_ms, snap_line, snap_off;
    int32_t snap_nb, snap_na;
    int32_t px_min, px_max;
} bn;

static int grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

static int bad(bn *b, const char *fmt, const char *a)
{
    char what[300];
    snprintf(what, sizeof what, fmt, a);
    return mm__errf(b->err, MM_EFORMAT, "%s:%" PRId64 ": %s", b->path, b->line, what);
}

static int32_t req(bn *b, int32_t obj, const char *key, int type, int *rc)
{
    int32_t t = mm__json_get(&b->j, obj, key);
    if (t < 0 || b->j.tok[t].type != type) {
        char k[40];
        snprintf(k, sizeof k, "\"%s\"", key);
        *rc = bad(b, t < 0 ? "missing field %s" : "field %s has the wrong type", k);
        return -1;
    }
    return t;
}

static int get_u64(bn *b, int32_t obj, const char *key, int64_t *v)
{
    int rc = 0;
    int32_t t = req(b, obj, key, MM_J_NUM, &rc);
    if (t < 0) return rc;
    if (mm__json_u64(&b->j, t, v)) {
        char k[40];
        snprintf(k, sizeof k, "\"%s\"", key);
        return bad(b, "field %s is not a non-negative integer", k);
    }
    return 0;
}

/* A time in ms since the epoch; it must convert to int64 ns. */
static int get_ms(bn *b, int32_t obj, const char *key, int64_t *v)
{
    int rc = get_u64(b, obj, key, v);
    if (!rc && *v > INT64_MAX / 1000000) {
        char k[40];
        snprintf(k, sizeof k, "\"%s\"", key);
        return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": time %s is out of range", b->path,
                        b->line, k);
    }
    return rc;
}

/* A decimal string token -> units (ticks or lots) in int32. */
static int dec_tok(bn *b, int32_t t, const mm__dec *unit, const char *what, int32_t *out)
{
    if (t < 0 || b->j.tok[t].type != MM_J_STR) return bad(b, "%s is not a decimal string", what);
    const char *s = b->j.src + b->j.tok[t].start;
    size_t n = b->j.tok[t].len;
    int64_t v;
    int rc = mm__dec_to_units(s, n, unit, &v);
    char shown[48];
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 40 ? n : 40), s);
    char what2[120];
    if (rc == -1 || (rc == 0 && v < 0)) {
        snprintf(what2, sizeof what2, "%s '%s' is not a non-negative decimal", what, shown);
        return bad(b, "%s", what2);
    }
    if (rc == -2) {
        snprintf(what2, sizeof what2, "%s '%s' is not a multiple of the %s", what, shown,
                 unit == &b->tick ? "tick" : "lot");
        return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": %s", b->path, b->line, what2);
    }
    if (rc || v > INT32_MAX - 1) {
        snprintf(what2, sizeof what2, "%s '%s' is out of int32 range in ticks/lots", what, shown);
        return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": %s", b->path, b->line, what2);
    }
    *out = (int32_t)v;
    return 0;
}

/* Append the [price, qty] pairs of array token `arr` to the level array. */
static int levels(bn *b, int32_t arr, int32_t *count)
{
    *count = 0;
    int rc;
    for (int32_t e = mm__json_child(&b->j, arr); e >= 0; e = mm__json_sibling(&b->j, arr, e)) {
        if (b->j.tok[e].type != MM_J_ARR || b->j.tok[e].count != 2)
            return bad(b, "%s", "a level is not [price, qty]");
        if (grow((void **)&b->lv, &b->clv, b->nlv + 1, sizeof *b->lv)) return -ENOMEM;
        lvl *l = &b->lv[b->nlv];
        int32_t p = e + 1, q = b->j.tok[p].next;
        if ((rc = dec_tok(b, p, &b->tick, "price", &l->px))) return rc;
        if ((rc = dec_tok(b, q, &b->lot, "quantity", &l->qty))) return rc;
        if (l->px < b->px_min) b->px_min = l->px;
        if (l->px > b->px_max) b->px_max = l->px;
        b->nlv++;
        (*count)++;
    }
    return 0;
}

static int str_is(const bn *b, int32_t t, const char *s)
{
    return t >= 0 && b->j.tok[t].type == MM_J_STR && b->j.tok[t].len == strlen(s) &&
           !memcmp(b->j.src + b->j.tok[t].start, s, strlen(s));
}

static int check_symbol(bn *b, int32_t d)
{
    int rc = 0;
    int32_t s = req(b, d, "s", MM_J_STR, &rc);
    if (s < 0) return rc;
    if (!str_is(b, s, b->o->symbol)) {
        char what[120];
        snprintf(what, sizeof what, "message for symbol '%.*s', not %s",
                 (int)(b->j.tok[s].len < 40 ? b->j.tok[s].len : 40), b->j.src + b->j.tok[s].start,
                 b->o->symbol);
        return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": %s", b->path, b->line, what);
    }
    return 0;
}

/* One capture line. */
static int parse_line(bn *b, const char *s, size_t n)
{
    size_t sp = 0;
    while (sp < n && s[sp] >= '0' && s[sp] <= '9')
        sp++;
    if (sp == 0 || sp >= n || s[sp] != ' ') return bad(b, "%s", "expected '<receive ns> <JSON>'");
    char why[128];
    int rc = mm__json_parse(&b->j, s + sp + 1, n - sp - 1, why, sizeof why);
    if (rc == -ENOMEM) return mm__errf(b->err, -ENOMEM, "%s: out of memory", b->path);
    if (rc) {
        /* columns in the message count from the start of the line */
        long col = strtol(why + 7, NULL, 10) + (long)sp + 1;
        const char *what = strchr(why, ':');
        return mm__errf(b->err, MM_EFORMAT, "%s:%" PRId64 ": malformed JSON at column %ld%s",
                        b->path, b->line, col, what ? what : "");
    }
    if (b->j.tok[0].type != MM_J_OBJ) return bad(b, "%s", "the JSON value is not an object");
    int32_t lu = mm__json_get(&b->j, 0, "lastUpdateId");
    if (lu >= 0) {
        if (b->have_snap)
            return mm__errf(b->err, MM_EINVALID,
                            "%s:%" PRId64 ": a second REST snapshot (the first is on line %" PRId64
                            ")",
                            b->path, b->line, b->snap_line);
        if ((rc = get_u64(b, 0, "lastUpdateId", &b->snap_id)) ||
            (rc = get_ms(b, 0, "T", &b->snap_t_ms)))
            return rc;
        int32_t bids = req(b, 0, "bids", MM_J_ARR, &rc), asks;
        if (bids < 0) return rc;
        if ((asks = req(b, 0, "asks", MM_J_ARR, &rc)) < 0) return rc;
        b->snap_off = b->nlv;
        if ((rc = levels(b, bids, &b->snap_nb)) || (rc = levels(b, asks, &b->snap_na))) return rc;
        b->have_snap = 1;
        b->snap_line = b->line;
        return 0;
    }
    int32_t d = req(b, 0, "data", MM_J_OBJ, &rc);
    if (d < 0) return rc;
    int32_t e = req(b, d, "e", MM_J_STR, &rc);
    if (e < 0) return rc;
    if (str_is(b, e, "depthUpdate")) {
        if ((rc = check_symbol(b, d))) return rc;
        if (grow((void **)&b->dep, &b->cdep, b->ndep + 1, sizeof *b->dep)) return -ENOMEM;
        depth_ev *v = &b->dep[b->ndep];
        if ((rc = get_ms(b, d, "T", &v->t_ms)) || (rc = get_u64(b, d, "U", &v->U)) ||
            (rc = get_u64(b, d, "u", &v->u)) || (rc = get_u64(b, d, "pu", &v->pu)))
            return rc;
        if (v->U > v->u)
            return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": depthUpdate with U > u", b->path,
                            b->line);
        int32_t bl = req(b, d, "b", MM_J_ARR, &rc), al;
        if (bl < 0) return rc;
        if ((al = req(b, d, "a", MM_J_ARR, &rc)) < 0) return rc;
        int64_t save = b->nlv;
        v->off = b->nlv;
        v->line = b->line;
        if ((rc = levels(b, bl, &v->nb)) || (rc = levels(b, al, &v->na))) {
            b->nlv = save;
            return rc;
        }
        b->ndep++;
        return 0;
    }
    if (str_is(b, e, "bookTicker")) {
        if ((rc = check_symbol(b, d))) return rc;
        if (grow((void **)&b->tk, &b->ctk, b->ntk + 1, sizeof *b->tk)) return -ENOMEM;
        ticker_ev *v = &b->tk[b->ntk];
        v->line = b->line;
        if ((rc = get_ms(b, d, "T", &v->t_ms)) || (rc = get_u64(b, d, "u", &v->u))) return rc;
        if ((rc = dec_tok(b, mm__json_get(&b->j, d, "b"), &b->tick, "\"b\"", &v->bid_px)) ||
            (rc = dec_tok(b, mm__json_get(&b->j, d, "B"), &b->lot, "\"B\"", &v->bid_qty)) ||
            (rc = dec_tok(b, mm__json_get(&b->j, d, "a"), &b->tick, "\"a\"", &v->ask_px)) ||
            (rc = dec_tok(b, mm__json_get(&b->j, d, "A"), &b->lot, "\"A\"", &v->ask_qty)))
            return rc;
        b->ntk++;
        return 0;
    }
    if (str_is(b, e, "trade")) {
        if ((rc = check_symbol(b, d))) return rc;
        if (grow((void **)&b->tr, &b->ctr, b->ntr + 1, sizeof *b->tr)) return -ENOMEM;
        trade_ev *v = &b->tr[b->ntr];
        v->line = b->line;
        if ((rc = get_ms(b, d, "T", &v->t_ms)) || (rc = get_u64(b, d, "t", &v->id))) return rc;
        if ((rc = dec_tok(b, mm__json_get(&b->j, d, "p"), &b->tick, "\"p\"", &v->px)) ||
            (rc = dec_tok(b, mm__json_get(&b->j, d, "q"), &b->lot, "\"q\"", &v->qty)))
            return rc;
        int32_t m = mm__json_get(&b->j, d, "m");
        if (m < 0 || (b->j.tok[m].type != MM_J_TRUE && b->j.tok[m].type != MM_J_FALSE))
            return bad(b, "%s", "trade without a boolean \"m\"");
        if (v->qty <= 0 || v->px <= 0)
            return mm__errf(b->err, MM_EINVALID,
                            "%s:%" PRId64 ": trade with zero price or quantity", b->path, b->line);
        /* m: the buyer is the maker, so the seller took liquidity: seller-initiated. */
        v->side = b->j.tok[m].type == MM_J_TRUE ? -1 : 1;
        b->ntr++;
        return 0;
    }
    char ev[40];
    snprintf(ev, sizeof ev, "%.*s", (int)(b->j.tok[e].len < 32 ? b->j.tok[e].len : 32),
             b->j.src + b->j.tok[e].start);
    return bad(b, "unknown event type '%s'", ev);
}

static int cmp_dep(const void *x, const void *y)
{
    const depth_ev *a = x, *b = y;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_tk(const void *x, const void *y)
{
    const ticker_ev *a = x, *b = y;
    if (a->u != b->u) return a->u < b->u ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

static int cmp_tr(const void *x, const void *y)
{
    const trade_ev *a = x, *b = y;
    if (a->t_ms != b->t_ms) return a->t_ms < b->t_ms ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* The L2 book: dense quantities by price tick over [base, base + range), best levels tracked.
 * Levels set by the current diff carry its stamp, so that a crossed book after a skipped gap can
 * drop the stale side. */
typedef struct l2 {
    int32_t base;
    int64_t range;
    int32_t *bq, *aq;
    uint32_t *bs, *as;
    int64_t best_b, best_a; /* indices, -1 / range when the side is empty */
} l2;

static void l2_set(l2 *k, int bid, int32_t px, int32_t qty, uint32_t stamp)
{
    int64_t i = (int64_t)px - k->base;
    if (bid) {
        k->bq[i] = qty;
        k->bs[i] = stamp;
        if (qty > 0 && i > k->best_b)
            k->best_b = i;
        else if (qty == 0 && i == k->best_b)
            while (k->best_b >= 0 && k->bq[k->best_b] == 0)
                k->best_b--;
    } else {
        k->aq[i] = qty;
        k->as[i] = stamp;
        if (qty > 0 && i < k->best_a)
            k->best_a = i;
        else if (qty == 0 && i == k->best_a)
            while (k->best_a < k->range && k->aq[k->best_a] == 0)
                k->best_a++;
    }
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
    mm__imp_row top; /* current top of book (last book row) */
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
                        b->path, v->line, v->u);
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
                    b->path, t->line, t->u, t->bid_px, t->bid_qty, t->ask_px, t->ask_qty, what,
                    top->bid_px, top->bid_sz, top->ask_px, top->ask_sz);
}

static int replay(bn *b, mm_import_report *rep, mm__imp_tape *tape)
{
    mm_error *err = b->err;
    const char *path = b->path;
    if (!b->have_snap)
        return mm__errf(err, MM_EINVALID,
                        "%s: no REST depth snapshot line (\"lastUpdateId\") in the capture", path);
    if (b->ndep > 1) qsort(b->dep, (size_t)b->ndep, sizeof *b->dep, cmp_dep);
    if (b->ntk > 1) qsort(b->tk, (size_t)b->ntk, sizeof *b->tk, cmp_tk);
    if (b->ntr > 1) qsort(b->tr, (size_t)b->ntr, sizeof *b->tr, cmp_tr);
    for (int64_t i = 1; i < b->ndep; i++)
        if (b->dep[i].u == b->dep[i - 1].u)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": depthUpdate u=%" PRId64 " repeats line %" PRId64, path,
                            b->dep[i].line, b->dep[i].u, b->dep[i - 1].line);
    for (int64_t i = 1; i < b->ntk; i++)
        if (b->tk[i].u == b->tk[i - 1].u)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": bookTicker u=%" PRId64 " repeats line %" PRId64, path,
                            b->tk[i].line, b->tk[i].u, b->tk[i - 1].line);
    for (int64_t i = 1; i < b->ntr; i++)
        if (b->tr[i].id == b->tr[i - 1].id)
            return mm__errf(err, MM_EINVALID,
                            "%s:%" PRId64 ": trade id %" PRId64 " repeats line %" PRId64, path,
                            b->tr[i].line, b->tr[i].id, b->tr[i - 1].line);
    l2 k = {0};
    int rc = 0;
    if (b->nlv) {
        k.base = b->px_min;
        k.range = (int64_t)b->px_max - b->px_min + 1;
    } else {
        k.range = 1;
    }
    if (k.range > BOOK_MAX_RANGE)
        return mm__errf(err, MM_EINVALID,
                        "%s: prices span %" PRId64 " ticks, more than the %" PRId64
                        " the dense book holds (is the tick too small?)",
                        path, k.range, BOOK_MAX_RANGE);
    k.bq = calloc((size_t)k.range, 4);
    k.aq = calloc((size_t)k.range, 4);
    k.bs = calloc((size_t)k.range, 4);
    k.as = calloc((size_t)k.range, 4);
    if (!k.bq || !k.aq || !k.bs || !k.as) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory for the book", path);
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
    emit em = {tape, {0}, INT64_MIN, b->tr, b->ntr, 0, 0, 0};
    int64_t di = 0, ti = 0, prev_u = -1, last_book_t = INT64_MIN;
    mm__imp_row top = {0};
    /* Before the snapshot, depth diffs cannot be applied (no L2 state yet), but bookTickers are the
     * exchange's own L1: they are rows, and trades after the first of them carry it. */
    while (di < b->ndep && b->dep[di].u < b->snap_id)
        di++;
    rep->dropped_before_sync += di;
    for (; ti < b->ntk && b->tk[ti].u < b->snap_id; ti++) {
        const ticker_ev *v = &b->tk[ti];
        if (v->t_ms < last_book_t) {
            rc = mm__errf(err, MM_EINVALID,
                          "%s:%" PRId64 ": update id %" PRId64 " has time %" PRId64
                          " ms, before an earlier update id's %" PRId64 " ms",
                          path, v->line, v->u, v->t_ms, last_book_t);
            goto out;
        }
        last_book_t = v->t_ms;
        if ((rc = ticker_top(b, v, &top))) goto out;
        rep->book_tickers++;
        if ((rc = book_row(&em, v->t_ms, &top))) goto nomem;
    }
    l2_top(&k, &top);
    if (k.best_b >= 0 && k.best_a < k.range && k.best_b >= k.best_a) {
        rc = mm__errf(err, MM_EINVALID, "%s:%" PRId64 ": the snapshot's book is crossed", path,
                      b->snap_line);
        goto out;
    }
    if (b->snap_t_ms < last_book_t) {
        rc = mm__errf(err, MM_EINVALID,
                      "%s:%" PRId64 ": the snapshot (lastUpdateId %" PRId64 ") has time %" PRId64
                      " ms, before a bookTicker of a lower update id (%" PRId64 " ms)",
                      path, b->snap_line, b->snap_id, b->snap_t_ms, last_book_t);
        goto out;
    }
    /* Trades before the snapshot's millisecond carry the previous L1; those of its millisecond
     * follow the snapshot row. */
    if ((rc = flush_trades(&em, b->snap_t_ms - 1))) goto nomem;
    em.top = top;
    em.have_top = 1;
    top.ts_ns = b->snap_t_ms * 1000000;
    if (mm__imp_tape_push(tape, &top)) goto nomem;
    last_book_t = b->snap_t_ms;
    if (ti < b->ntk && b->tk[ti].u == b->snap_id) {
        rep->ticker_checks++;
        if ((rc = ticker_check(b, &b->tk[ti++], &top, "snapshot"))) goto out;
    }
    int gapped = 0;
    uint32_t stamp = 0;
    while (di < b->ndep || ti < b->ntk) {
        int is_dep = di < b->ndep && (ti >= b->ntk || b->dep[di].u <= b->tk[ti].u);
        int64_t t_ms = is_dep ? b->dep[di].t_ms : b->tk[ti].t_ms,
                line = is_dep ? b->dep[di].line : b->tk[ti].line;
        if (t_ms < last_book_t) {
            rc = mm__errf(err, MM_EINVALID,
                          "%s:%" PRId64 ": update id %" PRId64 " has time %" PRId64
                          " ms, before an earlier update id's %" PRId64 " ms",
                          path, line, is_dep ? b->dep[di].u : b->tk[ti].u, t_ms, last_book_t);
            goto out;
        }
        last_book_t = t_ms;
        if (!is_dep) {
            const ticker_ev *v = &b->tk[ti++];
            mm__imp_row r;
            if ((rc = ticker_top(b, v, &r))) goto out;
            rep->book_tickers++;
            if ((rc = book_row(&em, t_ms, &r))) goto nomem;
            continue;
        }
        const depth_ev *v = &b->dep[di++];
        int first = prev_u < 0;
        int chained = first ? (v->U <= b->snap_id && v->u >= b->snap_id) : v->pu == prev_u;
        if (!chained) {
            if (!b->o->skip_gaps) {
                if (first)
                    rc = mm__errf(err, MM_EINVALID,
                                  "%s:%" PRId64 ": gap: the first depthUpdate after the snapshot "
                                  "(lastUpdateId %" PRId64 ") starts at U=%" PRId64
                                  " (--skip-gaps to go on)",
                                  path, v->line, b->snap_id, v->U);
                else
                    rc = mm__errf(err, MM_EINVALID,
                                  "%s:%" PRId64 ": gap in depth update ids: pu=%" PRId64
                                  " but the previous u=%" PRId64 " (--skip-gaps to go on)",
                                  path, v->line, v->pu, prev_u);
                goto out;
            }
            rep->gaps++;
            gapped = 1;
        }
        prev_u = v->u;
        stamp++;
        for (int32_t i = 0; i < v->nb + v->na; i++) {
            const lvl *l = &b->lv[v->off + i];
            l2_set(&k, i < v->nb, l->px, l->qty, stamp);
        }
        while (k.best_b >= 0 && k.best_a < k.range && k.best_b >= k.best_a) {
            /* Crossed: only possible from stale levels after a skipped gap; drop the side not just
             * updated. */
            if (!gapped) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": the book is crossed after depthUpdate u=%" PRId64,
                              path, v->line, v->u);
                goto out;
            }
            if (k.as[k.best_a] != stamp)
                l2_set(&k, 0, (int32_t)(k.base + k.best_a), 0, stamp);
            else if (k.bs[k.best_b] != stamp)
                l2_set(&k, 1, (int32_t)(k.base + k.best_b), 0, stamp);
            else {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": depthUpdate u=%" PRId64 " crosses the book", path,
                              v->line, v->u);
                goto out;
            }
        }
        l2_top(&k, &top);
        rep->depth_updates++;
        if ((rc = book_row(&em, t_ms, &top))) goto nomem;
        if (ti < b->ntk && b->tk[ti].u == v->u) {
            /* After a skipped gap the book may be stale: counted, not compared. */
            rep->ticker_checks++;
            if (!gapped && (rc = ticker_check(b, &b->tk[ti], &top, "depth book"))) goto out;
            ti++;
        }
    }
    if ((rc = flush_trades(&em, -1))) goto nomem;
    rep->trade_msgs = em.k - em.dropped;
    rep->dropped_before_sync += em.dropped;
    goto out;
nomem:
    rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
out:
    free(k.bq);
    free(k.aq);
    free(k.bs);
    free(k.as);
    return rc;
}

int mm_import_binance(const char *capture, const mm_import_opts *o, mm_ticks *out,
                      mm_import_report *rep, mm_error *err)
{
    mm_import_report lrep;
    if (!rep) rep = &lrep;
    memset(rep, 0, sizeof *rep);
    if (out) memset(out, 0, sizeof *out);
    if (!capture || !out) return mm__errf(err, -EINVAL, "import binance: missing argument");
    bn b;
    memset(&b, 0, sizeof b);
    mm_instrument inst;
    int rc = mm__import_setup(o, NULL, NULL, &b.tick, &b.lot, &inst, err);
    if (rc) return rc;
    const char *base = strrchr(capture, '/');
    snprintf(inst.source, sizeof inst.source, "binance-usdm capture %s", base ? base + 1 : capture);
    b.path = capture;
    b.o = o;
    b.err = err;
    b.px_min = INT32_MAX;
    b.px_max = INT32_MIN;
    mm__lines lr;
    mm__imp_tape tape = {0};
    if ((rc = mm__lines_open(&lr, capture, err))) return rc;
    mm_error lerr = {0};
    for (;;) {
        char *s;
        size_t n;
        int r = mm__lines_next(&lr, &s, &n, err);
        if (r < 0) {
            rc = r;
            goto done;
        }
        if (!r) break;
        b.line = lr.lineno;
        b.err = o->skip_bad ? &lerr : err;
        rc = parse_line(&b, s, n);
        b.err = err;
        if (rc) {
            if (!o->skip_bad || rc == -ENOMEM) {
                if (rc == -ENOMEM) mm__errf(err, rc, "%s: out of memory", capture);
                goto done;
            }
            mm__import_skip(rep, &lerr);
            rc = 0;
        }
    }
    rep->lines = lr.lineno;
    rep->bytes = lr.bytes;
    if ((rc = replay(&b, rep, &tape))) goto done;
    rc = mm__imp_tape_finish(&tape, &inst, out, err);
    if (!rc) mm__import_totals(rep, out);
done:
    mm__imp_tape_free(&tape);
    mm__lines_close(&lr);
    mm__json_free(&b.j);
    free(b.dep);
    free(b.tk);
    free(b.tr);
    free(b.lv);
    return rc;
}
