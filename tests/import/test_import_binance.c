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
