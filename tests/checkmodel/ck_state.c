/* checkmodel: the whole mm_state and the metrics, field by field. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checkmodel.h"

/* The whole state, field by field (never memcmp a struct: padding). CK_STATE_FIELDS lists every
 * field of mm_state: I for integers, D for doubles; ck_check_field_list() verifies at start-up that
 * their sizes add up to sizeof(mm_state), so a field added to mm_state and not here stops the
 * checker. */
/* clang-format off */
#define CK_SIDE_FIELDS(I, k)                                                                       \
    I(s[k].px) I(s[k].qty) I(s[k].ahead) I(s[k].deep) I(s[k].land_ns) I(s[k].new_px) I(s[k].new_qty) \
    I(s[k].resp_ns) I(s[k].done_ns) I(s[k].acc) I(s[k].pad_) I(s[k].rest_ns)
#define CK_STATE_FIELDS(I, D)                                                                      \
    CK_SIDE_FIELDS(I, 0) CK_SIDE_FIELDS(I, 1)                                                      \
    I(q) I(cash2) D(fees) I(volume) I(fills[0]) I(fills[1]) I(orders) I(cancels) I(rejects)        \
    I(max_abs_q) D(twq) I(t_q) I(mk2[0]) I(mk2[1]) I(mk2[2]) I(ovf_event)                          \
    D(pnl_prev) D(ret_mean) D(ret_m2) D(pnl_peak) D(max_dd) I(n_ret) I(id) I(path)                \
    I(wait_ns[0]) I(wait_ns[1]) I(tok) I(tok_t) I(held) I(hold[0]) I(hold[1]) I(wake_ns)        \
    I(kq) I(chan_ns) I(nrep) I(rpad_) CK_REPORT_FIELDS(I, 0) CK_REPORT_FIELDS(I, 1)               \
    CK_REPORT_FIELDS(I, 2) CK_REPORT_FIELDS(I, 3) CK_REPORT_FIELDS(I, 4) CK_REPORT_FIELDS(I, 5)   \
    CK_REPORT_FIELDS(I, 6) CK_REPORT_FIELDS(I, 7) I(key) I(nmsg)
#define CK_REPORT_FIELDS(I, j) I(rep_t[j]) I(rep_q[j])
/* clang-format on */
_Static_assert(MM_REPORTS == 8, "CK_STATE_FIELDS lists rep_t/rep_q[0..7]");
_Static_assert(MM_MARKOUTS == 3, "CK_STATE_FIELDS lists mk2[0..2]");

int ck_check_field_list(void)
{
    size_t bytes = 0;
    mm_state st;
#define SZ(f) bytes += sizeof st.f;
    CK_STATE_FIELDS(SZ, SZ)
#undef SZ
    (void)st;
    if (bytes != sizeof(mm_state)) {
        fprintf(stderr,
                "checkmodel: CK_STATE_FIELDS covers %zu of the %zu bytes of mm_state: list the new "
                "fields\n",
                bytes, sizeof(mm_state));
        return -1;
    }
    return 0;
}

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
    CK_STATE_FIELDS(I, D)
#undef I
#undef D
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
    D(cancels_per_s) D(rejects_per_s)
#undef I
#undef D
    return 0;
    /* clang-format on */
}
