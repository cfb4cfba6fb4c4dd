/* The Avellaneda-Stoikov model market's step, written once for the host compiler and nvcc (MM_HD).
 * docs/montecarlo.md is the specification; its section numbers match the comments here.
 *
 * Units: prices in price units (doubles: this market has no tick grid), time in the model's unit,
 * inventory in whole units (int64), cash in price units x units. The mid is s0 + m ds with m the
 * walk's integer position, so it never accumulates rounding over the steps. Floating point as in
 * the rest of core: no FMA contraction, mm_det_exp for exp, IEEE sqrt only at set-up.
 *
 * The file is named mm_asmarket.h, not asmarket.h, because the public include/mmsim/asmarket.h has
 * that name and file names are unique across the tree (STYLE.md). */
#ifndef MM_ASMARKET_H
#define MM_ASMARKET_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mm_detmath.h"
#include "mm_hd.h"
#include "mm_rng.h"

/* Constants of one combination (mm__as_derive, asmarket.c; docs/montecarlo.md 2). Every strategy
 * is one rule: centre = s - sk q, bid = centre - hs, ask = centre + hs with hs = hs0 + hs1 tau and
 * sk = sk0 + sk1 tau, tau = T - i dt the time left at step i. */
typedef struct mm__as_derived {
    double s0, T, dt;
    double ds;       /* sigma sqrt(dt): one move of the mid */
    double A_dt, k;  /* fill probability of depth delta: A_dt exp(-k delta), A_dt = A dt */
    double ln_A_dt;  /* mm_det_log(A_dt), for mm__as_fills_fast only (not a model constant) */
    double hs0, hs1; /* half spread, price units */
    double sk0, sk1; /* shift of the centre per unit of inventory, price units */
    int64_t n_steps, q0, inv_limit; /* inv_limit 0: none */
} mm__as_derived;

/* The state of one path, with the accumulators of its metrics. */
typedef struct mm__as_state {
    int64_t q, m;      /* inventory; the mid's walk position (s = s0 + m ds) */
    double cash;       /* price units x units */
    double spread_sum; /* sum of ask - bid over the steps that quoted both sides */
    double abs_q_sum;  /* sum of |q| before each step's fills */
    double w_prev, w_peak,
        max_dd;         /* marked wealth after the last step, its running peak, drawdown */
    double d_sum, d_sq; /* sum and sum of squares of the per-step change of the marked wealth */
    int64_t both_quoted, bid_fills, ask_fills, max_abs_q;
} mm__as_state;

/* Bound of mm_det_exp's argument (its domain is [-700, 700]). */
#define MM_AS_EXP_MAX 700.0

MM_HD void mm__as_state_init(const mm__as_derived *d, mm__as_state *st)
{
    memset(st, 0, sizeof *st);
    st->q = d->q0;
    st->max_abs_q = d->q0 < 0 ? -d->q0 : d->q0;
}

/* The mid at walk position m. */
MM_HD double mm__as_mid(const mm__as_derived *d, int64_t m)
{
    return d->s0 + (double)m * d->ds;
}

/* 3.2 Probability that a quote at depth delta (>= 0 or not) fills within one step: A dt exp(-k
 * delta), evaluated as A_dt * exp(x) with x = -k delta; x > 700 is certain (A dt e^700 > 1 for
 * every accepted A and dt), x < -700 never happens (A dt e^-700 < 1e-290 is below the smallest
 * uniform mm_u01 returns, 2^-53). The caller compares u < p: p >= 1 always fills. */
MM_HD double mm__as_fill_prob(const mm__as_derived *d, double delta)
{
    double x = -d->k * delta;
    if (x > MM_AS_EXP_MAX) return 2.0;
    if (x < -MM_AS_EXP_MAX) return 0.0;
    return d->A_dt * mm_det_exp(x);
}

/* Absolute margin of mm__as_fills_fast, in the log domain: far above the error of its test. */
#define MM_AS_FILL_MARGIN 1e-9

/* The fast form of `u < mm__as_fill_prob(d, delta)`, the same answer for every u and delta, given
 * ln_u = mm_det_log(u) (which depends on the draw only, so it is computed off the path's chain of
 * dependent steps, many at a time in vectors by mm__as_path_lanes). With x = -k delta in [-700,
 * 700], p = A_dt mm_det_exp(x) rounded, and u < p exactly when ln u < ln p. The test takes the
 * sign of diff = ln_u - (ln_A_dt + x), where ln_A_dt = mm_det_log(A_dt) (mm__as_derive):
 * |ln_u - ln u| <= 4e-14 (mm_det_log within 4 ulp, |ln u| <= 37), |ln_A_dt - ln(A dt)| <= 4e-14
 * likewise (|ln(A dt)| <= 35 over the domains), |ln p - ln(A dt) - x| <= 2e-15 (mm_det_exp within
 * a few ulp of exp, the product's rounding), and the sum and the difference are rounded by at most
 * 2^-53 of |ln_A_dt + x| <= 735 and of |diff| (9e-14; a rounded difference keeps its sign). So
 * with |diff| > 1e-9 the sign of diff is the sign of ln u - ln p for certain (the error is below
 * 2e-13); only a draw within 1e-9 of p's logarithm (about one
 * in 10^9) computes p itself. The bounds of x are mm__as_fill_prob's: above 700 p = 2 > u, below
 * -700 p = 0 <= u. tests/test_asmarket.c checks the answer against the
 * reference at and around p, and the whole state of mm_as_step_fast against mm_as_step_c. No
 * branch depends on the answer: the one branch, on |diff|, is almost never taken. */
