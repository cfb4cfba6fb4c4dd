/* mm_sweep_run: check everything, plan chunks, run them with an engine, journal them, write the
 * results table.
 *
 * Every engine produces the same journal records in the same order (chunk order), so the results
 * table, built from the journal at the end, is byte-identical whatever the engine, the worker count
 * or the chunk size: each combination's metrics depend only on its parameters and its tape
 * (docs/sweep.md).
 *
 * The engines (serial, threads, process) live in engine_*.c behind the table of mm_engine.h; this
 * file keeps validation, chunk planning, the journal, the results table and the run's identity, and
 * is the one place engine names are parsed and printed (mm_sweep_engine_name,
 * mm_sweep_engine_parse). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "mm_accel.h"
#include "mm_blocks.h"
#include "mm_config.h"
#include "mm_engine.h"
#include "mm_grid_int.h"
#include "mm_internal.h"
#include "mm_mem_budget.h"
#include "mm_stale_tmp.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "results_int.h"

void mm_sweep_opts_defaults(mm_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->engine = MM_ENGINE_PROCESS;
    o->chunk = 0;
    o->seed = 1;
    o->objective = "pnl";
    o->progress_interval_s = 0.5;
    o->paths = 1;
    o->stall_s = 600;
    mm_sim_config_defaults(&o->sim);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Report progress to o->progress: once before the engine starts, after a chunk (final = 0),
 * throttled to one call per o->progress_interval_s, or once at the end (final = 1). The counts are
 * kept up to date by mm__run_emit, so a call costs O(1). */
static void progress(mm__run *r, int final)
{
    const mm_sweep_opts *o = r->o;
    if (!o->progress) return;
    double t = now();
    if (!final && r->progress_calls > 0 && t - r->progress_last < o->progress_interval_s) return;
    r->progress_last = t;
    r->progress_calls++;
    mm_sweep_progress p = {0};
    p.chunks_done = r->done_chunks;
    p.chunks_total = r->n_chunks;
    p.combos_done = r->done_combos;
    p.combos_total = r->combos_total;
    p.updates_done = r->done_updates;
    p.updates_total = r->events_total;
    p.combos_finished = r->fin_combos;
    p.updates_finished = r->fin_updates;
    p.elapsed_s = t - r->t0;
    p.final = final;
    o->progress(&p, o->progress_user);
}

/* The cost of chunk c: event x combination x path updates. */
static int64_t chunk_updates(const mm__run *r, const mm__chunk *c)
{
    return (int64_t)c->count * r->paths * r->ticks[c->tape].n;
}

static void count_finished(mm__run *r, int64_t c)
{
    if (!r->finished || r->finished[c]) return;
    r->finished[c] = 1;
    r->fin_combos += r->chunks[c].count;
    r->fin_updates += chunk_updates(r, &r->chunks[c]);
}

void mm__run_finished(mm__run *r, int64_t c)
{
    if (!r->finished || r->finished[c]) return;
    count_finished(r, c);
    progress(r, 0);
}

int mm__run_emit(mm__run *r, const mm__chunk *c, const void *m, mm_error *err)
{
    int rc = mm__journal_append(&r->j, c->first, (uint32_t)c->count, m);
    if (rc) return mm__errf(err, rc, "%s: %s", r->jpath, strerror(-rc));
    r->done_chunks++;
    r->done_combos += c->count;
    r->done_updates += chunk_updates(r, c);
    assert(c >= r->chunks && c < r->chunks + r->n_chunks);
    count_finished(r, c - r->chunks);
    progress(r, 0);
    return 0;
}

/* ---- checks before any state ---- */

/* Markout horizons give distinct column names; the objective names a metric column (float or
 * integer). */
