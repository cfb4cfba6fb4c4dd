/* The Avellaneda-Stoikov model market (docs/montecarlo.md): determinism (same seed, same bits;
 * another seed, other numbers; any thread count, same bits), hand-checked steps, the draw layout,
 * parameter checks, statistics against known values, and the `mmsim as-market` command. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_asmarket.h"
#include "mm_asmarket_lanes.h"
#include "mmsim/asmarket.h"
#include "testutil.h"

TestSuite(asmarket, .fini = tu_cleanup);

/* Bitwise equality of two doubles (NaN == NaN with the same bits; -0 != +0). */
static int same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Every field of two path results, doubles bit for bit (never memcmp of the structs: padding). */
static int same_path(const mm_as_path_result *a, const mm_as_path_result *b)
{
    return same(a->profit, b->profit) && same(a->cash, b->cash) &&
           same(a->final_mid, b->final_mid) && same(a->mean_spread, b->mean_spread) &&
           same(a->mean_abs_q, b->mean_abs_q) && same(a->step_pnl_std, b->step_pnl_std) &&
           same(a->max_drawdown, b->max_drawdown) && a->final_q == b->final_q &&
           a->max_abs_q == b->max_abs_q && a->bid_fills == b->bid_fills &&
           a->ask_fills == b->ask_fills && a->both_quoted == b->both_quoted;
}

static int same_summary(const mm_as_summary *a, const mm_as_summary *b)
{
    return a->paths == b->paths && same(a->profit_mean, b->profit_mean) &&
           same(a->profit_std, b->profit_std) && same(a->profit_se, b->profit_se) &&
           same(a->profit_p5, b->profit_p5) && same(a->profit_p50, b->profit_p50) &&
           same(a->profit_p95, b->profit_p95) && same(a->profit_cvar5, b->profit_cvar5) &&
           same(a->prob_loss, b->prob_loss) && same(a->q_mean, b->q_mean) &&
           same(a->q_std, b->q_std) && same(a->spread_mean, b->spread_mean) &&
           same(a->fills_mean, b->fills_mean) && same(a->max_abs_q_mean, b->max_abs_q_mean) &&
           same(a->max_drawdown_mean, b->max_drawdown_mean);
}

static void run(const mm_as_params *p, uint64_t seed, int64_t n, int threads, mm_as_summary *s,
                mm_as_path_result *r)
{
    mm_error e = {0};
    int rc = mm_as_run(p, seed, 0, n, threads, s, r, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
}

Test(asmarket, same_seed_gives_the_same_bits)
{
    mm_as_params p;
    mm_as_defaults(&p);
    enum { N = 300 };
    mm_as_path_result *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    mm_as_summary sa, sb;
    for (int strat = 0; strat < 4; strat++) {
        p.strategy = strat;
        p.spread = 0.7;
        p.skew = 0.05;
        run(&p, 42, N, 1, &sa, a);
        run(&p, 42, N, 1, &sb, b);
        for (int i = 0; i < N; i++)
            cr_assert(same_path(&a[i], &b[i]), "strategy %d path %d", strat, i);
        cr_assert(same_summary(&sa, &sb), "strategy %d", strat);
        /* One path alone is the same path as inside the run. */
        mm_as_path_result one;
        cr_assert_eq(mm_as_run_path(&p, 42, 0, 123, &one, NULL), 0);
        cr_assert(same_path(&one, &a[123]), "strategy %d", strat);
    }
    free(a);
    free(b);
}

Test(asmarket, another_seed_or_id_gives_other_numbers)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm_as_summary s1, s2, s3;
    run(&p, 1, 200, 1, &s1, NULL);
    run(&p, 2, 200, 1, &s2, NULL);
    cr_assert(s1.profit_mean != s2.profit_mean && s1.profit_std != s2.profit_std);
    mm_error e = {0};
    cr_assert_eq(mm_as_run(&p, 1, 1, 200, 1, &s3, NULL, &e), 0);
    cr_assert(s1.profit_mean != s3.profit_mean, "combination id 1 is another market");
    mm_as_path_result a, b;
    mm_as_run_path(&p, 1, 0, 0, &a, NULL);
    mm_as_run_path(&p, 1, 0, 1, &b, NULL);
    cr_assert(!same_path(&a, &b), "path 1 is another market");
}

