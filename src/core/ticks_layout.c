/* Column layout of a tape: one block, columns in schema order, each 64-byte aligned; the depth
 * columns (when the tape has depth rows) after them, in the order row, join, px, sz, side, cause;
 * last the signal column (float64, n rows) of a tape that has one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

static size_t round_up(size_t x)
{
    return (x + MM_COL_ALIGN - 1) & ~(size_t)(MM_COL_ALIGN - 1);
}

/* Bytes of the depth columns of m rows (none for m = 0: an L1 tape's block is as it always was). */
static size_t depth_bytes(int64_t m)
{
    size_t rows = (size_t)m;
    if (m <= 0) return 0;
    return 2 * round_up(rows * 8 + 1) + 2 * round_up(rows * 4 + 1) + 2 * round_up(rows + 1);
}

size_t mm__ticks_block_bytes(int64_t n, int64_t depth_n, int signal)
{
    size_t rows = (size_t)n;
    /* One int64 column, six int32 columns, one int8 column; at least one alignment unit each. */
    return round_up(rows * 8 + 1) + 6 * round_up(rows * 4 + 1) + round_up(rows + 1) +
           depth_bytes(depth_n) + (signal ? round_up(rows * 8 + 1) : 0);
}

void mm__ticks_bind(mm_ticks *t, void *base, int64_t n, int64_t depth_n, int signal)
{
    char *p = base;
    size_t rows = (size_t)n;
    t->n = n;
    t->ts_ns = (int64_t *)p;
    p += round_up(rows * 8 + 1);
    int32_t **cols32[6] = {&t->bid_px, &t->ask_px,   &t->bid_sz,
                           &t->ask_sz, &t->trade_px, &t->trade_sz};
    for (int i = 0; i < 6; i++) {
        *cols32[i] = (int32_t *)p;
        p += round_up(rows * 4 + 1);
    }
    t->trade_side = (int8_t *)p;
    p += round_up(rows + 1);
    mm_depth *d = &t->depth;
    d->n = depth_n > 0 ? depth_n : 0;
    d->row = d->join = NULL;
    d->px = d->sz = NULL;
    d->side = d->cause = NULL;
    t->signal = NULL;
    if (depth_n > 0) {
        size_t m = (size_t)depth_n;
        d->row = (int64_t *)p;
        p += round_up(m * 8 + 1);
        d->join = (int64_t *)p;
        p += round_up(m * 8 + 1);
        d->px = (int32_t *)p;
        p += round_up(m * 4 + 1);
        d->sz = (int32_t *)p;
        p += round_up(m * 4 + 1);
        d->side = (int8_t *)p;
        p += round_up(m + 1);
        d->cause = (int8_t *)p;
        p += round_up(m + 1);
    }
    if (signal) t->signal = (double *)p;
}

int mm__ticks_alloc_heap_depth(mm_ticks *t, int64_t n, int64_t depth_n, int signal)
{
    if (n < 0 || depth_n < 0) return -EINVAL;
    size_t bytes = mm__ticks_block_bytes(n, depth_n, signal);
    void *base = aligned_alloc(MM_COL_ALIGN, bytes);
    if (!base) return -ENOMEM;
    memset(base, 0, bytes);
    mm__ticks_bind(t, base, n, depth_n, signal);
    t->mem_base = base;
    t->mem_bytes = bytes;
    t->mem_kind = MM_MEM_HEAP;
    return 0;
}

int mm__ticks_alloc_heap(mm_ticks *t, int64_t n)
{
    return mm__ticks_alloc_heap_depth(t, n, 0, 0);
}
