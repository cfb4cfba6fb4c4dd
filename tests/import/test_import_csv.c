/* Generic CSV importer: mapping by header name and by column number, trade-only lines, ISO and
 * decimal times, and malformed lines through the CLI. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmsim/import.h"
#include "testutil.h"

TestSuite(csv, .fini = tu_cleanup);

static const char *write_text(const char *name, const char *text)
{
    const char *p = tu_path(name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

static const char GOOD[] = "time,bp,bq,ap,aq,px,qty,side\n"
                           "1.000000001,100.01,5,100.03,7,,,\n"
                           "1.5,,,,,100.03,2,B\n"
                           "2,100.01,5,100.03,5,,,\n"
                           "2,100.00,0,100.03,5,100.01,5,sell\n";
static const char MAP[] =
    "ts=time,bid=bp,bid_sz=bq,ask=ap,ask_sz=aq,trade_px=px,trade_sz=qty,side=side";

static int import(const char *path, const char *map, const char *time, int no_header, mm_ticks *t,
                  mm_error *e)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "CSV";
    o.tick = "0.01";
    o.lot = "1";
    o.csv_map = map;
    o.csv_time = time;
    o.csv_no_header = no_header;
    mm_import_report rep;
    return mm_import_csv(path, &o, t, &rep, e);
}

Test(csv, quotes_and_trades_map_by_header_name)
{
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import(write_text("a.csv", GOOD), MAP, "s", 0, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 4);
    cr_assert_eq(t.ts_ns[0], 1000000001);
    cr_assert_eq(t.bid_px[0], 10001);
    cr_assert_eq(t.ask_px[0], 10003);
    cr_assert_eq(t.ask_sz[0], 7);
    /* trade-only line keeps the quote */
    cr_assert_eq(t.ts_ns[1], 1500000000);
    cr_assert_eq(t.bid_px[1], 10001);
    cr_assert_eq(t.ask_sz[1], 7);
    cr_assert_eq(t.trade_px[1], 10003);
    cr_assert_eq(t.trade_sz[1], 2);
    cr_assert_eq(t.trade_side[1], 1);
    cr_assert_eq(t.trade_sz[2], 0);
    cr_assert_eq(t.bid_px[3], MM_PX_NONE_BID, "size 0 empties the side");
    cr_assert_eq(t.trade_side[3], -1);
    cr_assert_eq(mm_ticks_validate(&t, "x", &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
}

/* Issue 27: a spreadsheet's export starts with a UTF-8 byte order mark; the header's first name
 * ("time") was read as "\xEF\xBB\xBFtime" and the map did not find it. The same file, same tape. */
Test(csv, a_byte_order_mark_before_the_header_is_skipped)
{
    mm_ticks t, b;
    mm_error e = {0};
    cr_assert_eq(import(write_text("a.csv", GOOD), MAP, "s", 0, &t, &e), 0, "%s", e.msg);
    char bom[sizeof GOOD + 3] = "\xEF\xBB\xBF";
    strcat(bom, GOOD);
    cr_assert_eq(import(write_text("bom.csv", bom), MAP, "s", 0, &b, &e), 0, "%s", e.msg);
    cr_assert_eq(b.n, t.n);
    cr_assert_eq(b.inst.fingerprint, t.inst.fingerprint);
    mm_ticks_free(&t);
    mm_ticks_free(&b);
}

Test(csv, numbered_columns_iso_times_and_tabs)
{
    const char *p = write_text("b.tsv", "2024-08-08T23:54:16.493Z\t61800.2\t2.5\t61800.3\t1\n"
                                        "2024-08-09T01:54:16.5+02:00\t61800.1\t2.5\t61800.3\t1\n");
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "X";
    o.tick = "0.1";
    o.lot = "0.5";
    o.csv_map = "ts=1,bid=2,bid_sz=3,ask=4,ask_sz=5";
    o.csv_time = "iso";
    o.csv_delim = '\t';
    o.csv_no_header = 1;
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_csv(p, &o, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(t.n, 2);
    cr_assert_eq(t.ts_ns[0], INT64_C(1723161256493000000));
    cr_assert_eq(t.ts_ns[1], INT64_C(1723161256500000000));
    cr_assert_eq(t.bid_px[0], 618002);
    cr_assert_eq(t.bid_sz[0], 5);
    cr_assert_eq(t.ask_sz[0], 2);
    mm_ticks_free(&t);
}

static void expect_fail(const char *path, const char *time, const char *const *needles, int want_rc)
{
    const char *argv[] = {
        "mmsim",    "import", "csv",    "-i",   path,    "--map", MAP,  "--time",          time,
        "--symbol", "CSV",    "--tick", "0.01", "--lot", "1",     "-o", tu_path("out.h5"), NULL};
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, want_rc, "exit %d: %s", rc, err);
    cr_assert_eq(tu_lines(err), 1, "one line: %s", err);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(err, needles[i]), "'%s' not in: %s", needles[i], err);
    struct stat st;
    cr_assert_neq(stat(tu_path("out.h5"), &st), 0, "no output file may be left");
    free(out);
    free(err);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(csv, malformed_lines_are_errors_with_file_and_line)
{
    expect_fail(write_text("s.csv", "time,bp,bq,ap,aq,px,qty,side\n1,1,1,2,1,,,\n2,1,1,2\n"), "s",
                NEEDLES("s.csv:3:", "short row"), 1);
    expect_fail(write_text("n.csv", "time,bp,bq,ap,aq,px,qty,side\n1,1,1,2,1,,,\n2,1,x,2,1,,,\n"),
                "s", NEEDLES("n.csv:3:", "field bid_sz", "not a decimal"), 1);
    expect_fail(write_text("u.csv", "time,bp,bq,ap,aq,px,qty,side\n2,1,1,2,1,,,\n1,1,1,2,1,,,\n"),
                "s", NEEDLES("u.csv:3:", "before the previous"), 1);
    expect_fail(write_text("c.csv", "time,bp,bq,ap,aq,px,qty,side\n2,2,1,2,1,,,\n"), "s",
                NEEDLES("c.csv:2:", "crossed or locked"), 1);
    expect_fail(write_text("t.csv", "time,bp,bq,ap,aq,px,qty,side\n2,1,1,2,1,1.005,1,B\n"), "s",
                NEEDLES("t.csv:2:", "multiple of the tick"), 1);
    expect_fail(
        write_text("i.csv", "time,bp,bq,ap,aq,px,qty,side\n2024-01-01T00:00:00,1,1,2,1,,,\n"),
        "iso", NEEDLES("i.csv:2:", "ISO-8601"), 1);
    expect_fail(write_text("h.csv", "time,bp,bq,ask,aq,px,qty,side\n1,1,1,2,1,,,\n"), "s",
                NEEDLES("--map", "ap", "no such column"), 2);
}

Test(csv, skip_bad_counts_and_usage_errors)
{
    const char *p = write_text(
        "k.csv", "time,bp,bq,ap,aq,px,qty,side\n1,1,1,2,1,,,\n2,1,x,2,1,,,\n3,1,1,2,1,,,\n");
    const char *argv[] = {"mmsim",
                          "import",
                          "csv",
                          "-i",
                          p,
                          "--map",
                          MAP,
                          "--time",
                          "ms",
                          "--symbol",
                          "CSV",
                          "--tick",
                          "0.01",
                          "--lot",
                          "1",
                          "-o",
                          tu_path("out.h5"),
                          "--skip-bad",
                          NULL};
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "2 rows") && strstr(out, "skipped 1 bad lines") &&
                  strstr(out, "k.csv:3:"),
              "%s", out);
    free(out);
    free(err);
    const char *bad[] = {
        "mmsim", "import", "csv",  "-i",    p,   "--map", "ts=time,bid=bp", "--symbol",
        "CSV",   "--tick", "0.01", "--lot", "1", "-o",    tu_path("o2.h5"), NULL};
    cr_assert_eq(tu_run(bad, &out, &err), 2);
    cr_assert(strstr(err, "--map") && strstr(err, "bid_sz"), "%s", err);
    free(out);
    free(err);
    mm_ticks t;
    mm_error e = {0};
    cr_assert_eq(import(p, "ts=time,bid=bp,bid_sz=bq,ask=ap,ask_sz=aq,trade_px=px", "s", 0, &t, &e),
                 MM_EUSAGE);
    cr_assert(strstr(e.msg, "go together"), "%s", e.msg);
}

