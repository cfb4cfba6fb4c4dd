/* checkmodel: the depth streams of the generated tapes (docs/formats.md, "Depth") and the drawing
 * of book on them (docs/model.md 4.5).
 *
 * ck_gen_depth gives a tape (generated, perhaps perturbed) a depth stream as the importers make
 * one: a book of up to CK_BOOK_MAX levels a side behind the tape's level-1 columns, whose best
 * `levels` levels a side are shown, replayed row by row. After the depth rows of row i the best
 * shown level of a side is the row's bid_px / bid_sz (ask_px / ask_sz), the level-1 columns exactly
 * ("At the best level l2 is l1 exactly"); an empty side shows nothing. Every row, each side: the
 * levels better than the new best are gone (cancelled, or traded when the row's trade hit that
 * side), the best takes the column's size, levels behind it grow, shrink, empty and appear at
 * random (one in forty with up to INT32_MAX lots), and the stream says what changed of the shown
 * window: add, cancel and trade rows (sometimes two rows at one level in one event, or a hide and a
 * show again), hides of levels pushed beyond the window by better ones, shows of levels coming into
 * it from beyond. With order ids (ids = 1, as LOBSTER's) a removal's join is -1 (before the file),
 * the row its level last grew, a recent row or the row itself, so removals fall before and after
 * the join rows of the model's orders (l3). The stream is checked by the loader's own rules
 * (mm__depth_validate) before use.
 *
 * ck_fit_book: the book a drawn combination runs on a tape (auto where the tape lacks what l2 or l3
 * read), and its tally for the summary line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkmodel.h"
#include "mm_internal.h"
#include "mm_rng.h"

#define CK_BOOK_MAX 24

/* The depth streams' own draws (a stream per tape, apart from ck_rnd's: the tapes and combinations
 * drawn are those of a run without depth). */
static uint64_t g_dseed;
static uint32_t g_dctr;
static uint32_t drnd(void)
{
    return mm_rng4(g_dseed, g_dctr++, 0xDE9714, 0, 0).v[0];
}

typedef struct ck_lvl {
    int32_t px, sz;
    int64_t add; /* the row at which it last grew (-1: before the tape) */
} ck_lvl;
typedef struct ck_side {
    int n;
    ck_lvl l[CK_BOOK_MAX]; /* best first */
} ck_side;
typedef struct ck_rows {
    int64_t n, cap;
    int64_t *row, *join;
    int32_t *px, *sz;
    int8_t *side, *cause;
} ck_rows;

static void push(ck_rows *r, int64_t row, int64_t join, int32_t px, int32_t sz, int s, int cause)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4096;
        r->row = realloc(r->row, (size_t)r->cap * sizeof *r->row);
        r->join = realloc(r->join, (size_t)r->cap * sizeof *r->join);
        r->px = realloc(r->px, (size_t)r->cap * sizeof *r->px);
        r->sz = realloc(r->sz, (size_t)r->cap * sizeof *r->sz);
        r->side = realloc(r->side, (size_t)r->cap * sizeof *r->side);
        r->cause = realloc(r->cause, (size_t)r->cap * sizeof *r->cause);
        if (!r->row || !r->join || !r->px || !r->sz || !r->side || !r->cause) abort();
    }
    r->row[r->n] = row;
    r->join[r->n] = join;
    r->px[r->n] = px;
    r->sz[r->n] = sz;
    r->side[r->n] = (int8_t)s;
    r->cause[r->n] = (int8_t)cause;
    r->n++;
}

/* Price a better than price b on side s (+1 bid, -1 ask). */
static int better(int s, int32_t a, int32_t b)
{
    return s > 0 ? a > b : a < b;
}

static int find(const ck_side *b, int32_t px)
{
    for (int j = 0; j < b->n; j++)
        if (b->l[j].px == px) return j;
    return -1;
}

static void drop(ck_side *b, int j)
{
    memmove(&b->l[j], &b->l[j + 1], (size_t)(b->n - j - 1) * sizeof b->l[0]);
    b->n--;
}

