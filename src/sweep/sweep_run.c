/* mm_sweep_run: plan chunks, run them with an engine, journal them, write the results table.
 *
 * Every engine produces the same journal records in the same order (chunk order), so the results table,
 * built from the journal at the end, is byte-identical whatever the engine, the worker count or the chunk
 * size: each combination's metrics depend only on its parameters and its tape (docs/sweep.md).
 *
 * Engines:
 *   serial   chunks one after the other in this process;
 *   threads  OpenMP threads take chunks of a window dynamically; the window is journaled in order;
 *   process  forked workers share the tapes (POSIX shared memory, read-only) and take chunks from a shared
 *            counter; results come back through a ring of K slots in a shared segment (chunk c writes slot
 *            c mod K once chunk c - K is drained); the parent drains chunks in order, journals them, and
 *            reruns itself any chunk whose worker died. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "../core/mm_internal.h"
#include "../core/sim_tape.h"
#include "../io/mm_shm.h"
#include "mm_journal.h"
#include "mm_config.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"

#if MM_HAVE_OPENMP
#include <omp.h>
#endif

void mm_sweep_opts_defaults(mm_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->engine = MM_ENGINE_PROCESS;
    o->chunk = 0;
    o->seed = 1;
    o->objective = "pnl";
    mm_sim_config_defaults(&o->sim);
}

/* A chunk: combinations [first, first + count) of one tape. */
typedef struct chunk {
    int64_t first;
    int32_t count, tape;
} chunk;

typedef struct run {
    const mm_grid *g;
    const mm_sweep_opts *o;
    int32_t n_tapes;
    mm_ticks *ticks;     /* [n_tapes] */
    mm__tape *tapes;     /* [n_tapes] prepared tables */
    int64_t per_tape;    /* combinations per tape */
    chunk *chunks;
    int64_t n_chunks;
    mm__journal j;
    double t0;
    int64_t done_chunks, rerun;
    int64_t events_total; /* sum over chunks of count x tape events, for updates/s */
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Compute one chunk into m[0 .. count). params: scratch of count entries. */
static int compute_chunk(const run *r, const chunk *c, mm_params *params, mm_metrics *m, mm_error *err)
{
    for (int32_t k = 0; k < c->count; k++) mm_grid_combo(r->g, c->first + k, &params[k], NULL);
    return mm__sim_batch_tape(&r->tapes[c->tape], &r->o->sim, params, c->count, m, err);
}

static void progress(run *r, int64_t done, int force)
{
    static double last;
    if (!r->o->progress) return;
    double t = now();
    if (!force && t - last < 0.5) return;
    last = t;
    double el = t - r->t0;
    int64_t combos = 0, upd = 0;
    for (int64_t c = 0; c < done; c++) {
        combos += r->chunks[c].count;
        upd += (int64_t)r->chunks[c].count * r->ticks[r->chunks[c].tape].n;
    }
    double rate = el > 0 ? (double)combos / el : 0, eta = 0;
    int64_t left = 0;
    for (int64_t c = done; c < r->n_chunks; c++) left += r->chunks[c].count;
    if (rate > 0) eta = (double)left / rate;
    fprintf(stderr, "\rsweep: chunks %" PRId64 "/%" PRId64 ", %.0f combos/s, %.3g event x combo/s, ETA %.0f s   ", done,
            r->n_chunks, rate, el > 0 ? (double)upd / el : 0.0, eta);
    if (force) fputc('\n', stderr);
}

/* Record a finished chunk (in chunk order). */
static int emit(run *r, const chunk *c, const mm_metrics *m, mm_error *err)
{
    int rc = mm__journal_append(&r->j, c->first, (uint32_t)c->count, m);
    if (rc) return mm__errf(err, rc, "journal: %s", strerror(-rc));
    r->done_chunks++;
    progress(r, r->done_chunks, 0);
    return 0;
}

/* ---- serial ---- */

static int run_serial(run *r, mm_error *err)
{
    int64_t cap = r->o->chunk;
    mm_params *p = malloc((size_t)cap * sizeof *p);
    mm_metrics *m = malloc((size_t)cap * sizeof *m);
    int rc = p && m ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t c = 0; c < r->n_chunks && rc == 0; c++) {
        rc = compute_chunk(r, &r->chunks[c], p, m, err);
        if (rc == 0) rc = emit(r, &r->chunks[c], m, err);
        if (rc == 0 && (rc = mm__journal_sync(&r->j))) mm__errf(err, rc, "journal: fsync: %s", strerror(-rc));
    }
    free(p);
    free(m);
    return rc;
}

