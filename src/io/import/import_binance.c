/* Binance capture importer, spot and USD-M futures (docs/import-binance.md).
 *
 * Input: one or more capture files (one day each, in order), one message per line,
 * "<local receive ns> <raw JSON>": combined-stream websocket messages {"stream":..., "data":{...}}
 * of the depth-diff, bookTicker and trade streams, and one REST depth snapshot
 * {"lastUpdateId":..., "bids":[...], "asks":[...]} (USD-M adds "T"). The two markets differ in
 * shape: USD-M diffs carry T and pu (pu = the previous diff's u), spot diffs only E, and continue
 * with U = previous u + 1; USD-M bookTickers carry e and T, spot bookTickers neither; the spot
 * snapshot has no time. The market is taken from the first message whose shape tells (or from
 * opts.market) and every later message must have that market's shape.
 *
 * Local receive order is not the exchange's order (the streams are separate), so every file is
 * read into memory first; the files form one capture: a later day without a snapshot continues the
 * book of the earlier one. Book messages (depth diffs and bookTickers) are then ordered by update
 * id and trades by trade id. The L2 book starts from the snapshot and is kept by the depth diffs,
 * whose id chain must be unbroken. Rows: bookTickers before the snapshot (the exchange's own L1
 * while no L2 state is known); the snapshot; every depth diff (top of the L2 book); every
 * bookTicker whose update id falls between two diffs (the L1 at that id, finer than the diffs);
 * every trade. A bookTicker with the same update id as the snapshot or a diff is not a row: it is
 * compared with the L2 book instead, and a disagreement is an error. Trades go before book messages
 * of the same millisecond (a trade is printed before the depth diff that shows the liquidity it
 * took).
 *
 * Times. Every exchange time is checked against the time the line was received: the capture's clock
 * offset is the median of (exchange time - receive time) over the messages that carry a time, and a
 * message more than TIME_TOL_NS away from (receive time + offset) is an error. Messages without an
 * exchange time (spot bookTickers and the spot snapshot) get (receive time + offset), clamped
 * between the time of the book message before them in update-id order and the time of the first
 * depth diff at or after their update id. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mm_internal.h"

/* The dense book spans at most 32M price ticks between the lowest and highest price seen (two
 * arrays of 128 MiB at most, two more with --skip-gaps; calloc'd, so pages never touched cost
 * nothing). Spot BTCUSDT at a 0.01 tick spans 18.5M ticks in a day (stray orders at 15,460 and
 * 200,000 dollars). */
#define BOOK_MAX_RANGE (INT64_C(1) << 25)

/* A message's exchange time may differ from its receive time + the capture's clock offset by at
 * most this much (network stalls, clock steps); more is a wrong time. */
#define TIME_TOL_NS (INT64_C(60) * 1000000000)

enum { MK_UNKNOWN = 0, MK_SPOT = 1, MK_USDM = 2 };
static const char *const MK_NAME[3] = {"unknown", "spot", "usdm"};

typedef struct lvl {
    int32_t px, qty; /* ticks, lots; qty 0 deletes */
} lvl;

/* Where a message is: file index and 1-based line; recv_ns: the receive time prefix. */
typedef struct depth_ev {
    int64_t t_ms, U, u, pu, line, recv_ns;
    int64_t off; /* first level in the level array: bids then asks */
    int32_t nb, na, f;
} depth_ev;

typedef struct ticker_ev {
    int64_t t_ms, u, line, recv_ns; /* t_ms -1: no exchange time (spot) */
    int32_t bid_px, bid_qty, ask_px, ask_qty, f;
} ticker_ev;

typedef struct trade_ev {
    int64_t t_ms, id, line, recv_ns;
    int32_t px, qty, f;
    int8_t side;
} trade_ev;

