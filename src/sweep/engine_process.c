/* The process engine: forked workers share the tapes (POSIX shared memory, read-only) and take
 * chunks from a shared counter; results come back through a ring of K slots in a shared segment
 * (chunk c writes slot c mod K once chunk c - K is drained); the parent drains chunks in order,
 * emits them, and reruns itself any chunk whose worker died (mm_engine.h). Workers die with the
 * parent (PR_SET_PDEATHSIG) and the parent reaps only its own pids.
 *
 * Stalls (mm_sweep_opts.stall_s, docs/sweep.md "Stalled workers"): a worker stamps its chunk when
 * it claims it and when it has computed it. When the parent has waited stall_s seconds for the
 * chunk it needs next and that chunk's stamp is as old, its worker is taken for stalled (stopped,
 * hung in the kernel, or a chunk slower than the limit): the parent kills it, hands the chunk to a
 * fresh worker (state C_RERUN: the old worker can no longer complete it) and counts the stall. A
 * chunk that stalls a second time fails the run. Results do not depend on which process computes a
 * chunk (random streams are keyed by seed, combination and path), so the table is the same. */
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

/* A chunk's state. C_RERUN: handed by the parent to a fresh worker after a stall. */
enum { C_TODO = 0, C_CLAIMED = 1, C_DONE = 2, C_PARENT = 3, C_FAILED = 4, C_RERUN = 5 };

typedef struct shared_hdr {
    atomic_int_fast64_t next; /* next chunk index to claim */
    int64_t n_chunks, k_slots, cap;
} shared_hdr;

