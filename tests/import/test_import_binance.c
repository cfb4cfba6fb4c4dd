/* Binance capture importer: the real BTCUSDT capture (never crossed, trades and volume as in the
 * capture, every bookTicker found in the tape, the depth book equal to bookTicker at shared update
 * ids), and malformed captures through the CLI. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mmsim/import.h"
#include "testutil.h"

TestSuite(binance, .fini = tu_cleanup);

/* ---- fixtures ---- */

static const char *const CAP[] = {
    "1000 "
    "{\"lastUpdateId\":100,\"E\":1000,\"T\":1000,\"bids\":[[\"10.0\",\"1.000\"]],\"asks\":[[\"10."
    "2\",\"2.000\"]]}",
    "1001 "
    "{\"stream\":\"tst@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1001,\"T\":1001,\"s\":\"TST\","
    "\"U\":95,"
    "\"u\":105,\"pu\":90,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[]}}",
    "1002 "
    "{\"stream\":\"tst@bookTicker\",\"data\":{\"e\":\"bookTicker\",\"u\":105,\"s\":\"TST\",\"b\":"
    "\"10.1\","
    "\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"2.000\",\"T\":1001,\"E\":1001}}",
    "999 "
    "{\"stream\":\"tst@trade\",\"data\":{\"e\":\"trade\",\"E\":1002,\"T\":1002,\"s\":\"TST\",\"t\":"
    "5,"
    "\"p\":\"10.2\",\"q\":\"0.100\",\"X\":\"MARKET\",\"m\":false}}",
    "1003 "
    "{\"stream\":\"tst@bookTicker\",\"data\":{\"e\":\"bookTicker\",\"u\":107,\"s\":\"TST\",\"b\":"
    "\"10.1\","
    "\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"1.900\",\"T\":1002,\"E\":1002}}",
    "1004 "
    "{\"stream\":\"tst@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1003,\"T\":1003,\"s\":\"TST\","
    "\"U\":106,"
    "\"u\":110,\"pu\":105,\"b\":[],\"a\":[[\"10.2\",\"1.900\"]]}}",
};

static const char *write_cap(const char *name, int bad_row, const char *bad)
{
    const char *p = tu_path(name);
    FILE *f = fopen(p, "w");
    for (int i = 0; i < 6; i++)
        fprintf(f, "%s\n", i == bad_row ? bad : CAP[i]);
    fclose(f);
    return p;
}

static int run(const char *cap, const char *extra, char **out, char **err)
{
    const char *argv[] = {"mmsim",    "import", "binance",         "--input", cap,
                          "--symbol", "TST",    "--tick",          "0.1",     "--lot",
                          "0.001",    "-o",     tu_path("out.h5"), extra,     NULL};
    return tu_run(argv, out, err);
}

static void expect_fail(const char *cap, const char *const *needles)
{
    char *out, *err;
    int rc = run(cap, NULL, &out, &err);
    cr_assert_eq(rc, 1, "exit %d: %s", rc, err);
    cr_assert_eq(tu_lines(err), 1, "one line: %s", err);
    cr_assert(!strncmp(err, "mmsim: ", 7), "%s", err);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(err, needles[i]), "'%s' not in: %s", needles[i], err);
    struct stat st;
    cr_assert_neq(stat(tu_path("out.h5"), &st), 0, "no output file may be left");
    free(out);
    free(err);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(binance, fixture_orders_by_exchange_time_and_update_id)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.1";
    o.lot = "0.001";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_binance(write_cap("c.txt", -1, NULL), &o, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 5);
    /* snapshot, depth 105, trade (T 1002, before the bookTicker of the same ms), bookTicker 107,
     * depth 110 */
    const int64_t ts[5] = {1000, 1001, 1002, 1002, 1003};
    const int32_t bid[5] = {100, 101, 101, 101, 101}, asz[5] = {2000, 2000, 2000, 1900, 1900};
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(t.ts_ns[i], ts[i] * 1000000, "row %d", i);
        cr_assert_eq(t.bid_px[i], bid[i], "row %d", i);
        cr_assert_eq(t.ask_px[i], 102, "row %d", i);
        cr_assert_eq(t.ask_sz[i], asz[i], "row %d", i);
    }
    cr_assert_eq(t.bid_sz[1], 500);
    cr_assert_eq(t.trade_sz[2], 100);
    cr_assert_eq(t.trade_px[2], 102);
    cr_assert_eq(t.trade_side[2], 1, "m=false: the buyer took liquidity");
    cr_assert_eq(rep.ticker_checks, 1);
    cr_assert_eq(rep.book_tickers, 1);
    cr_assert_eq(rep.depth_updates, 2);
    mm_ticks_free(&t);
}

