/* The results table (docs/results.md): writer round trips in any write order, the objective index,
 * the temporary file, argument checks; `mmsim show` and `mmsim export --csv` on files written here;
 * bad input files rejected with one line and exit 1. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmsim/results.h"
#include "results_fixture.h"
#include "testutil.h"

TestSuite(results, .fini = tu_cleanup);

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Same bits (NaN-safe). */
static int same_f64(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_metrics(const mm_metrics *a, const mm_metrics *b, int64_t row)
{
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        double fa = 0, fb = 0;
        int64_t ia = 0, ib = 0;
        int t = mm_results_metric_value(a, i, &fa, &ia);
        mm_results_metric_value(b, i, &fb, &ib);
        if (t == MM_COL_I64)
            cr_assert_eq(ia, ib, "row %" PRId64 " metric %d", row, i);
        else
            cr_assert(same_f64(fa, fb), "row %" PRId64 " metric %d: %.17g vs %.17g", row, i, fa,
                      fb);
    }
}

static uint64_t stored_hash(const char *path)
{
    mm_results_reader *r;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(path, &r, &e), 0, "%s", e.msg);
    uint64_t h = mm_results_describe(r)->content_hash;
    mm_results_close(r);
    return h;
}

Test(results, shuffled_chunks_give_the_same_hash_and_the_same_file)
{
    rf_table t;
    rf_init(&t, 1000); /* 120,000 rows: several HDF5 chunks */
    mm_error e = {0};
    const char *a = tu_path("inorder.h5"), *b = tu_path("shuffled.h5"), *c = tu_path("tiny.h5");
    cr_assert_eq(rf_write(a, &t, t.n_rows, 0, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(rf_write(b, &t, 2999, 42, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(rf_write(c, &t, 7, 7, NULL, &e), 0, "%s", e.msg);
    uint64_t ha, hb, hc;
    cr_assert_eq(mm_results_hash(a, &ha, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_hash(b, &hb, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_hash(c, &hc, &e), 0, "%s", e.msg);
    cr_assert_eq(ha, hb);
    cr_assert_eq(ha, hc);
    cr_assert_eq(stored_hash(a), ha, "stored hash differs from the recomputed one");
    cr_assert_eq(stored_hash(b), ha);
    /* Same rows and attributes: the same file, byte for byte. */
    size_t la, lb, lc;
    char *fa = slurp(a, &la), *fb = slurp(b, &lb), *fc = slurp(c, &lc);
    cr_assert_eq(la, lb);
    cr_assert_eq(la, lc);
    cr_assert(memcmp(fa, fb, la) == 0 && memcmp(fa, fc, la) == 0,
              "file bytes depend on the write order");
    free(fa);
    free(fb);
    free(fc);
    /* A different value changes the hash. */
    mm_results_writer *w;
    cr_assert_eq(mm_results_create(tu_path("d.h5"), t.axes, RF_AXES, 2, t.markout_ns, &w, &e), 0,
                 "%s", e.msg);
    int32_t idx[2 * RF_AXES];
    mm_metrics m[2];
    rf_row(&t, 0, idx, &m[0]);
    rf_row(&t, 1, idx + RF_AXES, &m[1]);
    cr_assert_eq(mm_results_write(w, 0, 2, idx, m, &e), 0, "%s", e.msg);
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    cr_assert_eq(mm_results_commit(w, &meta, &e), 0, "%s", e.msg);
    uint64_t h1 = stored_hash(tu_path("d.h5"));
    cr_assert_eq(mm_results_create(tu_path("d.h5"), t.axes, RF_AXES, 2, t.markout_ns, &w, &e), 0,
                 "%s", e.msg);
    m[1].volume++;
    cr_assert_eq(mm_results_write(w, 0, 2, idx, m, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_commit(w, &meta, &e), 0, "%s", e.msg);
    cr_assert_neq(stored_hash(tu_path("d.h5")), h1);
    rf_free(&t);
}

Test(results, rows_and_provenance_read_back)
{
    rf_table t;
    rf_init(&t, 3);
    mm_error e = {0};
    const char *p = tu_path("r.h5");
    cr_assert_eq(rf_write(p, &t, 13, 3, "sharpe", &e), 0, "%s", e.msg);
    mm_results_reader *r;
    cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
    const mm_results_info *in = mm_results_describe(r);
    cr_assert_eq(in->n_rows, t.n_rows);
    cr_assert_eq(in->n_axes, RF_AXES);
    for (int a = 0; a < RF_AXES; a++) {
        cr_assert_str_eq(in->axes[a].key, t.axes[a].key);
        cr_assert_eq(in->axes[a].type, t.axes[a].type);
        cr_assert_eq(in->axes[a].n, t.axes[a].n);
        for (int32_t k = 0; k < t.axes[a].n; k++) {
            if (t.axes[a].type == MM_COL_F64)
                cr_assert(same_f64(in->axes[a].f64[k], t.axes[a].f64[k]));
            else if (t.axes[a].type == MM_COL_I64)
                cr_assert_eq(in->axes[a].i64[k], t.axes[a].i64[k]);
            else
                cr_assert_str_eq(in->axes[a].names[k], t.axes[a].names[k]);
        }
    }
    const mm_results_meta *m = &in->meta;
    mm_results_meta want;
    rf_meta(&t, "sharpe", &want);
    cr_assert_str_eq(m->config_text, want.config_text);
    cr_assert_eq(m->seed, want.seed);
    cr_assert_str_eq(m->engine, "serial");
    cr_assert_eq(m->workers, 3);
    cr_assert_eq(m->wall_s, 1.5);
    cr_assert_eq(m->combos_per_s, want.combos_per_s);
    cr_assert_eq(m->updates_per_s, 4.25e8);
    cr_assert_eq(m->n_inputs, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_str_eq(m->input_paths[i], t.input_paths[i]);
        cr_assert_str_eq(m->input_symbols[i], t.input_symbols[i]);
        cr_assert_eq(m->input_fingerprints[i], t.input_fps[i]);
    }
    for (int k = 0; k < MM_MARKOUTS; k++)
        cr_assert_eq(m->markout_ns[k], t.markout_ns[k]);
    cr_assert_str_eq(m->objective, "sharpe");
    cr_assert_str_eq(in->mmsim_version, mm_version());
    /* Every row, read in uneven pieces. */
    int32_t idx[50 * RF_AXES], want_idx[RF_AXES];
    mm_metrics got[50], wm;
    for (int64_t first = 0; first < t.n_rows; first += 50) {
        int64_t n = t.n_rows - first < 50 ? t.n_rows - first : 50;
        cr_assert_eq(mm_results_read(r, first, n, idx, got, &e), 0, "%s", e.msg);
        for (int64_t i = 0; i < n; i++) {
            rf_row(&t, first + i, want_idx, &wm);
            for (int a = 0; a < RF_AXES; a++)
                cr_assert_eq(idx[i * RF_AXES + a], want_idx[a], "row %ld", (long)(first + i));
            assert_same_metrics(&got[i], &wm, first + i);
        }
    }
    cr_assert_eq(mm_results_read(r, t.n_rows - 1, 2, idx, got, &e), -EINVAL);
    int64_t rows[4];
    cr_assert_eq(mm_results_read_index(r, "pnl", 0, 4, rows, &e), MM_ENOTFOUND);
    cr_assert_eq(mm_results_read_index(r, "sharpe", 0, 4, rows, &e), 0, "%s", e.msg);
    mm_results_close(r);
    rf_free(&t);
}

/* Reference order: value descending, NaN last, -0 == +0, ties by ascending id. */
static const double *g_vals;
static int cmp_ref(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    double va = g_vals[a], vb = g_vals[b];
    int na = isnan(va), nb = isnan(vb);
    if (na != nb) return na ? 1 : -1;
    if (!na && va != vb) return va > vb ? -1 : 1;
    return (a > b) - (a < b);
}

Test(results, index_sorts_descending_with_ties_by_id_and_nan_last)
{
    rf_table t;
    rf_init(&t, 20);
    mm_error e = {0};
    const char *objs[] = {"pnl", "sharpe", "volume", "final_q", "markout_250us"};
    for (int o = 0; o < 5; o++) {
        const char *p = tu_path("i.h5");
        cr_assert_eq(rf_write(p, &t, 100, 9 + (uint64_t)o, objs[o], &e), 0, "%s", e.msg);
        mm_results_reader *r;
        cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
        int64_t n = t.n_rows;
        double *vals = malloc((size_t)n * sizeof *vals);
        int64_t *ref = malloc((size_t)n * sizeof *ref), *got = malloc((size_t)n * sizeof *got);
        int ties = 0;
        for (int64_t i = 0; i < n; i++) {
            int32_t idx[RF_AXES];
            mm_metrics m;
            rf_row(&t, i, idx, &m);
            int metric = -1;
            for (int k = 0; k < MM_RESULTS_METRICS; k++) {
                char name[32];
                mm_results_metric(k, t.markout_ns, name, sizeof name);
                if (!strcmp(name, objs[o])) metric = k;
            }
            cr_assert(metric >= 0);
            double f = 0;
            int64_t iv = 0;
            vals[i] = mm_results_metric_value(&m, metric, &f, &iv) == MM_COL_I64 ? (double)iv : f;
            ref[i] = i;
        }
        g_vals = vals;
        qsort(ref, (size_t)n, sizeof *ref, cmp_ref);
        cr_assert_eq(mm_results_read_index(r, objs[o], 0, n, got, &e), 0, "%s", e.msg);
        for (int64_t i = 0; i < n; i++) {
            cr_assert_eq(got[i], ref[i], "%s: entry %ld: row %ld, expected %ld", objs[o], (long)i,
                         (long)got[i], (long)ref[i]);
            if (i > 0 && vals[got[i]] == vals[got[i - 1]]) ties++;
        }
        if (o < 3) cr_assert(ties > 100, "%s: the fixture should produce ties (%d)", objs[o], ties);
        if (o == 1) cr_assert_eq(got[n - 1], 7, "NaN sharpe (row 7) must rank last");
        /* -0.0 (row 5) ties with +0.0: it sits among the zeros by id. */
        mm_results_close(r);
        free(vals);
        free(ref);
        free(got);
    }
    rf_free(&t);
}

Test(results, missing_row_fails_commit_naming_it_and_leaves_no_file)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    const char *p = tu_path("miss.h5");
    mm_results_writer *w;
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, t.n_rows, t.markout_ns, &w, &e), 0, "%s",
                 e.msg);
    int32_t idx[RF_AXES];
    mm_metrics m;
    for (int64_t i = t.n_rows - 1; i >= 0; i--) {
        if (i == 37 || i == 90) continue;
        rf_row(&t, i, idx, &m);
        cr_assert_eq(mm_results_write(w, i, 1, idx, &m, &e), 0, "%s", e.msg);
    }
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    cr_assert_eq(mm_results_commit(w, &meta, &e), -EINVAL);
    cr_assert(strstr(e.msg, "row 37 was never written") && strstr(e.msg, "2 rows missing"), "%s",
              e.msg);
    cr_assert(strstr(e.msg, p), "%s", e.msg);
    cr_assert_eq(count_entries(tu_tmpdir()), 0,
                 "temporary or final file left after a failed commit");
    rf_free(&t);
}

Test(results, row_written_twice_or_out_of_range_is_rejected_before_writing)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    mm_results_writer *w;
    cr_assert_eq(
        mm_results_create(tu_path("x.h5"), t.axes, RF_AXES, t.n_rows, t.markout_ns, &w, &e), 0,
        "%s", e.msg);
    int32_t idx[3 * RF_AXES];
    mm_metrics m[3];
    for (int i = 0; i < 3; i++)
        rf_row(&t, 10 + i, idx + i * RF_AXES, &m[i]);
    cr_assert_eq(mm_results_write(w, 10, 3, idx, m, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_write(w, 8, 3, idx, m, &e), -EINVAL);
    cr_assert(strstr(e.msg, "row 10 written twice"), "%s", e.msg);
    cr_assert_eq(mm_results_write(w, t.n_rows - 2, 3, idx, m, &e), -EINVAL);
    idx[RF_AXES + 2] = 5; /* inv_limit has 5 values: index 5 is out of range */
    cr_assert_eq(mm_results_write(w, 20, 3, idx, m, &e), -EINVAL);
    cr_assert(strstr(e.msg, "row 21") && strstr(e.msg, "inv_limit"), "%s", e.msg);
    /* Rows 8, 9 and 20..22 were not written by the failed calls: writing them now works. */
    idx[RF_AXES + 2] = 1;
    cr_assert_eq(mm_results_write(w, 20, 3, idx, m, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_write(w, 7, 3, idx, m, &e), 0, "%s", e.msg);
    mm_results_abort(w);
    cr_assert_eq(count_entries(tu_tmpdir()), 0);
    rf_free(&t);
}

Test(results, temporary_file_never_remains)
{
    rf_table t;
    rf_init(&t, 2);
    mm_error e = {0};
    const char *p = tu_path("t.h5");
    mm_results_writer *w;
    /* Abort: the temporary file existed while writing; afterwards nothing is left. */
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, t.n_rows, t.markout_ns, &w, &e), 0, "%s",
                 e.msg);
    cr_assert_eq(count_entries(tu_tmpdir()), 1);
    cr_assert(!exists(p), "the final file must not exist before commit");
    mm_results_abort(w);
    cr_assert_eq(count_entries(tu_tmpdir()), 0);
    /* Commit: only the final file. */
    cr_assert_eq(rf_write(p, &t, 50, 1, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(count_entries(tu_tmpdir()), 1);
    cr_assert(exists(p));
    /* A failed commit (bad objective) keeps the older file and leaves no temporary. */
    uint64_t before = stored_hash(p);
    cr_assert_eq(rf_write(p, &t, 50, 1, "bogus", &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "objective 'bogus'") && strstr(e.msg, "pnl"), "%s", e.msg);
    cr_assert_eq(count_entries(tu_tmpdir()), 1);
    cr_assert_eq(stored_hash(p), before);
    /* An abort after rows were written leaves the older file as it was. */
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, t.n_rows, t.markout_ns, &w, &e), 0, "%s",
                 e.msg);
    int32_t idx[RF_AXES];
    mm_metrics m;
    rf_row(&t, 0, idx, &m);
    cr_assert_eq(mm_results_write(w, 0, 1, idx, &m, &e), 0, "%s", e.msg);
    mm_results_abort(w);
    cr_assert_eq(count_entries(tu_tmpdir()), 1);
    cr_assert_eq(stored_hash(p), before);
    rf_free(&t);
}

Test(results, create_rejects_bad_axes_and_horizons)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    mm_results_writer *w = NULL;
    const char *p = tu_path("bad.h5");
    mm_results_axis ax[RF_AXES];
    struct {
        const char *why, *msg;
    } cases[] = {{"dup key", "axis spread appears twice"},
                 {"metric key", "name of a metric column"},
                 {"id key", "reserved"},
                 {"bad key", "must match"},
                 {"dup value", "value 2 appears twice"},
                 {"nan value", "not finite"},
                 {"no values", "no values"},
                 {"horizon", "must be positive"},
                 {"same horizon", "markout_1s twice"},
                 {"dup name", "axis queue: value 'power' appears twice"}};
    const char *dupq[2] = {"power", "power"};
    double nanv[2] = {1, NAN};
    int64_t dup[3] = {1, 2, 2};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(ax, t.axes, sizeof ax);
        int64_t mk[MM_MARKOUTS] = {t.markout_ns[0], t.markout_ns[1], t.markout_ns[2]};
        switch (c) {
        case 0:
            ax[2].key = "spread";
            break;
        case 1:
            ax[2].key = "markout_500ms";
            break;
        case 2:
            ax[2].key = "id";
            break;
        case 3:
            ax[2].key = "a/b";
            break;
        case 4:
            ax[2].i64 = dup, ax[2].n = 3;
            break;
        case 5:
            ax[1].f64 = nanv, ax[1].n = 2;
            break;
        case 6:
            ax[3].n = 0;
            break;
        case 7:
            mk[2] = 0;
            break;
        case 8:
            mk[1] = mk[0];
            break;
        case 9:
            ax[3].names = dupq, ax[3].n = 2;
            break;
        }
        int rc = mm_results_create(p, ax, RF_AXES, t.n_rows, mk, &w, &e);
        cr_assert_eq(rc, MM_EUSAGE, "%s: %d", cases[c].why, rc);
        cr_assert(strstr(e.msg, cases[c].msg), "%s: %s", cases[c].why, e.msg);
        cr_assert_null(w);
    }
    cr_assert_eq(count_entries(tu_tmpdir()), 0);
    rf_free(&t);
}

/* The index columns (tape, queue) are HDF5 enums over little-endian int32, member i named by value
 * i of the axis (h5py.check_enum_dtype shows them); an enum that disagrees with /axes is refused.
 */
Test(results, index_columns_are_enums_named_by_the_axis_values)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    const char *p = tu_path("r.h5");
    cr_assert_eq(rf_write(p, &t, t.n_rows, 0, NULL, &e), 0, "%s", e.msg);
    hid_t f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "results", H5P_DEFAULT), ft = H5Dget_type(d);
    const char *keys[2] = {"tape", "queue"};
    const char *const *names[2] = {t.tape, t.queue};
    int n[2] = {2, 3};
    for (int k = 0; k < 2; k++) {
        hid_t mt = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, keys[k]));
        cr_assert_eq(H5Tget_class(mt), H5T_ENUM, "%s", keys[k]);
        hid_t base = H5Tget_super(mt);
        cr_assert(H5Tequal(base, H5T_STD_I32LE) > 0, "%s: base int32 little-endian", keys[k]);
        cr_assert_eq(H5Tget_nmembers(mt), n[k]);
        for (int32_t i = 0; i < n[k]; i++) {
            char buf[256];
            cr_assert(H5Tenum_nameof(mt, &i, buf, sizeof buf) >= 0);
            cr_assert_str_eq(buf, names[k][i], "%s value %d", keys[k], (int)i);
        }
        H5Tclose(base);
        H5Tclose(mt);
    }
    hid_t sp = H5Tget_member_type(ft, (unsigned)H5Tget_member_index(ft, "spread"));
    cr_assert_eq(H5Tget_class(sp), H5T_FLOAT, "numeric axes keep their values");
    H5Tclose(sp);
    H5Tclose(ft);
    H5Dclose(d);
    H5Fclose(f);
    /* /axes/queue renamed: the enum no longer names its values. */
    f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    d = H5Dopen2(f, "axes/queue", H5P_DEFAULT);
    hid_t st = H5Dget_type(d);
    const char *other[3] = {"a", "b", "c"};
    cr_assert(H5Dwrite(d, st, H5S_ALL, H5S_ALL, H5P_DEFAULT, other) >= 0);
    H5Tclose(st);
    H5Dclose(d);
    H5Fclose(f);
    mm_results_reader *r = NULL;
    cr_assert_eq(mm_results_open(p, &r, &e), MM_EFORMAT);
    cr_assert(strstr(e.msg, "column queue: its enum members are not the names of /axes/queue"),
              "%s", e.msg);
    rf_free(&t);
}

