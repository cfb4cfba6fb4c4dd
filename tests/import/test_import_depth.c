/* The depth stream (issue 31, docs/formats.md "Depth"): what the LOBSTER and Binance importers
 * keep, checked row by row against expectations computed by hand (hand-written inputs and the
 * first rows of the fixtures/ cuts of the real days); the stream's invariants on the whole fixtures
 * (replayed, the shown book's best levels are the tape's top of book); the store's round trips
 * (HDF5, shared memory, raw tape); the validation rules; the command line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmsim/import.h"
#include "testutil.h"

TestSuite(depth, .fini = tu_cleanup);

enum {
    A = MM_DEPTH_ADD,
    C = MM_DEPTH_CANCEL,
    T = MM_DEPTH_TRADE,
    S = MM_DEPTH_SHOW,
    H = MM_DEPTH_HIDE
};

/* An expected depth row: tape row, side, price ticks, size after lots, cause, join. */
typedef struct xrow {
    int64_t row;
    int side;
    int32_t px, sz;
    int cause;
    int64_t join;
} xrow;

static void expect_rows(const mm_ticks *t, const xrow *x, int n)
{
    for (int k = 0; k < n && k < t->depth.n; k++) {
        const mm_depth *d = &t->depth;
        cr_assert(
            d->row[k] == x[k].row && d->side[k] == x[k].side && d->px[k] == x[k].px &&
                d->sz[k] == x[k].sz && d->cause[k] == x[k].cause && d->join[k] == x[k].join,
            "depth row %d: got (%ld, %d, %d, %d, %d, %ld), expected (%ld, %d, %d, %d, %d, %ld)", k,
            (long)d->row[k], d->side[k], d->px[k], d->sz[k], d->cause[k], (long)d->join[k],
            (long)x[k].row, x[k].side, x[k].px, x[k].sz, x[k].cause, (long)x[k].join);
    }
    cr_assert_eq(t->depth.n, n, "%ld depth rows, expected %d", (long)t->depth.n, n);
}

static const char *write_lines(const char *name, const char *const *lines, int n)
{
    const char *p = tu_path(name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
    return p;
}

/* ---- LOBSTER, two levels, by hand ---- */

static const char *const MSG[] = {
    "34200.1,1,10,100,1000000,1", /* 0: add id 10, bid 100.00 x 100 (the first row: shown) */
    "34200.2,1,11,30,1000100,1",  /* 1: add id 11, a new best bid 100.01 x 30; 99.99 leaves */
    "34200.3,2,10,40,1000000,1",  /* 2: partial cancel of id 10: 100 -> 60 */
    "34200.4,4,11,30,1000100,1",  /* 3: execution of id 11: 100.01 empties; 99.99 comes back */
    "34200.5,3,99,50,1000200,-1", /* 4: delete of id 99 (before the file): ask 100.02 empties */
    "34200.6,5,0,5,1000250,-1",   /* 5: hidden execution: the book does not change */
    "34200.7,1,12,10,1000000,1",  /* 6: add id 12 behind: 60 -> 70 */
    "34200.8,3,12,10,1000000,1",  /* 7: delete id 12: 70 -> 60 */
};
static const char *const OB[] = {
    "1000200,50,1000000,100,1000300,70,999900,40", "1000200,50,1000100,30,1000300,70,1000000,100",
    "1000200,50,1000100,30,1000300,70,1000000,60", "1000200,50,1000000,60,1000300,70,999900,40",
    "1000300,70,1000000,60,1000400,20,999900,40",  "1000300,70,1000000,60,1000400,20,999900,40",
    "1000300,70,1000000,70,1000400,20,999900,40",  "1000300,70,1000000,60,1000400,20,999900,40",
};

static int import_lob(const char *const *msg, const char *const *ob, int n, int levels,
                      int skip_bad, mm_ticks *t, mm_error *e)
{
    const char *m = write_lines("m.csv", msg, n), *o = write_lines("o.csv", ob, n);
    mm_import_opts opt;
    mm_import_opts_init(&opt);
    opt.symbol = "FIX";
    opt.date = "2012-06-21";
    opt.skip_bad = skip_bad;
    if (levels >= 0) opt.depth_levels = levels;
    mm_import_report rep;
    return mm_import_lobster(m, o, &opt, t, &rep, e);
}

Test(depth, lobster_keeps_every_level_with_the_order_that_joined)
{
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, -1, 0, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.depth.levels, 2, "every level of the file");
    cr_assert_eq(t.depth.ids, 1);
    const xrow x[] = {
        {0, 1, 10000, 100, S, -1}, {0, 1, 9999, 40, S, -1}, /* the first row: all shown */
        {0, -1, 10002, 50, S, -1}, {0, -1, 10003, 70, S, -1},
        {1, 1, 9999, 0, H, -1},   /* pushed beyond level 2 first */
        {1, 1, 10001, 30, A, 1},  /* then the new level */
        {2, 1, 10000, 60, C, 0},  /* id 10 joined at row 0 */
        {3, 1, 10001, 0, T, 1},   /* id 11's execution empties it */
        {3, 1, 9999, 40, S, -1},  /* and 99.99 comes into view */
        {4, -1, 10002, 0, C, -1}, /* id 99: before the file */
        {4, -1, 10004, 20, S, -1}, {6, 1, 10000, 70, A, 6},
        {7, 1, 10000, 60, C, 6},
    };
    expect_rows(&t, x, (int)(sizeof x / sizeof x[0]));
    mm_error v = {0};
    cr_assert_eq(mm_ticks_validate(&t, "mem", &v), 0, "%s", v.msg);
    mm_ticks_free(&t);
}

