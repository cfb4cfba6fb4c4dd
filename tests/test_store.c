/* Tick store: round trips, appends, atomic writes, and one malformed file per validation rule, each
 * rejected by `mmsim info` with a one-line error naming file, instrument, column and row, exit 1. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(store, .fini = tu_cleanup);

static void assert_same(const mm_ticks *a, const mm_ticks *b)
{
    cr_assert_eq(a->n, b->n);
    for (int64_t i = 0; i < a->n; i++) {
        cr_assert_eq(a->ts_ns[i], b->ts_ns[i], "row %ld", (long)i);
        cr_assert_eq(a->bid_px[i], b->bid_px[i]);
        cr_assert_eq(a->ask_px[i], b->ask_px[i]);
        cr_assert_eq(a->bid_sz[i], b->bid_sz[i]);
        cr_assert_eq(a->ask_sz[i], b->ask_sz[i]);
        cr_assert_eq(a->trade_px[i], b->trade_px[i]);
        cr_assert_eq(a->trade_sz[i], b->trade_sz[i]);
        cr_assert_eq(a->trade_side[i], b->trade_side[i]);
    }
    cr_assert_eq(a->inst.fingerprint, b->inst.fingerprint);
    cr_assert_str_eq(a->inst.symbol, b->inst.symbol);
    cr_assert_eq(a->inst.tick_size, b->inst.tick_size);
    cr_assert_eq(a->inst.lot_size, b->inst.lot_size);
}

Test(store, round_trip_heap_and_shm_compressed_or_not)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 100003, 7);
    for (int comp = 0; comp <= 6; comp += 6) {
        const char *p = tu_path(comp ? "c.h5" : "u.h5");
        mm_write_opts o = {.compress_level = comp, .chunk_rows = 4096};
        mm_error e = {0};
        cr_assert_eq(mm_ticks_write(p, &t, &o, &e), 0, "%s", e.msg);
        cr_assert_eq(t.inst.fingerprint, mm_ticks_fingerprint(&t));
        for (int shm = 0; shm <= 1; shm++) {
            mm_ticks r = {0};
            cr_assert_eq(mm_ticks_load(p, "TST", shm ? MM_LOAD_SHM : 0, &r, &e), 0, "%s", e.msg);
            cr_assert_eq(r.mem_kind, shm ? MM_MEM_SHM : MM_MEM_HEAP);
            cr_assert_eq((uintptr_t)r.bid_sz % 64, 0);
            cr_assert_eq((uintptr_t)r.trade_side % 64, 0);
            cr_assert_eq((uintptr_t)r.ts_ns % 64, 0);
            assert_same(&t, &r);
            cr_assert_str_eq(r.inst.source, t.inst.source);
            mm_ticks_free(&r);
        }
    }
    mm_ticks_free(&t);
}

Test(store, empty_tape_round_trips)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 0, 1);
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(tu_path("e.h5"), &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(tu_path("e.h5"), NULL, 0, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.n, 0);
    mm_ticks_free(&r);
    mm_ticks_free(&t);
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

Test(store, append_instruments_replace_and_no_temp_left)
{
    mm_ticks a = {0}, b = {0};
    tu_small_tape(&a, 5000, 1);
    tu_small_tape(&b, 7000, 2);
    strcpy(b.inst.symbol, "OTHER");
    const char *p = tu_path("multi.h5");
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(p, &a, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_write(p, &b, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_write(p, &b, NULL, &e), -EEXIST);
    cr_assert(strstr(e.msg, "OTHER") && strstr(e.msg, "already"), "%s", e.msg);
    char syms[4][MM_SYMBOL_MAX];
    int count = 0;
    cr_assert_eq(mm_ticks_list(p, syms, 4, &count, &e), 0);
    cr_assert_eq(count, 2);
    cr_assert_str_eq(syms[0], "OTHER");
    cr_assert_str_eq(syms[1], "TST");
    /* Without a symbol, a two-instrument file is ambiguous. */
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(p, NULL, 0, &r, &e), MM_EUSAGE);
    /* Replace OTHER with a different tape. */
    mm_ticks c = {0};
    tu_small_tape(&c, 300, 3);
    strcpy(c.inst.symbol, "OTHER");
    mm_write_opts o = {.replace = 1};
    cr_assert_eq(mm_ticks_write(p, &c, &o, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_load(p, "OTHER", 0, &r, &e), 0, "%s", e.msg);
    assert_same(&c, &r);
    mm_ticks_free(&r);
    cr_assert_eq(mm_ticks_load(p, "TST", 0, &r, &e), 0, "%s", e.msg);
    assert_same(&a, &r);
    mm_ticks_free(&r);
    cr_assert_eq(count_files(tu_tmpdir()), 1, "a temporary file was left behind");
    mm_ticks_free(&a);
    mm_ticks_free(&b);
    mm_ticks_free(&c);
}

