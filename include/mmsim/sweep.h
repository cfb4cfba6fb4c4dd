/* Parameter sweeps: a grid of combinations over one or more tapes, run by an engine, journaled, and
 * written as one results table (docs/sweep.md, docs/results.md).
 *
 * Combination ids are a mixed-radix index over the axes, the first axis slowest:
 *   id = ((i_0 * n_1 + i_1) * n_2 + i_2) ...,   i_m = (id / (n_{m+1} ... n_{k-1})) mod n_m.
 * Axis 0 is always "tape" (the input tapes, in the order given); the others are mm_params keys.
 */
#ifndef MMSIM_SWEEP_H
#define MMSIM_SWEEP_H

#include <stdatomic.h>
#include <stdint.h>

#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A grid of parameter combinations (opaque): the tape axis, then one axis per swept mm_params key,
 * and the fixed values of the other keys. Each key is an axis at most once, so a grid has at most
 * mm_params_key_count() + 1 axes. Not thread-safe while it is built; mm_grid_combo and the
 * accessors below may be called from any thread once it is built. */
typedef struct mm_grid mm_grid;

/* A new empty grid, its fixed values mm_params_defaults(), in *out (NULL on failure). Returns 0 or
 * -ENOMEM. Free with mm_grid_free. */
MM_API int mm_grid_new(mm_grid **out, mm_error *err);

/* Free g and everything it holds (NULL: nothing). */
MM_API void mm_grid_free(mm_grid *g);

/* Add the tape axis values: "path#symbol" strings (called before any other axis; once). */
MM_API int mm_grid_set_tapes(mm_grid *g, const char *const *tapes, int32_t n, mm_error *err);

/* Add an axis: key is an mm_params key; spec is "a:b:step" (inclusive numeric range; step > 0) or a
 * comma list "v1,v2,...". Values are checked with mm_params_set; a key may appear once. MM_EUSAGE
 * names the key. */
MM_API int mm_grid_add_axis(mm_grid *g, const char *key, const char *spec, mm_error *err);

/* Set a fixed (non-axis) parameter value. */
MM_API int mm_grid_set(mm_grid *g, const char *key, const char *value, mm_error *err);

/* Parameters and axis indices (idx: mm_grid_axis_count(g) entries, may be NULL) of combination id.
 * Returns 0, or -EINVAL when id is not in [0, mm_grid_combo_count(g)). */
MM_API int mm_grid_combo(const mm_grid *g, int64_t id, mm_params *p, int32_t *idx);

/* The number of axes, the tape axis included (0 before mm_grid_set_tapes). */
MM_API int32_t mm_grid_axis_count(const mm_grid *g);

/* The number of combinations: the product of the axis sizes (0 before mm_grid_set_tapes). */
MM_API int64_t mm_grid_combo_count(const mm_grid *g);

/* Axis m (0 <= m < mm_grid_axis_count(g); axis 0 is "tape"): its key, its kind (MM_KEY_INT,
 * MM_KEY_REAL or MM_KEY_ENUM; the tape axis is MM_KEY_ENUM), its number of values, and value i
 * (0 <= i < size) as text, as mm_params_set received it ("path#symbol" on the tape axis). Out of
 * range: NULL, -1, 0 and NULL. The strings live as long as the grid. */
MM_API const char *mm_grid_axis_key(const mm_grid *g, int32_t m);
MM_API int mm_grid_axis_kind(const mm_grid *g, int32_t m);
MM_API int32_t mm_grid_axis_size(const mm_grid *g, int32_t m);
MM_API const char *mm_grid_axis_text(const mm_grid *g, int32_t m, int32_t i);

/* The fixed values: the parameters every combination starts from before its axis values are set
 * (mm_params_defaults() changed by mm_grid_set). Lives as long as the grid. */
MM_API const mm_params *mm_grid_base(const mm_grid *g);

