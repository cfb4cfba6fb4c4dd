/* checkmodel: the whole mm_state and the metrics, field by field. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checkmodel.h"

/* The whole state, field by field (never memcmp a struct: padding), from the state's field table
 * (MM_STATE_FIELDS, mm_state.h: I for integers, D for doubles), which lists every field: a field
 * added to mm_state and not there does not compile. */

static int same_d(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The first field in which k differs from r (integers exactly, doubles bit for bit): 1 with its
 * name and both values written into what (cap bytes), or 0 when the states are equal. */
int ck_state_diff(const mm_state *r, const mm_state *k, const char *kname, char *what, size_t cap)
{
#define I(f)                                                                                       \
    if (r->f != k->f) {                                                                            \
        snprintf(what, cap, "field %s: c %" PRId64 ", %s %" PRId64, #f, (int64_t)r->f, kname,      \
                 (int64_t)k->f);                                                                   \
        return 1;                                                                                  \
    }
#define D(f)                                                                                       \
    if (!same_d(r->f, k->f)) {                                                                     \
        snprintf(what, cap, "field %s: c %.17g, %s %.17g", #f, r->f, kname, k->f);                 \
        return 1;                                                                                  \
    }
#define CK_FIELD(kind, f, init, role) kind(f)
    MM_STATE_FIELDS(CK_FIELD)
#undef CK_FIELD
#undef I
#undef D
    return 0;
}

int ck_rungs_diff(const mm_derived *r, const mm_derived *k, const char *kname, char *what,
                  size_t cap)
{
    for (int32_t x = 0; x < 2 * (r->levels - 1); x++) {
        mm_state a, b;
        a.s[0] = r->rungs[x];
        b.s[0] = k->rungs[x];
#define I(f)                                                                                       \
    if (a.f != b.f) {                                                                              \
        snprintf(what, cap, "ladder side %d rung %d: field %s: c %" PRId64 ", %s %" PRId64,        \
                 x / (r->levels - 1), 1 + x % (r->levels - 1), #f, (int64_t)a.f, kname,            \
                 (int64_t)b.f);                                                                    \
        return 1;                                                                                  \
    }
#define CK_FIELD(kind, f, init, role) kind(f)
        MM_SIDE_FIELDS(CK_FIELD, 0)
#undef CK_FIELD
#undef I
    }
    return 0;
}

/* The first metric in which b differs from r; same contract as state_diff. */
int ck_metrics_diff(const mm_metrics *r, const mm_metrics *b, const char *kname, char *what,
                    size_t cap)
{
#define I(f)                                                                                       \
    if (r->f != b->f) {                                                                            \
        snprintf(what, cap, "metric %s: c %" PRId64 ", %s %" PRId64, #f, (int64_t)r->f, kname,     \
                 (int64_t)b->f);                                                                   \
        return 1;                                                                                  \
    }
#define D(f)                                                                                       \
    if (!same_d(r->f, b->f)) {                                                                     \
        snprintf(what, cap, "metric %s: c %.17g, %s %.17g", #f, r->f, kname, b->f);                \
        return 1;                                                                                  \
    }
    /* clang-format off */
    D(pnl) D(fees) I(volume) I(fills_bid) I(fills_ask) I(orders) I(cancels) I(rejects)
    I(final_q) I(max_abs_q) D(mean_abs_q) D(sharpe) D(max_drawdown)
    D(markout[0]) D(markout[1]) D(markout[2]) D(pnl_close) I(held) D(orders_per_s)               \
    D(cancels_per_s) D(rejects_per_s) D(pnl_spread) D(pnl_inventory)
#undef I
#undef D
    return 0;
    /* clang-format on */
}