/* Insert a level at its place (a full book loses its worst level, or the new one when that is it).
 */
static void insert(ck_side *b, int s, int32_t px, int32_t sz, int64_t add)
{
    int j = 0;
    while (j < b->n && better(s, b->l[j].px, px))
        j++;
    if (j == CK_BOOK_MAX) return;
    if (b->n == CK_BOOK_MAX) b->n--;
    memmove(&b->l[j + 1], &b->l[j], (size_t)(b->n - j) * sizeof b->l[0]);
    b->l[j] = (ck_lvl){px, sz, add};
    b->n++;
}

/* The price k ticks behind px on side s, 0 when it would leave int32 or be an empty side's mark. */
static int behind(int s, int32_t px, int64_t k, int32_t *out)
{
    int64_t v = (int64_t)px - s * k;
    if (v <= (int64_t)MM_PX_NONE_BID || v >= (int64_t)MM_PX_NONE_ASK) return 0;
    *out = (int32_t)v;
    return 1;
}

static int32_t level_size(void)
{
    if (drnd() % 40 == 0) return 100000000 + (int32_t)(drnd() % 2047483647u); /* to INT32_MAX */
    return 1 + (int32_t)(drnd() % 80);
}

/* Side s of the book after row i: best (px, sz) from the level-1 columns, then random changes
 * behind it; keep: about the levels a side the window shows, and a few beyond it. */
static void evolve(ck_side *b, int s, int32_t px, int32_t sz, int64_t i, int keep)
{
    if (sz <= 0 || px == (s > 0 ? MM_PX_NONE_BID : MM_PX_NONE_ASK)) {
        b->n = 0; /* an empty side shows nothing */
        return;
    }
    while (b->n && better(s, b->l[0].px, px))
        drop(b, 0);
    int j = find(b, px);
    if (j < 0)
        insert(b, s, px, sz, i);
    else {
        if (sz > b->l[j].sz) b->l[j].add = i;
        b->l[j].sz = sz;
    }
    uint32_t r = drnd() % 100;
    if (r < 25 && b->n > 1) { /* a level behind the best grows, shrinks or empties */
        int k = 1 + (int)(drnd() % (uint32_t)(b->n - 1 < keep + 1 ? b->n - 1 : keep + 1));
        ck_lvl *l = &b->l[k];
        uint32_t op = drnd() % 8;
        if (op < 3 && l->sz < INT32_MAX) {
            int64_t v = (int64_t)l->sz + 1 + drnd() % 50;
            l->sz = (int32_t)(v > INT32_MAX ? INT32_MAX : v);
            l->add = i;
        } else if (op < 7) {
            l->sz -= 1 + (int32_t)(drnd() % (uint32_t)l->sz);
            if (l->sz == 0) drop(b, k);
        } else
            drop(b, k);
    } else if (r < 35) { /* a new level behind the best (between others, or pushing them back) */
        int32_t q;
        if (behind(s, px, 1 + drnd() % (uint32_t)(2 * keep + 2), &q) && find(b, q) < 0)
            insert(b, s, q, level_size(), i);
    }
    /* A level beyond the last: more to come into the window as levels in it empty. */
    int32_t q;
    if (b->n < keep + 3 && drnd() % 3 == 0 && behind(s, b->l[b->n - 1].px, 1 + drnd() % 3, &q))
        insert(b, s, q, level_size(), i);
}

/* The removal of size from a level at row i: a trade (when the row's trade hit side s, one time in
 * two; else one time in eight) or a cancel, and its join with order ids. */
