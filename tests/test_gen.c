/* Synthetic market: determinism (same seed, same bytes) and plausibility of the generated tape. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(gen, .fini = tu_cleanup);

static char *gen_cli(const char *seed, const char *file)
{
    const char *argv[] = {"mmsim",    "gen", "--seed", seed, "--events", "200000",
                          "--symbol", "ABC", "-o",     file, NULL};
    char *out;
    cr_assert_eq(tu_run(argv, &out, NULL), 0);
    char *fp = strstr(out, "fingerprint ");
    cr_assert(fp, "%s", out);
    char *r = strndup(fp + 12, 16);
    free(out);
    return r;
}

Test(gen, same_seed_same_fingerprint_other_seed_other)
{
    char *a = gen_cli("11", tu_path("a.h5"));
    char *b = gen_cli("11", tu_path("b.h5"));
    char *c = gen_cli("12", tu_path("c.h5"));
    cr_assert_str_eq(a, b);
    cr_assert_str_neq(a, c);
    free(a);
    free(b);
    free(c);
}

/* The fingerprint of a fixed small tape is part of the format contract: the same parameters must
 * give the same bytes on every machine and compiler. If this changes, the generator changed. */
Test(gen, golden_fingerprint_is_stable_across_machines)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 2026;
    p.events = 50000;
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0);
    uint64_t fp = mm_ticks_fingerprint(&t);
    cr_assert_eq(fp, UINT64_C(0xf773920afbd8c21e), "fingerprint %016llx", (unsigned long long)fp);
    mm_ticks_free(&t);
}

Test(gen, tape_is_valid_and_plausible)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 3;
    p.events = 400000;
    p.rate_hz = 1000;
    p.vol_ticks = 3;
    p.trade_frac = 0.2;
    p.max_spread = 4;
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_validate(&t, "gen", &e), 0, "%s", e.msg);
    mm_ticks_stats s;
    mm_ticks_summarize(&t, &s);
    cr_assert_geq(s.spread_min, 1);
    cr_assert_leq(s.spread_max, 4);
    cr_assert_gt(s.spread_max, 1, "spreads must vary");
    /* Trades: about 20% of events, both aggressor sides, each at the touch it hit. */
    double tf = (double)s.trades / (double)s.rows;
    cr_assert(tf > 0.18 && tf < 0.22, "trade fraction %f", tf);
    cr_assert_gt(s.buy_trades, s.trades / 3);
    cr_assert_gt(s.sell_trades, s.trades / 3);
    for (int64_t i = 1; i < t.n; i++) {
        if (t.trade_side[i] > 0) cr_assert_eq(t.trade_px[i], t.ask_px[i - 1], "row %ld", (long)i);
        if (t.trade_side[i] < 0) cr_assert_eq(t.trade_px[i], t.bid_px[i - 1], "row %ld", (long)i);
    }
    /* Event rate: duration close to events / rate; irregular spacing (not a fixed step). */
    double dur = (double)(s.t_last_ns - s.t_first_ns) * 1e-9;
    cr_assert(fabs(dur - 400.0) < 8.0, "duration %f s", dur);
    cr_assert_neq(t.ts_ns[2] - t.ts_ns[1], t.ts_ns[3] - t.ts_ns[2]);
    /* Mid volatility: variance of 10-second mid changes over 10, in ticks^2 per second, near vol^2.
     */
    mm_ticks_free(&t);
    p.events = 2000000;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    double sum2 = 0;
    int64_t k = 0, j = 0;
    double prev = (t.bid_px[0] + t.ask_px[0]) * 0.5;
    for (int64_t sec = 10; sec < 1990; sec += 10) {
        int64_t target = t.ts_ns[0] + sec * 1000000000LL;
        while (j < t.n && t.ts_ns[j] < target)
            j++;
        double mid = (t.bid_px[j - 1] + t.ask_px[j - 1]) * 0.5;
        sum2 += (mid - prev) * (mid - prev);
        prev = mid;
        k++;
    }
    double var = sum2 / (double)k / 10.0;
    cr_assert(var > 9.0 * 0.7 && var < 9.0 * 1.4, "mid variance %f ticks^2/s (vol^2 = 9)", var);
    mm_ticks_free(&t);
}

