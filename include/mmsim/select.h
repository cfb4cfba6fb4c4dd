/* Honest selection (docs/select.md): is the best row of a sweep one worth trading? Walk-forward
 * selection, the probability of backtest overfitting by combinatorially symmetric
 * cross-validation, the deflated Sharpe ratio and neighbourhood robustness, computed from the
 * time blocks (or the tapes) of a results file.
 *
 * The statistics (src/sweep/select_stats.c) work on a performance matrix: T periods (blocks or
 * tapes, in time order) x N trials (parameter combinations), row-major, perf[t x N + n] = trial n's
 * PnL change over period t (money). They know nothing of files; mm_select_run (select.c) builds
 * the matrix from a results file and runs them all. */
#ifndef MMSIM_SELECT_H
#define MMSIM_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The statistic a set of periods is judged by: the sum of its PnL changes, or their Sharpe
 * ratio (mean / population standard deviation, per period, not annualised; a set whose changes
 * are all equal has Sharpe +inf, -inf or 0 by the sign of its mean). */
enum mm_select_stat { MM_SELECT_PNL = 0, MM_SELECT_SHARPE = 1 };

/* The standard normal distribution function and its inverse (p in (0, 1); 0 gives -inf, 1 +inf,
 * outside [0, 1] NaN), to within a few ulps (the inverse is solved on erfc by bisection). */
MM_API double mm_select_norm_cdf(double x);
MM_API double mm_select_norm_ppf(double p);

/* The statistic of trial n over periods [t0, t1) of perf (T x N). */
MM_API double mm_select_stat_of(const double *perf, int64_t N, int64_t n, int64_t t0, int64_t t1,
                                int stat);

/* Probability of backtest overfitting by combinatorially symmetric cross-validation (Bailey,
 * Borwein, Lopez de Prado and Zhu, "The probability of backtest overfitting", 2015). The T periods
 * are cut into S contiguous groups (group g = periods [g T / S, (g + 1) T / S), integer division);
 * for each of the C(S, S/2) ways to choose S/2 groups as the training half (in lexicographic
 * order of the chosen groups), the trial with the best statistic on the training half (ties: the
 * lowest n) is ranked among all N trials on the other half: rank r = 1 + (trials strictly worse)
 * + (other trials equal) / 2, omega = r / (N + 1), logit = ln(omega / (1 - omega)). PBO = the
 * share of logits <= 0 (the in-sample best did no better than the median out of sample). S even,
 * 2 <= S <= min(T, MM_SELECT_SPLITS_MAX); N >= 2. logits (may be NULL) receives C(S, S/2) values.
 * Returns 0 or -EINVAL (err names the argument). */
#define MM_SELECT_SPLITS_MAX 16
MM_API int mm_select_pbo(const double *perf, int64_t T, int64_t N, int32_t S, int stat,
                         double *logits, int64_t *n_logits, double *pbo, mm_error *err);

/* C(S, S/2): the number of CSCV splits. */
MM_API int64_t mm_select_n_splits(int32_t S);

/* Deflated Sharpe ratio (Bailey and Lopez de Prado, "The deflated Sharpe ratio", 2014) of a
 * selected trial with returns r[0 .. T), chosen among n_trials trials whose per-period Sharpe
 * ratios have variance sr_var:
 *   sr = mean / sd (population sd), skew = m3 / m2^1.5, kurt = m4 / m2^2 (central moments, not
 *   excess: 3 for a normal law),
 *   sr0 = sqrt(sr_var) x ((1 - g) Phi^-1(1 - 1/N) + g Phi^-1(1 - 1/(N e))), g = Euler's 0.5772...
 *   (0 when N = 1),
 *   z = (sr - sr0) sqrt(T - 1) / sqrt(1 - skew sr + (kurt - 1) / 4 sr^2), dsr = Phi(z),
 * the probability that the true Sharpe ratio is above 0 after the selection among N trials. T >= 2;
 * NaN fields when sd is 0 or the radicand is not positive. */
typedef struct mm_select_dsr_out {
    double sr, skew, kurt, sr0, z, dsr;
    int64_t T, n_trials;
} mm_select_dsr_out;
MM_API int mm_select_dsr(const double *r, int64_t T, double sr_var, int64_t n_trials,
                         mm_select_dsr_out *out, mm_error *err);

/* Walk-forward selection: for each period t in [min_train, T), the trial with the best statistic
 * on the periods before t (expanding: [0, t); rolling: the last `window` of them), ties the lowest
 * n: chosen[t], and its result on t: oos[t] = perf[t x N + chosen[t]]. Before min_train: chosen -1,
 * oos NaN. window 0: expanding; min_train >= 1. */