/* A file written before the enums (fixtures/results-int32.h5, mmsim 0.1.0: plain int32 tape and
 * queue columns) reads as before, with the same content hash. */
Test(results, plain_int32_index_columns_still_read)
{
    const char *p = tu_fixture("results-int32.h5");
    mm_results_reader *r;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
    const mm_results_info *in = mm_results_describe(r);
    cr_assert_eq(in->n_rows, 8);
    cr_assert_eq(in->n_axes, 3);
    cr_assert_str_eq(in->axes[0].key, "tape");
    cr_assert_str_eq(in->axes[0].names[1], "tape.h5#SYN");
    cr_assert_str_eq(in->axes[1].names[0], "risk-averse");
    int32_t idx[8 * 3];
    mm_metrics m[8];
    cr_assert_eq(mm_results_read(r, 0, 8, idx, m, &e), 0, "%s", e.msg);
    cr_assert(idx[6 * 3] == 1 && idx[6 * 3 + 1] == 1 && idx[6 * 3 + 2] == 0, "row 6");
    cr_assert_eq(in->content_hash, UINT64_C(0x02083864f4d4f043));
    uint64_t h;
    cr_assert_eq(mm_results_hash(p, &h, &e), 0, "%s", e.msg);
    cr_assert_eq(h, in->content_hash);
    mm_results_close(r);
}