Test(gen, rejects_bad_parameters)
{
    const char *cases[][3] = {{"--events", "-5", "--events"},
                              {"--rate", "0", "--rate"},
                              {"--vol", "abc", "--vol"},
                              {"--max-spread", "0", "--max-spread"},
                              {"--symbol", "a/b", "symbol"},
                              {"--trade-frac", "0.95", "--trade-frac"},
                              {"--trade-persist", "1", "--trade-persist"},
                              {"--trade-persist", "nan", "--trade-persist"},
                              {"--trade-size", "-1", "--trade-size"},
                              {"--trade-size", "1000001", "--trade-size"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {"mmsim", "gen",           cases[i][0], cases[i][1],
                              "-o",    tu_path("x.h5"), NULL};
        char *err;
        int rc = tu_run(argv, NULL, &err);
        cr_assert_eq(rc, 2, "%s %s: exit %d", cases[i][0], cases[i][1], rc);
        cr_assert_eq(tu_lines(err), 1, "%s", err);
        cr_assert(strstr(err, cases[i][2]), "%s", err);
        free(err);
    }
    const char *argv[] = {"mmsim", "gen", "--events", "10", NULL};
    char *err;
    cr_assert_eq(tu_run(argv, NULL, &err), 2);
    cr_assert(strstr(err, "--output"), "%s", err);
    free(err);
}

/* trade_persist (docs/synthetic.md, step 0): right after a trade the next event is a trade of the
 * same side with probability b, so consecutive trades' sides have lag-1 correlation b and the
 * share of trade rows is trade_frac / (1 - b (1 - trade_frac)). 400,000 events at b = 0.8,
 * trade_frac 0.05: about 83,000 trades, so both are known within 1%. Out-of-range values (and
 * NaN) are refused by the library with the key's name. */
Test(gen, trade_persist_runs_trades_on)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 11;
    p.events = 400000;
    p.trade_frac = 0.05;
    p.trade_persist = 0.8;
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    int64_t trades = 0, same = 0, pairs = 0;
    int prev = 0;
    for (int64_t i = 0; i < t.n; i++) {
        if (!t.trade_sz[i]) continue;
        trades++;
        if (prev) {
            pairs++;
            same += t.trade_side[i] == prev;
        }
        prev = t.trade_side[i];
    }
    double corr = 2.0 * (double)same / (double)pairs - 1;
    double share = (double)trades / (double)t.n, want = 0.05 / (1 - 0.8 * 0.95);
    cr_assert(fabs(corr - 0.8) < 0.01, "lag-1 sign correlation %g", corr);
    cr_assert(fabs(share / want - 1) < 0.01, "trade share %g, want %g", share, want);
    mm_ticks_free(&t);
    const double bad[] = {-0.1, 1, NAN};
    for (int k = 0; k < 3; k++) {
        p.trade_persist = bad[k];
        cr_assert_eq(mm_gen_ticks(&p, &t, &e), -EINVAL);
        cr_assert(strstr(e.msg, "trade-persist"), "%s", e.msg);
    }
}

/* trade_size (docs/synthetic.md, step 4): a trade wants size(b0, trade_size), uniform on
 * 1..2 trade_size - 1, and takes at most the displayed size; 0 is max(1, mean_queue / 5), the
 * same bytes as before the parameter existed (the golden fingerprint of the defaults). The trades
 * the queue does not cap (it held at least 19 lots) are uniform on 1..19: mean 10, sd 5.5, so
 * over 15,000 of them the mean is 10 within 2% (about 4.5 standard errors). */