static int check_columns(const mm_sweep_opts *o, mm_error *err)
{
    char names[MM_RESULTS_METRICS][32];
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        mm_results_metric(i, o->sim.markout_ns, names[i], sizeof names[i]);
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return mm__errf(err, MM_EUSAGE,
                                "markout_ns: the horizons %" PRId64 ",%" PRId64 ",%" PRId64
                                " give the column %s twice",
                                o->sim.markout_ns[0], o->sim.markout_ns[1], o->sim.markout_ns[2],
                                names[i]);
    }
    const char *obj = o->objective ? o->objective : "pnl";
    if (o->paths <= 1 && mm_results_metric_find(obj, o->sim.markout_ns) >= 0) return 0;
    char list[2048] = "";
    size_t len = 0;
    for (int i = 0; o->paths > 1 && i < MM_RESULTS_SUMMARY_METRICS; i++) {
        char n[MM_RESULTS_NAME_MAX];
        mm_results_summary_metric(i, o->sim.markout_ns, n, sizeof n);
        if (!strcmp(n, obj)) return 0;
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", n);
    }
    if (o->paths <= 1) mm_results_metric_list(o->sim.markout_ns, list, sizeof list);
    return mm__errf(err, MM_EUSAGE, "objective: '%s' is not a %smetric column (%s)", obj,
                    o->paths > 1 ? "Monte Carlo summary " : "", list);
}

/* Monte Carlo limits: paths per combination, and (combination, path) runs one chunk computes at
 * once by default (each holds an mm_metrics, 184 bytes: 12 MB). */
#define MM_SWEEP_PATHS_MAX 1000000
#define MM_SWEEP_SLOTS_MAX MM_SWEEP_SLOTS_AUTO_MAX

/* The disk a run keeping its paths needs beside its output: the journal (every combination's
 * record) and the table (its rows and /paths), against the free space of the output's file system.
 * Refused before anything is written when it cannot fit (1 M combinations x 1,000 kept paths need
 * 384 GB). Other runs write a few hundred bytes per combination and meet a full disk as any write
 * does (the journal keeps what is done). */
static int check_disk(const mm_grid *g, const char *out, size_t rec_bytes, int64_t paths, int keep,
                      mm_error *err)
{
    double rows = (double)g->n_combos;
    double need = rows * (double)rec_bytes + rows * (double)(8 + 8 * g->n_axes) +
                  (paths > 1 ? rows * (MM_RESULTS_SUMMARY_METRICS * 8.0)
                             : rows * (double)sizeof(mm_metrics)) +
                  (keep ? rows * (double)paths * (16.0 + (double)sizeof(mm_metrics)) : 0);
    char dir[4096];
    struct stat js;
    snprintf(dir, sizeof dir, "%s.journal", out);
    if (stat(dir, &js) == 0) need -= (double)js.st_size; /* a resume: what is journaled is there */
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    else
        snprintf(dir, sizeof dir, ".");
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0) return 0; /* the output's checks report a missing directory */
    double have = (double)fs.f_bavail * (double)fs.f_frsize;
    if (need <= have) return 0;
    char n[32], h[32];
    mm__fmt_bytes(need, n, sizeof n);
    mm__fmt_bytes(have, h, sizeof h);
    return mm__errf(err, MM_EUSAGE,
                    "%s: the run needs about %s of disk for its journal and table, %s free there",
                    out, n, h);
}

