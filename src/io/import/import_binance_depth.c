/* Binance capture importer: the depth stream (docs/import-binance.md, "Depth"; docs/formats.md,
 * "Depth").
 *
 * The stream shows the best K levels of each side of the L2 book (K = mm_import_opts.depth_levels,
 * default 20). It starts at the snapshot's row with a SHOW of each level in the window; after each
 * depth diff, at the diff's row, it says how the window changed: levels leaving it first (emptied:
 * a cancel or a trade to 0; pushed beyond the K-th by better levels: a hide), then levels that
 * changed in it, then levels entering it (new: an add; from beyond the K-th: a show, followed by
 * its change when the diff changed it too). So no more than K levels a side are ever shown.
 *
 * Traded volume is one removal (docs/model.md 2 and its change log of 2026-12-03): the trades
 * printed since a level last changed, at its price and on its side (a seller-initiated trade takes
 * the bid), are the first part of the level's next decrease, a TRADE row; only what the diff
 * removes beyond them is a CANCEL. A diff that shows a level grown after a trade there is a TRADE
 * then an ADD. Traded volume waiting at a level is dropped when the level changes or leaves the
 * window. Binance's diffs carry no order ids: join is -1 throughout (ids 0). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import_binance_int.h"
#include "mm_internal.h"

typedef struct change {
    int32_t px, old;
    int8_t bid;
} change;

typedef struct pending {
    int32_t px, qty; /* traded lots at px since the level last changed */
    int8_t bid;
} pending;

typedef struct bdepth {
    int K;
    mm__imp_depth *out;
    int32_t *wpx[2], *wsz[2], wn[2]; /* the window shown, best first: [1] bid, [0] ask */
    int32_t *npx[2], *nsz[2], nn[2]; /* the window after the current diff */
    change *log;                     /* the current diff's changes, in order */
    int64_t nlog, clog;
    pending *pend;
    int64_t npend, cpend;
} bdepth;

bdepth *mm__bdepth_new(int K, mm__imp_depth *out, int *rc)
{
    *rc = 0;
    if (K <= 0) return NULL;
    bdepth *d = calloc(1, sizeof *d);
    if (!d) goto nomem;
    d->K = K;
    d->out = out;
    for (int s = 0; s < 2; s++) {
        d->wpx[s] = malloc((size_t)K * 4);
        d->wsz[s] = malloc((size_t)K * 4);
        d->npx[s] = malloc((size_t)K * 4);
        d->nsz[s] = malloc((size_t)K * 4);
        if (!d->wpx[s] || !d->wsz[s] || !d->npx[s] || !d->nsz[s]) goto nomem;
    }
    out->levels = K;
    out->ids = 0;
    return d;
nomem:
    mm__bdepth_free(d);
    *rc = -ENOMEM;
    return NULL;
}

void mm__bdepth_free(bdepth *d)
{
    if (!d) return;
    for (int s = 0; s < 2; s++) {
        free(d->wpx[s]);
        free(d->wsz[s]);
        free(d->npx[s]);
        free(d->nsz[s]);
    }
    free(d->log);
    free(d->pend);
    free(d);
}

static int grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? 2 * *cap : 256;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

int mm__bdepth_log(bdepth *d, int bid, int32_t px, int32_t old)
{
    /* A level set twice in one diff is logged twice; before() reads the first entry. */
    if (grow((void **)&d->log, &d->clog, d->nlog + 1, sizeof *d->log)) return -ENOMEM;
    d->log[d->nlog++] = (change){px, old, (int8_t)bid};
    return 0;
}

int mm__bdepth_trade(bdepth *d, int8_t trade_side, int32_t px, int32_t qty)
{
    int8_t bid = trade_side < 0; /* a seller-initiated trade takes the bid */
    for (int64_t i = 0; i < d->npend; i++)
        if (d->pend[i].px == px && d->pend[i].bid == bid) {
            d->pend[i].qty = qty > INT32_MAX - d->pend[i].qty ? INT32_MAX : d->pend[i].qty + qty;
            return 0;
        }
    if (grow((void **)&d->pend, &d->cpend, d->npend + 1, sizeof *d->pend)) return -ENOMEM;
    d->pend[d->npend++] = (pending){px, qty, bid};
    return 0;
}

/* The window of book k into npx/nsz: the best K occupied levels of each side. The scan stops at
 * the side's last occupied level, so a thin side costs its own span, never the book's range. */
static void window(bdepth *d, const l2 *k)
{
    for (int bid = 0; bid < 2; bid++) {
        int32_t n = 0;
        int64_t live = bid ? k->live_b : k->live_a;
        if (bid)
            for (int64_t i = k->best_b; i >= 0 && n < d->K && n < live; i--) {
                if (k->bq[i] > 0) d->npx[1][n] = (int32_t)(k->base + i), d->nsz[1][n++] = k->bq[i];
            }
        else
            for (int64_t i = k->best_a; i < k->range && n < d->K && n < live; i++) {
                if (k->aq[i] > 0) d->npx[0][n] = (int32_t)(k->base + i), d->nsz[0][n++] = k->aq[i];
            }
        d->nn[bid] = n;
    }
}

static int32_t dense(const l2 *k, int bid, int32_t px)
{
    int64_t i = (int64_t)px - k->base;
    return bid ? k->bq[i] : k->aq[i];
}