Test(gen, trade_size_sets_the_mean_trade)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 2026;
    p.events = 50000;
    mm_ticks t = {0};
    mm_error e = {0};
    p.trade_size = 0;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_fingerprint(&t), UINT64_C(0xf773920afbd8c21e));
    mm_ticks_free(&t);
    p.trade_size = 10; /* the default's own size: max(1, 50 / 5) */
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_fingerprint(&t), UINT64_C(0xf773920afbd8c21e));
    mm_ticks_free(&t);
    p.events = 200000;
    p.mean_queue = 500;
    p.trade_size = 10;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    double lots = 0, trades = 0;
    for (int64_t i = 1; i < t.n; i++) {
        /* Trades against a queue of at least 19 lots (the largest size wanted) are not capped. */
        int32_t q = t.trade_side[i] > 0 ? t.ask_sz[i - 1] : t.bid_sz[i - 1];
        if (t.trade_sz[i] == 0 || q < 19) continue;
        cr_assert(t.trade_sz[i] <= 19, "row %ld: %d lots", (long)i, t.trade_sz[i]);
        lots += t.trade_sz[i];
        trades++;
    }
    cr_assert(trades > 15000 && fabs(lots / trades / 10 - 1) < 0.02, "%g lots per trade (%g)",
              lots / trades, trades);
    mm_ticks_free(&t);
    const int32_t bad[] = {-1, 1000001};
    for (int k = 0; k < 2; k++) {
        p.trade_size = bad[k];
        cr_assert_eq(mm_gen_ticks(&p, &t, &e), -EINVAL);
        cr_assert(strstr(e.msg, "trade-size"), "%s", e.msg);
    }
}

/* ---- the output, checked before any work (issue 8, item 1) ---- */

static char *slurp_file(const char *path, size_t *n)
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

/* An HDF5 file with a root string attribute mmsim_format = tag (none when tag is NULL) and one
 * group. */
static void make_h5(const char *path, const char *tag)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(f >= 0);
    if (tag) {
        hid_t type = H5Tcopy(H5T_C_S1);
        H5Tset_size(type, H5T_VARIABLE);
        hid_t sp = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(f, "mmsim_format", type, sp, H5P_DEFAULT, H5P_DEFAULT);
        cr_assert(a >= 0 && H5Awrite(a, type, &tag) >= 0);
        H5Aclose(a);
        H5Sclose(sp);
        H5Tclose(type);
    }
    hid_t g = H5Gcreate2(f, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    cr_assert(H5Fclose(f) >= 0);
}