Test(asmarket, thread_count_does_not_change_the_bits)
{
    mm_as_params p;
    mm_as_defaults(&p);
    enum { N = 1000 };
    mm_as_path_result *a = calloc(N, sizeof *a), *b = calloc(N, sizeof *b);
    mm_as_summary s1, s;
    run(&p, 9, N, 1, &s1, a);
    int threads[] = {2, 3, 7, 0};
    for (int t = 0; t < 4; t++) {
        run(&p, 9, N, threads[t], &s, b);
        cr_assert(same_summary(&s1, &s), "threads %d", threads[t]);
        for (int i = 0; i < N; i++)
            cr_assert(same_path(&a[i], &b[i]), "threads %d path %d", threads[t], i);
    }
    free(a);
    free(b);
}

/* Two steps of the inventory strategy in the paper's set-up (gamma 0.1), with the uniforms given:
 *   c = ln(1 + 0.1/1.5) / 0.1 = 0.6453852113757116, hs1 = gamma sigma^2 / 2 = 0.2, sk1 = 0.4,
 *   ds = 2 sqrt(0.005) = 0.1414213562373095.
 * Step 0: s = 100, q = 0, tau = 1: hs = 0.8453852113757117, bid = 99.15461478862429,
 *   ask = 100.84538521137571; p = 140 * 0.005 * exp(-1.5 * 0.8453852) = 0.19696 per side.
 *   u_bid = 0.1 < 0.19696: the bid fills (q = 1, cash = -99.15461478862429); u_ask = 0.5: no;
 *   u_mid = 0.3 < 1/2: up, s = 100.14142135623732; marked wealth -99.1546 + 100.1414 = 0.98681.
 * Step 1: tau = 0.995, hs = 0.6453852 + 0.2 * 0.995 = 0.8443852, sk = 0.4 * 0.995 = 0.398,
 *   centre = 100.1414214 - 0.398 = 99.7434214, bid = 98.8990361, ask = 100.5878066;
 *   bid depth 1.2423852: p = 0.7 exp(-1.8635778) = 0.10858, u_bid = 0.2: no fill;
 *   ask depth 0.4463852: p = 0.7 exp(-0.6695778) = 0.35835, u_ask = 0.3: fills (q = 0,
 *   cash = -99.1546148 + 100.5878066 = 1.4331918); u_mid = 0.9: down, s = 100. */
Test(asmarket, two_hand_checked_steps)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm__as_derived d;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    mm__as_state st;
    mm__as_state_init(&d, &st);
    mm__as_step_u(&d, &st, 0, 0.1, 0.5, 0.3);
    cr_assert(st.q == 1 && st.bid_fills == 1 && st.ask_fills == 0 && st.m == 1);
    cr_assert(fabs(st.cash - -99.15461478862429) < 1e-12, "%.17g", st.cash);
    cr_assert(fabs(mm__as_mid(&d, st.m) - 100.14142135623732) < 1e-12);
    cr_assert(fabs(st.w_prev - 0.98680656761303) < 1e-12, "%.17g", st.w_prev);
    cr_assert(fabs(st.spread_sum - 2 * 0.8453852113757117) < 1e-12);
    /* The fill probability at the bid's depth lies between the two uniforms used. */
    double p0 = mm__as_fill_prob(&d, 0.8453852113757117);
    cr_assert(fabs(p0 - 0.196960365468225) < 1e-13, "%.17g", p0);
    mm__as_step_u(&d, &st, 1, 0.2, 0.3, 0.9);
    cr_assert(st.q == 0 && st.bid_fills == 1 && st.ask_fills == 1 && st.m == 0);
    cr_assert(fabs(st.cash - 1.4331917789887427) < 1e-12, "%.17g", st.cash);
    cr_assert(fabs(mm__as_fill_prob(&d, 1.242385211375705) - 0.10858166014687742) < 1e-13);
    cr_assert(fabs(mm__as_fill_prob(&d, 0.44638521137571274) - 0.35834726061819633) < 1e-13);
    cr_assert_eq(st.max_abs_q, 1);
    /* The marked wealth went 0 -> 0.98681 -> 1.43319: no drawdown. */
    cr_assert(st.max_dd == 0 && fabs(st.w_prev - 1.4331917789887427) < 1e-12);
}

/* The draw layout of docs/montecarlo.md 4: step i's bid uniform is mm_u01 of words 0,1 and its
 * ask uniform of words 2,3 of mm_stream4(key, MM_RNG_AS_FILL, i, 0); the mid's is words 0,1 of
 * mm_stream4(key, MM_RNG_AS_MID, i, 0). Computed here and compared with what mm_as_step_c did. */
