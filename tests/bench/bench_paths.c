/* Benchmark: execution randomness (docs/model.md 3.3) on a real tape. The AMZN LOBSTER day
 * (MMSIM_SHARED_DATA, skipped when absent) is replayed by the batched engine for 256 slots (one
 * combination on 256 keys: what 256 Monte Carlo paths cost), first with the deterministic rules and
 * then with drawn entry and response latencies, a uniform queue place and hidden liquidity. Prints
 * paths x events per CPU second per core for both, and their ratio: the cost of the draws. The
 * slots of the random run must not all give the same PnL (the draws change the outcome). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mmsim/import.h"
#include "mmsim/mmsim.h"

#define SLOTS 256

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The best of `reps` runs of SLOTS slots: paths x events per CPU second. */
static double rate(const mm_ticks *t, const mm_params *p, int reps, mm_metrics *m)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    c.seed = 2026;
    mm_params *ps = malloc(SLOTS * sizeof *ps);
    for (int j = 0; j < SLOTS; j++)
        ps[j] = *p;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        mm_error e = {0};
        double t0 = cpu_s();
        if (mm_sim_run_batch(t, &c, ps, SLOTS, m, &e)) {
            fprintf(stderr, "bench_paths: %s\n", e.msg);
            exit(1);
        }
        double v = (double)SLOTS * (double)t->n / (cpu_s() - t0);
        if (v > best) best = v;
    }
    free(ps);
    return best;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    const char *sd = getenv("MMSIM_SHARED_DATA");
    char a[512], b[512];
    struct stat st;
    snprintf(a, sizeof a, "%s/lobster/AMZN_2012-06-21_34200000_57600000_message_1.csv.gz",
             sd ? sd : "");
    snprintf(b, sizeof b, "%s/lobster/AMZN_2012-06-21_34200000_57600000_orderbook_1.csv.gz",
             sd ? sd : "");
    if (!sd || stat(a, &st) || stat(b, &st)) {
        printf("bench_paths: skipped (no shared data)\n");
        return 0;
    }
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "AMZN";
    o.date = "2012-06-21";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    if (mm_import_lobster(a, b, &o, &t, &rep, &e)) {
        fprintf(stderr, "bench_paths: %s\n", e.msg);
        return 1;
    }
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    p.latency_ns = 200000;
    p.response_ns = 100000;
    mm_metrics *m = malloc(SLOTS * sizeof *m);
    double det = rate(&t, &p, reps, m);
    p.latency_dist = MM_LAT_LOGNORMAL;
    p.latency_sigma = 0.5;
    p.queue_join = MM_JOIN_UNIFORM;
    p.trade_reach = 0.8;
    double rnd = rate(&t, &p, reps, m);
    int distinct = 0;
    for (int j = 1; j < SLOTS; j++)
        distinct |= m[j].pnl != m[0].pnl;
    if (!distinct) {
        fprintf(stderr, "bench_paths: every path gave the same pnl: the draws do nothing\n");
        return 1;
    }
    printf("bench_paths: AMZN 2012-06-21, %" PRId64 " events, %d paths (one combination, fixed "
           "spread 1, 200 us entry, 100 us response), best of %d, CPU time, one core\n",
           t.n, SLOTS, reps);
    printf("  deterministic rules        %.3e paths x events / s\n", det);
    printf("  drawn latencies, queue place, hidden liquidity   %.3e paths x events / s (%.2fx)\n",
           rnd, rnd / det);
    free(m);
    mm_ticks_free(&t);
    return 0;
}
