/* The market-making model: one parameter combination replayed through a tape (docs/model.md).
 *
 * Units everywhere: prices in ticks, sizes in lots, times in ns (parameters in seconds say so),
 * fees in basis points of notional, money (PnL, fees, markouts) in price units x size units, i.e.
 * ticks x lots times tick_size x lot_size.
 */
#ifndef MMSIM_SIM_H
#define MMSIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mm_ticks;      /* <mmsim/ticks.h> */
struct mm_instrument; /* <mmsim/ticks.h> */

enum mm_strategy { MM_STRAT_FIXED = 0, MM_STRAT_AS = 1, MM_STRAT_GLFT = 2 };
enum mm_queue_rule { MM_QUEUE_RISK_AVERSE = 0, MM_QUEUE_POWER = 1, MM_QUEUE_LOG = 2 };
/* How much a trade through our price or a book cross can fill (docs/model.md, section 4):
 * BOUNDED (the default) at most what the market offered in that event; UNBOUNDED the whole
 * remaining order (the rule before 2026-12, kept for comparison). */
enum mm_fill_volume { MM_FILL_BOUNDED = 0, MM_FILL_UNBOUNDED = 1 };
/* A quote target that would cross the book (docs/model.md, section 6): JOIN (the default) places it
 * at the best price on its own side; REJECT sends it as computed (post-only then rejects it). */
enum mm_cross_rule { MM_CROSS_JOIN = 0, MM_CROSS_REJECT = 1 };
/* Execution randomness (docs/model.md, section 3.3): how each order's entry latency and each
 * response's latency are drawn around latency_ns / response_ns; where a new order joins the queue
 * of its level. The defaults draw nothing (the deterministic replay). */
enum mm_latency_dist {
    MM_LAT_CONSTANT = 0,
    MM_LAT_EXPONENTIAL = 1,
    MM_LAT_LOGNORMAL = 2,
    MM_LAT_EMPIRICAL = 3 /* a measured sample (mm_sim_config.latency_samples) plus the parameter */
};
enum mm_queue_join { MM_JOIN_BACK = 0, MM_JOIN_UNIFORM = 1 };
/* How many of a level's cancels were ahead of us (section 4.4): ROUND floor(dec x share + 0.5);
 * BINOMIAL each cancelled lot was ahead with probability share (section 3.3). */
enum mm_cancel_draw { MM_CANCEL_ROUND = 0, MM_CANCEL_BINOMIAL = 1 };
/* The queue of an order (section 4.5): AUTO the deepest the tape supports (L3 when its depth stream
 * has order ids, L2 when it has one without, else L1); L1 the best level only (an order behind it
 * is deep: its queue unknown until its level becomes best); L2 the queue at every level the depth
 * stream shows, cancels split by the queue rule; L3 the exact FIFO queue from the order ids. */
enum mm_book { MM_BOOK_AUTO = 0, MM_BOOK_L1 = 1, MM_BOOK_L2 = 2, MM_BOOK_L3 = 3 };
#define MM_MARKOUTS 3

