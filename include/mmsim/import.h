/* Importers: vendor files -> a tick tape (mm_ticks) ready for mm_ticks_write().
 *
 * Three formats (one page each in docs/): LOBSTER message + orderbook CSV pairs
 * (docs/import-lobster.md), Binance spot and USD-M websocket captures (docs/import-binance.md) and
 * a generic L1 quotes + trades CSV with a column mapping (docs/import-csv.md). Plain and
 * gzip-compressed inputs are both read (gzip by its magic bytes; a ".gz" name must be gzip; data
 * after the last gzip member is an error).
 *
 * Every importer parses the whole input into memory and checks it before returning; nothing is
 * written. Errors come back as one line "FILE:LINE: what" in mm_error (code MM_EFORMAT for
 * malformed input, MM_EINVALID for input that is well formed but inconsistent, MM_EUSAGE for bad
 * options, -errno for I/O). The library never prints. On error `out` is left zeroed.
 */
#ifndef MMSIM_IMPORT_H
#define MMSIM_IMPORT_H

#include <stdint.h>

#include "mmsim/mmsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options shared by the importers; fields a format does not use are ignored. Start from
 * mm_import_opts_init(). Decimal quantities are strings so that they convert exactly. */
typedef struct mm_import_opts {
    const char *symbol; /* instrument symbol, [A-Za-z0-9._-]+ (required) */
    const char *tick;   /* price units per tick, decimal string; NULL = format default */
    const char *lot;    /* size units per lot, decimal string; NULL = format default */
    double year_s;      /* the market's trading seconds per year, recorded in the tape
                           (mm_instrument.year_s),      (0, 1e12]; 0 = the format's: LOBSTER 252 x 6.5 h,
                           Binance 365 x 24 h, CSV none */
    int skip_bad;       /* 1: skip malformed lines (counted in the report) instead of failing */
    int depth_levels;   /* LOBSTER and Binance: levels per side kept in the tape's depth stream
                           (docs/formats.md "Depth"), 1 .. MM_DEPTH_MAX_LEVELS; 0: none (the L1
                           tape alone, as before depth existed); -1 (mm_import_opts_init): the
                           format's default, LOBSTER every level of the file, Binance 20 */
    /* LOBSTER */
    const char *date;   /* trading day YYYY-MM-DD (America/New_York) */
    int subtick_reject; /* 1: a trade price between ticks is an error (default: rounded, counted) */
    /* Binance */
    int skip_gaps;      /* 1: continue over gaps in the depth update-id chain (counted) */
    const char *market; /* "spot", "usdm", or NULL: taken from the messages' shape */
    int no_snapshot; /* 1: the capture has no REST snapshot (a later day): bookTicker rows only */
    /* Generic CSV */
    const char *csv_map;   /* column mapping "ts=COL,bid=COL,..." (docs/import-csv.md) */
    const char *csv_time;  /* time format: ns (default), us, ms, s, iso */
    char csv_delim;        /* field separator (default ',') */
    int csv_no_header;     /* 1: the file has no header line; columns are named by number */
    int csv_allow_crossed; /* 1: keep locked/crossed quotes (sets allow_crossed), else an error */
} mm_import_opts;