MM_API int mm_select_walk_forward(const double *perf, int64_t T, int64_t N, int64_t window,
                                  int64_t min_train, int stat, int64_t *chosen, double *oos,
                                  mm_error *err);

/* Neighbourhood smoothing over a grid of n_dims axes of dims[d] values (mixed radix, the last
 * axis fastest, N = the product): out[n] = the mean of v over n and its neighbours, the points one
 * step away along one axis whose ordered[d] is 1 (numeric axes; an enum axis has no neighbours).
 * NaN values are left out of the means (a point whose values are all NaN gets NaN). */
MM_API void mm_select_smooth(const double *v, int32_t n_dims, const int32_t *dims,
                             const unsigned char *ordered, double *out);

/* ---- a results file (src/sweep/select.c) ---- */

typedef struct mm_select_opts {
    int stat;          /* enum mm_select_stat (MM_SELECT_PNL by default) */
    int by_tape;       /* 1: the periods are the tapes (each row's whole-tape pnl); 0: the time
                          blocks of every tape, tape after tape (needs /blocks) */
    int64_t window;    /* walk-forward: periods in the rolling window; 0: expanding (default) */
    int64_t min_train; /* walk-forward: the first period chosen for (default 1: after one) */
    int32_t splits;    /* CSCV groups S; 0: the largest even number <= min(T, 16) */
} mm_select_opts;

MM_API void mm_select_opts_defaults(mm_select_opts *o);

/* Everything `mmsim select` reports. Trials are the combinations of the axes other than the tape
 * (trial n = the row of id n on tape 0; on tape t, row t x N_all + n). A trial with no fill on any
 * tape (fills_bid + fills_ask = 0 in every row) is set aside: it is no strategy, and a PnL of 0
 * would rank above every one that takes risk. The N trials kept are numbered 0 .. N - 1 here;
 * trial[k] is the trial number of kept trial k. */
typedef struct mm_select_result {
    int64_t n_rows, n_all, n_idle; /* rows of the table, trials, trials set aside (no fill) */
    int64_t N, T;                  /* trials kept, periods */
    int32_t n_tapes, n_blocks;     /* n_blocks 0 with by_tape */
    int by_tape, stat;
    int64_t *trial;         /* [N] */
    double *perf;           /* [T x N] PnL change of each kept trial in each period */
    int64_t *period_end_ns; /* [T] the period's end (exchange ns): the block's, or the tape's
                               last event with by_tape (0 when the file does not say) */
    /* Walk-forward (expanding or rolling window): chosen[t] (a kept trial, -1 before min_train),
     * oos[t] its PnL change in period t; beside it the full-sample best (is_best) and the median
     * trial (median: the kept trial whose full-sample statistic is the lower median). */
    int64_t window, min_train;
    int64_t *chosen;
    double *oos;
    int64_t is_best, median;
    double oos_total, is_total, median_total; /* sums over the walk-forward periods */
    int64_t oos_distinct;                     /* distinct trials the walk-forward chose */
    /* PBO: S groups, n_logits = C(S, S/2) logits. */
    int32_t S;
    int64_t n_logits;
    double *logits;
    double pbo;
    /* Ranks of every kept trial on the first half of the periods (in-sample) and the second
     * (out-of-sample), 1 = worst .. N = best, ties by mid-rank; [N] each. */
    double *rank_is, *rank_oos;
    /* The deflated Sharpe ratio of the full-sample best, from its T period returns. sr_var: the
     * sample variance (N - 1) of the kept trials' finite per-period Sharpe ratios. */
    double sr_var;
    mm_select_dsr_out dsr;
    /* Neighbourhood robustness: each trial's full-sample statistic (value, [n_all]; NaN for no
     * trial) smoothed over its grid neighbours (smooth, [n_all]); the best kept trial by each
     * (trial numbers, not kept indexes). */
    double *value, *smooth;
    int64_t raw_best, smooth_best;
} mm_select_result;

/* Read the results file at path and compute everything (docs/select.md). Errors: the file's
 * (mm_results_open); MM_EUSAGE when there is nothing to select on: no blocks and fewer than two
 * tapes, fewer than two trials with a fill, fewer than 2 periods, a Monte Carlo table; -ENOMEM.
 * Free with mm_select_free. */
MM_API int mm_select_run(const char *path, const mm_select_opts *o, mm_select_result **out,
                         mm_error *err);
MM_API void mm_select_free(mm_select_result *r);

#ifdef __cplusplus
}
#endif

#endif
