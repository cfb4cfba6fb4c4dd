/* The types of the per-event step (mm_step.h): per-combination constants, one event as the step
 * sees it, and a combination's state, shared by the host compiler and nvcc. docs/model.md is the
 * specification; section numbers there match the comments here.
 *
 * Units: prices in ticks (int32), sizes in lots (int32), positions and cash in int64 (cash counted
 * twice, in half-ticks x lots, so marking at a half-tick mid stays an exact integer), times in ns
 * (int64), money in double (ticks x lots x tick_size x lot_size). */
#ifndef MM_STATE_H
#define MM_STATE_H

#include <stdint.h>

#include "mmsim/sim.h"

#define MM_NEVER INT64_MAX

/* Bounds of the exact integer accounting (docs/model.md, section 5): |cash2|, |mk2[k]| and
 * |spread2| stay at or below MM_CASH2_MAX half-ticks x lots, or the run fails (the step then only
 * records where it first happened). One fill adds less than 2^60 (|px| <= 2^31, qty <= 1e8 < 2^27)
 * and |q x mid2| < 2^62 (|q| <= 1e9 < 2^30, |mid2| <= 2^32), so no int64 sum of the step can wrap
 * before the run is declared failed. */
#define MM_CASH2_MAX (INT64_C(1) << 62)
/* Quote targets are clamped to [MM_PX_TARGET_MIN, MM_PX_TARGET_MAX] ticks (section 6). */
#define MM_PX_TARGET_MIN (-2147483647.0)
#define MM_PX_TARGET_MAX 2147483646.0
/* Bound of the exponent in the power queue rule's share (4.4): mm_det_exp's domain, [-700, 700]. */
#define MM_QEXP_MAX 700.0

/* Per-combination constants derived from mm_params (mm__derive). */
/* Kernel capabilities (docs/architecture.md, "Adding a rule"): the fast kernels that implement a
 * key's value, beyond the reference (mm_step_c), which implements every value. MM_CAP_SKIP: the
 * batched kernel may skip events for it (the skip test, docs/model.md 8); MM_CAP_LANES: the lanes
 * kernel's vector step (sim_lanes.h) computes it; MM_CAP_SHARE: combinations that differ only in
 * inv_limit and the fee rates may share one state (a draw's key and position are those of the
 * family and the event, docs/model.md 3.3, so a member would draw what its leader draws; states
 * with different stream keys never share: the key is a shared field). The CUDA engine runs
 * mm_step_c itself (mm_thread.h), so it implements every value the reference does. A key or value
 * a kernel has not opted into in params_keys.c is computed by the reference alone. */
enum { MM_CAP_SKIP = 1, MM_CAP_LANES = 2, MM_CAP_SHARE = 4, MM_CAP_ALL = 7 };

struct mm_side;

typedef struct mm_derived {
    double hs0, hs1;      /* half spread = hs0 + hs1 * tau, ticks */
    double sk0, sk1;      /* skew per lot = sk0 + sk1 * tau, ticks/lot */
    int32_t time_varying; /* 1 if tau follows the clock (AS with horizon 0) */
    int32_t fair_micro, queue_rule, tto, post_only;
    int32_t fill_unbounded; /* 1: fill_volume = unbounded (section 4) */
    int32_t cross_join;     /* 1: cross_rule = join (section 6) */
    int32_t rate;           /* max_orders_per_s (0: no limit) */
    int32_t close_pen;      /* close_penalty_ticks */
    int64_t backoff_ns;     /* reject_backoff_ns */
    int32_t size, limit, requote;
    double queue_n;
    int64_t feed_ns;      /* feed latency, ns */
    int64_t entry_ns;     /* order-entry latency (its median or mean when drawn, 3.3), ns */
    int64_t resp_ns;      /* response latency, ns (section 3.2; drawn as entry_ns, 3.3) */
    int32_t lat_dist;     /* enum mm_latency_dist */
    int32_t join_uniform; /* 1: queue_join = uniform */
    double lat_sigma;     /* lognormal: sigma of ln(latency) */
    uint64_t reach32;     /* trade_reach as a 32-bit threshold (mm_prob32; 2^32: always) */
    int32_t cancel_binom; /* 1: cancel_draw = binomial */
    int32_t book; /* enum mm_book, resolved for the tape: MM_BOOK_L1, MM_BOOK_L2 or MM_BOOK_L3 */
    /* The fast kernels that implement every value of the combination's parameters (MM_CAP_*,
     * mm__params_caps: the key table decides, src/core/params_keys.c); the routing reads nothing
     * else. */
    uint32_t caps;
    double maker_rate,
        taker_rate; /* fee per (tick x lot) of notional, money: bps * 1e-4 * tick * lot */
    double money;   /* tick_size * lot_size */
    /* fair += signal[i] x signal_skew (section 6), ticks per signal unit; 0: none. */
    double signal_skew;
    /* Ladders (docs/model.md 6.2): levels quotes per side (1: one, today's model; then rungs and
     * lsize are unused), lstep ticks apart, rung r's size the base size x lsize^r (mm__rung_size).
     * rungs: the live orders of rungs 1..levels-1, side k's rung r at rungs[k (levels - 1) + r -
     * 1] (rung 0 is the state's s[k]); storage the engine keeps per combination beside its state
     * (mm__rungs_attach), read and written by the reference step alone (levels > 1 has no
     * capability). */
    int32_t levels, lstep;
    double lsize;
    struct mm_side *rungs;
    /* Section 3.3: draws = 1 when the combination draws a random number; then fam is its family's
     * stream id (mm__params_family: the parameters but inv_limit and the fee rates), else 0. */
    int32_t draws;
    uint64_t fam;
} mm_derived;