typedef struct bn {
    const char *const *paths; /* the capture files, in order */
    int32_t fi;               /* file being read */
    const mm_import_opts *o;
    const char *sym; /* the stream symbol: opts.symbol up to its first '.' */
    size_t symlen;
    mm__dec tick, lot;
    mm_error *err;
    int64_t line, recv_ns;
    mm__json j;
    int market;       /* MK_* */
    int32_t market_f; /* where the market was decided: file, line; -1 = opts.market */
    int64_t market_line;
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
    int64_t snap_id, snap_t_ms, snap_line, snap_off, snap_recv;
    int32_t snap_nb, snap_na, snap_f;
    int32_t px_min, px_max;
    int32_t min_f, max_f; /* where the lowest and highest prices were seen */
    int64_t min_line, max_line;
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

#define PATH(b, f) ((b)->paths[(f)])

static int bad(bn *b, const char *fmt, const char *a)
{
    char what[300];
    snprintf(what, sizeof what, fmt, a);
    return mm__errf(b->err, MM_EFORMAT, "%s:%" PRId64 ": %s", PATH(b, b->fi), b->line, what);
}

static int invalid(bn *b, const char *what)
{
    return mm__errf(b->err, MM_EINVALID, "%s:%" PRId64 ": %s", PATH(b, b->fi), b->line, what);
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
        char k[80];
        snprintf(k, sizeof k, "time \"%s\" is out of range", key);
        return invalid(b, k);
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
        return invalid(b, what2);
    }
    if (rc || v > INT32_MAX - 1) {
        snprintf(what2, sizeof what2, "%s '%s' is out of int32 range in ticks/lots", what, shown);
        return invalid(b, what2);
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
        if (l->px < b->px_min) b->px_min = l->px, b->min_f = b->fi, b->min_line = b->line;
        if (l->px > b->px_max) b->px_max = l->px, b->max_f = b->fi, b->max_line = b->line;
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

/* data.s must be the stream symbol: --symbol up to its first '.' ("BTCUSDT.20240808" -> BTCUSDT).
 */
static int check_symbol(bn *b, int32_t d)
{
    int rc = 0;
    int32_t s = req(b, d, "s", MM_J_STR, &rc);
    if (s < 0) return rc;
    if (b->j.tok[s].len != b->symlen || memcmp(b->j.src + b->j.tok[s].start, b->sym, b->symlen)) {
        char what[200];
        snprintf(what, sizeof what, "message for symbol '%.*s', not %.*s (from --symbol %s)",
                 (int)(b->j.tok[s].len < 40 ? b->j.tok[s].len : 40), b->j.src + b->j.tok[s].start,
                 (int)b->symlen, b->sym, b->o->symbol);
        return invalid(b, what);
    }
    return 0;
}

/* The message on this line has the shape of market m (`shape` says how it tells). The first such
 * message decides the market of the whole capture unless opts.market did; a later one of the
 * other market is an error. */
static int set_market(bn *b, int m, const char *shape)
{
    if (b->market == MK_UNKNOWN) {
        b->market = m;
        b->market_f = b->fi;
        b->market_line = b->line;
        return 0;
    }
    if (b->market == m) return 0;
    char what[400];
    if (b->market_f < 0)
        snprintf(what, sizeof what, "%s: a %s message, but --market %s", shape, MK_NAME[m],
                 MK_NAME[b->market]);
    else
        snprintf(what, sizeof what, "%s: a %s message in a %s capture (%s since %s:%" PRId64 ")",
                 shape, MK_NAME[m], MK_NAME[b->market], MK_NAME[b->market], PATH(b, b->market_f),
                 b->market_line);
    return invalid(b, what);
}

static int parse_snapshot(bn *b)
{
    int rc;
    if (b->have_snap) {
        char what[600];
        snprintf(what, sizeof what, "a second REST snapshot (the first is %s:%" PRId64 ")",
                 PATH(b, b->snap_f), b->snap_line);
        return invalid(b, what);
    }
    if (b->o->no_snapshot) return invalid(b, "a REST snapshot, but --no-snapshot was given");
    int has_t = mm__json_get(&b->j, 0, "T") >= 0;
    if ((rc = set_market(b, has_t ? MK_USDM : MK_SPOT,
                         has_t ? "snapshot with \"T\"" : "snapshot without \"T\"")))
        return rc;
    if ((rc = get_u64(b, 0, "lastUpdateId", &b->snap_id))) return rc;
    b->snap_t_ms = -1;
    if (has_t && (rc = get_ms(b, 0, "T", &b->snap_t_ms))) return rc;
    int32_t bids = req(b, 0, "bids", MM_J_ARR, &rc), asks;
    if (bids < 0) return rc;
    if ((asks = req(b, 0, "asks", MM_J_ARR, &rc)) < 0) return rc;
    int64_t save = b->nlv;
    b->snap_off = b->nlv;
    if ((rc = levels(b, bids, &b->snap_nb)) || (rc = levels(b, asks, &b->snap_na))) {
        b->nlv = save;
        return rc;
    }
    b->have_snap = 1;
    b->snap_line = b->line;
    b->snap_f = b->fi;
    b->snap_recv = b->recv_ns;
    return 0;
}

static int parse_depth(bn *b, int32_t d)
{
    int rc;
    int has_pu = mm__json_get(&b->j, d, "pu") >= 0;
    if ((rc = set_market(b, has_pu ? MK_USDM : MK_SPOT,
                         has_pu ? "depthUpdate with \"pu\"" : "depthUpdate without \"pu\"")) ||
        (rc = check_symbol(b, d)))
        return rc;
    if (grow((void **)&b->dep, &b->cdep, b->ndep + 1, sizeof *b->dep)) return -ENOMEM;
    depth_ev *v = &b->dep[b->ndep];
    v->pu = -1;
    /* USD-M: T (transaction time); spot diffs have only E (event time). */
    if ((rc = get_ms(b, d, has_pu ? "T" : "E", &v->t_ms)) || (rc = get_u64(b, d, "U", &v->U)) ||
        (rc = get_u64(b, d, "u", &v->u)) || (has_pu && (rc = get_u64(b, d, "pu", &v->pu))))
        return rc;
    if (v->U > v->u) return invalid(b, "depthUpdate with U > u");
    int32_t bl = req(b, d, "b", MM_J_ARR, &rc), al;
    if (bl < 0) return rc;
    if ((al = req(b, d, "a", MM_J_ARR, &rc)) < 0) return rc;
    int64_t save = b->nlv;
    v->off = b->nlv;
    v->line = b->line;
    v->f = b->fi;
    v->recv_ns = b->recv_ns;
    if ((rc = levels(b, bl, &v->nb)) || (rc = levels(b, al, &v->na))) {
        b->nlv = save;
        return rc;
    }
    b->ndep++;
    return 0;
}

/* USD-M {"e":"bookTicker","u","s","b","B","a","A","T","E"}; spot {"u","s","b","B","a","A"}. */
static int parse_ticker(bn *b, int32_t d, int usdm)
{
    int rc;
    if ((rc = set_market(b, usdm ? MK_USDM : MK_SPOT,
                         usdm ? "bookTicker with \"e\"" : "bookTicker without \"e\"")) ||
        (rc = check_symbol(b, d)))
        return rc;
    if (grow((void **)&b->tk, &b->ctk, b->ntk + 1, sizeof *b->tk)) return -ENOMEM;
    ticker_ev *v = &b->tk[b->ntk];
    v->line = b->line;
    v->f = b->fi;
    v->recv_ns = b->recv_ns;
    v->t_ms = -1;
    if ((usdm && (rc = get_ms(b, d, "T", &v->t_ms))) || (rc = get_u64(b, d, "u", &v->u))) return rc;
    if ((rc = dec_tok(b, mm__json_get(&b->j, d, "b"), &b->tick, "\"b\"", &v->bid_px)) ||
        (rc = dec_tok(b, mm__json_get(&b->j, d, "B"), &b->lot, "\"B\"", &v->bid_qty)) ||
        (rc = dec_tok(b, mm__json_get(&b->j, d, "a"), &b->tick, "\"a\"", &v->ask_px)) ||
        (rc = dec_tok(b, mm__json_get(&b->j, d, "A"), &b->lot, "\"A\"", &v->ask_qty)))
        return rc;
    b->ntk++;
    return 0;
}

/* The same shape on both markets: {"e":"trade","s","t","p","q","T","m",...}. */
static int parse_trade(bn *b, int32_t d)
{
    int rc;
    if ((rc = check_symbol(b, d))) return rc;
    if (grow((void **)&b->tr, &b->ctr, b->ntr + 1, sizeof *b->tr)) return -ENOMEM;
    trade_ev *v = &b->tr[b->ntr];
    v->line = b->line;
    v->f = b->fi;
    v->recv_ns = b->recv_ns;
    if ((rc = get_ms(b, d, "T", &v->t_ms)) || (rc = get_u64(b, d, "t", &v->id))) return rc;
    if ((rc = dec_tok(b, mm__json_get(&b->j, d, "p"), &b->tick, "\"p\"", &v->px)) ||
        (rc = dec_tok(b, mm__json_get(&b->j, d, "q"), &b->lot, "\"q\"", &v->qty)))
        return rc;
    int32_t m = mm__json_get(&b->j, d, "m");
    if (m < 0 || (b->j.tok[m].type != MM_J_TRUE && b->j.tok[m].type != MM_J_FALSE))
        return bad(b, "%s", "trade without a boolean \"m\"");
    if (v->qty <= 0 || v->px <= 0) return invalid(b, "trade with zero price or quantity");
    /* m: the buyer is the maker, so the seller took liquidity: seller-initiated. */
    v->side = b->j.tok[m].type == MM_J_TRUE ? -1 : 1;
    b->ntr++;
    return 0;
}

/* One capture line. */
static int parse_line(bn *b, const char *s, size_t n)
{
    size_t sp = 0;
    while (sp < n && s[sp] >= '0' && s[sp] <= '9')
        sp++;
    if (sp == 0 || sp >= n || s[sp] != ' ') return bad(b, "%s", "expected '<receive ns> <JSON>'");
    if (mm__parse_i64(s, sp, &b->recv_ns))
        return bad(b, "%s", "the receive time is over the int64 range of ns");
    char why[128];
    int rc = mm__json_parse(&b->j, s + sp + 1, n - sp - 1, why, sizeof why);
    if (rc == -ENOMEM) return -ENOMEM;
    if (rc) {
        /* columns in the message count from the start of the line */
        long col = strtol(why + 7, NULL, 10) + (long)sp + 1;
        const char *what = strchr(why, ':');
        return mm__errf(b->err, MM_EFORMAT, "%s:%" PRId64 ": malformed JSON at column %ld%s",
                        PATH(b, b->fi), b->line, col, what ? what : "");
    }
    if (b->j.tok[0].type != MM_J_OBJ) return bad(b, "%s", "the JSON value is not an object");
    if (mm__json_get(&b->j, 0, "lastUpdateId") >= 0) return parse_snapshot(b);
    int32_t d = req(b, 0, "data", MM_J_OBJ, &rc);
    if (d < 0) return rc;
    int32_t e = mm__json_get(&b->j, d, "e");
    if (e < 0) {
        /* Only the spot bookTicker has no event type. */
        if (mm__json_get(&b->j, d, "u") >= 0 && mm__json_get(&b->j, d, "b") >= 0 &&
            mm__json_get(&b->j, d, "a") >= 0)
            return parse_ticker(b, d, 0);
        return bad(b, "%s",
                   "missing field \"e\" (and not a spot bookTicker: no \"u\", \"b\", \"a\")");
    }
    if (b->j.tok[e].type != MM_J_STR) return bad(b, "%s", "field \"e\" has the wrong type");
    if (str_is(b, e, "depthUpdate")) return parse_depth(b, d);
    if (str_is(b, e, "bookTicker")) return parse_ticker(b, d, 1);
    if (str_is(b, e, "trade")) return parse_trade(b, d);
    char ev[40];
    snprintf(ev, sizeof ev, "%.*s", (int)(b->j.tok[e].len < 32 ? b->j.tok[e].len : 32),
             b->j.src + b->j.tok[e].start);
    return bad(b, "unknown event type '%s'", ev);
}

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

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}
/* The L2 book: dense quantities by price tick over [base, base + range), best levels tracked.
 * With --skip-gaps, levels set by the current diff carry its stamp (bs, as; NULL otherwise), so
 * that a crossed book after a skipped gap can drop the stale side. */
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

/* ---- times ---- */

/* Exchange time - receive time, ns. Both lie in [0, INT64_MAX] (get_ms, mm__parse_i64), so the
 * difference fits in int64. */
static int64_t skew_ns(int64_t t_ms, int64_t recv_ns)
{
    return t_ms * 1000000 - recv_ns;
}

/* The capture's clock offset: the lower median of skew_ns over every message with an exchange time
 * (a median, so that a few wrong times cannot move it). Returns 0, 1 (no timed message: *off = 0)
 * or -ENOMEM. */
static int clock_offset(const bn *b, int64_t *off)
{
    *off = 0;
    int64_t n = b->ndep + b->ntr + (b->have_snap && b->snap_t_ms >= 0), k = 0;
    for (int64_t i = 0; i < b->ntk; i++)
        n += b->tk[i].t_ms >= 0;
    if (n == 0) return 1;
    int64_t *a = malloc((size_t)n * sizeof *a);
    if (!a) return -ENOMEM;
    for (int64_t i = 0; i < b->ndep; i++)
        a[k++] = skew_ns(b->dep[i].t_ms, b->dep[i].recv_ns);
    for (int64_t i = 0; i < b->ntr; i++)
        a[k++] = skew_ns(b->tr[i].t_ms, b->tr[i].recv_ns);
    for (int64_t i = 0; i < b->ntk; i++)
        if (b->tk[i].t_ms >= 0) a[k++] = skew_ns(b->tk[i].t_ms, b->tk[i].recv_ns);
    if (b->have_snap && b->snap_t_ms >= 0) a[k++] = skew_ns(b->snap_t_ms, b->snap_recv);
    qsort(a, (size_t)n, sizeof *a, cmp_i64);
    *off = a[(n - 1) / 2];
    free(a);
    return 0;
}

/* The first (in file, line order) message whose exchange time is more than TIME_TOL_NS from its
 * receive time + off. */
typedef struct late {
    int32_t f;
    int64_t line, t_ms, recv_ns;
    const char *what;
} late;

static void late_note(late *w, int64_t off, int32_t f, int64_t line, int64_t t_ms, int64_t recv_ns,
                      const char *what)
{
    double d = (double)skew_ns(t_ms, recv_ns) - (double)off;
    if (d <= (double)TIME_TOL_NS && d >= -(double)TIME_TOL_NS) return;
    if (w->what && (w->f < f || (w->f == f && w->line < line))) return;
    *w = (late){f, line, t_ms, recv_ns, what};
}

static int check_times(bn *b, int64_t off)
{
    late w = {0};
    for (int64_t i = 0; i < b->ndep; i++)
        late_note(&w, off, b->dep[i].f, b->dep[i].line, b->dep[i].t_ms, b->dep[i].recv_ns,
                  "depthUpdate");
    for (int64_t i = 0; i < b->ntr; i++)
        late_note(&w, off, b->tr[i].f, b->tr[i].line, b->tr[i].t_ms, b->tr[i].recv_ns, "trade");
    for (int64_t i = 0; i < b->ntk; i++)
        if (b->tk[i].t_ms >= 0)
            late_note(&w, off, b->tk[i].f, b->tk[i].line, b->tk[i].t_ms, b->tk[i].recv_ns,
                      "bookTicker");
    if (b->have_snap && b->snap_t_ms >= 0)
        late_note(&w, off, b->snap_f, b->snap_line, b->snap_t_ms, b->snap_recv, "snapshot");
    if (!w.what) return 0;
    double d = ((double)skew_ns(w.t_ms, w.recv_ns) - (double)off) * 1e-9;
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": %s time %" PRId64 " ms is %.0f s %s the time the line was "
                    "received (receive ns + the capture's clock offset of %.3f s); more than %d s "
                    "off is a wrong time",
                    PATH(b, w.f), w.line, w.what, w.t_ms, d < 0 ? -d : d,
                    d > 0 ? "after" : "before", (double)off * 1e-9,
                    (int)(TIME_TOL_NS / 1000000000));
}

