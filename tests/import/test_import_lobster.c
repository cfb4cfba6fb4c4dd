/* LOBSTER importer: the real AMZN (1 level) and GOOG (5 levels) days against their own orderbook
 * files, row by row; hand-written fixtures for every malformed-input error, through the CLI (one
 * line, exit 1, no output file left). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "mmsim/import.h"
#include "testutil.h"

TestSuite(lobster, .fini = tu_cleanup);

/* ---- fixtures ---- */

static const char *const MSG[] = {
    "34200.1,1,1,100,1000000,1", /* bid 100.00 x 100 */
    "34200.2,1,2,30,1000100,-1", /* ask 100.01: 50 -> 80 */
    "34200.3,4,1,40,1000000,1",  /* execution of the buy order: seller-initiated, bid 100 -> 60 */
    "34200.4,5,0,10,1000050,-1", /* hidden execution at 100.005 of a sell order: buyer-initiated */
    "34200.5,3,2,80,1000100,-1", /* ask level deleted: empty ask */
};
static const char *const OB[] = {
    "1000100,50,1000000,100", "1000100,80,1000000,100",  "1000100,80,1000000,60",
    "1000100,80,1000000,60",  "9999999999,0,1000000,60",
};

/* Write lines (one replaced when `bad_row` >= 0 by `bad`, dropped when bad is NULL) to name; gzip
 * if gz. */
