/* The process engine: forked workers share the tapes (POSIX shared memory, read-only) and take
 * chunks from a shared counter; results come back through a ring of K slots in a shared segment
 * (chunk c writes slot c mod K once chunk c - K is drained); the parent drains chunks in order,
 * emits them, and reruns itself any chunk whose worker died (mm_engine.h). Workers die with the
 * parent (PR_SET_PDEATHSIG) and the parent reaps only its own pids. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mm_engine.h"
#include "mm_shm.h"

enum { C_TODO = 0, C_CLAIMED = 1, C_DONE = 2, C_PARENT = 3, C_FAILED = 4 };

typedef struct shared_hdr {
    atomic_int_fast64_t next; /* next chunk index to claim */
    int64_t n_chunks, k_slots, cap;
} shared_hdr;

typedef struct shm_view {
    shared_hdr *h;
    atomic_int *state; /* [n_chunks] */
    atomic_int *pid;   /* [n_chunks] worker pid that claimed it */
    atomic_llong
        *turn; /* [k_slots] the chunk allowed to write the slot next: c, then c + k_slots, ... */
    unsigned char *slots; /* [k_slots][cap] records of rec_bytes */
    size_t rec;
    void *base;
    size_t bytes;
} shm_view;

static size_t align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

static int shm_setup(shm_view *v, int64_t n_chunks, int64_t k, int64_t cap, size_t rec)
{
    size_t o_state = align64(sizeof(shared_hdr));
    size_t o_pid = o_state + align64((size_t)n_chunks * sizeof(atomic_int));
    size_t o_owner = o_pid + align64((size_t)n_chunks * sizeof(atomic_int));
    size_t o_slots = o_owner + align64((size_t)k * sizeof(atomic_llong));
    v->bytes = o_slots + (size_t)(k * cap) * rec;
    v->rec = rec;
    int rc;
    v->base = mm__shm_map(v->bytes, &rc);
    if (!v->base) return rc;
    char *b = v->base;
    v->h = (shared_hdr *)b;
    v->state = (atomic_int *)(b + o_state);
    v->pid = (atomic_int *)(b + o_pid);
    v->turn = (atomic_llong *)(b + o_owner);
    v->slots = (unsigned char *)(b + o_slots);
    atomic_init(&v->h->next, 0);
    v->h->n_chunks = n_chunks;
    v->h->k_slots = k;
    v->h->cap = cap;
    for (int64_t c = 0; c < n_chunks; c++) {
        atomic_init(&v->state[c], C_TODO);
        atomic_init(&v->pid[c], 0);
    }
    for (int64_t s = 0; s < k; s++)
        atomic_init(&v->turn[s], s);
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

/* Test hook (not an API): MMSIM_TEST_KILL_WORKER="W:N" makes worker W (0-based) kill itself with
 * SIGKILL, holding a claimed chunk, after finishing N >= 1 chunks, so that tests can prove that a
 * lost chunk is rerun (tests/test_sweep.c sweep::killed_worker_chunk_is_rerun). Read once, in the
 * parent before it forks; unset or malformed: no worker is killed. */
typedef struct kill_hook {
    long worker, after; /* after = 0: off */
} kill_hook;

static kill_hook kill_hook_get(void)
{
    kill_hook k = {0, 0};
    const char *s = getenv("MMSIM_TEST_KILL_WORKER");
    char *end;
    if (!s || *s < '0' || *s > '9') return k;
    long w = strtol(s, &end, 10);
    if (*end != ':' || end[1] < '0' || end[1] > '9') return k;
    long n = strtol(end + 1, &end, 10);
    if (*end || n < 1) return k;
    k.worker = w;
    k.after = n;
    return k;
}

static void worker_main(mm__run *r, shm_view *v, int index, kill_hook hook)
{
    int64_t cap = v->h->cap;
    mm_params *p = malloc((size_t)cap * sizeof *p);
    unsigned char *m = malloc((size_t)cap * r->rec_bytes);
    if (!p || !m) _exit(3);
    int64_t finished = 0;
    int me = (int)getpid();
    for (;;) {
        /* A stop (this process got the terminal's SIGINT too, through the parent's handler): claim
         * nothing more; the parent journals what is done. */
        if (mm__run_cancelled(r)) break;
        int64_t c = atomic_fetch_add(&v->h->next, 1);
        if (c >= v->h->n_chunks) break;
        atomic_store(&v->pid[c], me);
        int expect = C_TODO;
        if (!atomic_compare_exchange_strong(&v->state[c], &expect, C_CLAIMED))
            continue; /* the parent took it */
        if (hook.after > 0 && index == hook.worker && finished >= hook.after)
            raise(SIGKILL); /* test hook: die holding a claimed chunk */
        mm_error e = {0};
        if (mm__run_compute(r, &r->chunks[c], p, m, &e)) {
            atomic_store(&v->state[c], C_FAILED);
            continue;
        }
        /* Wait for this chunk's turn at its ring slot: the parent hands slot c mod K to chunk c
         * once chunk c - K is journaled. (Handing a free slot to whichever chunk comes first would
         * deadlock: a late chunk could take the slot the parent is waiting for.) */
        int64_t s = c % v->h->k_slots;
        while (atomic_load(&v->turn[s]) != c)
            nap();
        memcpy(v->slots + (size_t)(s * cap) * v->rec, m, (size_t)r->chunks[c].count * v->rec);
        expect = C_CLAIMED;
        atomic_compare_exchange_strong(&v->state[c], &expect, C_DONE);
        finished++;
    }
    free(p);
    free(m);
    _exit(0);
}

/* Reap any worker of ours that has exited (never another child of the host program: waitpid(-1)
 * would reap those, or block on them). Returns the pid reaped (its slot in pids is cleared) and its
 * status, or 0. */
static pid_t reap_one(pid_t *pids, int workers, int *wst)
{
    for (int w = 0; w < workers; w++) {
        if (pids[w] <= 0) continue;
        pid_t r = waitpid(pids[w], wst, WNOHANG);
        if (r == pids[w] || (r < 0 && errno == ECHILD)) {
            if (r < 0) *wst = 0; /* reaped by someone else (the host): count it as gone */
            pids[w] = 0;
            return r > 0 ? r : -1;
        }
    }
    return 0;
}

/* Compute chunk c here in the parent (a worker died with it, or could not compute it). */
static int parent_compute(mm__run *r, int64_t c, mm_params *pp, unsigned char **redo, mm_error *err)
{
    unsigned char *m = malloc((size_t)r->o->chunk * r->rec_bytes);
    int rc =
        m ? mm__run_compute(r, &r->chunks[c], pp, m, err) : mm__errf(err, -ENOMEM, "out of memory");
    if (rc) {
        free(m);
        return rc;
    }
    redo[c] = m;
    return 0;
}

static int run_process(mm__run *r, int workers, mm_error *err)
{
    int64_t k = (int64_t)workers * 4, cap = r->o->chunk;
    shm_view v = {0};
    int rc = shm_setup(&v, r->n_chunks, k, cap, r->rec_bytes);
    if (rc) return mm__errf(err, rc, "shared results segment: %s", strerror(-rc));
    pid_t *pids = calloc((size_t)workers, sizeof *pids);
    unsigned char **redo = calloc((size_t)(r->n_chunks > 0 ? r->n_chunks : 1), sizeof *redo);
    mm_params *pp = malloc((size_t)cap * sizeof *pp);
    if (!pids || !redo || !pp) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
        goto out;
    }
    const kill_hook kill_test = kill_hook_get();
    fflush(NULL);
    int alive = 0;
    pid_t parent = getpid();
    for (int w = 0; w < workers; w++) {
        pid_t pid = fork();
        if (pid < 0) {
            rc = mm__errf(err, -errno, "fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            /* Die with the parent: SIGKILL when it exits, however it exits. If it died before the
             * line above ran, we were already reparented: getppid() tells. (The death signal
             * follows the thread that forked; the engine forks from the thread that calls
             * mm_sweep_run.) */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(4);
            /* The journal's lock belongs to the open file, which fork shares: a worker keeping its
             * copy would hold the lock after the parent died, until it exits itself. Only the
             * parent holds it. */
            close(r->j.fd);
            worker_main(r, &v, w, kill_test);
        }
        pids[w] = pid;
        alive++;
    }
    int stopping = 0;
    for (int64_t c = 0; c < r->n_chunks && rc == 0; c++) {
        if (!stopping && mm__run_cancelled(r)) {
            /* Stop the workers at once; chunks already in the ring (C_DONE) are still journaled
             * below. */
            stopping = 1;
            for (int w = 0; w < workers; w++)
                if (pids[w] > 0) kill(pids[w], SIGKILL);
        }
        for (;;) {
            int st = atomic_load(&v.state[c]);
            if (st == C_DONE || st == C_PARENT) break;
            /* Asked to stop: journal nothing more than what is ready now. */
            if (mm__run_cancelled(r)) {
                rc = MM_EINTERRUPTED;
                break;
            }
            if (st == C_FAILED) {
                /* A worker could not compute it (bad parameters surface here): redo here for the
                 * message. */
                if ((rc = parent_compute(r, c, pp, redo, err)) == 0)
                    atomic_store(&v.state[c], C_PARENT);
                break;
            }
            /* Reap workers; a worker that died abnormally loses the chunks it claimed: rerun them
             * here. */
            int wst;
            pid_t dead = reap_one(pids, workers, &wst);
            if (dead) {
                alive--;
                int crashed = dead > 0 && !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
                int64_t claimed = atomic_load(&v.h->next);
                if (claimed > r->n_chunks) claimed = r->n_chunks;
                for (int64_t d = c; d < claimed && crashed && rc == 0; d++) {
                    int s2 = atomic_load(&v.state[d]);
                    int owner = atomic_load(&v.pid[d]);
                    int mine = (s2 == C_CLAIMED && owner == (int)dead) ||
                               (s2 == C_TODO && (owner == (int)dead || owner == 0));
                    if (!mine) continue;
                    int expect = s2;
                    if (!atomic_compare_exchange_strong(&v.state[d], &expect, C_PARENT)) continue;
                    if ((rc = parent_compute(r, d, pp, redo, err)) == 0) r->rerun++;
                }
                continue;
            }
            if (alive == 0 && atomic_load(&v.state[c]) != C_DONE) {
                /* Everyone is gone (killed): the parent finishes the chunk itself. */
                int expect = atomic_load(&v.state[c]);
                if (expect == C_DONE || expect == C_PARENT) break;
                if (!atomic_compare_exchange_strong(&v.state[c], &expect, C_PARENT)) continue;
                if ((rc = parent_compute(r, c, pp, redo, err)) == 0) r->rerun++;
                break;
            }
            /* Chunks finished ahead of c (their records wait in the ring): progress counts
             * them now, so one slow chunk does not hide the others' work. */
            for (int64_t d = c + 1; d < c + k && d < r->n_chunks; d++)
                if (atomic_load(&v.state[d]) == C_DONE) mm__run_finished(r, d);
            nap_ns(2000000);
        }
        if (rc) break;
        int64_t s = c % k;
        const unsigned char *m = redo[c] ? redo[c] : v.slots + (size_t)(s * cap) * v.rec;
        rc = mm__run_emit(r, &r->chunks[c], m, err);
        if (redo[c]) {
            free(redo[c]);
            redo[c] = NULL;
        }
        atomic_store(&v.turn[s], c + k); /* the slot's next user */
        /* Group commit: fsync when no further chunk is ready yet, and at the end. */
        if (rc == 0 && (c + 1 == r->n_chunks || atomic_load(&v.state[c + 1]) != C_DONE) &&
            (rc = mm__journal_sync(&r->j)))
            mm__errf(err, rc, "%s: fsync: %s", r->jpath, strerror(-rc));
    }
    /* Stop and reap the workers (on error or a stop they may still be running). */
    for (int w = 0; w < workers; w++)
        if (pids[w] > 0 && rc) kill(pids[w], SIGKILL);
    for (int w = 0; w < workers; w++) {
        int wst;
        while (pids[w] > 0 && waitpid(pids[w], &wst, 0) < 0 && errno == EINTR) {
        }
    }
    if (rc == MM_EINTERRUPTED) {
        int src = mm__journal_sync(&r->j);
        if (src) rc = mm__errf(err, src, "%s: fsync: %s", r->jpath, strerror(-src));
    }
out:
    for (int64_t d = 0; redo && d < r->n_chunks; d++)
        free(redo[d]);
    free(redo);
    free(pids);
    free(pp);
    munmap(v.base, v.bytes);
    return rc;
}

const mm__engine mm__engine_process = {"process", MM__ENGINE_FORKS, run_process};
