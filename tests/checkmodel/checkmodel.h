/* checkmodel's parts (tests/checkmodel/): the kernel registry (ck_kernels.c), whole-state
 * comparison (ck_state.c), seeded draws of tapes and parameters (ck_draw.c); checkmodel.c checks
 * and benchmarks. */
#ifndef CHECKMODEL_H
#define CHECKMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mm_accel.h"
#include "mmsim/mmsim.h"

/* The kernel registry: one ck_kernel per implementation of the model's step.
 *
 * advance: moves the m states st[0..m) (derived constants d[0..m), from mm__derive) through events
 * [i0, i1) of the prepared tape tp (mm__tape_init), 0 <= i0 <= i1 <= tp->v.n. States start from
 * mm__state_init. Advancing over [0, a) then [a, n) must give the same states as over [0, n), and
 * each combination's state must not depend on the others (the checker re-runs one combination
 * alone, one event at a time, to find the first differing event). Returns 0; -ENODEV when the
 * kernel cannot run on this machine (no GPU, no AVX2): reported as skipped, not failed; any other
 * negative errno (-ENOMEM) is reported as a failure.
 *
 * run: the kernel's public whole-run entry (the one the sweep calls), or NULL. Metrics of the n
 * combinations p[0..n) on the tape t into out[0..n), with rc[j] = 0 or -ERANGE per combination (a
 * run whose accounting passed 2^62). Returns 0, or a negative code for any other failure (err
 * filled).
 *
 * flags: CK_REFERENCE marks the reference (exactly one, the first row): every other kernel is
 * compared with it. CK_PER_COMBO marks a kernel whose cost is one full pass per combination:
 * --bench times it on a sample of CK_BENCH_SAMPLE combinations, and its run is compared on every
 * CK_RUN_STRIDE-th combination only (its states are compared on all of them).
 *
 * How to register a new kernel: ck_kernels.c, at the table. */
typedef int (*ck_advance_fn)(const mm__tape *tp, const mm_derived *d, mm_state *st, int64_t m,
                             int64_t i0, int64_t i1);
typedef int (*ck_run_fn)(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, int64_t n,
                         mm_metrics *out, int *rc, mm_error *err);

enum { CK_REFERENCE = 1u << 0, CK_PER_COMBO = 1u << 1 };

typedef struct ck_kernel {
    const char *name;
    ck_advance_fn advance;
    ck_run_fn run;
    unsigned flags;
} ck_kernel;

/* The slots the batched kernels (batch and its per-ISA builds) stepped and went through, added up
 * over every call since the last reset (mm__guards.count): --bench prints the share that steps. */
extern int64_t ck_batch_count[MM_COUNTS];
/* Slots the batched kernel ("batch", mm__sim_batch_advance) gave to the lanes kernel. */
extern int64_t ck_batch_lanes;

/* The registry (ck_kernels.c): the reference first, then every fast version. */
extern const ck_kernel ck_kernels[];
extern const int ck_nkernels;
#define CK_MAX_KERNELS 24

/* Whole-state and metrics comparison (ck_state.c). ck_state_diff / ck_metrics_diff: 1 with the
 * first differing field's name and both values written into what (cap bytes; the kernel named
 * kname), 0 when equal (integers exactly, doubles bit for bit); the state's fields from
 * MM_STATE_FIELDS. */
int ck_state_diff(const mm_state *r, const mm_state *k, const char *kname, char *what, size_t cap);
/* A ladder's rungs 1.. (docs/model.md 6.2) of combination r (the reference's) and k, field by
 * field; same contract as ck_state_diff. */
int ck_rungs_diff(const mm_derived *r, const mm_derived *k, const char *kname, char *what,
                  size_t cap);
int ck_metrics_diff(const mm_metrics *r, const mm_metrics *b, const char *kname, char *what,
                    size_t cap);

/* Seeded draws (ck_draw.c): every draw comes from ck_rnd(), a counter-based stream of seed ck_seed.
 */
extern uint64_t ck_seed;
#define CK_TS_GRID_NS 100000 /* the coarse clock of some perturbed tapes, ns */
uint32_t ck_rnd(void);
void ck_random_params(mm_params *p);
/* 0 when ck_random_params draws every key of the key table; else -1 after naming each it does not
 * draw. */
int ck_check_keys(void);
/* The enum values drawn so far, "strategy 3/3, queue 3/3, ..." into buf (cap bytes); returns how
 * many values the key table lists that were never drawn. */
int ck_enum_coverage(char *buf, size_t cap);
/* Execution randomness off (section 3.3): a combination that draws no random number. */
void ck_no_draws(mm_params *p);
void ck_wide_params(mm_params *p);
/* On a tape with a depth stream: a combination whose orders cross on landing deeper than the touch
 * (post_only = 0, fixed quotes sent as they are, skewed by the inventory, large sizes, a latency of
 * 1 to 21 ms), so that the taker walk of docs/model.md 3.1 takes levels behind the best. */
void ck_taker_params(mm_params *p);
int ck_gen_tape(mm_ticks *t, uint64_t seed, int64_t events);
void ck_perturb(mm_ticks *t);
/* Give t a signal column (docs/formats.md "Signal"; t moves into a new block): a random walk, small
 * integers, or spikes among zeros. Returns 0 or -1 (out of memory). */
int ck_add_signal(mm_ticks *t);
/* Depth (ck_depth.c): give t a depth stream as the importers make one (its best level the level-1
 * columns; order ids when ids), drawn from seed; 0, or -1 (printed) when it cannot. ck_fit_book:
 * the book a drawn combination runs on t (auto where t lacks what l2 or l3 read). */
int ck_gen_depth(mm_ticks *t, uint64_t seed, int ids);
void ck_fit_book(mm_params *p, const mm_ticks *t);
void ck_series(mm_latency_series *ls, const mm_ticks *t);
void ck_series_free(mm_latency_series *ls);

#endif
