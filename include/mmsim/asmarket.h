/* The Avellaneda-Stoikov model market (docs/montecarlo.md): no tick file; the mid is a +-sigma
 * sqrt(dt) random walk, fills arrive with probability A exp(-k delta) dt per step and side, and
 * every (seed, combination id, path) is its own market drawn from its own Philox4x32-10 stream.
 *
 * Units: prices in price units (continuous: this market has no tick grid), time in the model's
 * time unit (T, dt), inventory in whole units (one unit per fill), money in price units x units.
 *
 * Every function returns 0 or a negative error code (MM_EUSAGE: a parameter outside its domain,
 * with a one-line message in err that starts with the parameter's name; -ENOMEM; -EINVAL: a NULL
 * argument). The results depend on the parameters, the seed, the combination id and the path only:
 * not on the thread count, the machine or the order in which paths are computed. */
#ifndef MMSIM_ASMARKET_H
#define MMSIM_ASMARKET_H

#include <stdint.h>

#include "mmsim/mmsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Quoting strategies. */
enum mm_as_strategy {
    MM_AS_INVENTORY =
        0, /* Avellaneda-Stoikov: the paper's spread centred on the reservation price */
    MM_AS_SYMMETRIC = 1, /* the paper's benchmark: the inventory strategy's average spread, centred
                            on the mid */
    MM_AS_GLFT = 2,      /* Gueant-Lehalle-Fernandez-Tapia closed form (docs/model.md 1.1) */
    MM_AS_FIXED = 3      /* fixed offset: bid = s - spread - skew q, ask = s + spread - skew q */
};

/* One combination of the model market. mm_as_defaults gives the paper's set-up (section 3.3 of
 * Avellaneda and Stoikov 2008) with gamma = 0.1 and the inventory strategy. Domains (mm_as_check):
 *   s0         (0, 1e9)        initial mid, price units
 *   T          (0, 1e6]        horizon, time units
 *   dt         [1e-9, T]       step; T / dt must be a whole number of steps (within 1e-9
 *                              relative), at most 1e9 steps
 *   sigma      [0, 1e6)        mid volatility, price units per sqrt(time unit)
 *   k          [1e-6, 1e6)     decay of the fill intensity, 1 / price units
 *   A          [1e-6, 1e9)     fill intensity at zero depth, 1 / time unit
 *   q0         [-1e9, 1e9]     initial inventory, units
 *   gamma      [1e-6, 1e6)     risk aversion (inventory, symmetric, glft; unused by fixed)
 *   spread     [0, 1e6)        fixed: distance from the mid to each quote, price units
 *   skew       [0, 1e6)        fixed: quote shift per unit of inventory, price units
 *   inv_limit  [0, 1e9]        0: none; else a side that could take |q| past it is not quoted */
typedef struct mm_as_params {
    int strategy; /* enum mm_as_strategy */
    double s0, T, dt, sigma, k, A;
    int64_t q0;
    double gamma;
    double spread, skew;
    int64_t inv_limit;
} mm_as_params;

/* The metrics of one path. */
typedef struct mm_as_path_result {
    double profit;    /* cash + q s at T, less q0 s0: the change of the wealth marked to the mid */
    double cash;      /* cash at T (starts at 0) */
    double final_mid; /* s at T */
    double mean_spread;  /* mean of ask - bid over the steps that quoted both sides (NaN if none) */
    double mean_abs_q;   /* mean over the steps of |q| before the step's fills */
    double step_pnl_std; /* population std of the per-step change of the marked wealth */
    double max_drawdown; /* largest fall of the marked wealth from its running peak (>= 0) */
    int64_t final_q;
    int64_t max_abs_q; /* over the whole path, q0 included */
    int64_t bid_fills, ask_fills;
    int64_t both_quoted; /* steps that quoted both sides */
} mm_as_path_result;

/* Summary of n paths of one combination (definitions in docs/montecarlo.md, "Summary"):
 * means are sums in path order divided by n; std is the population standard deviation (divisor
 * n), two passes; percentiles interpolate linearly between order statistics (numpy's default,
 * Hyndman-Fan type 7); cvar5 is the mean of the ceil(n / 20) lowest profits; prob_loss counts
 * profit < 0. */
typedef struct mm_as_summary {
    int64_t paths;
    double profit_mean, profit_std, profit_se; /* se = std / sqrt(n) */
    double profit_p5, profit_p50, profit_p95, profit_cvar5, prob_loss;
    double q_mean, q_std;  /* final q */
    double spread_mean;    /* mean over paths of mean_spread (paths that quoted; NaN if none) */
    double fills_mean;     /* mean of bid_fills + ask_fills */
    double max_abs_q_mean; /* mean of max_abs_q */
    double max_drawdown_mean;
} mm_as_summary;

/* The paper's set-up: s0 100, T 1, dt 0.005, sigma 2, k 1.5, A 140, q0 0, gamma 0.1, inventory;
 * spread 0, skew 0, inv_limit 0 (none). */
MM_API void mm_as_defaults(mm_as_params *p);

/* Check every parameter against its domain (above). 0 or MM_EUSAGE with err->msg = "NAME: ..." */
MM_API int mm_as_check(const mm_as_params *p, mm_error *err);

/* The number of steps, round(T / dt), of valid parameters. */
MM_API int64_t mm_as_steps(const mm_as_params *p);

/* The symmetric strategy's constant spread: the inventory strategy's average spread over the run
 * with the same parameters (docs/montecarlo.md 2); NaN when mm_as_check refuses p. */
MM_API double mm_as_symmetric_spread(const mm_as_params *p);

/* Run one path: the market of stream (seed, id, path). */
MM_API int mm_as_run_path(const mm_as_params *p, uint64_t seed, int64_t id, int32_t path,
                          mm_as_path_result *out, mm_error *err);

/* Run paths 0 .. n_paths - 1 of combination id on `threads` OpenMP threads (0: OpenMP's default;
 * 1 without OpenMP), fill out (and, when it is not NULL, paths_out[0 .. n_paths), path order).
 * n_paths in [1, 1e9]. Same bits for any thread count. */
MM_API int mm_as_run(const mm_as_params *p, uint64_t seed, int64_t id, int64_t n_paths, int threads,
                     mm_as_summary *out, mm_as_path_result *paths_out, mm_error *err);

/* The summary of paths[0 .. n) (n >= 1), as mm_as_run computes it. */
MM_API int mm_as_summarize(const mm_as_path_result *paths, int64_t n, mm_as_summary *out,
                           mm_error *err);

#ifdef __cplusplus
}
#endif

#endif