static const char *write_lines(const char *name, const char *const *lines, int n, int bad_row,
                               const char *bad)
{
    const char *p = tu_path(name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    for (int i = 0; i < n; i++) {
        if (i == bad_row && !bad) continue;
        fprintf(f, "%s\n", i == bad_row ? bad : lines[i]);
    }
    fclose(f);
    return p;
}

static int run(const char *msg, const char *ob, const char *extra, char **out, char **err)
{
    const char *argv[16] = {"mmsim",       "import", "lobster",         "--message",  msg,
                            "--orderbook", ob,       "--date",          "2012-06-21", "--symbol",
                            "FIX",         "-o",     tu_path("out.h5"), NULL,         NULL};
    if (extra) argv[13] = extra;
    return tu_run(argv, out, err);
}

static void expect_fail(const char *msg, const char *ob, const char *const *needles)
{
    char *out, *err;
    int rc = run(msg, ob, NULL, &out, &err);
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

Test(lobster, fixture_imports_with_empty_side_subtick_and_sides)
{
    const char *m = write_lines("m.csv", MSG, 5, -1, NULL),
               *o = write_lines("o.csv", OB, 5, -1, NULL);
    mm_import_opts opt;
    mm_import_opts_init(&opt);
    opt.symbol = "FIX";
    opt.date = "2012-06-21";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_lobster(m, o, &opt, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 5);
    cr_assert_eq(t.ts_ns[0], INT64_C(1340285400100000000));
    cr_assert_eq(t.bid_px[0], 10000);
    cr_assert_eq(t.ask_px[0], 10001);
    cr_assert_eq(t.trade_sz[2], 40);
    cr_assert_eq(t.trade_side[2], -1);
    cr_assert_eq(t.trade_px[2], 10000);
    cr_assert_eq(t.trade_side[3], 1);
    cr_assert_eq(t.trade_px[3], 10000, "a buy print at 100.005 rounds down");
    cr_assert_eq(rep.subtick_rounded, 1);
    cr_assert_eq(t.ask_px[4], MM_PX_NONE_ASK);
    cr_assert_eq(t.ask_sz[4], 0);
    cr_assert_eq(mm_ticks_validate(&t, "x", &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    /* A file with no trailing newline and CRLF line ends reads the same. */
    const char *crlf[5];
    char buf[5][64];
    for (int i = 0; i < 5; i++)
        snprintf(buf[i], 64, "%s\r", MSG[i]), crlf[i] = buf[i];
    const char *m2 = write_lines("m2.csv", crlf, 5, -1, NULL);
    cr_assert_eq(mm_import_lobster(m2, o, &opt, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 5);
    mm_ticks_free(&t);
}

Test(lobster, short_row_is_an_error_with_file_and_line)
{
    expect_fail(write_lines("m.csv", MSG, 5, 2, "34200.3,4,1,40,1000000"),
                write_lines("o.csv", OB, 5, -1, NULL), NEEDLES("m.csv:3:", "short row"));
    expect_fail(write_lines("m.csv", MSG, 5, -1, NULL),
                write_lines("o.csv", OB, 5, 1, "1000100,80,1000000"),
                NEEDLES("o.csv:2:", "short row"));
}

Test(lobster, non_numeric_field_is_an_error)
{
    expect_fail(write_lines("m.csv", MSG, 5, 1, "34200.2,1,2,3x,1000100,-1"),
                write_lines("o.csv", OB, 5, -1, NULL),
                NEEDLES("m.csv:2:", "field 4 (size)", "not an integer"));
    expect_fail(write_lines("m.csv", MSG, 5, 3, "34200.4x,5,0,10,1000050,-1"),
                write_lines("o.csv", OB, 5, -1, NULL), NEEDLES("m.csv:4:", "time"));
}

Test(lobster, unsorted_times_are_an_error)
{
    expect_fail(write_lines("m.csv", MSG, 5, 2, "34200.05,4,1,40,1000000,1"),
                write_lines("o.csv", OB, 5, -1, NULL), NEEDLES("m.csv:3:", "before the previous"));
}

Test(lobster, times_past_the_end_of_the_day_are_an_error)
{
    /* 86400 s after midnight is the next day's midnight: a tape ending the next morning. */
    expect_fail(write_lines("m.csv", MSG, 5, 4, "86400.5,3,2,80,1000100,-1"),
                write_lines("o.csv", OB, 5, -1, NULL),
                NEEDLES("m.csv:5: field 1 (time): 86400.5 s is past the end of the day (seconds "
                        "after midnight must be below 86400)"));
    expect_fail(write_lines("m.csv", MSG, 5, 4, "99999.000000001,3,2,80,1000100,-1"),
                write_lines("o.csv", OB, 5, -1, NULL), NEEDLES("m.csv:5:", "99999.000000001 s"));
    /* The last nanosecond of the day is fine. */
    char *out, *err;
    int rc = run(write_lines("m.csv", MSG, 5, 4, "86399.999999999,3,2,80,1000100,-1"),
                 write_lines("o.csv", OB, 5, -1, NULL), NULL, &out, &err);
    cr_assert_eq(rc, 0, "%s", err);
    free(out);
    free(err);
}

Test(lobster, orderbook_with_fewer_rows_is_an_error)
{
    expect_fail(write_lines("m.csv", MSG, 5, -1, NULL), write_lines("o.csv", OB, 5, 4, NULL),
                NEEDLES("o.csv:5:", "ends after 4 rows"));
    expect_fail(write_lines("m.csv", MSG, 5, 4, NULL), write_lines("o.csv", OB, 5, -1, NULL),
                NEEDLES("o.csv:5:", "more rows"));
}

Test(lobster, message_not_matching_the_book_is_an_error)
{
    expect_fail(write_lines("m.csv", MSG, 5, -1, NULL),
                write_lines("o.csv", OB, 5, 2, "1000100,80,1000000,70"),
                NEEDLES("m.csv:3:", "does not match orderbook row", "o.csv:3",
                        "bid level 1 is 1000000 x 70, expected 1000000 x 60"));
    expect_fail(write_lines("m.csv", MSG, 5, -1, NULL),
                write_lines("o.csv", OB, 5, 3, "1000100,70,1000000,60"),
                NEEDLES("m.csv:4:", "the ask side changed"));
}

Test(lobster, truncated_gzip_is_an_error)
{
    const char *src = tu_path("big.csv.gz");
    gzFile g = gzopen(src, "wb");
    for (int i = 0; i < 20000; i++)
        gzprintf(g, "%d.%09d,1,%d,100,1000000,1\n", 34200 + i / 1000, i % 1000, i);
    gzclose(g);
    FILE *f = fopen(src, "rb");
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    f = fopen(tu_path("cut.csv.gz"), "wb");
    fwrite(buf, 1, n / 2, f);
    fclose(f);
    expect_fail(tu_path("cut.csv.gz"), write_lines("o.csv", OB, 5, -1, NULL),
                NEEDLES("cut.csv.gz:", "truncated"));
}

Test(lobster, skip_bad_counts_and_reports)
{
    char *out, *err;
    const char *m = write_lines("m.csv", MSG, 5, 1, "34200.2,1,2,zz,1000100,-1"),
               *o = write_lines("o.csv", OB, 5, -1, NULL);
    int rc = run(m, o, "--skip-bad", &out, &err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert(strstr(out, "4 rows") && strstr(out, "skipped 1 bad lines") &&
                  strstr(out, "m.csv:2:"),
              "%s", out);
    free(out);
    free(err);
}

Test(lobster, subtick_reject_and_usage_errors)
{
    char *out, *err;
    const char *m = write_lines("m.csv", MSG, 5, -1, NULL),
               *o = write_lines("o.csv", OB, 5, -1, NULL);
    int rc = run(m, o, "--subtick-reject", &out, &err);
    cr_assert_eq(rc, 1, "%s", err);
    cr_assert(strstr(err, "m.csv:4:") && strstr(err, "between ticks"), "%s", err);
    free(out);
    free(err);
    const char *argv[] = {"mmsim",       "import", "lobster",         "--message",  m,
                          "--orderbook", o,        "--date",          "2012-13-01", "--symbol",
                          "FIX",         "-o",     tu_path("out.h5"), NULL};
    rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 2, "%s", err);
    cr_assert(strstr(err, "--date"), "%s", err);
    free(out);
    free(err);
}

Test(lobster, imports_append_instruments_and_replace)
{
    const char *m = write_lines("m.csv", MSG, 5, -1, NULL),
               *o = write_lines("o.csv", OB, 5, -1, NULL);
    const char *h5 = tu_path("multi.h5");
    const char *syms[] = {"DAY1", "DAY2"};
    char *out, *err;
    for (int k = 0; k < 2; k++) {
        const char *argv[] = {"mmsim",       "import", "lobster", "--message",  m,
                              "--orderbook", o,        "--date",  "2012-06-21", "--symbol",
                              syms[k],       "-o",     h5,        NULL};
        cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
        free(out);
        free(err);
    }
    const char *dup[] = {"mmsim",       "import", "lobster", "--message",  m,
                         "--orderbook", o,        "--date",  "2012-06-21", "--symbol",
                         "DAY1",        "-o",     h5,        NULL,         NULL};
    cr_assert_eq(tu_run(dup, &out, &err), 1);
    cr_assert(strstr(err, "DAY1") && strstr(err, "already"), "%s", err);
    free(out);
    free(err);
    dup[13] = "--replace";
    cr_assert_eq(tu_run(dup, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    char names[4][MM_SYMBOL_MAX];
    int count = 0;
    mm_error e = {0};
    cr_assert_eq(mm_ticks_list(h5, names, 4, &count, &e), 0, "%s", e.msg);
    cr_assert_eq(count, 2);
}

Test(lobster, halt_rows_keep_the_book_and_carry_no_trade)
{
    const char *msg[7], *ob[7];
    for (int i = 0; i < 5; i++)
        msg[i] = MSG[i], ob[i] = OB[i];
    msg[5] = "34200.6,7,0,0,-1,-1"; /* trading halt */
    msg[6] = "34200.9,7,0,0,1,-1";  /* trading resumes */
    ob[5] = ob[6] = OB[4];
    const char *m = write_lines("m.csv", msg, 7, -1, NULL),
               *o = write_lines("o.csv", ob, 7, -1, NULL);
    mm_import_opts opt;
    mm_import_opts_init(&opt);
    opt.symbol = "FIX";
    opt.date = "2012-06-21";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_lobster(m, o, &opt, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 7);
    cr_assert_eq(rep.halts, 2);
    cr_assert_eq(rep.msg_by_type[7], 2);
    for (int i = 5; i < 7; i++) {
        cr_assert_eq(t.trade_sz[i], 0);
        cr_assert_eq(t.bid_px[i], t.bid_px[4]);
        cr_assert_eq(t.bid_sz[i], t.bid_sz[4]);
        cr_assert_eq(t.ask_px[i], MM_PX_NONE_ASK);
    }
    mm_ticks_free(&t);
    /* A halt row whose book moved, and a halt message with a price other than -1, 0, 1. */
    expect_fail(m, write_lines("o.csv", ob, 7, 5, "9999999999,0,1000000,61"),
                NEEDLES("m.csv:6:", "the bid side changed"));
    msg[5] = "34200.6,7,0,0,2,-1";
    expect_fail(write_lines("m.csv", msg, 7, -1, NULL), write_lines("o.csv", ob, 7, -1, NULL),
                NEEDLES("m.csv:6:", "halt message"));
}
