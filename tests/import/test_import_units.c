/* Unit tests of the importer internals: exact decimals, New York time, the JSON scanner, the line
 * reader. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "import_internal.h"
#include "testutil.h"

TestSuite(units, .fini = tu_cleanup);

static int64_t units(const char *s, const char *unit, int *rc)
{
    mm__dec u;
    cr_assert_eq(mm__dec_unit(unit, &u), 0, "%s", unit);
    int64_t v = -777;
    *rc = mm__dec_to_units(s, strlen(s), &u, &v);
    return v;
}

Test(units, decimal_strings_convert_exactly)
{
    int rc;
    cr_assert_eq(units("61800.20", "0.1", &rc), 618002);
    cr_assert_eq(rc, 0);
    cr_assert_eq(units("0.3", "0.1", &rc), 3); /* 0.3 / 0.1 in doubles is 2.9999999999999996 */
    cr_assert_eq(units("0.014", "0.001", &rc), 14);
    cr_assert_eq(units("20.004", "0.001", &rc), 20004);
    cr_assert_eq(units("-1.5", "0.5", &rc), -3);
    cr_assert_eq(units("100", "25", &rc), 4);
    cr_assert_eq(units("0.000", "0.001", &rc), 0);
    cr_assert_eq(units("007.50", "0.01", &rc), 750);
    cr_assert_eq(units("1.23456789", "0.00000001", &rc), 123456789);
    units("61800.25", "0.1", &rc);
    cr_assert_eq(rc, -2, "not a multiple of the tick");
    units("0.0005", "0.001", &rc);
    cr_assert_eq(rc, -2);
    const char *bad[] = {"",    ".5", "5.", "1e3",  "abc", "1.2.3",
                         "--1", " 1", "1 ", "0x10", "+",   "1,5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        units(bad[i], "0.1", &rc);
        cr_assert_eq(rc, -1, "'%s' must be rejected", bad[i]);
    }
    units("99999999999999999999", "1", &rc);
    cr_assert_eq(rc, -3, "more than 19 significant digits");
    cr_assert_eq(units("1723161256493434054", "1", &rc), INT64_C(1723161256493434054));
    units("9223372036854775808", "1", &rc);
    cr_assert_eq(rc, -3, "over INT64_MAX");
    cr_assert_eq(units("9223372036.85477580", "0.000000001", &rc), INT64_C(9223372036854775800));
    cr_assert_eq(rc, 0);
    units("9223372036.85477581", "0.0000000001", &rc);
    cr_assert_eq(rc, -3, "overflow in the scaling");
    mm__dec u;
    cr_assert_neq(mm__dec_unit("0", &u), 0);
    cr_assert_neq(mm__dec_unit("-0.1", &u), 0);
    cr_assert_eq(mm__dec_unit("0.10", &u), 0);
    cr_assert_eq(mm__dec_double(&u), 0.1);
}

