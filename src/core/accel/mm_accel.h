/* The fast kernels (docs/architecture.md, "Kernels"): the batched kernel with its skip test and
 * shared states, its lanes kernel and instruction-set builds, and the host loop of the CUDA engine
 * and its CPU emulation. They include the model (src/core: sim_tape.h, mm_step.h, mm_event.h); the
 * model never includes them (tests/check_layers.sh checks it). Each gives the reference's bits
 * (mm_step_c) for every combination the key table routes to it (MM_CAP_*, params_keys.c). */
#ifndef MM_ACCEL_H
#define MM_ACCEL_H

#include "mm_skip.h"
#include "sim_tape.h"

/* The batched kernel's scratch for up to cap combinations (sim_batch.c): their guards in int32
 * (mm__guard_of narrowed: the live buy's and sell's prices, the event at which the time guard
 * falls due), kind 3's band of microprices (flo, fhi), their order by kind (perm) and the
 * per-event flags (need, padded to 8 bytes), and the shared states' links: about 120 bytes per
 * combination. count[MM_COUNT_STEPS] adds up the event x combination slots that ran the step,
 * count[MM_COUNT_SLOTS] all the slots the kernel went through, count[MM_COUNT_SHARED] the slots of
 * parked combinations (shared states; the shares that step and that are shared, which checkmodel
 * prints; mm__guards_alloc zeroes them). */
enum {
    MM_COUNT_STEPS = 0,
    MM_COUNT_SLOTS = 1,
    MM_COUNT_SHARED = 2,
    MM_COUNT_RARE = 3,  /* lanes kernel: slots stepped by mm_step_c for a rare branch */
    MM_COUNT_LANES = 4, /* slots the lanes kernel went through */
    MM_COUNTS = 5
};
/* Events per window of the lanes kernel (sim_lanes.h): decoded once into mm__guards.evs. */
#define MM_LANES_WINDOW 128
/* At most this many windows between two merges of the lanes kernel (sim_lanes_group.h). */
#define MM_LANES_MERGE_GAP 2
/* Shared states (docs/model.md section 8, "Shared states"): per combination j, lead[j] = the
 * leader whose state j shares (-1: j steps on its own), fhead[j] / fnext[j] = the members sharing
 * j's state (-1: end), pos[j] = j's position in perm; key is scratch for finding them. */
typedef struct mm__share_key {
    uint64_t h;
    int32_t limit, j;
} mm__share_key;
/* Counters of a shared state's member kept as its leader's plus an offset (orders, cancels,
 * rejects, held), per combination in mm__guards.off. */
#define MM_SHARE_NOFF 4
/* A leader's step that was not clean, not yet replayed on its members (docs/model.md section 8,
 * "Shared states": the replay log): a fill (fill = 1: its move mv, at event i, time ts) or none,
 * then the known position moved by dkq. MM_SHARE_LOG entries per leader. */
typedef struct mm__share_log {
    mm__fill_move mv;
    int64_t ts, i, dkq;
    int32_t fill, pad_;
} mm__share_log;
#define MM_SHARE_LOG 8
/* The lanes kernel's deferred samples of parked members (docs/model.md section 8, "Deferred
 * samples"; sim_lanes_settle.h, lanes_settle): the events that cross a sampling boundary since
 * every member was last current (at most MM_SAMP_LIST; when full, every member takes its samples),
 * and the function that brings a leader's members to an event. A member's samples wait (its cursor,
 * mm__guards.scur: the first event whose samples it has not taken) until its own fields are
 * replayed or the kernel returns; they are then taken in vectors over the members, interleaved
 * with the replay log in event order, the same operations on the same values as at once. settle
 * NULL: the members sample at once (the skip kernel), and share_flush_all only replays. */
#define MM_SAMP_LIST 4096
struct mm__guards;
typedef void (*mm__settle_fn)(const struct mm__guards *g, const mm_derived *d, mm_state *st,
                              int32_t j, int64_t through);
typedef struct mm__samp_list {
    int32_t n;                  /* events listed, ascending: */
    int32_t ns[MM_SAMP_LIST];   /* their boundaries crossed (n_samples), */
    int64_t ev[MM_SAMP_LIST];   /* their indices and */
    int64_t mid2[MM_SAMP_LIST]; /* twice the mid before each (prev_mid2) */
    mm__settle_fn settle;
} mm__samp_list;
typedef struct mm__guards {
    int32_t *lo, *hi, *landi, *perm;
    int32_t *tmp;      /* scratch: the leaders a split of shared states made (share_split) */
    double *flo, *fhi; /* kind 3's band (mm__band_of), per position */
    uint8_t *need;
    int64_t *count;
    int32_t *lead, *fhead, *fnext, *pos;
    int64_t *off; /* [MM_SHARE_NOFF per combination] a member's counters minus its leader's */
    /* The replay log (sim_share.h): per leader l, logn[l] entries in log[l * MM_SHARE_LOG ...] and
     * range[4 l ... 4 l + 3], the least and greatest position, then known position, of l at which
     * every member's rooms clamp as l's; per member f, logpos[f] entries of its leader's log
     * replayed on it. */
    mm__share_log *log;
    int32_t *logn, *logpos;
    int64_t *range;
    int64_t *tlink; /* per member: the time from which it shares its leader's state (share_link) */
    /* The kernels' own field of each combination j (not the model's: no rule reads it): rest[2 j +
     * k], the time of the landing at which side k's order last came to rest in this kernel call
     * (INT64_MIN: none). The shared states tell by it whether a leader wrote px, ahead and deep
     * since a time (sim_share_dead.h; docs/model.md section 8, "Dead fields"). */
    int64_t *rest;
    uint64_t *chash; /* per combination: the hash of its constants without the limit */
    uint8_t *live;   /* per position: 0 while parked (padded to 8 bytes, as need) */
    mm__share_key *key;
    mm_event *evs;     /* [MM_LANES_WINDOW] the lanes kernel's decoded events */
    mm__gate *gates;   /* [MM_LANES_WINDOW] and their skip bounds (mm__gate_of) */
    mm__samp_list *sw; /* the lanes kernel's deferred samples (settle NULL: none) */
    int64_t *scur;     /* per member: the first event whose samples it has not taken (sw) */
    void *block;       /* the one allocation holding every array above */
    int64_t cap;
} mm__guards;
int mm__guards_alloc(mm__guards *g, int64_t cap); /* 0 or -ENOMEM (nothing allocated) */
void mm__guards_free(mm__guards *g);
/* The batched kernel proper: advance the m states st[0..m) (constants d[0..m)) through events [i0,
 * i1) of the tape, running mm_step_c only where the event can change a state (sim_batch.c). The
 * guards g (m entries of scratch) are recomputed from the states on entry, so a run split at any
 * events gives the same states bit for bit as one call over [0, n): the checker (tests/checkmodel/)
 * compares the whole states at checkpoints. */