Test(results, empty_table_commits)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    mm_results_writer *w;
    const char *p = tu_path("empty.h5");
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, 0, t.markout_ns, &w, &e), 0, "%s", e.msg);
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    meta.n_inputs = 0;
    cr_assert_eq(mm_results_commit(w, &meta, &e), 0, "%s", e.msg);
    uint64_t h;
    cr_assert_eq(mm_results_hash(p, &h, &e), 0, "%s", e.msg);
    cr_assert_eq(h, stored_hash(p));
    const char *s[] = {"mmsim", "show", p, NULL};
    char *out, *err;
    cr_assert_eq(tu_run(s, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "0 combinations") && strstr(out, "(no rows)"), "%s", out);
    free(out);
    free(err);
    rf_free(&t);
}

Test(results, horizon_names_use_the_largest_exact_unit)
{
    const struct {
        int64_t ns;
        const char *s;
    } c[] = {{1000000000, "1s"},     {10000000000, "10s"},  {60000000000, "60s"},
             {500000000, "500ms"},   {250000, "250us"},     {100, "100ns"},
             {1500000000, "1500ms"}, {1000001, "1000001ns"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char b[32];
        mm_results_horizon_name(c[i].ns, b, sizeof b);
        cr_assert_str_eq(b, c[i].s);
    }
}

/* ---- mmsim show ---- */

static char *show(int expect, const char *const *args)
{
    const char *argv[32] = {"mmsim", "show"};
    int n = 2;
    for (; args[n - 2]; n++)
        argv[n] = args[n - 2];
    argv[n] = NULL;
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, expect, "exit %d: %s%s", rc, out, err);
    if (expect) {
        cr_assert_eq(tu_lines(err), 1, "%s", err);
        free(out);
        return err;
    }
    free(err);
    return out;
}