/* A per-combination 64-bit seed: words 0 and 1 of Philox4x32-10 with key master_seed of the counter
 * (id low, id high, 0x5eed, 0). Depends only on the master seed and the combination id, never on
 * the engine, the worker or the chunk. The model does not use it: its draws come from the stream
 * of (master seed, id, path), mm_stream_key in docs/model.md 3.3, one per path. */
MM_API uint64_t mm_sweep_combo_seed(uint64_t master_seed, int64_t id);

enum mm_engine {
    MM_ENGINE_PROCESS = 0,
    MM_ENGINE_THREADS = 1,
    MM_ENGINE_SERIAL = 2,
    MM_ENGINE_MPI = 3,
    MM_ENGINE_CUDA = 4
};

/* The CUDA engine (sweep --engine cuda, docs/perf-gpu.md) as one line into buf: the runtime and
 * driver versions and the visible devices, or why there are none. Returns the number of devices,
 * or a negative code (no driver, no device, a build without CUDA). */
MM_API int mm_sweep_cuda_describe(char *buf, size_t cap);

/* The name of engine e ("process", "threads", "serial", "mpi", "cuda"), or NULL when e is not an
 * engine. Names are what `mmsim sweep --engine` accepts and what the results table records. */
MM_API const char *mm_sweep_engine_name(int e);

/* The enum mm_engine value named name, or -1 (name unknown or NULL). */
MM_API int mm_sweep_engine_parse(const char *name);

/* MPI (engine "mpi", docs/cluster.md). mm_sweep_mpi_init initialises MPI (MPI_Init_thread,
 * MPI_THREAD_FUNNELED) unless it is initialised already, and gives this process's rank and the
 * number of ranks. Returns 0, -ENOSYS when libmmsim was built without MPI, or -EIO (err says why).
 * Under MPI every rank calls mm_sweep_run with the same grid and options: rank 0 plans the chunks,
 * hands them out, journals the results and writes the table; the other ranks compute the chunks
 * they are sent, write nothing and return 0 once rank 0 tells them to stop. Without MPI
 * initialised, the engine "mpi" runs everything in the calling process (as one rank would).
 * mm_sweep_mpi_finalize(code), after mm_sweep_mpi_init: code 0 is MPI_Finalize; any other code
 * ends every rank of the job with MPI_Abort(MPI_COMM_WORLD, code), which a failed or interrupted
 * sweep needs (other ranks may be waiting for this one); nothing without MPI. */
MM_API int mm_sweep_mpi_init(int *rank, int *size, mm_error *err);
MM_API void mm_sweep_mpi_finalize(int code);

/* Progress of a running sweep, as passed to mm_sweep_opts.progress. Counts are of this run: a
 * resumed run counts only the chunks it computes, not those found in the journal. */
typedef struct mm_sweep_progress {
    int64_t chunks_done, chunks_total; /* chunks journaled so far / planned */
    int64_t combos_done, combos_total; /* combinations in those chunks */
    int64_t updates_done;              /* event x combination updates in those chunks */
    double elapsed_s;                  /* seconds since the tapes were loaded */
    int final;                         /* 1 on the last call, once the engine has stopped */
    int64_t updates_total;             /* event x combination updates planned (this run) */
    /* Finished: the chunks computed, journaled or waiting for an earlier chunk to be journaled
     * first (>= combos_done, updates_done). The process engine counts a chunk as soon as a worker
     * finishes it; the other engines when they journal it. A progress display's rate and ETA
     * should use these: chunks are journaled in order, so one slow chunk holds back the later
     * ones' *_done. */
    int64_t combos_finished, updates_finished;
} mm_sweep_progress;

typedef void (*mm_sweep_progress_fn)(const mm_sweep_progress *p, void *user);

/* Automatic chunks (mm_sweep_opts.chunk = 0, docs/sweep.md "Engines"): at most this many
 * combinations, and with paths > 1 at most MM_SWEEP_SLOTS_AUTO_MAX (combination, path) slots. The
 * command line's help prints them. */