static int count_dir(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

Test(gen, refuses_an_existing_output_of_another_kind)
{
    const char *res = strdup(tu_path("results.h5")), *plain = strdup(tu_path("plain.h5")),
               *text = strdup(tu_path("notes.txt")), *dir = strdup(tu_path("adir"));
    make_h5(res, "mmsim-results/1");
    make_h5(plain, NULL);
    FILE *f = fopen(text, "w");
    fputs("my notes\n", f);
    fclose(f);
    cr_assert_eq(mkdir(dir, 0755), 0);
    const char *paths[3] = {res, plain, text};
    char want[3][1024];
    snprintf(want[0], sizeof want[0],
             "mmsim: gen: -o %s: is a mmsim-results/1 file, not a tick file; refusing to write "
             "into it\n",
             res);
    snprintf(
        want[1], sizeof want[1],
        "mmsim: gen: -o %s: is an HDF5 file that is not a tick file; refusing to write into it\n",
        plain);
    snprintf(
        want[2], sizeof want[2],
        "mmsim: gen: -o %s: exists and is not a tick file (not HDF5); refusing to overwrite it\n",
        text);
    for (int i = 0; i < 3; i++) {
        size_t n0, n1;
        char *before = slurp_file(paths[i], &n0);
        const char *argv[] = {"mmsim", "gen", "--events", "1000", "-o", paths[i], NULL};
        char *err;
        int rc = tu_run(argv, NULL, &err);
        cr_assert_eq(rc, 2, "%s: exit %d, %s", paths[i], rc, err);
        cr_assert_str_eq(err, want[i]);
        char *after = slurp_file(paths[i], &n1);
        cr_assert(n0 == n1 && !memcmp(before, after, n0), "%s was modified", paths[i]);
        free(before);
        free(after);
        free(err);
    }
    const char *argv[] = {"mmsim", "gen", "--events", "1000", "-o", dir, NULL};
    char *err, want_dir[1024];
    cr_assert_eq(tu_run(argv, NULL, &err), 2, "%s", err);
    snprintf(want_dir, sizeof want_dir, "mmsim: gen: -o %s: is a directory\n", dir);
    cr_assert_str_eq(err, want_dir);
    free(err);
    cr_assert_eq(count_dir(tu_tmpdir()), 4, "a temporary file was left behind");
    /* A tick file is the right kind: gen adds the instrument. */
    const char *ticks = tu_path("ticks.h5");
    const char *a1[] = {"mmsim", "gen", "--events", "500", "-o", ticks, NULL};
    const char *a2[] = {"mmsim", "gen", "--events", "500", "--symbol", "TWO", "-o", ticks, NULL};
    cr_assert_eq(tu_run(a1, NULL, NULL), 0);
    cr_assert_eq(tu_run(a2, NULL, NULL), 0);
    mm_error e = {0};
    int count = 0;
    cr_assert_eq(mm_ticks_list(ticks, NULL, 0, &count, &e), 0, "%s", e.msg);
    cr_assert_eq(count, 2);
}

Test(gen, rejects_non_finite_sizes_and_times_past_int64)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.events = 10;
    mm_ticks t = {0};
    mm_error e = {0};
    p.lot_size = INFINITY;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), -EINVAL);
    cr_assert(strstr(e.msg, "lot-size"), "%s", e.msg);
    p.lot_size = 1;
    p.tick_size = NAN;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), -EINVAL);
    cr_assert(strstr(e.msg, "tick-size"), "%s", e.msg);
    p.tick_size = 0.01;
    /* 1e-6 events/s: about 1e15 ns between events, so 20000 of them pass INT64_MAX ns (signed
     * overflow before). */
    p.rate_hz = 1e-6;
    p.vol_ticks = 0;
    p.events = 20000;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), -EINVAL);
    cr_assert(strstr(e.msg, "pass the largest time"), "%s", e.msg);
    cr_assert_null(t.mem_base);
    const char *argv[] = {"mmsim",    "gen",   "--rate", "0.000001",         "--vol", "0",
                          "--events", "20000", "-o",     tu_path("late.h5"), NULL};
    char *err;
    cr_assert_eq(tu_run(argv, NULL, &err), 2, "%s", err);
    cr_assert_str_eq(
        err,
        "mmsim: gen: --events: 20000 events at 1e-06/s from start-ns 1767364200000000000 pass the "
        "largest time (INT64_MAX ns, year 2262)\n");
    free(err);
    cr_assert_eq(count_dir(tu_tmpdir()), 0);
}

/* A writer killed during its final write leaves "<out>.tmp.<pid>": the next write of the same
 * output removes those of dead pids and keeps those of live ones (another writer's). */
Test(gen, stale_temporaries_of_dead_writers_are_removed)
{
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    cr_assert(dead > 0);
    cr_assert_eq(waitpid(dead, NULL, 0), dead); /* reaped: the pid no longer exists */
    char stale[600], live[600];
    snprintf(stale, sizeof stale, "%s.tmp.%ld", tu_path("s.h5"), (long)dead);
    snprintf(live, sizeof live, "%s.tmp.%ld", tu_path("s.h5"), (long)getpid());
    FILE *f = fopen(stale, "w");
    cr_assert(f);
    fclose(f);
    cr_assert((f = fopen(live, "w")));
    fclose(f);
    /* The test process is alive while the mmsim child runs: its file must stay. */
    free(gen_cli("3", tu_path("s.h5")));
    cr_assert_neq(access(stale, F_OK), 0, "%s was not removed", stale);
    cr_assert_eq(access(live, F_OK), 0, "%s of a live pid was removed", live);
    unlink(live);
}