/* A tape's depth stream as the step reads it (book = l2, docs/model.md 4.5): the columns of
 * mm_depth, the depth rows of each event (those of event i are [dbeg[i], dbeg[i + 1])), and the
 * index of its levels: the distinct (side, price) pairs ascending in lv_key (key = side index (0
 * bid, 1 ask) x 2^32 + price as uint32), the depth rows of pair j in lv_idx[lv_beg[j] ..
 * lv_beg[j + 1]), in row order. */
typedef struct mm__depth_view {
    int64_t n, nlv;
    const int64_t *row, *join;
    const int32_t *px, *sz;
    const int8_t *side, *cause;
    const int64_t *dbeg, *lv_key, *lv_beg, *lv_idx;
} mm__depth_view;

/* One event as the step sees it: the book before and after, the trade, and shared precomputed
 * values. */
typedef struct mm_event {
    int64_t i, ts;
    int32_t pb, pa, pbs, pas; /* book before the event (previous row); sizes 0 = empty side */
    int32_t b, a, bs, as;     /* book after the event */
    int32_t tpx, tsz, tside;  /* trade carried by the event */
    int32_t n_samples;        /* sampling-clock boundaries crossed since the previous event */
    /* Per side (bid, ask): lots traded at the level before the event (pb / pa) in the rows since
     * that level last changed, this event's trade not included (docs/model.md 2 and 4.4). */
    int64_t traded[2];
    int64_t prev_mid2, mid2; /* twice the last valid mid before / after the event (0: none yet) */
    int64_t mid2_h[MM_MARKOUTS]; /* twice the mid at ts + horizon (last valid at or before it) */
    double tau_end_s;            /* seconds from ts to the last event of the tape */
    int64_t lat_e, lat_r; /* the recorded latency series at ts: entry, response, ns (0: none) */
    const int64_t *samp_e, *samp_r; /* latency_dist = empirical: the samples (3.3) */
    int64_t nsamp_lat;
    const mm__depth_view *dv; /* the tape's depth stream (NULL: none) */
    double sig;               /* the tape's signal at this row (0: a tape without one) */
    int64_t d0, d1;           /* this event's depth rows: [d0, d1) of dv */
} mm_event;

/* One side's order state. */
typedef struct mm_side {
    int32_t px, qty; /* live order: price, remaining lots (qty 0: none) */
    int32_t ahead;   /* queue ahead of the live order, lots (meaningful when deep == 0) */
    int32_t deep;    /* 1: the live order is behind the visible best; its queue is unknown */
    int64_t land_ns; /* a replace/cancel in flight lands at this time (MM_NEVER: none) */
    int32_t new_px, new_qty; /* what lands: a new order (new_qty > 0) or only the cancel (0) */
    /* What the strategy knows (section 3.2): the response to the last action that landed is known
     * from resp_ns on (INT64_MIN: none yet); acc = 1 when that action left a resting order; done_ns
     * = when the report that this order is done (filled) is known (MM_NEVER: not done). */
    int64_t resp_ns, done_ns;
    int32_t acc;
    /* book = l2 (section 4.5): the size of the live order's level as the depth stream last showed
     * it, lots (-1: not shown; 0 with book = l1, which never writes it). */
    int32_t lsz;
    int64_t jrow; /* book = l3: the event at which the live order joined its level (4.5) */
} mm_side;
/* Fill reports in flight to the strategy (section 3.2): at most MM_REPORTS pending. */
#define MM_REPORTS 8