/* One parameter combination. Every field is a sweepable axis. */
typedef struct mm_params {
    int32_t strategy; /* enum mm_strategy */
    /* Fixed-offset quoting: bid = fair - spread - skew*q, ask = fair + spread - skew*q. */
    double spread_ticks; /* distance from fair to each quote, ticks, >= 0 */
    double skew_ticks;   /* quote shift per lot of inventory, ticks/lot, >= 0 */
    int32_t fair_micro;  /* 0: fair = mid; 1: fair = microprice */
    /* Avellaneda-Stoikov: r = s - q gamma sigma^2 tau; spread = gamma sigma^2 tau + (2/gamma) ln(1
     * + gamma/k). */
    double as_gamma;     /* risk aversion, 1/(ticks x lots), > 0 */
    double as_k;         /* order-arrival decay, 1/ticks, > 0 */
    double as_sigma;     /* volatility, ticks/sqrt(s) */
    double as_horizon_s; /* tau in s; 0: tau = time left until the tape's last event */
    /* Gueant-Lehalle-Fernandez-Tapia closed form (q in units of quote_size). */
    double glft_gamma, glft_k, glft_A,
        glft_sigma; /* 1/(ticks x lots), 1/ticks, 1/s, ticks/sqrt(s) */
    int32_t glft_Q; /* inventory bound, in quote_size units, >= 1 */
    /* Common. */
    int32_t quote_size;    /* lots per quote, >= 1 */
    int32_t inv_limit;     /* |q| never exceeds this, lots, >= quote_size */
    int32_t requote_ticks; /* keep a resting order until its target moves this many ticks, >= 1 */
    int32_t queue_rule;    /* enum mm_queue_rule */
    double queue_n;        /* exponent n of the power rule, > 0 */
    int32_t trade_through_only; /* 1: fill only when a trade prints through our price */
    int32_t post_only;       /* 1: an order that would cross on arrival is rejected; 0: it takes */
    int64_t latency_ns;      /* order-entry latency (new orders and cancels), >= 0 */
    int64_t feed_latency_ns; /* market-data latency, >= 0 */
    int64_t response_ns;     /* exchange-to-strategy latency of responses and fill reports, >= 0 */
    double maker_fee_bps;    /* negative = rebate */
    double taker_fee_bps;
    int32_t fill_volume;       /* enum mm_fill_volume */
    int32_t cross_rule;        /* enum mm_cross_rule */
    int64_t reject_backoff_ns; /* after a reject, no new order on that side for this long, >= 0 */
    int32_t max_orders_per_s;  /* new orders per second (token bucket, burst = 1 s), 0: no limit */
    int32_t close_penalty_ticks; /* pnl_close: the part beyond the displayed size, ticks, >= 0 */
    int32_t latency_dist;        /* enum mm_latency_dist */
    double latency_sigma;        /* lognormal: the shape sigma of ln(latency), [0, 5] */
    int32_t queue_join;          /* enum mm_queue_join */
    double trade_reach;  /* probability that a trade at our price reaches our queue, [0, 1] */
    int32_t cancel_draw; /* enum mm_cancel_draw */
    /* Stress scenarios (docs/model.md 3.4), 1 = none. stress_latency multiplies latency_ns,
     * feed_latency_ns and response_ns, [1, 1000]; stress_vol multiplies a synthetic day's
     * fair-price volatility, [0, 100]; stress_liquidity divides its mean_queue, [0.01, 100]. The
     * last two act on the market a sweep generates per path (mm_sim_config.synthetic); on a
     * recorded tape they must be 1. */
    int32_t stress_latency;
    double stress_vol, stress_liquidity;
    int32_t book; /* enum mm_book */
    /* The tape's signal moves the fair price by signal[i] x signal_skew ticks at each decision
     * (docs/model.md 6; ticks per signal unit, |signal_skew| < 1e6; 0, the default: no effect). A
     * value other than 0 needs a tape with a signal column (docs/formats.md "Signal"). */
    double signal_skew;
    /* Ladders (docs/model.md 6.2): levels quotes per side, [1, 8] (1: one quote); level_step ticks
     * between adjacent rungs, [1, 1e6]; level_size: rung r's size is quote_size x level_size^r
     * rounded half-even to whole lots (at least 1), [0.1, 10]. */
    int32_t levels, level_step;
    double level_size;
} mm_params;

/* A recorded latency series (docs/model.md, section 3.2): n >= 1 points at strictly increasing
 * times ts_ns, each with the order-entry and the response latency measured then, ns, in [0,
 * MM_SIM_LATENCY_MAX_NS]. Between points the latencies are interpolated linearly (rounded down);
 * before the first and after the last the end points hold. */
typedef struct mm_latency_series {
    int64_t n;
    const int64_t *ts_ns, *entry_ns, *response_ns;
} mm_latency_series;
#define MM_SIM_LATENCY_MAX_NS INT64_C(3600000000000) /* 1 h */

/* Measured latencies for latency_dist = empirical (docs/model.md, section 3.3): n >= 1 pairs
 * (entry, response), ns, each in [0, MM_SIM_LATENCY_MAX_NS]; each draw picks one uniformly. */
typedef struct mm_latency_samples {
    int64_t n;
    const int64_t *entry_ns, *response_ns;
} mm_latency_samples;

