/* The normalised tick tape and the HDF5 tick store.
 *
 * A tape is one time-ordered stream of events of one instrument, stored as columns (struct of
 * arrays). Row i is the top of book *after* event i and the trade carried by event i, if any: ts_ns
 * int64  exchange time, ns since the Unix epoch (UTC), non-decreasing; bid_px      int32  best bid
 * price in ticks (price / tick_size); ask_px      int32  best ask price in ticks; bid_sz      int32
 * best bid size in lots (size / lot_size), >= 0; 0 means the side is empty; ask_sz      int32  best
 * ask size in lots, >= 0; 0 means the side is empty; trade_px    int32  trade price in ticks (0
 * when there is no trade); trade_sz    int32  trade size in lots, >= 0 (0 = no trade); trade_side
 * int8   +1 buyer-initiated, -1 seller-initiated, 0 no trade. An empty side carries the price
 * MM_PX_NONE_BID / MM_PX_NONE_ASK and size 0.
 *
 * Every column of a loaded tape sits in one memory block, each column 64-byte aligned; the block is
 * either heap memory or a POSIX shared-memory segment that forked children inherit read-only.
 *
 * Depth (optional, docs/formats.md "Depth"): beside the rows, a stream of changes of the shown
 * levels of the book, in tape order: depth row k changes one price level of one side at tape row
 * row[k] (its time is ts_ns[row[k]]), to the size sz[k] (0: the level is no longer shown), for the
 * reason cause[k]. Replaying the stream from an empty book gives, after the depth rows of tape row
 * i, the best `levels` levels per side known after event i. Sources with order ids add, for each
 * removal, the tape row at which the removed order joined the book (join[k]; -1: unknown).
 *
 * Signal (optional, docs/formats.md "Signal"): one finite float64 a row (signal[i] belongs to row
 * i, e.g. a model's predicted mid move in ticks), with a name. The strategy's fair price moves by
 * signal[i] x signal_skew ticks at the decision of event i (docs/model.md section 6).
 */
#ifndef MMSIM_TICKS_H
#define MMSIM_TICKS_H

#include <stdint.h>
#include <stdio.h>

#include "mmsim/mmsim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MM_PX_NONE_BID INT32_MIN
#define MM_PX_NONE_ASK INT32_MAX
#define MM_SYMBOL_MAX 64
#define MM_SOURCE_MAX 128

/* Instrument attributes stored with each tape. */
typedef struct mm_instrument {
    char symbol[MM_SYMBOL_MAX]; /* [A-Za-z0-9._-]+, also the HDF5 group name */
    char source[MM_SOURCE_MAX]; /* free text: "synthetic seed=1", "lobster AMZN_...", ... */
    double tick_size;           /* price units per tick, finite and > 0 */
    double lot_size;            /* size units per lot, finite and > 0 */
    uint64_t fingerprint;       /* XXH3-64 of the columns, see mm_ticks_fingerprint() */
    int allow_crossed;          /* 1 if rows with bid_px >= ask_px are legitimate in this tape */
    double year_s; /* the market's trading seconds per year (Sharpe's annualisation), in (0, 1e12];
                      0: not recorded. LOBSTER: 252 x 6.5 h; Binance: 365 x 24 h */
} mm_instrument;

/* Why a depth row changed its level (mm_depth.cause). ADD, CANCEL and TRADE are changes of the
 * book; SHOW and HIDE are changes of what is shown of it (the window of `levels` best levels per
 * side): the level was there before and is still there after, only its size becomes known or
 * unknown. */
enum mm_depth_cause {
    MM_DEPTH_ADD = 1,    /* size added: a new order, or a level's size grew (sz > before) */
    MM_DEPTH_CANCEL = 2, /* size removed without a trade (0 <= sz < before) */
    MM_DEPTH_TRADE = 3,  /* size removed by a trade at this level (0 <= sz < before) */
    MM_DEPTH_SHOW = 4,   /* the level comes into view with size sz > 0 (the first book of the
                            tape, a level entering the window from beyond it, a resynchronisation) */
    MM_DEPTH_HIDE = 5,   /* the level leaves the view, sz = 0 (pushed beyond the window) */
};
#define MM_DEPTH_CAUSES 6        /* cause values are 1 .. MM_DEPTH_CAUSES - 1 */
#define MM_DEPTH_MAX_LEVELS 1000 /* most levels per side a depth stream may keep */

