/* Monte Carlo sweeps (docs/results.md "Monte Carlo", docs/montecarlo.md "Paths per combination"):
 * the same seed gives the same bytes across engines, worker counts, chunk sizes and a resume;
 * another seed gives other numbers; one path is the per-run table; every summary equals its
 * formula over the kept paths; the objective can be any summary; bad settings are refused before
 * any state exists; rerun, verify and run --from work on the table. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(montecarlo, .fini = tu_cleanup);

/* Six combinations (spread x inv_limit) on a small generated tape, with exponential latency and
 * uniform queue joins: every path draws its own latencies and queue positions. */
static mm_grid *grid_random(int draws)
{
    mm_grid *g = NULL;
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 3000, 11);
    const char *p = tu_path("t.h5");
    if (access(p, F_OK) != 0) cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    char spec[600];
    snprintf(spec, sizeof spec, "%s#%s", p, t.inst.symbol);
    mm_ticks_free(&t);
    const char *tapes[1] = {spec};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0:2:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "3,8", &e), 0, "%s", e.msg);
    if (draws) {
        cr_assert_eq(mm_grid_set(g, "latency_dist", "exponential", &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_set(g, "latency_ns", "300000", &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_set(g, "queue_join", "uniform", &e), 0, "%s", e.msg);
    }
    return g;
}

static mm_sweep_opts mc_opts(int engine, int workers, int64_t chunk, uint64_t seed, int64_t paths,
                             int keep)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = engine;
    o.workers = workers;
    o.chunk = chunk;
    o.seed = seed;
    o.paths = paths;
    o.keep_paths = keep;
    o.objective = paths > 1 ? "pnl_p5" : "pnl";
    o.config_text = "test";
    return o;
}

static uint64_t run_hash(const mm_grid *g, const mm_sweep_opts *o, const char *name)
{
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, o, tu_path(name), &rep, &e), 0, "%s: %s", name, e.msg);
    return rep.content_hash;
}