Test(binance, garbage_json_line_is_an_error_with_file_and_line)
{
    expect_fail(write_cap("c.txt", 2, "1002 {\"stream\":\"x\",\"data\":{\"e\":\"bookTicker\",,}}"),
                NEEDLES("c.txt:3:", "malformed JSON", "column"));
    expect_fail(write_cap("c.txt", 4, "not a capture line"),
                NEEDLES("c.txt:5:", "<receive ns> <JSON>"));
    expect_fail(
        write_cap("c.txt", 3,
                  "999 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"T\":1002,\"s\":\"TST\"}}"),
        NEEDLES("c.txt:4:", "missing field"));
}

Test(binance, gap_in_update_ids_fails_unless_skipped)
{
    const char *bad = "1004 "
                      "{\"stream\":\"tst@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1003,\"T\":"
                      "1003,\"s\":\"TST\","
                      "\"U\":106,\"u\":110,\"pu\":104,\"b\":[],\"a\":[[\"10.2\",\"1.900\"]]}}";
    expect_fail(write_cap("c.txt", 5, bad),
                NEEDLES("c.txt:6:", "gap", "pu=104", "previous u=105", "--skip-gaps"));
    char *out, *err;
    cr_assert_eq(run(write_cap("c.txt", 5, bad), "--skip-gaps", &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "1 gaps skipped"), "%s", out);
    free(out);
    free(err);
}

Test(binance, bookticker_disagreeing_with_depth_book_is_an_error)
{
    expect_fail(
        write_cap("c.txt", 2,
                  "1002 {\"stream\":\"x\",\"data\":{\"e\":\"bookTicker\",\"u\":105,\"s\":\"TST\","
                  "\"b\":\"10.1\",\"B\":\"0.600\",\"a\":\"10.2\",\"A\":\"2.000\",\"T\":1001,\"E\":"
                  "1001}}"),
        NEEDLES("c.txt:3:", "bookTicker u=105", "disagrees"));
}

Test(binance, price_off_the_tick_and_missing_snapshot_are_errors)
{
    expect_fail(
        write_cap("c.txt", 3,
                  "999 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1002,\"T\":1002,\"s\":"
                  "\"TST\",\"t\":1,\"p\":\"10.25\",\"q\":\"0.100\",\"m\":true}}"),
        NEEDLES("c.txt:4:", "10.25", "multiple of the tick"));
    expect_fail(write_cap("c.txt", 0,
                          "1000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1,\"T\":1,\"s\":"
                          "\"TST\",\"t\":0,\"p\":\"10.2\",\"q\":\"0.100\",\"m\":true}}"),
                NEEDLES("c.txt", "no REST depth snapshot"));
}

Test(binance, truncated_gzip_capture_is_an_error)
{
    const char *p = tu_path("c.gz");
    gzFile g = gzopen(p, "wb");
    for (int k = 0; k < 3000; k++)
        for (int i = 0; i < 6; i++)
            gzprintf(g, "%s\n", CAP[i]);
    gzclose(g);
    FILE *f = fopen(p, "rb");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(tu_path("cut.gz"), "wb");
    fwrite(buf, 1, n - n / 3, f);
    fclose(f);
    expect_fail(tu_path("cut.gz"), NEEDLES("cut.gz:", "truncated"));
}