/* What an import read and did. Counts are over the whole input. */
typedef struct mm_import_report {
    int64_t lines;             /* input lines read (all files) */
    int64_t bytes;             /* uncompressed input bytes read (all files) */
    int64_t rows;              /* rows in the tape */
    int64_t trades;            /* rows carrying a trade */
    int64_t trade_volume_lots; /* sum of trade sizes, lots */
    int64_t skipped;           /* lines skipped by skip_bad */
    int depth_levels;          /* levels per side in the tape's depth stream (0: none) */
    int64_t depth_rows;        /* rows of the depth stream */
    char first_skipped[256];   /* the message for the first skipped line ("" if none) */
    /* LOBSTER */
    int levels;              /* price levels per side in the orderbook file */
    int64_t msg_by_type[8];  /* message count by LOBSTER event type 1..7 (index 0 unused) */
    int64_t subtick_rounded; /* trade prices between ticks, rounded (see docs) */
    int64_t crossed_rows;    /* rows with a locked or crossed top of book (allow_crossed set) */
    int64_t halts;           /* type-7 messages */
    /* Binance */
    int64_t depth_updates, book_tickers, trade_msgs; /* messages applied per stream */
    int64_t dropped_before_sync; /* diffs before the snapshot and trades before any book: unused */
    int64_t gaps;                /* update-id gaps skipped (skip_gaps) */
    int64_t ticker_checks;       /* bookTickers compared with the L2 book at the same update id */
    int files;                   /* capture files read */
    char market[8];              /* "spot" or "usdm" ("unknown": no message told) */
    int64_t clock_offset_ns;     /* median of (exchange time - receive time) */
} mm_import_report;

/* Defaults: all zero, csv_delim ',', csv_time "ns", depth_levels -1 (the format's default). */
MM_API void mm_import_opts_init(mm_import_opts *o);

/* LOBSTER: `message` and `orderbook` are the two files of one day (any number of levels). Tick
 * default 0.01 (dollars), lot default 1 (share). The orderbook file is cross-checked against the
 * messages. */
MM_API int mm_import_lobster(const char *message, const char *orderbook, const mm_import_opts *o,
                             mm_ticks *out, mm_import_report *rep, mm_error *err);

/* Binance capture, spot or USD-M futures: lines "<receive ns> <websocket JSON>" with depthUpdate,
 * bookTicker and trade messages and one REST depth snapshot. tick and lot are required; the market
 * is opts.market or taken from the messages (docs/import-binance.md). */
MM_API int mm_import_binance(const char *capture, const mm_import_opts *o, mm_ticks *out,
                             mm_import_report *rep, mm_error *err);

/* Several capture files (consecutive days, in order) as one capture: the book is carried from file
 * to file and the update-id chain is checked across their boundaries; a later day needs no
 * snapshot. Errors name the file and line. n >= 1. */
MM_API int mm_import_binance_files(const char *const *captures, int n, const mm_import_opts *o,
                                   mm_ticks *out, mm_import_report *rep, mm_error *err);

/* Generic L1 quotes + trades CSV with a column mapping. tick and lot are required. */
MM_API int mm_import_csv(const char *path, const mm_import_opts *o, mm_ticks *out,
                         mm_import_report *rep, mm_error *err);

struct mm_latency_series; /* <mmsim/sim.h> */

/* A recorded latency series (docs/model.md, section 3.2) from a CSV file, plain or gzip: a header
 * naming the columns ts_ns, entry_ns and response_ns (any order, nothing else), then one point per
 * line, decimal integers in ns: times strictly increasing in [-2^62, 2^62 - 1], latencies in [0,
 * 1 h]. Returns 0 with `out` owning its arrays (mm_latency_free), or an error "PATH:LINE: what"
 * (MM_EFORMAT, MM_EINVALID, -errno) with `out` zeroed. */
MM_API int mm_latency_read_csv(const char *path, struct mm_latency_series *out, mm_error *err);
MM_API void mm_latency_free(struct mm_latency_series *s);

struct mm_latency_samples; /* <mmsim/sim.h> */
/* Measured latencies for latency_dist = empirical (docs/model.md 3.3) from a CSV file, plain or
 * gzip: a header naming entry_ns and response_ns (either order, nothing else), then one pair per
 * line, decimal integers in [0, 1 h] ns, at least one. Errors as mm_latency_read_csv. */
MM_API int mm_latency_samples_read_csv(const char *path, struct mm_latency_samples *out,
                                       mm_error *err);
MM_API void mm_latency_samples_free(struct mm_latency_samples *s);

#ifdef __cplusplus
}
#endif

#endif