Test(units, new_york_offsets_follow_the_us_rules)
{
    int off;
    /* 2012: DST from Sunday 11 March 02:00 to Sunday 4 November 02:00. */
    cr_assert(mm__ny_utc_offset(2012, 6, 21, 34200, &off));
    cr_assert_eq(off, -4 * 3600);
    mm__ny_utc_offset(2012, 1, 10, 34200, &off);
    cr_assert_eq(off, -5 * 3600);
    mm__ny_utc_offset(2012, 3, 10, 34200, &off);
    cr_assert_eq(off, -5 * 3600, "the day before the switch");
    mm__ny_utc_offset(2012, 3, 11, 3600, &off);
    cr_assert_eq(off, -5 * 3600, "01:00 on the spring day is still EST");
    mm__ny_utc_offset(2012, 3, 11, 34200, &off);
    cr_assert_eq(off, -4 * 3600);
    mm__ny_utc_offset(2012, 11, 4, 3600, &off);
    cr_assert_eq(off, -4 * 3600, "the repeated hour is read as its first occurrence (EDT)");
    mm__ny_utc_offset(2012, 11, 4, 34200, &off);
    cr_assert_eq(off, -5 * 3600);
    mm__ny_utc_offset(2024, 3, 10, 34200, &off); /* second Sunday of March 2024 */
    cr_assert_eq(off, -4 * 3600);
    mm__ny_utc_offset(2024, 3, 9, 34200, &off);
    cr_assert_eq(off, -5 * 3600);
    mm__ny_utc_offset(2024, 11, 3, 34200, &off); /* first Sunday of November 2024 */
    cr_assert_eq(off, -5 * 3600);
    /* 1987-2006 rules: first Sunday of April (2 April 2006) to last Sunday of October (29 October
     * 2006). */
    mm__ny_utc_offset(2006, 4, 1, 34200, &off);
    cr_assert_eq(off, -5 * 3600);
    mm__ny_utc_offset(2006, 4, 2, 34200, &off);
    cr_assert_eq(off, -4 * 3600);
    mm__ny_utc_offset(2006, 10, 28, 34200, &off);
    cr_assert_eq(off, -4 * 3600);
    mm__ny_utc_offset(2006, 10, 29, 34200, &off);
    cr_assert_eq(off, -5 * 3600);
    mm__ny_utc_offset(2006, 11, 2, 34200, &off);
    cr_assert_eq(off, -5 * 3600, "November 2006 is EST under the old rules");
    cr_assert_eq(mm__ny_utc_offset(1980, 6, 1, 0, &off), 0, "no rules before 1987");
    int64_t ns;
    cr_assert_eq(mm__ny_to_utc_ns(2012, 6, 21, INT64_C(34200017459617), &ns), 0);
    cr_assert_eq(ns, INT64_C(1340285400017459617)); /* 2012-06-21T13:30:00.017459617Z */
    cr_assert_eq(mm__days_from_civil(1970, 1, 1), 0);
    cr_assert_eq(mm__days_from_civil(2000, 3, 1), 11017);
    int y, m, d;
    cr_assert_eq(mm__parse_date("2012-02-29", &y, &m, &d), 0);
    cr_assert_neq(mm__parse_date("2013-02-29", &y, &m, &d), 0);
    cr_assert_neq(mm__parse_date("2012-6-21", &y, &m, &d), 0);
}

static int jparse(const char *s, char *why)
{
    mm__json j = {0};
    int rc = mm__json_parse(&j, s, strlen(s), why, 128);
    mm__json_free(&j);
    return rc;
}

Test(units, json_scanner_accepts_valid_and_finds_fields)
{
    const char *s =
        "{\"stream\":\"x\",\"data\":{\"e\":\"trade\",\"T\":1723161256322,\"p\":\"61800.30\","
        "\"m\":false,\"b\":[[\"1.0\",\"2\"],[]],\"n\":null,\"f\":-1.5e+3}}";
    mm__json j = {0};
    char why[128];
    cr_assert_eq(mm__json_parse(&j, s, strlen(s), why, sizeof why), 0, "%s", why);
    int32_t d = mm__json_get(&j, 0, "data");
    cr_assert_geq(d, 0);
    cr_assert_eq(j.tok[d].type, MM_J_OBJ);
    int64_t t;
    cr_assert_eq(mm__json_u64(&j, mm__json_get(&j, d, "T"), &t), 0);
    cr_assert_eq(t, INT64_C(1723161256322));
    int32_t p = mm__json_get(&j, d, "p");
    cr_assert_eq(j.tok[p].len, 8);
    cr_assert(!memcmp(s + j.tok[p].start, "61800.30", 8));
    cr_assert_eq(j.tok[mm__json_get(&j, d, "m")].type, MM_J_FALSE);
    int32_t b = mm__json_get(&j, d, "b");
    cr_assert_eq(j.tok[b].count, 2);
    int32_t l0 = mm__json_child(&j, b), l1 = mm__json_sibling(&j, b, l0);
    cr_assert_eq(j.tok[l0].count, 2);
    cr_assert_eq(j.tok[l1].count, 0);
    cr_assert_eq(mm__json_sibling(&j, b, l1), -1);
    cr_assert_eq(mm__json_get(&j, d, "missing"), -1);
    cr_assert_eq(mm__json_get(&j, 0, "e"), -1, "keys are looked up in the given object only");
    cr_assert_neq(mm__json_u64(&j, mm__json_get(&j, d, "f"), &t), 0);
    mm__json_free(&j);
    cr_assert_eq(jparse(" [1, 2.5, \"\\u00e9\\n\", true, {}] ", why), 0, "%s", why);
    cr_assert_eq(jparse("\"caf\xc3\xa9\"", why), 0, "%s", why);
}