/* Receive time + offset, in ms, within [0, INT64_MAX / 10^6]. */
static int64_t est_ms(int64_t recv_ns, int64_t off)
{
    int64_t ns = off > 0 && recv_ns > INT64_MAX - off ? INT64_MAX : recv_ns + off;
    if (ns < 0) return 0;
    return ns / 1000000 > INT64_MAX / 1000000 ? INT64_MAX / 1000000 : ns / 1000000;
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
    int64_t e = est_ms(recv_ns, r->off), tol = TIME_TOL_NS / 1000000;
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
                        "(lastUpdateId %" PRId64 ") starts at U=%" PRId64 " (--skip-gaps to go on)",
                        PATH(b, v->f), v->line, b->snap_id, v->U);
    if (b->market == MK_SPOT)
        return mm__errf(b->err, MM_EINVALID,
                        "%s:%" PRId64 ": gap in depth update ids: U=%" PRId64
                        " but the previous u=%" PRId64
                        " (U must be the previous u + 1; --skip-gaps to go on)",
                        PATH(b, v->f), v->line, v->U, prev_u);
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": gap in depth update ids: pu=%" PRId64
                    " but the previous u=%" PRId64 " (--skip-gaps to go on)",
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

static int replay(bn *b, mm_import_report *rep, mm__imp_tape *tape)
{
    mm_error *err = b->err;
    l2 k = {0};
    if (!b->have_snap && !b->o->no_snapshot)
        return mm__errf(
            err, MM_EINVALID,
            "%s: no REST depth snapshot line (\"lastUpdateId\") in the capture (a later "
            "day of a capture: give the day with the snapshot first, or --no-snapshot "
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
    rp r = {{tape, {0}, INT64_MIN, b->tr, b->ntr, 0, 0, 0}, 0, INT64_MIN, 0};
    if ((rc = clock_offset(b, &r.off)) < 0) goto nomem;
    rep->clock_offset_ns = r.off;
    if ((rc = check_times(b, r.off))) return rc;
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
            l2_set(&k, i < v->nb, l->px, l->qty, stamp);
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
            if (k.as[k.best_a] != stamp)
                l2_set(&k, 0, (int32_t)(k.base + k.best_a), 0, stamp);
            else if (k.bs[k.best_b] != stamp)
                l2_set(&k, 1, (int32_t)(k.base + k.best_b), 0, stamp);
            else {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": depthUpdate u=%" PRId64 " crosses the book",
                              PATH(b, v->f), v->line, v->u);
                goto out;
            }
        }
        l2_top(&k, &top);
        rep->depth_updates++;
        if (book_row(&r.em, t_ms, &top)) goto nomem;
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
    free(k.bq);
    free(k.aq);
    free(k.bs);
    free(k.as);
    return rc;
}

