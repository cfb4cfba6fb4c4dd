/* The kernel registry of checkmodel: every implementation of the model's step, the reference first.
 * How to add one: checkmodel.h, above ck_kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "checkmodel.h"
#include "mm_config.h"
#include "mm_thread.h"
#if MM_HAVE_CUDA
#include "mm_cuda.h"
#endif

/* The reference: mm_step_c on every event, exactly as mm_sim_run_c (src/core/sim_ref.c) runs it. */
static int advance_c(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                     int64_t i1)
{
    mm_event ev;
    for (int64_t i = i0; i < i1; i++) {
        mm__event(&tp->v, i, &ev);
        for (int64_t j = 0; j < m; j++)
            mm_step_c(&st[j], &ev, &d[j], NULL);
    }
    return 0;
}

static int run_c(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n,
                 mm_metrics *out, int *rc, mm_error *err)
{
    for (int64_t j = 0; j < n; j++) {
        mm_sim_config cj = *c; /* combination j of a batch has id c->id + j (section 3.3) */
        cj.id = c->id + j;
        rc[j] = mm_sim_run_c(t, &cj, &p[j], &out[j], NULL, NULL, err);
        if (rc[j] && rc[j] != -ERANGE) return rc[j];
    }
    return 0;
}

int64_t ck_batch_count[MM_COUNTS];
int64_t ck_batch_lanes;

static void count_add(const mm__guards *g)
{
    for (int k = 0; k < MM_COUNTS; k++)
        ck_batch_count[k] += g->count[k];
}

/* The batched kernel (src/core/accel/sim_batch.c): skips the events that cannot change a
 * combination's state. */
static int advance_batch(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                         int64_t i0, int64_t i1)
{
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    mm__sim_batch_advance(tp, d, st, &g, m, i0, i1);
    count_add(&g);
    ck_batch_lanes += g.count[MM_COUNT_LANES];
    mm__guards_free(&g);
    return 0;
}

/* The batched kernel built for one instruction set: -ENODEV (skipped) where the CPU lacks it. */
static int advance_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                       int64_t i0, int64_t i1)
{
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    rc = mm__sim_batch_advance_isa(isa, tp, d, st, &g, m, i0, i1);
    count_add(&g);
    mm__guards_free(&g);
    return rc;
}

/* The lanes kernel on its own (every event, four combinations at a time; mm_step_c for the rare
 * branches and the combinations outside its vectors' model), built for one instruction set. */
static int advance_lanes_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st,
                             int64_t m, int64_t i0, int64_t i1)
{
    mm__guards g;
    int rc = mm__guards_alloc(&g, m);
    if (rc) return rc;
    rc = mm__sim_lanes_advance_isa(isa, tp, d, st, &g, m, i0, i1);
    count_add(&g);
    mm__guards_free(&g);
    return rc;
}

static int advance_lanes(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                         int64_t i0, int64_t i1)
{
    return advance_lanes_isa(mm__batch_isa_best(), tp, d, st, m, i0, i1);
}

static int advance_lanes_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                              int64_t i0, int64_t i1)
{
    return advance_lanes_isa(MM_ISA_AVX2, tp, d, st, m, i0, i1);
}

static int advance_scalar(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
    return advance_isa(MM_ISA_SCALAR, tp, d, st, m, i0, i1);
}

static int advance_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1)
{
    return advance_isa(MM_ISA_AVX2, tp, d, st, m, i0, i1);
}

static int advance_avx512(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
    return advance_isa(MM_ISA_AVX512, tp, d, st, m, i0, i1);
}

static int run_batch(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n,
                     mm_metrics *out, int *rc, mm_error *err)
{
    int r = mm_sim_run_batch(t, c, p, n, out, err);
    for (int64_t j = 0; j < n; j++)
        rc[j] = 0;
    if (r == -ERANGE) {
        /* One combination's accounting overflowed and the batch stopped: the outcome of each, one
         * at a time. */
        for (int64_t j = 0; j < n; j++) {
            mm_sim_config cj = *c;
            cj.id = c->id + j;
            rc[j] = mm_sim_run_batch(t, &cj, &p[j], 1, &out[j], err);
            if (rc[j] && rc[j] != -ERANGE) return rc[j];
        }
        return 0;
    }
    return r;
}