/* The depth stream of a tape (docs/formats.md, "Depth"); levels == 0: none (an L1 tape). Columns
 * of n rows, in the tape's memory block: row int64 (tape row, non-decreasing), join int64 (for
 * ids == 1: an ADD's own row, a removal's joining row or -1 when the order joined before the file
 * or beyond the window; else -1), px int32 ticks, sz int32 lots (the level's size after the
 * change), side int8 (+1 bid, -1 ask), cause int8 (enum mm_depth_cause). 26 bytes a row. */
typedef struct mm_depth {
    int64_t n;
    int32_t levels; /* levels per side kept, 1 .. MM_DEPTH_MAX_LEVELS; 0: no depth stream */
    int32_t ids;    /* 1: join carries order-level facts (LOBSTER); 0: aggregated levels */
    int64_t *row, *join;
    int32_t *px, *sz;
    int8_t *side, *cause;
} mm_depth;

/* A tape: columns of n rows. Owned memory is released with mm_ticks_free(). */
typedef struct mm_ticks {
    mm_instrument inst;
    int64_t n;
    int64_t *ts_ns;
    int32_t *bid_px, *ask_px, *bid_sz, *ask_sz;
    int32_t *trade_px, *trade_sz;
    int8_t *trade_side;
    mm_depth depth; /* levels 0: none */
    /* The signal column: n finite doubles in the tape's memory block (after the depth columns),
     * NULL for a tape without one; its name ([A-Za-z0-9._-]+, "" without a signal). */
    double *signal;
    char signal_name[MM_SYMBOL_MAX];
    /* Storage (internal): base of the block holding all columns, its size, how it was obtained. */
    void *mem_base;
    size_t mem_bytes;
    int mem_kind; /* 0 none, 1 heap, 2 shared memory */
} mm_ticks;

/* Allocation of the columns. */
enum mm_mem_kind { MM_MEM_HEAP = 1, MM_MEM_SHM = 2 };

/* Allocate n rows of columns in one block (zeroed), 64-byte aligned. kind: MM_MEM_HEAP or
 * MM_MEM_SHM. Shared memory is created with shm_open, its pages reserved (posix_fallocate), mapped
 * MAP_SHARED and unlinked at once (nothing to leak). Returns 0, -EINVAL, -ENOMEM, -ENOSPC (/dev/shm
 * too small) or another -errno. */
MM_API int mm_ticks_alloc(mm_ticks *t, int64_t n, int kind);

/* The same with room for depth_n depth rows after the columns (in the same block, so a shared
 * tape shares its depth); t->depth.levels and .ids are left 0 for the caller to set (a tape with
 * depth has levels >= 1). depth_n 0 allocates exactly what mm_ticks_alloc does. */
MM_API int mm_ticks_alloc_depth(mm_ticks *t, int64_t n, int64_t depth_n, int kind);

/* The same with the signal column too (signal 1: t->signal points at n zeroed doubles; the
 * caller sets t->signal_name). */
MM_API int mm_ticks_alloc_signal(mm_ticks *t, int64_t n, int64_t depth_n, int signal, int kind);

/* Make a shared-memory tape read-only (mprotect). Children forked afterwards inherit it read-only.
 */
MM_API int mm_ticks_seal(mm_ticks *t);

/* Release the columns (heap or shared memory) and zero the struct. Safe on a zeroed struct. */
MM_API void mm_ticks_free(mm_ticks *t);

/* XXH3-64 (seed 0) over: the row count as 8 little-endian bytes, then each column's n values as
 * little-endian bytes, in the order ts_ns, bid_px, ask_px, bid_sz, ask_sz, trade_px, trade_sz,
 * trade_side; then, only for a tape with depth (depth.levels > 0), the depth row count (8 bytes),
 * levels and ids (4 bytes each) and the depth columns row, join, px, sz, side, cause; then, only
 * for a tape with a signal, the 8 bytes "signal\0\0", the name's length (8 bytes), the name's bytes
 * and the n values (IEEE float64). A tape without depth or signal hashes as it did before they
 * existed. */
MM_API uint64_t mm_ticks_fingerprint(const mm_ticks *t);

/* Check every validation rule (see docs/formats.md). `file` is only used for the message.
 * Returns 0 or MM_EINVALID with err naming file, instrument, column and row. */
MM_API int mm_ticks_validate(const mm_ticks *t, const char *file, mm_error *err);