/* Table rows of show's output: lines after the header line that starts with "rank". */
static int table_rows(const char *out, int64_t *ids, int max)
{
    const char *h = strstr(out, "\nrank");
    cr_assert(h, "%s", out);
    const char *l = strchr(h + 1, '\n');
    int n = 0;
    while (l && l[1] && n < max) {
        long long rank, id;
        cr_assert_eq(sscanf(l + 1, "%lld %lld", &rank, &id), 2, "%s", l + 1);
        cr_assert_eq(rank, n + 1);
        ids[n++] = id;
        l = strchr(l + 1, '\n');
    }
    return n;
}

static void expected_top(const rf_table *t, int metric, int asc, int where_axis, int32_t where_idx,
                         int64_t *ids, int top)
{
    int64_t n = t->n_rows, k = 0;
    double *vals = malloc((size_t)n * sizeof *vals);
    int64_t *rows = malloc((size_t)n * sizeof *rows);
    for (int64_t i = 0; i < n; i++) {
        int32_t idx[RF_AXES];
        mm_metrics m;
        rf_row(t, i, idx, &m);
        double f = 0;
        int64_t iv = 0;
        vals[i] = mm_results_metric_value(&m, metric, &f, &iv) == MM_COL_I64 ? (double)iv : f;
        if (asc && !isnan(vals[i])) vals[i] = -vals[i];
        if (where_axis < 0 || idx[where_axis] == where_idx) rows[k++] = i;
    }
    g_vals = vals;
    qsort(rows, (size_t)k, sizeof *rows, cmp_ref);
    for (int i = 0; i < top && i < k; i++)
        ids[i] = rows[i];
    free(vals);
    free(rows);
}

