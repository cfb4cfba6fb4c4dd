/* LOBSTER importer: the depth stream (docs/import-lobster.md, "Depth"; docs/formats.md, "Depth").
 *
 * Tape row i gets the changes of the kept levels (the best K of each side) from orderbook row i-1
 * to orderbook row i. The cross-check (import_lobster.c) has already tied the two rows to message
 * i, so the change at the message's price is exactly its size: an add (type 1), a cancel (2, 3) or
 * a trade (4, a visible execution). Every other change of what is shown is the window moving: a
 * level pushed beyond the K-th by a new better one is hidden, a level from beyond it comes into
 * view when one inside is emptied. Rows that were not cross-checked (the first row, the row after a
 * line skipped by skip_bad) show the book as it is: each changed level is hidden and shown again.
 *
 * Order ids: the message file names the order of every add, cancel and execution. A removal's
 * depth row carries the tape row of its order's add message; an order added before the file starts
 * (or, in LOBSTER's files, while its price was beyond the file's levels, where no message is
 * written) has no add message: -1, volume whose place in the queue is known only as "before
 * anything the file shows joining". */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import_lobster_int.h"
#include "mm_internal.h"

#define EMPTY INT64_MIN

/* The orders in the book: an open-addressing table (linear probing, at most half full) of the
 * orders added in the file and not yet wholly removed, so it holds about the book's own orders (a
 * few thousand on the sample days) and stays in cache. */
static size_t home(const lob_depth *d, int64_t id)
{
    uint64_t x = (uint64_t)id + UINT64_C(0x9e3779b97f4a7c15); /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return (size_t)x & (d->cap - 1);
}

static size_t slot_of(const lob_depth *d, int64_t id)
{
    size_t i = home(d, id);
    while (d->slot[i].row != EMPTY && d->slot[i].id != id)
        i = (i + 1) & (d->cap - 1);
    return i;
}

static int table_alloc(lob_depth *d, size_t cap)
{
    d->slot = malloc(cap * sizeof *d->slot);
    if (!d->slot) return -ENOMEM;
    for (size_t i = 0; i < cap; i++)
        d->slot[i].row = EMPTY;
    d->cap = cap;
    d->used = 0;
    return 0;
}

/* The order `id` of `size` shares joined at tape row `row` (a later add of the same id replaces
 * it). */
static int order_put(lob_depth *d, int64_t id, int64_t row, int64_t size)
{
    if (2 * (d->used + 1) > d->cap) {
        lob_order *old = d->slot;
        size_t oc = d->cap;
        if (table_alloc(d, 2 * oc)) {
            d->slot = old, d->cap = oc;
            return -ENOMEM;
        }
        for (size_t i = 0; i < oc; i++) {
            if (old[i].row == EMPTY) continue;
            d->slot[slot_of(d, old[i].id)] = old[i];
            d->used++;
        }
        free(old);
    }
    size_t i = slot_of(d, id);
    if (d->slot[i].row == EMPTY) d->used++;
    d->slot[i] = (lob_order){id, row, size};
    return 0;
}

/* The row at which order `id` joined (EMPTY: unknown); `size` shares of it leave (all of it when
 * whole), and an order wholly gone leaves the table (backward-shift deletion: the entries after it
 * in its run move up when their home allows, so no tombstones are needed). */
static int64_t order_remove(lob_depth *d, int64_t id, int64_t size, int whole)
{
    size_t i = slot_of(d, id), mask = d->cap - 1;
    int64_t row = d->slot[i].row;
    if (row == EMPTY) return EMPTY;
    d->slot[i].left -= size;
    if (!whole && d->slot[i].left > 0) return row;
    for (size_t j = i;;) {
        j = (j + 1) & mask;
        if (d->slot[j].row == EMPTY) break;
        size_t k = home(d, d->slot[j].id);
        /* slot[j] may move to i when its home is not in the cyclic range (i, j]. */
        if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
            d->slot[i] = d->slot[j];
            i = j;
        }
    }
    d->slot[i].row = EMPTY;
    d->used--;
    return row;
}

int mm__lob_depth_init(lob_depth *d, int K, int64_t tick_units, int64_t lot_shares,
                       mm__imp_depth *out)
{
    memset(d, 0, sizeof *d);
    d->K = K;
    d->tick_units = tick_units;
    d->lot_shares = lot_shares;
    d->out = out;
    if (K == 0) return 0;
    return table_alloc(d, 1 << 16);
}

void mm__lob_depth_free(lob_depth *d)
{
    free(d->slot);
    memset(d, 0, sizeof *d);
}

/* Whole ticks and lots for the kept levels of one side of orderbook row c->oline. */
static int check_units(const lob_depth *d, lob_ctx *c, const lob_side *s, const char *name)
{
    int n = s->n < d->K ? s->n : d->K;
    for (int k = 0; k < n; k++) {
        if (s->px[k] % d->tick_units || s->px[k] / d->tick_units > INT32_MAX - 1)
            return mm__errf(c->err, MM_EINVALID,
                            "%s:%" PRId64 ": %s level %d price %" PRId64
                            " is not a whole number of ticks (%" PRId64
                            " units) in int32 range (the depth stream keeps %d levels)",
                            c->opath, c->oline, name, k + 1, s->px[k], d->tick_units, d->K);
        if (s->sz[k] % d->lot_shares || s->sz[k] / d->lot_shares > INT32_MAX)
            return mm__errf(c->err, MM_EINVALID,
                            "%s:%" PRId64 ": %s level %d size %" PRId64
                            " is not a whole number of lots (%" PRId64
                            " shares) in int32 range (the depth stream keeps %d levels)",
                            c->opath, c->oline, name, k + 1, s->sz[k], d->lot_shares, d->K);
    }
    return 0;
}