Test(binance, skip_bad_skips_garbage_lines)
{
    char *out, *err;
    cr_assert_eq(run(write_cap("c.txt", 4, "1003 {\"garbage"), "--skip-bad", &out, &err), 0, "%s",
                 err);
    cr_assert(strstr(out, "skipped 1 bad lines") && strstr(out, "c.txt:5:"), "%s", out);
    free(out);
    free(err);
}

static const char *const PRE[3] = {
    "990 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":997,\"T\":997,\"s\":\"TST\",\"t\":0,"
    "\"p\":\"10.2\",\"q\":\"0.001\",\"m\":true}}",
    "991 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":999,\"T\":999,\"s\":\"TST\",\"t\":2,"
    "\"p\":\"10.2\",\"q\":\"0.002\",\"m\":true}}",
    "992 {\"stream\":\"t\",\"data\":{\"e\":\"bookTicker\",\"u\":99,\"s\":\"TST\",\"b\":\"10.0\","
    "\"B\":\"1.000\",\"a\":\"10.2\",\"A\":\"2.500\",\"T\":998,\"E\":998}}",
};

static int import_pre(const char *trade2, mm_ticks *t, mm_import_report *rep, mm_error *e)
{
    const char *p = tu_path("pre.txt");
    FILE *f = fopen(p, "w");
    fprintf(f, "%s\n%s\n%s\n", PRE[0], trade2 ? trade2 : PRE[1], PRE[2]);
    for (int i = 0; i < 6; i++)
        fprintf(f, "%s\n", CAP[i]);
    fclose(f);
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.1";
    o.lot = "0.001";
    return mm_import_binance(p, &o, t, rep, e);
}

