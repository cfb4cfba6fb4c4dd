/* Content fingerprint of a tape: XXH3-64 (system libxxhash) over the row count and the columns. */
#include <assert.h>
#include <xxhash.h>

#include "../core/mm_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the fingerprint is defined over little-endian bytes; add byte swapping for this target"
#endif

uint64_t mm_ticks_fingerprint(const mm_ticks *t)
{
    /* The state is heap-allocated: its layout is private to libxxhash. Allocation failure is treated as
     * fatal-by-assert: a 576-byte allocation failing leaves nothing meaningful to hash. */
    XXH3_state_t *st = XXH3_createState();
    assert(st);
    XXH3_64bits_reset(st);
    uint64_t n = (uint64_t)t->n;
    XXH3_64bits_update(st, &n, sizeof n);
    size_t rows = (size_t)t->n;
    XXH3_64bits_update(st, t->ts_ns, rows * 8);
    const int32_t *c32[6] = {t->bid_px, t->ask_px, t->bid_sz, t->ask_sz, t->trade_px, t->trade_sz};
    for (int i = 0; i < 6; i++) XXH3_64bits_update(st, c32[i], rows * 4);
    XXH3_64bits_update(st, t->trade_side, rows);
    uint64_t h = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return h;
}