/* The CUDA kernel's per-thread work on the CPU (src/core/accel/mm_thread.h): each state alone
 * through the events, the skip test in its registers. */
static int advance_thread(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
    for (int64_t j = 0; j < m; j++)
        mm__thread_advance(&tp->v, &d[j], &st[j], i0, i1);
    return 0;
}

#if MM_HAVE_CUDA
/* The CUDA kernel (cuda/engine_cuda.cu) on device 0: -ENODEV without a GPU (skipped). What the
 * engine refuses before anything runs (mm__grid_check_tape) stays on the host, in the kernel's
 * per-thread code, as the "thread" kernel does: book = l2, l3 (the device has no depth stream,
 * docs/model.md 4.5), ladders (levels > 1: their rungs are host memory, 6.2) and signal_skew other
 * than 0 (the signal column stays on the host, section 6). The others step on the device; a CUDA
 * error is printed with its message. */
static int ck_on_device(const mm_derived *d)
{
    return d->book == MM_BOOK_L1 && d->levels == 1 && d->signal_skew == 0.0;
}

static int advance_cuda(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1)
{
    mm_error e = {0};
    int64_t n = 0;
    for (int64_t j = 0; j < m; j++)
        n += ck_on_device(&d[j]);
    mm_derived *dd = NULL;
    mm_state *ds = NULL;
    int rc;
    if (n == m) {
        rc = mm__cuda_advance(&tp->v, d, st, m, i0, i1, 0, &e);
    } else {
        dd = malloc((size_t)(n ? n : 1) * sizeof *dd);
        ds = malloc((size_t)(n ? n : 1) * sizeof *ds);
        rc = dd && ds ? 0 : -ENOMEM;
        for (int64_t j = 0, k = 0; j < m && !rc; j++)
            if (ck_on_device(&d[j])) {
                dd[k] = d[j];
                ds[k++] = st[j];
            } else
                mm__thread_advance(&tp->v, &d[j], &st[j], i0, i1);
        if (!rc && n) rc = mm__cuda_advance(&tp->v, dd, ds, n, i0, i1, 0, &e);
        for (int64_t j = 0, k = 0; j < m && !rc && n; j++)
            if (ck_on_device(&d[j])) st[j] = ds[k++];
    }
    if (rc && rc != -ENODEV) fprintf(stderr, "checkmodel: %s\n", e.msg);
    free(dd);
    free(ds);
    return rc;
}
#endif

#ifdef CK_SELFTEST
/* The checker's own test (Meson test checkmodel_reports): the batched kernel with a bug injected at
 * event CK_BUG_EVENT (every combination counts one order too many); the checker must name the field
 * and the event. */
#define CK_BUG_EVENT 777
static int advance_broken(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
    if (i0 > CK_BUG_EVENT || i1 <= CK_BUG_EVENT) return advance_batch(tp, d, st, m, i0, i1);
    int rc = advance_batch(tp, d, st, m, i0, CK_BUG_EVENT + 1);
    for (int64_t j = 0; j < m; j++)
        st[j].orders++;
    return rc ? rc : advance_batch(tp, d, st, m, CK_BUG_EVENT + 1, i1);
}

/* ck_skipbug.c: the per-thread kernel with a bound of the skip test broken. */
int ck_advance_skipbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1);

/* ck_bandbug.c: the per-thread kernel with kind 3's microprice band too wide. */
int ck_advance_bandbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1);

/* ck_timebug.c: the per-thread kernel with kind 4's time guard unproved and too long. */
int ck_advance_timebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                       int64_t i1);

