/* Batched engine: one pass over the events per block of combinations. For each event, a cheap test
 * decides per combination whether the event can change anything for it (section 8 of
 * docs/model.md); only then does it run the full step. The test is conservative: skipping must
 * leave the state exactly as the step would, which the checker (tests/checkmodel/) verifies, whole
 * state at checkpoints, against mm_step_c. */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_internal.h"

/* Combinations per pass over the tape: the shared states form only within a block, so it is as
 * large as the sweep's largest automatic chunk (512 -> 1,024: GOOG full model 0.92x, gen 0.89x the
 * CPU time; docs/perf.md). */
#define MM_BLOCK 1024

/* One block for every array (64-byte aligned each): one allocation per kernel call. */
static size_t guards_round(size_t x)
{
    return (x + 63) / 64 * 64;
}

int mm__guards_alloc(mm__guards *g, int64_t cap)
{
    memset(g, 0, sizeof *g);
    size_t n = (size_t)(cap > 0 ? cap : 1);
    size_t n8 = (n + 7) / 8 * 8; /* need[] and live[] are scanned 8 bytes at a time */
    size_t i32 = guards_round(n * sizeof(int32_t)), f64 = guards_round(n * sizeof(double));
    size_t u8 = guards_round(n8), cnt = guards_round(MM_COUNTS * sizeof(int64_t));
    size_t key = guards_round(n * sizeof(mm__share_key));
    size_t off = guards_round(n * MM_SHARE_NOFF * sizeof(int64_t));
    size_t chash = guards_round(n * sizeof(uint64_t));
    size_t evs = guards_round(MM_LANES_WINDOW * sizeof(mm_event));
    size_t gts = guards_round(MM_LANES_WINDOW * sizeof(mm__gate));
    size_t log = guards_round(n * MM_SHARE_LOG * sizeof(mm__share_log));
    size_t range = guards_round(n * 4 * sizeof(int64_t));
    size_t tlink = guards_round(n * sizeof(int64_t));
    size_t rest = guards_round(n * 2 * sizeof(int64_t));
    size_t sw = guards_round(sizeof(mm__samp_list)), scur = guards_round(n * sizeof(int64_t));
    size_t bytes = 11 * i32 + 2 * f64 + 2 * u8 + cnt + key + off + chash + evs + gts + log + range +
                   tlink + rest + sw + scur;
    char *b = aligned_alloc(64, bytes);
    if (!b) return -ENOMEM;
    memset(b, 0, bytes);
    g->block = b;
    int32_t **ints[11] = {&g->lo,    &g->hi,  &g->landi, &g->perm, &g->lead,  &g->fhead,
                          &g->fnext, &g->pos, &g->tmp,   &g->logn, &g->logpos};
    for (int k = 0; k < 11; k++, b += i32)
        *ints[k] = (int32_t *)(void *)b;
    g->flo = (double *)(void *)b;
    b += f64;
    g->fhi = (double *)(void *)b;
    b += f64;
    g->need = (uint8_t *)b;
    b += u8;
    g->live = (uint8_t *)b;
    b += u8;
    g->count = (int64_t *)(void *)b;
    b += cnt;
    g->key = (mm__share_key *)(void *)b;
    b += key;
    g->off = (int64_t *)(void *)b;
    b += off;
    g->chash = (uint64_t *)(void *)b;
    b += chash;
    g->evs = (mm_event *)(void *)b;
    b += evs;
    g->gates = (mm__gate *)(void *)b;
    b += gts;
    g->log = (mm__share_log *)(void *)b;
    b += log;
    g->range = (int64_t *)(void *)b;
    b += range;
    g->tlink = (int64_t *)(void *)b;
    b += tlink;
    g->rest = (int64_t *)(void *)b;
    b += rest;
    g->sw = (mm__samp_list *)(void *)b;
    b += sw;
    g->scur = (int64_t *)(void *)b;
    g->cap = (int64_t)n;
    return 0;
}

void mm__guards_free(mm__guards *g)
{
    free(g->block);
    memset(g, 0, sizeof *g);
}

#include "sim_batch_kernel.h"

