/* Content fingerprint of a tape: XXH3-64 over the row count and the columns (docs/formats.md).
 *
 * xxHash is compiled in header-only mode (XXH_INLINE_ALL): the streaming state is then an ordinary
 * struct that lives on the stack, so computing a fingerprint allocates nothing and cannot fail.
 * (With the shared libxxhash the state's layout is private and XXH3_createState() mallocs it, an
 * allocation this function could not report: it used to assert.) The bytes hashed, and so every
 * fingerprint, are the same. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <string.h>

#include "mm_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the fingerprint is defined over little-endian bytes; add byte swapping for this target"
#endif

uint64_t mm_ticks_fingerprint(const mm_ticks *t)
{
    XXH3_state_t st;
    XXH3_INITSTATE(&st);
    XXH3_64bits_reset(&st);
    uint64_t n = (uint64_t)t->n;
    XXH3_64bits_update(&st, &n, sizeof n);
    size_t rows = (size_t)t->n;
    XXH3_64bits_update(&st, t->ts_ns, rows * 8);
    const int32_t *c32[6] = {t->bid_px, t->ask_px, t->bid_sz, t->ask_sz, t->trade_px, t->trade_sz};
    for (int i = 0; i < 6; i++)
        XXH3_64bits_update(&st, c32[i], rows * 4);
    XXH3_64bits_update(&st, t->trade_side, rows);
    const mm_depth *d = &t->depth;
    if (d->levels > 0) {
        /* Only a tape with depth hashes more: every L1 tape keeps the fingerprint it had. */
        uint64_t m = (uint64_t)d->n;
        int32_t head[2] = {d->levels, d->ids};
        XXH3_64bits_update(&st, &m, sizeof m);
        XXH3_64bits_update(&st, head, sizeof head);
        size_t drows = (size_t)d->n;
        XXH3_64bits_update(&st, d->row, drows * 8);
        XXH3_64bits_update(&st, d->join, drows * 8);
        XXH3_64bits_update(&st, d->px, drows * 4);
        XXH3_64bits_update(&st, d->sz, drows * 4);
        XXH3_64bits_update(&st, d->side, drows);
        XXH3_64bits_update(&st, d->cause, drows);
    }
    if (t->signal) {
        /* Only a tape with a signal hashes more: its name and its values (IEEE bytes). */
        static const char tag[8] = "signal";
        uint64_t len = (uint64_t)strnlen(t->signal_name, MM_SYMBOL_MAX);
        XXH3_64bits_update(&st, tag, sizeof tag);
        XXH3_64bits_update(&st, &len, sizeof len);
        XXH3_64bits_update(&st, t->signal_name, (size_t)len);
        XXH3_64bits_update(&st, t->signal, rows * 8);
    }
    return XXH3_64bits_digest(&st);
}
