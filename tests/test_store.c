/* Tick store: round trips, appends, atomic writes, full disks, and one malformed file per
 * validation rule, each rejected by `mmsim info` with a one-line error naming file, instrument,
 * column and row, exit 1. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(store, .fini = tu_cleanup);

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
            tu_assert_same_ticks(&t, &r);
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

/* The market's seconds per year (issue 10): written as attribute year_seconds when recorded, read
 * back; absent (files written before) reads as 0; a bad value is refused naming the attribute. */
Test(store, year_seconds_round_trips_and_is_checked)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 1);
    t.inst.year_s = 0; /* not recorded */
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(tu_path("y0.h5"), &t, NULL, &e), 0, "%s", e.msg);
    t.inst.year_s = 31536000;
    cr_assert_eq(mm_ticks_write(tu_path("y1.h5"), &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(tu_path("y0.h5"), NULL, 0, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.inst.year_s, 0.0);
    mm_ticks_free(&r);
    cr_assert_eq(mm_ticks_load(tu_path("y1.h5"), NULL, 0, &r, &e), 0, "%s", e.msg);
    cr_assert_eq(r.inst.year_s, 31536000.0);
    mm_ticks_free(&r);
    hid_t f = H5Fopen(tu_path("y1.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    char g[MM_SYMBOL_MAX + 8];
    snprintf(g, sizeof g, "/ticks/%s", t.inst.symbol);
    hid_t grp = H5Gopen2(f, g, H5P_DEFAULT);
    hid_t a = H5Aopen(grp, "year_seconds", H5P_DEFAULT);
    double bad = -5;
    cr_assert(a >= 0 && H5Awrite(a, H5T_NATIVE_DOUBLE, &bad) >= 0);
    H5Aclose(a);
    H5Gclose(grp);
    H5Fclose(f);
    cr_assert_eq(mm_ticks_load(tu_path("y1.h5"), NULL, 0, &r, &e), MM_EFORMAT);
    cr_assert(strstr(e.msg, "attribute year_seconds: must be a number in (0, 1e12]"), "%s", e.msg);
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
    tu_assert_same_ticks(&c, &r);
    mm_ticks_free(&r);
    cr_assert_eq(mm_ticks_load(p, "TST", 0, &r, &e), 0, "%s", e.msg);
    tu_assert_same_ticks(&a, &r);
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

/* Set (value != NULL) or delete (value NULL) a string attribute of object `obj` ("/" or
 * "ticks/TST"). */
static void h5_set_str(const char *path, const char *obj, const char *name, const char *value)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert(f >= 0, "%s", path);
    hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
    cr_assert(o >= 0, "%s", obj);
    if (H5Aexists(o, name) > 0) cr_assert(H5Adelete(o, name) >= 0);
    if (value) {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(o, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
        cr_assert(a >= 0 && H5Awrite(a, type, &value) >= 0);
        H5Aclose(a);
        H5Sclose(sp);
        H5Tclose(type);
    }
    H5Oclose(o);
    cr_assert(H5Fclose(f) >= 0);
}

/* Replace a scalar attribute of `obj` by a float64 (or, with is_int, an int32) of value v. */
static void h5_set_num(const char *path, const char *obj, const char *name, double v, int is_int)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert(f >= 0, "%s", path);
    hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
    cr_assert(o >= 0, "%s", obj);
    if (H5Aexists(o, name) > 0) cr_assert(H5Adelete(o, name) >= 0);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a =
        H5Acreate2(o, name, is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    int32_t iv = is_int ? (int32_t)v : 0; /* converted only when in range (float-cast-overflow) */
    cr_assert(a >= 0 && H5Awrite(a, is_int ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE,
                                 is_int ? (void *)&iv : (void *)&v) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Oclose(o);
    cr_assert(H5Fclose(f) >= 0);
}

/* tu_write_raw writes the columns and the numeric attributes; add what every tick file also
 * carries, the root tag and the symbol attribute, so that only the rule under test is broken. */
static void write_raw(const char *path, const mm_ticks *t, const char *skip_col,
                      const char *override_col, int64_t override_type, int64_t override_len)
{
    tu_write_raw(path, t, skip_col, override_col, override_type, override_len);
    char g[MM_SYMBOL_MAX + 8];
    snprintf(g, sizeof g, "ticks/%s", t->inst.symbol);
    h5_set_str(path, "/", "mmsim_format", "mmsim-ticks/1");
    h5_set_str(path, g, "symbol", t->inst.symbol);
}

/* Run `mmsim info path` and check: exit 1, one line on stderr containing every needle. */
static void expect_reject(const char *path, const char *const *needles)
{
    const char *argv[] = {"mmsim", "info", path, NULL};
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 1, "exit %d, stderr: %s", rc, err);
    cr_assert_eq(tu_lines(err), 1, "stderr must be one line: %s", err);
    cr_assert(!strncmp(err, "mmsim: ", 7), "%s", err);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(err, needles[i]), "'%s' not in: %s", needles[i], err);
    free(out);
    free(err);
}

/* Write t raw (fingerprint of the modified content, so only the rule under test fails). */
static const char *write_bad(mm_ticks *t, const char *name)
{
    const char *p = tu_path(name);
    t->inst.fingerprint = mm_ticks_fingerprint(t);
    write_raw(p, t, NULL, NULL, 0, -1);
    return p;
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

Test(store, rejects_decreasing_timestamps)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 200, 1);
    t.ts_ns[120] = t.ts_ns[119] - 5;
    expect_reject(write_bad(&t, "ts.h5"),
                  NEEDLES("ts.h5", "instrument TST", "column ts_ns", "row 120"));
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
    while (t.trade_sz[r] != 0)
        r++;
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
    write_raw(p, &t, NULL, "ask_sz", (int64_t)H5T_STD_I32LE, 150);
    expect_reject(p, NEEDLES("len.h5", "instrument TST", "column ask_sz", "length 150", "200"));
    mm_ticks_free(&t);
}

Test(store, rejects_missing_column)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 50, 1);
    const char *p = tu_path("miss.h5");
    write_raw(p, &t, "trade_px", NULL, 0, -1);
    expect_reject(p, NEEDLES("miss.h5", "column trade_px", "missing"));
    mm_ticks_free(&t);
}