Test(results, show_prints_provenance_and_the_best_rows)
{
    rf_table t;
    rf_init(&t, 4);
    mm_error e = {0};
    const char *p = tu_path("s.h5");
    cr_assert_eq(rf_write(p, &t, 31, 5, NULL, &e), 0, "%s", e.msg);
    int64_t got[64], want[64];

    /* Default: top 20 by the stored objective through the index. */
    char *out = show(0, (const char *[]){p, NULL});
    cr_assert(strstr(out, "480 combinations") &&
                  strstr(out, "tape 2 x spread 4 x inv_limit 5 x queue 3 x rep 4"),
              "%s", out);
    cr_assert(strstr(out, "serial, 3 workers") && strstr(out, "18446744073709551557"), "%s", out);
    char hash[32];
    snprintf(hash, sizeof hash, "%016" PRIx64, stored_hash(p));
    cr_assert(strstr(out, hash), "%s", out);
    cr_assert(strstr(out, "day1.h5#AAA (fingerprint 0123456789abcdef)"), "%s", out);
    cr_assert(strstr(out, "1s 500ms 250us"), "%s", out);
    cr_assert(strstr(out, "by pnl descending (stored index)"), "%s", out);
    cr_assert_eq(table_rows(out, got, 64), 20);
    expected_top(&t, 0, 0, -1, 0, want, 20);
    for (int i = 0; i < 20; i++)
        cr_assert_eq(got[i], want[i], "rank %d", i + 1);
    /* Axis values appear as values: the enum names and the float spread. */
    char line[64];
    snprintf(line, sizeof line, "%s", t.queue[(want[0] / 4) % 3]);
    cr_assert(strstr(out, line) && strstr(out, "risk_averse"), "%s", out);
    free(out);

    /* --top, --sort on an int column, --asc, and a filter. */
    out = show(0, (const char *[]){p, "--top", "7", "--sort", "volume", NULL});
    cr_assert_eq(table_rows(out, got, 64), 7);
    expected_top(&t, 2, 0, -1, 0, want, 7);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(got[i], want[i]);
    cr_assert(strstr(out, "by volume descending:"), "%s", out);
    free(out);

    out = show(0, (const char *[]){p, "--top", "5", "--asc", NULL});
    cr_assert_eq(table_rows(out, got, 64), 5);
    expected_top(&t, 0, 1, -1, 0, want, 5);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(got[i], want[i]);
    free(out);

    out = show(0, (const char *[]){p, "--where", "inv_limit=10", "--top", "30", NULL});
    cr_assert(strstr(out, "of 96 rows where inv_limit=10"), "%s", out);
    cr_assert_eq(table_rows(out, got, 64), 30);
    expected_top(&t, 0, 0, 2, 3, want, 30);
    for (int i = 0; i < 30; i++)
        cr_assert_eq(got[i], want[i]);
    free(out);

    /* Several --where: AND (enum by name, float by value, "0.5" written another way). */
    out = show(0, (const char *[]){p, "--where", "tape=day \"2\",b.h5#BBB", "--where",
                                   "spread=5e-1", "--where", "queue=log", "--sort", "markout_250us",
                                   "--top", "100", NULL});
    cr_assert(
        strstr(out, "top 20 of 20 rows where tape=day \"2\",b.h5#BBB and spread=0.5 and queue=log"),
        "%s", out);
    int n = table_rows(out, got, 64);
    cr_assert_eq(n, 20);
    for (int i = 0; i < n; i++) {
        int32_t idx[RF_AXES];
        mm_metrics m;
        rf_row(&t, got[i], idx, &m);
        cr_assert(idx[0] == 1 && idx[1] == 1 && idx[3] == 2, "row %ld", (long)got[i]);
    }
    free(out);

    /* NaN ranks last. */
    out = show(0, (const char *[]){p, "--sort", "sharpe", "--top", "1000", NULL});
    int64_t all[480];
    cr_assert_eq(table_rows(out, all, 480), 480);
    cr_assert_eq(all[479], 7, "the NaN sharpe of row 7 must rank last");
    cr_assert(strstr(out, "nan"), "%s", out);
    free(out);

    /* Usage errors name what is wrong, exit 2. */
    char *err = show(2, (const char *[]){p, "--where", "bogus=1", NULL});
    cr_assert(strstr(err, "unknown axis 'bogus'") && strstr(err, "inv_limit"), "%s", err);
    free(err);
    err = show(2, (const char *[]){p, "--where", "inv_limit=3", NULL});
    cr_assert(strstr(err, "'3' is not a value of axis inv_limit") && strstr(err, "1, 2, 5, 10, 20"),
              "%s", err);
    free(err);
    err = show(2, (const char *[]){p, "--where", "queue=fifo", NULL});
    cr_assert(strstr(err, "fifo"), "%s", err);
    free(err);
    err = show(2, (const char *[]){p, "--where", "spread", NULL});
    cr_assert(strstr(err, "key=value"), "%s", err);
    free(err);
    err = show(2, (const char *[]){p, "--sort", "profit", NULL});
    cr_assert(strstr(err, "unknown metric 'profit'") && strstr(err, "markout_500ms"), "%s", err);
    free(err);
    err = show(2, (const char *[]){p, "--top", "0", NULL});
    free(err);
    err = show(2, (const char *[]){NULL});
    free(err);
    rf_free(&t);
}