Test(csv, cli_help_usage_and_empty_inputs)
{
    char *out, *err;
    const char *help[] = {"mmsim", "import", "--help", NULL};
    cr_assert_eq(tu_run(help, &out, &err), 0);
    cr_assert(strstr(out, "mmsim import lobster") && strstr(out, "--skip-gaps") &&
                  strstr(out, "--map"),
              "%s", out);
    free(out);
    free(err);
    const char *fmt[] = {"mmsim", "import", "parquet", NULL};
    cr_assert_eq(tu_run(fmt, &out, &err), 2);
    cr_assert(strstr(err, "unknown format 'parquet'"), "%s", err);
    free(out);
    free(err);
    const char *miss[] = {"mmsim",    "import", "binance", "-i",   "x.gz",
                          "--symbol", "X",      "-o",      "o.h5", NULL};
    cr_assert_eq(tu_run(miss, &out, &err), 2);
    cr_assert(strstr(err, "--tick and --lot are required"), "%s", err); /* every one at once */
    free(out);
    free(err);
    const char *badtick[] = {"mmsim", "import", "csv",      "-i", write_text("e.csv", "a\n"),
                             "--map", MAP,      "--symbol", "X",  "--tick",
                             "0",     "--lot",  "1",        "-o", tu_path("o.h5"),
                             NULL};
    cr_assert_eq(tu_run(badtick, &out, &err), 2);
    cr_assert(strstr(err, "--tick"), "%s", err);
    free(out);
    free(err);
    expect_fail(write_text("empty.csv", "time,bp,bq,ap,aq,px,qty,side\n"), "s",
                NEEDLES("empty.csv:2:", "no data"), 1);
    expect_fail(tu_path("absent.csv"), "s", NEEDLES("absent.csv", "No such file"), 1);
}

Test(csv, gz_name_that_is_not_gzip_says_so)
{
    /* Used to be read as text and fail with "no such column in header". */
    expect_fail(write_text("q.csv.gz", "\x01\x02garbage, not gzip\n"), "s",
                NEEDLES("q.csv.gz: not a gzip file (it does not start with the gzip magic bytes 1f "
                        "8b; the name ends in .gz)"),
                1);
    expect_fail(write_text("e.csv.gz", ""), "s",
                NEEDLES("e.csv.gz: not a gzip file (it is empty; the name ends in .gz)"), 1);
    /* Two -i for csv: a usage error. */
    const char *p = write_text("g.csv", GOOD);
    const char *argv[] = {
        "mmsim",           "import", "csv",      "-i",  p,        "-i",   p,       "--map", MAP,
        "--time",          "s",      "--symbol", "CSV", "--tick", "0.01", "--lot", "1",     "-o",
        tu_path("out.h5"), NULL};
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 2, "%s", err);
    cr_assert_str_eq(err, "mmsim: import csv: -i/--input: given 2 times; csv reads one file\n");
    free(out);
    free(err);
}