Test(depth, lobster_with_one_level_kept_hides_and_shows_the_window)
{
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, 1, 0, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.depth.levels, 1);
    const xrow x[] = {
        {0, 1, 10000, 100, S, -1}, {0, -1, 10002, 50, S, -1}, {1, 1, 10000, 0, H, -1},
        {1, 1, 10001, 30, A, 1}, /* row 2's cancel is beyond: none */
        {3, 1, 10001, 0, T, 1},    {3, 1, 10000, 60, S, -1},  {4, -1, 10002, 0, C, -1},
        {4, -1, 10003, 70, S, -1}, {6, 1, 10000, 70, A, 6},   {7, 1, 10000, 60, C, 6},
    };
    expect_rows(&t, x, (int)(sizeof x / sizeof x[0]));
    mm_ticks_free(&t);
}

Test(depth, lobster_more_levels_than_the_file_keeps_the_file_s)
{
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, 50, 0, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.depth.levels, 2);
    mm_ticks_free(&t);
}

Test(depth, lobster_row_after_a_skipped_line_is_shown_again_not_explained)
{
    const char *msg[8];
    memcpy(msg, MSG, sizeof msg);
    msg[2] = "34200.3,2,10,forty,1000000,1"; /* skipped with its orderbook row */
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(msg, OB, 8, -1, 1, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 7);
    /* Tape row 2 is message 3, not cross-checked against orderbook row 1: the bid side from
     * (100.01 x 30, 100.00 x 100) to (100.00 x 60, 99.99 x 40) is shown as it is. */
    const xrow x[] = {
        {0, 1, 10000, 100, S, -1}, {0, 1, 9999, 40, S, -1},  {0, -1, 10002, 50, S, -1},
        {0, -1, 10003, 70, S, -1}, {1, 1, 9999, 0, H, -1},   {1, 1, 10001, 30, A, 1},
        {2, 1, 10001, 0, H, -1},   {2, 1, 10000, 0, H, -1},  {2, 1, 10000, 60, S, -1},
        {2, 1, 9999, 40, S, -1},   {3, -1, 10002, 0, C, -1}, {3, -1, 10004, 20, S, -1},
        {5, 1, 10000, 70, A, 5},   {6, 1, 10000, 60, C, 5},
    };
    expect_rows(&t, x, (int)(sizeof x / sizeof x[0]));
    mm_ticks_free(&t);
}