#define MM_ISA_ATTR /* the baseline: the compiler's default instruction set */
#include "sim_batch_body.h"

/* ---- The lanes kernel (sim_lanes.h) ---- */

int mm__lanes_ok(const mm_derived *d)
{
    return (d->caps & MM_CAP_LANES) != 0;
}

const char *mm__batch_isa_name(int isa)
{
    static const char *const N[] = {"scalar", "avx2", "avx512"};
    return isa >= 0 && isa < MM_ISA_COUNT ? N[isa] : NULL;
}

int mm__batch_isa_supported(int isa)
{
#if MM_X86_ISA
    __builtin_cpu_init();
    if (isa == MM_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    if (isa == MM_ISA_AVX512)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("bmi2");
#endif
    return isa == MM_ISA_SCALAR;
}

int mm__batch_isa_best(void)
{
    /* Every thread that finds it unset computes the same value: relaxed atomics suffice. */
    static _Atomic int best = -1;
    int v = atomic_load_explicit(&best, memory_order_relaxed);
    if (v < 0) {
        v = MM_ISA_SCALAR;
        for (int k = MM_ISA_COUNT - 1; k > 0 && v == MM_ISA_SCALAR; k--)
            if (mm__batch_isa_supported(k)) v = k;
        atomic_store_explicit(&best, v, memory_order_relaxed);
    }
    return v;
}

/* The builds of each kernel, by instruction set (NULL: not built). */
typedef void (*kernel_fn)(const mm__tape *, const mm_derived *, mm_state *, const mm__guards *,
                          int64_t, int64_t, int64_t);
#if MM_X86_ISA
static const kernel_fn SKIP[MM_ISA_COUNT] = {skip_advance, mm__skip_avx2, mm__skip_avx512};
static const kernel_fn LANES[MM_ISA_COUNT] = {NULL, mm__lanes_avx2, mm__lanes_avx512};
#else
static const kernel_fn SKIP[MM_ISA_COUNT] = {skip_advance, NULL, NULL};
static const kernel_fn LANES[MM_ISA_COUNT] = {NULL, NULL, NULL};
#endif

static int run_isa(const kernel_fn *k, int isa, const mm__tape *tp, const mm_derived *d,
                   mm_state *st, const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    if (!mm__batch_isa_supported(isa) || !k[isa]) return -ENODEV;
    k[isa](tp, d, st, g, m, i0, i1);
    return 0;
}

int mm__sim_batch_advance_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st,
                              const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    return run_isa(SKIP, isa, tp, d, st, g, m, i0, i1);
}

int mm__sim_lanes_advance_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st,
                              const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    return run_isa(LANES, isa, tp, d, st, g, m, i0, i1);
}

/* The choice between the two kernels (their results are the same bits; only the time differs):
 * the lanes kernel wherever it may run, the skip kernel elsewhere. A timed choice on probes of
 * 1,024 events per segment of 65,536 was dropped (2026-12-02): with the shared states the lanes
 * kernel was as fast or faster on every tape and model measured (docs/perf.md), and the probes'
 * noise sent whole segments to the skip kernel (GOOG, full model: 1.14x the CPU time). */
#define MM_LANES_MIN 3

void mm__sim_batch_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                           const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    int isa = mm__batch_isa_best();
    /* The lanes kernel's builds, for blocks of at least MM_LANES_MIN combinations: a vector step
     * costs about as much as 2-3 scalar ones, so with fewer the skip kernel is faster (AMZN, peer
     * model: 1 combination 1.23e7 -> 1.62e7 updates/s, 2: 1.98e7 -> 2.29e7; 3: lanes faster). */
    int lanes = MM_X86_ISA && isa >= MM_ISA_AVX2 && m >= MM_LANES_MIN;
    for (int64_t j = 0; j < m && lanes; j++)
        lanes = mm__lanes_ok(&d[j]);
    if (lanes)
        mm__sim_lanes_advance_isa(isa, tp, d, st, g, m, i0, i1);
    else
        mm__sim_batch_advance_isa(isa, tp, d, st, g, m, i0, i1);
}