static void removal(ck_rows *r, int64_t i, const mm_ticks *t, int ids, int s, const ck_lvl *l,
                    int32_t sz)
{
    int hit = t->trade_sz[i] > 0 && t->trade_side[i] == -s;
    int cause = (hit && drnd() % 2) || drnd() % 8 == 0 ? MM_DEPTH_TRADE : MM_DEPTH_CANCEL;
    int64_t join = -1;
    if (ids) {
        uint32_t w = drnd() % 4;
        if (w == 1) join = l->add;
        if (w == 2) join = i - (int64_t)(drnd() % 30);
        if (w == 3) join = i;
        if (join < -1) join = -1;
    }
    push(r, i, join, l->px, sz, s, cause);
}

/* The depth rows of side s at row i: what changed of the shown window (the best `levels` of old and
 * now), removals first, so that no more than `levels` levels are ever shown. */
static void diff(ck_rows *r, int64_t i, const mm_ticks *t, int ids, int s, const ck_side *old,
                 const ck_side *now, int levels)
{
    int on = old->n < levels ? old->n : levels, nn = now->n < levels ? now->n : levels;
    for (int a = 0; a < on; a++) {
        int j = find(now, old->l[a].px);
        if (j < 0)
            removal(r, i, t, ids, s, &old->l[a], 0);
        else if (j >= levels)
            push(r, i, -1, old->l[a].px, 0, s, MM_DEPTH_HIDE); /* pushed beyond the window */
    }
    for (int a = 0; a < on; a++) {
        int j = find(now, old->l[a].px);
        if (j < 0 || j >= levels) continue;
        const ck_lvl *l = &now->l[j];
        int32_t s0 = old->l[a].sz;
        uint32_t u = drnd() % 40;
        if (u == 0) { /* shown again after an unexplained jump */
            push(r, i, -1, l->px, 0, s, MM_DEPTH_HIDE);
            push(r, i, -1, l->px, l->sz, s, MM_DEPTH_SHOW);
            continue;
        }
        if (u < 4 && s0 < INT32_MAX) { /* two rows at one level in one event */
            int64_t mid = (int64_t)s0 + 1 + drnd() % 20;
            s0 = (int32_t)(mid > INT32_MAX ? INT32_MAX : mid);
            push(r, i, ids ? i : -1, l->px, s0, s, MM_DEPTH_ADD);
        }
        if (l->sz > s0)
            push(r, i, ids ? i : -1, l->px, l->sz, s, MM_DEPTH_ADD);
        else if (l->sz < s0)
            removal(r, i, t, ids, s, l, l->sz);
    }
    for (int j = 0; j < nn; j++) {
        int a = find(old, now->l[j].px);
        if (a >= 0 && a < levels) continue;
        /* Into the window from beyond it, the first book, a resynchronisation: a show; else an add.
         */
        if (a >= 0 || i == 0 || drnd() % 4 == 0)
            push(r, i, -1, now->l[j].px, now->l[j].sz, s, MM_DEPTH_SHOW);
        else
            push(r, i, ids ? i : -1, now->l[j].px, now->l[j].sz, s, MM_DEPTH_ADD);
    }
}

/* Replays t's depth stream and checks that after the depth rows of each row the best shown level of
 * each side is the row's level-1 columns (none on an empty side): -1 and the row when not. */
static int64_t check_best(const mm_ticks *t)
{
    const mm_depth *d = &t->depth;
    ck_side sh[2] = {0};
    int64_t k = 0;
    for (int64_t i = 0; i < t->n; i++) {
        for (; k < d->n && d->row[k] == i; k++) {
            int s = d->side[k], x = s > 0 ? 0 : 1, j = find(&sh[x], d->px[k]);
            if (j >= 0) drop(&sh[x], j);
            if (d->sz[k] > 0) insert(&sh[x], s, d->px[k], d->sz[k], -1);
        }
        for (int x = 0; x < 2; x++) {
            int32_t px = x ? t->ask_px[i] : t->bid_px[i], sz = x ? t->ask_sz[i] : t->bid_sz[i];
            int empty = sz <= 0 || px == (x ? MM_PX_NONE_ASK : MM_PX_NONE_BID);
            if (empty ? sh[x].n != 0 : sh[x].n == 0 || sh[x].l[0].px != px || sh[x].l[0].sz != sz)
                return i;
        }
    }
    return -1;
}