Test(depth, no_depth_levels_gives_the_level_1_tape_of_before)
{
    mm_ticks d, l;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, -1, 0, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(import_lob(MSG, OB, 8, 0, 0, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(l.depth.levels, 0);
    cr_assert_eq(l.depth.n, 0);
    cr_assert_eq(l.depth.row, NULL);
    cr_assert_neq(mm_ticks_fingerprint(&d), mm_ticks_fingerprint(&l), "depth is covered");
    /* The same tape with its depth taken away hashes as the L1 import. */
    d.depth.levels = 0;
    d.depth.n = 0;
    cr_assert_eq(mm_ticks_fingerprint(&d), mm_ticks_fingerprint(&l));
    mm_ticks_free(&d);
    mm_ticks_free(&l);
}

Test(depth, lobster_deep_level_off_the_tick_is_an_error_naming_it)
{
    const char *ob[8];
    memcpy(ob, OB, sizeof ob);
    ob[0] = "1000200,50,1000000,100,1000300,70,999950,40"; /* 99.995 at bid level 2 */
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, ob, 8, -1, 0, &t, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "o.csv:1: bid level 2 price 999950 is not a whole number of ticks"),
              "%s", e.msg);
    /* Level 1 alone does not read it. */
    cr_assert_eq(import_lob(MSG, ob, 8, 1, 0, &t, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
}

/* ---- LOBSTER fixture (fixtures/lobster, AMZN level 1): its first rows by hand ---- */

Test(depth, amzn_fixture_first_rows_by_hand)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "AMZN";
    o.date = "2012-06-21";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_lobster(
                     tu_fixture("lobster/AMZN_2012-06-21_34200000_36000000_message_1.csv.gz"),
                     tu_fixture("lobster/AMZN_2012-06-21_34200000_36000000_orderbook_1.csv.gz"), &o,
                     &t, &rep, &e),
                 0, "%s", e.msg);
    /* Messages: 0 hidden execution (book 22318 x 100 / 22395 x 100); 1 add id 11885113 of 21 at
     * 22381 (a new best bid, 22318 leaves the one level kept); 2 its execution (22381 empties,
     * 22375 x 100 comes into view); 3 execution of id 11534792, never added in the file, 26 at
     * 22375: 100 -> 74; 4, 5 hidden executions. */
    const xrow x[] = {
        {0, 1, 22318, 100, S, -1}, {0, -1, 22395, 100, S, -1}, {1, 1, 22318, 0, H, -1},
        {1, 1, 22381, 21, A, 1},   {2, 1, 22381, 0, T, 1},     {2, 1, 22375, 100, S, -1},
        {3, 1, 22375, 74, T, -1},
    };
    for (int k = 0; k < 7; k++)
        cr_assert(t.depth.row[k] == x[k].row && t.depth.side[k] == x[k].side &&
                      t.depth.px[k] == x[k].px && t.depth.sz[k] == x[k].sz &&
                      t.depth.cause[k] == x[k].cause && t.depth.join[k] == x[k].join,
                  "depth row %d", k);
    cr_assert_gt(t.depth.row[7], 5, "rows 4 and 5 are hidden executions");
    cr_assert_eq(rep.depth_levels, 1);
    cr_assert_eq(rep.depth_rows, t.depth.n);
    mm_ticks_free(&t);
}

/* Replaying the stream, the best shown level of each side after the depth rows of a row is the
 * tape's top of book at that row: at every row (all = 1: LOBSTER) or at the rows that have depth
 * rows (Binance: bookTicker rows between diffs are the exchange's own L1). */
static void assert_top_follows(const mm_ticks *t, int all)
{
    enum { MAXL = 4096 };
    static int32_t px[2][MAXL], sz[2][MAXL];
    int n[2] = {0, 0};
    int64_t k = 0;
    for (int64_t i = 0; i < t->n; i++) {
        int touched = 0;
        for (; k < t->depth.n && t->depth.row[k] == i; k++, touched = 1) {
            int s = t->depth.side[k] > 0 ? 0 : 1, j = 0;
            while (j < n[s] && px[s][j] != t->depth.px[k])
                j++;
            if (j == n[s]) {
                cr_assert_lt(n[s], MAXL);
                px[s][n[s]] = t->depth.px[k];
                sz[s][n[s]++] = 0;
            }
            sz[s][j] = t->depth.sz[k];
            if (sz[s][j] == 0) {
                px[s][j] = px[s][n[s] - 1];
                sz[s][j] = sz[s][--n[s]];
            }
        }
        if (!touched && !all) continue;
        for (int s = 0; s < 2; s++) {
            int32_t bp = s ? MM_PX_NONE_ASK : MM_PX_NONE_BID, bs = 0;
            for (int j = 0; j < n[s]; j++)
                if (s ? px[s][j] < bp : px[s][j] > bp) bp = px[s][j], bs = sz[s][j];
            cr_assert_eq(bp, s ? t->ask_px[i] : t->bid_px[i], "row %ld side %d price", (long)i, s);
            cr_assert_eq(bs, s ? t->ask_sz[i] : t->bid_sz[i], "row %ld side %d size", (long)i, s);
        }
    }
    cr_assert_eq(k, t->depth.n);
}

