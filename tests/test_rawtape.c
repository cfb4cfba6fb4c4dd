/* The raw tape (docs/formats.md, "Raw tape (.mmtape)"): `mmsim export TAPE.h5 -o F.mmtape` writes
 * what mm_ticks_load reads, bit for bit, and mm_ticks_load_raw reads it back; a truncated, edited
 * or foreign file is refused with a one-line error naming it; the CLI's options and refusals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(rawtape, .fini = tu_cleanup);

/* Every column and attribute the raw tape carries. */
static void assert_same(const mm_ticks *a, const mm_ticks *b)
{
    tu_assert_same_ticks(a, b);
    cr_assert_str_eq(a->inst.source, b->inst.source);
    cr_assert_eq(a->inst.year_s, b->inst.year_s);
    cr_assert_eq(a->inst.allow_crossed, b->inst.allow_crossed);
}

/* A tick file of n rows with instrument TST (year_seconds recorded); returns its path. */
static const char *tick_file(int64_t n)
{
    mm_ticks t = {0};
    tu_small_tape(&t, n, 11);
    t.inst.year_s = 252 * 6.5 * 3600;
    mm_error e = {0};
    const char *p = tu_path("t.h5");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    return p;
}

static long file_size(const char *p)
{
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0, "%s", p);
    return (long)sb.st_size;
}

/* The file's bytes with one byte changed at offset off (or cut to size cut >= 0) written to dst. */
static void edited_copy(const char *src, const char *dst, long off, long cut)
{
    FILE *f = fopen(src, "rb");
    cr_assert_not_null(f);
    long n = file_size(src);
    char *b = malloc((size_t)n);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    if (off >= 0) b[off] ^= 0x5a;
    f = fopen(dst, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, (size_t)(cut >= 0 ? cut : n), f), (size_t)(cut >= 0 ? cut : n));
    fclose(f);
    free(b);
}

Test(rawtape, export_writes_what_the_tick_file_holds_and_load_raw_reads_it_back)
{
    const char *h5 = tick_file(20011);
    const char *raw = tu_path("t.mmtape");
    const char *a[] = {"mmsim", "export", h5, "-o", raw, NULL};
    char *err = NULL;
    cr_assert_eq(tu_run(a, NULL, &err), 0, "%s", err);
    free(err);
    cr_assert_eq(file_size(raw), 256 + 33 * 20011L, "header + 33 bytes a row");
    mm_ticks t = {0}, r = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load(h5, NULL, 0, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_load_raw(raw, &r, &e), 0, "%s", e.msg);
    assert_same(&t, &r);
    cr_assert_eq(r.inst.year_s, 252 * 6.5 * 3600);
    /* The library writer gives the same bytes as the command. */
    const char *raw2 = tu_path("t2.mmtape");
    FILE *f = fopen(raw2, "wb");
    cr_assert_eq(mm_ticks_write_raw(f, &t, &e), 0, "%s", e.msg);
    fclose(f);
    cr_assert_eq(file_size(raw2), file_size(raw));
    mm_ticks_free(&t);
    mm_ticks_free(&r);
}

Test(rawtape, an_empty_tape_round_trips)
{
    const char *h5 = tick_file(0);
    const char *raw = tu_path("e.mmtape");
    const char *a[] = {"mmsim", "export", h5, "--mmtape", "-o", raw, NULL};
    cr_assert_eq(tu_run(a, NULL, NULL), 0);
    mm_ticks r = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load_raw(raw, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.n, 0);
    cr_assert_str_eq(r.inst.symbol, "TST");
    mm_ticks_free(&r);
}