Test(store, rejects_wrong_dtypes)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 50, 1);
    const char *p = tu_path("f64.h5");
    write_raw(p, &t, NULL, "bid_px", (int64_t)H5T_IEEE_F64LE, -1);
    expect_reject(p, NEEDLES("column bid_px", "wrong dtype", "float", "int32"));
    p = tu_path("u32.h5");
    write_raw(p, &t, NULL, "ask_sz", (int64_t)H5T_STD_U32LE, -1);
    expect_reject(p, NEEDLES("column ask_sz", "unsigned"));
    p = tu_path("i32ts.h5");
    write_raw(p, &t, NULL, "ts_ns", (int64_t)H5T_STD_I32LE, -1);
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
    write_raw(p, &t, NULL, NULL, 0, -1);
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

/* ---- the file's identity: format tag, symbol, sizes (issue 8, item 12) ---- */

/* A valid one-instrument tick file written by mmsim (symbol TST), to be broken by the caller. */
static const char *good_file(const char *name)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 300, 1);
    const char *p = tu_path(name);
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    return p;
}

Test(store, rejects_missing_or_unknown_format_tag)
{
    const char *p = good_file("notag.h5");
    h5_set_str(p, "/", "mmsim_format", NULL);
    expect_reject(p, NEEDLES("notag.h5", "attribute mmsim_format", "missing", "mmsim-ticks/1"));
    p = good_file("results_tag.h5");
    h5_set_str(p, "/", "mmsim_format", "mmsim-results/1");
    expect_reject(p, NEEDLES("results_tag.h5", "'mmsim-results/1' is not a tick file format"));
    p = good_file("future_tag.h5");
    h5_set_str(p, "/", "mmsim_format", "mmsim-ticks/2");
    expect_reject(p, NEEDLES("future_tag.h5", "'mmsim-ticks/2'", "expected mmsim-ticks/1"));
    p = good_file("int_tag.h5");
    h5_set_num(p, "/", "mmsim_format", 1, 1);
    expect_reject(p, NEEDLES("int_tag.h5", "attribute mmsim_format", "must be a string"));
    /* The library says so too, for listing and loading alike. */
    mm_error e = {0};
    int count = 0;
    cr_assert_eq(mm_ticks_list(p, NULL, 0, &count, &e), MM_EFORMAT, "%s", e.msg);
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(p, "TST", 0, &r, &e), MM_EFORMAT, "%s", e.msg);
}

