/* The accounts of the per-event step (docs/model.md sections 3.2, 4.4 and 5), written once for the
 * host compiler and nvcc (MM_HD): the trace sink, the PnL mark, the messages to the strategy, a
 * fill's moves and their application, the queue rule's share of a level's cancels, the PnL
 * samples. mm_step_depth.h
 * (4.5) and mm_step.h (the step) build on them.
 *
 * Units: prices in ticks (int32), sizes in lots (int32), positions and cash in int64 (cash counted
 * twice, in half-ticks x lots), times in ns (int64), money in double. */
#ifndef MM_FILL_H
#define MM_FILL_H

#include <stdint.h>

#include "mm_detmath.h"
#include "mm_draw.h"
#include "mm_hd.h"
#include "mm_rng.h"
#include "mm_state.h"
#include "mmsim/sim.h"

/* Trace sink: the reference passes one; the batched kernel and the GPU pass NULL. */
typedef struct mm_trace_sink {
    mm_trace_fn fn;
    void *user;
    int fills_only; /* 1: only MM_TR_FILL records reach fn (a leader of shared states) */
} mm_trace_sink;

/* a + b as int64 through unsigned arithmetic: the same value whenever the sum is in range, and no
 * undefined behaviour in a run that has already failed (ovf_event set) and runs on to its end. */
MM_HD int64_t mm__wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

MM_HD double mm__pnl(const mm_state *st, int64_t mid2, const mm_derived *d)
{
    return (double)mm__wadd(st->cash2, st->q * mid2) * 0.5 * d->money - st->fees;
}

MM_HD void mm__trace(mm_trace_sink *tr, const mm_state *st, const mm_event *ev, const mm_derived *d,
                     int kind, int side_ix, int32_t px, int32_t qty, int32_t taker)
{
#if !defined(__CUDA_ARCH__)
    if (!tr || (tr->fills_only && kind != MM_TR_FILL)) return;
    const mm_side *o = &st->s[side_ix];
    mm_trace_rec r;
    r.ts_ns = ev->ts;
    r.event = ev->i;
    r.kind = kind;
    r.side = side_ix == 0 ? 1 : -1;
    r.px = px;
    r.qty = qty;
    r.ahead = o->qty > 0 ? (o->deep ? -1 : o->ahead) : 0;
    r.taker = taker;
    r.q = st->q;
    r.cash2 = st->cash2;
    r.mid2 = ev->mid2;
    r.fees = st->fees;
    r.pnl = mm__pnl(st, ev->mid2, d);
    r.known_q = st->kq;
    tr->fn(&r, tr->user);
#else
    (void)tr, (void)st, (void)ev, (void)d, (void)kind, (void)side_ix, (void)px, (void)qty,
        (void)taker;
#endif
}

/* Section 3.2: the time at which the strategy knows a message the exchange sends at this event
 * (a response or a fill report): ts + response latency (drawn per message, 3.3, at position (event
 * index, the messages drawn at this event before it)), and never before the previous message. A
 * time after ts is also one at which the batched kernel must step (wake_ns). */
MM_HD int64_t mm__resp_at(mm_state *st, const mm_event *ev, const mm_derived *d)
{
    int64_t r = mm__draw_latency(st->key, d->lat_dist, d->lat_sigma, d->resp_ns, MM_RNG_RESPONSE,
                                 (uint64_t)ev->i, (uint32_t)st->msg_n, ev->samp_r, ev->nsamp_lat);
    st->msg_n += d->draws; /* 0 between events: mm_step_c resets it */
    int64_t a = ev->ts + r + ev->lat_r;
    if (a < st->chan_ns) a = st->chan_ns;
    st->chan_ns = a;
    if (a > ev->ts && a < st->wake_ns) st->wake_ns = a;
    return a;
}

/* Section 3.2: a report moving the known position by dq lots, known at time a: at once when a <=
 * ts, else queued (a full queue adds it to its newest report, which is then known at a). */
