/* The MPI engine: one sweep across the ranks of an MPI job (docs/cluster.md, mm_engine.h).
 *
 * Every rank calls mm_sweep_run with the same grid and options. Rank 0 leads: it validates the
 * output, holds the journal, plans the chunks and hands them out on request; the other ranks
 * (workers) compute the chunks they are sent with mm__run_compute and send the metrics back. Rank 0
 * journals them in chunk order through mm__run_emit, so the journal and the results table are
 * those of a single-machine run, byte for byte. With one rank, or without MPI initialised, this
 * process runs every chunk itself.
 *
 * Messages (tags below, all on a duplicate of MPI_COMM_WORLD):
 *   worker -> 0  HELLO   once: the run's identity hash (a worker whose tapes or settings differ is
 *                        refused), pid, host;
 *   0 -> worker  WORK    24 bytes: chunk index, first combination, count, tape;
 *   worker -> 0  RESULT  8 + count x sizeof(mm_metrics) bytes: chunk index, then the metrics;
 *   0 -> worker  STOP    0 bytes: no more work.
 * Each worker holds up to DEPTH chunks (the next one is queued while it computes), so it never
 * waits for rank 0 between chunks. Rank 0 hands out chunks only within a window of the first chunk
 * not yet journaled, whose results it buffers until they can be journaled in order.
 *
 * Ticks are read once per node, into memory the node's ranks share (mpi_node.c, mm__mpi_load);
 * per chunk only the two messages above cross the network.
 *
 * Failures: a rank that dies ends the job under mpirun (and srun --kill-on-bad-exit): the launcher
 * stops the other ranks with SIGTERM, which rank 0 sees as a stop (mm_sweep_opts.cancel). Rank 0
 * then checks whether a worker on its host is gone (its pid no longer exists): -ECHILD naming that
 * rank, otherwise MM_EINTERRUPTED; rank 0 also checks this after each second without a message. An
 * MPI error (a peer gone, when the launcher lets the job live on) is -EIO naming the rank. In every
 * case the chunks journaled so far are kept and the run resumes from the journal, with MPI or
 * without. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm_config.h"
#include "mm_engine.h"
#include "mpi_int.h"

#if MM_HAVE_OPENMP
#include <omp.h>
#endif

enum { TAG_HELLO = 7301, TAG_WORK, TAG_RESULT, TAG_STOP };
#define DEPTH 2 /* chunks a worker holds: the one it computes and the next */

typedef struct hello_msg {
    uint64_t run_id;
    int64_t pid;
    char host[64];
} hello_msg;

typedef struct work_msg {
    int64_t chunk, first;
    int32_t count, tape;
} work_msg;

/* ---- waiting ---- */

/* Sleep a little longer each time nothing arrived: from 1 us up to 1 ms, so an idle rank uses no
 * core and a busy one never sleeps. */
static void backoff(long *ns)
{
    *ns = *ns ? (*ns < 1000000 ? *ns * 2 : 1000000) : 1000;
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
}

typedef struct lead lead;
static int check_peers(lead *L, mm_error *err);

/* Wait for a message from source (or MPI_ANY_SOURCE), polling the stop flag. Rank 0 (L not NULL)
 * also checks, when idle for a second, that its workers on this host are alive. */
static int wait_msg(const mm__run *r, mm__mpi_state *s, lead *L, int source, MPI_Status *st,
                    mm_error *err)
{
    long ns = 0, idle_ns = 0;
    for (;;) {
        int flag = 0;
        int e = MPI_Iprobe(source, MPI_ANY_TAG, s->comm, &flag, st);
        if (e != MPI_SUCCESS) return mm__mpi_fail(err, e, source, "probe");
        if (flag) return 0;
        if (mm__run_cancelled(r)) return mm__errf(err, MM_EINTERRUPTED, "interrupted");
        backoff(&ns);
        if (L && (idle_ns += ns) >= 1000000000L) {
            idle_ns = 0;
            int rc = check_peers(L, err);
            if (rc) return rc;
        }
    }
}