Test(store, rejects_non_finite_or_non_positive_tick_and_lot_sizes)
{
    static const struct {
        const char *attr;
        double v;
        const char *shown;
    } cases[] = {
        {"lot_size", INFINITY, "inf"},  {"lot_size", NAN, "nan"},
        {"lot_size", 0, "0"},           {"lot_size", -1, "-1"},
        {"tick_size", INFINITY, "inf"}, {"tick_size", -INFINITY, "-inf"},
        {"tick_size", 0, "0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[64], what[96];
        snprintf(name, sizeof name, "size%zu.h5", i);
        const char *p = good_file(name);
        h5_set_num(p, "ticks/TST", cases[i].attr, cases[i].v, 0);
        snprintf(what, sizeof what, "attribute %s: %s is not a finite number > 0", cases[i].attr,
                 cases[i].shown);
        expect_reject(p, NEEDLES(name, "instrument TST", what));
    }
    /* Nor can such a tape be written. */
    mm_ticks t = {0};
    tu_small_tape(&t, 100, 1);
    t.inst.lot_size = INFINITY;
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(tu_path("inf.h5"), &t, NULL, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "attribute lot_size: inf"), "%s", e.msg);
    t.inst.lot_size = 1;
    t.inst.tick_size = NAN;
    cr_assert_eq(mm_ticks_write(tu_path("inf.h5"), &t, NULL, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "attribute tick_size: nan"), "%s", e.msg);
    cr_assert_eq(count_files(tu_tmpdir()), 7, "no file may be written for a bad tape");
    mm_ticks_free(&t);
}

Test(store, rejects_symbol_attribute_other_than_its_group_name)
{
    const char *p = good_file("othersym.h5");
    h5_set_str(p, "ticks/TST", "symbol", "OTHER");
    expect_reject(p, NEEDLES("othersym.h5", "instrument TST",
                             "attribute symbol: 'OTHER' differs from the group name"));
    p = good_file("nosym.h5");
    h5_set_str(p, "ticks/TST", "symbol", NULL);
    expect_reject(p, NEEDLES("nosym.h5", "instrument TST", "attribute symbol: missing"));
    p = good_file("numsym.h5");
    h5_set_num(p, "ticks/TST", "symbol", 7, 1);
    expect_reject(p, NEEDLES("numsym.h5", "attribute symbol: must be a string"));
}

/* A group name under /ticks that is not a valid symbol is a malformed file (exit 1), not a usage
 * error (it was exit 2: the stored name went through the check of a --symbol typed by the user). */
