/* A user's first hour (issue 29): a grid range's values are the decimals a person writes, numbers
 * print as the shortest text that reads back, and a sweep without a terminal writes a plain
 * progress line with an ETA every N seconds, the ETA based on the finished work weighted by its
 * cost (src/cli/sweep_progress.c is compiled in for sweep_eta_s). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "sweep_progress.h"
#include "testutil.h"

TestSuite(grid_values, .fini = tu_cleanup);
TestSuite(progress, .fini = tu_cleanup);

static mm_grid *grid_with(const char *key, const char *spec)
{
    const char *tapes[1] = {"t.h5#AAA"};
    mm_grid *g = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, key, spec, &e), 0, "%s=%s: %s", key, spec, e.msg);
    return g;
}

/* The axis of key=spec holds exactly the values of want (texts a person writes), each the double
 * strtod gives for that text. */
static void expect_axis(const char *key, const char *spec, const char *const *want, int n)
{
    mm_grid *g = grid_with(key, spec);
    cr_assert_eq(mm_grid_axis_size(g, 1), n, "%s=%s: %d values", key, spec,
                 mm_grid_axis_size(g, 1));
    int32_t idx[2];
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(mm_grid_axis_text(g, 1, i), want[i], "%s=%s: value %d", key, spec, i);
        mm_params p;
        cr_assert_eq(mm_grid_combo(g, i, &p, idx), 0);
        char got[64];
        cr_assert_eq(mm_params_get(&p, key, got, sizeof got), 0);
        cr_assert_str_eq(got, want[i], "%s=%s: value %d", key, spec, i);
        double v;
        cr_assert_eq(mm_params_get_num(&p, key, &v), 0);
        cr_assert(v == strtod(want[i], NULL), "%s=%s: value %d is %.17g", key, spec, i, v);
    }
    mm_grid_free(g);
}

Test(grid_values, a_range_s_values_are_the_decimals_a_person_writes)
{
    /* 0.1 + 2 x 0.1 is 0.30000000000000004 in binary; the range gives 0.3. */
    const char *fee[] = {"0.1", "0.2", "0.3"};
    expect_axis("maker_fee_bps", "0.1:0.3:0.1", fee, 3);
    const char *tenths[] = {"0",   "0.1", "0.2", "0.3", "0.4", "0.5",
                            "0.6", "0.7", "0.8", "0.9", "1"};
    expect_axis("spread", "0:1:0.1", tenths, 11);
    const char *rebate[] = {"-0.2", "-0.1", "0", "0.1", "0.2"};
    expect_axis("maker_fee_bps", "-0.2:0.2:0.1", rebate, 5);
    const char *nano[] = {"1e-09", "2e-09", "3e-09", "4e-09", "5e-09"};
    expect_axis("spread", "1e-9:5e-9:1e-9", nano, 5);
    const char *mixed[] = {"0.05", "1.3", "2.55"}; /* bounds and step of different scales */
    expect_axis("spread", "0.05:2.55:1.25", mixed, 3);
    const char *ints[] = {"1", "4", "7", "10"};
    expect_axis("inv_limit", "1:10:3", ints, 4);
    const char *big[] = {"1000000", "1500000", "2000000"};
    expect_axis("latency_ns", "1e6:2e6:5e5", big, 3);
}

Test(grid_values, the_count_keeps_its_tolerance_and_long_bounds_fall_back_to_binary)
{
    /* (0.3 - 0) / 0.1 is 2.9999999999999996 in binary: the 1e-9 tolerance counts 4 values. */
    const char *four[] = {"0", "0.1", "0.2", "0.3"};
    expect_axis("spread", "0:0.3:0.1", four, 4);
    /* 19 significant digits do not fit the decimal computation: lo + k step in binary, printed
     * as the shortest text of that double. */
    mm_grid *g = grid_with("spread", "0.1000000000000000001:0.3:0.1");
    cr_assert_eq(mm_grid_axis_size(g, 1), 3);
    double lo = strtod("0.1000000000000000001", NULL);
    for (int k = 0; k < 3; k++) {
        double want = lo + k * 0.1;
        cr_assert(strtod(mm_grid_axis_text(g, 1, k), NULL) == want, "%s",
                  mm_grid_axis_text(g, 1, k));
    }
    cr_assert_str_eq(mm_grid_axis_text(g, 1, 2), "0.30000000000000004");
    mm_grid_free(g);
}