Test(depth, amzn_fixture_depth_top_is_the_tape_top_at_every_row)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "AMZN";
    o.date = "2012-06-21";
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(mm_import_lobster(
                     tu_fixture("lobster/AMZN_2012-06-21_34200000_36000000_message_1.csv.gz"),
                     tu_fixture("lobster/AMZN_2012-06-21_34200000_36000000_orderbook_1.csv.gz"), &o,
                     &t, NULL, &e),
                 0, "%s", e.msg);
    assert_top_follows(&t, 1);
    mm_ticks_free(&t);
}

/* ---- Binance by hand: a trade and the size drop it causes are one removal ---- */

static const char *const BN[] = {
    "1723161253730000000 {\"lastUpdateId\":100,\"bids\":[[\"10.0\",\"1.000\"],[\"9.9\",\"2.000\"]],"
    "\"asks\":[[\"10.2\",\"2.000\"],[\"10.3\",\"1.000\"]]}",
    /* row 1: a new best bid 10.1 x 0.5 (9.9 leaves a window of 2) */
    "1723161253731000000 {\"stream\":\"s\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255001,"
    "\"s\":\"TST\",\"U\":101,\"u\":105,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[]}}",
    /* row 2: a buyer-initiated trade of 0.1 at 10.2 */
    "1723161253732000000 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":1723161255002,\"s\":"
    "\"TST\",\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1723161255002,\"m\":false}}",
    /* row 3: its drop, 2.0 -> 1.9: one trade removal, no cancel */
    "1723161253733000000 {\"stream\":\"s\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255003,"
    "\"s\":\"TST\",\"U\":106,\"u\":110,\"b\":[],\"a\":[[\"10.2\",\"1.900\"]]}}",
    /* row 4: another trade of 0.3 at 10.2 */
    "1723161253734000000 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":1723161255004,\"s\":"
    "\"TST\",\"t\":8,\"p\":\"10.2\",\"q\":\"0.300\",\"T\":1723161255004,\"m\":false}}",
    /* row 5: 1.9 -> 1.5: the trade's 0.3, then 0.1 cancelled */
    "1723161253735000000 {\"stream\":\"s\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255005,"
    "\"s\":\"TST\",\"U\":111,\"u\":115,\"b\":[],\"a\":[[\"10.2\",\"1.500\"]]}}",
    /* row 6: 10.1 deleted: 9.9 comes back into view */
    "1723161253736000000 {\"stream\":\"s\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255006,"
    "\"s\":\"TST\",\"U\":116,\"u\":120,\"b\":[[\"10.1\",\"0\"]],\"a\":[]}}",
    /* row 7: a seller-initiated trade of 0.4 at 10.0, then (row 8) 10.0 grows to 1.2 anyway */
    "1723161253737000000 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":1723161255007,\"s\":"
    "\"TST\",\"t\":9,\"p\":\"10.0\",\"q\":\"0.400\",\"T\":1723161255007,\"m\":true}}",
    "1723161253738000000 {\"stream\":\"s\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255008,"
    "\"s\":\"TST\",\"U\":121,\"u\":125,\"b\":[[\"10.0\",\"1.200\"]],\"a\":[]}}",
};

static int import_bn(int levels, mm_ticks *t, mm_import_report *rep, mm_error *e)
{
    const char *p = write_lines("b.txt", BN, 9);
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.1";
    o.lot = "0.001";
    if (levels >= 0) o.depth_levels = levels;
    return mm_import_binance(p, &o, t, rep, e);
}