Test(asmarket, step_uses_the_documented_draws)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm__as_derived d;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    double pf = mm__as_fill_prob(&d, 0.8453852113757117); /* step 0 at q = 0: both sides */
    int seen[2][2] = {{0}};
    for (int32_t path = 0; path < 64; path++) {
        uint64_t key = mm_stream_key(7, 3, path);
        mm_u32x4 f = mm_stream4(key, MM_RNG_AS_FILL, 0, 0);
        mm_u32x4 g = mm_stream4(key, MM_RNG_AS_MID, 0, 0);
        int bid = mm_u01(f.v[0], f.v[1]) < pf, ask = mm_u01(f.v[2], f.v[3]) < pf;
        int up = mm_u01(g.v[0], g.v[1]) < 0.5;
        mm__as_state st;
        mm__as_state_init(&d, &st);
        mm_as_step_c(&d, &st, key, 0);
        cr_assert_eq(st.bid_fills, bid, "path %d", path);
        cr_assert_eq(st.ask_fills, ask, "path %d", path);
        cr_assert_eq(st.m, up ? 1 : -1, "path %d", path);
        seen[0][bid]++;
        seen[1][ask]++;
    }
    /* About 20% of 64 fill on each side: both outcomes were exercised. */
    cr_assert(seen[0][0] && seen[0][1] && seen[1][0] && seen[1][1]);
}

/* Every field of two path states, doubles bit for bit. */
static int same_state(const mm__as_state *a, const mm__as_state *b)
{
    return a->q == b->q && a->m == b->m && same(a->cash, b->cash) &&
           same(a->spread_sum, b->spread_sum) && same(a->abs_q_sum, b->abs_q_sum) &&
           same(a->w_prev, b->w_prev) && same(a->w_peak, b->w_peak) && same(a->max_dd, b->max_dd) &&
           same(a->d_sum, b->d_sum) && same(a->d_sq, b->d_sq) && a->both_quoted == b->both_quoted &&
           a->bid_fills == b->bid_fills && a->ask_fills == b->ask_fills &&
           a->max_abs_q == b->max_abs_q;
}

/* mm_as_step_fast against the reference mm_as_step_c: the whole state after every step of 150
 * paths of each of nine markets (every strategy; intensities from never to always filling; quotes
 * on the wrong side of the mid, where exp's argument passes +-700; an inventory limit). */
Test(asmarket, fast_step_gives_the_reference_state_after_every_step)
{
    struct {
        int strategy;
        double gamma, k, A, sigma, dt, spread, skew;
        int64_t q0, inv_limit;
    } M[] = {
        {MM_AS_INVENTORY, 0.1, 1.5, 140, 2, 0.005, 0, 0, 0, 0},
        {MM_AS_SYMMETRIC, 0.01, 1.5, 140, 2, 0.005, 0, 0, 0, 0},
        {MM_AS_GLFT, 1, 1.5, 140, 2, 0.005, 0, 0, 0, 0},
        {MM_AS_FIXED, 0.1, 1.5, 140, 2, 0.005, 0.7, 0.05, 0, 0},
        {MM_AS_INVENTORY, 0.5, 0.3, 3000, 2, 0.001, 0, 0, 3, 5},
        {MM_AS_INVENTORY, 2, 40, 5, 0.1, 0.005, 0, 0, 0, 0},
        {MM_AS_FIXED, 0.1, 1.5, 1e8, 2, 0.005, 0, 0, 0, 0},    /* A dt >= 1: always fills */
        {MM_AS_FIXED, 0.1, 1.5, 1e-6, 2, 0.005, 1e5, 0, 0, 0}, /* x < -700: never */
        {MM_AS_FIXED, 0.1, 1.5, 140, 2, 0.005, 0, 10, 100, 0}, /* quotes across the mid */
    };
    int64_t fills = 0, steps = 0;
    for (size_t j = 0; j < sizeof M / sizeof M[0]; j++) {
        mm_as_params p;
        mm_as_defaults(&p);
        p.strategy = M[j].strategy;
        p.gamma = M[j].gamma;
        p.k = M[j].k;
        p.A = M[j].A;
        p.sigma = M[j].sigma;
        p.dt = M[j].dt;
        p.spread = M[j].spread;
        p.skew = M[j].skew;
        p.q0 = M[j].q0;
        p.inv_limit = M[j].inv_limit;
        mm__as_derived d;
        cr_assert_eq(mm__as_derive(&p, &d, NULL), 0, "market %zu", j);
        for (int32_t path = 0; path < 150; path++) {
            uint64_t key = mm_stream_key(11, (int64_t)j, path);
            mm__as_state a, b;
            mm__as_state_init(&d, &a);
            mm__as_state_init(&d, &b);
            for (int64_t i = 0; i < d.n_steps; i++) {
                mm_as_step_c(&d, &a, key, i);
                mm_as_step_fast(&d, &b, key, i);
                cr_assert(same_state(&a, &b),
                          "market %zu path %d step %lld: q %lld/%lld cash %a/%a", j, path,
                          (long long)i, (long long)a.q, (long long)b.q, a.cash, b.cash);
            }
            fills += a.bid_fills + a.ask_fills;
            steps += d.n_steps;
        }
    }
    cr_assert(fills > steps / 10 && fills < 2 * steps, "fills %lld of %lld steps", (long long)fills,
              (long long)steps);
}