Test(montecarlo, same_seed_same_bytes_across_engines_workers_and_chunks, .timeout = 240)
{
    mm_grid *g = grid_random(1);
    uint64_t ref = 0;
    int n = 0, runs = 0;
    while (mm_sweep_engine_name(n))
        n++;
    for (int en = 0; en < n; en++)
        for (int chunk = 1; tu_engine_runs(en) && chunk <= 4; chunk += 3) {
            mm_sweep_opts o = mc_opts(en, chunk == 1 ? 2 : 1, chunk, 9, 7, 1);
            char name[32];
            snprintf(name, sizeof name, "mc%d_%d.h5", en, chunk);
            uint64_t h = run_hash(g, &o, name);
            if (runs++ == 0) ref = h;
            cr_assert_eq(h, ref, "%s, chunk %d", mm_sweep_engine_name(en), chunk);
        }
    /* Another seed: other numbers. */
    mm_sweep_opts o = mc_opts(MM_ENGINE_SERIAL, 1, 0, 10, 7, 1);
    cr_assert_neq(run_hash(g, &o, "mc_seed10.h5"), ref, "another seed, the same table");
    /* The summaries' table without /paths differs from the one with it (the hash covers /paths)
     * but holds the same summary rows. */
    o = mc_opts(MM_ENGINE_SERIAL, 1, 0, 9, 7, 0);
    run_hash(g, &o, "mc_nokeep.h5");
    mm_results_reader *a = NULL, *b = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(tu_path("mc_nokeep.h5"), &a, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_open(tu_path("mc0_1.h5"), &b, &e), 0, "%s", e.msg);
    const mm_results_info *ia = mm_results_describe(a), *ib = mm_results_describe(b);
    cr_assert_eq(ia->paths, 7);
    cr_assert_eq(ia->has_paths, 0);
    cr_assert_eq(ib->has_paths, 1);
    cr_assert_eq(ia->n_metrics, MM_RESULTS_SUMMARY_METRICS);
    mm_results_value va[6 * MM_RESULTS_SUMMARY_METRICS], vb[6 * MM_RESULTS_SUMMARY_METRICS];
    cr_assert_eq(mm_results_read_values(a, 0, 6, NULL, va, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_read_values(b, 0, 6, NULL, vb, &e), 0, "%s", e.msg);
    cr_assert_eq(memcmp(va, vb, sizeof va), 0);
    /* mm_metrics is one run's: refused on a summary table. */
    mm_metrics m;
    cr_assert_eq(mm_results_read(a, 0, 1, NULL, &m, &e), MM_EUSAGE);
    mm_results_close(a);
    mm_results_close(b);
    mm_grid_free(g);
}

Test(montecarlo, one_path_is_the_table_of_one_run)
{
    mm_grid *g = grid_random(1);
    mm_sweep_opts o = mc_opts(MM_ENGINE_SERIAL, 1, 0, 9, 1, 0);
    uint64_t one = run_hash(g, &o, "one.h5");
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_SERIAL;
    o.seed = 9;
    o.config_text = "test";
    cr_assert_eq(run_hash(g, &o, "default.h5"), one);
    mm_results_reader *r = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(tu_path("one.h5"), &r, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_describe(r)->paths, 1);
    cr_assert_eq(mm_results_describe(r)->n_metrics, MM_RESULTS_METRICS);
    mm_results_close(r);
    mm_grid_free(g);
}

/* Stop after the second journaled chunk. */
static atomic_int stop_flag;
static void stop_after_two(const mm_sweep_progress *p, void *user)
{
    (void)user;
    if (p->chunks_done >= 2) atomic_store(&stop_flag, 1);
}

Test(montecarlo, an_interrupted_run_resumes_to_the_same_bytes, .timeout = 120)
{
    mm_grid *g = grid_random(1);
    mm_sweep_opts o = mc_opts(MM_ENGINE_SERIAL, 1, 1, 9, 7, 1);
    uint64_t ref = run_hash(g, &o, "whole.h5");
    o.progress = stop_after_two;
    o.progress_interval_s = 0;
    o.cancel = &stop_flag;
    atomic_store(&stop_flag, 0);
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("cut.h5"), &rep, &e), MM_EINTERRUPTED, "%s", e.msg);
    cr_assert_eq(access(tu_path("cut.h5"), F_OK), -1, "no table after a stop");
    /* A resume with other paths is another run: refused, naming the difference. */
    mm_sweep_opts other = o;
    other.paths = 8;
    other.cancel = NULL;
    other.progress = NULL;
    other.resume = 1;
    cr_assert_eq(mm_sweep_run(g, &other, tu_path("cut.h5"), &rep, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "paths"), "%s", e.msg);
    o.cancel = NULL;
    o.progress = NULL;
    o.resume = 1;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("cut.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_gt(rep.chunks_resumed, 0);
    cr_assert_eq(rep.content_hash, ref);
    mm_grid_free(g);
}

/* The summaries of combination k equal their definitions over its kept paths (the same
 * formulas written independently here: sorted copies, linear quantiles, ceil(n/20) tail). */
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quant(const double *s, int n, double q)
{
    double h = (n - 1) * q;
    int j = (int)floor(h);
    return j >= n - 1 ? s[n - 1] : s[j] + (h - j) * (s[j + 1] - s[j]);
}