Test(store, invalid_stored_symbol_is_a_file_error)
{
    const char *p = good_file("badsym.h5");
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert(f >= 0);
    cr_assert(H5Lmove(f, "ticks/TST", f, "ticks/bad sym", H5P_DEFAULT, H5P_DEFAULT) >= 0);
    H5Fclose(f);
    h5_set_str(p, "ticks/bad sym", "symbol", "bad sym");
    expect_reject(p, NEEDLES("badsym.h5", "/ticks/bad sym: not a valid symbol"));
    const char *argv[] = {"mmsim", "run", p, NULL};
    char *err;
    cr_assert_eq(tu_run(argv, NULL, &err), 1, "%s", err);
    cr_assert(strstr(err, "/ticks/bad sym: not a valid symbol"), "%s", err);
    free(err);
    mm_error e = {0};
    int count = 0;
    cr_assert_eq(mm_ticks_list(p, NULL, 0, &count, &e), MM_EFORMAT, "%s", e.msg);
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(p, NULL, 0, &r, &e), MM_EFORMAT, "%s", e.msg);
    /* A symbol the user typed is still a usage error. */
    cr_assert_eq(mm_ticks_load(p, "bad sym", 0, &r, &e), MM_EUSAGE, "%s", e.msg);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    cr_assert(b && fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

Test(store, never_appends_into_a_file_of_another_kind)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 100, 1);
    mm_error e = {0};
    const char *p = good_file("results.h5");
    h5_set_str(p, "/", "mmsim_format", "mmsim-results/1");
    const char *q = good_file("plain.h5");
    h5_set_str(q, "/", "mmsim_format", NULL);
    const char *paths[2] = {p, q};
    const char *needles[2] = {"is a mmsim-results/1 file, not a tick file", "without mmsim_format"};
    strcpy(t.inst.symbol, "NEW");
    for (int i = 0; i < 2; i++) {
        size_t n0, n1;
        char *before = slurp(paths[i], &n0);
        cr_assert_eq(mm_ticks_write(paths[i], &t, NULL, &e), MM_EFORMAT, "%s", e.msg);
        cr_assert(strstr(e.msg, needles[i]) && strstr(e.msg, "refusing"), "%s", e.msg);
        char *after = slurp(paths[i], &n1);
        cr_assert(n0 == n1 && !memcmp(before, after, n0), "%s was modified", paths[i]);
        free(before);
        free(after);
    }
    cr_assert_eq(count_files(tu_tmpdir()), 2, "a temporary file was left behind");
    mm_ticks_free(&t);
}

/* ---- full disk (issue 8, item 2) ----
 * Before the fix, a write that ran out of space made H5Fclose fail; HDF5 1.10 then keeps a freed
 * file in its ID table and its exit handler crashed on it (SIGSEGV after "error closing file").
 * Now: the error is "PATH: <strerror>", no file is left, an existing file is unchanged, and no HDF5
 * handle stays open. */

static char g_mnt[512];

static void unmount_fini(void)
{
    if (g_mnt[0]) umount2(g_mnt, MNT_DETACH);
    g_mnt[0] = 0;
    tu_cleanup();
}