int ck_gen_depth(mm_ticks *t, uint64_t seed, int ids)
{
    g_dseed = seed;
    g_dctr = 0;
    int levels = drnd() % 8 ? 2 + (int)(drnd() % 5) : 1;
    ck_rows r = {0};
    ck_side book[2] = {0}, old;
    for (int64_t i = 0; i < t->n; i++)
        for (int k = 0; k < 2; k++) {
            int s = k ? -1 : 1;
            old = book[k];
            evolve(&book[k], s, k ? t->ask_px[i] : t->bid_px[i], k ? t->ask_sz[i] : t->bid_sz[i], i,
                   levels);
            diff(&r, i, t, ids, s, &old, &book[k], levels);
        }
    mm_ticks nt = {0};
    if (mm__ticks_alloc_heap_depth(&nt, t->n, r.n, t->signal != NULL)) return -1;
    nt.inst = t->inst;
    memcpy(nt.ts_ns, t->ts_ns, (size_t)t->n * sizeof *t->ts_ns);
    memcpy(nt.bid_px, t->bid_px, (size_t)t->n * sizeof *t->bid_px);
    memcpy(nt.ask_px, t->ask_px, (size_t)t->n * sizeof *t->ask_px);
    memcpy(nt.bid_sz, t->bid_sz, (size_t)t->n * sizeof *t->bid_sz);
    memcpy(nt.ask_sz, t->ask_sz, (size_t)t->n * sizeof *t->ask_sz);
    memcpy(nt.trade_px, t->trade_px, (size_t)t->n * sizeof *t->trade_px);
    memcpy(nt.trade_sz, t->trade_sz, (size_t)t->n * sizeof *t->trade_sz);
    memcpy(nt.trade_side, t->trade_side, (size_t)t->n * sizeof *t->trade_side);
    if (t->signal) {
        memcpy(nt.signal, t->signal, (size_t)t->n * sizeof *t->signal);
        memcpy(nt.signal_name, t->signal_name, sizeof nt.signal_name);
    }
    nt.depth.levels = levels;
    nt.depth.ids = ids;
    if (r.n) {
        memcpy(nt.depth.row, r.row, (size_t)r.n * sizeof *r.row);
        memcpy(nt.depth.join, r.join, (size_t)r.n * sizeof *r.join);
        memcpy(nt.depth.px, r.px, (size_t)r.n * sizeof *r.px);
        memcpy(nt.depth.sz, r.sz, (size_t)r.n * sizeof *r.sz);
        memcpy(nt.depth.side, r.side, (size_t)r.n * sizeof *r.side);
        memcpy(nt.depth.cause, r.cause, (size_t)r.n * sizeof *r.cause);
    }
    free(r.row);
    free(r.join);
    free(r.px);
    free(r.sz);
    free(r.side);
    free(r.cause);
    mm_ticks_free(t);
    *t = nt;
    mm_error e = {0};
    if (mm__depth_validate(t, "checkmodel's generated tape", &e)) {
        fprintf(stderr, "checkmodel: the generated depth stream is refused: %s\n", e.msg);
        return -1;
    }
    int64_t bad = check_best(t);
    if (bad >= 0) {
        fprintf(stderr,
                "checkmodel: the generated depth stream's best level differs from the level-1 "
                "columns at row %" PRId64 "\n",
                bad);
        return -1;
    }
    return 0;
}

/* book = l2 and l3 need a depth stream (a generated tape with one, or --tape imported with one), l3
 * order ids; auto is the deepest the tape has. */
void ck_fit_book(mm_params *p, const mm_ticks *t)
{
    if (p->book >= MM_BOOK_L2 && t->depth.levels == 0) p->book = MM_BOOK_AUTO;
    if (p->book == MM_BOOK_L3 && !t->depth.ids) p->book = MM_BOOK_AUTO;
}