#define MM_SWEEP_CHUNK_AUTO_MAX 1024
#define MM_SWEEP_SLOTS_AUTO_MAX 65536

/* mm_sweep_opts.device: every visible CUDA device. */
#define MM_SWEEP_DEVICE_ALL (-1)

typedef struct mm_sweep_opts {
    int engine; /* enum mm_engine */
    /* Processes (engine process) or threads (threads); 0 = the number of online cores. Engine mpi:
     * the OpenMP threads in each rank (0: 1); cuda and serial: not used. */
    int workers;
    int64_t chunk;           /* combinations per chunk; 0 = automatic (docs/sweep.md) */
    uint64_t seed;           /* master seed */
    const char *objective;   /* metric for the index ("pnl") */
    const char *config_text; /* recorded in the results; also identifies the run for a resume */
    int resume;              /* 1: continue from the journal beside the output */
    int load_flags;          /* MM_LOAD_NO_VERIFY ... for the input tapes */
    mm_sim_config sim;
    /* Progress (may be NULL): called from the thread that called mm_sweep_run, once when the tapes
     * are loaded (nothing done yet), after a chunk is journaled, at most once per
     * progress_interval_s seconds (the library throttles), and once more with p->final = 1 when the
     * engine has stopped (also on an error or a stop). It must not call back into the sweep.
     * Nothing is printed by the library. progress_interval_s: 0.5 after mm_sweep_opts_defaults; 0
     * calls after every chunk. */
    mm_sweep_progress_fn progress;
    void *progress_user;
    double progress_interval_s;
    /* Cancellation (may be NULL): once *cancel is non-zero the sweep stops its workers, keeps every
     * finished chunk in the journal and returns MM_EINTERRUPTED with rep->chunks_saved and
     * rep->chunks_total filled in. A lock-free atomic (C11 7.17), read with relaxed loads by every
     * worker thread: a signal handler may store to it (C11 7.14.1.1 allows lock-free atomics
     * there), and so may any other thread. A volatile sig_atomic_t would only be safe for a handler
     * running on the thread that reads it. */
    atomic_int *cancel;
    /* Monte Carlo (docs/montecarlo.md, "Paths per combination"): paths per combination, 1 (the
     * default: one deterministic replay, the per-run table) to 1,000,000. With paths > 1 every
     * combination runs on paths 0 .. paths - 1 (its random streams keyed by the path) and the table
     * holds one row of summaries per combination (mm_results_summary_metric); keep_paths 1 also
     * stores every path's metrics (/paths). */
    int64_t paths;
    int keep_paths;
    /* Synthetic markets (docs/montecarlo.md, section 10), NULL: every tape is a file. Else one
     * entry per tape (the grid's tape axis order): NULL for a file, or the generator's parameters
     * of a synthetic market, whose path p is the day mm_sweep_synthetic_day generates (the tape
     * axis value then only names it, "market.ini#SYN"). Must stay valid during the run. */
    const mm_gen_params *const *synthetic;
    /* Engine cuda: the device (CUDA ordinal, default 0), or MM_SWEEP_DEVICE_ALL: every visible
     * device, each with its own copy of the tapes, taking chunks as they finish (docs/perf-gpu.md).
     */
    int device;
    /* The input files other than tapes, recorded in the results with the XXH3 of their bytes
     * (mm_results_meta.n_side and after; docs/results.md, "Side inputs"). The caller computes the
     * hashes when it reads the files; the library records them as given. */
    int32_t n_side;
    const char *const *side_roles, *const *side_paths;
    const uint64_t *side_xxh3;
    /* Engine process: the seconds a worker may hold the chunk the run waits for without finishing
     * it (docs/sweep.md, "Stalled workers"). Past it the worker is taken for stalled (a stopped
     * process, a hung file system, or a chunk slower than the limit): it is killed, its chunk is
     * computed again by a fresh worker and mm_sweep_report.stalls counts it; the table is the same.
     * The same chunk stalling a second time fails the run (-ETIMEDOUT, the chunk named; the journal
     * keeps what is done). 600 after mm_sweep_opts_defaults; 0: no limit (wait for ever); else in
     * [0.1, 604800]. The other engines do not use it (a thread cannot be killed safely). */
    double stall_s;
    /* Time blocks (docs/results.md, "/blocks"): record each combination's PnL, position, fills and
     * fees at the end of each block of its tape. blocks = B > 0: B equal spans of each tape (1 to
     * MM_RESULTS_BLOCKS_MAX); block_ns = L > 0: blocks of L ns from each tape's first event, as
     * many as the longest tape needs (a shorter tape's later blocks end at its last event). 0 and
     * 0 (the default): none. Not both; not with paths > 1, synthetic markets or the cuda engine
     * (MM_EUSAGE). */
    int32_t blocks;
    int64_t block_ns;
} mm_sweep_opts;