static void check_disk_full(const char *dir, int want_errno)
{
    char p[600], want[700];
    snprintf(p, sizeof p, "%s/X.h5", dir);
    snprintf(want, sizeof want, "%s: %s", p, strerror(want_errno));
    mm_ticks big = {0}, small = {0};
    tu_small_tape(&big, 200000, 1); /* 5.8 MB of columns */
    tu_small_tape(&small, 1000, 2);
    strcpy(small.inst.symbol, "SMALL");
    mm_error e = {0};

    /* A new file: nothing is left, not even the temporary. */
    cr_assert_eq(mm_ticks_write(p, &big, NULL, &e), -want_errno, "rc: %s", e.msg);
    cr_assert_str_eq(e.msg, want);
    cr_assert_eq(count_files(dir), 0, "a file was left behind");

    /* Adding an instrument to an existing file: the file is byte for byte what it was. */
    cr_assert_eq(mm_ticks_write(p, &small, NULL, &e), 0, "%s", e.msg);
    size_t n0, n1;
    char *before = slurp(p, &n0);
    cr_assert_eq(mm_ticks_write(p, &big, NULL, &e), -want_errno, "rc: %s", e.msg);
    cr_assert_str_eq(e.msg, want);
    char *after = slurp(p, &n1);
    cr_assert(n0 == n1 && !memcmp(before, after, n0), "the existing file changed");
    cr_assert_eq(count_files(dir), 1, "a temporary file was left behind");
    mm_ticks r = {0};
    cr_assert_eq(mm_ticks_load(p, "SMALL", 0, &r, &e), 0, "%s", e.msg);
    tu_assert_same_ticks(&small, &r);
    mm_ticks_free(&r);
    free(before);
    free(after);

    /* No HDF5 object is left open, and shutting the library down is safe (it crashed here before).
     */
    cr_assert_eq(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    cr_assert_geq(H5close(), 0);

    /* The command: exit 1, one line, no file. */
    char q[600], want_cli[800];
    snprintf(q, sizeof q, "%s/G.h5", dir);
    snprintf(want_cli, sizeof want_cli, "mmsim: %s: %s\n", q, strerror(want_errno));
    const char *argv[] = {"mmsim", "gen", "--events", "200000", "-o", q, NULL};
    char *err;
    int rc = tu_run(argv, NULL, &err);
    cr_assert_eq(rc, 1, "exit %d, stderr: %s", rc, err);
    cr_assert_str_eq(err, want_cli);
    cr_assert_eq(count_files(dir), 1, "gen left a file behind");
    free(err);
    mm_ticks_free(&big);
    mm_ticks_free(&small);
}

Test(store, full_disk_on_a_small_tmpfs_fails_cleanly, .fini = unmount_fini)
{
    snprintf(g_mnt, sizeof g_mnt, "%s", tu_path("tmpfs"));
    cr_assert_eq(mkdir(g_mnt, 0755), 0);
    if (mount("tmpfs", g_mnt, "tmpfs", 0, "size=2m") != 0) {
        g_mnt[0] = 0;
        cr_skip("cannot mount a tmpfs (%s): needs root; the RLIMIT_FSIZE test covers the same path",
                strerror(errno));
    }
    check_disk_full(g_mnt, ENOSPC);
}

Test(store, file_size_limit_fails_cleanly)
{
    /* The same without root: a 1 MiB file size limit, SIGXFSZ ignored, so write(2) fails with
     * EFBIG. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {1 << 20, 1 << 20};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    const char *dir = tu_path("fsize");
    cr_assert_eq(mkdir(dir, 0755), 0);
    check_disk_full(dir, EFBIG);
}

/* A corrupt global heap that HDF5 1.10.8 would decode forever (fuzz finding F1,
 * fixtures/fuzz/ticks/regress): reported before any variable-length string is read, by the reader
 * and by the writer asked to append. */
Test(store, corrupt_global_heap_is_reported_not_a_hang, .timeout = 60)
{
    const char *src = tu_fixture("fuzz/ticks/regress/hdf5-global-heap-hang-e6d3e555.h5");
    const char *p = tu_path("heap.h5");
    size_t n;
    char *b = slurp(src, &n);
    FILE *f = fopen(p, "wb");
    cr_assert(f && fwrite(b, 1, n, f) == n);
    fclose(f);
    expect_reject(
        p, NEEDLES("heap.h5: corrupt HDF5 file (global heap at byte 2048 does not advance)"));
    mm_error e = {0};
    int count = 0;
    cr_assert_eq(mm_ticks_list(p, NULL, 0, &count, &e), MM_EFORMAT, "%s", e.msg);
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 1);
    strcpy(t.inst.symbol, "NEW");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), MM_EFORMAT, "%s", e.msg);
    cr_assert(strstr(e.msg, "does not advance"), "%s", e.msg);
    size_t n2;
    char *after = slurp(p, &n2);
    cr_assert_eq(n2, n);
    cr_assert(!memcmp(b, after, n), "the file was modified");
    free(after);
    free(b);
    mm_ticks_free(&t);
}