/* ---- a worker ---- */

/* Test hook (as engine_process.c's): MMSIM_TEST_KILL_WORKER=W:N makes rank W kill itself
 * with SIGKILL after N chunks, holding its next one. -1: no hook for this rank. */
static int64_t kill_hook(int rank)
{
    const char *v = getenv("MMSIM_TEST_KILL_WORKER");
    int w = -1;
    long long n = -1;
    if (!v || sscanf(v, "%d:%lld", &w, &n) != 2 || w != rank) return -1;
    return n;
}

/* Chunk c into m, on `threads` OpenMP threads (each takes a slice of the chunk: combinations are
 * independent, so slices give the metrics of the whole). The error reported is that of the first
 * failing slice. */
static int compute(const mm__run *r, const mm__chunk *c, int threads, mm_params *p,
                   unsigned char *m, int *rcs, mm_error *errs, mm_error *err)
{
    int parts = threads < c->count ? threads : c->count;
    if (parts <= 1) return mm__run_compute(r, c, p, m, err);
#if MM_HAVE_OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(parts)
#endif
    for (int k = 0; k < parts; k++) {
        int32_t lo = (int32_t)((int64_t)c->count * k / parts);
        int32_t hi = (int32_t)((int64_t)c->count * (k + 1) / parts);
        mm__chunk sub = {c->first + lo, hi - lo, c->tape};
        rcs[k] = mm__run_compute(r, &sub, p + lo, m + (size_t)lo * r->rec_bytes, &errs[k]);
    }
    for (int k = 0; k < parts; k++)
        if (rcs[k]) {
            *err = errs[k];
            return rcs[k];
        }
    return 0;
}

static int run_worker(mm__run *r, mm__mpi_state *s, mm_error *err)
{
    int threads = r->o->workers > 0 ? r->o->workers : 1;
    int64_t kill_after = kill_hook(s->rank), done = 0, cap = 0;
    mm_params *p = NULL;
    char *buf = NULL; /* chunk index, then the metrics */
    int *rcs = calloc((size_t)threads, sizeof *rcs);
    mm_error *errs = calloc((size_t)threads, sizeof *errs);
    hello_msg h = {0};
    h.run_id = r->run_id;
    h.pid = (int64_t)getpid();
    gethostname(h.host, sizeof h.host - 1);
    int rc = rcs && errs ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    int e = rc ? MPI_SUCCESS : MPI_Send(&h, (int)sizeof h, MPI_BYTE, 0, TAG_HELLO, s->comm);
    if (e != MPI_SUCCESS) rc = mm__mpi_fail(err, e, 0, "send");
    while (rc == 0) {
        MPI_Status st;
        if ((rc = wait_msg(r, s, NULL, 0, &st, err))) break;
        if (st.MPI_TAG == TAG_STOP) {
            e = MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_STOP, s->comm, MPI_STATUS_IGNORE);
            if (e != MPI_SUCCESS) rc = mm__mpi_fail(err, e, 0, "receive");
            break;
        }
        work_msg w;
        if (st.MPI_TAG != TAG_WORK) {
            rc = mm__errf(err, -EPROTO, "rank %d: unexpected message (tag %d) from rank 0", s->rank,
                          st.MPI_TAG);
            break;
        }
        e = MPI_Recv(&w, (int)sizeof w, MPI_BYTE, 0, TAG_WORK, s->comm, MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS) {
            rc = mm__mpi_fail(err, e, 0, "receive");
            break;
        }
        if (w.tape < 0 || w.tape >= r->n_tapes || w.count < 1 ||
            w.first < (int64_t)w.tape * r->per_tape ||
            w.first + w.count > (int64_t)(w.tape + 1) * r->per_tape) {
            rc = mm__errf(err, -EPROTO, "rank %d: chunk %" PRId64 " outside the grid", s->rank,
                          w.chunk);
            break;
        }
        if (w.count > cap) {
            free(p);
            free(buf);
            cap = w.count;
            p = malloc((size_t)cap * sizeof *p);
            buf = malloc(sizeof(int64_t) + (size_t)cap * r->rec_bytes);
            if (!p || !buf) {
                rc = mm__errf(err, -ENOMEM, "out of memory");
                break;
            }
        }
        if (done == kill_after) raise(SIGKILL); /* test hook: dies holding this chunk */
        mm__chunk c = {w.first, w.count, w.tape};
        memcpy(buf, &w.chunk, sizeof w.chunk);
        if ((rc = compute(r, &c, threads, p, (unsigned char *)buf + sizeof(int64_t), rcs, errs,
                          err)))
            break;
        e = MPI_Send(buf, (int)(sizeof(int64_t) + (size_t)w.count * r->rec_bytes), MPI_BYTE, 0,
                     TAG_RESULT, s->comm);
        if (e != MPI_SUCCESS) rc = mm__mpi_fail(err, e, 0, "send");
        done++;
    }
    free(p);
    free(buf);
    free(rcs);
    free(errs);
    return rc;
}