/* Path `path`'s day of synthetic market `market`, the tape at index `tape` of a sweep with master
 * seed `seed`, under the stresses (stress_vol multiplies the fair price's volatility exactly:
 * move_ticks, vol_ticks and informed as docs/model.md 3.4 says; stress_liquidity divides
 * mean_queue, rounded half up, at least 1): the generator's parameters with the seed given by
 * docs/montecarlo.md section 10. Returns what mm_gen_ticks returns, or MM_EUSAGE when move_ticks x
 * stress_vol passes 1000 ticks. */
MM_API int mm_sweep_synthetic_day(const mm_gen_params *market, uint64_t seed, int32_t tape,
                                  int32_t path, double stress_vol, double stress_liquidity,
                                  mm_ticks *out, mm_error *err);

MM_API void mm_sweep_opts_defaults(mm_sweep_opts *o);

/* Outcome of a sweep. */
typedef struct mm_sweep_report {
    int64_t combos, chunks, chunks_resumed, chunks_rerun;
    /* Also filled in when the run returns MM_EINTERRUPTED: chunks_saved = records in the journal
     * now (those of an interrupted earlier run included); chunks_total = records found at the start
     * + chunks planned. */
    int64_t chunks_total, chunks_saved;
    double wall_s, combos_per_s, updates_per_s; /* rates of the combinations computed in this run */
    uint64_t content_hash;
    int workers; /* what computed: processes, threads, devices (cuda), 1 (serial); mpi: the ranks
                    that computed (all but rank 0, or 1 alone), not their threads */
    /* Engine process: workers killed for making no progress in mm_sweep_opts.stall_s seconds, each
     * chunk computed again by a fresh worker. */
    int64_t stalls;
} mm_sweep_report;

/* Run the grid and write the results table to out_path (atomically). The journal
 * "<out_path>.journal" records completed chunks (checksummed, fsync'd), is locked for the whole run
 * and is removed on success. Everything is checked before any state exists (docs/sweep.md, "Checks
 * before anything runs"): every combination's parameters, the run settings, the markout column
 * names, the objective (any metric column), the output path and the memory the run needs; errors
 * are MM_EUSAGE naming what is wrong, and leave no journal. Other outcomes: MM_ELOCKED ("OUT is
 * being written by mmsim pid N": another process holds the journal); MM_EINTERRUPTED (o->cancel was
 * set; rep->chunks_saved of rep->chunks_total chunks are in the journal, err says "interrupted: N
 * of M chunks saved in the journal", and a run with o->resume set continues from them);
 * MM_ECHECKSUM (a journal record changed during the run; a resumed run recomputes it); -ENOSPC and
 * other system errors as "PATH: <strerror>". On any failure the journal of the completed chunks is
 * kept and no temporary file is left. Messages in err name no command-line flag: a program adds its
 * own hints. */
MM_API int mm_sweep_run(const mm_grid *g, const mm_sweep_opts *o, const char *out_path,
                        mm_sweep_report *rep, mm_error *err);

#ifdef __cplusplus
}
#endif

#endif