/* The kept levels of b (NULL: none yet) and a are the same. */
static int same_kept(const lob_depth *d, const lob_side *b, const lob_side *a)
{
    if (!b) return 0;
    int nb = b->n < d->K ? b->n : d->K, na = a->n < d->K ? a->n : d->K;
    if (nb != na) return 0;
    for (int k = 0; k < na; k++)
        if (b->px[k] != a->px[k] || b->sz[k] != a->sz[k]) return 0;
    return 1;
}

static int in_side(const lob_side *s, int64_t px)
{
    for (int k = 0; k < s->n; k++)
        if (s->px[k] == px) return 1;
    return 0;
}

static int push(lob_depth *d, int64_t row, int side, int64_t px, int64_t sz, int cause,
                int64_t join)
{
    return mm__imp_depth_push(d->out, row, side, (int32_t)(px / d->tick_units),
                              (int32_t)(sz / d->lot_shares), cause, join);
}

enum { LEAVE = 0, CHANGE = 1, ENTER = 2 };

/* One side's rows, in three passes over the merged levels (best first) so that the count of shown
 * levels never passes K: levels leaving the window, levels changing in it, levels entering it.
 * m: the message when it is checked and on this side, else NULL; join: its order's joining row. */
static int side_rows(lob_depth *d, const lob_side *b, const lob_side *a, int side, const lob_msg *m,
                     int64_t join, int64_t row)
{
    int nb = b ? (b->n < d->K ? b->n : d->K) : 0, na = a->n < d->K ? a->n : d->K;
    int removal = m && m->type >= 2 && m->type <= 4;
    int cause = !m             ? 0
                : m->type == 1 ? MM_DEPTH_ADD
                : m->type == 4 ? MM_DEPTH_TRADE
                               : MM_DEPTH_CANCEL;
    for (int pass = LEAVE; pass <= ENTER; pass++) {
        int i = 0, j = 0;
        while (i < nb || j < na) {
            int rc = 0;
            int only_b =
                j >= na || (i < nb && (side > 0 ? b->px[i] > a->px[j] : b->px[i] < a->px[j]));
            int only_a =
                !only_b && (i >= nb || (side > 0 ? a->px[j] > b->px[i] : a->px[j] < b->px[i]));
            if (only_b) {
                int64_t p = b->px[i++];
                if (pass != LEAVE) continue;
                if (removal && p == m->price && !in_side(a, p))
                    rc = push(d, row, side, p, 0, cause, join); /* the level emptied */
                else
                    rc = push(d, row, side, p, 0, MM_DEPTH_HIDE, -1); /* pushed beyond K */
            } else if (only_a) {
                int64_t p = a->px[j], sz = a->sz[j++];
                if (pass != ENTER) continue;
                if (m && m->type == 1 && p == m->price && !(b && in_side(b, p)))
                    rc = push(d, row, side, p, sz, MM_DEPTH_ADD, row); /* a new level */
                else
                    rc = push(d, row, side, p, sz, MM_DEPTH_SHOW, -1); /* from beyond K */
            } else {
                int64_t p = a->px[j], was = b->sz[i++], sz = a->sz[j++];
                if (pass != CHANGE || was == sz) continue;
                int grows = sz > was;
                if (m && p == m->price && grows == (m->type == 1))
                    rc = push(d, row, side, p, sz, cause, m->type == 1 ? row : join);
                else if (!(rc = push(d, row, side, p, 0, MM_DEPTH_HIDE, -1)))
                    rc = push(d, row, side, p, sz, MM_DEPTH_SHOW, -1); /* not explained */
            }
            if (rc) return rc;
        }
    }
    return 0;
}

int mm__lob_depth_row(lob_depth *d, lob_ctx *c, const lob_book *before, const lob_book *after,
                      const lob_msg *m, int checked, int64_t row)
{
    if (d->K == 0) return 0;
    if (!d->started) {
        if (d->K > c->levels) d->K = c->levels;
        d->out->levels = d->K;
        d->out->ids = 1;
        d->started = 1;
    }
    int64_t join = -1;
    if (m->type >= 2 && m->type <= 4) join = order_remove(d, m->id, m->size, m->type == 3);
    if (join == EMPTY) join = -1;
    const lob_msg *mb = checked && m->dir == 1 ? m : NULL, *ma = checked && m->dir == -1 ? m : NULL;
    /* A side whose kept levels did not change has no rows (and its units were checked before): the
     * side a message is not on, and every side of a message beyond the kept levels. */
    int rc = 0;
    if (!same_kept(d, before ? &before->bid : NULL, &after->bid) &&
        ((rc = check_units(d, c, &after->bid, "bid")) ||
         (rc = side_rows(d, before ? &before->bid : NULL, &after->bid, 1, mb, join, row))))
        return rc;
    if (!same_kept(d, before ? &before->ask : NULL, &after->ask) &&
        ((rc = check_units(d, c, &after->ask, "ask")) ||
         (rc = side_rows(d, before ? &before->ask : NULL, &after->ask, -1, ma, join, row))))
        return rc;
    if (m->type == 1 && order_put(d, m->id, row, m->size)) return -ENOMEM;
    return 0;
}