Test(grid_values, show_and_export_print_the_shortest_text)
{
    const char *t = tu_path("t.h5");
    const char *gen[] = {"mmsim", "gen", "--seed", "3", "--events", "3000", "-o", t, NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *r = tu_path("r.h5");
    const char *sw[] = {"mmsim",   "sweep", t, "--grid", "maker_fee_bps=0.1:0.3:0.1",
                        "--quiet", "-o",    r, NULL};
    cr_assert_eq(tu_run(sw, NULL, NULL), 0);
    char *out, *err;
    const char *show[] = {"mmsim", "show", r, "--where", "maker_fee_bps=0.3", "--top", "1", NULL};
    cr_assert_eq(tu_run(show, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, " 0.3 ") && !strstr(out, "0.30000000000000004"), "%s", out);
    free(out);
    free(err);
    const char *csv = tu_path("r.csv");
    const char *ex[] = {"mmsim", "export", r, "-o", csv, NULL};
    cr_assert_eq(tu_run(ex, NULL, NULL), 0);
    FILE *f = fopen(csv, "r");
    char line[4096];
    int rows = 0;
    cr_assert(fgets(line, sizeof line, f));
    cr_assert(!strncmp(line, "id,tape,maker_fee_bps,", 22), "%s", line);
    const char *want[] = {"0.1,", "0.2,", "0.3,"};
    while (fgets(line, sizeof line, f)) { /* the axis value: the third field */
        char *c = strchr(strchr(line, ',') + 1, ',') + 1;
        cr_assert(rows < 3 && !strncmp(c, want[rows], 4), "%s", line);
        rows++;
    }
    fclose(f);
    cr_assert_eq(rows, 3);
}

/* ---- progress ---- */

typedef struct eta_log {
    int n;
    mm_sweep_progress p[4096];
} eta_log;

/* Each report, with elapsed_s replaced by the CPU time of this thread (the serial engine computes
 * here): the ETA's rule is tested on the clock of the work itself, which other processes on a
 * shared machine (or the other tests of this binary) do not slow down. */
static void log_call(const mm_sweep_progress *p, void *user)
{
    eta_log *l = user;
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    if (l->n < 4096) {
        l->p[l->n] = *p;
        l->p[l->n++].elapsed_s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
}

/* A tape of n events written with the library. */
static const char *tape(int64_t n)
{
    const char *p = tu_path("day.h5");
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 11;
    gp.events = n;
    strcpy(gp.symbol, "AAA");
    tu_gen_write(p, &gp);
    return p;
}

Test(progress, monte_carlo_eta_at_half_way_is_within_25_percent_of_the_truth, .timeout = 240)
{
    /* A uniform Monte Carlo sweep: the maker fee changes no fill, and random latency makes every
     * path its own run (paths share no step), so every chunk costs the same. */
#if defined(__SANITIZE_ADDRESS__)
    const char *t = tape(60000);
#else
    const char *t = tape(300000);
#endif
    char spec[600];
    snprintf(spec, sizeof spec, "%s#AAA", t);
    const char *tapes[1] = {spec};
    mm_grid *g = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "maker_fee_bps", "0:0.19:0.01", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_dist", "exponential", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_ns", "100000", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "queue_join", "uniform", &e), 0, "%s", e.msg);
    static eta_log l;
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_SERIAL;
    o.chunk = 1; /* 20 chunks of 1 combination x 16 paths */
    o.paths = 16;
    o.objective = "pnl_mean";
    o.config_text = "eta";
    o.progress = log_call;
    o.progress_user = &l;
    o.progress_interval_s = 0;
    mm_sweep_report rep;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("mc.h5"), &rep, &e), 0, "%s", e.msg);
    mm_grid_free(g);
    for (int i = l.n - 1; i >= 0; i--) /* the CPU clock from the first report on */
        l.p[i].elapsed_s -= l.p[0].elapsed_s;
    const mm_sweep_progress *end = &l.p[l.n - 1];
    cr_assert(end->final);
    cr_assert_eq(end->updates_finished, end->updates_total);
    /* 25% of the truth; 50% under ASan, whose chunks do not cost the same: its quarantine keeps
     * freed blocks, so early chunks fault in fresh pages (system time of this thread), and a page
     * fault's cost on a shared 2-core machine follows what the neighbouring tests do (CI once saw
     * the first half take 0.711 s of CPU and the second 0.508 s). */