/* ---- rank 0 ---- */

typedef struct peer {
    int hello, starved;
    int64_t q[DEPTH]; /* chunks sent, in the order the results will come back */
    int qh, qn;
    hello_msg h;
} peer;

typedef struct slot {
    int64_t chunk; /* -1: empty */
    char *buf;     /* chunk index, then the metrics */
} slot;

struct lead {
    mm__run *r;
    mm__mpi_state *s;
    peer *peers;
    slot *slots;
    int64_t window, next, emitted;
    int *starved, n_starved;
    int64_t records0; /* journal records when the engine started */
    char host[64];
};

/* A worker on this host that is gone (its pid no longer exists) is a rank that died: -ECHILD,
 * naming it and what the journal keeps. Workers on other hosts cannot be checked from here: a
 * launcher that ends the job when a rank dies (mpirun; srun --kill-on-bad-exit) stops rank 0 with
 * SIGTERM instead (MM_EINTERRUPTED). */
static int check_peers(lead *L, mm_error *err)
{
    for (int w = 1; w < L->s->size; w++) {
        const peer *pw = &L->peers[w];
        if (!pw->hello || strcmp(pw->h.host, L->host) || kill((pid_t)pw->h.pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        char what[64] = "";
        if (pw->qn) snprintf(what, sizeof what, " while computing chunk %" PRId64, pw->q[pw->qh]);
        return mm__errf(err, -ECHILD,
                        "rank %d (%s, pid %" PRId64 ") died%s: %" PRId64 " of %" PRId64
                        " chunks saved in the journal",
                        w, pw->h.host, pw->h.pid, what, L->r->j.records,
                        L->records0 + L->r->n_chunks);
    }
    return 0;
}

/* Hand worker w chunks up to DEPTH, within the window. */
static int feed(lead *L, int w, mm_error *err)
{
    peer *pw = &L->peers[w];
    mm__run *r = L->r;
    while (pw->qn < DEPTH && L->next < r->n_chunks) {
        if (L->next >= L->emitted + L->window) {
            if (!pw->starved) L->starved[L->n_starved++] = w;
            pw->starved = 1;
            return 0;
        }
        const mm__chunk *c = &r->chunks[L->next];
        work_msg m = {L->next, c->first, c->count, c->tape};
        int e = MPI_Send(&m, (int)sizeof m, MPI_BYTE, w, TAG_WORK, L->s->comm);
        if (e != MPI_SUCCESS) return mm__mpi_fail(err, e, w, "send");
        pw->q[(pw->qh + pw->qn) % DEPTH] = L->next++;
        pw->qn++;
    }
    return 0;
}

/* Journal the buffered results that are next in chunk order; then feed the workers the window
 * held back. */
static int emit_ready(lead *L, mm_error *err)
{
    mm__run *r = L->r;
    int64_t before = L->emitted;
    while (L->emitted < r->n_chunks) {
        slot *sl = &L->slots[L->emitted % L->window];
        if (sl->chunk != L->emitted) break;
        int rc = mm__run_emit(r, &r->chunks[L->emitted], sl->buf + sizeof(int64_t), err);
        if (rc) return rc;
        free(sl->buf); /* rank 0 holds only the results waiting for an earlier chunk */
        sl->buf = NULL;
        sl->chunk = -1;
        L->emitted++;
    }
    if (L->emitted == before) return 0;
    int n = L->n_starved;
    L->n_starved = 0;
    for (int k = 0; k < n; k++) {
        L->peers[L->starved[k]].starved = 0;
        int rc = feed(L, L->starved[k], err);
        if (rc) return rc;
    }
    return 0;
}

static int on_hello(lead *L, int w, mm_error *err)
{
    peer *pw = &L->peers[w];
    int e =
        MPI_Recv(&pw->h, (int)sizeof pw->h, MPI_BYTE, w, TAG_HELLO, L->s->comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) return mm__mpi_fail(err, e, w, "receive");
    pw->h.host[sizeof pw->h.host - 1] = 0;
    if (pw->hello)
        return mm__errf(err, -EPROTO, "rank %d (%s, pid %" PRId64 "): said hello twice", w,
                        pw->h.host, pw->h.pid);
    if (pw->h.run_id != L->r->run_id)
        return mm__errf(err, MM_EUSAGE,
                        "rank %d (%s, pid %" PRId64 "): not the same run as rank 0 (its tapes, "
                        "grid or settings differ: run id %016" PRIx64 ", rank 0 %016" PRIx64 ")",
                        w, pw->h.host, pw->h.pid, pw->h.run_id, L->r->run_id);
    pw->hello = 1;
    return feed(L, w, err);
}

static int on_result(lead *L, int w, const MPI_Status *st, mm_error *err)
{
    peer *pw = &L->peers[w];
    mm__run *r = L->r;
    if (pw->qn == 0) return mm__errf(err, -EPROTO, "rank %d: a result for no chunk it was sent", w);
    int64_t c = pw->q[pw->qh];
    slot *sl = &L->slots[c % L->window];
    size_t want = sizeof(int64_t) + (size_t)r->chunks[c].count * r->rec_bytes;
    int got = 0;
    MPI_Get_count(st, MPI_BYTE, &got);
    if (got < 0 || (size_t)got != want)
        return mm__errf(err, -EPROTO, "rank %d: result of chunk %" PRId64 ": %d bytes, not %zu", w,
                        c, got, want);
    if (!(sl->buf = malloc(want))) return mm__errf(err, -ENOMEM, "out of memory");
    int e = MPI_Recv(sl->buf, got, MPI_BYTE, w, TAG_RESULT, L->s->comm, MPI_STATUS_IGNORE);
    if (e != MPI_SUCCESS) return mm__mpi_fail(err, e, w, "receive");
    int64_t said;
    memcpy(&said, sl->buf, sizeof said);
    if (said != c)
        return mm__errf(err, -EPROTO,
                        "rank %d: result of chunk %" PRId64 " where %" PRId64 " was expected", w,
                        said, c);
    sl->chunk = c;
    pw->qh = (pw->qh + 1) % DEPTH;
    pw->qn--;
    int rc = emit_ready(L, err);
    return rc ? rc : feed(L, w, err);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Benchmark hook (tests/mpi/bench_mpi.sh): MMSIM_BENCH_MPI_STATS=PATH makes rank 0 append one line
 * "chunks N busy_s S" to PATH, S being the time it spent handling messages (receiving, journaling,
 * answering), waits and the once-a-second fsync excluded. */
static void stats_hook(const mm__run *r, double busy_s)
{
    const char *path = getenv("MMSIM_BENCH_MPI_STATS");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "chunks %" PRId64 " busy_s %.6f\n", r->n_chunks, busy_s);
    fclose(f);
}

static int run_lead(mm__run *r, mm__mpi_state *s, mm_error *err)
{
    lead L = {0};
    L.r = r;
    L.s = s;
    L.records0 = r->j.records;
    gethostname(L.host, sizeof L.host - 1);
    int nw = s->size - 1, hellos = 0;
    /* Results wait here until they can be journaled in order: room for four rounds of every
     * worker's queue, so a worker up to four times slower than the others holds nobody up. */
    L.window = 4 * (int64_t)DEPTH * nw;
    L.peers = calloc((size_t)s->size, sizeof *L.peers);
    L.slots = calloc((size_t)L.window, sizeof *L.slots);
    L.starved = calloc((size_t)s->size, sizeof *L.starved);
    int rc = L.peers && L.slots && L.starved ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t k = 0; k < L.window && rc == 0; k++)
        L.slots[k].chunk = -1;
    double synced = now_s(), busy_s = 0;
    while (rc == 0 && (L.emitted < r->n_chunks || hellos < nw)) {
        MPI_Status st;
        if ((rc = wait_msg(r, s, &L, MPI_ANY_SOURCE, &st, err))) break;
        int w = st.MPI_SOURCE;
        double t_msg = now_s();
        if (st.MPI_TAG == TAG_HELLO) {
            rc = on_hello(&L, w, err);
            hellos++;
        } else if (st.MPI_TAG == TAG_RESULT) {
            rc = on_result(&L, w, &st, err);
        } else {
            rc = mm__errf(err, -EPROTO, "rank %d: unexpected message (tag %d)", w, st.MPI_TAG);
        }
        busy_s += now_s() - t_msg;
        /* The journal reaches the disk at least once a second (and at the end: sweep_run.c). */
        if (rc == 0 && now_s() - synced >= 1.0) {
            int src = mm__journal_sync(&r->j);
            if (src) rc = mm__errf(err, src, "%s: fsync: %s", r->jpath, strerror(-src));
            synced = now_s();
        }
    }
    stats_hook(r, busy_s);
    /* Done, failed or stopped: tell every worker that said hello (a worker still computing sees
     * it after its chunk; on a failure the program ends the job: mm_sweep_mpi_finalize). */
    for (int w = 1; w <= nw && L.peers; w++)
        if (L.peers[w].hello) MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, s->comm);
    /* Stopped by the launcher (SIGTERM): because a rank on this host died? */
    if (rc == MM_EINTERRUPTED && L.peers) {
        mm_error e2 = {0};
        if (check_peers(&L, &e2)) {
            *err = e2;
            rc = e2.code;
        }
    }
    if (rc) {
        int src = mm__journal_sync(&r->j);
        if (src && (rc == MM_EINTERRUPTED || rc == -ECHILD))
            rc = mm__errf(err, src, "%s: fsync: %s", r->jpath, strerror(-src));
    }
    for (int64_t k = 0; k < L.window && L.slots; k++)
        free(L.slots[k].buf);
    free(L.slots);
    free(L.peers);
    free(L.starved);
    return rc;
}

static int run_mpi(mm__run *r, int workers, mm_error *err)
{
    (void)workers; /* 1 (MM__ENGINE_ONE_WORKER): the threads of a rank are r->o->workers */
    mm__mpi_state *s = r->engine_state;
    if (!s || s->size == 1) {
        int threads = r->o->workers > 0 ? r->o->workers : 1;
        return threads > 1 ? mm__engine_threads.run(r, threads, err)
                           : mm__engine_serial.run(r, 1, err);
    }
    return r->worker ? run_worker(r, s, err) : run_lead(r, s, err);
}

/* This binary's engine "mpi" runs ranks (mpi_none.c: 0); src/cli/main.c reads it. */
const int mm__mpi_ranks_linked = 1;

const mm__engine mm__engine_mpi = {
    "mpi", MM__ENGINE_NO_FORK | MM__ENGINE_ONE_WORKER | MM__ENGINE_RANKS, run_mpi, 4 * DEPTH};
