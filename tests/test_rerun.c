/* Reruns (docs/results.md, "Reruns"): mmsim verify, mmsim rerun and mmsim run --from on a fresh
 * results file, on one whose table was edited after it was written, and with an input that
 * changed; the sweep uses execution randomness so that the master seed and the row ids matter. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(rerun, .fini = tu_cleanup);

/* A tape and a 2 x 2 sweep over it with random latencies and queue places, seed 7. */
static void sweep(void)
{
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 3000, 5);
    cr_assert_eq(mm_ticks_write(tu_path("day.h5"), &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    const char *a[] = {"mmsim",
                       "sweep",
                       tu_path("day.h5"),
                       "--grid",
                       "spread=1,2",
                       "--grid",
                       "trade_reach=0.5,1",
                       "--set",
                       "latency_dist=exponential",
                       "--set",
                       "latency_ns=2000000",
                       "--set",
                       "queue_join=uniform",
                       "--seed",
                       "7",
                       "-o",
                       tu_path("r.h5"),
                       "--quiet",
                       NULL};
    char *err = NULL;
    cr_assert_eq(tu_run(a, NULL, &err), 0, "%s", err);
    free(err);
}

/* Add 1 to the pnl of row `row` of the results table, through the HDF5 API. */
static void edit_pnl(const char *path, int row)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    hid_t d = H5Dopen2(f, "results", H5P_DEFAULT);
    hid_t ft = H5Dget_type(d), mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
    size_t sz = H5Tget_size(mt);
    hid_t sp = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    unsigned char *buf = malloc(sz * (size_t)n);
    cr_assert_geq(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    int k = H5Tget_member_index(mt, "pnl");
    cr_assert_geq(k, 0);
    double v;
    size_t off = H5Tget_member_offset(mt, (unsigned)k);
    memcpy(&v, buf + (size_t)row * sz + off, sizeof v);
    v += 1;
    memcpy(buf + (size_t)row * sz + off, &v, sizeof v);
    cr_assert_geq(H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    free(buf);
    H5Sclose(sp);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Dclose(d);
    H5Fclose(f);
}

/* Write the rows of the results table in reverse order (their values unchanged). */
static void reverse_rows(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    hid_t d = H5Dopen2(f, "results", H5P_DEFAULT);
    hid_t ft = H5Dget_type(d), mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
    size_t sz = H5Tget_size(mt);
    hid_t sp = H5Dget_space(d);
    size_t n = (size_t)H5Sget_simple_extent_npoints(sp);
    unsigned char *buf = malloc(sz * n), *rev = malloc(sz * n);
    cr_assert_geq(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf), 0);
    for (size_t i = 0; i < n; i++)
        memcpy(rev + i * sz, buf + (n - 1 - i) * sz, sz);
    cr_assert_geq(H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rev), 0);
    free(buf);
    free(rev);
    H5Sclose(sp);
    H5Tclose(mt);
    H5Tclose(ft);
    H5Dclose(d);
    H5Fclose(f);
}

static int run(const char *const *a, char **out, char **err)
{
    return tu_run(a, out, err);
}