int mm_sweep_run(const mm_grid *g, const mm_sweep_opts *o, const char *out_path,
                 mm_sweep_report *rep, mm_error *err)
{
    mm_error e_local = {0};
    if (!err) err = &e_local;
    if (!rep) return mm__errf(err, -EINVAL, "mm_sweep_run: NULL argument");
    memset(rep, 0, sizeof *rep);
    if (!g || !o || !out_path) return mm__errf(err, -EINVAL, "mm_sweep_run: NULL argument");
    /* ---- everything is checked before any state exists (journal, temporary file, shared memory)
     * ---- */
    if (g->n_axes < 1 || strcmp(g->axes[0].key, "tape"))
        return mm__errf(err, MM_EUSAGE, "tape: no input tick file");
    if (g->n_combos <= 0) return mm__errf(err, MM_EUSAGE, "grid: empty");
    if (o->chunk < 0 || o->chunk > 1000000)
        return mm__errf(err, MM_EUSAGE, "chunk: %" PRId64 " must be in [1, 1e6] (0: auto)",
                        o->chunk);
    const mm__engine *engine = mm__engine_get(o->engine);
    if (!engine) return mm__errf(err, MM_EUSAGE, "engine: unknown");
    assert(!((engine->flags & MM__ENGINE_FORKS) && (engine->flags & MM__ENGINE_NO_FORK)));
    if (o->workers < 0 || o->workers > 4096)
        return mm__errf(err, MM_EUSAGE, "workers: %d must be in [0, 4096]", o->workers);
    if (!(o->stall_s == 0 || (o->stall_s >= 0.1 && o->stall_s <= 604800)))
        return mm__errf(err, MM_EUSAGE,
                        "stall_s: %g must be 0 (no limit) or in [0.1, 604800] seconds", o->stall_s);
    if (o->paths < 1 || o->paths > MM_SWEEP_PATHS_MAX)
        return mm__errf(err, MM_EUSAGE, "paths: %" PRId64 " must be in [1, %d]", o->paths,
                        MM_SWEEP_PATHS_MAX);
    if (o->keep_paths && o->paths < 2)
        return mm__errf(err, MM_EUSAGE, "keep_paths: needs more than one path per combination");
    int n_syn = 0;
    for (int32_t t = 0; o->synthetic && t < g->axes[0].n; t++)
        n_syn += o->synthetic[t] != NULL;
    if (o->blocks < 0 || o->blocks > MM_RESULTS_BLOCKS_MAX)
        return mm__errf(err, MM_EUSAGE, "blocks: %" PRId32 " must be in [1, %d] (0: none)",
                        o->blocks, MM_RESULTS_BLOCKS_MAX);
    if (o->block_ns < 0)
        return mm__errf(err, MM_EUSAGE, "block_ns: %" PRId64 " must be > 0 (0: none)", o->block_ns);
    if (o->blocks > 0 && o->block_ns > 0)
        return mm__errf(err, MM_EUSAGE,
                        "blocks: give the number of blocks or their length (block_ns), not both");
    if (o->blocks > 0 || o->block_ns > 0) {
        const char *why = o->paths > 1                              ? "more than one path"
                          : n_syn                                   ? "synthetic markets"
                          : (engine->flags & MM__ENGINE_GPU_CHUNKS) ? "the cuda engine"
                                                                    : NULL;
        if (why)
            return mm__errf(err, MM_EUSAGE,
                            "blocks: time blocks are not recorded with %s yet (a replay of "
                            "recorded tapes with a CPU engine records them)",
                            why);
    }
    if (o->paths > 1 && !n_syn && !mm__grid_draws(g))
        return mm__errf(err, MM_EUSAGE,
                        "paths: %" PRId64
                        " paths, but no combination draws a random number (latency_dist "
                        "constant, queue_join back, trade_reach 1, cancel_draw round): every path "
                        "would be the same replay",
                        o->paths);
    int rc = mm_sim_config_check(&o->sim, NULL, err);
    if (rc == 0) rc = check_columns(o, err);
    int n_dev = 1; /* the devices a GPU engine runs on */
    if (rc == 0 && (engine->flags & MM__ENGINE_GPU_CHUNKS)) {
        if (o->device < MM_SWEEP_DEVICE_ALL || o->device > 1023)
            return mm__errf(err, MM_EUSAGE,
                            "device: %d must be a CUDA device number (0..1023) or all", o->device);
        n_dev = rc = mm__cuda_probe(o->device, err);
        if (rc > 0) rc = 0;
    }
    if (rc) return rc;
    struct stat ost;
    if (!*out_path) return mm__errf(err, MM_EUSAGE, "output: empty path");
    if (strlen(out_path) > 4000)
        return mm__errf(err, MM_EUSAGE, "%.60s...: output path too long", out_path);
    if (stat(out_path, &ost) == 0 && S_ISDIR(ost.st_mode))
        return mm__errf(err, MM_EUSAGE, "%s: is a directory", out_path);
    int workers = o->workers;
    if (workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        workers = n > 0 ? (int)n : 1;
    }
    if (engine->flags & MM__ENGINE_ONE_WORKER) workers = 1;
    if (engine->flags & MM__ENGINE_GPU_CHUNKS) workers = n_dev; /* one host thread per device */
    rep->workers = workers;
    /* Chunk size: as given, or automatic: about 4 chunks per core of the machine and tape, so that
     * dynamic scheduling evens out chunks of unequal cost, but at least 64 combinations and at most
     * MM_SWEEP_CHUNK_AUTO_MAX: the batched kernel amortises each event over a chunk, and
     * combinations share their steps only with those of the same chunk (docs/model.md section 8,
     * "Shared states"; docs/perf.md has the measure). It depends on the machine, not on
     * --workers, so runs with different worker counts do the same work in the same chunks; the
     * serial engine, which has nothing to balance, takes the largest. Results depend on none of
     * this. */
    int64_t chunk_sz = o->chunk;
    if (chunk_sz == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (cores < 1) cores = 1;
        int64_t per = g->n_combos / g->axes[0].n;
        /* Monte Carlo: a chunk's paths are stepped together, so the kernel's 64 slots need only
         * 64 / paths combinations; at most MM_SWEEP_SLOTS_MAX (combination, path) slots per chunk
         * bound a worker's memory whatever paths is. A family's members share their steps on
         * each path (docs/model.md 3.3), so the chunk is otherwise as large as without paths. */
        int64_t lo = o->paths > 1 ? 64 / o->paths : 64,
                hi = o->paths > 1 ? MM_SWEEP_SLOTS_MAX / o->paths : MM_SWEEP_CHUNK_AUTO_MAX;
        if (hi > MM_SWEEP_CHUNK_AUTO_MAX) hi = MM_SWEEP_CHUNK_AUTO_MAX;
        if (lo < 1) lo = 1;
        if (hi < 1) hi = 1;
        if (engine->flags & MM__ENGINE_GPU_CHUNKS) {
            hi = MM_SWEEP_SLOTS_MAX / o->paths > 1 ? MM_SWEEP_SLOTS_MAX / o->paths : 1;
            /* Several devices: at least two chunks per device where the grid allows. */
            int64_t spread = (per + 2 * n_dev - 1) / (2 * n_dev);
            if (n_dev > 1 && spread < hi) hi = spread > lo ? spread : lo;
        }
        chunk_sz = engine->flags & (MM__ENGINE_BIG_CHUNKS | MM__ENGINE_GPU_CHUNKS)
                       ? hi
                       : (per + 4 * cores - 1) / (4 * cores);
        if (chunk_sz < lo) chunk_sz = lo;
        if (chunk_sz > hi) chunk_sz = hi;
    }
    if (o->paths > 1 && chunk_sz * o->paths > 16 * MM_SWEEP_SLOTS_MAX)
        return mm__errf(err, MM_EUSAGE,
                        "chunk: %" PRId64 " combinations x %" PRId64
                        " paths are more than %d runs in one chunk: give a smaller chunk (or 0)",
                        chunk_sz, o->paths, 16 * MM_SWEEP_SLOTS_MAX);
    /* What one combination leaves in the journal (mm__run.rec_bytes). */
    size_t rec_bytes = o->paths == 1
                           ? sizeof(mm_metrics)
                           : MM_RESULTS_SUMMARY_METRICS * sizeof(double) +
                                 (o->keep_paths ? (size_t)o->paths * sizeof(mm_metrics) : 0);
    /* With --blocks the memory check counts them now; with block_ns their number is known once
     * the tapes are loaded (mm__blocks_plan), and the record grows then. */
    size_t rec_plan =
        rec_bytes + (size_t)(o->blocks > 0 ? o->blocks : 0) * sizeof(mm_results_block);
    /* The run's memory against the smallest of physical memory, RLIMIT_AS, RLIMIT_DATA and the
     * cgroup's limit: refused before anything is allocated when it cannot fit. */
    mm__mem_plan mp = {.n_combos = g->n_combos,
                       .n_tapes = g->axes[0].n,
                       .chunk = chunk_sz,
                       .paths = o->paths,
                       .keep_paths = o->keep_paths != 0,
                       .rec_bytes = rec_plan,
                       .workers = workers,
                       .held = engine->held,
                       .forks = (engine->flags & MM__ENGINE_FORKS) != 0,
                       .latency_table = o->sim.latency != NULL};
    for (int32_t t = 0; o->synthetic && t < g->axes[0].n; t++) {
        if (!o->synthetic[t]) continue;
        int64_t ev = o->synthetic[t]->events;
        mp.syn_sum += ev;
        if (ev > mp.syn_max) mp.syn_max = ev;
    }
    mm__mem_limits lim;
    mm__mem_limits_read(&lim, "/proc/self/cgroup", "/sys/fs/cgroup");
    /* The grid's combinations: on synthetic markets only, the stresses are theirs to take. */
    mm_sim_config gsim = o->sim;
    gsim.synthetic = n_syn == g->axes[0].n;
    if ((rc = mm__mem_check(&mp, &lim, err)) || (rc = mm__synthetic_check(g, o, err)) ||
        (rc = mm__grid_check_combos(g, &gsim, err)))
        return rc;
    mm_sweep_opts oo = *o;
    oo.chunk = chunk_sz;
    o = &oo;

    mm__run r = {0};
    r.g = g;
    r.o = o;
    r.sim =
        o->sim; /* the model's random streams are keyed by the sweep's seed (docs/model.md 3.3) */
    r.sim.seed = o->seed;
    r.sim.id = 0;
    r.sim.path = 0;
    r.paths = o->paths;
    r.keep_paths = o->keep_paths != 0;
    r.rec_bytes = rec_bytes;
    r.j.fd = -1;
    if (r.keep_paths && (rc = check_disk(g, out_path, r.rec_bytes, r.paths, 1, err))) return rc;
    r.n_tapes = g->axes[0].n;
    r.per_tape = g->n_combos / r.n_tapes;
    size_t jlen = strlen(out_path) + 9;
    char *jpath = malloc(jlen), *ident = NULL;
    uint8_t *done = NULL;
    if (!jpath) return mm__errf(err, -ENOMEM, "out of memory");
    snprintf(jpath, jlen, "%s.journal", out_path);
    r.jpath = jpath;
    /* A live run on this output, or an interrupted one without --resume: say so now, before
     * loading. MPI: ranks but 0 (r.worker) compute what rank 0 sends; no journal, no output. */
    int ranks = (engine->flags & MM__ENGINE_RANKS) != 0;
    if (ranks && (rc = mm__mpi_begin(&r, err))) goto out;
    if (ranks) rep->workers = mm__mpi_workers(&r); /* the ranks that compute, not 1 */
    if (!r.worker && (rc = mm__journal_precheck(jpath, out_path, o->resume, err))) goto out;
    r.ticks = calloc((size_t)r.n_tapes, sizeof *r.ticks);
    r.tapes = calloc((size_t)r.n_tapes, sizeof *r.tapes);
    if (!r.ticks || !r.tapes) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
        goto out;
    }
    done = calloc((size_t)g->n_combos, 1);
    if (!done) {
        char n[32];
        mm__fmt_bytes((double)g->n_combos, n, sizeof n);
        rc = mm__errf(err, -ENOMEM, "grid: cannot allocate the %s map of %" PRId64 " combinations",
                      n, g->n_combos);
        goto out;
    }
    /* Load every tape once (shared memory for the process engine) and prepare its tables. */
    for (int32_t t = 0; t < r.n_tapes && rc == 0; t++) {
        char *spec = strdup(g->axes[0].text[t]);
        if (!spec) {
            rc = mm__errf(err, -ENOMEM, "out of memory");
            break;
        }
        char *hash = strrchr(spec, '#');
        const char *sym = NULL;
        if (hash) {
            *hash = 0;
            sym = hash + 1;
        }
        int flags = o->load_flags | (engine->flags & MM__ENGINE_FORKS ? MM_LOAD_SHM : 0);
        if (o->synthetic &&
            o->synthetic[t]) /* its path 0, unstressed: what the run is checked,
                                identified and timed on (the paths make their own) */
            rc = mm_sweep_synthetic_day(o->synthetic[t], o->seed, t, 0, 1, 1, &r.ticks[t], err);
        else if (ranks)
            rc = mm__mpi_load(&r, spec, sym && *sym ? sym : NULL, flags, &r.ticks[t], err);
        else
            rc = mm_ticks_load(spec, sym && *sym ? sym : NULL, flags, &r.ticks[t], err);
        free(spec);
        if (rc == 0) rc = mm_sim_config_check(&o->sim, &r.ticks[t], err);
        if (rc == 0) rc = mm__grid_check_tape(g, &r.ticks[t], o->engine == MM_ENGINE_CUDA, err);
        if (rc == 0 && (rc = mm__tape_init(&r.tapes[t], &r.ticks[t], &r.sim)))
            mm__errf(err, rc, "cannot allocate the tape tables");
    }
    if (rc == 0 && (rc = mm__blocks_plan(&r, err)) == 0)
        r.rec_bytes += (size_t)r.n_blocks * sizeof(mm_results_block);
    if (rc) goto out;
    r.t0 = now();
    if (!(ident = mm__run_identity(&r))) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
        goto out;
    }
    r.run_id = XXH3_64bits(ident, strlen(ident));
    int64_t n_done = 0;
    rc = r.worker ? engine->run(&r, workers, err)
                  : mm__journal_open(&r.j, jpath, out_path, o->resume, r.run_id, ident, g->n_combos,
                                     r.rec_bytes, done, &n_done, err);
    if (rc || r.worker) goto out;
    mm__remove_stale_tmps(out_path); /* we hold the lock: nobody else is writing this output */
    int64_t records_before = r.j.records;
    /* Chunks over the combinations not yet done, never across a tape boundary. */
    {
        int64_t cap = g->n_combos / o->chunk + 2 * r.n_tapes + 16, n = 0;
        int64_t gaps = 0;
        for (int64_t i = 0; i < g->n_combos; i++)
            gaps += !done[i] && (i == 0 || done[i - 1]);
        cap += gaps;
        r.chunks = malloc((size_t)cap * sizeof *r.chunks);
        if (!r.chunks) {
            rc = mm__errf(err, -ENOMEM, "out of memory");
            goto out;
        }
        for (int64_t i = 0; i < g->n_combos;) {
            if (done[i]) {
                i++;
                continue;
            }
            int32_t tape = (int32_t)(i / r.per_tape);
            int64_t end = (int64_t)(tape + 1) * r.per_tape, k = i;
            while (k < end && k - i < o->chunk && !done[k])
                k++;
            if (n == cap) {
                cap *= 2;
                mm__chunk *nc = realloc(r.chunks, (size_t)cap * sizeof *nc);
                if (!nc) {
                    rc = mm__errf(err, -ENOMEM, "out of memory");
                    goto out;
                }
                r.chunks = nc;
            }
            r.chunks[n++] = (mm__chunk){i, (int32_t)(k - i), tape};
            i = k;
        }
        r.n_chunks = n;
        if (!(r.finished = calloc((size_t)(n > 0 ? n : 1), 1))) {
            rc = mm__errf(err, -ENOMEM, "out of memory");
            goto out;
        }
        for (int64_t c = 0; c < n; c++) {
            r.combos_total += r.chunks[c].count;
            r.events_total += (int64_t)r.chunks[c].count * r.paths * r.ticks[r.chunks[c].tape].n;
        }
    }
    free(done);
    done = NULL;
    rep->chunks_resumed = n_done;
    rep->chunks_total = records_before + r.n_chunks;
    progress(&r, 0); /* at once: a first chunk may take long */
    rc = engine->run(&r, workers, err);
    if (rc == 0 && (rc = mm__journal_sync(&r.j)))
        mm__errf(err, rc, "%s: fsync: %s", r.jpath, strerror(-rc));
    progress(&r, 1);
    rep->chunks_saved = r.j.records;
    rep->stalls = r.stalls;
    if (rc) goto out;
    rep->wall_s = now() - r.t0;
    rep->combos = g->n_combos;
    rep->chunks = r.n_chunks;
    rep->chunks_rerun = r.rerun;
    rep->combos_per_s = rep->wall_s > 0 ? (double)r.combos_total / rep->wall_s : 0;
    rep->updates_per_s = rep->wall_s > 0 ? (double)r.events_total / rep->wall_s : 0;
    /* The table, from the journal; the journal stays locked until it is removed. */
    rc = mm__run_write_results(&r, out_path, jpath, rep, err);
    if (rc == 0) unlink(jpath); /* the table is in place: the journal has served its purpose */
out:
    if (rc == MM_EINTERRUPTED)
        mm__errf(err, rc, "interrupted: %" PRId64 " of %" PRId64 " chunks saved in the journal",
                 rep->chunks_saved, rep->chunks_total);
    /* A run that failed before journaling anything leaves nothing to resume: no journal (we still
     * hold its lock, so it is ours to remove). A stop keeps it, even empty: the message says to
     * resume. */
    if (r.j.fd >= 0 && rc && rc != MM_EINTERRUPTED && r.j.records == 0) unlink(jpath);
    mm__journal_close(&r.j);
    if (ranks) mm__mpi_end(&r);
    for (int32_t t = 0; t < r.n_tapes && r.tapes && r.ticks; t++) {
        mm__tape_free(&r.tapes[t]);
        mm_ticks_free(&r.ticks[t]);
    }
    free(r.tapes);
    free(r.ticks);
    free(r.block_end_ns);
    free(r.block_end_i);
    free(r.chunks);
    free(r.finished);
    free(done);
    free(ident);
    free(jpath);
    return rc;
}