/* Settings shared by every combination of a run. */
typedef struct mm_sim_config {
    int64_t sample_ns; /* PnL sampling clock for Sharpe and drawdown, > 0 (default 1 s) */
    double year_s; /* seconds of trading in a year for annualising, (0, 1e12]; 0 (the default): each
                      tape's own (mm_instrument.year_s; 252 x 6.5 h when the tape records none) */
    int64_t markout_ns[MM_MARKOUTS]; /* markout horizons, [1, MM_SIM_HORIZON_MAX_NS] (default 1 s,
                                        10 s, 60 s) */
    /* NULL (the default): constant latencies (the parameters latency_ns and response_ns). Else
     * each order's entry latency and each response's latency add the series' value at the time
     * (section 3.2); the series must stay valid while the run uses the config. */
    const mm_latency_series *latency;
    /* NULL (the default): none; latency_dist = empirical needs them. Must stay valid while the run
     * uses the config. */
    const mm_latency_samples *latency_samples;
    /* The key of the random streams (section 3.3): the master seed, and for mm_sim_run_c /
     * mm_sim_run_batch the first combination's id (combination k of a batch is id + k) and the
     * path. Defaults 1, 0, 0. A sweep sets them itself (its --seed, each row's id). */
    uint64_t seed;
    int64_t id;
    int32_t path;
    /* 1 when the tape is a synthetic day generated with the combination's stress_vol and
     * stress_liquidity applied (a sweep over synthetic markets); 0 (the default): a recorded tape,
     * on which they must be 1. */
    int synthetic;
} mm_sim_config;

/* Limits of a run (docs/model.md, section 1.2): the sampling clock crosses at most
 * MM_SIM_SAMPLES_MAX boundaries over a tape (floor((ts_last - ts_first) / sample_ns)); a markout
 * horizon is at most MM_SIM_HORIZON_MAX_NS (1e18 ns, about 31.7 years); every timestamp of a
 * simulated tape is in [MM_SIM_TS_MIN, MM_SIM_TS_MAX] = [-2^62, 2^62 - 1] ns, so that all time
 * arithmetic is exact in int64. */
#define MM_SIM_SAMPLES_MAX INT64_C(100000000)
#define MM_SIM_HORIZON_MAX_NS INT64_C(1000000000000000000)
#define MM_SIM_TS_MIN (-(INT64_C(1) << 62))
#define MM_SIM_TS_MAX ((INT64_C(1) << 62) - 1)

/* Metrics of one combination. */
typedef struct mm_metrics {
    double pnl;                   /* final, marked to the last mid, after fees; money */
    double fees;                  /* paid (negative: net rebate); money */
    int64_t volume;               /* lots traded */
    int64_t fills_bid, fills_ask; /* fill events per side (a partial fill counts once) */
    int64_t orders;               /* new orders sent */
    int64_t cancels;              /* cancels sent (a replace sends one cancel and one order) */
    int64_t rejects; /* post-only rejections and orders dropped at arrival by the inventory limit */
    int64_t final_q, max_abs_q;  /* lots */
    double mean_abs_q;           /* time-weighted mean |q| over the tape, lots */
    double sharpe;               /* annualised, from PnL sampled every sample_ns */
    double max_drawdown;         /* on the sampled PnL plus the final mark; money, >= 0 */
    double markout[MM_MARKOUTS]; /* sum over fills of side x (mid(t+h) - fill px) x qty; money */
    double pnl_close; /* pnl after closing final_q at the touch (section 7.1), taker fee; money */
    int64_t held;     /* new orders held back by max_orders_per_s */
    double orders_per_s, cancels_per_s, rejects_per_s; /* per second of tape (0 if it spans 0) */
    /* PnL decomposition (docs/model.md 7.1): spread capture (each fill's edge to the mid before
     * its event) and inventory PnL (the rest of the marked PnL before fees); money.
     * (pnl_spread + pnl_inventory) - fees == pnl in double, wherever such a pnl_inventory exists
     * (always when tick_size x lot_size is a power of two). */
    double pnl_spread, pnl_inventory;
} mm_metrics;

/* One trace record (see mmsim run --trace). */
enum mm_trace_kind {
    MM_TR_ORDER = 1,
    MM_TR_CANCEL = 2,
    MM_TR_ACTIVE = 3,
    MM_TR_REJECT = 4,
    MM_TR_FILL = 5,
    MM_TR_DONE = 6
};
typedef struct mm_trace_rec {
    int64_t ts_ns;
    int64_t event;   /* index of the event being processed */
    int32_t kind;    /* enum mm_trace_kind */
    int32_t side;    /* +1 bid (buy), -1 ask (sell) */
    int32_t px;      /* ticks */
    int32_t qty;     /* lots (fill: filled qty; order: size) */
    int32_t ahead;   /* queue ahead after the record, lots (-1: unknown, behind the visible best) */
    int32_t taker;   /* fill: 1 if taker */
    int64_t q;       /* position after the record, lots */
    int64_t cash2;   /* twice the cash, ticks x lots */
    int64_t mid2;    /* twice the mid used for marking, ticks */
    double fees;     /* cumulative fees, money */
    double pnl;      /* cash + q x mid - fees, money */
    int64_t known_q; /* the position the strategy knows (its fill reports so far), lots */
} mm_trace_rec;