Test(depth, binance_trade_and_its_drop_are_one_removal)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(import_bn(2, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 9);
    cr_assert_eq(t.trade_sz[2], 100);
    cr_assert_eq(t.depth.levels, 2);
    cr_assert_eq(t.depth.ids, 0);
    const xrow x[] = {
        {0, 1, 100, 1000, S, -1},  {0, 1, 99, 2000, S, -1},   {0, -1, 102, 2000, S, -1},
        {0, -1, 103, 1000, S, -1}, {1, 1, 99, 0, H, -1},      {1, 1, 101, 500, A, -1},
        {3, -1, 102, 1900, T, -1}, {5, -1, 102, 1600, T, -1}, {5, -1, 102, 1500, C, -1},
        {6, 1, 101, 0, C, -1},     {6, 1, 99, 2000, S, -1},   {8, 1, 100, 600, T, -1},
        {8, 1, 100, 1200, A, -1},
    };
    expect_rows(&t, x, (int)(sizeof x / sizeof x[0]));
    cr_assert_eq(rep.depth_rows, 13);
    mm_ticks_free(&t);
}

Test(depth, binance_default_keeps_20_levels_and_zero_keeps_none)
{
    mm_ticks t, l;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(import_bn(-1, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.depth.levels, 20);
    cr_assert_eq(t.depth.cause[4], A, "nothing leaves a window of 20: row 1 is the add alone");
    cr_assert_eq(import_bn(0, &l, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(l.depth.levels, 0);
    t.depth.levels = 0;
    t.depth.n = 0;
    cr_assert_eq(mm_ticks_fingerprint(&t), mm_ticks_fingerprint(&l));
    cr_assert_eq(import_bn(1001, &l, &rep, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "depth-levels: 1001 is not in 0..1000 (0: no depth stream)");
    mm_ticks_free(&t);
}

Test(depth, binance_fixture_top_follows_and_trades_are_removals)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "BTCUSDT";
    o.tick = "0.01";
    o.lot = "0.000001";
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(mm_import_binance(tu_fixture("binance/spot_btcusdt_20240808_first4000.gz"), &o, &t,
                                   NULL, &e),
                 0, "%s", e.msg);
    cr_assert_eq(t.depth.levels, 20);
    /* The stream starts at the snapshot's row with 20 levels a side shown. */
    int64_t r0 = t.depth.row[0];
    for (int k = 0; k < 40; k++)
        cr_assert(t.depth.row[k] == r0 && t.depth.cause[k] == S, "depth row %d", k);
    cr_assert_neq(t.depth.row[40], r0);
    assert_top_follows(&t, 0);
    mm_ticks_stats s;
    mm_ticks_summarize(&t, &s);
    cr_assert_gt(s.depth_by_cause[T], 0);
    cr_assert_eq(s.depth_joins_known, 0);
    mm_ticks_free(&t);
}

/* ---- the store: HDF5, shared memory, raw tape ---- */

Test(depth, hdf5_shared_memory_and_raw_tape_round_trips)
{
    mm_ticks t, h, m, r;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, -1, 0, &t, &e), 0, "%s", e.msg);
    const char *p = tu_path("d.h5");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_load(p, "FIX", 0, &h, &e), 0, "%s", e.msg);
    tu_assert_same_ticks(&t, &h);
    cr_assert_eq(mm_ticks_load(p, "FIX", MM_LOAD_SHM, &m, &e), 0, "%s", e.msg);
    tu_assert_same_ticks(&t, &m);
    cr_assert_eq(m.mem_kind, MM_MEM_SHM);
    const char *raw = tu_path("d.mmtape");
    FILE *f = fopen(raw, "wb");
    cr_assert_eq(mm_ticks_write_raw(f, &h, &e), 0, "%s", e.msg);
    long size = ftell(f);
    fclose(f);
    cr_assert_eq(size, 256 + 33 * 8 + 16 + 26 * 13, "header, rows, depth header, depth rows");
    cr_assert_eq(mm_ticks_load_raw(raw, &r, &e), 0, "%s", e.msg);
    tu_assert_same_ticks(&t, &r);
    /* An L1 tape still writes MMTAPE01 of 256 + 33 n bytes. */
    mm_ticks l;
    cr_assert_eq(import_lob(MSG, OB, 8, 0, 0, &l, &e), 0, "%s", e.msg);
    f = fopen(raw, "wb");
    cr_assert_eq(mm_ticks_write_raw(f, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(ftell(f), 256 + 33 * 8);
    fclose(f);
    mm_ticks_free(&t);
    mm_ticks_free(&h);
    mm_ticks_free(&m);
    mm_ticks_free(&r);
    mm_ticks_free(&l);
}

Test(depth, a_truncated_raw_tape_with_depth_is_refused)
{
    mm_ticks t, r;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, -1, 0, &t, &e), 0, "%s", e.msg);
    const char *raw = tu_path("d.mmtape");
    FILE *f = fopen(raw, "wb");
    cr_assert_eq(mm_ticks_write_raw(f, &t, &e), 0, "%s", e.msg);
    fclose(f);
    cr_assert_eq(truncate(raw, 256 + 33 * 8 + 16 + 26 * 13 - 1), 0);
    cr_assert_eq(mm_ticks_load_raw(raw, &r, &e), MM_EFORMAT);
    cr_assert(strstr(e.msg, "rows and their depth rows need 874 bytes; the file has 873"), "%s",
              e.msg);
    mm_ticks_free(&t);
}

