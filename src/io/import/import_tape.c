/* A growable tape (columns doubling in size) that importers append rows to, then move into an
 * mm_ticks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mm_internal.h"

static int grow(void **p, int64_t cap, size_t elem)
{
    void *q = realloc(*p, (size_t)cap * elem);
    if (!q) return -ENOMEM;
    *p = q;
    return 0;
}

int mm__imp_tape_push(mm__imp_tape *t, const mm__imp_row *r)
{
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 65536;
        if (grow((void **)&t->ts_ns, cap, 8) || grow((void **)&t->bid_px, cap, 4) ||
            grow((void **)&t->ask_px, cap, 4) || grow((void **)&t->bid_sz, cap, 4) ||
            grow((void **)&t->ask_sz, cap, 4) || grow((void **)&t->trade_px, cap, 4) ||
            grow((void **)&t->trade_sz, cap, 4) || grow((void **)&t->trade_side, cap, 1))
            return -ENOMEM;
        t->cap = cap;
    }
    int64_t i = t->n++;
    t->ts_ns[i] = r->ts_ns;
    t->bid_px[i] = r->bid_px;
    t->ask_px[i] = r->ask_px;
    t->bid_sz[i] = r->bid_sz;
    t->ask_sz[i] = r->ask_sz;
    t->trade_px[i] = r->trade_px;
    t->trade_sz[i] = r->trade_sz;
    t->trade_side[i] = r->trade_side;
    return 0;
}

int mm__imp_depth_push(mm__imp_depth *d, int64_t row, int side, int32_t px, int32_t sz, int cause,
                       int64_t join)
{
    if (d->n == d->cap) {
        int64_t cap = d->cap ? 2 * d->cap : 65536;
        if (grow((void **)&d->row, cap, 8) || grow((void **)&d->join, cap, 8) ||
            grow((void **)&d->px, cap, 4) || grow((void **)&d->sz, cap, 4) ||
            grow((void **)&d->side, cap, 1) || grow((void **)&d->cause, cap, 1))
            return -ENOMEM;
        d->cap = cap;
    }
    int64_t k = d->n++;
    d->row[k] = row;
    d->join[k] = join;
    d->px[k] = px;
    d->sz[k] = sz;
    d->side[k] = (int8_t)side;
    d->cause[k] = (int8_t)cause;
    return 0;
}

int mm__imp_tape_finish(mm__imp_tape *t, const mm_instrument *inst, mm_ticks *out, mm_error *err)
{
    memset(out, 0, sizeof *out);
    const mm__imp_depth *d = &t->depth;
    int rc = mm_ticks_alloc_depth(out, t->n, d->levels > 0 ? d->n : 0, MM_MEM_HEAP);
    if (rc) {
        /* The message before the free: it reads the row count. */
        mm__errf(err, rc, "%s: out of memory for the tape's %lld rows", inst->symbol,
                 (long long)t->n);
        mm__imp_tape_free(t);
        return rc;
    }
    out->inst = *inst;
    size_t n = (size_t)t->n;
    if (n) {
        memcpy(out->ts_ns, t->ts_ns, n * 8);
        memcpy(out->bid_px, t->bid_px, n * 4);
        memcpy(out->ask_px, t->ask_px, n * 4);
        memcpy(out->bid_sz, t->bid_sz, n * 4);
        memcpy(out->ask_sz, t->ask_sz, n * 4);
        memcpy(out->trade_px, t->trade_px, n * 4);
        memcpy(out->trade_sz, t->trade_sz, n * 4);
        memcpy(out->trade_side, t->trade_side, n);
    }
    if (d->levels > 0) {
        size_t m = (size_t)d->n;
        out->depth.levels = d->levels;
        out->depth.ids = d->ids;
        if (m) {
            memcpy(out->depth.row, d->row, m * 8);
            memcpy(out->depth.join, d->join, m * 8);
            memcpy(out->depth.px, d->px, m * 4);
            memcpy(out->depth.sz, d->sz, m * 4);
            memcpy(out->depth.side, d->side, m);
            memcpy(out->depth.cause, d->cause, m);
        }
    }
    mm__imp_tape_free(t);
    return 0;
}

void mm__imp_tape_free(mm__imp_tape *t)
{
    free(t->ts_ns);
    free(t->bid_px);
    free(t->ask_px);
    free(t->bid_sz);
    free(t->ask_sz);
    free(t->trade_px);
    free(t->trade_sz);
    free(t->trade_side);
    free(t->depth.row);
    free(t->depth.join);
    free(t->depth.px);
    free(t->depth.sz);
    free(t->depth.side);
    free(t->depth.cause);
    memset(t, 0, sizeof *t);
}
