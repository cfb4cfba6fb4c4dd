/* Time blocks of a sweep (docs/results.md, "/blocks"): the plan (where each tape's blocks end) and
 * the hook a kernel fills (each combination's state at each block's end).
 *
 * THE KERNEL HOOK. A kernel that records blocks is handed, per tape, n_blocks event counts
 * end_i[0 .. n_blocks) (non-decreasing, the last one = the tape's event count: block b holds the
 * events [end_i[b-1], end_i[b])) and, per slot (combination), room for n_blocks mm_results_block.
 * After advancing a slot's state through events [0, end_i[b]) it writes record b with
 * mm__block_snap(state, tape, derived, end_i[b]): PnL marked to mid2[end_i[b] - 1] exactly as
 * mm__finish marks the end (mm__pnl), the position, fills_bid + fills_ask and fees. Nothing else
 * changes: the metrics are the run's as before, and the last record equals them bit for bit.
 * Because a batched run split at any event gives the same states bit for bit (docs/model.md 8),
 * the simplest kernel-side implementation is the one below: advance to each end_i[b] in turn and
 * snapshot. mm__run_blocks is that, on the batched CPU kernel, written in the sweep layer so that
 * src/core stays untouched; the CUDA engine, the synthetic markets and Monte Carlo paths do not
 * fill the hook yet (mm_sweep_run refuses blocks with them). */
#ifndef MM_BLOCKS_H
#define MM_BLOCKS_H

#include "mm_engine.h"
#include "mmsim/results.h"

/* Record of one state at the end of a block whose last event is end_i - 1 (end_i = 0: nothing
 * yet; marked at mid 0). */
static inline void mm__block_snap(const mm_state *st, const mm__tape *tp, const mm_derived *d,
                                  int64_t end_i, mm_results_block *out)
{
    out->pnl = mm__pnl(st, end_i > 0 ? tp->mid2[end_i - 1] : 0, d);
    out->q = st->q;
    out->fills = st->fills[0] + st->fills[1];
    out->fees = st->fees;
}

/* The plan, once the tapes are loaded (r->ticks, r->tapes): r->n_blocks, r->block_end_ns and
 * r->block_end_i from r->o->blocks or r->o->block_ns; nothing when both are 0. MM_EUSAGE when
 * block_ns would cut a tape into more than MM_RESULTS_BLOCKS_MAX blocks; -ENOMEM. */
int mm__blocks_plan(mm__run *r, mm_error *err);

/* The hook's fill on the batched CPU kernel: combinations first .. first + n - 1 of tape `tape`
 * (params p[0..n), path 0), metrics into out[0..n) (the same bits as mm__sim_batch_tape), blocks
 * into blk[k x n_blocks + b]. */
int mm__run_blocks(const mm__run *r, int32_t tape, const mm_params *p, int64_t n, int64_t first,
                   mm_metrics *out, mm_results_block *blk, mm_error *err);

/* A chunk with blocks, in the journal's record layout (mm_metrics, then n_blocks records, per
 * combination): mm__run_compute calls it when r->n_blocks > 0. */
int mm__blocks_compute(const mm__run *r, const mm__chunk *c, const mm_params *params, void *out,
                       mm_error *err);

#endif
