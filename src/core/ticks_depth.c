/* The depth stream of a tape (docs/formats.md, "Depth"): its validation rules and its summary for
 * `mmsim info`. The rules replay the stream through the shown book, so a size after that does not
 * follow from its cause (an ADD that shrinks a level, a CANCEL of a level not shown) is refused at
 * its row. Allocates nothing: the shown book is two sorted arrays of at most MM_DEPTH_MAX_LEVELS
 * levels on the stack (16 KB). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mm_internal.h"

#define FAIL(col, k, ...)                                                                          \
    do {                                                                                           \
        char what_[256];                                                                           \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                                \
        return mm__errf(err, MM_EINVALID,                                                          \
                        "%s: instrument %s: depth column %s: depth row %" PRId64 ": %s", file,     \
                        t->inst.symbol, col, (int64_t)(k), what_);                                 \
    } while (0)

/* One side of the shown book: n levels sorted by price, ascending. */
typedef struct shown {
    int32_t n;
    int32_t px[MM_DEPTH_MAX_LEVELS], sz[MM_DEPTH_MAX_LEVELS];
} shown;

/* Index of px in s, or -(insertion point) - 1. */
static int32_t find(const shown *s, int32_t px)
{
    int32_t lo = 0, hi = s->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (s->px[mid] < px)
            lo = mid + 1;
        else if (s->px[mid] > px)
            hi = mid;
        else
            return mid;
    }
    return -lo - 1;
}

static const char *const CAUSE[MM_DEPTH_CAUSES] = {"?", "add", "cancel", "trade", "show", "hide"};