/* ---- validation: one line naming file, instrument, depth column and depth row ---- */

static void expect_invalid(void (*edit)(mm_ticks *), const char *msg)
{
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import_lob(MSG, OB, 8, -1, 0, &t, &e), 0, "%s", e.msg);
    edit(&t);
    cr_assert_eq(mm_ticks_validate(&t, "f.h5", &e), MM_EINVALID);
    cr_assert_str_eq(e.msg, msg);
    mm_ticks_free(&t);
}

static void add_shrinks(mm_ticks *t)
{
    t->depth.sz[11] = 50; /* the add of row 6: 60 -> 50 */
}
static void join_without_ids(mm_ticks *t)
{
    t->depth.ids = 0;
}
static void rows_back(mm_ticks *t)
{
    t->depth.row[6] = 0;
}
static void cause_6(mm_ticks *t)
{
    t->depth.cause[2] = 6;
}
static void third_level(mm_ticks *t)
{
    t->depth.cause[4] = S; /* row 1's hide of 99.99 becomes a show of ... */
    t->depth.px[4] = 9998; /* ... a third bid level */
    t->depth.sz[4] = 5;
}
static void join_after(mm_ticks *t)
{
    t->depth.join[6] = 5; /* the cancel at row 2 of an order that joined at row 5 */
}

Test(depth, validation_names_the_depth_row_and_column)
{
    expect_invalid(add_shrinks, "f.h5: instrument FIX: depth column sz: depth row 11: an add "
                                "takes bid 10000 from 60 to 50 (must grow)");
    expect_invalid(join_without_ids, "f.h5: instrument FIX: depth column join: depth row 5: 1 in "
                                     "a stream without order ids (must be -1)");
    expect_invalid(rows_back, "f.h5: instrument FIX: depth column row: depth row 6: tape row 0 "
                              "is before the previous depth row's 1");
    expect_invalid(cause_6, "f.h5: instrument FIX: depth column cause: depth row 2: value 6 is "
                            "not 1 (add) .. 5 (hide)");
    expect_invalid(third_level, "f.h5: instrument FIX: depth column px: depth row 4: bid 9998 "
                                "would be a level beyond the 2 the stream keeps a side");
    expect_invalid(join_after, "f.h5: instrument FIX: depth column join: depth row 6: 5 is not "
                               "-1 or a tape row in 0..2");
}

/* ---- the command line ---- */

Test(depth, info_shows_levels_and_depth_rows)
{
    const char *m = write_lines("m.csv", MSG, 8), *o = write_lines("o.csv", OB, 8);
    const char *h5 = tu_path("x.h5");
    const char *a[] = {"mmsim",       "import", "lobster", "--message",  m,
                       "--orderbook", o,        "--date",  "2012-06-21", "--symbol",
                       "FIX",         "-o",     h5,        NULL};
    char *out = NULL, *err = NULL;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "depth: 2 levels per side, 13 depth rows\n"), "%s", out);
    free(out);
    free(err);
    const char *i[] = {"mmsim", "info", h5, NULL};
    cr_assert_eq(tu_run(i, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "  depth          2 levels per side, 13 depth rows (add 2, cancel 3, "
                          "trade 1, show 6, hide 1); order ids: 3 of 4 removals name the row "
                          "their order joined\n"),
              "%s", out);
    free(out);
    free(err);
    const char *g[] = {"mmsim", "gen", "--events", "100", "-o", tu_path("g.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *gi[] = {"mmsim", "info", tu_path("g.h5"), NULL};
    cr_assert_eq(tu_run(gi, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "  depth          none (level 1 only)\n"), "%s", out);
    free(out);
    free(err);
}
