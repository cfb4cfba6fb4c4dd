/* Benchmark: the Avellaneda-Stoikov model market (docs/montecarlo.md, docs/perf.md).
 *
 * The paper's set-up (gamma 0.1, inventory strategy, 200 steps). First checks the result: a run on
 * one thread and a run on every thread must give the same summary bit for bit, and the mean profit
 * must be the known 64.9 within 6 standard errors. Then times mm_as_run on one thread and on all
 * threads, best and median of the repeats, and prints paths x steps per second of wall time and
 * per core (work / CPU time of the process). Usage: bench_asmarket [paths] [repeats] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/asmarket.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of the whole process (all its threads): the per-core rate divides the work by it, so
 * it holds on a shared machine where the wall clock also counts other processes' turns. */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(const mm_as_params *p, int64_t paths, int threads, mm_as_summary *s)
{
    mm_error e = {0};
    if (mm_as_run(p, 1, 0, paths, threads, s, NULL, &e)) {
        fprintf(stderr, "bench_asmarket: %s\n", e.msg);
        exit(1);
    }
}

static void bench(const char *label, const mm_as_params *p, int64_t paths, int threads, int reps)
{
    double t[64], c[64];
    mm_as_summary s;
    for (int r = 0; r < reps; r++) {
        double t0 = now(), c0 = cpu();
        run(p, paths, threads, &s);
        t[r] = now() - t0;
        c[r] = cpu() - c0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    qsort(c, (size_t)reps, sizeof *c, cmp_d);
    double work = (double)paths * (double)mm_as_steps(p);
    printf("%-24s wall: best %.3g median %.3g paths x steps/s; per core (CPU time): best %.3g "
           "median %.3g\n",
           label, work / t[0], work / t[reps / 2], work / c[0], work / c[reps / 2]);
}

int main(int argc, char **argv)
{
    int64_t paths = argc > 1 ? atoll(argv[1]) : 20000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (paths < 100 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: bench_asmarket [paths>=100] [repeats<=64]\n");
        return 2;
    }
    mm_as_params p;
    mm_as_defaults(&p);
    mm_as_summary a, b;
    run(&p, paths, 1, &a);
    run(&p, paths, 0, &b);
    if (memcmp(&a.profit_mean, &b.profit_mean, sizeof(double)) ||
        memcmp(&a.profit_std, &b.profit_std, sizeof(double)) ||
        memcmp(&a.q_std, &b.q_std, sizeof(double))) {
        fprintf(stderr, "bench_asmarket: the threaded run differs from the one-thread run\n");
        return 1;
    }
    if (fabs(a.profit_mean - 64.91) > 6 * a.profit_se + 0.01) {
        fprintf(stderr, "bench_asmarket: mean profit %.4f is not 64.91 +- 6 se (%.4f)\n",
                a.profit_mean, a.profit_se);
        return 1;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("bench_asmarket: %lld paths x %lld steps, mean profit %.17g (checked)\n",
           (long long)paths, (long long)mm_as_steps(&p), a.profit_mean);
    bench("1 thread", &p, paths, 1, reps);
    char label[64];
    snprintf(label, sizeof label, "all threads (%ld cores)", cores);
    bench(label, &p, paths, 0, reps);
    return 0;
}