int mm_import_binance_files(const char *const *captures, int n, const mm_import_opts *o,
                            mm_ticks *out, mm_import_report *rep, mm_error *err)
{
    mm_import_report lrep;
    if (!rep) rep = &lrep;
    memset(rep, 0, sizeof *rep);
    if (out) memset(out, 0, sizeof *out);
    if (!captures || n < 1 || !out)
        return mm__errf(err, -EINVAL, "import binance: missing argument");
    for (int i = 0; i < n; i++)
        if (!captures[i]) return mm__errf(err, -EINVAL, "import binance: missing argument");
    bn b;
    memset(&b, 0, sizeof b);
    mm_instrument inst;
    int rc = mm__import_setup(o, NULL, NULL, &b.tick, &b.lot, &inst, err);
    if (rc) return rc;
    if (o->market && strcmp(o->market, "spot") && strcmp(o->market, "usdm"))
        return mm__errf(err, MM_EUSAGE, "market: '%s' is not spot or usdm", o->market);
    b.paths = captures;
    b.o = o;
    b.err = err;
    b.sym = o->symbol;
    b.symlen = strcspn(o->symbol, ".");
    if (b.symlen == 0)
        return mm__errf(err, MM_EUSAGE,
                        "symbol: '%s' has nothing before its first '.' (the stream's symbol)",
                        o->symbol);
    if (o->market) {
        b.market = !strcmp(o->market, "spot") ? MK_SPOT : MK_USDM;
        b.market_f = -1;
    }
    b.px_min = INT32_MAX;
    b.px_max = INT32_MIN;
    mm__lines lr;
    memset(&lr, 0, sizeof lr);
    mm__imp_tape tape = {0};
    mm_error lerr = {0};
    for (b.fi = 0; b.fi < n; b.fi++) {
        if ((rc = mm__lines_open(&lr, captures[b.fi], err))) goto done;
        for (;;) {
            char *s;
            size_t len;
            int r = mm__lines_next(&lr, &s, &len, err);
            if (r < 0) {
                rc = r;
                goto done;
            }
            if (!r) break;
            b.line = lr.lineno;
            b.err = o->skip_bad ? &lerr : err;
            rc = parse_line(&b, s, len);
            b.err = err;
            if (rc) {
                if (!o->skip_bad || rc == -ENOMEM) {
                    if (rc == -ENOMEM) mm__errf(err, rc, "%s: out of memory", captures[b.fi]);
                    goto done;
                }
                mm__import_skip(rep, &lerr);
                rc = 0;
            }
        }
        rep->lines += lr.lineno;
        rep->bytes += lr.bytes;
        mm__lines_close(&lr);
    }
    rep->files = n;
    snprintf(rep->market, sizeof rep->market, "%s", MK_NAME[b.market]);
    /* source: "binance-spot capture day1.gz + day2.gz" (cut to the attribute's size) */
    int w = snprintf(inst.source, sizeof inst.source, "binance-%s capture", MK_NAME[b.market]);
    for (int i = 0; i < n && w > 0 && (size_t)w < sizeof inst.source; i++) {
        const char *base = strrchr(captures[i], '/');
        w += snprintf(inst.source + w, sizeof inst.source - (size_t)w, "%s%s", i ? " + " : " ",
                      base ? base + 1 : captures[i]);
    }
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

int mm_import_binance(const char *capture, const mm_import_opts *o, mm_ticks *out,
                      mm_import_report *rep, mm_error *err)
{
    const char *one[1] = {capture};
    return mm_import_binance_files(one, 1, o, out, rep, err);
}