Test(units, json_scanner_rejects_what_rfc8259_forbids)
{
    const char *bad[] = {"",           "{",          "{\"a\":1,}",     "[1,]",
                         "{'a':1}",    "{\"a\" 1}",  "[01]",           "[1.]",
                         "[.5]",       "[1e]",       "[NaN]",          "[tru]",
                         "\"a\tb\"",   "\"\\x\"",    "\"\\u12g4\"",    "[1] [2]",
                         "{\"a\":1}x", "[\"\xff\"]", "[\"\xc0\xaf\"]", "{\"a\":1 /* c */}",
                         "{1:2}",      "[+1]",       "garbage"};
    char why[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(jparse(bad[i], why), -1, "'%s' must be rejected", bad[i]);
    cr_assert_eq(jparse("{\"a\":[1,2,}", why), -1);
    cr_assert(strstr(why, "column 11"), "%s", why);
    char deep[200];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    deep[199] = 0;
    cr_assert_eq(jparse(deep, why), -1);
}

Test(units, line_reader_reads_gzip_and_plain_and_detects_truncation)
{
    const char *gzp = tu_path("a.gz"), *plain = tu_path("a.txt"), *cut = tu_path("cut.gz");
    gzFile g = gzopen(gzp, "wb");
    for (int i = 0; i < 100000; i++)
        gzprintf(g, "line %d,%d\r\n", i, i * 7);
    gzprintf(g, "last");
    gzclose(g);
    FILE *f = fopen(plain, "w");
    fputs("one\ntwo\n\nfour", f);
    fclose(f);
    mm__lines r;
    mm_error e = {0};
    char *s;
    size_t n;
    cr_assert_eq(mm__lines_open(&r, gzp, &e), 0);
    int64_t k = 0;
    char want[64];
    while (mm__lines_next(&r, &s, &n, &e) == 1) {
        if (k < 100000)
            snprintf(want, sizeof want, "line %ld,%ld", (long)k, (long)k * 7);
        else
            snprintf(want, sizeof want, "last");
        cr_assert_str_eq(s, want);
        cr_assert_eq(n, strlen(want));
        k++;
    }
    cr_assert_eq(k, 100001);
    mm__lines_close(&r);
    cr_assert_eq(mm__lines_open(&r, plain, &e), 0);
    const char *exp[] = {"one", "two", "", "four"};
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(mm__lines_next(&r, &s, &n, &e), 1);
        cr_assert_str_eq(s, exp[i]);
    }
    cr_assert_eq(mm__lines_next(&r, &s, &n, &e), 0);
    mm__lines_close(&r);
    /* Truncate the gzip file to half its size. */
    FILE *in = fopen(gzp, "rb");
    fseek(in, 0, SEEK_END);
    long sz = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *buf = malloc((size_t)sz);
    cr_assert_eq(fread(buf, 1, (size_t)sz, in), (size_t)sz);
    fclose(in);
    FILE *o = fopen(cut, "wb");
    fwrite(buf, 1, (size_t)sz / 2, o);
    fclose(o);
    free(buf);
    cr_assert_eq(mm__lines_open(&r, cut, &e), 0);
    int rc;
    while ((rc = mm__lines_next(&r, &s, &n, &e)) == 1) {
    }
    cr_assert_eq(rc, MM_EFORMAT);
    cr_assert(strstr(e.msg, "cut.gz:") && strstr(e.msg, "truncated"), "%s", e.msg);
    mm__lines_close(&r);
    cr_assert_lt(mm__lines_open(&r, tu_path("missing"), &e), 0);
}