/* The raw tape (docs/formats.md, "Raw tape (.mmtape)"): one instrument's columns and attributes in
 * a flat little-endian file with a checksum, readable without HDF5 (the model core reads it; the
 * GPU machines' checkmodel uses it for real tapes). mm_ticks_write_raw writes t to f (the caller
 * owns f: a temporary file renamed when complete); mm_ticks_load_raw reads a whole file onto the
 * heap, checking the header, the size, the checksum (MM_ECHECKSUM) and the validation rules. Errors
 * name the file. */
MM_API int mm_ticks_write_raw(FILE *f, const mm_ticks *t, mm_error *err);
MM_API int mm_ticks_load_raw(const char *path, mm_ticks *out, mm_error *err);

/* Writing. */
typedef struct mm_write_opts {
    int compress_level; /* 0 = none, 1..9 = gzip (deflate) with the shuffle filter */
    int64_t chunk_rows; /* rows per HDF5 chunk; 0 = default (65536) */
    int replace;        /* 1: replace an instrument of the same symbol in an existing file */
} mm_write_opts;

/* Write (or append) one instrument to `path` under /ticks/<symbol>. Validates first, computes and
 * stores the fingerprint (also set in t->inst.fingerprint). All or nothing (docs/formats.md,
 * "Writing"): the file is built in memory and written to "<path>.tmp.<pid>", fsynced and renamed,
 * so no half file is ever visible and an existing file changes only on success. An existing `path`
 * must be a tick file (mmsim_format = mmsim-ticks/1; else MM_EFORMAT); an instrument of the same
 * symbol fails with -EEXIST unless opts->replace. A failed disk write is -errno with err "PATH:
 * <strerror>" (-ENOSPC: "PATH: No space left on device"). Memory: the file's size, on top of the
 * tape, while writing. */
MM_API int mm_ticks_write(const char *path, mm_ticks *t, const mm_write_opts *opts, mm_error *err);

/* Reading. */
enum mm_load_flags {
    MM_LOAD_SHM = 1,         /* columns in a shared-memory segment (else heap) */
    MM_LOAD_NO_VERIFY = 2,   /* skip the fingerprint check */
    MM_LOAD_NO_VALIDATE = 4, /* skip the validation rules (the format is still checked) */
};

/* Number of instruments in `path` and their symbols (up to max; sorted by name). The file must be
 * tagged mmsim_format = mmsim-ticks/1 and every name under /ticks must be a valid symbol (else
 * MM_EFORMAT). */
MM_API int mm_ticks_list(const char *path, char (*symbols)[MM_SYMBOL_MAX], int max, int *count,
                         mm_error *err);

/* Load one instrument (symbol NULL: the file must hold exactly one). Checks the format (root tag,
 * symbol attribute equal to the group name, columns present, dtypes, equal lengths: MM_EFORMAT),
 * validates (MM_EINVALID), and verifies the fingerprint (MM_ECHECKSUM) unless flags say otherwise.
 * A `symbol` argument that is not a valid symbol is MM_EUSAGE (the caller's mistake, not the
 * file's). */
MM_API int mm_ticks_load(const char *path, const char *symbol, int flags, mm_ticks *out,
                         mm_error *err);

/* Signal (docs/formats.md, "Signal").
 *
 * mm_ticks_write_signal attaches the signal `name` (values[0 .. n), n = the tape's rows, finite) to
 * instrument `symbol` (NULL: the file must hold one) of the tick file `path`: the tape is loaded
 * (fingerprint verified), given the column and written back with mm_ticks_write's all-or-nothing
 * replace (a temporary file renamed over `path`: never a half-written file), with a new
 * fingerprint. A tape that already has a signal keeps it and the call fails with -EEXIST unless
 * replace is 1. Returns 0, MM_EUSAGE (bad name, n not the rows, a value not finite: err names the
 * file, instrument, signal and index), -EEXIST, or what loading and writing return. */
MM_API int mm_ticks_write_signal(const char *path, const char *symbol, const char *name,
                                 const double *values, int64_t n, int replace, mm_error *err);

/* The as-of rule (docs/formats.md, "Signal"): row i of a tape (timestamps row_ts[0 .. n)) takes
 * the value of the last point at or before its time, 0 before the first point. Points ts[0 .. m),
 * v[0 .. m): ts non-decreasing, v finite (else MM_EUSAGE naming the point's index). out: n values.
 */