Test(results, show_verify_detects_a_modified_table)
{
    rf_table t;
    rf_init(&t, 1);
    mm_error e = {0};
    const char *p = tu_path("v.h5");
    cr_assert_eq(rf_write(p, &t, 120, 0, NULL, &e), 0, "%s", e.msg);
    char *out = show(0, (const char *[]){p, "--verify", NULL});
    free(out);
    /* Change one metric value in place with the HDF5 API. */
    hid_t f = H5Fopen(p, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "results", H5P_DEFAULT);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(int64_t));
    H5Tinsert(mt, "volume", 0, H5T_NATIVE_INT64);
    hsize_t start = 3, count = 1;
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &count, NULL);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    int64_t v = 123456789;
    cr_assert(H5Dwrite(ds, mt, ms, fs, H5P_DEFAULT, &v) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(mt);
    H5Dclose(ds);
    H5Fclose(f);
    char *err = show(1, (const char *[]){p, "--verify", NULL});
    cr_assert(strstr(err, "content hash mismatch") && strstr(err, p), "%s", err);
    free(err);
    rf_free(&t);
}

/* ---- mmsim export ---- */

/* Split one CSV line into fields (RFC 4180 quotes), in place. Returns the number of fields. */
static int csv_split(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        cr_assert(n < max);
        if (*p == '"') {
            char *o = ++p;
            f[n++] = o;
            for (;;) {
                if (*p == '"' && p[1] == '"') {
                    *o++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    cr_assert(*p, "unterminated quote");
                    *o++ = *p++;
                }
            }
            *o = 0;
            if (*p == ',') {
                *p++ = 0;
                continue;
            }
            cr_assert(*p == 0 || *p == '\n');
            break;
        }
        f[n++] = p;
        p += strcspn(p, ",\n");
        if (*p == ',') {
            *p++ = 0;
            continue;
        }
        *p = 0;
        break;
    }
    return n;
}

