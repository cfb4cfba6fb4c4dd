/* Internals of the Binance capture importer (docs/import-binance.md), shared by its files:
 * import_binance.c (the driver: the files, in order, line by line, then the replay),
 * import_binance_parse.c (one line -> a parsed message), import_binance_time.c (the capture's clock
 * offset and the check of exchange times against receive times) and import_binance_replay.c (the
 * messages in exchange order through the L2 book into tape rows). import_binance.c says what the
 * importer does as a whole. */
#ifndef MM_IMPORT_BINANCE_INT_H
#define MM_IMPORT_BINANCE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "import_internal.h"

/* The dense book spans at most 32M price ticks between the lowest and highest price seen (two
 * arrays of 128 MiB at most, two more with --skip-gaps; calloc'd, so pages never touched cost
 * nothing). Spot BTCUSDT at a 0.01 tick spans 18.5M ticks in a day (stray orders at 15,460 and
 * 200,000 dollars). */
#define BOOK_MAX_RANGE (INT64_C(1) << 25)

/* A message's exchange time may differ from its receive time + the capture's clock offset by at
 * most this much (network stalls, clock steps); more is a wrong time. */
#define TIME_TOL_NS (INT64_C(60) * 1000000000)

enum { MK_UNKNOWN = 0, MK_SPOT = 1, MK_USDM = 2 };
/* "unknown", "spot", "usdm", by MK_* (import_binance.c). */
extern const char *const mm__binance_market_name[3];

typedef struct lvl {
    int32_t px, qty; /* ticks, lots; qty 0 deletes */
} lvl;

/* Where a message is: file index and 1-based line; recv_ns: the receive time prefix. */
typedef struct depth_ev {
    int64_t t_ms, U, u, pu, line, recv_ns;
    int64_t off; /* first level in the level array: bids then asks */
    int32_t nb, na, f;
} depth_ev;

typedef struct ticker_ev {
    int64_t t_ms, u, line, recv_ns; /* t_ms -1: no exchange time (spot) */
    int32_t bid_px, bid_qty, ask_px, ask_qty, f;
} ticker_ev;

typedef struct trade_ev {
    int64_t t_ms, id, line, recv_ns;
    int32_t px, qty, f;
    int8_t side;
} trade_ev;

typedef struct bn {
    const char *const *paths; /* the capture files, in order */
    int32_t fi;               /* file being read */
    const mm_import_opts *o;
    const char *sym; /* the stream symbol: opts.symbol up to its first '.' */
    size_t symlen;
    mm__dec tick, lot;
    mm_error *err;
    int64_t line, recv_ns;
    mm__json j;
    int market;       /* MK_* */
    int32_t market_f; /* where the market was decided: file, line; -1 = opts.market */
    int64_t market_line;
    /* parsed messages */
    depth_ev *dep;
    int64_t ndep, cdep;
    ticker_ev *tk;
    int64_t ntk, ctk;
    trade_ev *tr;
    int64_t ntr, ctr;
    lvl *lv;
    int64_t nlv, clv;
    int have_snap;
    int64_t snap_id, snap_t_ms, snap_line, snap_off, snap_recv;
    int32_t snap_nb, snap_na, snap_f;
    int32_t px_min, px_max;
    int32_t min_f, max_f; /* where the lowest and highest prices were seen */
    int64_t min_line, max_line;
    int depth_levels; /* levels per side of the depth stream (0: none) */
} bn;

#define PATH(b, f) ((b)->paths[(f)])

/* One capture line "<receive ns> <JSON>" of file b->fi, line b->line, appended to the parsed
 * messages of b (import_binance_parse.c). Returns 0, -ENOMEM, or an error in b->err. */
int mm__binance_parse_line(bn *b, const char *s, size_t n);

/* ---- times (import_binance_time.c) ---- */

/* The capture's clock offset, ns: the lower median of (exchange time - receive time) over every
 * message with an exchange time (a median, so that a few wrong times cannot move it). Returns 0, 1
 * (no timed message: *off = 0) or -ENOMEM. */
int mm__binance_clock_offset(const bn *b, int64_t *off);

/* The first (in file, line order) message whose exchange time is more than TIME_TOL_NS from its
 * receive time + off is an error (MM_EINVALID in b->err); returns 0 when there is none. */
int mm__binance_check_times(bn *b, int64_t off);

/* Receive time + offset, in ms, within [0, INT64_MAX / 10^6]. */
int64_t mm__binance_est_ms(int64_t recv_ns, int64_t off);

/* ---- the L2 book (import_binance_replay.c) ---- */

struct bdepth;

/* The L2 book: dense quantities by price tick over [base, base + range), best levels tracked,
 * occupied levels counted. With --skip-gaps, levels set by the current diff carry its stamp (bs,
 * as; NULL otherwise), so that a crossed book after a skipped gap can drop the stale side. With a
 * depth stream (dep), every change is logged for it (mm__bdepth_log). */
typedef struct l2 {
    int32_t base;
    int64_t range;
    int32_t *bq, *aq;
    uint32_t *bs, *as;
    int64_t best_b, best_a; /* indices, -1 / range when the side is empty */
    int64_t live_b, live_a; /* occupied levels */
    struct bdepth *dep;
} l2;

/* ---- the depth stream (import_binance_depth.c) ---- */

/* Set up the depth stream of K levels per side (0: none) into out. Returns NULL with *rc = 0 for
 * K = 0, else the state or NULL with *rc = -ENOMEM. */
struct bdepth *mm__bdepth_new(int K, mm__imp_depth *out, int *rc);
void mm__bdepth_free(struct bdepth *d);
/* The level (bid: side 1, ask: 0) at px had quantity old before the current diff changed it. */
int mm__bdepth_log(struct bdepth *d, int bid, int32_t px, int32_t old);
/* A trade of qty lots at px (trade_side +1 buyer-initiated: it took the ask) was printed. */
int mm__bdepth_trade(struct bdepth *d, int8_t trade_side, int32_t px, int32_t qty);
/* The book k is the snapshot, at tape row `row`: the window's levels are shown. Starts the stream.
 */
int mm__bdepth_start(struct bdepth *d, const l2 *k, int64_t row);
/* A diff was applied to k (its changes logged) and its tape row is `row`: the window's changes. */
int mm__bdepth_diff(struct bdepth *d, const l2 *k, int64_t row);

/* ---- replay (import_binance_replay.c) ---- */

/* Sort the parsed messages into exchange order and replay them into `tape`. Returns 0 or an error
 * in b->err. */
int mm__binance_replay(bn *b, mm_import_report *rep, mm__imp_tape *tape);

#endif