Test(montecarlo, summaries_equal_their_formulas_over_the_kept_paths, .timeout = 120)
{
    mm_grid *g = grid_random(1);
    enum { P = 23, N = 6 };
    mm_sweep_opts o = mc_opts(MM_ENGINE_THREADS, 2, 2, 5, P, 1);
    run_hash(g, &o, "sum.h5");
    mm_results_reader *r = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(tu_path("sum.h5"), &r, &e), 0, "%s", e.msg);
    const mm_results_info *in = mm_results_describe(r);
    mm_results_value v[N * MM_RESULTS_SUMMARY_METRICS];
    mm_metrics m[N * P];
    cr_assert_eq(mm_results_read_values(r, 0, N, NULL, v, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_read_paths(r, 0, N * P, m, &e), 0, "%s", e.msg);
    int c_mean = mm_results_column_find(in, "pnl_mean"),
        c_std = mm_results_column_find(in, "pnl_std"), c_p5 = mm_results_column_find(in, "pnl_p5"),
        c_p50 = mm_results_column_find(in, "pnl_p50"),
        c_cv = mm_results_column_find(in, "pnl_close_cvar5"),
        c_loss = mm_results_column_find(in, "p_loss"),
        c_fills = mm_results_column_find(in, "fills_bid_mean");
    cr_assert(c_mean >= 0 && c_std >= 0 && c_p5 >= 0 && c_p50 >= 0 && c_cv >= 0 && c_loss >= 0 &&
              c_fills >= 0);
    cr_assert_eq(mm_results_column_find(in, "pnl"), c_mean, "a per-run name finds its mean");
    int spread_differs = 0;
    for (int k = 0; k < N; k++) {
        double x[P], xc[P], sum = 0, ss = 0, fills = 0;
        int loss = 0;
        for (int p = 0; p < P; p++) {
            x[p] = m[k * P + p].pnl;
            xc[p] = m[k * P + p].pnl_close;
            sum += x[p];
            fills += (double)m[k * P + p].fills_bid;
            loss += x[p] < 0;
        }
        double mean = sum / P;
        for (int p = 0; p < P; p++)
            ss += (x[p] - mean) * (x[p] - mean);
        spread_differs |= ss > 0;
        qsort(x, P, sizeof *x, cmp_d);
        qsort(xc, P, sizeof *xc, cmp_d);
        int tail = (P + 19) / 20;
        double cv = 0;
        for (int p = 0; p < tail; p++)
            cv += xc[p];
        const mm_results_value *row = &v[k * MM_RESULTS_SUMMARY_METRICS];
        cr_assert_eq(row[c_mean].f64, mean, "combination %d", k);
        cr_assert_eq(row[c_std].f64, sqrt(ss / (P - 1)), "combination %d", k);
        cr_assert_eq(row[c_p5].f64, quant(x, P, 0.05), "combination %d", k);
        cr_assert_eq(row[c_p50].f64, quant(x, P, 0.5), "combination %d", k);
        cr_assert_eq(row[c_cv].f64, cv / tail, "combination %d", k);
        cr_assert_eq(row[c_loss].f64, (double)loss / P, "combination %d", k);
        cr_assert_eq(row[c_fills].f64, fills / P, "combination %d", k);
    }
    cr_assert(spread_differs, "every combination's paths gave the same pnl: nothing was drawn");
    /* The stored index ranks by pnl_p5, the objective, largest first. */
    int64_t rows[N];
    cr_assert_eq(mm_results_read_index(r, "pnl_p5", 0, N, rows, &e), 0, "%s", e.msg);
    for (int i = 1; i < N; i++)
        cr_assert_geq(v[rows[i - 1] * MM_RESULTS_SUMMARY_METRICS + c_p5].f64,
                      v[rows[i] * MM_RESULTS_SUMMARY_METRICS + c_p5].f64);
    mm_results_close(r);
    mm_grid_free(g);
}

Test(montecarlo, bad_settings_are_refused_before_any_state)
{
    mm_error e = {0};
    mm_sweep_report rep;
    struct {
        int draws;
        int64_t paths;
        int keep;
        const char *objective, *msg;
    } cases[] = {
        {1, 0, 0, "pnl", "paths: 0 must be in [1, 1000000]"},
        {1, 1000001, 0, "pnl", "paths: 1000001"},
        {1, 1, 1, "pnl", "keep_paths: needs more than one path"},
        {0, 5, 0, "pnl_mean", "no combination draws a random number"},
        {1, 5, 0, "pnl", "objective: 'pnl' is not a Monte Carlo summary metric column"},
        {1, 5, 0, "pnl_p7", "objective: 'pnl_p7'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mm_grid *g = grid_random(cases[i].draws);
        mm_sweep_opts o = mc_opts(MM_ENGINE_SERIAL, 1, 0, 1, cases[i].paths, cases[i].keep);
        o.objective = cases[i].objective;
        const char *out = tu_path("bad.h5");
        cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), MM_EUSAGE, "case %zu", i);
        cr_assert(strstr(e.msg, cases[i].msg), "case %zu: %s", i, e.msg);
        char j[600];
        snprintf(j, sizeof j, "%s.journal", out);
        cr_assert_eq(access(out, F_OK), -1);
        cr_assert_eq(access(j, F_OK), -1);
        mm_grid_free(g);
    }
}

