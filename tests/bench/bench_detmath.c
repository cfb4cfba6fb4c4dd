/* Benchmark: ns per call of mm_det_exp and mm_det_log (docs/perf.md, "mm_det_exp and mm_det_log").
 *
 * First checks the values: the scalar functions and the array variants (mm_detmath_n.h, on the
 * best instruction set of this CPU) against every entry of fixtures/detmath_table.h, and the timed
 * results against the scalar ones; any difference exits 1 before a figure is printed. Then times,
 * in CPU time of the process (the machine may be shared), best and median of `repeats` passes over
 * 4,096 arguments drawn once (exp: uniform in (-700, 700); log: log-uniform over (1e-300, 1e300)):
 *   chain        one call at a time: each argument depends on the previous result (x + 0 y), the
 *                latency of a call, what a step that needs the value at once pays;
 *   independent  y[i] = f(x[i]) in a loop the compiler does not vectorise: calls overlap in the
 *                out-of-order core;
 *   array        mm_det_exp_n / mm_det_log_n: the calls in the lanes of vectors;
 * and libm's exp and log, chain and independent, for comparison. Usage: bench_detmath [repeats] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../fixtures/detmath_table.h"
#include "mm_accel.h"
#include "mm_detmath.h"
#include "mm_detmath_n.h"

#if defined(__GNUC__) && !defined(__clang__)
#define NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define NO_VECTORIZE
#endif

enum { N = 4096 };
static double xe[N], xl[N], y[N], ref_e[N], ref_l[N];

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double dbl(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, z = *(const double *)b;
    return (x > z) - (x < z);
}

/* One pass over the N arguments per kind, f inlined (mm_det_*) or called (libm); the passes are
 * kept from vectorising, so "independent" measures scalar calls. */
#define CHAIN(name, f)                                                                             \
    static NO_VECTORIZE double name(const double *x)                                               \
    {                                                                                              \
        double v = 0.0;                                                                            \
        for (int i = 0; i < N; i++) {                                                              \
            v = f(x[i] + 0.0 * v);                                                                 \
            y[i] = v;                                                                              \
        }                                                                                          \
        return v;                                                                                  \
    }
#define INDEP(name, f)                                                                             \
    static NO_VECTORIZE double name(const double *x)                                               \
    {                                                                                              \
        for (int i = 0; i < N; i++)                                                                \
            y[i] = f(x[i]);                                                                        \
        return y[N - 1];                                                                           \
    }
CHAIN(chain_det_exp, mm_det_exp)
CHAIN(chain_det_log, mm_det_log)
CHAIN(chain_libm_exp, exp)
CHAIN(chain_libm_log, log)
INDEP(indep_det_exp, mm_det_exp)
INDEP(indep_det_log, mm_det_log)
INDEP(indep_libm_exp, exp)
INDEP(indep_libm_log, log)
static double array_exp(const double *x)
{
    mm_det_exp_n(x, y, N);
    return y[N - 1];
}
static double array_log(const double *x)
{
    mm_det_log_n(x, y, N);
    return y[N - 1];
}

/* Times pass(x) `reps` times after one checked pass: y must equal ref bit for bit (NULL: libm, not
 * checked, only that it ran). Prints ns per call, best and median. */
static int timed(const char *label, double (*pass)(const double *), const double *x,
                 const double *ref, int reps)
{
    pass(x);
    if (ref)
        for (int i = 0; i < N; i++)
            if (bits(y[i]) != bits(ref[i])) {
                fprintf(stderr, "bench_detmath: %s: f(%a) = %a, the reference gives %a\n", label,
                        x[i], y[i], ref[i]);
                return 1;
            }
    double t[101];
    volatile double sink = 0;
    for (int r = 0; r < reps; r++) {
        double c0 = cpu();
        for (int k = 0; k < 50; k++)
            sink += pass(x);
        t[r] = (cpu() - c0) / (50.0 * N) * 1e9;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    printf("%-28s %7.2f ns/call best  %7.2f median\n", label, t[0], t[reps / 2]);
    return 0;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 21;
    if (reps < 1 || reps > 101) {
        fprintf(stderr, "usage: bench_detmath [repeats 1..101]\n");
        return 2;
    }
    /* The table first: every entry, scalar and array variant. */
    size_t ne = sizeof detmath_exp / sizeof detmath_exp[0];
    size_t nl = sizeof detmath_log / sizeof detmath_log[0];
    for (size_t i = 0; i < ne; i++) {
        double x = dbl(detmath_exp[i][0]), a;
        mm_det_exp_n(&x, &a, 1);
        if (bits(mm_det_exp(x)) != detmath_exp[i][1] || bits(a) != detmath_exp[i][1]) {
            fprintf(stderr, "bench_detmath: exp(%a) is not the table's %a\n", x,
                    dbl(detmath_exp[i][1]));
            return 1;
        }
    }
    for (size_t i = 0; i < nl; i++) {
        double x = dbl(detmath_log[i][0]), a;
        mm_det_log_n(&x, &a, 1);
        if (bits(mm_det_log(x)) != detmath_log[i][1] || bits(a) != detmath_log[i][1]) {
            fprintf(stderr, "bench_detmath: log(%a) is not the table's %a\n", x,
                    dbl(detmath_log[i][1]));
            return 1;
        }
    }
    uint64_t s = 34;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = ((double)(s >> 11) + 0.5) * 0x1p-53;
        xe[i] = (u - 0.5) * 1400.0;
        xl[i] = exp((u - 0.5) * 1381.0); /* 1e-300 .. 1e300 */
        ref_e[i] = mm_det_exp(xe[i]);
        ref_l[i] = mm_det_log(xl[i]);
    }
    printf("bench_detmath: %zu exp and %zu log table entries checked (scalar and %s arrays); "
           "%d arguments, CPU time\n",
           ne, nl, mm__batch_isa_name(mm__batch_isa_best()), N);
    int bad = 0;
    bad |= timed("mm_det_exp chain", chain_det_exp, xe, ref_e, reps);
    bad |= timed("mm_det_exp independent", indep_det_exp, xe, ref_e, reps);
    bad |= timed("mm_det_exp_n array", array_exp, xe, ref_e, reps);
    bad |= timed("libm exp chain", chain_libm_exp, xe, NULL, reps);
    bad |= timed("libm exp independent", indep_libm_exp, xe, NULL, reps);
    bad |= timed("mm_det_log chain", chain_det_log, xl, ref_l, reps);
    bad |= timed("mm_det_log independent", indep_det_log, xl, ref_l, reps);
    bad |= timed("mm_det_log_n array", array_log, xl, ref_l, reps);
    bad |= timed("libm log chain", chain_libm_log, xl, NULL, reps);
    bad |= timed("libm log independent", indep_libm_log, xl, NULL, reps);
    return bad;
}
