/* The step's internals that no trace shows (docs/model.md, sections 3.2 and 3.3): the queue of fill
 * reports in flight to the strategy, which holds MM_REPORTS and then adds a report to its newest;
 * the random draws. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_step.h"

static void init(mm_state *st)
{
    memset(st, 0, sizeof *st);
    st->chan_ns = INT64_MIN;
    st->wake_ns = MM_NEVER;
    for (int k = 0; k < 2; k++) {
        st->s[k].land_ns = MM_NEVER;
        st->s[k].resp_ns = INT64_MIN;
        st->s[k].done_ns = MM_NEVER;
    }
}

/* An event at ts with no two-sided book: the decision only takes in the reports known by then. */
static void deliver(mm_state *st, const mm_derived *d, int64_t ts)
{
    mm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts = ts;
    mm__decide(st, &ev, d, NULL);
}

Test(reports, a_full_queue_adds_the_new_report_to_its_newest_which_then_arrives_later)
{
    mm_state st;
    init(&st);
    mm_derived d;
    memset(&d, 0, sizeof d);
    d.resp_ns = 100;
    mm_event ev;
    memset(&ev, 0, sizeof ev);
    /* Ten fills of +1 lot at ts = 1 .. 10: reports due at 101 .. 110. The first 8 fill the queue;
     * the 9th and 10th are added to the 8th, now due at 110 with 3 lots. */
    for (int i = 1; i <= 10; i++) {
        ev.ts = i;
        int64_t a = mm__resp_at(&st, &ev, &d);
        cr_assert_eq(a, i + 100);
        mm__report(&st, &ev, a, 1);
    }
    cr_assert_eq(st.nrep, MM_REPORTS);
    cr_assert_eq(st.wake_ns, 101, "the first report is a time to step");
    cr_assert(st.rep_t[MM_REPORTS - 1] == 110 && st.rep_q[MM_REPORTS - 1] == 3);
    deliver(&st, &d, 100);
    cr_assert_eq(st.kq, 0, "nothing is known before 101");
    deliver(&st, &d, 108);
    cr_assert_eq(st.kq, 7, "reports 101 .. 107 are known at 108");
    cr_assert_eq(st.nrep, 1);
    deliver(&st, &d, 109);
    cr_assert_eq(st.kq, 7, "the 8th fill's report now comes with the 10th");
    deliver(&st, &d, 110);
    cr_assert_eq(st.kq, 10);
    cr_assert_eq(st.nrep, 0);
    /* A message at response latency 0 behind nothing pending is known at once. */
    d.resp_ns = 0;
    ev.ts = 200;
    mm__report(&st, &ev, mm__resp_at(&st, &ev, &d), -4);
    cr_assert(st.kq == 6 && st.nrep == 0);
}

/* ---- Draws (section 3.3) ---- */

Test(draws, the_normal_quantile_matches_known_values)
{
    /* Phi^-1 from tables (Abramowitz and Stegun 26.2), to 1e-8. */
    cr_assert_eq(mm__norm_inv(0.5), 0.0);
    cr_assert_float_eq(mm__norm_inv(0.975), 1.959963985, 1e-8);
    cr_assert_float_eq(mm__norm_inv(0.025), -1.959963985, 1e-8);
    cr_assert_float_eq(mm__norm_inv(0.001), -3.090232306, 1e-8);
    cr_assert_float_eq(mm__norm_inv(0.9), 1.281551566, 1e-8);
    cr_assert_float_eq(mm__norm_inv(1e-10), -6.361340902, 1e-7);
}

/* The positions of the latency draws (section 3.3): the entry latency of side k's action at event i
 * at (i, k), of rung r's at (i, k + 2 r); the response latencies of an event's messages at (i, 0),
 * (i, 1), ..., counted again from 0 at the next event (mm_step_c resets msg_n). */