MM_API int mm_signal_asof(const int64_t *row_ts, int64_t n, const int64_t *ts, const double *v,
                          int64_t m, double *out, mm_error *err);

/* Synthetic market (see docs/synthetic.md). Integer-only tape generation from a counter-based RNG:
 * the same parameters give the same bytes on every machine. */
typedef struct mm_gen_params {
    uint64_t seed;
    int64_t events;
    int64_t start_ns;   /* time of the first event, ns since the epoch */
    double rate_hz;     /* mean event rate (events per second), > 0 */
    double vol_ticks;   /* mid volatility in ticks per sqrt(second), >= 0 */
    double trade_frac;  /* fraction of events that are trades, in [0, 1) */
    int32_t start_px;   /* initial bid price in ticks, > 0 */
    int32_t max_spread; /* spreads are drawn in 1..max_spread ticks */
    int32_t mean_queue; /* mean displayed size at the touch in lots, > 0 */
    double tick_size, lot_size;
    double informed; /* probability that a trade is informed, in [0, 1]: the fair price then moves
                        one tick in the trade's direction right after it (adverse selection); 0
                        (the default) gives the same bytes as before the parameter existed */
    double improve_frac; /* probability that an event improves a touch (when the spread is over one
                            tick), in [0, 0.5]; default 0.05, the old tapes */
    int32_t move_ticks;  /* ticks the fair price (and the book) jumps in a move, 1..1000; 0 is taken
                            as 1 (the default, the old tapes) */
    double trade_persist; /* probability that the event right after a trade is another trade of
                             the same side (self-exciting, sign-correlated flow: consecutive
                             trades' sides have lag-k autocorrelation trade_persist^k), in
                             [0, 0.999]; 0 (the default) gives the old tapes */
    int32_t trade_size; /* mean size a trade wants, lots, 0..1000000 (it takes at most the displayed
                           size); 0 (the default) is max(1, mean_queue / 5), the old tapes */
    char symbol[MM_SYMBOL_MAX];
} mm_gen_params;

/* Defaults: 1 event/ms on average, vol 2 ticks/sqrt(s), 10% trades, spread 1..3, mean queue 50
 * lots. */
MM_API void mm_gen_defaults(mm_gen_params *p);

/* Generate a tape into `out` (heap). Returns 0, -EINVAL (err names the bad parameter) or -ENOMEM.
 */
MM_API int mm_gen_ticks(const mm_gen_params *p, mm_ticks *out, mm_error *err);

/* Stylised facts of a tape (docs/synthetic.md, "Calibration"), the numbers `mmsim calibrate` fits
 * the generator to and prints with --facts. Times in seconds, prices in ticks, sizes in lots. The
 * mid is taken from two-sided rows only (a one-sided row keeps the last two-sided mid). */
#define MM_FACTS_SPREADS 5 /* spread shares: 1, 2, 3, 4 and >= 5 ticks */
typedef struct mm_facts {
    int64_t rows, trades, two_sided_rows;
    int64_t trade_lots;                    /* traded volume: the sum of trade_sz over trade rows */
    double seconds;                        /* last time - first time */
    double events_per_s, trades_per_s;     /* (rows - 1) / seconds, trades / seconds */
    double spread_share[MM_FACTS_SPREADS]; /* share of two-sided rows with spread 1, 2, 3, 4, >=5 */
    double spread_mean;                    /* ticks, over two-sided rows */
    int32_t spread_p99;                    /* 99th percentile of the spread, ticks */
    double queue_mean;                     /* mean of bid_sz and ask_sz over two-sided rows */
    double new_level_queue;                /* mean size of a touch that receded (see the page) */
    int64_t new_levels;                    /* how many such rows */
    double improve_share;   /* rows improving one touch, over rows after a spread of > 1 tick */
    double vol[3];          /* RMS change of the mid over 1, 10, 60 s: ticks */
    int64_t vol_samples[3]; /* number of changes behind each */
    double impact_1s;       /* mean of side x (mid 1 s after - mid before), ticks */
    double sign_corr[2];    /* mean of s_k s_(k+L) over the sides s of consecutive trade rows, for
                               lag L = 1 and L = sign_lag (not de-meaned; 0 with too few trades) */
    int64_t sign_pairs[2];  /* number of pairs behind each */
    int32_t sign_lag;       /* trades in a second: floor(trades_per_s + 0.5) in 1..1000 */
} mm_facts;

