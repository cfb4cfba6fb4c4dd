/* The engine table: how a sweep's chunks get computed (docs/architecture.md, "A sweep").
 *
 * sweep_run.c owns everything around the computation: validation, chunk planning, the journal, the
 * results table and the run's identity. An engine owns only the computation: it computes the
 * planned chunks r->chunks[0 .. r->n_chunks) with mm__run_compute and hands each finished chunk, in
 * chunk order, to mm__run_emit (which journals it and reports progress). It checks
 * mm__run_cancelled between chunks and returns MM_EINTERRUPTED when asked to stop, after emitting
 * every chunk it finished in order. It fsyncs the journal (mm__journal_sync) at points of its
 * choosing; sweep_run.c fsyncs once more at the end.
 *
 * To add an engine: write engine_NAME.c defining `const mm__engine mm__engine_NAME`, list it in
 * src/sweep/meson.build, give it a value in enum mm_engine (include/mmsim/sweep.h) and an entry in
 * sweep_run.c's engine table. Its name is then accepted by mm_sweep_engine_parse, `mmsim sweep
 * --engine` and the config file, and recorded in the results table. */
#ifndef MM_ENGINE_H
#define MM_ENGINE_H

#include <stdint.h>

#include "mm_accel.h"
#include "mm_internal.h"
#include "mm_journal.h"
#include "mmsim/sweep.h"

/* A chunk: combinations [first, first + count) of one tape. */
typedef struct mm__chunk {
    int64_t first;
    int32_t count, tape;
} mm__chunk;

/* One sweep in progress (built by mm_sweep_run; engines read it and touch only what mm__run_emit
 * does). */
typedef struct mm__run {
    const mm_grid *g;
    const mm_sweep_opts *o; /* o->chunk is the chunk size (never 0 here) */
    mm_sim_config sim;      /* o->sim with the sweep's master seed (o->seed): what the model uses */
    int32_t n_tapes;
    mm_ticks *ticks;   /* [n_tapes]; in shared memory for an engine with MM__ENGINE_FORKS */
    mm__tape *tapes;   /* [n_tapes] prepared tables */
    int64_t per_tape;  /* combinations per tape */
    mm__chunk *chunks; /* [n_chunks], in id order: the order they must be emitted in */
    int64_t n_chunks;
    mm__journal j;
    const char *jpath; /* "<out>.journal" */
    double t0;
    int64_t done_chunks; /* chunks emitted so far */
    /* Chunks an engine recomputed after a worker died (mm_sweep_report.chunks_rerun), and workers
     * it killed for making no progress, their chunks rerun on fresh workers
     * (mm_sweep_report.stalls). */
    int64_t rerun, stalls;
    int64_t combos_total; /* sum over chunks of count */
    int64_t events_total; /* sum over chunks of count x tape events, for updates/s */
    /* Progress (mm_sweep_opts.progress): what the emitted chunks hold, and the throttle's state. */
    int64_t done_combos, done_updates;
    unsigned char *finished; /* [n_chunks]: 1 once computed (mm__run_finished) */
    int64_t fin_combos, fin_updates;
    int64_t progress_calls;
    double progress_last; /* when progress was last reported (CLOCK_MONOTONIC seconds) */
    /* An engine with MM__ENGINE_RANKS (MPI): worker = 1 in a process that only computes the chunks
     * the leading process sends it (no journal, no chunk plan, no output); run_id = XXH3 of the
     * run's identity (the journal's), which every process of one run must share; engine_state:
     * what mm__mpi_begin keeps until mm__mpi_end. */
    int worker;
    uint64_t run_id;
    void *engine_state;
    /* What one combination leaves in the journal (rec_bytes): its mm_metrics (paths 1), or the
     * MM_RESULTS_SUMMARY_METRICS doubles of its summary followed, with keep_paths, by its paths'
     * mm_metrics. */
    int64_t paths;
    int keep_paths;
    size_t rec_bytes;
    /* An engine that advances the slots itself (the CUDA engine): mm__run_compute hands each
     * batch of slots to advance(…, advance_user) (mm__sim_slots_tape); NULL: the batched CPU
     * kernel. */
    mm__advance_fn advance;
    void *advance_user;
    /* Time blocks (mm_blocks.h; 0: none): n_blocks per tape, block_end_ns and block_end_i
     * [n_tapes][n_blocks]. A record (rec_bytes) is then the mm_metrics followed by n_blocks
     * mm_results_block. */
    int32_t n_blocks;
    int64_t *block_end_ns, *block_end_i;
} mm__run;

/* The run's identity (sweep_identity.c): one "name<TAB>value" line per thing that changes the
 * table's content; the journal stores it and its XXH3 is the run id. NULL when out of memory. */
char *mm__run_identity(const mm__run *r);