MM_HD int mm__as_fills_fast(const mm__as_derived *d, double delta, double u, double ln_u)
{
    double x = -d->k * delta;
    if (x > MM_AS_EXP_MAX) return 1;
    if (x < -MM_AS_EXP_MAX) return 0;
    double diff = ln_u - (d->ln_A_dt + x);
    if (fabs(diff) <= MM_AS_FILL_MARGIN) return u < d->A_dt * mm_det_exp(x); /* 1 in 10^9 */
    return diff < 0;
}

/* 2. The quotes at step i for mid s and inventory q: tau = T - i dt, hs = hs0 + hs1 tau, sk = sk0 +
 * sk1 tau, centre = s - sk q, bid = centre - hs, ask = centre + hs, in this order. */
MM_HD void mm__as_quotes(const mm__as_derived *d, double s, int64_t q, int64_t i, double *bid,
                         double *ask)
{
    double tau = d->T - (double)i * d->dt;
    double hs = d->hs0 + d->hs1 * tau;
    double sk = d->sk0 + d->sk1 * tau;
    double centre = s - sk * (double)q;
    *bid = centre - hs;
    *ask = centre + hs;
}

/* c ? a : b for c in {0, 1}, by the bit patterns: compilers turn a plain `c ? a : b` of doubles
 * into a branch, which mispredicts on a coin flip. */
MM_HD double mm__as_select(int c, double a, double b)
{
    uint64_t ia, ib, mask = (uint64_t)0 - (uint64_t)c;
    memcpy(&ia, &a, sizeof ia);
    memcpy(&ib, &b, sizeof ib);
    uint64_t r = (ia & mask) | (ib & ~mask);
    double v;
    memcpy(&v, &r, sizeof v);
    return v;
}

/* One step i (0 <= i < n_steps) with its uniforms given (docs/montecarlo.md 3): the quotes from
 * (s, q, tau), then the fills (bid fills if u_bid < p_bid, ask if u_ask < p_ask, both may), then
 * the mid moves up if u_mid < 1/2, else down; then the metrics. fast: 0 compares u with p
 * (mm__as_fill_prob), 1 decides the same comparison by mm__as_fills_fast from ln_bid =
 * mm_det_log(u_bid) and ln_ask = mm_det_log(u_ask) (unused when fast is 0); a constant at every
 * call, so each inlined copy keeps one of the two. */
MM_HD void mm__as_step_uf(const mm__as_derived *d, mm__as_state *st, int64_t i, double u_bid,
                          double u_ask, double u_mid, double ln_bid, double ln_ask, int fast)
{
    double s = mm__as_mid(d, st->m);
    /* 3.1 The quotes (section 2). */
    double bid, ask;
    mm__as_quotes(d, s, st->q, i, &bid, &ask);
    int bid_on = d->inv_limit == 0 || st->q + 1 <= d->inv_limit;
    int ask_on = d->inv_limit == 0 || st->q - 1 >= -d->inv_limit;
    if (bid_on && ask_on) {
        st->spread_sum += ask - bid;
        st->both_quoted++;
    }
    st->abs_q_sum += (double)(st->q < 0 ? -st->q : st->q);
    /* 3.2 The fills, at the quote price, each side on its own uniform. */
    if (fast) {
        /* The same updates without a branch on the fills (a fill is a coin flip the branch
         * predictor misses): both decisions first (mm__as_fills_fast has no side effect, so it may
         * run for a side that is not quoted), then the cash takes cash - bid and cash + ask, in
         * that order, exactly when the reference's branches would. */
        int fb = bid_on & mm__as_fills_fast(d, s - bid, u_bid, ln_bid);
        int fa = ask_on & mm__as_fills_fast(d, ask - s, u_ask, ln_ask);
        st->cash = mm__as_select(fb, st->cash - bid, st->cash);
        st->cash = mm__as_select(fa, st->cash + ask, st->cash);
        st->q += fb - fa;
        st->bid_fills += fb;
        st->ask_fills += fa;
    } else {
        if (bid_on && u_bid < mm__as_fill_prob(d, s - bid)) {
            st->q += 1;
            st->cash -= bid;
            st->bid_fills++;
        }
        if (ask_on && u_ask < mm__as_fill_prob(d, ask - s)) {
            st->q -= 1;
            st->cash += ask;
            st->ask_fills++;
        }
    }
    /* 3.3 The mid moves (fast: the same +-1 as arithmetic, not a branch). */
    if (fast)
        st->m += 2 * (int64_t)(u_mid < 0.5) - 1;
    else
        st->m += u_mid < 0.5 ? 1 : -1;
    /* 3.4 The metrics: the wealth marked to the new mid, relative to q0 s0. */
    int64_t aq = st->q < 0 ? -st->q : st->q;
    if (aq > st->max_abs_q) st->max_abs_q = aq;
    double w = st->cash + (double)st->q * mm__as_mid(d, st->m) - (double)d->q0 * d->s0;
    double dw = w - st->w_prev;
    st->d_sum += dw;
    st->d_sq += dw * dw;
    if (fast) { /* the same maxima as selects (a new peak is a coin flip too) */
        st->w_peak = mm__as_select(w > st->w_peak, w, st->w_peak);
        double dd = st->w_peak - w;
        st->max_dd = mm__as_select(dd > st->max_dd, dd, st->max_dd);
    } else {
        if (w > st->w_peak) st->w_peak = w;
        if (st->w_peak - w > st->max_dd) st->max_dd = st->w_peak - w;
    }
    st->w_prev = w;
}