Test(binance, bookticker_before_the_snapshot_gives_the_first_rows)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(import_pre(NULL, &t, &rep, &e), 0, "%s", e.msg);
    /* bookTicker 99 (T 998), trade (T 999), snapshot (T 1000), depth 105, trade, bookTicker 107,
     * depth 110; the trade at T 997 precedes every book and is not used. */
    cr_assert_eq(t.n, 7);
    cr_assert_eq(t.ts_ns[0], INT64_C(998000000));
    cr_assert_eq(t.ask_sz[0], 2500);
    cr_assert_eq(t.ts_ns[1], INT64_C(999000000));
    cr_assert_eq(t.trade_sz[1], 2);
    cr_assert_eq(t.trade_side[1], -1, "m=true: the seller took liquidity");
    cr_assert_eq(t.ask_sz[1], 2500, "the trade carries the bookTicker's L1");
    cr_assert_eq(t.ts_ns[2], INT64_C(1000000000));
    cr_assert_eq(t.ask_sz[2], 2000, "the snapshot row");
    cr_assert_eq(rep.dropped_before_sync, 1);
    cr_assert_eq(rep.trade_msgs, 2);
    cr_assert_eq(rep.book_tickers, 2);
    cr_assert_eq(mm_ticks_validate(&t, "x", &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    /* "t":-0 is valid JSON but not a trade id. */
    const char *neg =
        "991 {\"stream\":\"t\",\"data\":{\"e\":\"trade\",\"E\":999,\"T\":999,\"s\":\"TST\","
        "\"t\":-0,\"p\":\"10.2\",\"q\":\"0.002\",\"m\":true}}";
    cr_assert_eq(import_pre(neg, &t, &rep, &e), MM_EFORMAT);
    cr_assert(strstr(e.msg, "pre.txt:2:") && strstr(e.msg, "\"t\""), "%s", e.msg);
}

/* ---- spot captures (issue 8, item 23): no T/pu on diffs, no time on bookTickers or the snapshot
 * ---- */

/* Exchange ms 1723161255000 + k; every line received 1.27 s earlier by the local clock. */
static const char *const SPOT[] = {
    /* 1: diff before the snapshot (u <= lastUpdateId): not used */
    "1723161253730000000 {\"stream\":\"tst@depth@100ms\",\"data\":{\"e\":\"depthUpdate\",\"E\":"
    "1723161255000,\"s\":\"TST\",\"U\":90,\"u\":99,\"b\":[[\"10.0\",\"1.000\"]],\"a\":[]}}",
    /* 2: bookTicker before the snapshot: a row */
    "1723161253730100000 {\"stream\":\"tst@bookTicker\",\"data\":{\"u\":99,\"s\":\"TST\",\"b\":"
    "\"10.0\",\"B\":\"1.000\",\"a\":\"10.3\",\"A\":\"1.000\"}}",
    /* 3: the snapshot (no T) */
    "1723161253730700000 {\"lastUpdateId\":100,\"bids\":[[\"10.0\",\"1.000\"]],\"asks\":[[\"10.2\","
    "\"2.000\"]]}",
    /* 4: first diff: U <= 101 <= u */
    "1723161253731000000 {\"stream\":\"tst@depth@100ms\",\"data\":{\"e\":\"depthUpdate\",\"E\":"
    "1723161255001,\"s\":\"TST\",\"U\":101,\"u\":105,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[]}}",
    /* 5: bookTicker between the snapshot and diff 105: a row */
    "1723161253730900000 {\"stream\":\"tst@bookTicker\",\"data\":{\"u\":103,\"s\":\"TST\",\"b\":"
    "\"10.1\",\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"2.000\"}}",
    /* 6: bookTicker at diff 105's id: compared with the depth book */
    "1723161253730950000 {\"stream\":\"tst@bookTicker\",\"data\":{\"u\":105,\"s\":\"TST\",\"b\":"
    "\"10.1\",\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"2.000\"}}",
    /* 7: trade */
    "1723161253732000000 {\"stream\":\"tst@trade\",\"data\":{\"e\":\"trade\",\"E\":1723161255002,"
    "\"s\":\"TST\",\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1723161255002,\"m\":false,\"M\":"
    "true}}",
    /* 8: next diff: U = previous u + 1 */
    "1723161253733000000 {\"stream\":\"tst@depth@100ms\",\"data\":{\"e\":\"depthUpdate\",\"E\":"
    "1723161255003,\"s\":\"TST\",\"U\":106,\"u\":110,\"b\":[],\"a\":[[\"10.2\",\"1.900\"]]}}",
};
#define NSPOT 8

/* Lines [from, to) of SPOT into `name`, line `bad_row` (an index into SPOT) replaced by `bad`. */
static const char *write_spot(const char *name, int from, int to, int bad_row, const char *bad)
{
    const char *p = tu_path(name);
    FILE *f = fopen(p, "w");
    for (int i = from; i < to; i++)
        fprintf(f, "%s\n", i == bad_row ? bad : SPOT[i]);
    fclose(f);
    return p;
}

static int import_files(const char *const *files, int n, const char *symbol, const char *market,
                        int no_snapshot, mm_ticks *t, mm_import_report *rep, mm_error *e)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = symbol;
    o.tick = "0.1";
    o.lot = "0.001";
    o.market = market;
    o.no_snapshot = no_snapshot;
    return mm_import_binance_files(files, n, &o, t, rep, e);
}