static void check_csv(const rf_table *t, char *csv)
{
    char *save = NULL, *line = strtok_r(csv, "\n", &save);
    char *f[64];
    int nf = csv_split(line, f, 64);
    cr_assert_eq(nf, 1 + RF_AXES + MM_RESULTS_METRICS);
    cr_assert_str_eq(f[0], "id");
    for (int a = 0; a < RF_AXES; a++)
        cr_assert_str_eq(f[1 + a], t->axes[a].key);
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        char name[32];
        mm_results_metric(i, t->markout_ns, name, sizeof name);
        cr_assert_str_eq(f[1 + RF_AXES + i], name);
    }
    int64_t rows = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        cr_assert_eq(csv_split(line, f, 64), nf, "row %ld", (long)rows);
        int32_t idx[RF_AXES];
        mm_metrics m;
        rf_row(t, rows, idx, &m);
        cr_assert_eq(strtoll(f[0], NULL, 10), rows);
        for (int a = 0; a < RF_AXES; a++) {
            const mm_results_axis *x = &t->axes[a];
            if (x->type == MM_COL_F64)
                cr_assert(same_f64(strtod(f[1 + a], NULL), x->f64[idx[a]]));
            else if (x->type == MM_COL_I64)
                cr_assert_eq(strtoll(f[1 + a], NULL, 10), x->i64[idx[a]]);
            else
                cr_assert_str_eq(f[1 + a], x->names[idx[a]]);
        }
        mm_metrics back;
        memset(&back, 0, sizeof back);
        for (int i = 0; i < MM_RESULTS_METRICS; i++) {
            double d = 0;
            int64_t v = 0;
            const char *s = f[1 + RF_AXES + i];
            if (mm_results_metric_value(&m, i, &d, &v) == MM_COL_I64) {
                cr_assert_eq(strtoll(s, NULL, 10), v, "row %ld col %d: %s", (long)rows, i, s);
            } else {
                double r = strtod(s, NULL);
                cr_assert(same_f64(r, d) || (isnan(r) && isnan(d)), "row %ld col %d: %s vs %.17g",
                          (long)rows, i, s, d);
            }
        }
        rows++;
    }
    cr_assert_eq(rows, t->n_rows);
}