Test(store, invalid_tape_is_not_written)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 100, 1);
    t.bid_sz[50] = -3;
    mm_error e = {0};
    const char *p = tu_path("bad.h5");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "bid_sz") && strstr(e.msg, "row 50"), "%s", e.msg);
    struct stat st;
    cr_assert_neq(stat(p, &st), 0, "no output file may be left");
    cr_assert_eq(count_files(tu_tmpdir()), 0);
    mm_ticks_free(&t);
}

Test(store, fingerprint_depends_on_every_column)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 1000, 5);
    uint64_t f0 = mm_ticks_fingerprint(&t);
    int32_t *c32[6] = {t.bid_px, t.ask_px, t.bid_sz, t.ask_sz, t.trade_px, t.trade_sz};
    for (int i = 0; i < 6; i++) {
        c32[i][999] ^= 1;
        cr_assert_neq(mm_ticks_fingerprint(&t), f0, "column %d", i);
        c32[i][999] ^= 1;
    }
    t.ts_ns[0] += 1;
    cr_assert_neq(mm_ticks_fingerprint(&t), f0);
    t.ts_ns[0] -= 1;
    t.trade_side[3] ^= 2;
    cr_assert_neq(mm_ticks_fingerprint(&t), f0);
    t.trade_side[3] ^= 2;
    cr_assert_eq(mm_ticks_fingerprint(&t), f0);
    mm_ticks_free(&t);
}

/* ---- malformed files through the CLI ---- */

/* Run `mmsim info path` and check: exit 1, one line on stderr containing every needle. */
static void expect_reject(const char *path, const char *const *needles)
{
    const char *argv[] = {"mmsim", "info", path, NULL};
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 1, "exit %d, stderr: %s", rc, err);
    cr_assert_eq(tu_lines(err), 1, "stderr must be one line: %s", err);
    cr_assert(!strncmp(err, "mmsim: ", 7), "%s", err);
    for (int i = 0; needles[i]; i++) cr_assert(strstr(err, needles[i]), "'%s' not in: %s", needles[i], err);
    free(out);
    free(err);
}

/* Write t raw (fingerprint of the modified content, so only the rule under test fails). */
static const char *write_bad(mm_ticks *t, const char *name)
{
    const char *p = tu_path(name);
    t->inst.fingerprint = mm_ticks_fingerprint(t);
    tu_write_raw(p, t, NULL, NULL, 0, -1);
    return p;
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(store, rejects_decreasing_timestamps)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    t.ts_ns[120] = t.ts_ns[119] - 5;
    expect_reject(write_bad(&t, "ts.h5"), NEEDLES("ts.h5", "instrument TST", "column ts_ns", "row 120"));
    mm_ticks_free(&t);
}

Test(store, rejects_negative_sizes)
{
    const char *cols[3] = {"bid_sz", "ask_sz", "trade_sz"};
    for (int c = 0; c < 3; c++) {
        mm_ticks t = {0};
        tu_small_tape(&t, 200, 1);
        int64_t row = 77;
        if (c == 0) t.bid_sz[row] = -1;
        if (c == 1) t.ask_sz[row] = -1;
        if (c == 2) {
            t.trade_sz[row] = -4;
            t.trade_side[row] = 1;
            t.trade_px[row] = t.ask_px[row];
        }
        char name[64], col[64];
        snprintf(name, sizeof name, "neg_%s.h5", cols[c]);
        snprintf(col, sizeof col, "column %s", cols[c]);
        expect_reject(write_bad(&t, name), NEEDLES(name, col, "row 77", "negative"));
        mm_ticks_free(&t);
    }
}

Test(store, rejects_trade_side_out_of_set)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    t.trade_side[33] = 2;
    t.trade_sz[33] = 1;
    t.trade_px[33] = t.ask_px[33];
    expect_reject(write_bad(&t, "side.h5"), NEEDLES("column trade_side", "row 33", "value 2"));
    mm_ticks_free(&t);
}