/* The whole SPOT capture's tape, as docs/import-binance.md derives it. */
static void check_spot_tape(const mm_ticks *t, const mm_import_report *rep)
{
    const int64_t T0 = INT64_C(1723161255000);
    /* bookTicker 99 (received at T0 + 0.1 ms: T0), snapshot (T0), bookTicker 103 (T0), diff 105
     * (T0 + 1), trade (T0 + 2), diff 110 (T0 + 3) */
    const int64_t ms[6] = {0, 0, 0, 1, 2, 3};
    const int32_t bid[6] = {100, 100, 101, 101, 101, 101},
                  bsz[6] = {1000, 1000, 500, 500, 500, 500},
                  ask[6] = {103, 102, 102, 102, 102, 102},
                  asz[6] = {1000, 2000, 2000, 2000, 2000, 1900};
    cr_assert_eq(t->n, 6);
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(t->ts_ns[i], (T0 + ms[i]) * 1000000, "row %d", i);
        cr_assert_eq(t->bid_px[i], bid[i], "row %d", i);
        cr_assert_eq(t->bid_sz[i], bsz[i], "row %d", i);
        cr_assert_eq(t->ask_px[i], ask[i], "row %d", i);
        cr_assert_eq(t->ask_sz[i], asz[i], "row %d", i);
        cr_assert_eq(t->trade_sz[i], i == 4 ? 100 : 0, "row %d", i);
    }
    cr_assert_eq(t->trade_px[4], 102);
    cr_assert_eq(t->trade_side[4], 1);
    cr_assert_str_eq(rep->market, "spot");
    cr_assert_eq(rep->book_tickers, 2);
    cr_assert_eq(rep->ticker_checks, 1);
    cr_assert_eq(rep->depth_updates, 2);
    cr_assert_eq(rep->dropped_before_sync, 1);
    cr_assert_eq(rep->clock_offset_ns, INT64_C(1270000000));
}

Test(binance, spot_capture_is_detected_and_timed_from_receive_times)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    const char *f[1] = {write_spot("s.txt", 0, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    check_spot_tape(&t, &rep);
    cr_assert_eq(mm_ticks_validate(&t, "TST", &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    cr_assert_eq(import_files(f, 1, "TST", "spot", 0, &t, &rep, &e), 0, "%s", e.msg);
    check_spot_tape(&t, &rep);
    mm_ticks_free(&t);
    /* A bookTicker that disagrees with the depth book at its id is an error, as for USD-M. */
    f[0] = write_spot("s.txt", 0, NSPOT, 5,
                      "1723161253730950000 {\"stream\":\"x\",\"data\":{\"u\":105,\"s\":\"TST\","
                      "\"b\":\"10.1\",\"B\":\"0.600\",\"a\":\"10.2\",\"A\":\"2.000\"}}");
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:6: bookTicker u=105") && strstr(e.msg, "disagrees"), "%s",
              e.msg);
}

Test(binance, market_option_and_mixed_shapes_are_errors)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    const char *f[1] = {write_spot("s.txt", 0, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(f, 1, "TST", "usdm", 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:1: depthUpdate without \"pu\": a spot message, but "
                            "mm_import_opts.market is usdm"),
              "%s", e.msg);
    f[0] = write_cap("c.txt", -1, NULL);
    cr_assert_eq(import_files(f, 1, "TST", "spot", 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(
        strstr(e.msg,
               "c.txt:1: snapshot with \"T\": a usdm message, but mm_import_opts.market is spot"),
        "%s", e.msg);
    cr_assert_eq(import_files(f, 1, "TST", "coin", 0, &t, &rep, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "market: 'coin' is not spot or usdm"), "%s", e.msg);
    /* A USD-M diff (with pu) inside a spot capture. */
    f[0] = write_spot("s.txt", 0, NSPOT, 7,
                      "1723161253733000000 {\"stream\":\"x\",\"data\":{\"e\":\"depthUpdate\",\"E\":"
                      "1723161255003,\"T\":1723161255003,\"s\":\"TST\",\"U\":106,\"u\":110,\"pu\":"
                      "105,\"b\":[],\"a\":[]}}");
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:8: depthUpdate with \"pu\": a usdm message in a spot capture "
                            "(spot since "),
              "%s", e.msg);
    cr_assert(strstr(e.msg, "s.txt:1)"), "%s", e.msg);
    /* The USD-M capture is detected as such. */
    f[0] = write_cap("c.txt", -1, NULL);
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_str_eq(rep.market, "usdm");
    mm_ticks_free(&t);
}

Test(binance, spot_gap_is_u_plus_one)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    const char *f[1] = {write_spot(
        "s.txt", 0, NSPOT, 7,
        "1723161253733000000 {\"stream\":\"x\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255003,"
        "\"s\":\"TST\",\"U\":107,\"u\":110,\"b\":[],\"a\":[[\"10.2\",\"1.900\"]]}}")};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:8: gap in depth update ids: U=107 but the previous u=105"), "%s",
              e.msg);
}