Test(montecarlo, the_command_line_reruns_verifies_and_replays_one_path, .timeout = 180)
{
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 3000, 11);
    const char *tape = tu_path("cli.h5"), *out = tu_path("cli_mc.h5");
    cr_assert_eq(mm_ticks_write(tape, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
    const char *sweep[] = {"mmsim",
                           "sweep",
                           tape,
                           "--grid",
                           "spread=0,1",
                           "--grid",
                           "inv-limit=3,8",
                           "--set",
                           "latency_dist=lognormal",
                           "--set",
                           "latency_ns=300000",
                           "--paths",
                           "9",
                           "--keep-paths",
                           "--objective",
                           "min:pnl_std",
                           "--quiet",
                           "-o",
                           out,
                           NULL};
    char *so, *se;
    cr_assert_eq(tu_run(sweep, &so, &se), 0, "%s", se);
    free(so);
    free(se);
    /* show ranks by the recorded objective and direction, and prints the summaries. */
    const char *show[] = {"mmsim", "show", out, NULL};
    cr_assert_eq(tu_run(show, &so, &se), 0, "%s", se);
    cr_assert(strstr(so, "paths     9 per combination"), "%s", so);
    cr_assert(strstr(so, "by pnl_std ascending"), "%s", so);
    cr_assert(strstr(so, "pnl_cvar5"), "%s", so);
    free(so);
    free(se);
    const char *verify[] = {"mmsim", "verify", out, NULL};
    cr_assert_eq(tu_run(verify, &so, &se), 0, "%s", se);
    free(so);
    free(se);
    const char *again = tu_path("again.h5");
    const char *rerun[] = {"mmsim", "rerun", out, "-o", again, NULL};
    cr_assert_eq(tu_run(rerun, &so, &se), 0, "%s", se);
    cr_assert(strstr(se, "reproduced") || strstr(so, "reproduced"), "%s%s", so, se);
    free(so);
    free(se);
    /* One path of one row, alone: its metrics equal its /paths row. */
    const char *one[] = {"mmsim", "run", "--from", out, "--id", "2", "--path", "5", NULL};
    cr_assert_eq(tu_run(one, &so, &se), 0, "%s", se);
    cr_assert(strstr(se, "every metric equals the stored row"), "%s", se);
    free(so);
    free(se);
    const char *far[] = {"mmsim", "run", "--from", out, "--id", "2", "--path", "9", NULL};
    cr_assert_eq(tu_run(far, &so, &se), 2, "%s", se);
    cr_assert(strstr(se, "has paths 0 to 8"), "%s", se);
    free(so);
    free(se);
    /* export writes the summary columns. */
    const char *csv = tu_path("mc.csv");
    const char *exp[] = {"mmsim", "export", out, "-o", csv, NULL};
    cr_assert_eq(tu_run(exp, &so, &se), 0, "%s", se);
    free(so);
    free(se);
    FILE *f = fopen(csv, "r");
    char head[4096] = "";
    cr_assert(f && fgets(head, sizeof head, f));
    fclose(f);
    cr_assert(strstr(head, ",pnl_mean,pnl_std,") && strstr(head, ",p_loss,p_loss_close"), "%s",
              head);
}

/* ---- synthetic markets per path and stress scenarios (docs/montecarlo.md, section 10) ---- */

static mm_gen_params small_market(void)
{
    mm_gen_params m;
    mm_gen_defaults(&m);
    m.events = 4000;
    m.rate_hz = 50;
    m.informed = 0.3;
    m.mean_queue = 20;
    return m;
}

static mm_grid *grid_synthetic(const char *stress_key, const char *stress_values)
{
    mm_grid *g = NULL;
    mm_error e = {0};
    const char *tapes[1] = {"market.ini#SYN"};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0,1,3", &e), 0, "%s", e.msg);
    if (stress_key)
        cr_assert_eq(mm_grid_add_axis(g, stress_key, stress_values, &e), 0, "%s", e.msg);
    return g;
}

Test(montecarlo, synthetic_days_give_the_same_bytes_across_engines_and_chunks, .timeout = 240)
{
    mm_gen_params m = small_market();
    const mm_gen_params *syn[1] = {&m};
    mm_grid *g = grid_synthetic("stress_vol", "1,2");
    uint64_t ref = 0;
    int n = 0, runs = 0;
    while (mm_sweep_engine_name(n))
        n++;
    for (int en = 0; en < n; en++)
        for (int chunk = 1; tu_engine_runs(en) && chunk <= 4; chunk += 3) {
            mm_sweep_opts o = mc_opts(en, 2, chunk, 3, 5, 1);
            o.synthetic = syn;
            char name[32];
            snprintf(name, sizeof name, "syn%d_%d.h5", en, chunk);
            uint64_t h = run_hash(g, &o, name);
            if (runs++ == 0) ref = h;
            cr_assert_eq(h, ref, "%s, chunk %d", mm_sweep_engine_name(en), chunk);
        }
    /* Each path is its own day: the paths differ although the model draws nothing. */
    mm_results_reader *r = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_results_open(tu_path("syn0_1.h5"), &r, &e), 0, "%s", e.msg);
    mm_metrics pm[5];
    cr_assert_eq(mm_results_read_paths(r, 0, 5, pm, &e), 0, "%s", e.msg);
    cr_assert(pm[0].pnl != pm[1].pnl || pm[1].pnl != pm[2].pnl, "the paths' days are the same");
    /* Path p of the table is the day mm_sweep_synthetic_day gives, run alone. */
    mm_ticks day = {0};
    cr_assert_eq(mm_sweep_synthetic_day(&m, 3, 0, 2, 1, 1, &day, &e), 0, "%s", e.msg);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    c.seed = 3;
    c.id = 0;
    c.path = 2;
    c.synthetic = 1;
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 0;
    mm_metrics one;
    cr_assert_eq(mm_sim_run_c(&day, &c, &p, &one, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(one.pnl, pm[2].pnl);
    cr_assert_eq(one.volume, pm[2].volume);
    mm_ticks_free(&day);
    mm_results_close(r);
    mm_grid_free(g);
}

/* RMS of the mid's change over `dt` ns on a day (two-sided rows), ticks. */
static double mid_vol(const mm_ticks *t, int64_t dt)
{
    double ss = 0;
    int64_t n = 0, j = 0;
    for (int64_t i = 0; i < t->n; i++) {
        while (j < t->n && t->ts_ns[j] < t->ts_ns[i] + dt)
            j++;
        if (j >= t->n) break;
        double a = (t->bid_px[i] + t->ask_px[i]) / 2.0, b = (t->bid_px[j] + t->ask_px[j]) / 2.0;
        ss += (b - a) * (b - a);
        n++;
    }
    return n ? sqrt(ss / (double)n) : 0;
}

Test(montecarlo, stresses_scale_volatility_queues_and_latency)
{
    mm_gen_params m = small_market();
    m.events = 40000;
    mm_ticks a = {0}, b = {0}, q = {0};
    mm_error e = {0};
    cr_assert_eq(mm_sweep_synthetic_day(&m, 7, 0, 1, 1, 1, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sweep_synthetic_day(&m, 7, 0, 1, 2, 1, &b, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sweep_synthetic_day(&m, 7, 0, 1, 1, 2, &q, &e), 0, "%s", e.msg);
    double va = mid_vol(&a, 10000000000), vb = mid_vol(&b, 10000000000);
    cr_assert(vb > 1.7 * va && vb < 2.3 * va, "10 s vol %g, stressed %g", va, vb);
    double qa = 0, qq = 0;
    for (int64_t i = 0; i < a.n; i++)
        qa += a.bid_sz[i];
    for (int64_t i = 0; i < q.n; i++)
        qq += q.bid_sz[i];
    qa /= (double)a.n;
    qq /= (double)q.n;
    cr_assert(qq > 0.4 * qa && qq < 0.6 * qa, "mean bid size %g, stressed %g", qa, qq);
    /* stress_latency k is the latencies times k, bit for bit. */
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p, pk;
    mm_params_defaults(&p);
    p.spread_ticks = 0;
    p.latency_ns = 30000000;
    p.response_ns = 20000000;
    p.feed_latency_ns = 1000000;
    pk = p;
    pk.stress_latency = 10;
    p.latency_ns *= 10;
    p.response_ns *= 10;
    p.feed_latency_ns *= 10;
    mm_metrics x, y;
    cr_assert_eq(mm_sim_run_c(&a, &c, &p, &x, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_c(&a, &c, &pk, &y, NULL, NULL, &e), 0, "%s", e.msg);
    cr_assert_eq(memcmp(&x, &y, sizeof x), 0);
    cr_assert_gt(x.volume, 0);
    /* The vol and liquidity stresses belong to synthetic days: a recorded tape refuses them. */
    pk.stress_latency = 1;
    pk.stress_vol = 2;
    cr_assert_eq(mm_sim_check_params(&pk, &c, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "stress_vol"), "%s", e.msg);
    c.synthetic = 1;
    cr_assert_eq(mm_sim_check_params(&pk, &c, &e), 0, "%s", e.msg);
    mm_ticks_free(&a);
    mm_ticks_free(&b);
    mm_ticks_free(&q);
}

Test(montecarlo, stresses_on_recorded_tapes_and_impossible_markets_are_refused)
{
    mm_grid *g = grid_random(1);
    mm_error e = {0};
    mm_sweep_report rep;
    cr_assert_eq(mm_grid_add_axis(g, "stress_liquidity", "1,2", &e), 0, "%s", e.msg);
    mm_sweep_opts o = mc_opts(MM_ENGINE_SERIAL, 1, 0, 1, 3, 0);
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("rec.h5"), &rep, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "stress synthetic markets generated per path; 1 of the 1 tapes"), "%s",
              e.msg);
    mm_grid_free(g);
    /* A stress the generator cannot make (its move probability bound) is named before any state. */
    mm_gen_params m = small_market();
    m.vol_ticks = 6; /* 36 / 50 = 0.72 of the events move, plus 0.1 trades */
    const mm_gen_params *syn[1] = {&m};
    g = grid_synthetic("stress_vol", "1,2");
    o.synthetic = syn;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("ok.h5"), &rep, &e), 0, "%s", e.msg);
    m.vol_ticks = 6.6; /* 0.87 + 0.1 > 0.9 */
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("bad.h5"), &rep, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "synthetic market 0"), "%s", e.msg);
    cr_assert_eq(access(tu_path("bad.h5.journal"), F_OK), -1);
    mm_grid_free(g);
}