/* ---- threads ---- */

static int run_threads(run *r, int workers, mm_error *err)
{
    int64_t window = (int64_t)workers * 4, cap = r->o->chunk;
    mm_params *p = malloc((size_t)(window * cap) * sizeof *p);
    mm_metrics *m = malloc((size_t)(window * cap) * sizeof *m);
    int *rcs = calloc((size_t)window, sizeof *rcs);
    mm_error *errs = calloc((size_t)window, sizeof *errs);
    if (!p || !m || !rcs || !errs) {
        free(p);
        free(m);
        free(rcs);
        free(errs);
        return mm__errf(err, -ENOMEM, "out of memory");
    }
    int rc = 0;
    for (int64_t w0 = 0; w0 < r->n_chunks && rc == 0; w0 += window) {
        int64_t wn = r->n_chunks - w0 < window ? r->n_chunks - w0 : window;
#if MM_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
#endif
        for (int64_t k = 0; k < wn; k++)
            rcs[k] = compute_chunk(r, &r->chunks[w0 + k], p + k * cap, m + k * cap, &errs[k]);
        for (int64_t k = 0; k < wn && rc == 0; k++) {
            if (rcs[k]) {
                *err = errs[k];
                rc = rcs[k];
            } else {
                rc = emit(r, &r->chunks[w0 + k], m + k * cap, err);
            }
        }
        if (rc == 0 && (rc = mm__journal_sync(&r->j))) mm__errf(err, rc, "journal: fsync: %s", strerror(-rc));
    }
    free(p);
    free(m);
    free(rcs);
    free(errs);
    return rc;
}

/* ---- process ---- */

enum { C_TODO = 0, C_CLAIMED = 1, C_DONE = 2, C_PARENT = 3, C_FAILED = 4 };

typedef struct shared_hdr {
    atomic_int_fast64_t next; /* next chunk index to claim */
    int64_t n_chunks, k_slots, cap;
} shared_hdr;

typedef struct shm_view {
    shared_hdr *h;
    atomic_int *state;   /* [n_chunks] */
    atomic_int *pid;     /* [n_chunks] worker pid that claimed it */
    atomic_llong *turn;  /* [k_slots] the chunk allowed to write the slot next: c, then c + k_slots, ... */
    mm_metrics *slots;   /* [k_slots][cap] */
    void *base;
    size_t bytes;
} shm_view;

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

static int shm_setup(shm_view *v, int64_t n_chunks, int64_t k, int64_t cap)
{
    size_t o_state = align64(sizeof(shared_hdr));
    size_t o_pid = o_state + align64((size_t)n_chunks * sizeof(atomic_int));
    size_t o_owner = o_pid + align64((size_t)n_chunks * sizeof(atomic_int));
    size_t o_slots = o_owner + align64((size_t)k * sizeof(atomic_llong));
    v->bytes = o_slots + (size_t)(k * cap) * sizeof(mm_metrics);
    int rc;
    v->base = mm__shm_map(v->bytes, &rc);
    if (!v->base) return rc;
    char *b = v->base;
    v->h = (shared_hdr *)b;
    v->state = (atomic_int *)(b + o_state);
    v->pid = (atomic_int *)(b + o_pid);
    v->turn = (atomic_llong *)(b + o_owner);
    v->slots = (mm_metrics *)(b + o_slots);
    atomic_init(&v->h->next, 0);
    v->h->n_chunks = n_chunks;
    v->h->k_slots = k;
    v->h->cap = cap;
    for (int64_t c = 0; c < n_chunks; c++) {
        atomic_init(&v->state[c], C_TODO);
        atomic_init(&v->pid[c], 0);
    }
    for (int64_t s = 0; s < k; s++) atomic_init(&v->turn[s], s);
    return 0;
}