typedef struct mm_state {
    mm_side s[2];     /* [0] bid (buy, side +1), [1] ask (sell, side -1) */
    int64_t q, cash2; /* position, lots; twice the cash, ticks x lots */
    double fees;
    int64_t volume, fills[2], orders, cancels, rejects, max_abs_q;
    double twq;               /* integral of |q| dt, lots x ns */
    int64_t t_q;              /* time of the last change of q */
    int64_t mk2[MM_MARKOUTS]; /* markouts, half-ticks x lots */
    int64_t spread2;          /* spread capture (section 7.1), half-ticks x lots */
    /* 0, or 1 + the event at which |cash2|, a |mk2| or |spread2| first passed MM_CASH2_MAX */
    int64_t ovf_event;
    /* PnL sampling (Welford over the returns between samples). */
    double pnl_prev, ret_mean, ret_m2, pnl_peak, max_dd;
    int64_t n_ret;
    /* The combination id in its sweep (0 for a single run) and the path (the stream key's, 3.3).
     * Set by mm__state_init; no rule reads them. */
    int64_t id, path;
    /* Section 6.1, pacing: wait_ns[k] = no new order on side k before this time (reject back-off);
     * the token bucket of max_orders_per_s: tok = credit spent below capacity, in ns x orders/s
     * (cost of one order 1e9, capacity rate x 1e9), as of time tok_t; hold[k] = 1 while side k's
     * wanted order is held back (counted once in held); wake_ns = the earliest time a held-back
     * or backed-off order could go (MM_NEVER: none): the batched kernel must step then. */
    int64_t wait_ns[2];
    int64_t tok, tok_t;
    int64_t held, hold[2];
    int64_t wake_ns;
    /* Section 3.2, what the strategy knows of its position: kq = the position its fill reports so
     * far add up to; chan_ns = arrival of the latest message on the response channel (INT64_MIN:
     * none), which keeps it first in, first out; the nrep pending reports, oldest first from
     * entry 0: known from rep_t, moving kq by rep_q lots (entries from nrep on are 0, so equal
     * queues are equal bytes: the batched kernel's shared states compare them). */
    int64_t kq, chan_ns;
    int32_t nrep;
    /* Section 3.3: the response latencies drawn at this event so far (the position of the next);
     * 0 between events (mm_step_c resets it). */
    int32_t msg_n;
    int64_t rep_t[MM_REPORTS], rep_q[MM_REPORTS];
    /* Section 3.3: the key of this state's random streams (mm_stream_key(seed, fam, path) when it
     * draws, else 0). */
    uint64_t key;
} mm_state;

/* ---- Every field of mm_state, once ----
 * MM_STATE_FIELDS(X) calls X(kind, field, init, role) for each scalar field and each array element
 * of mm_state, in the struct's order. What is kept per field is generated from it: the state before
 * the first event (mm__state_init), the fields a shared state's member keeps as its own
 * (sim_share.h), checkmodel's whole-state compare and its first-mismatch printout. kind:  I an
 * integer, D a double (compared exactly, bit for bit); field: the lvalue under a state (s[0].px,
 * mk2[2]); init:  its value before the first event: ZERO, NEVER (MM_NEVER), MIN (INT64_MIN), T0
 * (the tape's first time), ID, PATH (the combination's id and path), KEY (mm_stream_key(seed, fam,
 * path) for a combination that draws, else 0); role:  SHARED (states that share agree on it, dead
 * fields aside: sim_share_dead.h), OWN (each member of a shared state keeps its own: its accounts,
 * samples, counters, id and path), PAD. The sizes listed add up to sizeof(mm_state) (the assertion
 * below): a field added to the struct and not to the table does not compile. */