typedef struct shm_view {
    shared_hdr *h;
    atomic_int *state;   /* [n_chunks] */
    atomic_int *pid;     /* [n_chunks] worker pid that claimed it */
    atomic_llong *stamp; /* [n_chunks] CLOCK_MONOTONIC ns of its worker's last progress on it */
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
    size_t o_stamp = o_pid + align64((size_t)n_chunks * sizeof(atomic_int));
    size_t o_owner = o_stamp + align64((size_t)n_chunks * sizeof(atomic_llong));
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
    v->stamp = (atomic_llong *)(b + o_stamp);
    v->turn = (atomic_llong *)(b + o_owner);
    v->slots = (unsigned char *)(b + o_slots);
    atomic_init(&v->h->next, 0);
    v->h->n_chunks = n_chunks;
    v->h->k_slots = k;
    v->h->cap = cap;
    for (int64_t c = 0; c < n_chunks; c++) {
        atomic_init(&v->state[c], C_TODO);
        atomic_init(&v->pid[c], 0);
        atomic_init(&v->stamp[c], 0);
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

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Test hooks (not an API), read once in the parent before it forks; unset or malformed: off.
 * MMSIM_TEST_KILL_WORKER="W:N": worker W kills itself with SIGKILL, holding a claimed chunk, after
 * finishing N >= 1 chunks, so that tests can prove that a lost chunk is rerun (tests/test_sweep.c
 * sweep::killed_worker_chunk_is_rerun). MMSIM_TEST_STALL_WORKER="W:N[,W:N...]": worker W stops
 * itself (SIGSTOP), holding a claimed chunk, after finishing N >= 0 chunks, so that tests can prove
 * that a stall is recovered (tests/test_sweep_limits.c). Workers are numbered 0 .. workers - 1,
 * then each fresh worker that replaces a stalled one takes the next number. */
enum { HOOKS_MAX = 4 };
typedef struct test_hooks {
    long kill_worker, kill_after; /* kill_after = 0: off */
    int n_stall;
    long stall_worker[HOOKS_MAX], stall_after[HOOKS_MAX];
} test_hooks;

/* "W:N" at *s (advancing it), N >= min: 0, or -1 when malformed. */
static int hook_pair(const char **s, long min, long *w, long *n)
{
    char *end;
    if (**s < '0' || **s > '9') return -1;
    *w = strtol(*s, &end, 10);
    if (*end != ':' || end[1] < '0' || end[1] > '9') return -1;
    *n = strtol(end + 1, &end, 10);
    if (*n < min) return -1;
    *s = end;
    return 0;
}

static test_hooks hooks_get(void)
{
    test_hooks h = {0};
    const char *s = getenv("MMSIM_TEST_KILL_WORKER");
    long w, n;
    if (s && hook_pair(&s, 1, &w, &n) == 0 && !*s) h.kill_worker = w, h.kill_after = n;
    s = getenv("MMSIM_TEST_STALL_WORKER");
    while (s && h.n_stall < HOOKS_MAX && hook_pair(&s, 0, &w, &n) == 0) {
        h.stall_worker[h.n_stall] = w;
        h.stall_after[h.n_stall++] = n;
        if (*s != ',') break;
        s++;
    }
    return h;
}

/* Worker `index`, holding a claimed chunk after finishing `finished`: what the hooks do to it. */
static void hooks_fire(const test_hooks *h, long index, int64_t finished)
{
    if (h->kill_after > 0 && index == h->kill_worker && finished >= h->kill_after)
        raise(SIGKILL); /* die holding a claimed chunk */
    for (int i = 0; i < h->n_stall; i++)
        if (index == h->stall_worker[i] && finished == h->stall_after[i])
            raise(SIGSTOP); /* stop holding it, until the parent kills us */
}

/* A worker: first (>= 0) is a chunk the parent handed it after a stall (state C_RERUN); then it
 * claims chunks from the counter until there are none. Never returns. */
static void worker_main(mm__run *r, shm_view *v, long index, const test_hooks *hooks, int64_t first)
{
    int64_t cap = v->h->cap;
    mm_params *p = malloc((size_t)cap * sizeof *p);
    unsigned char *m = malloc((size_t)cap * r->rec_bytes);
    if (!p || !m) _exit(3);
    int64_t finished = 0;
    int me = (int)getpid();
    for (;;) {
        int64_t c = first;
        int held = C_RERUN;
        if (c >= 0) {
            first = -1;
            atomic_store(&v->pid[c], me);
        } else {
            /* A stop (this process got the terminal's SIGINT too, through the parent's handler):
             * claim nothing more; the parent journals what is done. */
            if (mm__run_cancelled(r)) break;
            c = atomic_fetch_add(&v->h->next, 1);
            if (c >= v->h->n_chunks) break;
            /* Only if unset: a fresh worker the parent handed c to keeps its pid there. */
            int none = 0;
            atomic_compare_exchange_strong(&v->pid[c], &none, me);
            int expect = C_TODO;
            if (!atomic_compare_exchange_strong(&v->state[c], &expect, C_CLAIMED))
                continue; /* the parent took it */
            held = C_CLAIMED;
        }
        atomic_store(&v->stamp[c], now_ns());
        hooks_fire(hooks, index, finished);
        mm_error e = {0};
        if (mm__run_compute(r, &r->chunks[c], p, m, &e)) {
            atomic_store(&v->state[c], C_FAILED);
            continue;
        }
        atomic_store(&v->stamp[c], now_ns());
        /* Wait for this chunk's turn at its ring slot: the parent hands slot c mod K to chunk c
         * once chunk c - K is journaled. (Handing a free slot to whichever chunk comes first would
         * deadlock: a late chunk could take the slot the parent is waiting for.) */
        int64_t s = c % v->h->k_slots;
        while (atomic_load(&v->turn[s]) != c)
            nap();
        memcpy(v->slots + (size_t)(s * cap) * v->rec, m, (size_t)r->chunks[c].count * v->rec);
        /* Fails when the parent handed the chunk to a fresh worker meanwhile (the bytes written are
         * the same). */
        int expect = held;
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

/* The parent's view of its workers: pids[0 .. n) (0: reaped), of which `alive` are not reaped;
 * fresh workers are appended. */
typedef struct crew {
    pid_t *pids;
    int n, cap, alive;
    pid_t parent;
    const test_hooks *hooks;
} crew;

/* Fork a worker numbered `index` (its first chunk `first`, or -1) and add it to the crew. */
static int crew_fork(crew *cw, mm__run *r, shm_view *v, long index, int64_t first, mm_error *err)
{
    if (cw->n == cw->cap) {
        int nc = cw->cap ? 2 * cw->cap : 8;
        pid_t *np = realloc(cw->pids, (size_t)nc * sizeof *np);
        if (!np) return mm__errf(err, -ENOMEM, "out of memory");
        cw->pids = np;
        cw->cap = nc;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return mm__errf(err, -errno, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* Die with the parent: SIGKILL when it exits, however it exits. If it died before the
         * line above ran, we were already reparented: getppid() tells. (The death signal follows
         * the thread that forked; the engine forks from the thread that calls mm_sweep_run.) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != cw->parent) _exit(4);
        /* The journal's lock belongs to the open file, which fork shares: a worker keeping its
         * copy would hold the lock after the parent died, until it exits itself. Only the parent
         * holds it. */
        close(r->j.fd);
        worker_main(r, v, index, cw->hooks, first);
    }
    cw->pids[cw->n++] = pid;
    cw->alive++;
    return 0;
}

/* Kill worker pid (ours) and reap it: at once for a stopped or running process; one stuck in the
 * kernel (a hung file system) dies when it leaves it, and is reaped then by reap_one. */
static void crew_kill(crew *cw, pid_t pid)
{
    for (int w = 0; w < cw->n; w++) {
        if (cw->pids[w] != pid) continue;
        kill(pid, SIGKILL);
        for (int tries = 0; tries < 1000; tries++) {
            int wst;
            pid_t got = waitpid(pid, &wst, WNOHANG);
            if (got == pid || (got < 0 && errno == ECHILD)) {
                cw->pids[w] = 0;
                cw->alive--;
                return;
            }
            nap_ns(1000000);
        }
        return;
    }
}

/* The chunk the parent waits for made no progress for stall_s: kill its worker (if it has one) and
 * hand the chunk to a fresh worker, once. *stalled[c] remembers the first time. Returns 0 (also
 * when the chunk finished meanwhile) or -ETIMEDOUT on a second stall of chunk c. */
static int on_stall(mm__run *r, shm_view *v, crew *cw, int64_t c, unsigned char *stalled,
                    long *next_index, mm_error *err)
{
    const mm__chunk *ch = &r->chunks[c];
    if (stalled[c])
        return mm__errf(
            err, -ETIMEDOUT,
            "chunk %lld (combinations %lld to %lld) stalled twice: its worker, then a "
            "fresh one, finished nothing in %g s; raise mm_sweep_opts.stall_s if a chunk "
            "takes longer, or find what stops the workers",
            (long long)c, (long long)ch->first, (long long)(ch->first + ch->count - 1),
            r->o->stall_s);
    int st = atomic_load(&v->state[c]);
    if (st != C_TODO && st != C_CLAIMED) return 0;
    int owner = atomic_load(&v->pid[c]);
    if (!atomic_compare_exchange_strong(&v->state[c], &st, C_RERUN)) return 0; /* it moved on */
    stalled[c] = 1;
    r->stalls++;
    /* A chunk left C_TODO with no owner was never claimed (every worker is stopped elsewhere) or
     * its claimer stopped before it wrote its pid: nobody to kill. */
    if (owner > 0) crew_kill(cw, owner);
    return crew_fork(cw, r, v, (*next_index)++, c, err);
}

static int run_process(mm__run *r, int workers, mm_error *err)
{
    int64_t k = (int64_t)workers * 4, cap = r->o->chunk;
    shm_view v = {0};
    int rc = shm_setup(&v, r->n_chunks, k, cap, r->rec_bytes);
    if (rc) return mm__errf(err, rc, "shared results segment: %s", strerror(-rc));
    const test_hooks hooks = hooks_get();
    crew cw = {NULL, 0, 0, 0, getpid(), &hooks};
    unsigned char **redo = calloc((size_t)(r->n_chunks > 0 ? r->n_chunks : 1), sizeof *redo);
    unsigned char *stalled = calloc((size_t)(r->n_chunks > 0 ? r->n_chunks : 1), 1);
    mm_params *pp = malloc((size_t)cap * sizeof *pp);
    if (!redo || !stalled || !pp) {
        rc = mm__errf(err, -ENOMEM, "out of memory");
        goto out;
    }
    long next_index = workers; /* the number of the next fresh worker */
    for (int w = 0; w < workers && rc == 0; w++)
        rc = crew_fork(&cw, r, &v, w, -1, err);
    const long long stall_ns = (long long)(r->o->stall_s * 1e9);
    int stopping = 0;
    for (int64_t c = 0; c < r->n_chunks && rc == 0; c++) {
        if (!stopping && mm__run_cancelled(r)) {
            /* Stop the workers at once; chunks already in the ring (C_DONE) are still journaled
             * below. */
            stopping = 1;
            for (int w = 0; w < cw.n; w++)
                if (cw.pids[w] > 0) kill(cw.pids[w], SIGKILL);
        }
        long long waited_from = now_ns(); /* when the parent began to wait for chunk c */
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
            pid_t dead = reap_one(cw.pids, cw.n, &wst);
            if (dead) {
                cw.alive--;
                int crashed = dead > 0 && !(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
                int64_t claimed = atomic_load(&v.h->next);
                if (claimed > r->n_chunks) claimed = r->n_chunks;
                for (int64_t d = c; d < claimed && crashed && rc == 0; d++) {
                    int s2 = atomic_load(&v.state[d]);
                    int owner = atomic_load(&v.pid[d]);
                    int mine = ((s2 == C_CLAIMED || s2 == C_RERUN) && owner == (int)dead) ||
                               (s2 == C_TODO && (owner == (int)dead || owner == 0));
                    if (!mine) continue;
                    int expect = s2;
                    if (!atomic_compare_exchange_strong(&v.state[d], &expect, C_PARENT)) continue;
                    if ((rc = parent_compute(r, d, pp, redo, err)) == 0) r->rerun++;
                }
                continue;
            }
            if (cw.alive == 0 && atomic_load(&v.state[c]) != C_DONE) {
                /* Everyone is gone (killed): the parent finishes the chunk itself. */
                int expect = atomic_load(&v.state[c]);
                if (expect == C_DONE || expect == C_PARENT) break;
                if (!atomic_compare_exchange_strong(&v.state[c], &expect, C_PARENT)) continue;
                if ((rc = parent_compute(r, c, pp, redo, err)) == 0) r->rerun++;
                break;
            }
            /* A stall: no progress on chunk c for stall_s, counted from when the parent began to
             * wait for it (a computed chunk may have waited for its ring slot before). */
            long long t = now_ns(), since = atomic_load(&v.stamp[c]);
            if (since < waited_from) since = waited_from;
            if (stall_ns > 0 && t - since > stall_ns) {
                if ((rc = on_stall(r, &v, &cw, c, stalled, &next_index, err))) break;
                waited_from = now_ns();
                continue;
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
    /* Stop and reap the workers. Once every chunk is journaled they have nothing left to do, and a
     * stopped one would never exit by itself; on an error or a stop they may still be running. */
    for (int w = 0; w < cw.n; w++)
        if (cw.pids[w] > 0) kill(cw.pids[w], SIGKILL);
    for (int w = 0; w < cw.n; w++) {
        int wst;
        while (cw.pids[w] > 0 && waitpid(cw.pids[w], &wst, 0) < 0 && errno == EINTR) {
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
    free(stalled);
    free(cw.pids);
    free(pp);
    munmap(v.base, v.bytes);
    return rc;
}

const mm__engine mm__engine_process = {"process", MM__ENGINE_FORKS, run_process, 4};
