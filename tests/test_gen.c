/* Synthetic market: determinism (same seed, same bytes) and plausibility of the generated tape. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(gen, .fini = tu_cleanup);

static char *gen_cli(const char *seed, const char *file)
{
    const char *argv[] = {"mmsim", "gen", "--seed", seed, "--events", "200000", "--symbol", "ABC", "-o", file, NULL};
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

/* The fingerprint of a fixed small tape is part of the format contract: the same parameters must give
 * the same bytes on every machine and compiler. If this changes, the generator changed. */
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
    /* Mid volatility: variance of 10-second mid changes over 10, in ticks^2 per second, near vol^2. */
    mm_ticks_free(&t);
    p.events = 2000000;
    cr_assert_eq(mm_gen_ticks(&p, &t, &e), 0, "%s", e.msg);
    double sum2 = 0;
    int64_t k = 0, j = 0;
    double prev = (t.bid_px[0] + t.ask_px[0]) * 0.5;
    for (int64_t sec = 10; sec < 1990; sec += 10) {
        int64_t target = t.ts_ns[0] + sec * 1000000000LL;
        while (j < t.n && t.ts_ns[j] < target) j++;
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
    const char *cases[][3] = {{"--events", "-5", "--events"}, {"--rate", "0", "--rate"},
                              {"--vol", "abc", "--vol"},      {"--max-spread", "0", "--max-spread"},
                              {"--symbol", "a/b", "symbol"},  {"--trade-frac", "0.95", "--trade-frac"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[] = {"mmsim", "gen", cases[i][0], cases[i][1], "-o", tu_path("x.h5"), NULL};
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