Test(rerun, verify_and_rerun_pass_on_a_fresh_file_and_fail_naming_the_edit)
{
    sweep();
    char *out = NULL, *err = NULL;
    const char *v[] = {"mmsim", "verify", tu_path("r.h5"), NULL};
    cr_assert_eq(run(v, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "verified (4 rows)"), "%s", out);
    free(out);
    free(err);
    const char *sh[] = {"mmsim", "show", tu_path("r.h5"), NULL};
    cr_assert_eq(run(sh, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sharpe    annualised: mean / sd of the PnL change every 1000000000 ns"),
              "show names how Sharpe is annualised: %s", out);
    free(out);
    free(err);
    const char *r[] = {"mmsim", "rerun", tu_path("r.h5"), NULL};
    cr_assert_eq(run(r, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "reproduced"), "%s", out);
    free(out);
    free(err);
    edit_pnl(tu_path("r.h5"), 2);
    cr_assert_eq(run(v, &out, &err), 1);
    cr_assert(strstr(err, "the table was changed after the sweep wrote it"), "%s", err);
    cr_assert_eq(tu_lines(err), 1, "%s", err);
    free(out);
    free(err);
    cr_assert_eq(run(r, &out, &err), 1);
    cr_assert(strstr(err, "the table was changed after it was written") &&
                  strstr(err, "1 of 4 rows differ") &&
                  strstr(err, "column pnl: 1 rows, the first row 2"),
              "%s", err);
    free(out);
    free(err);
}

/* Issue 27: rerun compared the reordered table row by row, stopped at its first row (the reader
 * refuses a row whose id is not its number) and said "0 of 4 rows differ". */
Test(rerun, rerun_of_a_reordered_table_says_why_it_cannot_compare_rows)
{
    sweep();
    reverse_rows(tu_path("r.h5"));
    char *out = NULL, *err = NULL;
    const char *v[] = {"mmsim", "verify", tu_path("r.h5"), NULL};
    cr_assert_eq(run(v, &out, &err), 1);
    cr_assert(strstr(err, ": the rows are out of id order (row 0 holds id 3): content hash "), "%s",
              err);
    cr_assert_eq(tu_lines(err), 1, "%s", err);
    free(out);
    free(err);
    const char *r[] = {"mmsim", "rerun", tu_path("r.h5"), NULL};
    cr_assert_eq(run(r, &out, &err), 1);
    char want[1200];
    snprintf(want, sizeof want,
             "mmsim: rerun: cannot compare the tables row by row: %s: row 0 holds id 3\n",
             tu_path("r.h5"));
    cr_assert(strstr(err, "the table was changed after it was written") && strstr(err, want) &&
                  !strstr(err, "rows differ"),
              "%s", err);
    free(out);
    free(err);
}

Test(rerun, rerun_names_a_changed_input_before_any_work_and_finds_moved_data)
{
    sweep();
    char *out = NULL, *err = NULL;
    /* The data moved: --data DIR finds it by name. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && mv %s %s/", tu_path("moved"), tu_path("day.h5"),
             tu_path("moved"));
    cr_assert_eq(system(cmd), 0);
    const char *r[] = {"mmsim", "rerun", tu_path("r.h5"), NULL};
    cr_assert_eq(run(r, &out, &err), 1);
    cr_assert(strstr(err, "recorded as"), "%s", err);
    free(out);
    free(err);
    const char *rd[] = {"mmsim",          "rerun", tu_path("r.h5"),     "--data",
                        tu_path("moved"), "-o",    tu_path("again.h5"), NULL};
    cr_assert_eq(run(rd, &out, &err), 0, "%s", err);
    free(out);
    free(err);
    /* A changed input: another tape under the same name. */
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 3000, 6);
    char moved[1100];
    snprintf(moved, sizeof moved, "%s/day.h5", tu_path("moved"));
    remove(moved);
    cr_assert_eq(mm_ticks_write(moved, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    const char *rd2[] = {"mmsim", "rerun", tu_path("r.h5"), "--data", tu_path("moved"), NULL};
    cr_assert_eq(run(rd2, &out, &err), 1);
    cr_assert(strstr(err, "fingerprint") && strstr(err, "the sweep ran on"), "%s", err);
    cr_assert_eq(tu_lines(err), 1, "%s", err);
    free(out);
    free(err);
}

Test(rerun, run_from_reproduces_a_row_with_its_random_streams)
{
    sweep();
    char *out = NULL, *err = NULL;
    for (int id = 0; id < 4; id++) {
        char ids[16];
        snprintf(ids, sizeof ids, "%d", id);
        const char *a[] = {"mmsim", "run", "--from", tu_path("r.h5"), "--id", ids, NULL};
        cr_assert_eq(run(a, &out, &err), 0, "row %d: %s", id, err);
        cr_assert(strstr(err, "every metric equals the stored row"), "%s", err);
        free(out);
        free(err);
    }
    /* Another path is another draw: nothing stored to compare with. */
    const char *p[] = {"mmsim", "run", "--from", tu_path("r.h5"), "--id", "1", "--path", "3", NULL};
    cr_assert_eq(run(p, &out, &err), 0, "%s", err);
    cr_assert(strstr(err, "stores path 0 only"), "%s", err);
    free(out);
    free(err);
    const char *bad[] = {"mmsim", "run", "--from", tu_path("r.h5"), "--id", "4", NULL};
    cr_assert_eq(run(bad, &out, &err), 2);
    cr_assert(strstr(err, "has rows 0 to 3"), "%s", err);
    free(out);
    free(err);
    const char *flag[] = {"mmsim",    "run", "--from", tu_path("r.h5"), "--id", "1",
                          "--spread", "3",   NULL};
    cr_assert_eq(run(flag, &out, &err), 2);
    cr_assert(strstr(err, "drop --spread"), "%s", err);
    free(out);
    free(err);
}