/* Traded lots waiting at the level, taken (0 if none). */
static int32_t take_traded(bdepth *d, int bid, int32_t px)
{
    for (int64_t i = 0; i < d->npend; i++)
        if (d->pend[i].px == px && d->pend[i].bid == bid) {
            int32_t q = d->pend[i].qty;
            d->pend[i] = d->pend[--d->npend];
            return q;
        }
    return 0;
}

/* The level's size went from `was` to `now` (both shown): a TRADE for the traded lots waiting
 * there (at most `was`), then an ADD or a CANCEL for the rest. */
static int change_rows(bdepth *d, int bid, int32_t px, int32_t was, int32_t now, int64_t row)
{
    int side = bid ? 1 : -1;
    int32_t t = take_traded(d, bid, px);
    if (t > was) t = was;
    if (t > 0 && mm__imp_depth_push(d->out, row, side, px, was - t, MM_DEPTH_TRADE, -1))
        return -ENOMEM;
    was -= t;
    if (now != was && mm__imp_depth_push(d->out, row, side, px, now,
                                         now > was ? MM_DEPTH_ADD : MM_DEPTH_CANCEL, -1))
        return -ENOMEM;
    return 0;
}

/* The quantity of the level before the current diff: its first logged value, else its own. */
static int32_t before(const bdepth *d, const l2 *k, int bid, int32_t px)
{
    for (int64_t i = 0; i < d->nlog; i++)
        if (d->log[i].px == px && d->log[i].bid == bid) return d->log[i].old;
    return dense(k, bid, px);
}

enum { LEAVE = 0, CHANGE = 1, ENTER = 2 };

static int side_rows(bdepth *d, const l2 *k, int bid, int64_t row)
{
    const int32_t *op = d->wpx[bid], *os = d->wsz[bid], *np = d->npx[bid], *ns = d->nsz[bid];
    int32_t no = d->wn[bid], nw = d->nn[bid];
    int side = bid ? 1 : -1;
    for (int pass = LEAVE; pass <= ENTER; pass++) {
        int32_t i = 0, j = 0;
        while (i < no || j < nw) {
            int rc = 0;
            int only_o = j >= nw || (i < no && (bid ? op[i] > np[j] : op[i] < np[j]));
            int only_n = !only_o && (i >= no || (bid ? np[j] > op[i] : np[j] < op[i]));
            if (only_o) {
                int32_t p = op[i], was = os[i++], now = dense(k, bid, p);
                if (pass != LEAVE) continue;
                if (now == 0 || now != was) rc = change_rows(d, bid, p, was, now, row);
                if (!rc && now > 0 &&
                    mm__imp_depth_push(d->out, row, side, p, 0, MM_DEPTH_HIDE, -1))
                    rc = -ENOMEM; /* still there, beyond the K-th */
            } else if (only_n) {
                int32_t p = np[j], now = ns[j++];
                if (pass != ENTER) continue;
                int32_t was = before(d, k, bid, p);
                if (was == 0)
                    rc = mm__imp_depth_push(d->out, row, side, p, now, MM_DEPTH_ADD, -1);
                else if (!(rc = mm__imp_depth_push(d->out, row, side, p, was, MM_DEPTH_SHOW, -1)) &&
                         was != now)
                    rc = change_rows(d, bid, p, was, now, row);
            } else {
                int32_t p = np[j], was = os[i++], now = ns[j++];
                if (pass == CHANGE && was != now) rc = change_rows(d, bid, p, was, now, row);
            }
            if (rc) return -ENOMEM;
        }
    }
    return 0;
}

/* Is px (of the side) in the new window? Sorted best first: a binary search. */
static int in_window(const bdepth *d, int bid, int32_t px)
{
    int32_t lo = 0, hi = d->nn[bid];
    const int32_t *p = d->npx[bid];
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (p[mid] == px) return 1;
        if (bid ? p[mid] > px : p[mid] < px)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* The new window becomes the shown one; traded volume at levels that changed or are not shown is
 * dropped; the log is emptied. */
static void settle(bdepth *d)
{
    for (int64_t i = 0; i < d->nlog; i++)
        take_traded(d, d->log[i].bid, d->log[i].px);
    for (int64_t i = 0; i < d->npend;)
        if (!in_window(d, d->pend[i].bid, d->pend[i].px))
            d->pend[i] = d->pend[--d->npend];
        else
            i++;
    d->nlog = 0;
    for (int s = 0; s < 2; s++) {
        int32_t *t = d->wpx[s];
        d->wpx[s] = d->npx[s], d->npx[s] = t;
        t = d->wsz[s];
        d->wsz[s] = d->nsz[s], d->nsz[s] = t;
        d->wn[s] = d->nn[s];
    }
}

int mm__bdepth_start(bdepth *d, const l2 *k, int64_t row)
{
    d->wn[0] = d->wn[1] = 0;
    d->nlog = d->npend = 0;
    window(d, k);
    for (int bid = 1; bid >= 0; bid--)
        for (int32_t j = 0; j < d->nn[bid]; j++)
            if (mm__imp_depth_push(d->out, row, bid ? 1 : -1, d->npx[bid][j], d->nsz[bid][j],
                                   MM_DEPTH_SHOW, -1))
                return -ENOMEM;
    settle(d);
    return 0;
}

int mm__bdepth_diff(bdepth *d, const l2 *k, int64_t row)
{
    window(d, k);
    if (side_rows(d, k, 1, row) || side_rows(d, k, 0, row)) return -ENOMEM;
    settle(d);
    return 0;
}