int mm_sim_run_batch(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n,
                     mm_metrics *out, mm_error *err)
{
    if (!t || !c || (!p && n > 0) || (!out && n > 0) || n < 0)
        return mm__errf(err, -EINVAL, "mm_sim_run_batch: bad argument");
    int rc = mm_sim_config_check(c, t, err);
    if (rc) return rc;
    mm__tape tp;
    if ((rc = mm__tape_init(&tp, t, c)))
        return mm__errf(err, rc, "cannot allocate the tape tables");
    rc = mm__sim_batch_tape(&tp, c, p, n, c->id, c->path, 1, out, err);
    mm__tape_free(&tp);
    return rc;
}

int mm__sim_batch_tape(const mm__tape *tpp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       int64_t first_id, int32_t path0, int32_t n_paths, mm_metrics *out,
                       mm_error *err)
{
    assert(n >= 0 && n_paths >= 1 && first_id >= 0 && path0 >= 0);
    for (int64_t k = 0; k < n; k++) {
        int rc = mm_sim_check_params(&p[k], c, err);
        if (!rc) rc = mm__params_tape_check(&p[k], tpp->t, err);
        if (rc) return rc;
    }
    int rc = 0;
    const mm__tape tp = *tpp;
    /* A slot is one (combination, path): combination k on path path0 + p, whose metrics go to
     * out[k n_paths + p]. Slots are stepped in blocks of up to MM_BLOCK, path after path: a block
     * holds every combination of `ppb` whole paths when they fit (n <= MM_BLOCK), else MM_BLOCK
     * combinations of one path. A family's members on one path share a state (docs/model.md 3.3
     * and 8), so a block holds as many of them as a sweep without paths does, and a few
     * combinations with many paths still fill a block (each pass over the tape costs per event). */
    int64_t blk = n < MM_BLOCK ? n : MM_BLOCK;
    int64_t ppb = n > 0 && n <= MM_BLOCK ? MM_BLOCK / n : 1;
    if (ppb > n_paths) ppb = n_paths;
    size_t cap = (size_t)(blk * ppb > 0 ? blk * ppb : 1);
    mm_state *st = aligned_alloc(64, (cap * sizeof(mm_state) + 63) / 64 * 64);
    mm_derived *d = malloc(cap * sizeof(mm_derived));
    mm__guards g;
    int grc = mm__guards_alloc(&g, (int64_t)cap);
    if (!st || !d || grc) {
        free(st);
        free(d);
        if (!grc) mm__guards_free(&g);
        return mm__errf(err, -ENOMEM, "cannot allocate %lld combination states", (long long)cap);
    }
    for (int64_t s0 = 0; s0 < n * n_paths && rc == 0;) {
        /* s0 = p0 n + k0: paths p0 .. p0 + np - 1, combinations k0 .. k0 + mc - 1 of each */
        int64_t p0 = s0 / n, k0 = s0 % n, mc = n - k0 < blk ? n - k0 : blk;
        int64_t np = k0 == 0 && mc == n ? (n_paths - p0 < ppb ? n_paths - p0 : ppb) : 1;
        int64_t m = np * mc;
        s0 += (np - 1) * n + mc;
        for (int64_t j = 0; j < m; j++) {
            mm__derive(&p[k0 + j % mc], tp.t, &d[j]);
            mm__state_init(&st[j], &tp, &d[j], first_id + k0 + j % mc,
                           path0 + (int32_t)(p0 + j / mc));
        }
        mm_side *rungs = mm__rungs_attach(d, m, &rc); /* ladders' rungs 1.. (6.2) */
        if (rc) {
            rc = mm__errf(err, rc, "cannot allocate the ladders' orders");
            break;
        }
        mm__sim_batch_advance(&tp, d, st, &g, m, 0, tp.v.n);
        free(rungs);
        for (int64_t j = 0; j < m; j++)
            mm__finish(&st[j], &tp, &d[j], c, &out[(k0 + j % mc) * n_paths + p0 + j / mc]);
        for (int64_t j = 0; j < m && rc == 0; j++)
            if (st[j].ovf_event) rc = mm__overflow_err(st[j].ovf_event, st[j].id, err);
        if (rc) break;
    }
    mm__guards_free(&g);
    free(st);
    free(d);
    return rc;
}