Test(montecarlo, the_command_line_sweeps_synthetic_markets_and_reruns_them, .timeout = 180)
{
    const char *ini = tu_path("market.ini"), *out = tu_path("syn_cli.h5");
    FILE *f = fopen(ini, "w");
    cr_assert(f);
    fputs("[gen]\nsymbol = MKT\nevents = 3000\nrate = 40\ninformed = 0.3\nmean_queue = 15\n", f);
    fclose(f);
    const char *sweep[] = {"mmsim",
                           "sweep",
                           "--synthetic",
                           ini,
                           "--grid",
                           "spread=0,2",
                           "--grid",
                           "stress_vol=1,2",
                           "--grid",
                           "stress_latency=1,10",
                           "--set",
                           "latency_ns=5000000",
                           "--paths",
                           "4",
                           "--keep-paths",
                           "--quiet",
                           "-o",
                           out,
                           NULL};
    char *so, *se;
    cr_assert_eq(tu_run(sweep, &so, &se), 0, "%s", se);
    free(so);
    free(se);
    const char *rerun[] = {"mmsim", "rerun", out, "-o", tu_path("syn_again.h5"), NULL};
    cr_assert_eq(tu_run(rerun, &so, &se), 0, "%s", se);
    free(so);
    free(se);
    const char *one[] = {"mmsim", "run", "--from", out, "--id", "7", "--path", "3", NULL};
    cr_assert_eq(tu_run(one, &so, &se), 0, "%s", se);
    cr_assert(strstr(se, "every metric equals the stored row"), "%s", se);
    free(so);
    free(se);
    /* A second rerun into the same file is refused (issue 27: it used to replace it). */
    cr_assert_eq(tu_run(rerun, &so, &se), 2, "%s", se);
    cr_assert(strstr(se, "exists; add --replace to overwrite it"), "%s", se);
    free(so);
    free(se);
    /* The market file changed: rerun and run --from name it before any work (rerun by the
     * fingerprint of its day 0, run --from by the XXH3 the sweep recorded). */
    f = fopen(ini, "a");
    fputs("max_spread = 4\n", f);
    fclose(f);
    const char *rerun2[] = {"mmsim", "rerun", out, NULL};
    cr_assert_eq(tu_run(rerun2, &so, &se), 1, "%s", se);
    cr_assert(strstr(se, "the market file changed"), "%s", se);
    free(so);
    free(se);
    cr_assert_eq(tu_run(one, &so, &se), 1, "%s", se);
    cr_assert(strstr(se, "has changed since the sweep read it"), "%s", se);
    free(so);
    free(se);
}