/* mm__as_path_lanes (draws 64 steps at a time in vectors, fast fill decisions) against the
 * reference mm__as_path: every field of every path's result, on every instruction set this CPU
 * has, for step counts below, at and above the draw block (63, 64, 65, 200, 1000). */
Test(asmarket, lanes_path_gives_the_reference_results_on_every_instruction_set)
{
    static const double dts[] = {1.0 / 63, 1.0 / 64, 1.0 / 65, 0.005, 0.001};
    int ran = 0;
    for (int isa = 0; isa < MM_ISA_COUNT; isa++) {
        if (!mm__batch_isa_supported(isa)) continue;
        ran++;
        for (int strat = 0; strat < 4; strat++)
            for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
                mm_as_params p;
                mm_as_defaults(&p);
                p.strategy = strat;
                p.dt = dts[t];
                p.spread = 0.6;
                p.skew = 0.02;
                p.inv_limit = strat == 3 ? 4 : 0;
                mm__as_derived d;
                cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
                for (int32_t path = 0; path < 40; path++) {
                    uint64_t key = mm_stream_key(5, strat, path);
                    mm_as_path_result a, b;
                    mm__as_path(&d, key, &a);
                    cr_assert_eq(mm__as_path_lanes_isa(isa, &d, key, &b), 0);
                    cr_assert(same_path(&a, &b), "%s strategy %d dt %g path %d: profit %a vs %a",
                              mm__batch_isa_name(isa), strat, dts[t], path, a.profit, b.profit);
                }
            }
    }
    cr_assert_geq(ran, 1);
}

/* mm__as_fills_fast answers u < p as the reference does for u at p, one ulp either side, and
 * within the margin (where it computes p itself), for depths over the whole range of exp's
 * argument. */
Test(asmarket, fast_fill_decision_equals_the_reference_at_the_probability)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm__as_derived d;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    int checked = 0;
    /* Over (-470, 470) (x = -1.5 delta passes +-700) coarsely, then finely where 2^-53 <= p < 1:
     * delta in (-0.24, 24.3). */
    for (int j = -4700; j <= 4700 + 25000; j += j < 4700 ? 7 : 1) {
        double delta = j <= 4700 ? (double)j * 0.1 + 0.0123 : -0.3 + (double)(j - 4700) * 0.001;
        double pr = mm__as_fill_prob(&d, delta);
        double u[] = {pr,
                      nextafter(pr, 0),
                      nextafter(pr, 2),
                      pr * (1 - 3e-10),
                      pr * (1 + 3e-10),
                      pr * (1 - 2e-9),
                      pr * (1 + 2e-9),
                      pr * 0.5,
                      pr * 1.5,
                      0x1p-53,
                      0.9999999};
        for (size_t k = 0; k < sizeof u / sizeof u[0]; k++) {
            if (!(u[k] >= 0x1p-53 && u[k] < 1)) continue; /* mm_u01's range */
            double lu = mm_det_log(u[k]);
            cr_assert_eq(mm__as_fills_fast(&d, delta, u[k], lu), u[k] < pr,
                         "delta %a u %a p %a: fast %d", delta, u[k], pr,
                         mm__as_fills_fast(&d, delta, u[k], lu));
            checked++;
        }
    }
    cr_assert_gt(checked, 99999);
}

/* The bound behind mm__as_fills_fast's margin: the sign of diff = ln_u - (ln_A_dt + x) is the sign
 * of u - p whenever |diff| > 2e-13 (the margin is 1e-9). Checked where it is hardest: u within
 * 1e-12 .. 6e-12 relative of p, both sides, over A dt from 1e-15 to 1e6 and the whole range of p.
 */
