/* Column layout of a tape: one block, columns in schema order, each 64-byte aligned. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

static size_t round_up(size_t x)
{
    return (x + MM_COL_ALIGN - 1) & ~(size_t)(MM_COL_ALIGN - 1);
}

size_t mm__ticks_block_bytes(int64_t n)
{
    size_t rows = (size_t)n;
    /* One int64 column, six int32 columns, one int8 column; at least one alignment unit each. */
    return round_up(rows * 8 + 1) + 6 * round_up(rows * 4 + 1) + round_up(rows + 1);
}

void mm__ticks_bind(mm_ticks *t, void *base, int64_t n)
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
}

int mm__ticks_alloc_heap(mm_ticks *t, int64_t n)
{
    if (n < 0) return -EINVAL;
    size_t bytes = mm__ticks_block_bytes(n);
    void *base = aligned_alloc(MM_COL_ALIGN, bytes);
    if (!base) return -ENOMEM;
    memset(base, 0, bytes);
    mm__ticks_bind(t, base, n);
    t->mem_base = base;
    t->mem_bytes = bytes;
    t->mem_kind = MM_MEM_HEAP;
    return 0;
}