Test(draws, latencies_are_drawn_at_the_event_and_its_message_or_slot)
{
    uint64_t key = mm_stream_key(5, 123456789, 2);
    mm_derived d;
    memset(&d, 0, sizeof d);
    d.lat_dist = MM_LAT_EXPONENTIAL;
    d.draws = 1;
    d.resp_ns = 100000;
    d.entry_ns = 200000;
    d.size = 1;
    d.limit = 10;
    mm_state st;
    init(&st);
    st.key = key;
    mm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.i = 4321;
    ev.ts = 1000000000;
    int64_t want[3];
    for (uint32_t m = 0; m < 3; m++)
        want[m] =
            mm__draw_latency(key, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_RESPONSE, 4321, m, NULL, 0);
    cr_assert(want[0] != want[1] && want[1] != want[2]);
    int64_t a0 = mm__resp_at(&st, &ev, &d);
    cr_assert_eq(a0, ev.ts + want[0]);
    int64_t a1 = mm__resp_at(&st, &ev, &d);
    cr_assert_eq(a1, a0 > ev.ts + want[1] ? a0 : ev.ts + want[1], "the second message: (i, 1)");
    cr_assert_eq(st.msg_n, 2);
    /* Entry: side 1 at slot 1, then a rung-2 ask at slot 1 + 4. */
    mm__send(&st, &ev, &d, 1, 1, 50, 0, 1, NULL);
    cr_assert_eq(st.s[1].land_ns, ev.ts + mm__draw_latency(key, MM_LAT_EXPONENTIAL, 0, 200000,
                                                           MM_RNG_ENTRY, 4321, 1, NULL, 0));
    mm__send(&st, &ev, &d, 1, 5, 50, 0, 1, NULL);
    cr_assert_eq(st.s[1].land_ns, ev.ts + mm__draw_latency(key, MM_LAT_EXPONENTIAL, 0, 200000,
                                                           MM_RNG_ENTRY, 4321, 5, NULL, 0));
    /* A step ends with msg_n 0 (no book: nothing else happens). */
    ev.i = 4322;
    ev.ts += 1;
    mm_step_c(&st, &ev, &d, NULL);
    cr_assert_eq(st.msg_n, 0);
    /* The next event's first message is at (i, 0) again. */
    ev.i = 4323;
    ev.ts = 2000000000;
    cr_assert_eq(mm__resp_at(&st, &ev, &d),
                 ev.ts + mm__draw_latency(key, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_RESPONSE, 4323,
                                          0, NULL, 0));
    /* A combination that draws nothing counts nothing (msg_n stays 0: the lanes kernel has none).
     */
    d.lat_dist = MM_LAT_CONSTANT;
    d.draws = 0;
    st.msg_n = 0;
    mm__resp_at(&st, &ev, &d);
    cr_assert_eq(st.msg_n, 0);
}

Test(draws, streams_depend_on_seed_id_path_and_position_only)
{
    uint64_t k = mm_stream_key(1, 7, 3);
    cr_assert_eq(k, mm_stream_key(1, 7, 3));
    cr_assert_neq(k, mm_stream_key(2, 7, 3));
    cr_assert_neq(k, mm_stream_key(1, 8, 3));
    cr_assert_neq(k, mm_stream_key(1, 7, 4));
    int64_t a = mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_ENTRY, 5, 0, NULL, 0);
    cr_assert_eq(a,
                 mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_ENTRY, 5, 0, NULL, 0));
    cr_assert_neq(a,
                  mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_ENTRY, 6, 0, NULL, 0));
    cr_assert_neq(
        a, mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, 100000, MM_RNG_RESPONSE, 5, 0, NULL, 0));
    cr_assert_eq(mm__draw_latency(k, MM_LAT_CONSTANT, 0, 12345, MM_RNG_ENTRY, 5, 0, NULL, 0),
                 12345);
    cr_assert_eq(mm__draw_latency(k, MM_LAT_LOGNORMAL, 1, 0, MM_RNG_ENTRY, 5, 0, NULL, 0), 0);
}