/* Engine flags. */
enum {
    /* The engine forks worker processes: the tapes are loaded into shared memory first
     * (MM_LOAD_SHM). */
    MM__ENGINE_FORKS = 1u << 0,
    /* The engine must not fork (an MPI rank, a CUDA context): sweep_run.c checks that it is not
     * also marked MM__ENGINE_FORKS, and nothing else in a sweep forks. */
    MM__ENGINE_NO_FORK = 1u << 1,
    /* The engine computes on one worker whatever --workers says (mm_sweep_report.workers is 1, or
     * for an engine with MM__ENGINE_RANKS the ranks that compute, mm__mpi_workers). */
    MM__ENGINE_ONE_WORKER = 1u << 2,
    /* The engine has nothing to balance: the automatic chunk size is the largest
     * (MM_SWEEP_CHUNK_AUTO_MAX, 1,024), not about 4 chunks per core. */
    MM__ENGINE_BIG_CHUNKS = 1u << 3,
    /* The engine runs in processes that were not forked from this one (MPI ranks): sweep_run.c
     * calls mm__mpi_begin once the settings are checked, loads the tapes with mm__mpi_load and
     * calls mm__mpi_end last; a process with r->worker set skips the journal and the results. */
    MM__ENGINE_RANKS = 1u << 4,
    /* A GPU engine: its devices are probed before any state (mm__cuda_probe), workers is their
     * number (one host thread each), and its automatic chunks are as large as a kernel launch
     * wants (up to 65,536 slots; with several devices at most 1/2 of the tape's combinations per
     * device), not about 16 per core. */
    MM__ENGINE_GPU_CHUNKS = 1u << 5,
};

typedef struct mm__engine {
    const char *name; /* as given to --engine and recorded in the results ("process") */
    unsigned flags;   /* MM__ENGINE_* */
    /* Compute every chunk of r and emit each, in chunk order. workers >= 1. Returns 0,
     * MM_EINTERRUPTED (a stop: the chunks emitted so far are journaled) or an error recorded in
     * err. */
    int (*run)(mm__run *r, int workers, mm_error *err);
    /* Chunk results the engine holds per worker besides the one it computes, waiting to be
     * journaled (the process engine's shared ring, the threads engine's window): what the memory
     * check (mem_budget.c) counts. */
    int held;
} mm__engine;

extern const mm__engine mm__engine_serial, mm__engine_threads, mm__engine_process, mm__engine_mpi,
    mm__engine_cuda;

/* The CUDA engine's devices (engine_cuda.c): the number it will run on (1 for a device number,
 * every visible one for MM_SWEEP_DEVICE_ALL), or -ENODEV naming why it cannot run here (no
 * device, no such device, a driver too old, or a build without CUDA). */
int mm__cuda_probe(int device, mm_error *err);

/* The MM__ENGINE_RANKS hooks (engine_mpi.c; without MPI, mpi_none.c: one process does everything).
 * begin: collective over the job's ranks; sets r->worker on every rank but 0. load: as
 * mm_ticks_load (same contract), collective over the ranks of a node: one rank reads the tape into
 * shared memory that the others map. end: releases what begin kept. workers: the ranks that
 * compute the chunks (mm_sweep_report.workers, the results' `workers`): size - 1 when the job has
 * more than one rank (rank 0 leads and computes nothing), else 1 (one process computes
 * everything; its OpenMP threads are --workers, as in every rank). */
int mm__mpi_begin(mm__run *r, mm_error *err);
int mm__mpi_workers(const mm__run *r);
int mm__mpi_load(mm__run *r, const char *path, const char *symbol, int flags, mm_ticks *out,
                 mm_error *err);
void mm__mpi_end(mm__run *r);

/* The engine of enum mm_engine value e, or NULL. */
const mm__engine *mm__engine_get(int e);

/* Compute chunk c into out: c->count records of r->rec_bytes. params: scratch of c->count entries.
 * Returns 0 or an error in err. */
int mm__run_compute(const mm__run *r, const mm__chunk *c, mm_params *params, void *out,
                    mm_error *err);

/* Slots of one tape by the run's kernel: r->advance (mm__sim_slots_tape) or the batched CPU kernel
 * (mm__sim_batch_tape), with their contract. */
int mm__run_batch(const mm__run *r, const mm__tape *tp, const mm_sim_config *sim,
                  const mm_params *p, int64_t n, int64_t first, int32_t path0, int32_t n_paths,
                  mm_metrics *out, mm_error *err);

/* Record a finished chunk (c->count records of r->rec_bytes): call once per chunk, in chunk order.
 * Returns 0 or an error in err (journal). */
int mm__run_emit(mm__run *r, const mm__chunk *c, const void *out, mm_error *err);

/* Chunk index c is computed (its records may wait for earlier chunks before mm__run_emit): counted
 * once into the progress's finished work, reported (throttled) when new. mm__run_emit calls it
 * too. */
void mm__run_finished(mm__run *r, int64_t c);

/* Synthetic markets (synthetic.c). check: the stresses of the grid against its tapes (stress_vol
 * and stress_liquidity need every tape synthetic) and the generator's limits, MM_EUSAGE naming
 * them. compute: chunk c of a synthetic tape, every path: m[k x paths + p] for combination
 * first + k on path p. */
int mm__synthetic_check(const mm_grid *g, const mm_sweep_opts *o, mm_error *err);
int mm__synthetic_compute(const mm__run *r, const mm__chunk *c, const mm_params *params,
                          mm_metrics *m, mm_error *err);

/* Build the results table at out from the journal at jpath and commit it (sweep_results.c). */
int mm__run_write_results(mm__run *r, const char *out, const char *jpath, mm_sweep_report *rep,
                          mm_error *err);

/* Non-zero once a stop was asked for (mm_sweep_opts.cancel, set by a signal handler). */
int mm__run_cancelled(const mm__run *r);

#endif