int mm__depth_validate(const mm_ticks *t, const char *file, mm_error *err)
{
    const mm_depth *d = &t->depth;
    if (d->levels == 0 && d->n == 0) return 0;
    if (d->levels < 1 || d->levels > MM_DEPTH_MAX_LEVELS)
        return mm__errf(err, MM_EINVALID,
                        "%s: instrument %s: depth attribute levels: %" PRId32
                        " is not in 1..%d (%" PRId64 " depth rows)",
                        file, t->inst.symbol, d->levels, MM_DEPTH_MAX_LEVELS, d->n);
    if (d->ids != 0 && d->ids != 1)
        return mm__errf(err, MM_EINVALID,
                        "%s: instrument %s: depth attribute ids: %" PRId32 " is not 0 or 1", file,
                        t->inst.symbol, d->ids);
    if (d->n < 0)
        return mm__errf(err, MM_EINVALID, "%s: instrument %s: negative depth row count", file,
                        t->inst.symbol);
    shown book[2]; /* [0] bid, [1] ask: 16 KB of stack */
    book[0].n = book[1].n = 0;
    for (int64_t k = 0; k < d->n; k++) {
        int64_t row = d->row[k], join = d->join[k];
        int32_t px = d->px[k], sz = d->sz[k];
        int side = d->side[k], cause = d->cause[k];
        if (row < 0 || row >= t->n)
            FAIL("row", k, "tape row %" PRId64 " is not in 0..%" PRId64, row, t->n - 1);
        if (k > 0 && row < d->row[k - 1])
            FAIL("row", k, "tape row %" PRId64 " is before the previous depth row's %" PRId64, row,
                 d->row[k - 1]);
        if (side != 1 && side != -1) FAIL("side", k, "value %d is not 1 (bid) or -1 (ask)", side);
        if (cause < 1 || cause >= MM_DEPTH_CAUSES)
            FAIL("cause", k, "value %d is not 1 (add) .. 5 (hide)", cause);
        if (px == (side > 0 ? MM_PX_NONE_BID : MM_PX_NONE_ASK))
            FAIL("px", k, "price %" PRId32 " is the empty %s's mark, not a level", px,
                 side > 0 ? "bid" : "ask");
        if (sz < 0) FAIL("sz", k, "negative size %" PRId32, sz);
        if (!d->ids && join != -1)
            FAIL("join", k, "%" PRId64 " in a stream without order ids (must be -1)", join);
        if (d->ids) {
            int removal = cause == MM_DEPTH_CANCEL || cause == MM_DEPTH_TRADE;
            if (cause == MM_DEPTH_ADD && join != row)
                FAIL("join", k, "%" PRId64 " on an add at tape row %" PRId64 " (must be the row)",
                     join, row);
            if (removal && (join < -1 || join > row))
                FAIL("join", k, "%" PRId64 " is not -1 or a tape row in 0..%" PRId64, join, row);
            if ((cause == MM_DEPTH_SHOW || cause == MM_DEPTH_HIDE) && join != -1)
                FAIL("join", k, "%" PRId64 " on a %s (must be -1)", join, CAUSE[cause]);
        }
        shown *s = &book[side > 0 ? 0 : 1];
        int32_t i = find(s, px), before = i >= 0 ? s->sz[i] : 0;
        switch ((enum mm_depth_cause)cause) {
        case MM_DEPTH_ADD:
            if (sz <= before)
                FAIL("sz", k,
                     "an add takes %s %" PRId32 " from %" PRId32 " to %" PRId32 " (must grow)",
                     side > 0 ? "bid" : "ask", px, before, sz);
            break;
        case MM_DEPTH_CANCEL:
        case MM_DEPTH_TRADE:
            if (before == 0 || sz >= before)
                FAIL("sz", k, "a %s takes %s %" PRId32 " from %" PRId32 " to %" PRId32 "%s",
                     CAUSE[cause], side > 0 ? "bid" : "ask", px, before, sz,
                     before == 0 ? " (the level is not shown)" : " (must shrink)");
            break;
        case MM_DEPTH_SHOW:
            if (before != 0 || sz == 0)
                FAIL("sz", k, "a show of %s %" PRId32 " with size %" PRId32 "%s",
                     side > 0 ? "bid" : "ask", px, sz,
                     before ? " (the level is already shown)" : " (must be > 0)");
            break;
        case MM_DEPTH_HIDE:
            if (before == 0 || sz != 0)
                FAIL("sz", k, "a hide of %s %" PRId32 " with size %" PRId32 "%s",
                     side > 0 ? "bid" : "ask", px, sz,
                     before == 0 ? " (the level is not shown)" : " (must be 0)");
            break;
        }
        if (i >= 0 && sz > 0) {
            s->sz[i] = sz;
        } else if (i >= 0) {
            memmove(&s->px[i], &s->px[i + 1], (size_t)(s->n - i - 1) * sizeof s->px[0]);
            memmove(&s->sz[i], &s->sz[i + 1], (size_t)(s->n - i - 1) * sizeof s->sz[0]);
            s->n--;
        } else if (sz > 0) {
            if (s->n == d->levels)
                FAIL("px", k,
                     "%s %" PRId32 " would be a level beyond the %" PRId32
                     " the stream keeps a side",
                     side > 0 ? "bid" : "ask", px, d->levels);
            i = -i - 1;
            memmove(&s->px[i + 1], &s->px[i], (size_t)(s->n - i) * sizeof s->px[0]);
            memmove(&s->sz[i + 1], &s->sz[i], (size_t)(s->n - i) * sizeof s->sz[0]);
            s->px[i] = px;
            s->sz[i] = sz;
            s->n++;
        }
    }
    return 0;
}

void mm__depth_summarize(const mm_ticks *t, mm_ticks_stats *s)
{
    const mm_depth *d = &t->depth;
    s->depth_levels = d->levels;
    s->depth_ids = d->ids;
    s->depth_rows = d->n;
    for (int64_t k = 0; k < d->n; k++) {
        int c = d->cause[k];
        if (c > 0 && c < MM_DEPTH_CAUSES) s->depth_by_cause[c]++;
        if (c == MM_DEPTH_CANCEL || c == MM_DEPTH_TRADE) {
            s->depth_removals++;
            s->depth_joins_known += d->join[k] >= 0;
        }
    }
}