/* clang-format off */
#define MM_SIDE_FIELDS(X, k)                                                                       \
    X(I, s[k].px, ZERO, SHARED) X(I, s[k].qty, ZERO, SHARED) X(I, s[k].ahead, ZERO, SHARED)        \
    X(I, s[k].deep, ZERO, SHARED) X(I, s[k].land_ns, NEVER, SHARED)                                \
    X(I, s[k].new_px, ZERO, SHARED) X(I, s[k].new_qty, ZERO, SHARED)                               \
    X(I, s[k].resp_ns, MIN, SHARED) X(I, s[k].done_ns, NEVER, SHARED) X(I, s[k].acc, ZERO, SHARED) \
    X(I, s[k].lsz, ZERO, SHARED) X(I, s[k].jrow, ZERO, SHARED)
#define MM_REPORT_FIELDS(X, j) X(I, rep_t[j], ZERO, SHARED) X(I, rep_q[j], ZERO, SHARED)
#define MM_STATE_FIELDS(X)                                                                         \
    MM_SIDE_FIELDS(X, 0) MM_SIDE_FIELDS(X, 1)                                                      \
    X(I, q, ZERO, OWN) X(I, cash2, ZERO, OWN) X(D, fees, ZERO, OWN) X(I, volume, ZERO, OWN)        \
    X(I, fills[0], ZERO, OWN) X(I, fills[1], ZERO, OWN) X(I, orders, ZERO, OWN)                    \
    X(I, cancels, ZERO, OWN) X(I, rejects, ZERO, OWN) X(I, max_abs_q, ZERO, OWN)                   \
    X(D, twq, ZERO, OWN) X(I, t_q, T0, OWN)                                                        \
    X(I, mk2[0], ZERO, OWN) X(I, mk2[1], ZERO, OWN) X(I, mk2[2], ZERO, OWN)                        \
    X(I, spread2, ZERO, OWN) X(I, ovf_event, ZERO, OWN)                                            \
    X(D, pnl_prev, ZERO, OWN) X(D, ret_mean, ZERO, OWN) X(D, ret_m2, ZERO, OWN)                    \
    X(D, pnl_peak, ZERO, OWN) X(D, max_dd, ZERO, OWN) X(I, n_ret, ZERO, OWN)                       \
    X(I, id, ID, OWN) X(I, path, PATH, OWN)                                                        \
    X(I, wait_ns[0], MIN, SHARED) X(I, wait_ns[1], MIN, SHARED) X(I, tok, ZERO, SHARED)            \
    X(I, tok_t, T0, SHARED) X(I, held, ZERO, OWN) X(I, hold[0], ZERO, SHARED)                      \
    X(I, hold[1], ZERO, SHARED) X(I, wake_ns, NEVER, SHARED)                                       \
    X(I, kq, ZERO, OWN) X(I, chan_ns, MIN, SHARED) X(I, nrep, ZERO, SHARED) X(I, msg_n, ZERO, SHARED)\
    MM_REPORT_FIELDS(X, 0) MM_REPORT_FIELDS(X, 1) MM_REPORT_FIELDS(X, 2) MM_REPORT_FIELDS(X, 3)    \
    MM_REPORT_FIELDS(X, 4) MM_REPORT_FIELDS(X, 5) MM_REPORT_FIELDS(X, 6) MM_REPORT_FIELDS(X, 7)    \
    X(I, key, KEY, SHARED)
/* clang-format on */
#define MM_STATE_FIELD_SIZE(kind, f, init, role) +sizeof(((mm_state *)0)->f)
#ifdef __cplusplus /* nvcc */
#define MM_STATE_ASSERT static_assert
#else
#define MM_STATE_ASSERT _Static_assert
#endif
MM_STATE_ASSERT(0 MM_STATE_FIELDS(MM_STATE_FIELD_SIZE) == sizeof(mm_state),
                "MM_STATE_FIELDS must list every field of mm_state");
MM_STATE_ASSERT(MM_REPORTS == 8 && MM_MARKOUTS == 3,
                "MM_STATE_FIELDS lists rep_t/rep_q[0..7] and mk2[0..2]");
#undef MM_STATE_FIELD_SIZE
/* Pick the fields of one role: MM_STATE_IF_OWN(role, text) is text for role OWN, nothing else. */
#define MM_STATE_IF_OWN(role, ...) MM_STATE_IF_OWN_##role(__VA_ARGS__)
#define MM_STATE_IF_OWN_OWN(...) __VA_ARGS__
#define MM_STATE_IF_OWN_SHARED(...)
#define MM_STATE_IF_OWN_PAD(...)

#endif
