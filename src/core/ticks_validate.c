/* Validation rules of a tape (docs/formats.md, "Validation"). Reports the first violation, by row.
 */
#include <inttypes.h>
#include <math.h>

#include "mm_internal.h"

#define FAIL(col, row, ...)                                                                        \
    do {                                                                                           \
        char what_[256];                                                                           \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        return mm__errf(err, MM_EINVALID, "%s: instrument %s: column %s: row %" PRId64 ": %s",     \
                        file, t->inst.symbol, col, (int64_t)(row), what_);                         \
    } while (0)

#include <stdio.h>

int mm_ticks_validate(const mm_ticks *t, const char *file, mm_error *err)
{
    if (!file) file = "(memory)";
    if (t->n < 0)
        return mm__errf(err, MM_EINVALID, "%s: instrument %s: negative row count", file,
                        t->inst.symbol);
    /* Sizes convert ticks and lots to prices and quantities in every PnL: finite and positive. */
    if (!(t->inst.tick_size > 0) || !isfinite(t->inst.tick_size))
        return mm__errf(err, MM_EINVALID,
                        "%s: instrument %s: attribute tick_size: %g is not a finite number > 0",
                        file, t->inst.symbol, t->inst.tick_size);
    if (!(t->inst.lot_size > 0) || !isfinite(t->inst.lot_size))
        return mm__errf(err, MM_EINVALID,
                        "%s: instrument %s: attribute lot_size: %g is not a finite number > 0",
                        file, t->inst.symbol, t->inst.lot_size);
    for (int64_t i = 0; i < t->n; i++) {
        if (i > 0 && t->ts_ns[i] < t->ts_ns[i - 1])
            FAIL("ts_ns", i, "timestamp %" PRId64 " is before the previous row's %" PRId64,
                 t->ts_ns[i], t->ts_ns[i - 1]);
        int32_t bsz = t->bid_sz[i], asz = t->ask_sz[i], tsz = t->trade_sz[i];
        int8_t side = t->trade_side[i];
        if (bsz < 0) FAIL("bid_sz", i, "negative size %" PRId32, bsz);
        if (asz < 0) FAIL("ask_sz", i, "negative size %" PRId32, asz);
        if (tsz < 0) FAIL("trade_sz", i, "negative size %" PRId32, tsz);
        if (side < -1 || side > 1) FAIL("trade_side", i, "value %d is not -1, 0 or 1", side);
        if ((tsz == 0) != (side == 0))
            FAIL("trade_side", i,
                 "trade_side %d with trade_sz %" PRId32 " (a trade needs both, no trade neither)",
                 side, tsz);
        if (tsz == 0 && t->trade_px[i] != 0)
            FAIL("trade_px", i, "price %" PRId32 " on a row without a trade (must be 0)",
                 t->trade_px[i]);
        if ((bsz == 0) != (t->bid_px[i] == MM_PX_NONE_BID))
            FAIL("bid_px", i, "an empty bid (size 0) must have price %d and only then",
                 MM_PX_NONE_BID);
        if ((asz == 0) != (t->ask_px[i] == MM_PX_NONE_ASK))
            FAIL("ask_px", i, "an empty ask (size 0) must have price %d and only then",
                 MM_PX_NONE_ASK);
        if (!t->inst.allow_crossed && bsz > 0 && asz > 0 && t->bid_px[i] >= t->ask_px[i])
            FAIL("bid_px", i,
                 "crossed book: bid %" PRId32 " >= ask %" PRId32
                 " (file does not allow crossed books)",
                 t->bid_px[i], t->ask_px[i]);
    }
    int rc = mm__depth_validate(t, file, err);
    return rc ? rc : mm__signal_validate(t, file, err);
}