Test(store, rejects_trade_size_without_side_and_side_without_size)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    int64_t r = 0;
    while (t.trade_sz[r] != 0) r++;
    t.trade_sz[r] = 5; /* size, no side */
    char row[32];
    snprintf(row, sizeof row, "row %ld", (long)r);
    expect_reject(write_bad(&t, "noside.h5"), NEEDLES("column trade_side", row));
    t.trade_sz[r] = 0;
    t.trade_side[r] = -1; /* side, no size */
    expect_reject(write_bad(&t, "nosize.h5"), NEEDLES("column trade_side", row));
    mm_ticks_free(&t);
}

Test(store, rejects_crossed_book_unless_allowed)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    t.bid_px[150] = t.ask_px[150];
    const char *p = write_bad(&t, "cross.h5");
    expect_reject(p, NEEDLES("column bid_px", "row 150", "crossed"));
    /* The same rows in a file that declares crossed books allowed load fine. */
    t.inst.allow_crossed = 1;
    p = write_bad(&t, "cross_ok.h5");
    const char *argv[] = {"mmsim", "info", p, NULL};
    char *out;
    cr_assert_eq(tu_run(argv, &out, NULL), 0);
    cr_assert(strstr(out, "1 crossed rows"), "%s", out);
    free(out);
    mm_ticks_free(&t);
}

Test(store, rejects_empty_side_without_sentinel_price)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    t.ask_sz[10] = 0; /* empty ask but a real price */
    expect_reject(write_bad(&t, "empty.h5"), NEEDLES("column ask_px", "row 10", "empty"));
    mm_ticks_free(&t);
}

Test(store, rejects_column_length_mismatch)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    const char *p = tu_path("len.h5");
    tu_write_raw(p, &t, NULL, "ask_sz", (int64_t)H5T_STD_I32LE, 150);
    expect_reject(p, NEEDLES("len.h5", "instrument TST", "column ask_sz", "length 150", "200"));
    mm_ticks_free(&t);
}

Test(store, rejects_missing_column)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 50, 1);
    const char *p = tu_path("miss.h5");
    tu_write_raw(p, &t, "trade_px", NULL, 0, -1);
    expect_reject(p, NEEDLES("miss.h5", "column trade_px", "missing"));
    mm_ticks_free(&t);
}

Test(store, rejects_wrong_dtypes)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 50, 1);
    const char *p = tu_path("f64.h5");
    tu_write_raw(p, &t, NULL, "bid_px", (int64_t)H5T_IEEE_F64LE, -1);
    expect_reject(p, NEEDLES("column bid_px", "wrong dtype", "float", "int32"));
    p = tu_path("u32.h5");
    tu_write_raw(p, &t, NULL, "ask_sz", (int64_t)H5T_STD_U32LE, -1);
    expect_reject(p, NEEDLES("column ask_sz", "unsigned"));
    p = tu_path("i32ts.h5");
    tu_write_raw(p, &t, NULL, "ts_ns", (int64_t)H5T_STD_I32LE, -1);
    expect_reject(p, NEEDLES("column ts_ns", "int64"));
    mm_ticks_free(&t);
}

Test(store, rejects_missing_file_and_non_hdf5_file)
{
    expect_reject(tu_path("nope.h5"), NEEDLES("nope.h5", "No such file"));
    const char *p = tu_path("text.h5");
    FILE *f = fopen(p, "w");
    fputs("this is not hdf5\n", f);
    fclose(f);
    expect_reject(p, NEEDLES("text.h5", "not an HDF5 file"));
}

Test(store, rejects_fingerprint_mismatch_unless_skipped)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 300, 1);
    t.inst.fingerprint = mm_ticks_fingerprint(&t) ^ 1;
    const char *p = tu_path("fp.h5");
    tu_write_raw(p, &t, NULL, NULL, 0, -1);
    expect_reject(p, NEEDLES("fp.h5", "instrument TST", "fingerprint mismatch"));
    const char *argv[] = {"mmsim", "info", "--no-verify", p, NULL};
    char *out;
    cr_assert_eq(tu_run(argv, &out, NULL), 0);
    cr_assert(strstr(out, "not verified"));
    free(out);
    mm_ticks_free(&t);
}

Test(store, rejects_unknown_instrument)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 1);
    mm_error e = {0};
    const char *p = tu_path("one.h5");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0);
    const char *argv[] = {"mmsim", "info", "--symbol", "ZZZ", p, NULL};
    char *err;
    cr_assert_eq(tu_run(argv, NULL, &err), 1);
    cr_assert(strstr(err, "instrument ZZZ") && strstr(err, "not in the file"), "%s", err);
    free(err);
    mm_ticks_free(&t);
}