/* The CUDA engine's host loop with the kernel's per-thread work run on the CPU in the kernel's
 * order (MMSIM_CUDA_EMULATE=1): chunks, slot setup and finish, Monte Carlo paths and synthetic days
 * give the serial engine's table. */
Test(montecarlo, the_cuda_engine_host_loop_emulated_gives_the_serial_table, .timeout = 180)
{
    setenv("MMSIM_CUDA_EMULATE", "1", 1);
    mm_grid *g = grid_random(1);
    mm_sweep_opts a = mc_opts(MM_ENGINE_SERIAL, 1, 0, 9, 7, 1);
    mm_sweep_opts b = mc_opts(MM_ENGINE_CUDA, 1, 0, 9, 7, 1);
    cr_assert_eq(run_hash(g, &b, "emu_cuda.h5"), run_hash(g, &a, "emu_serial.h5"));
    b.chunk = 2; /* several chunks */
    cr_assert_eq(run_hash(g, &b, "emu_cuda2.h5"), run_hash(g, &a, "emu_serial2.h5"));
    mm_grid_free(g);
    mm_gen_params m = small_market();
    const mm_gen_params *syn[1] = {&m};
    g = grid_synthetic("stress_liquidity", "1,2");
    a = mc_opts(MM_ENGINE_SERIAL, 1, 0, 3, 4, 0);
    b = mc_opts(MM_ENGINE_CUDA, 1, 0, 3, 4, 0);
    a.synthetic = b.synthetic = syn;
    cr_assert_eq(run_hash(g, &b, "emu_syn_cuda.h5"), run_hash(g, &a, "emu_syn_serial.h5"));
    mm_grid_free(g);
}