Test(asmarket, log_domain_sign_is_exact_beyond_its_error_bound)
{
    static const double A_dt[] = {1e-15, 3e-7, 0.7, 1.0, 1e6};
    int checked = 0;
    for (size_t a = 0; a < sizeof A_dt / sizeof A_dt[0]; a++) {
        mm__as_derived d = {0};
        d.A_dt = A_dt[a];
        d.ln_A_dt = mm_det_log(A_dt[a]);
        d.k = 1.0;
        for (uint32_t i = 0; i < 20000; i++) {
            mm_u32x4 r = mm_rng4(36, i, (uint32_t)a, 0, 0);
            double x = (mm_u01(r.v[0], r.v[1]) - 0.5) * 1400.0, delta = -x;
            double p = A_dt[a] * mm_det_exp(x);
            if (!(p > 0x1p-52 && p < 0.999)) continue;
            for (int j = -6; j <= 6; j++) {
                if (j == 0) continue;
                double u = p * (1.0 + (double)j * 1e-12);
                double diff = mm_det_log(u) - (d.ln_A_dt + -d.k * delta);
                if (fabs(diff) > 2e-13) {
                    cr_assert_eq(diff < 0, u < p, "A dt %g x %a u %a p %a diff %g", A_dt[a], x, u,
                                 p, diff);
                    checked++;
                }
                cr_assert_eq(mm__as_fills_fast(&d, delta, u, mm_det_log(u)), u < p);
            }
        }
    }
    cr_assert_gt(checked, 10000);
}

Test(asmarket, extreme_intensities_always_or_never_fill)
{
    mm_as_params p;
    mm_as_defaults(&p);
    p.strategy = MM_AS_FIXED;
    p.spread = 0;
    p.A = 1e8; /* A dt = 5e5 >= 1 at depth 0: every step fills both sides */
    mm_as_path_result r;
    cr_assert_eq(mm_as_run_path(&p, 1, 0, 0, &r, NULL), 0);
    cr_assert(r.bid_fills == 200 && r.ask_fills == 200 && r.final_q == 0);
    cr_assert(fabs(r.profit) < 1e-9, "buying and selling at the mid earns nothing: %g", r.profit);
    p.A = 1e-6;
    p.spread = 1e5; /* exp(-1.5e5) is below every uniform: nothing fills */
    cr_assert_eq(mm_as_run_path(&p, 1, 0, 0, &r, NULL), 0);
    cr_assert(r.bid_fills == 0 && r.ask_fills == 0 && r.profit == 0 && r.max_drawdown == 0);
}

Test(asmarket, inventory_limit_stops_the_side)
{
    mm_as_params p;
    mm_as_defaults(&p);
    p.strategy = MM_AS_FIXED;
    p.spread = 0;
    p.A = 1e8;
    p.inv_limit = 3;
    p.q0 = 3; /* at the limit: no bid; the ask fills every step until q = -3, then only bids */
    mm_as_path_result r;
    cr_assert_eq(mm_as_run_path(&p, 1, 0, 0, &r, NULL), 0);
    cr_assert(r.max_abs_q == 3 && r.final_q >= -3 && r.final_q <= 3, "q %ld", (long)r.final_q);
    cr_assert(r.both_quoted < 200);
}

/* The quotes of every strategy against the formulas of docs/montecarlo.md 2, evaluated with libm
 * (ln and exp within a few ulp of mm_det_log / mm_det_exp, hence the 1e-12 tolerance). */
