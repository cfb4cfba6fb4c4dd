/* Time blocks of a sweep (mm_blocks.h, docs/results.md "/blocks"): where each tape's blocks end,
 * and each combination's state there, computed with the batched CPU kernel advanced block by
 * block. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mm_blocks.h"

/* Combinations per pass of the kernel (the batched engine's own block, docs/model.md 8). */
#define BLOCKS_BATCH 1024

/* Events of t with ts_ns <= e (ts_ns is non-decreasing). */
static int64_t events_upto(const mm_ticks *t, int64_t e)
{
    int64_t lo = 0, hi = t->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t->ts_ns[mid] <= e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int mm__blocks_plan(mm__run *r, mm_error *err)
{
    const mm_sweep_opts *o = r->o;
    if (o->blocks <= 0 && o->block_ns <= 0) return 0;
    int32_t nt = r->n_tapes;
    int64_t nb = o->blocks, L = o->block_ns;
    if (L > 0) {
        nb = 1;
        for (int32_t t = 0; t < nt; t++) {
            int64_t span = r->tapes[t].t_end - r->tapes[t].t0;
            int64_t k = span / L + (span % L != 0);
            if (k > MM_RESULTS_BLOCKS_MAX)
                return mm__errf(err, MM_EUSAGE,
                                "block_ns: %" PRId64 " ns cuts tape %s (%" PRId64
                                " ns long) into %" PRId64 " blocks, more than %d",
                                L, r->ticks[t].inst.symbol, span, k, MM_RESULTS_BLOCKS_MAX);
            if (k > nb) nb = k;
        }
    }
    r->block_end_ns = malloc((size_t)nt * (size_t)nb * sizeof(int64_t));
    r->block_end_i = malloc((size_t)nt * (size_t)nb * sizeof(int64_t));
    if (!r->block_end_ns || !r->block_end_i) return mm__errf(err, -ENOMEM, "out of memory");
    for (int32_t t = 0; t < nt; t++) {
        int64_t t0 = r->tapes[t].t0, t1 = r->tapes[t].t_end, span = t1 - t0;
        int64_t *e = r->block_end_ns + (size_t)t * (size_t)nb,
                *ei = r->block_end_i + (size_t)t * (size_t)nb;
        for (int64_t b = 0; b < nb; b++) {
            if (b == nb - 1)
                e[b] = t1;
            else if (L > 0)
                e[b] = (b + 1) * L >= span ? t1 : t0 + (b + 1) * L; /* (b + 1) L < span: exact */
            else
                e[b] = t0 + (int64_t)((__int128)span * (b + 1) / nb);
            ei[b] = events_upto(&r->ticks[t], e[b]);
        }
        ei[nb - 1] = r->ticks[t].n; /* the last block ends with the tape */
    }
    r->n_blocks = (int32_t)nb;
    return 0;
}

int mm__run_blocks(const mm__run *r, int32_t tape, const mm_params *p, int64_t n, int64_t first,
                   mm_metrics *out, mm_results_block *blk, mm_error *err)
{
    const mm_sim_config *c = &r->sim;
    const mm__tape *tp = &r->tapes[tape];
    const int64_t nb = r->n_blocks, *ei = r->block_end_i + (size_t)tape * (size_t)nb;
    for (int64_t k = 0; k < n; k++) {
        int rc = mm_sim_check_params(&p[k], c, err);
        if (rc) return rc;
    }
    int64_t cap = n < BLOCKS_BATCH ? (n > 0 ? n : 1) : BLOCKS_BATCH;
    mm_state *st = aligned_alloc(64, ((size_t)cap * sizeof(mm_state) + 63) / 64 * 64);
    mm_derived *d = malloc((size_t)cap * sizeof *d);
    mm__guards g;
    int grc = mm__guards_alloc(&g, cap), rc = 0;
    if (!st || !d || grc) {
        free(st);
        free(d);
        if (!grc) mm__guards_free(&g);
        return mm__errf(err, -ENOMEM, "cannot allocate %" PRId64 " combination states", cap);
    }
    for (int64_t s0 = 0; s0 < n && rc == 0; s0 += cap) {
        int64_t m = n - s0 < cap ? n - s0 : cap, i0 = 0;
        for (int64_t j = 0; j < m; j++) {
            mm__derive(&p[s0 + j], tp->t, &d[j]);
            mm__state_init(&st[j], tp, &d[j], first + s0 + j, 0);
        }
        mm_side *rungs = mm__rungs_attach(d, m, &rc); /* ladders' rungs 1.. (6.2) */
        if (rc) {
            rc = mm__errf(err, rc, "cannot allocate the ladders' orders");
            break;
        }
        for (int64_t b = 0; b < nb; b++) {
            if (ei[b] > i0) mm__sim_batch_advance(tp, d, st, &g, m, i0, ei[b]);
            i0 = ei[b];
            for (int64_t j = 0; j < m; j++)
                mm__block_snap(&st[j], tp, &d[j], i0, &blk[(size_t)(s0 + j) * (size_t)nb + b]);
        }
        assert(i0 == tp->v.n);
        free(rungs);
        for (int64_t j = 0; j < m; j++)
            mm__finish(&st[j], tp, &d[j], c, &out[s0 + j]);
        for (int64_t j = 0; j < m && rc == 0; j++)
            if (st[j].ovf_event) rc = mm__overflow_err(st[j].ovf_event, st[j].id, err);
    }
    mm__guards_free(&g);
    free(st);
    free(d);
    return rc;
}

int mm__blocks_compute(const mm__run *r, const mm__chunk *c, const mm_params *params, void *out,
                       mm_error *err)
{
    size_t nb = (size_t)r->n_blocks, n = (size_t)c->count;
    mm_metrics *m = malloc(n * sizeof *m);
    mm_results_block *b = malloc(n * nb * sizeof *b);
    int rc = m && b ? 0 : mm__errf(err, -ENOMEM, "out of memory (blocks)");
    if (rc == 0) rc = mm__run_blocks(r, c->tape, params, c->count, c->first, m, b, err);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        unsigned char *rec = (unsigned char *)out + k * r->rec_bytes;
        memcpy(rec, &m[k], sizeof *m);
        memcpy(rec + sizeof *m, &b[k * nb], nb * sizeof *b);
    }
    free(b);
    free(m);
    return rc;
}
