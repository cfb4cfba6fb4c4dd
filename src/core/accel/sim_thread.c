/* Slots run by an "advance" function: the CUDA engine's host loop (docs/perf-gpu.md), with the
 * device (cuda/engine_cuda.cu) or its CPU emulation (mm__thread_emulate) doing the events. The
 * setup and the finish are the batched engine's (mm__derive, mm__state_init, mm__finish), so the
 * metrics are bit for bit those of mm__sim_batch_tape whenever the advance is (the emulation is
 * checked against it in tests/test_thread.c). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "mm_accel.h"
#include "mm_internal.h"
#include "mm_thread.h"

int mm__thread_emulate(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                       void *user, mm_error *err)
{
    (void)err;
    const mm__emulation *e = user;
    int64_t tile = e && e->tile > 0 ? e->tile : v->n;
    int64_t block = e && e->block > 0 ? e->block : 256;
    /* The kernel's order: one launch per tile of events; in a launch, blocks of threads, each
     * thread one slot through the tile. */
    for (int64_t i0 = 0; i0 < v->n; i0 += tile) {
        int64_t i1 = v->n - i0 < tile ? v->n : i0 + tile;
        for (int64_t b0 = 0; b0 < m; b0 += block)
            for (int64_t j = b0; j < m && j < b0 + block; j++)
                mm__thread_advance(v, &d[j], &st[j], i0, i1);
    }
    return 0;
}

int mm__sim_slots_tape(const mm__tape *tp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       int64_t first_id, int32_t path0, int32_t n_paths, mm_metrics *out,
                       int64_t batch, mm__advance_fn advance, void *user, mm_error *err)
{
    assert(n >= 0 && n_paths >= 1 && first_id >= 0 && path0 >= 0 && batch >= 1);
    for (int64_t k = 0; k < n; k++) {
        int rc = mm_sim_check_params(&p[k], c, err);
        if (rc) return rc;
    }
    int64_t slots = n * n_paths, blk = slots < batch ? slots : batch;
    size_t cap = (size_t)(blk > 0 ? blk : 1);
    mm_state *st = malloc(cap * sizeof *st);
    mm_derived *d = malloc(cap * sizeof *d);
    int rc =
        st && d ? 0 : mm__errf(err, -ENOMEM, "cannot allocate %lld slot states", (long long)blk);
    for (int64_t s0 = 0; rc == 0 && s0 < slots; s0 += blk) {
        int64_t m = slots - s0 < blk ? slots - s0 : blk;
        for (int64_t j = 0; j < m; j++) {
            int64_t k = (s0 + j) / n_paths;
            mm__derive(&p[k], tp->t, &d[j]);
            mm__state_init(&st[j], tp, &d[j], first_id + k, path0 + (int32_t)((s0 + j) % n_paths));
        }
        mm_side *rungs = mm__rungs_attach(d, m, &rc); /* ladders' rungs 1.. (6.2) */
        if (rc) {
            rc = mm__errf(err, rc, "cannot allocate the ladders' orders");
            break;
        }
        rc = advance(&tp->v, d, st, m, user, err);
        free(rungs);
        if (rc) break;
        for (int64_t j = 0; j < m; j++)
            mm__finish(&st[j], tp, &d[j], c, &out[s0 + j]);
        for (int64_t j = 0; j < m && rc == 0; j++)
            if (st[j].ovf_event) rc = mm__overflow_err(st[j].ovf_event, st[j].id, err);
    }
    free(st);
    free(d);
    return rc;
}