/* ck_sharebug.c: the batched kernel whose clean-step test of the shared states ignores kq. */
int ck_advance_sharebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1);
/* ck_touchbug.c: the batched kernel whose depth touch (mm__depth_touch) looks at the bid only. */
int ck_advance_touchbug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                        int64_t i0, int64_t i1);
/* ... and the lanes kernel (AVX2) with the same bug. */
int ck_lanes_sharebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                      int64_t i1);
/* ck_loosebug.c: the lanes kernel (AVX2) whose skip test for loose leaders forgets the landings. */
int ck_lanes_loosebug(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                      int64_t i1);

/* A kernel built but unable to run here (as a CUDA kernel on a machine without a GPU): skipped, not
 * failed. */
static int advance_absent(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                          int64_t i0, int64_t i1)
{
    (void)tp, (void)d, (void)st, (void)m, (void)i0, (void)i1;
    return -ENODEV;
}
#endif

/* The registry. To register a new kernel (mm_step_avx2, the CUDA kernel, ...):
 *
 * (1) Write its advance function with the contract of ck_advance_fn (checkmodel.h): m states
 * through events [i0, i1) of a prepared tape, each combination on its own. A CUDA kernel copies
 * st[0..m) and d[0..m) to the device, runs the events, copies the states back; a vector kernel may
 * pad m internally.
 *
 * (2) If it has a public whole-run entry (what the sweep calls), write a run function with
 * ck_run_fn's contract.
 *
 * (3) Add one row below: {name (as printed and as --kernel selects it), advance, run or NULL,
 * flags}. A kernel that may not be built (CUDA, AVX2) goes under its #if; one that is built but
 * cannot run on this machine returns -ENODEV from advance and is reported as skipped.
 *
 * (4) If it lives in its own file, add that file to checkmodel_src in tests/meson.build.
 *
 * Nothing else changes: the check (whole states at checkpoints, then the run's outcome and
 * metrics) and the benchmark (each kernel timed only after it matched) loop over this table. The
 * reference stays first. */
const ck_kernel ck_kernels[] = {
    /* The reference: mm_step_c on every event; mm_sim_run_c. */
    {"c", advance_c, run_c, CK_REFERENCE | CK_PER_COMBO},
    /* The batched kernel: mm__sim_batch_advance; mm_sim_run_batch. */
    {"batch", advance_batch, run_batch, 0},
    /* The batched kernel built for each instruction set ("batch" runs the best of them). */
    {"scalar", advance_scalar, NULL, 0},
    {"avx2", advance_avx2, NULL, 0},
    {"avx512", advance_avx512, NULL, 0},
    /* The lanes kernel alone ("batch" runs it where most combinations step): the best
     * instruction set and AVX2 (skipped on CPUs without AVX2 and on other architectures). */
    {"lanes", advance_lanes, NULL, 0},
    {"lanes_avx2", advance_lanes_avx2, NULL, 0},
    /* The CUDA kernel's per-thread function on the CPU: mm__thread_advance. */
    {"thread", advance_thread, NULL, CK_PER_COMBO},
#if MM_HAVE_CUDA
    /* The CUDA kernel: mm__cuda_advance on device 0. */
    {"cuda", advance_cuda, NULL, 0},
#endif
#ifdef CK_SELFTEST
    {"broken", advance_broken, NULL, 0},
    {"absent", advance_absent, NULL, 0},
    {"skipbug", ck_advance_skipbug, NULL, CK_PER_COMBO},
    {"bandbug", ck_advance_bandbug, NULL, CK_PER_COMBO},
    {"timebug", ck_advance_timebug, NULL, CK_PER_COMBO},
    {"sharebug", ck_advance_sharebug, NULL, 0},
    {"lanes_sharebug", ck_lanes_sharebug, NULL, 0},
    {"touchbug", ck_advance_touchbug, NULL, 0},
    {"lanes_loosebug", ck_lanes_loosebug, NULL, 0},
#endif
};
const int ck_nkernels = (int)(sizeof ck_kernels / sizeof ck_kernels[0]);