/* --device all: the chunks spread over every visible device, one host thread each (the threads
 * engine's windows), emulated as 3 devices; the table is the serial engine's, and a device past the
 * visible ones is refused before any state. */
Test(montecarlo, the_cuda_engine_over_every_device_emulated_gives_the_serial_table, .timeout = 180)
{
    setenv("MMSIM_CUDA_EMULATE", "3", 1);
    mm_grid *g = grid_random(1);
    mm_sweep_opts a = mc_opts(MM_ENGINE_SERIAL, 1, 0, 9, 7, 1);
    mm_sweep_opts b = mc_opts(MM_ENGINE_CUDA, 1, 0, 9, 7, 1);
    b.device = MM_SWEEP_DEVICE_ALL;
    b.chunk = 1; /* many chunks, taken by three threads */
    uint64_t want = run_hash(g, &a, "all_serial.h5");
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &b, tu_path("all_cuda1.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.content_hash, want);
    cr_assert_eq(rep.workers, 3, "one host thread per device: %d", rep.workers);
    b.chunk = 0; /* automatic: at least two chunks per device where the grid allows */
    cr_assert_eq(run_hash(g, &b, "all_cuda0.h5"), want);
    b.device = 3;
    char out[600];
    snprintf(out, sizeof out, "%s", tu_path("dev3.h5"));
    cr_assert_eq(mm_sweep_run(g, &b, out, &rep, &e), -ENODEV);
    cr_assert_str_eq(e.msg, "engine cuda: device 3: 3 CUDA devices visible");
    cr_assert_neq(access(out, F_OK), 0);
    char j[640];
    snprintf(j, sizeof j, "%s.journal", out);
    cr_assert_neq(access(j, F_OK), 0);
    mm_grid_free(g);
    unsetenv("MMSIM_CUDA_EMULATE");
}