Test(asmarket, quotes_follow_each_strategys_formula)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm__as_derived d;
    double g = 0.1, k = 1.5, A = 140, sig = 2, bid, ask;
    /* inventory at step 40 (tau = 0.8), s = 101, q = -3: r = s - q g sig^2 tau = 101.96, total
     * spread g sig^2 tau + (2/g) ln(1 + g/k). */
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    mm__as_quotes(&d, 101, -3, 40, &bid, &ask);
    double r = 101 + 3 * g * sig * sig * 0.8,
           half = (g * sig * sig * 0.8 + 2 / g * log(1 + g / k)) / 2;
    cr_assert(fabs(bid - (r - half)) < 1e-12 && fabs(ask - (r + half)) < 1e-12, "%.17g %.17g", bid,
              ask);
    /* symmetric: centred on the mid whatever q and t. */
    p.strategy = MM_AS_SYMMETRIC;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    mm__as_quotes(&d, 101, -3, 40, &bid, &ask);
    double S = mm_as_symmetric_spread(&p);
    cr_assert(fabs(bid - (101 - S / 2)) < 1e-12 && fabs(ask - (101 + S / 2)) < 1e-12);
    /* GLFT, q = 2: bid depth c1 + (2q + 1)/2 sqrt(x), ask depth c1 - (2q - 1)/2 sqrt(x), with
     * c1 = ln(1 + 1/15) / 0.1 = 0.6453852, x = 4 * 0.1 / (2 * 1.5 * 140) * (1 + 1/15)^16 =
     * 0.0026747. */
    p.strategy = MM_AS_GLFT;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    mm__as_quotes(&d, 100, 2, 7, &bid, &ask);
    double c1 = log(1 + g / k) / g, x = sig * sig * g / (2 * k * A) * pow(1 + g / k, 1 + k / g);
    cr_assert(fabs(x - 0.0026747) < 1e-6, "%g", x);
    cr_assert(fabs(100 - bid - (c1 + 2.5 * sqrt(x))) < 1e-12, "%.17g", bid);
    cr_assert(fabs(ask - 100 - (c1 - 1.5 * sqrt(x))) < 1e-12, "%.17g", ask);
    /* fixed: s -+ spread - skew q. */
    p.strategy = MM_AS_FIXED;
    p.spread = 0.5;
    p.skew = 0.1;
    cr_assert_eq(mm__as_derive(&p, &d, NULL), 0);
    mm__as_quotes(&d, 100, 2, 7, &bid, &ask);
    cr_assert(fabs(bid - 99.3) < 1e-12 && fabs(ask - 100.3) < 1e-12, "%.17g %.17g", bid, ask);
}

Test(asmarket, symmetric_spread_is_the_inventory_average)
{
    mm_as_params p;
    mm_as_defaults(&p);
    /* gamma sigma^2 (T - (N - 1) dt / 2) + (2/gamma) ln(1 + gamma/k) = 0.4 * 0.5025 + 1.2907704 */
    double want = 0.4 * (1 - 199 * 0.005 / 2) + 2 / 0.1 * log(1 + 0.1 / 1.5);
    cr_assert(fabs(mm_as_symmetric_spread(&p) - want) < 1e-12, "%.17g", mm_as_symmetric_spread(&p));
    mm_as_path_result r;
    cr_assert_eq(mm_as_run_path(&p, 5, 0, 0, &r, NULL), 0);
    cr_assert(fabs(r.mean_spread - want) < 1e-12, "the inventory path quotes it on average");
    p.strategy = MM_AS_SYMMETRIC;
    cr_assert_eq(mm_as_run_path(&p, 5, 0, 0, &r, NULL), 0);
    cr_assert(fabs(r.mean_spread - want) < 1e-12);
}

Test(asmarket, every_parameter_is_checked_by_name)
{
    mm_as_params p;
    mm_error e;
    const char *want[] = {"strategy: 4 is not", "s0: 0 must be",       "T: -1 must be",
                          "dt: 0.3 does not",   "sigma: -1 must",      "k: 0 must",
                          "A: 0 must",          "q0: 2000000000 must", "gamma: 0 must",
                          "spread: -1 must",    "skew: nan must",      "inv_limit: -1 must",
                          "dt: 2 must be"};
    for (int i = 0; i < (int)(sizeof want / sizeof *want); i++) {
        mm_as_defaults(&p);
        switch (i) {
        case 0:
            p.strategy = 4;
            break;
        case 1:
            p.s0 = 0;
            break;
        case 2:
            p.T = -1;
            break;
        case 3:
            p.dt = 0.3;
            break;
        case 4:
            p.sigma = -1;
            break;
        case 5:
            p.k = 0;
            break;
        case 6:
            p.A = 0;
            break;
        case 7:
            p.q0 = 2000000000;
            break;
        case 8:
            p.gamma = 0;
            break;
        case 9:
            p.strategy = MM_AS_FIXED, p.spread = -1;
            break;
        case 10:
            p.strategy = MM_AS_FIXED, p.skew = NAN;
            break;
        case 11:
            p.inv_limit = -1;
            break;
        case 12:
            p.dt = 2;
            break;
        }
        memset(&e, 0, sizeof e);
        cr_assert_eq(mm_as_check(&p, &e), MM_EUSAGE, "case %d", i);
        cr_assert(!strncmp(e.msg, want[i], strlen(want[i])), "case %d: %s", i, e.msg);
        mm_as_summary s;
        cr_assert_eq(mm_as_run(&p, 1, 0, 10, 1, &s, NULL, NULL), MM_EUSAGE, "case %d", i);
    }
    mm_as_defaults(&p);
    p.strategy = MM_AS_FIXED;
    p.gamma = 0; /* fixed ignores gamma */
    cr_assert_eq(mm_as_check(&p, NULL), 0);
}