#if defined(__SANITIZE_ADDRESS__)
    const double tol = 0.5;
#else
    const double tol = 0.25;
#endif
    for (int i = 0; i < l.n; i++) {
        const mm_sweep_progress *p = &l.p[i];
        cr_assert_geq(p->updates_finished, p->updates_done);
        if (p->final || 2 * p->updates_finished < p->updates_total) continue;
        double eta = sweep_eta_s(p->updates_finished, p->updates_total, p->elapsed_s);
        double truth = end->elapsed_s - p->elapsed_s;
        cr_log_info("at %.1f%%: ETA %.3f s, truth %.3f s (CPU)",
                    100.0 * (double)p->updates_finished / (double)p->updates_total, eta, truth);
        cr_assert(fabs(eta - truth) <= tol * truth,
                  "at %.1f%% after %.3f s: ETA %.3f s, the run took %.3f s more",
                  100.0 * (double)p->updates_finished / (double)p->updates_total, p->elapsed_s, eta,
                  truth);
        return;
    }
    cr_assert_fail("no report at half-way");
}

Test(progress, a_log_gets_a_plain_line_with_an_eta_every_n_seconds, .timeout = 240)
{
#if defined(__SANITIZE_ADDRESS__)
    const char *t = tape(100000);
#else
    const char *t = tape(400000);
#endif
    const char *a[] = {"mmsim",
                       "sweep",
                       t,
                       "--grid",
                       "spread=0:9",
                       "--grid",
                       "inv_limit=1:4",
                       "--set",
                       "latency_dist=exponential",
                       "--set",
                       "queue_join=uniform",
                       "--paths",
                       "6",
                       "--progress-s",
                       "0.2", /* at least 3 lines from 0.4 s on: the sweep takes about 1 s */
                       "-o",
                       tu_path("p.h5"),
                       NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    /* Plain lines (no carriage return), each with the counts, the elapsed time and an ETA, the
     * last one "done". */
    cr_assert_eq(strchr(err, '\r'), NULL, "%s", err);
    int n = tu_lines(err);
    cr_assert_geq(n, 3, "%s (stdout: %s)", err, out);
    char *line = err, *next;
    for (int i = 0; i < n; i++, line = next + 1) {
        next = strchr(line, '\n');
        cr_assert(next, "%s", err);
        *next = 0;
        cr_assert(!strncmp(line, "sweep: ", 7) && strstr(line, "/40 combinations x 6 paths (") &&
                      strstr(line, "/240 paths") && strstr(line, ", elapsed "),
                  "%s", line);
        if (i + 1 < n)
            cr_assert(strstr(line, ", ETA "), "%s", line);
        else
            cr_assert(strstr(line, "40/40 combinations") && strstr(line, "(100.0%)") &&
                          strstr(line, ", done"),
                      "%s", line);
    }
    free(out);
    free(err);
    /* A run shorter than the interval (60 s by default) prints nothing on stderr. */
    const char *b[] = {"mmsim", "sweep", t, "--grid", "spread=0:3", "-o", tu_path("q.h5"), NULL};
    cr_assert_eq(tu_run(b, NULL, &err), 0, "%s", err);
    cr_assert_str_eq(err, "");
    free(err);
}

Test(progress, the_line_says_done_total_rate_elapsed_eta)
{
    mm_sweep_progress p = {0};
    p.combos_total = 6400;
    p.combos_finished = 1200;
    p.updates_total = 6400;
    p.updates_finished = 1200;
    char b[320];
    sweep_progress_line(&p, 1, 34, b, sizeof b);
    cr_assert_str_eq(b, "sweep: 1200/6400 combinations (18.8%), 35.3 combos/s, elapsed 34 s, "
                        "ETA 2 min 27 s");
    sweep_progress_line(&p, 200, 34, b, sizeof b);
    cr_assert_str_eq(b, "sweep: 1200/6400 combinations x 200 paths (18.8%), 240000/1280000 paths, "
                        "7059 paths/s, elapsed 34 s, ETA 2 min 27 s");
    p.combos_finished = p.updates_finished = 0;
    sweep_progress_line(&p, 1, 0.5, b, sizeof b);
    cr_assert_str_eq(b, "sweep: 0/6400 combinations (0.0%), elapsed 0.5 s, ETA --");
    p.combos_finished = p.updates_finished = 6400;
    p.final = 1;
    sweep_progress_line(&p, 1, 4000, b, sizeof b);
    cr_assert_str_eq(b, "sweep: 6400/6400 combinations (100.0%), 1.6 combos/s, elapsed 1 h 06 min, "
                        "done");
    cr_assert(sweep_eta_s(0, 10, 5) < 0);
    cr_assert(sweep_eta_s(5, 10, 5) == 5);
}

/* ---- run --from on a Monte Carlo table ---- */

TestSuite(run_from, .fini = tu_cleanup);

Test(run_from, a_monte_carlo_row_without_path_says_path_0, .timeout = 120)
{
    const char *t = tu_path("t.h5");
    const char *gen[] = {"mmsim", "gen", "--seed", "3", "--events", "3000", "-o", t, NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *mc = tu_path("mc.h5"), *one = tu_path("one.h5");
    const char *sw[] = {
        "mmsim",   "sweep", t,         "--grid", "spread=1:3", "--set", "latency_dist=exponential",
        "--paths", "5",     "--quiet", "-o",     mc,           NULL};
    cr_assert_eq(tu_run(sw, NULL, NULL), 0);
    const char *sw1[] = {"mmsim", "sweep", t, "--grid", "spread=1:3", "--quiet", "-o", one, NULL};
    cr_assert_eq(tu_run(sw1, NULL, NULL), 0);
    char *err;
    const char *r[] = {"mmsim", "run", "--from", mc, "--id", "2", NULL};
    cr_assert_eq(tu_run(r, NULL, &err), 0, "%s", err);
    char want[700];
    snprintf(want, sizeof want, "mmsim: run: --from %s --id 2: path 0 of 5; --path N for another\n",
             mc);
    cr_assert(strstr(err, want), "%s", err);
    free(err);
    const char *rp[] = {"mmsim", "run", "--from", mc, "--id", "2", "--path", "4", NULL};
    cr_assert_eq(tu_run(rp, NULL, &err), 0, "%s", err);
    cr_assert_eq(strstr(err, "--path N for another"), NULL, "%s", err);
    free(err);
    const char *r1[] = {"mmsim", "run", "--from", one, "--id", "2", NULL};
    cr_assert_eq(tu_run(r1, NULL, &err), 0, "%s", err);
    cr_assert_eq(strstr(err, "--path N"), NULL, "%s", err);
    free(err);
}

TestSuite(tapes, .fini = tu_cleanup);

/* A file's instruments are all swept when none is named, also past the 16 that the first listing
 * has room for (sweep_set_tapes lists again with room for all), in the order of their names. */
Test(tapes, a_file_with_18_instruments_sweeps_all_of_them, .timeout = 120)
{
    const char *f = tu_path("many.h5");
    for (int k = 17; k >= 0; k--) { /* written out of order: the listing sorts them */
        char sym[16], seed[16];
        snprintf(sym, sizeof sym, "S%02d", k);
        snprintf(seed, sizeof seed, "%d", k + 1);
        const char *g[] = {"mmsim",    "gen", "--seed", seed, "--events", "2000",
                           "--symbol", sym,   "-o",     f,    NULL};
        char *err;
        cr_assert_eq(tu_run(g, NULL, &err), 0, "%s: %s", sym, err);
        free(err);
    }
    const char *out_h5 = tu_path("many_out.h5");
    const char *a[] = {"mmsim", "sweep", f, "--grid", "spread=1:2", "-o", out_h5, NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "36 combinations (18 tapes)"), "%s", out);
    free(out);
    free(err);
    mm_results_reader *r = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(out_h5, &r, &e), 0, "%s", e.msg);
    const mm_results_info *info = mm_results_describe(r);
    int t = mm_results_axis_find(info, "tape");
    cr_assert_geq(t, 0);
    cr_assert_eq(info->axes[t].n, 18);
    for (int k = 0; k < 18; k++) {
        char want[16], got[1024];
        snprintf(want, sizeof want, "#S%02d", k);
        mm_results_axis_format(&info->axes[t], k, got, sizeof got);
        cr_assert(strstr(got, want) && strlen(strstr(got, want)) == strlen(want), "tape %d: %s", k,
                  got);
    }
    mm_results_close(r);
}