void mm__sim_batch_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                           const mm__guards *g, int64_t m, int64_t i0, int64_t i1);
/* The same kernel compiled for an instruction set (sim_batch.c): MM_ISA_SCALAR (the reference
 * build: the compiler's baseline, SSE2 on x86-64), MM_ISA_AVX2, MM_ISA_AVX512. Every version gives
 * the same bits (checkmodel checks each). mm__sim_batch_advance runs the best one this CPU has
 * (mm__batch_isa_best); _isa runs the one asked for, or returns -ENODEV when the CPU lacks it. */
enum { MM_ISA_SCALAR = 0, MM_ISA_AVX2 = 1, MM_ISA_AVX512 = 2, MM_ISA_COUNT = 3 };
/* The x86-64 builds of both kernels, one file per instruction set (sim_batch_avx2.c,
 * sim_batch_avx512.c; compiled in parallel). MM_X86_ISA: whether they exist in this build (not on
 * other architectures, nor in the fuzz build: -DMM_BATCH_BASELINE_ONLY). Callers check the CPU
 * first (mm__batch_isa_supported). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&                            \
    !defined(MM_BATCH_BASELINE_ONLY)
#define MM_X86_ISA 1
void mm__skip_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                   int64_t m, int64_t i0, int64_t i1);
void mm__skip_avx512(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                     int64_t m, int64_t i0, int64_t i1);
void mm__lanes_avx2(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                    int64_t m, int64_t i0, int64_t i1);
void mm__lanes_avx512(const mm__tape *tp, const mm_derived *d, mm_state *st, const mm__guards *g,
                      int64_t m, int64_t i0, int64_t i1);
#else
#define MM_X86_ISA 0
#endif
int mm__sim_batch_advance_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st,
                              const mm__guards *g, int64_t m, int64_t i0, int64_t i1);
/* The lanes kernel (sim_lanes.h) built for an instruction set, on its own: every combination
 * through every event, 4 (AVX2) or 8 (AVX-512) at a time; mm__sim_batch_advance runs it instead of
 * the skip test on the events where most combinations step (docs/model.md section 8, "Lanes"). Same
 * bits as the reference for any combinations (those outside mm__lanes_ok are stepped by mm_step_c);
 * -ENODEV where the CPU lacks the instruction set or the kernel is not built for it (the baseline,
 * other architectures). */
int mm__sim_lanes_advance_isa(int isa, const mm__tape *tp, const mm_derived *d, mm_state *st,
                              const mm__guards *g, int64_t m, int64_t i0, int64_t i1);
/* 1 when the lanes kernel's vectors may step a combination with constants d (the key table's
 * MM_CAP_LANES: no order-rate limit, no ladder). */
int mm__lanes_ok(const mm_derived *d);
int mm__batch_isa_supported(int isa);
int mm__batch_isa_best(void);
const char *mm__batch_isa_name(int isa);
/* The batched engine on a prepared tape (the sweep prepares each tape once and shares it):
 * combinations first_id .. first_id + n - 1 (params p[0..n)), each on paths path0 .. path0 +
 * n_paths - 1; out[k * n_paths + (path - path0)] receives combination first_id + k on that path.
 * The replay model draws no random number, so every path of a combination gives the same metrics
 * today; the ids and paths reach the states (mm_state.id, .path) for the random streams of the
 * Monte Carlo model (docs/model.md, section 3). n_paths >= 1. */
int mm__sim_batch_tape(const mm__tape *tp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       int64_t first_id, int32_t path0, int32_t n_paths, mm_metrics *out,
                       mm_error *err);

/* Slots through a tape by an advance function (sim_thread.c; the CUDA engine's host loop): as
 * mm__sim_batch_tape, but the m slots of each batch (at most `batch`) are set up here, advanced
 * through every event of the view by advance(v, d, st, m, user, err) (0 or an error in err), then
 * finished here. */
typedef int (*mm__advance_fn)(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                              void *user, mm_error *err);
int mm__sim_slots_tape(const mm__tape *tp, const mm_sim_config *c, const mm_params *p, int64_t n,
                       int64_t first_id, int32_t path0, int32_t n_paths, mm_metrics *out,
                       int64_t batch, mm__advance_fn advance, void *user, mm_error *err);
/* The CUDA kernel's work on the CPU, in its order (mm_thread.h): user is an mm__emulation (NULL:
 * one tile, blocks of 256). */
typedef struct mm__emulation {
    int64_t tile;  /* events per launch (0: all) */
    int64_t block; /* threads per block (0: 256) */
} mm__emulation;
int mm__thread_emulate(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                       void *user, mm_error *err);

#endif