Test(rawtape, a_damaged_file_is_refused_naming_it)
{
    const char *h5 = tick_file(1000);
    char raw[512]; /* tu_path's buffers rotate */
    snprintf(raw, sizeof raw, "%s", tu_path("ok.mmtape"));
    const char *a[] = {"mmsim", "export", h5, "-o", raw, NULL};
    cr_assert_eq(tu_run(a, NULL, NULL), 0);
    long n = file_size(raw);
    struct {
        long off, cut;
        int code;
        const char *msg;
    } cases[] = {
        {-1, n - 1, MM_EFORMAT, "truncated"},          /* one byte short */
        {-1, 100, MM_EFORMAT, "not a raw tape"},       /* shorter than the header */
        {0, -1, MM_EFORMAT, "not a raw tape"},         /* the magic */
        {9, -1, MM_EFORMAT, "rows need"},              /* the row count */
        {57, -1, MM_EFORMAT, "symbol"},                /* a symbol character */
        {60, -1, MM_EFORMAT, "symbol"},                /* the symbol's padding */
        {200, -1, MM_EFORMAT, "corrupt"},              /* the source's padding */
        {256 + 8 * 500, -1, MM_ECHECKSUM, "checksum"}, /* a timestamp */
        {n - 1, -1, MM_ECHECKSUM, "checksum"},         /* the last trade side */
        {249, -1, MM_ECHECKSUM, "checksum"},           /* the checksum itself */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *bad = tu_path("bad.mmtape");
        edited_copy(raw, bad, cases[k].off, cases[k].cut);
        mm_ticks r = {0};
        mm_error e = {0};
        int rc = mm_ticks_load_raw(bad, &r, &e);
        cr_assert_eq(rc, cases[k].code, "case %zu: rc %d: %s", k, rc, e.msg);
        cr_assert(strstr(e.msg, bad) && strstr(e.msg, cases[k].msg), "case %zu: %s", k, e.msg);
        cr_assert_null(strchr(e.msg, '\n'));
        cr_assert_null(r.ts_ns, "nothing is left allocated");
    }
    /* Columns that pass the checksum but break a validation rule (a negative size). */
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load_raw(raw, &t, &e), 0, "%s", e.msg);
    t.bid_sz[10] = -1;
    FILE *f = fopen(tu_path("neg.mmtape"), "wb");
    cr_assert_eq(mm_ticks_write_raw(f, &t, &e), 0);
    fclose(f);
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load_raw(tu_path("neg.mmtape"), &r, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "bid_sz") && strstr(e.msg, "row 10"), "%s", e.msg);
    mm_ticks_free(&t);
    /* Not a file. */
    cr_assert_neq(mm_ticks_load_raw(tu_tmpdir(), &r, &e), 0);
    cr_assert_neq(mm_ticks_load_raw(tu_path("absent.mmtape"), &r, &e), 0);
    cr_assert(strstr(e.msg, "absent.mmtape"), "%s", e.msg);
}

Test(rawtape, the_command_refuses_what_it_cannot_write)
{
    const char *h5 = tick_file(100);
    struct {
        const char *argv[8];
        const char *msg;
    } cases[] = {
        {{"mmsim", "export", h5, "--mmtape", NULL}, "give -o FILE.mmtape"},
        {{"mmsim", "export", h5, "--mmtape", "-o", h5, NULL}, "-o"},
        {{"mmsim", "export", h5, "--csv", "--mmtape", "-o", "x", NULL}, "choose one"},
        {{"mmsim", "export", h5, "--comments", "-o", "x.mmtape", NULL}, "--comments"},
        {{"mmsim", "export", h5, "--symbol", "NOPE", "-o", "x.mmtape", NULL}, "NOPE"},
        {{"mmsim", "export", h5, "-o", "x.bin", NULL}, "--mmtape"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *err = NULL;
        int rc = tu_run(cases[k].argv, NULL, &err);
        cr_assert_neq(rc, 0, "case %zu", k);
        cr_assert(err && strstr(err, cases[k].msg), "case %zu: %s", k, err);
        cr_assert_eq(tu_lines(err), 1, "case %zu: one line: %s", k, err);
        free(err);
    }
    /* An HDF5 file is never replaced by a raw tape. */
    const char *other = tu_path("other.h5");
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 3);
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(other, &t, NULL, &e), 0);
    mm_ticks_free(&t);
    const char *a[] = {"mmsim", "export", h5, "--mmtape", "-o", other, NULL};
    char *err = NULL;
    cr_assert_eq(tu_run(a, NULL, &err), 2 /* usage */, "%s", err);
    cr_assert(strstr(err, "HDF5"), "%s", err);
    free(err);
    /* --symbol picks the instrument. */
    const char *b[] = {"mmsim", "export", h5, "--symbol", "TST", "-o", tu_path("s.mmtape"), NULL};
    cr_assert_eq(tu_run(b, NULL, NULL), 0);
}