/* Symmetric quotes around the mid fill both sides with the same probability at every step, so
 * E[final q] = 0 exactly (gamma small or not). With n paths the mean is within 4 standard errors
 * (std / sqrt(n)) of 0 except with probability 6e-5 under the normal approximation, which holds
 * well: final q is a sum of 200 independent steps. The seed is fixed, so the test is deterministic;
 * the tolerance says why it would pass for any seed. */
Test(asmarket, symmetric_quotes_end_flat_on_average)
{
    mm_as_params p;
    mm_as_defaults(&p);
    p.strategy = MM_AS_SYMMETRIC;
    p.gamma = 1e-3;
    mm_as_summary s;
    run(&p, 11, 20000, 0, &s, NULL);
    double se = s.q_std / sqrt(20000.0);
    cr_assert(fabs(s.q_mean) < 4 * se, "mean final q %g, se %g", s.q_mean, se);
    cr_assert(s.q_std > 5, "the inventory wanders: std %g", s.q_std);
}

/* The inventory strategy's mean profit (gamma 0.1, the paper's set-up) against a long run:
 * `mmsim as-market --paths 100000 --seed 1` gives 64.91 with se 0.021 (docs/montecarlo.md). A run
 * of 4000 paths on another seed must agree within 4 combined standard errors (plus 0.005 for the
 * rounding of the reference to two decimals). Likewise its std(final q), 2.92, within 10%: the
 * std of a sample std is about std / sqrt(2n) = 1.1% here. */
Test(asmarket, inventory_profit_agrees_with_a_long_run)
{
    mm_as_params p;
    mm_as_defaults(&p);
    mm_as_summary s;
    run(&p, 77, 4000, 0, &s, NULL);
    double tol = 4 * sqrt(s.profit_se * s.profit_se + 0.021 * 0.021) + 0.005;
    cr_assert(fabs(s.profit_mean - 64.91) < tol, "mean profit %g, tolerance %g", s.profit_mean,
              tol);
    cr_assert(fabs(s.q_std - 2.92) < 0.29, "std(final q) %g", s.q_std);
    /* The summary's order statistics are ordered, and CVaR 5% is below the 5th percentile. */
    cr_assert(s.profit_cvar5 <= s.profit_p5 && s.profit_p5 <= s.profit_p50 &&
              s.profit_p50 <= s.profit_p95);
}

Test(asmarket, summary_definitions_on_a_small_sample)
{
    /* Profits 1..20 (shuffled): mean 10.5; population std sqrt((20^2 - 1) / 12) = 5.7662813;
     * p5: h = 19 * 0.05 = 0.95, 1 + 0.95 (2 - 1) = 1.95; p50: h = 9.5 -> 10.5; p95: h = 18.05
     * -> 19.05; CVaR 5%: ceil(20 / 20) = 1 worst -> 1. Losses: none; then one path at -3. */
    mm_as_path_result r[20];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 20; i++) {
        r[i].profit = (double)((i * 7) % 20 + 1);
        r[i].final_q = i % 2 ? 1 : -1;
        r[i].both_quoted = 1;
        r[i].mean_spread = 2;
    }
    mm_as_summary s;
    cr_assert_eq(mm_as_summarize(r, 20, &s, NULL), 0);
    cr_assert(fabs(s.profit_mean - 10.5) < 1e-12);
    cr_assert(fabs(s.profit_std - sqrt(399.0 / 12)) < 1e-12);
    cr_assert(fabs(s.profit_p5 - 1.95) < 1e-12 && fabs(s.profit_p50 - 10.5) < 1e-12);
    cr_assert(fabs(s.profit_p95 - 19.05) < 1e-12, "%.17g", s.profit_p95);
    cr_assert(s.profit_cvar5 == 1 && s.prob_loss == 0 && s.q_mean == 0 && s.q_std == 1);
    cr_assert(s.spread_mean == 2);
    r[3].profit = -3;
    cr_assert_eq(mm_as_summarize(r, 20, &s, NULL), 0);
    cr_assert(s.prob_loss == 0.05 && s.profit_cvar5 == -3);
}

/* ---- mmsim as-market ---- */