MM_HD void mm__report(mm_state *st, const mm_event *ev, int64_t a, int64_t dq)
{
    if (a <= ev->ts) {
        st->kq += dq;
        return;
    }
    if (st->nrep == MM_REPORTS) {
        st->rep_q[MM_REPORTS - 1] += dq;
        st->rep_t[MM_REPORTS - 1] = a;
        return;
    }
    st->rep_t[st->nrep] = a;
    st->rep_q[st->nrep] = dq;
    st->nrep += 1;
}

/* Section 5, what a fill of qty lots at px on side_ix (0 buy, 1 sell) moves in a state's own
 * accounts, whatever the state: computed once, applied to the leader and replayed on each member of
 * shared states (sim_batch_kernel.h, share_split). */
typedef struct mm__fill_move {
    int64_t dq, dcash2, dmk2[MM_MARKOUTS], dspread2; /* lots; half-ticks x lots */
    double fee;                                      /* money */
    double notional; /* px x qty, ticks x lots: fee = the fee rate of `taker` x notional */
    int32_t qty, side_ix, taker;
} mm__fill_move;

MM_HD void mm__fill_move_of(mm__fill_move *m, const mm_event *ev, const mm_derived *d, int side_ix,
                            int32_t px, int32_t qty, int taker)
{
    int64_t sgn = side_ix == 0 ? 1 : -1;
    m->dq = sgn * qty;
    m->dcash2 = -2 * sgn * (int64_t)px * qty;
    m->notional = (double)px * (double)qty;
    m->taker = taker;
    m->fee = (taker ? d->taker_rate : d->maker_rate) * m->notional;
    for (int k = 0; k < MM_MARKOUTS; k++)
        m->dmk2[k] = sgn * qty * (ev->mid2_h[k] - 2 * (int64_t)px);
    /* Section 7.1, spread capture: the fill's edge to the mid before the event (0 with no mid). */
    m->dspread2 = ev->prev_mid2 ? sgn * qty * (ev->prev_mid2 - 2 * (int64_t)px) : 0;
    m->qty = qty;
    m->side_ix = side_ix;
}

/* Section 5, a fill's own accounts (q, cash, fees, volume, fills, max |q|, |q| dt, markouts,
 * spread capture, overflow) at event i, time ts. */
MM_HD void mm__fill_own(mm_state *st, const mm__fill_move *m, int64_t ts, int64_t i)
{
    int64_t aq = st->q < 0 ? -st->q : st->q;
    st->twq += (double)aq * (double)(ts - st->t_q);
    st->t_q = ts;
    st->q += m->dq;
    st->cash2 = mm__wadd(st->cash2, m->dcash2);
    int ovf = st->cash2 > MM_CASH2_MAX || st->cash2 < -MM_CASH2_MAX;
    st->fees += m->fee;
    st->volume += m->qty;
    st->fills[m->side_ix] += 1;
    aq = st->q < 0 ? -st->q : st->q;
    if (aq > st->max_abs_q) st->max_abs_q = aq;
    for (int k = 0; k < MM_MARKOUTS; k++) {
        st->mk2[k] = mm__wadd(st->mk2[k], m->dmk2[k]);
        ovf |= st->mk2[k] > MM_CASH2_MAX || st->mk2[k] < -MM_CASH2_MAX;
    }
    st->spread2 = mm__wadd(st->spread2, m->dspread2);
    ovf |= st->spread2 > MM_CASH2_MAX || st->spread2 < -MM_CASH2_MAX;
    if (ovf && !st->ovf_event) st->ovf_event = i + 1;
}

/* Section 5: a fill of qty lots at px on side_ix (0 buy, 1 sell). */
MM_HD_BIG void mm__fill(mm_state *st, const mm_event *ev, const mm_derived *d, int side_ix,
                        int32_t px, int32_t qty, int taker, mm_trace_sink *tr)
{
    mm__fill_move m;
    mm__fill_move_of(&m, ev, d, side_ix, px, qty, taker);
    mm__fill_own(st, &m, ev->ts, ev->i);
    /* Section 3.2: the fill's report; a resting order filled to 0 is reported done with it. */
    int64_t a = mm__resp_at(st, ev, d);
    mm__report(st, ev, a, side_ix == 0 ? (int64_t)qty : -(int64_t)qty);
    mm_side *o = &st->s[side_ix];
    if (!taker) {
        o->qty -= qty;
        if (o->qty == 0) o->done_ns = a;
    }
    mm__trace(tr, st, ev, d, MM_TR_FILL, side_ix, px, qty, taker);
}