typedef void (*mm_trace_fn)(const mm_trace_rec *r, void *user);

/* The whole trace of a run in memory, for a caller that wants it as a table (the Python package's
 * mmsim.run): pass mm_trace_collect as the trace function and a zeroed mm_trace_buf as its user
 * pointer; rec[0 .. n) are the records in the order of the run. The array grows by doubling (88
 * bytes a record). When it cannot grow, the records after that point are dropped and oom is set
 * (the run itself goes on; the caller checks oom). Release with mm_trace_buf_free, which zeroes the
 * buffer (safe on a zeroed one). */
typedef struct mm_trace_buf {
    mm_trace_rec *rec;
    int64_t n, cap;
    int oom;
} mm_trace_buf;
MM_API void mm_trace_collect(const mm_trace_rec *r, void *user);
MM_API void mm_trace_buf_free(mm_trace_buf *b);

MM_API void mm_params_defaults(mm_params *p);
MM_API void mm_sim_config_defaults(mm_sim_config *c);

/* Parameters by name (the keys of docs/model.md, section 1: "spread", "inv_limit", "queue", ...):
 * set one from text (strict parsing; enums by name), print one, list them. Returns 0 or MM_EUSAGE
 * naming the key. */
MM_API int mm_params_set(mm_params *p, const char *key, const char *value, mm_error *err);
MM_API int mm_params_get(const mm_params *p, const char *key, char *buf, size_t cap);
MM_API int mm_params_key_count(void);
/* Kind of a key: MM_KEY_INT, MM_KEY_REAL or MM_KEY_ENUM (then *enum_names lists the names by value,
 * NULL-terminated); MM_EUSAGE for an unknown key. mm_params_get_num gives the value as a double
 * (enums: their index; 64-bit integers above 2^53 lose precision). */
enum { MM_KEY_INT = 1, MM_KEY_REAL = 2, MM_KEY_ENUM = 3 };
MM_API int mm_params_key_kind(const char *key, const char *const **enum_names);
MM_API int mm_params_get_num(const mm_params *p, const char *key, double *out);
MM_API const char *mm_params_key_name(int i, const char **help);

/* Check a combination against the domains of docs/model.md, section 1; returns 0 or MM_EUSAGE with
 * err naming the key ("queue_n: 200 must be in (0, 100]"). */
MM_API int mm_params_check(const mm_params *p, mm_error *err);
/* mm_params_check, and what a combination needs from the run's settings (latency_dist =
 * empirical: latency samples). */
MM_API int mm_sim_check_params(const mm_params *p, const mm_sim_config *c, mm_error *err);

/* The seconds per year a run on a tape with instrument inst annualises with: c->year_s when it is
 * not 0, else inst->year_s when recorded, else MM_SIM_YEAR_S_DEFAULT (252 x 6.5 h). */
#define MM_SIM_YEAR_S_DEFAULT 5896800.0
MM_API double mm_sim_year_s(const mm_sim_config *c, const struct mm_instrument *inst);

/* Check the run settings (sample_ns > 0, year_s, markout horizons) and, when t is not NULL, the
 * tape against them: timestamps in [MM_SIM_TS_MIN, MM_SIM_TS_MAX] and in order (MM_EINVALID naming
 * instrument, column and row), at most MM_SIM_SAMPLES_MAX samples (MM_EUSAGE naming sample_ns and
 * the count it would give). Both engines call it; a caller that prepares tapes itself calls it
 * before creating any state. */
MM_API int mm_sim_config_check(const mm_sim_config *c, const struct mm_ticks *t, mm_error *err);

/* Reference: one combination through the tape, written for clarity. trace may be NULL. Returns 0,
 * the codes of mm_params_check and mm_sim_config_check, or -ERANGE when the run's cash or a markout
 * sum passes 2^62 half-ticks x lots (prices x sizes too large for exact accounting; docs/model.md,
 * section 5). */
MM_API int mm_sim_run_c(const struct mm_ticks *t, const mm_sim_config *c, const mm_params *p,
                        mm_metrics *out, mm_trace_fn trace, void *user, mm_error *err);

/* Batched kernel: n combinations in one pass over the tape (blocks of combinations per event).
 * Results are bit-identical to mm_sim_run_c for each combination; errors as mm_sim_run_c, for the
 * first failing combination (err names it). */
MM_API int mm_sim_run_batch(const struct mm_ticks *t, const mm_sim_config *c, const mm_params *p,
                            int64_t n, mm_metrics *out, mm_error *err);

#ifdef __cplusplus
}
#endif

#endif