/* The reference step with its uniforms given; the tests drive this directly. */
MM_HD void mm__as_step_u(const mm__as_derived *d, mm__as_state *st, int64_t i, double u_bid,
                         double u_ask, double u_mid)
{
    mm__as_step_uf(d, st, i, u_bid, u_ask, u_mid, 0.0, 0.0, 0);
}

/* One step i of the path with stream key `key` (mm_stream_key(seed, id, path)), the reference
 * (docs/montecarlo.md 4): the fills' uniforms from mm_stream4(key, MM_RNG_AS_FILL, i, 0), words 0,1
 * for the bid and 2,3 for the ask; the mid's from mm_stream4(key, MM_RNG_AS_MID, i, 0), words 0,1
 * (words 2,3 unused). */
MM_HD void mm_as_step_c(const mm__as_derived *d, mm__as_state *st, uint64_t key, int64_t i)
{
    mm_u32x4 f = mm_stream4(key, MM_RNG_AS_FILL, (uint64_t)i, 0);
    mm_u32x4 g = mm_stream4(key, MM_RNG_AS_MID, (uint64_t)i, 0);
    mm__as_step_u(d, st, i, mm_u01(f.v[0], f.v[1]), mm_u01(f.v[2], f.v[3]), mm_u01(g.v[0], g.v[1]));
}

/* The fast variant of mm_as_step_c: the same draws and the same state bit for bit (every fill
 * decided as the reference decides it, mm__as_fills_fast), with mm_det_exp computed only where the
 * decision needs its bits (docs/perf.md: the exponentials were most of a step). The two logarithms
 * depend on the draws alone, not on the state: the CUDA kernel's shape
 * (tests/cuda_asmarket_compile.cu). On the host, mm__as_path_lanes runs the same step with the
 * draws and logarithms of 64 steps computed at once in vectors. */
MM_HD void mm_as_step_fast(const mm__as_derived *d, mm__as_state *st, uint64_t key, int64_t i)
{
    mm_u32x4 f = mm_stream4(key, MM_RNG_AS_FILL, (uint64_t)i, 0);
    mm_u32x4 g = mm_stream4(key, MM_RNG_AS_MID, (uint64_t)i, 0);
    double ub = mm_u01(f.v[0], f.v[1]), ua = mm_u01(f.v[2], f.v[3]);
    mm__as_step_uf(d, st, i, ub, ua, mm_u01(g.v[0], g.v[1]), mm_det_log(ub), mm_det_log(ua), 1);
}

/* Host-side set-up and whole paths (asmarket.c); not compiled by nvcc. */
#if !defined(__CUDACC__)
#include "mmsim/asmarket.h"

/* Check p (mm_as_check) and derive its constants (docs/montecarlo.md 2). 0 or MM_EUSAGE. */
int mm__as_derive(const mm_as_params *p, mm__as_derived *d, mm_error *err);
/* Run the n_steps steps of the path with stream key `key` and write its metrics: the reference
 * (mm_as_step_c at every step). mm_as_run runs the fast variant, mm__as_path_lanes (accel/). */
void mm__as_path(const mm__as_derived *d, uint64_t key, mm_as_path_result *out);
/* A path's metrics from its state after the last step (docs/montecarlo.md 3, "After step N-1"). */
void mm__as_path_result_of(const mm__as_derived *d, const mm__as_state *st, mm_as_path_result *out);
#endif

#endif