TestSuite(output_kind, .fini = tu_cleanup);

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    cr_assert(a && b, "%s -> %s", from, to);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, b), n);
    fclose(a);
    cr_assert_eq(fclose(b), 0);
}

/* docs/results.md "User block": a results file starts with "mmsim_format=<tag>\n" and zeros to byte
 * 512, where the HDF5 superblock starts; the sweep replaces such a file without opening it with
 * HDF5, still replaces an older results file without the block (checked through HDF5), and still
 * refuses a tick file, also one whose first bytes claim to be a results file but whose byte 512 is
 * not HDF5's signature. */
Test(output_kind, results_files_carry_their_tag_in_a_user_block, .timeout = 120)
{
    const char *t = tu_path("t.h5"), *o = tu_path("o.h5");
    const char *gen[] = {"mmsim", "gen", "--seed", "5", "--events", "3000", "-o", t, NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *sw[] = {"mmsim",   "sweep",     t,    "--grid", "spread=1:3",
                        "--quiet", "--replace", "-o", o,        NULL};
    char *err;
    cr_assert_eq(tu_run(sw, NULL, &err), 0, "%s", err);
    free(err);
    unsigned char b[520];
    FILE *f = fopen(o, "rb");
    cr_assert(f);
    cr_assert_eq(fread(b, 1, sizeof b, f), sizeof b);
    fclose(f);
    const char tag[] = "mmsim_format=mmsim-results/2\n";
    cr_assert_eq(memcmp(b, tag, sizeof tag - 1), 0, "%.40s", (const char *)b);
    for (size_t i = sizeof tag - 1; i < 512; i++)
        cr_assert_eq(b[i], 0, "byte %zu", i);
    cr_assert_eq(memcmp(b + 512, "\x89HDF\r\n\x1a\n", 8), 0);
    /* The block is the file's: it reads and verifies as before. */
    const char *v[] = {"mmsim", "verify", o, NULL};
    cr_assert_eq(tu_run(v, NULL, &err), 0, "%s", err);
    free(err);
    /* Replaced again (the fast path), and an older results file without the block. */
    cr_assert_eq(tu_run(sw, NULL, &err), 0, "%s", err);
    free(err);
    copy_file(tu_fixture("results-int32.h5"), o);
    cr_assert_eq(tu_run(sw, NULL, &err), 0, "an old results file: %s", err);
    free(err);
    /* A tick file is refused; so is one whose first bytes copy a results file's block (its byte
     * 512 is not the superblock: HDF5 answers, and it is a tick file). */
    const char *tt[] = {"mmsim",   "sweep",     t,    "--grid",         "spread=1:3",
                        "--quiet", "--replace", "-o", tu_path("t2.h5"), NULL};
    copy_file(t, tu_path("t2.h5"));
    cr_assert_eq(tu_run(tt, NULL, &err), 2);
    cr_assert(strstr(err, "is a mmsim-ticks/1 file, not a results file"), "%s", err);
    free(err);
    f = fopen(tu_path("t2.h5"), "r+b");
    cr_assert(f);
    cr_assert_eq(fwrite(tag, 1, sizeof tag - 1, f), sizeof tag - 1);
    fclose(f);
    cr_assert_eq(tu_run(tt, NULL, &err), 2);
    cr_assert(strstr(err, "refusing to write into it") || strstr(err, "refusing to overwrite it"),
              "%s", err);
    free(err);
}