Test(results, export_csv_round_trips_every_value)
{
    rf_table t;
    rf_init(&t, 5);
    mm_error e = {0};
    const char *p = tu_path("x.h5"), *o = tu_path("x.csv");
    cr_assert_eq(rf_write(p, &t, 17, 8, NULL, &e), 0, "%s", e.msg);
    const char *a[] = {"mmsim", "export", p, "--csv", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert_eq(err[0], 0, "%s", err);
    char *copy = strdup(out);
    check_csv(&t, out);
    free(out);
    free(err);
    const char *b[] = {"mmsim", "export", "--csv", p, "-o", o, NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_assert_eq(out[0], 0, "-o must leave standard output empty");
    free(out);
    free(err);
    size_t len;
    char *file = slurp(o, &len);
    cr_assert_str_eq(file, copy, "the file differs from standard output");
    cr_assert_eq(count_entries(tu_tmpdir()), 2, "temporary CSV left behind");
    free(file);
    free(copy);
    /* Usage: a format is required; --help. */
    const char *c[] = {"mmsim", "export", p, NULL};
    cr_assert_eq(tu_run(c, NULL, &err), 2);
    cr_assert(strstr(err, "--csv") && tu_lines(err) == 1, "%s", err);
    free(err);
    const char *h[] = {"mmsim", "export", "--help", NULL};
    cr_assert_eq(tu_run(h, &out, NULL), 0);
    cr_assert(strstr(out, "usage: mmsim export"), "%s", out);
    free(out);
    const char *hs[] = {"mmsim", "show", "--help", NULL};
    cr_assert_eq(tu_run(hs, &out, NULL), 0);
    cr_assert(strstr(out, "usage: mmsim show") && strstr(out, "--where"), "%s", out);
    free(out);
    /* An output in a directory that does not exist: a usage error found before any work (exit 2),
     * no file. */
    const char *d[] = {"mmsim", "export", p, "--csv", "-o", "/nonexistent-dir/x.csv", NULL};
    cr_assert_eq(tu_run(d, NULL, &err), 2);
    cr_assert(tu_lines(err) == 1 && strstr(err, "/nonexistent-dir/x.csv"), "%s", err);
    free(err);
    rf_free(&t);
}

/* ---- bad input files ---- */

static void write_tagged(const char *path, const char *tag)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(f >= 0);
    if (tag) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f, "mmsim_format", t, sp, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &tag);
        H5Aclose(a);
        H5Sclose(sp);
        H5Tclose(t);
    }
    H5Fclose(f);
}

Test(results, bad_files_give_one_line_errors_and_exit_1)
{
    const char *missing = tu_path("missing.h5"), *text = tu_path("text.h5"),
               *ticks = tu_path("ticks.h5");
    const char *wrong = tu_path("wrong.h5"), *untagged = tu_path("untagged.h5"),
               *notable = tu_path("notable.h5");
    FILE *f = fopen(text, "w");
    fputs("id,pnl\n1,2\n", f);
    fclose(f);
    const char *g[] = {"mmsim",    "gen", "--seed", "1",   "--events", "100",
                       "--symbol", "T",   "-o",     ticks, NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    write_tagged(wrong, "mmsim-results/9");
    write_tagged(untagged, NULL);
    write_tagged(notable, "mmsim-results/2");
    const char *old = tu_path("old.h5");
    write_tagged(old, "mmsim-results/1");
    struct {
        const char *path, *msg;
    } cases[] = {{missing, "No such file"},
                 {text, "not an HDF5 file"},
                 {ticks, "format 'mmsim-ticks/1', expected 'mmsim-results/2'"},
                 {wrong, "format 'mmsim-results/9'"},
                 {old, "a mmsim-results/1 table from an older mmsim"},
                 {untagged, "no mmsim_format tag"},
                 {notable, "no /results table"},
                 {tu_tmpdir(), "is a directory"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int cmd = 0; cmd < 2; cmd++) {
            const char *a[] = {"mmsim", cmd ? "export" : "show", cases[i].path,
                               cmd ? "--csv" : NULL, NULL};
            char *out, *err;
            int rc = tu_run(a, &out, &err);
            cr_assert_eq(rc, 1, "%s %s: exit %d: %s", a[1], cases[i].path, rc, err);
            cr_assert_eq(tu_lines(err), 1, "%s", err);
            cr_assert(strstr(err, cases[i].path) && strstr(err, cases[i].msg), "%s: %s", a[1], err);
            cr_assert_eq(out[0], 0, "%s", out);
            free(out);
            free(err);
        }
    }
    uint64_t h;
    mm_error e = {0};
    cr_assert_eq(mm_results_hash(ticks, &h, &e), MM_EFORMAT);
}

Test(results, index_orders_infinities_zeros_and_nans)
{
    rf_table t;
    rf_init(&t, 1);
    const double v[10] = {1.0, -INFINITY, NAN, -0.0, INFINITY, 0.0, -NAN, -1e-300, 1e300, -0.0};
    const int64_t want[10] = {4, 8, 0, 3, 5, 9, 7, 1, 2, 6};
    mm_error e = {0};
    mm_results_writer *w;
    const char *p = tu_path("inf.h5");
    cr_assert_eq(mm_results_create(p, t.axes, RF_AXES, 10, t.markout_ns, &w, &e), 0, "%s", e.msg);
    int32_t idx[10 * RF_AXES];
    mm_metrics m[10];
    for (int i = 0; i < 10; i++) {
        rf_row(&t, i, idx + i * RF_AXES, &m[i]);
        m[i].pnl = v[i];
    }
    cr_assert_eq(mm_results_write(w, 0, 10, idx, m, &e), 0, "%s", e.msg);
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    cr_assert_eq(mm_results_commit(w, &meta, &e), 0, "%s", e.msg);
    mm_results_reader *r;
    cr_assert_eq(mm_results_open(p, &r, &e), 0, "%s", e.msg);
    int64_t got[10];
    cr_assert_eq(mm_results_read_index(r, "pnl", 0, 10, got, &e), 0, "%s", e.msg);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(got[i], want[i], "entry %d: row %ld, expected %ld", i, (long)got[i],
                     (long)want[i]);
    mm_results_close(r);
    rf_free(&t);
}
