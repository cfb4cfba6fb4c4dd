/* Binance capture importer (import_binance.c): one capture line -> a parsed depth diff,
 * bookTicker, trade or REST snapshot, its prices and quantities in ticks and lots, the capture's
 * market decided or checked from the message's shape. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_binance_int.h"
#include "mm_internal.h"

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

/* data.s must be the stream symbol: opts.symbol up to its first '.'
 * ("BTCUSDT.20240808" -> BTCUSDT). */
static int check_symbol(bn *b, int32_t d)
{
    int rc = 0;
    int32_t s = req(b, d, "s", MM_J_STR, &rc);
    if (s < 0) return rc;
    if (b->j.tok[s].len != b->symlen || memcmp(b->j.src + b->j.tok[s].start, b->sym, b->symlen)) {
        char what[256];
        snprintf(what, sizeof what,
                 "message for symbol '%.*s', not %.*s (from mm_import_opts.symbol %s)",
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
        snprintf(what, sizeof what, "%s: a %s message, but mm_import_opts.market is %s", shape,
                 mm__binance_market_name[m], mm__binance_market_name[b->market]);
    else
        snprintf(what, sizeof what, "%s: a %s message in a %s capture (%s since %s:%" PRId64 ")",
                 shape, mm__binance_market_name[m], mm__binance_market_name[b->market],
                 mm__binance_market_name[b->market], PATH(b, b->market_f), b->market_line);
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
    if (b->o->no_snapshot)
        return invalid(b, "a REST snapshot, but mm_import_opts.no_snapshot is set");
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
int mm__binance_parse_line(bn *b, const char *s, size_t n)
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