/* The lines of `path` joined by '|', or the error message. */
static void read_all(const char *path, char *got, size_t cap, int *rc)
{
    mm__lines r;
    mm_error e = {0};
    got[0] = 0;
    *rc = mm__lines_open(&r, path, &e);
    if (*rc) {
        snprintf(got, cap, "%.400s", e.msg);
        return;
    }
    char *s;
    size_t n;
    while ((*rc = mm__lines_next(&r, &s, &n, &e)) == 1) {
        strncat(got, s, cap - strlen(got) - 2);
        strcat(got, "|");
    }
    if (*rc) snprintf(got, cap, "%.400s", e.msg);
    mm__lines_close(&r);
}

static void write_gz(const char *path, const char *mode, const char *text)
{
    gzFile g = gzopen(path, mode);
    gzputs(g, text);
    gzclose(g);
}

static void append_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "ab");
    fwrite(bytes, 1, n, f);
    fclose(f);
}

Test(units, line_reader_gzip_members_trailing_data_and_names)
{
    char got[512];
    int rc;
    /* Two members one after the other (cat a.gz b.gz) are one stream. */
    const char *two = tu_path("two.gz");
    write_gz(two, "wb", "a\nb\n");
    write_gz(two, "ab", "c\n");
    read_all(two, got, sizeof got, &rc);
    cr_assert_eq(rc, 0, "%s", got);
    cr_assert_str_eq(got, "a|b|c|");
    /* A member followed by garbage: gzread stopped silently; refused now. */
    const char *tail = tu_path("tail.gz");
    write_gz(tail, "wb", "a\nb\n");
    FILE *f = fopen(tail, "rb");
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fclose(f);
    append_bytes(tail, "garbage\n", 8);
    read_all(tail, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT, "%s", got);
    char want[256];
    snprintf(want, sizeof want,
             "tail.gz: trailing data after the end of the gzip stream (at byte %ld of the file; "
             "the file is corrupt or two files were joined)",
             sz);
    cr_assert(strstr(got, want), "%s", got);
    /* One stray byte after the member is trailing data too. */
    write_gz(tail, "wb", "a\n");
    append_bytes(tail, "\x1f", 1);
    read_all(tail, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT, "%s", got);
    cr_assert(strstr(got, "trailing data"), "%s", got);
    /* A second gzip header cut short is a truncated stream. */
    write_gz(tail, "wb", "a\n");
    append_bytes(tail, "\x1f\x8b\x08", 3);
    read_all(tail, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT, "%s", got);
    cr_assert(strstr(got, "truncated or corrupt"), "%s", got);
    /* Corrupt deflate data. */
    const char *bad = tu_path("bad.gz");
    write_gz(bad, "wb", "hello world, hello world\n");
    f = fopen(bad, "r+b");
    fseek(f, 12, SEEK_SET);
    fputc(0xff, f);
    fputc(0xff, f);
    fclose(f);
    read_all(bad, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT, "%s", got);
    cr_assert(strstr(got, "bad.gz:1: gzip: ") && strstr(got, "(truncated or corrupt file)"), "%s",
              got);
    /* A .gz name must be gzip; any other name may be either. */
    const char *plain_gz = tu_path("plain.gz"), *gz_txt = tu_path("gz.txt");
    f = fopen(plain_gz, "w");
    fputs("x,y\n", f);
    fclose(f);
    read_all(plain_gz, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT);
    cr_assert(strstr(got, "plain.gz: not a gzip file (it does not start with the gzip magic bytes "
                          "1f 8b; the name ends in .gz)"),
              "%s", got);
    write_gz(gz_txt, "wb", "p\nq");
    read_all(gz_txt, got, sizeof got, &rc);
    cr_assert_eq(rc, 0, "%s", got);
    cr_assert_str_eq(got, "p|q|");
    /* Empty files: a plain one has no lines; an empty .gz is not gzip. */
    const char *empty = tu_path("empty.txt"), *empty_gz = tu_path("empty.GZ");
    fclose(fopen(empty, "w"));
    fclose(fopen(empty_gz, "w"));
    read_all(empty, got, sizeof got, &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(got, "");
    read_all(empty_gz, got, sizeof got, &rc);
    cr_assert_eq(rc, MM_EFORMAT);
    cr_assert(strstr(got, "empty.GZ: not a gzip file (it is empty"), "%s", got);
}