/* Compute the facts of a tape. Returns 0, or -EINVAL when it has fewer than 2 rows, no time span
 * or no two-sided row (err says which). */
MM_API int mm_ticks_facts(const mm_ticks *t, mm_facts *f, mm_error *err);

/* Fit the generator's parameters to a tape (docs/synthetic.md, "Calibration" says how each is
 * estimated). `p` gets every field (seed 1, events = rows, symbol and sizes from the tape); `f`
 * (may be NULL) the facts behind them. capped (may be NULL) is set to 1 when vol had to be lowered
 * to meet vol^2/(rate move_ticks^2) + trade_frac <= 0.9, else 0. Returns 0 or -EINVAL as
 * mm_ticks_facts. */
MM_API int mm_gen_calibrate(const mm_ticks *t, mm_gen_params *p, mm_facts *f, int *capped,
                            mm_error *err);

/* The facts a fit is checked on (docs/synthetic.md, "The fit"). */
typedef enum mm_fit_fact {
    MM_FIT_EVENTS_PER_S,   /* (rows - 1) / seconds */
    MM_FIT_TRADES,         /* trade rows */
    MM_FIT_TRADE_LOTS,     /* traded volume, lots */
    MM_FIT_LOTS_PER_TRADE, /* traded lots / trade rows */
    MM_FIT_SPREAD_MEAN,    /* ticks, over two-sided rows */
    MM_FIT_NEW_LEVEL,      /* new-level size, lots */
    MM_FIT_VOL_10S,        /* RMS 10 s change of the mid, ticks */
    MM_FIT_IMPACT_1S,      /* ticks */
    MM_FIT_SIGN_CORR,      /* trade sign correlation at lag 1 */
    MM_FIT_FACTS           /* how many */
} mm_fit_fact;

/* A fit checked: the tape's facts (`real`) beside their mean and sample standard deviation over
 * the synthetic days of seeds 1..seeds, `events` events each. When events is below the tape's
 * rows, the tape's counts (trades, traded lots) are scaled by events / rows. */
typedef struct mm_gen_fit {
    int seeds;
    int64_t events;
    double real[MM_FIT_FACTS], mean[MM_FIT_FACTS], sd[MM_FIT_FACTS];
} mm_gen_fit;

/* The fact's name as `mmsim calibrate` prints it ("spread_mean_ticks"); "?" if k is out of range.
 */
MM_API const char *mm_fit_fact_name(mm_fit_fact k);

/* Check p (mm_gen_calibrate's fit of t, or any parameters) against t: generate the days of seeds
 * 1..seeds (p's other fields, `events` events) and compare their facts with t's. seeds >= 2,
 * events >= 2. Costs seeds x events generated events. Returns 0, -EINVAL or -ENOMEM. */
MM_API int mm_gen_fit_check(const mm_ticks *t, const mm_gen_params *p, int seeds, int64_t events,
                            mm_gen_fit *out, mm_error *err);

/* Summary statistics of a tape (for `mmsim info`). Spreads over rows with both sides present. */
typedef struct mm_ticks_stats {
    int64_t rows, trades, buy_trades, sell_trades, crossed_rows, empty_side_rows;
    int64_t trade_volume_lots;
    int64_t t_first_ns, t_last_ns;
    int32_t spread_min, spread_max; /* ticks */
    double spread_mean;             /* ticks */
    int64_t mid2_min, mid2_max;     /* twice the mid, ticks (exact integer) */
    /* The clock's resolution: the largest of 1 ns, 10 ns, ..., 1 s that divides every timestamp
     * (0 for an empty tape): latencies below it cannot change a run. */
    int64_t ts_resolution_ns;
    int64_t same_ts_rows; /* rows with the timestamp of the row before (one print split in rows) */
    /* Depth (0 without): levels per side, whether order ids are known, rows, rows by cause
     * (index enum mm_depth_cause), removals (cancel, trade) and those of them whose order's
     * joining row is known. */
    int32_t depth_levels, depth_ids;
    int64_t depth_rows, depth_by_cause[MM_DEPTH_CAUSES], depth_removals, depth_joins_known;
} mm_ticks_stats;

MM_API void mm_ticks_summarize(const mm_ticks *t, mm_ticks_stats *s);

#ifdef __cplusplus
}
#endif

#endif