Test(binance, several_files_are_one_capture_with_the_book_carried_over)
{
    mm_ticks t, one;
    mm_import_report rep;
    mm_error e = {0};
    const char *whole[1] = {write_spot("s.txt", 0, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(whole, 1, "TST", NULL, 0, &one, &rep, &e), 0, "%s", e.msg);
    /* Day 1: up to bookTicker 103; day 2: no snapshot, continues the update ids. */
    const char *days[2] = {write_spot("d1.txt", 0, 5, -1, NULL),
                           write_spot("d2.txt", 5, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(days, 2, "TST", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    check_spot_tape(&t, &rep);
    cr_assert_eq(rep.files, 2);
    cr_assert_eq(rep.lines, NSPOT);
    cr_assert_eq(mm_ticks_fingerprint(&t), mm_ticks_fingerprint(&one));
    mm_ticks_free(&t);
    mm_ticks_free(&one);
    /* A gap at the file boundary names the second file's line. */
    days[1] = write_spot(
        "d2.txt", 5, NSPOT, 7,
        "1723161253733000000 {\"stream\":\"x\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255003,"
        "\"s\":\"TST\",\"U\":107,\"u\":110,\"b\":[],\"a\":[]}}");
    cr_assert_eq(import_files(days, 2, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "d2.txt:3: gap in depth update ids: U=107 but the previous u=105"),
              "%s", e.msg);
    /* Parse errors name the right file and line. */
    days[1] = write_spot("d2.txt", 5, NSPOT, 6, "1 {\"garbage");
    cr_assert_eq(import_files(days, 2, "TST", NULL, 0, &t, &rep, &e), MM_EFORMAT);
    cr_assert(strstr(e.msg, "d2.txt:2: malformed JSON"), "%s", e.msg);
    /* A second snapshot, in the second file. */
    days[1] = write_spot("d2.txt", 2, NSPOT, -1, NULL);
    cr_assert_eq(import_files(days, 2, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "d2.txt:1: a second REST snapshot (the first is ") &&
                  strstr(e.msg, "d1.txt:3)"),
              "%s", e.msg);
}

Test(binance, day_without_snapshot_needs_no_snapshot_option)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    const char *f[1] = {write_spot("d2.txt", 5, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "d2.txt: no REST depth snapshot") &&
                  strstr(e.msg, "mm_import_opts.no_snapshot"),
              "%s", e.msg);
    /* --no-snapshot: the bookTicker L1 and the trades; diffs checked but not applied. */
    cr_assert_eq(import_files(f, 1, "TST", NULL, 1, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 2);
    cr_assert_eq(t.ts_ns[0], INT64_C(1723161255000) * 1000000, "received at T0 + 0.95 ms");
    cr_assert_eq(t.bid_px[0], 101);
    cr_assert_eq(t.trade_sz[1], 100);
    cr_assert_eq(t.ask_sz[1], 2000, "the trade carries the bookTicker's L1");
    cr_assert_eq(rep.depth_updates, 0);
    cr_assert_eq(rep.dropped_before_sync, 1);
    mm_ticks_free(&t);
    /* --no-snapshot with a snapshot in the capture is an error. */
    f[0] = write_spot("s.txt", 0, NSPOT, -1, NULL);
    cr_assert_eq(import_files(f, 1, "TST", NULL, 1, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:3: a REST snapshot, but mm_import_opts.no_snapshot is set"),
              "%s", e.msg);
}

Test(binance, dated_symbol_matches_the_part_before_the_dot)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    const char *f[1] = {write_spot("s.txt", 0, NSPOT, -1, NULL)};
    cr_assert_eq(import_files(f, 1, "TST.20240808", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_str_eq(t.inst.symbol, "TST.20240808");
    mm_ticks_free(&t);
    f[0] = write_cap("c.txt", -1, NULL);
    cr_assert_eq(import_files(f, 1, "TST.2024-08-08.a", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    cr_assert_eq(import_files(f, 1, "ETH.20240808", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg,
                     "c.txt:2: message for symbol 'TST', not ETH (from mm_import_opts.symbol "
                     "ETH.20240808)"),
              "%s", e.msg);
    cr_assert_eq(import_files(f, 1, ".x", NULL, 0, &t, &rep, &e), MM_EUSAGE);
}

Test(binance, trade_times_far_from_the_stream_are_errors)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    /* T in the year 2100, and T = 1 (was silently dropped as "before any book"). */
    const char *y2100 =
        "1723161253732000000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1723161255002,\"s\":"
        "\"TST\",\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":4102444800000,\"m\":false}}";
    const char *f[1] = {write_spot("s.txt", 0, NSPOT, 6, y2100)};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:7: trade time 4102444800000 ms is ") &&
                  strstr(e.msg, " s after the time the line was received") &&
                  strstr(e.msg, "clock offset of 1.270 s") && strstr(e.msg, "more than 60 s"),
              "%s", e.msg);
    const char *t1 =
        "1723161253732000000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1,\"s\":"
        "\"TST\",\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1,\"m\":false}}";
    f[0] = write_spot("s.txt", 0, NSPOT, 6, t1);
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:7: trade time 1 ms is 1723161255 s before"), "%s", e.msg);
    /* 59 s late is within the tolerance; 61 s is not. */
    const char *late59 =
        "1723161253732000000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1,\"s\":\"TST\","
        "\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1723161314002,\"m\":false}}";
    f[0] = write_spot("s.txt", 0, NSPOT, 6, late59);
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    const char *late61 =
        "1723161253732000000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1,\"s\":\"TST\","
        "\"t\":7,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1723161316002,\"m\":false}}";
    f[0] = write_spot("s.txt", 0, NSPOT, 6, late61);
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:7: trade time 1723161316002 ms is 61 s after"), "%s", e.msg);
}

Test(binance, trade_ids_rise_with_time)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    /* A second trade with a lower id (6) but a later time than trade 7. */
    const char *p = tu_path("s.txt");
    FILE *fp = fopen(p, "w");
    for (int i = 0; i < NSPOT; i++)
        fprintf(fp, "%s\n", SPOT[i]);
    fprintf(fp,
            "1723161253733000000 {\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"E\":1,\"s\":"
            "\"TST\",\"t\":6,\"p\":\"10.2\",\"q\":\"0.100\",\"T\":1723161255003,\"m\":true}}\n");
    fclose(fp);
    const char *f[1] = {p};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:7: trade id 7 has time 1723161255002 ms, before the "
                            "1723161255003 ms of the lower trade id 6 (") &&
                  strstr(e.msg, "s.txt:9); trade ids rise with time"),
              "%s", e.msg);
}

Test(binance, spot_bookticker_received_far_from_its_ids_is_an_error)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    /* bookTicker 103 received 2 minutes late: outside [snapshot, diff 105] by more than 60 s. */
    const char *f[1] = {write_spot(
        "s.txt", 0, NSPOT, 4,
        "1723161373730900000 {\"stream\":\"x\",\"data\":{\"u\":103,\"s\":\"TST\",\"b\":\"10.1\","
        "\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"2.000\"}}")};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:5: bookTicker (update id 103) was received at 1723161375000 ms"),
              "%s", e.msg);
    cr_assert(strstr(e.msg, "more than 60 s outside") &&
                  strstr(e.msg, "(1723161255000 to 1723161255001 ms)"),
              "%s", e.msg);
}

Test(binance, price_span_error_names_the_level_file_and_line)
{
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    /* A stray ask at 9,999,999.9 (99,999,999 ticks of 0.1) in diff 105. */
    const char *f[1] = {write_spot(
        "s.txt", 0, NSPOT, 3,
        "1723161253731000000 {\"stream\":\"x\",\"data\":{\"e\":\"depthUpdate\",\"E\":1723161255001,"
        "\"s\":\"TST\",\"U\":101,\"u\":105,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[[\"9999999.9\","
        "\"0.001\"]]}}")};
    cr_assert_eq(import_files(f, 1, "TST", NULL, 0, &t, &rep, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "s.txt:4: a level at price 9999999.9 makes the prices span 99999900 "
                            "ticks, from the lowest price 10.0 at ") &&
                  strstr(e.msg, "s.txt:1, more than the 33554432 the dense book holds (is the tick "
                                "too small?)"),
              "%s", e.msg);
}

static int run_argv(const char *const *argv, char **out, char **err)
{
    return tu_run(argv, out, err);
}

Test(binance, cli_several_inputs_market_and_output_checks)
{
    char *out, *err;
    const char *d1 = write_spot("d1.txt", 0, 5, -1, NULL),
               *d2 = write_spot("d2.txt", 5, NSPOT, -1, NULL);
    const char *o = tu_path("out.h5");
    const char *ok[] = {"mmsim", "import",   "binance", "-i",       d1,     "-i",
                        d2,      "--symbol", "TST.1",   "--tick",   "0.1",  "--lot",
                        "0.001", "-o",       o,         "--market", "spot", NULL};
    cr_assert_eq(run_argv(ok, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "binance spot: 2 files; clock offset 1.270 s"), "%s", out);
    free(out);
    free(err);
    /* The output is one of the inputs: a usage error before anything is read or written. */
    const char *same[] = {"mmsim", "import", "binance", "-i",    d1,      "-i", d2, "--symbol",
                          "TST",   "--tick", "0.1",     "--lot", "0.001", "-o", d2, NULL};
    cr_assert_eq(run_argv(same, &out, &err), 2, "%s", err);
    cr_assert(strstr(err, "mmsim: import: -o ") && strstr(err, "the output is also an input"), "%s",
              err);
    free(out);
    free(err);
    /* An existing file that is not a tick file is never written into. */
    const char *notes = tu_path("notes.txt");
    FILE *fp = fopen(notes, "w");
    fputs("not a tick file\n", fp);
    fclose(fp);
    const char *kind[] = {"mmsim",  "import", "binance", "-i",    d1,   "--symbol", "TST",
                          "--tick", "0.1",    "--lot",   "0.001", "-o", notes,      NULL};
    cr_assert_eq(run_argv(kind, &out, &err), 2, "%s", err);
    cr_assert(strstr(err, "exists and is not a tick file (not HDF5); refusing to overwrite it"),
              "%s", err);
    free(out);
    free(err);
    const char *mk[] = {"mmsim",         "import",   "binance", "-i",    d1,      "--symbol",
                        "TST",           "--tick",   "0.1",     "--lot", "0.001", "-o",
                        tu_path("x.h5"), "--market", "coin",    NULL};
    cr_assert_eq(run_argv(mk, &out, &err), 2, "%s", err);
    cr_assert_str_eq(err, "mmsim: import: --market: 'coin' is not spot or usdm\n");
    free(out);
    free(err);
    const char *help[] = {"mmsim", "import", "--help", NULL};
    cr_assert_eq(run_argv(help, &out, &err), 0);
    cr_assert(strstr(out, "markets spot and usdm") && strstr(out, "--no-snapshot") &&
                  strstr(out, "-i NEXT_DAY"),
              "%s", out);
    free(out);
    free(err);
}