Test(draws, exponential_latencies_have_the_mean_and_lognormal_ones_the_median_and_sigma)
{
    /* 200,000 draws each. Exponential with mean 1e6 ns: sd 1e6, standard error of the mean
     * 1e6 / sqrt(2e5) = 2,236 ns; 4 SE = 8,944 (truncation to whole ns moves the mean by 0.5).
     * Lognormal, median 1e6, sigma 0.5: ln(x / 1e6) has mean 0 and sd 0.5 (SE 0.0011). */
    const int n = 200000;
    uint64_t k = mm_stream_key(11, 0, 0);
    double sum = 0, sl = 0, sl2 = 0;
    int below = 0;
    for (int i = 0; i < n; i++) {
        sum += (double)mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, 1000000, MM_RNG_ENTRY, i, 0, NULL,
                                        0);
        int64_t x =
            mm__draw_latency(k, MM_LAT_LOGNORMAL, 0.5, 1000000, MM_RNG_RESPONSE, i, 0, NULL, 0);
        double l = log((double)x / 1e6);
        sl += l;
        sl2 += l * l;
        below += x < 1000000;
    }
    cr_assert(fabs(sum / n - 1e6) < 8944, "exponential mean %.1f", sum / n);
    double m = sl / n, sd = sqrt(sl2 / n - m * m);
    cr_assert(fabs(m) < 0.0045, "lognormal: mean of ln %.5f", m);
    cr_assert(fabs(sd - 0.5) < 0.004, "lognormal: sd of ln %.5f", sd);
    /* The median: half below (binomial sd sqrt(n)/2 = 224; 4 sd = 894). */
    cr_assert(abs(below - n / 2) < 894, "lognormal: %d of %d below the median", below, n);
    /* Clamped to an hour: an exponential with mean 1 h exceeds it with probability e^-1. */
    int64_t top = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t x = mm__draw_latency(k, MM_LAT_EXPONENTIAL, 0, MM_SIM_LATENCY_MAX_NS, MM_RNG_ENTRY,
                                     i, 0, NULL, 0);
        cr_assert(x >= 0 && x <= MM_SIM_LATENCY_MAX_NS);
        top += x == MM_SIM_LATENCY_MAX_NS;
    }
    cr_assert(top > 300 && top < 440, "%ld of 1000 at the clamp, want about 368", (long)top);
}

Test(draws, binomial_cancels_have_the_binomial_mean_and_variance)
{
    /* 100,000 draws each: inversion (n p < 30), the mirror for p > 1/2, and BTRD (n p >= 30;
     * tests/test_binomial.c checks the whole law). Mean n p, variance n p (1 - p); the sample mean
     * within 4 standard errors sqrt(var / N), the sample variance within 3% (its relative sd is
     * about sqrt(2 / N) = 0.45%). */
    const struct {
        int64_t n;
        double p;
    } cs[] = {{20, 0.3}, {50, 0.8}, {7, 0.05}, {10000, 0.3}, {2000000000, 0.5}};
    uint64_t key = mm_stream_key(3, 1, 0);
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        const int N = 100000;
        double s = 0, s2 = 0;
        for (int i = 0; i < N; i++) {
            int64_t k = mm__draw_binomial(key, (uint64_t)i, (uint32_t)c, cs[c].n, cs[c].p);
            cr_assert(k >= 0 && k <= cs[c].n);
            s += (double)k;
            s2 += (double)k * (double)k;
        }
        double mean = s / N, var = s2 / N - mean * mean;
        double m0 = (double)cs[c].n * cs[c].p, v0 = m0 * (1 - cs[c].p);
        cr_assert(fabs(mean - m0) < 4 * sqrt(v0 / N), "n %ld p %g: mean %.4f, want %.4f",
                  (long)cs[c].n, cs[c].p, mean, m0);
        cr_assert(fabs(var / v0 - 1) < 0.03, "n %ld p %g: variance %.4f, want %.4f", (long)cs[c].n,
                  cs[c].p, var, v0);
    }
    cr_assert_eq(mm__draw_binomial(key, 0, 0, 0, 0.5), 0);
    cr_assert_eq(mm__draw_binomial(key, 0, 0, 10, 0), 0);
    cr_assert_eq(mm__draw_binomial(key, 0, 0, 10, 1), 10);
}

Test(draws, empirical_latencies_are_the_samples_plus_the_parameter)
{
    /* Samples 10, 20, 30 ns: each draw is one of them (+ base), each about a third of the time
     * (30,000 draws: 10,000 +- 4 x 82). */
    const int64_t e[3] = {10, 20, 30}, r[3] = {1, 2, 3};
    uint64_t k = mm_stream_key(5, 0, 0);
    int count[3] = {0};
    for (int i = 0; i < 30000; i++) {
        int64_t x = mm__draw_latency(k, MM_LAT_EMPIRICAL, 0, 1000, MM_RNG_ENTRY, i, 0, e, 3);
        cr_assert(x == 1010 || x == 1020 || x == 1030, "%ld", (long)x);
        count[(x - 1010) / 10]++;
        int64_t y = mm__draw_latency(k, MM_LAT_EMPIRICAL, 0, 0, MM_RNG_RESPONSE, i, 0, r, 3);
        cr_assert(y >= 1 && y <= 3);
    }
    for (int j = 0; j < 3; j++)
        cr_assert(abs(count[j] - 10000) < 330, "sample %d drawn %d times", j, count[j]);
}