/* Section 4.4: the share of the cancels that were ahead of us, f(a) / (f(a) + f(b)), for a queue
 * ahead a >= 1 and behind b >= 0 (whole lots). Log rule: f(x) = ln(1 + x). Power rule: f(x) = x^n =
 * exp(n ln x), computed as such while both exponents n ln a, n ln b are at most MM_QEXP_MAX (every
 * case before the rule was bounded: the same bits); beyond, x^n overflows mm_det_exp's domain, so
 * the share is computed as 1 / (1 + exp(e)) with e = n (ln b - ln a) clamped to [-MM_QEXP_MAX,
 * MM_QEXP_MAX] (exp(700) ~ 1e304: the clamp moves the share by less than 1e-300, far below what
 * floor(dec x share + 0.5) can see). */
MM_HD double mm__qshare(double a, double b, int rule, double n)
{
    MM_HD_ASSERT(a >= 1.0 && b >= 0.0);
    switch ((enum mm_queue_rule)rule) { /* no default: a new rule is a compile error here */
    case MM_QUEUE_RISK_AVERSE:
        return 0.0; /* no cancel was ahead of us (the caller does not ask) */
    case MM_QUEUE_LOG: {
        double fa = mm_det_log(1.0 + a), fb = b > 0 ? mm_det_log(1.0 + b) : 0.0;
        return fa / (fa + fb);
    }
    case MM_QUEUE_POWER:
        break;
    }
    if (b <= 0) return 1.0;
    double la = n * mm_det_log(a), lb = n * mm_det_log(b);
    if (la <= MM_QEXP_MAX && lb <= MM_QEXP_MAX) {
        double fa = mm_det_exp(la), fb = mm_det_exp(lb);
        return fa / (fa + fb);
    }
    double e = lb - la;
    if (e > MM_QEXP_MAX) e = MM_QEXP_MAX;
    if (e < -MM_QEXP_MAX) e = -MM_QEXP_MAX;
    return 1.0 / (1.0 + mm_det_exp(e));
}

/* Section 4.4: of dec > 0 lots cancelled at our level, with ahead > 0 lots ahead of us and behind
 * behind, those that were ahead: floor(dec x share + 0.5), or with cancel_draw = binomial a draw
 * (3.3), at most ahead. */
MM_HD int64_t mm__cancel_cut(const mm_state *st, const mm_event *ev, const mm_derived *d, int k,
                             int64_t dec, int64_t ahead, int64_t behind)
{
    double share = mm__qshare((double)ahead, (double)behind, d->queue_rule, d->queue_n);
    double c = (double)dec * share + 0.5;
    int64_t cut = (int64_t)c; /* floor: c >= 0.5 */
    /* cancel_draw = binomial (3.3): each cancelled lot was ahead with probability share. */
    if (d->cancel_binom) cut = mm__draw_binomial(st->key, (uint64_t)ev->i, (uint32_t)k, dec, share);
    return cut > ahead ? ahead : cut;
}

/* Section 2: PnL samples on the fixed clock, taken before the event with the previous mid. */
MM_HD void mm__sample(mm_state *st, const mm_event *ev, const mm_derived *d)
{
    for (int32_t k = 0; k < ev->n_samples; k++) {
        double pnl = mm__pnl(st, ev->prev_mid2, d);
        double r = pnl - st->pnl_prev;
        st->pnl_prev = pnl;
        st->n_ret += 1;
        double delta = r - st->ret_mean;
        st->ret_mean += delta / (double)st->n_ret;
        st->ret_m2 += delta * (r - st->ret_mean);
        if (pnl > st->pnl_peak) st->pnl_peak = pnl;
        if (st->pnl_peak - pnl > st->max_dd) st->max_dd = st->pnl_peak - pnl;
    }
}

#endif