Test(asmarket, cli_prints_the_papers_table)
{
    const char *a[] = {"mmsim", "as-market", "--paths", "200", "--threads", "1", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "200 paths, seed 1"), "%s", out);
    const char *gam[] = {"gamma = 0.1\n", "gamma = 0.01\n", "gamma = 1\n"};
    const char *p = out;
    for (int g = 0; g < 3; g++) {
        p = strstr(p, gam[g]);
        cr_assert(p, "block %s missing: %s", gam[g], out);
        p = strchr(p, '\n') + 1;
        cr_assert(
            !strncmp(p, "Strategy     Spread    Profit  std(Profit)   Final q  std(Final q)\n", 66),
            "%s", p);
        p = strchr(p, '\n') + 1;
        double sp, pr, sd, q, sq;
        cr_assert_eq(sscanf(p, "inventory %lf %lf %lf %lf %lf", &sp, &pr, &sd, &q, &sq), 5, "%s",
                     p);
        cr_assert(sp > 1 && pr > 20 && sd > 0 && sq > 0);
        p = strchr(p, '\n') + 1;
        cr_assert_eq(sscanf(p, "symmetric %lf %lf %lf %lf %lf", &sp, &pr, &sd, &q, &sq), 5, "%s",
                     p);
    }
    cr_assert(strstr(out, "CVaR5") && strstr(out, "P(loss)"), "%s", out);
    cr_assert_str_empty(err);
    /* Results do not depend on the thread count: the same bytes on 2 threads. */
    const char *b[] = {"mmsim", "as-market", "--paths", "200", "--threads", "2", NULL};
    char *out2;
    cr_assert_eq(tu_run(b, &out2, NULL), 0);
    cr_assert_str_eq(out, out2);
    free(out);
    free(out2);
    free(err);
}

Test(asmarket, cli_config_file_equals_the_flags)
{
    const char *ini = tu_path("as.ini");
    FILE *f = fopen(ini, "w");
    fputs("; the paper\n[market]\ns0 = 100\nsigma: 2 ; inline\n[strategy]\ngamma = 0.1, 1\n"
          "strategy = inventory,symmetric\n[run]\npaths = 150\nseed = 3\n",
          f);
    fclose(f);
    const char *a[] = {"mmsim", "as-market", "--config", ini, NULL};
    const char *b[] = {"mmsim", "as-market", "--gamma", "0.1,1", "--paths",
                       "150",   "--seed",    "3",       NULL};
    /* A flag overrides the file. */
    const char *c[] = {"mmsim", "as-market", "--config", ini, "--paths", "100", NULL};
    char *oa, *ob, *oc, *err;
    cr_assert_eq(tu_run(a, &oa, &err), 0, "%s", err);
    cr_assert_eq(tu_run(b, &ob, NULL), 0);
    cr_assert_str_eq(oa, ob);
    cr_assert_eq(tu_run(c, &oc, NULL), 0);
    cr_assert(strstr(oc, "100 paths, seed 3"), "%s", oc);
    free(oa);
    free(ob);
    free(oc);
    free(err);
}

Test(asmarket, cli_bad_flags_exit_2_naming_the_flag)
{
    const char *ini = tu_path("bad.ini");
    FILE *f = fopen(ini, "w");
    fputs("[market]\nsigma = 2\nvol = 3\n", f);
    fclose(f);
    struct {
        const char *args[6];
        const char *msg;
    } cases[] = {
        {{"--paths", "0"}, "mmsim: as-market: --paths: 0 is out of range [1, 1000000000]\n"},
        {{"--sigma", "-1"}, "mmsim: as-market: --sigma: -1 must be in [0, 1e6)\n"},
        {{"--gamma", "0.1,0"}, "mmsim: as-market: --gamma: 0 must be in [1e-6, 1e6)\n"},
        {{"--strategy", "inventory,naive"},
         "mmsim: as-market: --strategy: 'naive' is not inventory, symmetric, glft or fixed\n"},
        {{"--dt", "0.3"}, "mmsim: as-market: --dt: 0.3 does not divide T = 1 into whole steps\n"},
        {{"--frob"}, "mmsim: as-market: unknown option '--frob' (see 'mmsim as-market --help')\n"},
        {{"--config", ini}, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *argv[9] = {"mmsim", "as-market"};
        for (int j = 0; cases[i].args[j]; j++)
            argv[2 + j] = cases[i].args[j];
        char *out, *err;
        cr_assert_eq(tu_run(argv, &out, &err), 2, "case %zu", i);
        cr_assert_eq(tu_lines(err), 1, "case %zu: %s", i, err);
        if (cases[i].msg)
            cr_assert_str_eq(err, cases[i].msg, "case %zu", i);
        else
            cr_assert(strstr(err, "bad.ini:3: [market] vol: unknown key"), "%s", err);
        cr_assert_str_empty(out, "case %zu: nothing on stdout", i);
        free(out);
        free(err);
    }
}