/* Waits: a worker waiting for its ring slot polls every 100 us; the parent, which only drains and
 * journals, polls every 2 ms so that it takes no measurable CPU from the workers. */
static void nap_ns(long ns)
{
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static void nap(void)
{
    nap_ns(100000);
}

static void worker_main(run *r, shm_view *v, int index)
{
    int64_t cap = v->h->cap;
    mm_params *p = malloc((size_t)cap * sizeof *p);
    mm_metrics *m = malloc((size_t)cap * sizeof *m);
    if (!p || !m) _exit(3);
    int64_t finished = 0;
    int me = (int)getpid();
    for (;;) {
        int64_t c = atomic_fetch_add(&v->h->next, 1);
        if (c >= v->h->n_chunks) break;
        atomic_store(&v->pid[c], me);
        int expect = C_TODO;
        if (!atomic_compare_exchange_strong(&v->state[c], &expect, C_CLAIMED)) continue; /* the parent took it */
        if (r->o->test_kill_worker_after > 0 && index == r->o->test_kill_worker && finished >= r->o->test_kill_worker_after)
            raise(SIGKILL); /* test hook: die holding a claimed chunk */
        mm_error e = {0};
        if (compute_chunk(r, &r->chunks[c], p, m, &e)) {
            atomic_store(&v->state[c], C_FAILED);
            continue;
        }
        /* Wait for this chunk's turn at its ring slot: the parent hands slot c mod K to chunk c once chunk
         * c - K is journaled. (Handing a free slot to whichever chunk comes first would deadlock: a late
         * chunk could take the slot the parent is waiting for.) */
        int64_t s = c % v->h->k_slots;
        while (atomic_load(&v->turn[s]) != c) nap();
        memcpy(v->slots + s * cap, m, (size_t)r->chunks[c].count * sizeof *m);
        expect = C_CLAIMED;
        atomic_compare_exchange_strong(&v->state[c], &expect, C_DONE);
        finished++;
    }
    free(p);
    free(m);
    _exit(0);
}

static int run_process(run *r, int workers, mm_error *err)
{
    int64_t k = (int64_t)workers * 4, cap = r->o->chunk;
    shm_view v = {0};
    int rc = shm_setup(&v, r->n_chunks, k, cap);
    if (rc) return mm__errf(err, rc, "shared results segment: %s", strerror(-rc));
    pid_t *pids = calloc((size_t)workers, sizeof *pids);
    mm_metrics **redo = calloc((size_t)(r->n_chunks > 0 ? r->n_chunks : 1), sizeof *redo);
    mm_params *pp = malloc((size_t)cap * sizeof *pp);
    if (!pids || !redo || !pp) {
        free(pids);
        free(redo);
        free(pp);
        munmap(v.base, v.bytes);
        return mm__errf(err, -ENOMEM, "out of memory");
    }
    fflush(NULL);
    int alive = 0;
    for (int w = 0; w < workers; w++) {
        pid_t pid = fork();
        if (pid < 0) {
            rc = mm__errf(err, -errno, "fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) worker_main(r, &v, w);
        pids[w] = pid;
        alive++;
    }
    for (int64_t c = 0; c < r->n_chunks && rc == 0; c++) {
        for (;;) {
            int st = atomic_load(&v.state[c]);
            if (st == C_DONE || st == C_PARENT) break;
            if (st == C_FAILED) {
                /* A worker could not compute it (bad parameters surface here): redo here for the message. */
                mm_metrics *m = malloc((size_t)cap * sizeof *m);
                rc = m ? compute_chunk(r, &r->chunks[c], pp, m, err) : mm__errf(err, -ENOMEM, "out of memory");
                if (rc == 0) {
                    redo[c] = m;
                    atomic_store(&v.state[c], C_PARENT);
                } else {
                    free(m);
                }
                break;
            }
            /* Reap workers; a worker that died abnormally loses the chunks it claimed: rerun them here. */
            int wst;
            pid_t dead = waitpid(-1, &wst, WNOHANG);
            if (dead > 0) {
                alive--;
                int crashed = !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
                int64_t claimed = atomic_load(&v.h->next);
                if (claimed > r->n_chunks) claimed = r->n_chunks;
                for (int64_t d = c; d < claimed && crashed && rc == 0; d++) {
                    int s2 = atomic_load(&v.state[d]);
                    int owner = atomic_load(&v.pid[d]);
                    int mine = (s2 == C_CLAIMED && owner == (int)dead) || (s2 == C_TODO && (owner == (int)dead || owner == 0));
                    if (!mine) continue;
                    int expect = s2;
                    if (!atomic_compare_exchange_strong(&v.state[d], &expect, C_PARENT)) continue;
                    mm_metrics *m = malloc((size_t)cap * sizeof *m);
                    rc = m ? compute_chunk(r, &r->chunks[d], pp, m, err) : mm__errf(err, -ENOMEM, "out of memory");
                    if (rc) {
                        free(m);
                        break;
                    }
                    redo[d] = m;
                    r->rerun++;
                }
                continue;
            }
            if (alive == 0 && atomic_load(&v.state[c]) != C_DONE) {
                /* Everyone is gone (killed): the parent finishes the chunk itself. */
                int expect = atomic_load(&v.state[c]);
                if (expect == C_DONE || expect == C_PARENT) break;
                if (!atomic_compare_exchange_strong(&v.state[c], &expect, C_PARENT)) continue;
                mm_metrics *m = malloc((size_t)cap * sizeof *m);
                rc = m ? compute_chunk(r, &r->chunks[c], pp, m, err) : mm__errf(err, -ENOMEM, "out of memory");
                if (rc) {
                    free(m);
                    break;
                }
                redo[c] = m;
                r->rerun++;
                break;
            }
            nap_ns(2000000);
        }
        if (rc) break;
        int64_t s = c % k;
        const mm_metrics *m = redo[c] ? redo[c] : v.slots + s * cap;
        rc = emit(r, &r->chunks[c], m, err);
        if (redo[c]) {
            free(redo[c]);
            redo[c] = NULL;
        }
        atomic_store(&v.turn[s], c + k); /* the slot's next user */
        /* Group commit: fsync when no further chunk is ready yet, and at the end. */
        if (rc == 0 && (c + 1 == r->n_chunks || atomic_load(&v.state[c + 1]) != C_DONE) && (rc = mm__journal_sync(&r->j)))
            mm__errf(err, rc, "journal: fsync: %s", strerror(-rc));
    }
    /* Stop and reap the workers (on error they may still be running). */
    for (int w = 0; w < workers; w++)
        if (pids[w] > 0 && rc) kill(pids[w], SIGKILL);
    while (alive > 0) {
        int wst;
        if (waitpid(-1, &wst, 0) <= 0) break;
        alive--;
    }
    for (int64_t c = 0; c < r->n_chunks; c++) free(redo[c]);
    free(redo);
    free(pids);
    free(pp);
    munmap(v.base, v.bytes);
    return rc;
}

/* ---- results from the journal ---- */

typedef struct build_ctx {
    const mm_grid *g;
    mm_results_writer *w;
    int32_t *idx;
    int64_t idx_cap;
    mm_error *err;
} build_ctx;

static int build_cb(int64_t first, uint32_t count, const mm_metrics *m, void *user)
{
    build_ctx *b = user;
    int32_t na = b->g->n_axes;
    if ((int64_t)count * na > b->idx_cap) {
        free(b->idx);
        b->idx_cap = (int64_t)count * na;
        b->idx = malloc((size_t)b->idx_cap * sizeof *b->idx);
        if (!b->idx) return mm__errf(b->err, -ENOMEM, "out of memory");
    }
    mm_params p;
    for (uint32_t k = 0; k < count; k++) mm_grid_combo(b->g, first + k, &p, b->idx + (size_t)k * na);
    return mm_results_write(b->w, first, count, b->idx, m, b->err);
}

static int write_results(run *r, const char *out, const char *jpath, mm_sweep_report *rep, mm_error *err)
{
    const mm_grid *g = r->g;
    mm_results_axis ax[MM_GRID_AXES_MAX];
    int64_t *i64s[MM_GRID_AXES_MAX] = {0};
    for (int32_t m = 0; m < g->n_axes; m++) {
        const mm_grid_axis *a = &g->axes[m];
        ax[m] = (mm_results_axis){0};
        ax[m].key = a->key;
        ax[m].n = a->n;
        if (a->kind == MM_KEY_ENUM) {
            ax[m].type = MM_COL_ENUM;
            ax[m].names = (const char *const *)a->text;
        } else if (a->kind == MM_KEY_INT) {
            ax[m].type = MM_COL_I64;
            i64s[m] = malloc((size_t)a->n * sizeof(int64_t));
            if (!i64s[m]) return mm__errf(err, -ENOMEM, "out of memory");
            for (int32_t i = 0; i < a->n; i++) i64s[m][i] = strtoll(a->text[i], NULL, 10);
            ax[m].i64 = i64s[m];
        } else {
            ax[m].type = MM_COL_F64;
            ax[m].f64 = a->num;
        }
    }
    mm_results_writer *w = NULL;
    int rc = mm_results_create(out, ax, g->n_axes, g->n_combos, r->o->sim.markout_ns, &w, err);
    if (rc == 0) {
        build_ctx b = {g, w, NULL, 0, err};
        rc = mm__journal_scan(jpath, build_cb, &b);
        if (rc && !err->msg[0]) mm__errf(err, rc, "%s: cannot read the journal: %s", jpath, mm_strerror(rc));
        free(b.idx);
        if (rc) {
            mm_results_abort(w);
        } else {
            const char **paths = calloc((size_t)r->n_tapes, sizeof *paths), **syms = calloc((size_t)r->n_tapes, sizeof *syms);
            uint64_t *fps = calloc((size_t)r->n_tapes, sizeof *fps);
            char **pathbuf = calloc((size_t)r->n_tapes, sizeof *pathbuf);
            for (int32_t t = 0; t < r->n_tapes && pathbuf; t++) {
                pathbuf[t] = strdup(g->axes[0].text[t]);
                char *hash = pathbuf[t] ? strrchr(pathbuf[t], '#') : NULL;
                if (hash) *hash = 0;
                paths[t] = pathbuf[t];
                syms[t] = r->ticks[t].inst.symbol;
                fps[t] = r->ticks[t].inst.fingerprint;
            }
            const char *engines[] = {"process", "threads", "serial"};
            mm_results_meta meta = {0};
            meta.config_text = r->o->config_text ? r->o->config_text : "";
            meta.seed = r->o->seed;
            meta.engine = engines[r->o->engine];
            meta.workers = rep->workers;
            meta.wall_s = rep->wall_s;
            meta.combos_per_s = rep->combos_per_s;
            meta.updates_per_s = rep->updates_per_s;
            meta.n_inputs = r->n_tapes;
            meta.input_paths = paths;
            meta.input_symbols = syms;
            meta.input_fingerprints = fps;
            memcpy(meta.markout_ns, r->o->sim.markout_ns, sizeof meta.markout_ns);
            meta.objective = r->o->objective ? r->o->objective : "pnl";
            rc = mm_results_commit(w, &meta, err);
            for (int32_t t = 0; t < r->n_tapes && pathbuf; t++) free(pathbuf[t]);
            free(pathbuf);
            free(paths);
            free(syms);
            free(fps);
            if (rc == 0) rc = mm_results_hash(out, &rep->content_hash, err);
        }
    }
    for (int32_t m = 0; m < g->n_axes; m++) free(i64s[m]);
    return rc;
}

/* Identity of a run for --resume: everything that changes the table's content. */
static uint64_t run_identity(const run *r)
{
    XXH3_state_t *s = XXH3_createState();
    XXH3_64bits_reset(s);
    const mm_grid *g = r->g;
    XXH3_64bits_update(s, &g->n_combos, sizeof g->n_combos);
    for (int32_t m = 0; m < g->n_axes; m++) {
        XXH3_64bits_update(s, g->axes[m].key, strlen(g->axes[m].key) + 1);
        for (int32_t i = 0; i < g->axes[m].n; i++) XXH3_64bits_update(s, g->axes[m].text[i], strlen(g->axes[m].text[i]) + 1);
    }
    for (int k = 0; k < mm_params_key_count(); k++) {
        char buf[64];
        const char *key = mm_params_key_name(k, NULL);
        mm_params_get(&g->base, key, buf, sizeof buf);
        XXH3_64bits_update(s, buf, strlen(buf) + 1);
    }
    for (int32_t t = 0; t < r->n_tapes; t++) XXH3_64bits_update(s, &r->ticks[t].inst.fingerprint, 8);
    XXH3_64bits_update(s, &r->o->sim, sizeof r->o->sim);
    XXH3_64bits_update(s, &r->o->seed, sizeof r->o->seed);
    const char *obj = r->o->objective ? r->o->objective : "pnl";
    XXH3_64bits_update(s, obj, strlen(obj) + 1);
    uint64_t h = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return h;
}

int mm_sweep_run(const mm_grid *g, const mm_sweep_opts *o, const char *out_path, mm_sweep_report *rep, mm_error *err)
{
    mm_error e_local = {0};
    if (!err) err = &e_local;
    memset(rep, 0, sizeof *rep);
    if (!g || !o || !out_path) return mm__errf(err, -EINVAL, "mm_sweep_run: NULL argument");
    if (g->n_axes < 1 || strcmp(g->axes[0].key, "tape")) return mm__errf(err, MM_EUSAGE, "tape: no input tick file");
    if (g->n_combos <= 0) return mm__errf(err, MM_EUSAGE, "grid: empty");
    if (o->chunk < 0 || o->chunk > 1000000) return mm__errf(err, MM_EUSAGE, "chunk: %" PRId64 " must be in [1, 1e6] (0: auto)", o->chunk);
    if (o->engine < 0 || o->engine > 2) return mm__errf(err, MM_EUSAGE, "engine: unknown");
    if (o->workers < 0 || o->workers > 4096) return mm__errf(err, MM_EUSAGE, "workers: %d must be in [0, 4096]", o->workers);
    if (o->sim.sample_ns <= 0) return mm__errf(err, MM_EUSAGE, "sample_ns: must be > 0");
    {
        /* Every combination's parameters are valid: checking the axis extremes is not enough (GLFT limits
         * depend on several axes), so check each distinct combination of axis values lazily: all of them
         * here for grids up to 1e6, else the corners of every axis pair via a sampled scan. */
        mm_params p;
        int64_t step = g->n_combos <= 1000000 ? 1 : g->n_combos / 1000000;
        for (int64_t id = 0; id < g->n_combos; id += step) {
            mm_grid_combo(g, id, &p, NULL);
            int rc = mm_params_check(&p, err);
            if (rc) return rc;
        }
    }
    int workers = o->workers;
    if (workers == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        workers = n > 0 ? (int)n : 1;
    }
    if (o->engine == MM_ENGINE_SERIAL) workers = 1;
#if !MM_HAVE_OPENMP
    if (o->engine == MM_ENGINE_THREADS) workers = 1;
#endif
    rep->workers = workers;
    /* Chunk size: as given, or automatic: about 16 chunks per core of the machine and tape, so that dynamic
     * scheduling evens out chunks of unequal cost, but at least 64 combinations (the batched kernel amortises
     * each event over a chunk) and at most 256. It depends on the machine, not on --workers, so runs with
     * different worker counts do the same work in the same chunks; the serial engine, which has nothing to
     * balance, takes 256. Results depend on none of this. */
    int64_t chunk_sz = o->chunk;
    if (chunk_sz == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (cores < 1) cores = 1;
        int64_t per = g->n_combos / g->axes[0].n;
        chunk_sz = o->engine == MM_ENGINE_SERIAL ? 256 : (per + 16 * cores - 1) / (16 * cores);
        if (chunk_sz < 64) chunk_sz = 64;
        if (chunk_sz > 256) chunk_sz = 256;
    }
    mm_sweep_opts oo = *o;
    oo.chunk = chunk_sz;
    o = &oo;

    run r = {0};
    r.g = g;
    r.o = o;
    r.j.fd = -1;
    r.n_tapes = g->axes[0].n;
    r.per_tape = g->n_combos / r.n_tapes;
    r.ticks = calloc((size_t)r.n_tapes, sizeof *r.ticks);
    r.tapes = calloc((size_t)r.n_tapes, sizeof *r.tapes);
    uint8_t *done = calloc((size_t)g->n_combos, 1);
    size_t jlen = strlen(out_path) + 9;
    char *jpath = malloc(jlen);
    if (jpath) snprintf(jpath, jlen, "%s.journal", out_path);
    int rc = 0;
    if (!r.ticks || !r.tapes || !done || !jpath) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
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
        int flags = o->load_flags | (o->engine == MM_ENGINE_PROCESS ? MM_LOAD_SHM : 0);
        rc = mm_ticks_load(spec, sym && *sym ? sym : NULL, flags, &r.ticks[t], err);
        free(spec);
        if (rc == 0 && (rc = mm__tape_init(&r.tapes[t], &r.ticks[t], &o->sim)))
            mm__errf(err, rc, "cannot allocate the tape tables");
    }
    if (rc) goto out;
    r.t0 = now();
    uint64_t id = run_identity(&r);
    int64_t n_done = 0;
    if (o->resume) rc = mm__journal_resume(&r.j, jpath, id, g->n_combos, done, &n_done, err);
    else rc = mm__journal_create(&r.j, jpath, id, g->n_combos, err);
    if (rc) goto out;
    /* Chunks over the combinations not yet done, never across a tape boundary. */
    {
        int64_t cap = g->n_combos / o->chunk + 2 * r.n_tapes + 16, n = 0;
        int64_t gaps = 0;
        for (int64_t i = 0; i < g->n_combos; i++) gaps += !done[i] && (i == 0 || done[i - 1]);
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
            while (k < end && k - i < o->chunk && !done[k]) k++;
            if (n == cap) {
                cap *= 2;
                chunk *nc = realloc(r.chunks, (size_t)cap * sizeof *nc);
                if (!nc) {
                    rc = mm__errf(err, -ENOMEM, "out of memory");
                    goto out;
                }
                r.chunks = nc;
            }
            r.chunks[n++] = (chunk){i, (int32_t)(k - i), tape};
            i = k;
        }
        r.n_chunks = n;
        for (int64_t c = 0; c < n; c++) r.events_total += (int64_t)r.chunks[c].count * r.ticks[r.chunks[c].tape].n;
    }
    rep->chunks_resumed = n_done;
    switch (o->engine) {
    case MM_ENGINE_SERIAL: rc = run_serial(&r, err); break;
    case MM_ENGINE_THREADS: rc = run_threads(&r, workers, err); break;
    default: rc = run_process(&r, workers, err); break;
    }
    if (rc == 0 && (rc = mm__journal_sync(&r.j))) mm__errf(err, rc, "journal: fsync: %s", strerror(-rc));
    mm__journal_close(&r.j);
    progress(&r, r.done_chunks, 1);
    if (rc) goto out;
    rep->wall_s = now() - r.t0;
    rep->combos = g->n_combos;
    rep->chunks = r.n_chunks;
    rep->chunks_rerun = r.rerun;
    int64_t computed = 0;
    for (int64_t c = 0; c < r.n_chunks; c++) computed += r.chunks[c].count;
    rep->combos_per_s = rep->wall_s > 0 ? (double)computed / rep->wall_s : 0;
    rep->updates_per_s = rep->wall_s > 0 ? (double)r.events_total / rep->wall_s : 0;
    rc = write_results(&r, out_path, jpath, rep, err);
    if (rc == 0) unlink(jpath); /* the table is in place: the journal has served its purpose */
out:
    mm__journal_close(&r.j);
    for (int32_t t = 0; t < r.n_tapes && r.tapes; t++) {
        mm__tape_free(&r.tapes[t]);
        mm_ticks_free(&r.ticks[t]);
    }
    free(r.tapes);
    free(r.ticks);
    free(r.chunks);
    free(done);
    free(jpath);
    return rc;
}
