/* The MPI engine's use of MPI outside its protocol (engine_mpi.c): initialisation for a program
 * (mm_sweep_mpi_init, mm_sweep_mpi_finalize), the communicators of a run (mm__mpi_begin,
 * mm__mpi_end) and the tapes, read once per node (mm__mpi_load).
 *
 * The ranks of a node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED) share one copy of each tape: the
 * node's first rank loads it (checks and fingerprint included) and copies it into a named POSIX
 * shared-memory segment, which the others map read-only. The name is unlinked as soon as every
 * rank of the node has mapped it, so nothing is left in /dev/shm once the load is over; only a
 * crash during those few instructions could leave a /dev/shm/mmsim.mpi.PID.N behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm_engine.h"
#include "mm_internal.h"
#include "mm_shm.h"
#include "mpi_int.h"

int mm__mpi_fail(mm_error *err, int e, int peer, const char *what)
{
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(e, s, &len);
    if (peer >= 0) return mm__errf(err, -EIO, "rank %d: MPI %s: %s", peer, what, s);
    return mm__errf(err, -EIO, "MPI %s: %s", what, s);
}

int mm_sweep_mpi_init(int *rank, int *size, mm_error *err)
{
    int init = 0, provided = 0, e = MPI_SUCCESS;
    MPI_Initialized(&init);
    if (!init && (e = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided)) != MPI_SUCCESS)
        return mm__mpi_fail(err, e, -1, "init");
    if (rank) MPI_Comm_rank(MPI_COMM_WORLD, rank);
    if (size) MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void mm_sweep_mpi_finalize(int code)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin) return;
    if (code) MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Finalize();
}

int mm__mpi_begin(mm__run *r, mm_error *err)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin) return 0; /* not under MPI: this process does everything */
    mm__mpi_state *s = calloc(1, sizeof *s);
    if (!s) return mm__errf(err, -ENOMEM, "out of memory");
    s->comm = s->node = MPI_COMM_NULL;
    r->engine_state = s;
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    int e = MPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    if (e == MPI_SUCCESS) e = MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    if (e == MPI_SUCCESS)
        e = MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, s->rank, MPI_INFO_NULL, &s->node);
    if (e != MPI_SUCCESS) return mm__mpi_fail(err, e, -1, "communicators");
    MPI_Comm_rank(s->node, &s->node_rank);
    MPI_Comm_size(s->node, &s->node_size);
    r->worker = s->rank != 0;
    return 0;
}

int mm__mpi_workers(const mm__run *r)
{
    const mm__mpi_state *s = r->engine_state;
    return s && s->size > 1 ? s->size - 1 : 1;
}

void mm__mpi_end(mm__run *r)
{
    mm__mpi_state *s = r->engine_state;
    if (!s) return;
    if (s->node != MPI_COMM_NULL) MPI_Comm_free(&s->node);
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    free(s);
    r->engine_state = NULL;
}

/* ---- the tapes: once per node ---- */

/* What the node's first rank tells the others about a tape it loaded. */
typedef struct tape_msg {
    int32_t rc, pad;
    int64_t n;
    uint64_t bytes;
    mm_instrument inst;
    mm_depth depth; /* rows, levels and ids (its pointers are the first rank's: not used) */
    char name[64];  /* the shared segment */
    mm_error err;
    /* The signal's name ("": no signal column). */
    char signal_name[MM_SYMBOL_MAX];
} tape_msg;

int mm__mpi_load(mm__run *r, const char *path, const char *symbol, int flags, mm_ticks *out,
                 mm_error *err)
{
    mm__mpi_state *s = r->engine_state;
    flags &= ~MM_LOAD_SHM;
    if (!s || s->node_size == 1) return mm_ticks_load(path, symbol, flags, out, err);
    tape_msg *h = calloc(1, sizeof *h);
    if (!h) return mm__errf(err, -ENOMEM, "out of memory");
    void *base = NULL;
    if (s->node_rank == 0) {
        mm_ticks heap = {0};
        h->rc = mm_ticks_load(path, symbol, flags, &heap, &h->err);
        if (h->rc == 0) {
            int rc = 0;
            /* A named segment (the name stays until every rank has mapped it), its pages reserved.
             */
            base = mm__shm_create(heap.mem_bytes, "mpi.", 1, h->name, sizeof h->name, &rc);
            if (base) {
                memcpy(base, heap.mem_base, heap.mem_bytes);
                h->n = heap.n;
                h->depth = heap.depth; /* its pointers are rebound below */
                memcpy(h->signal_name, heap.signal_name, sizeof h->signal_name);
                h->bytes = heap.mem_bytes;
                h->inst = heap.inst;
                if (mprotect(base, heap.mem_bytes, PROT_READ) != 0) rc = -errno;
            }
            if (rc)
                h->rc = mm__errf(&h->err, rc, "%s: shared memory for the ranks of this node: %s",
                                 path, strerror(-rc));
            mm_ticks_free(&heap);
        }
    }
    int e = MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, s->node);
    int rc = e == MPI_SUCCESS ? h->rc : mm__mpi_fail(err, e, -1, "broadcast of a tape");
    if (e == MPI_SUCCESS && rc) *err = h->err;
    if (rc) {
        if (base) munmap(base, (size_t)h->bytes);
        if (base) shm_unlink(h->name);
        free(h);
        return rc;
    }
    if (s->node_rank != 0) {
        int fd = shm_open(h->name, O_RDONLY, 0);
        if (fd < 0) {
            rc = -errno;
        } else {
            base = mmap(NULL, (size_t)h->bytes, PROT_READ, MAP_SHARED, fd, 0);
            if (base == MAP_FAILED) {
                rc = -errno;
                base = NULL;
            }
            close(fd);
        }
    }
    /* Every rank of the node has mapped it (or failed): the name can go. */
    int all = rc;
    e = MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, s->node);
    if (s->node_rank == 0) shm_unlink(h->name);
    if (rc)
        mm__errf(err, rc, "%s: cannot map the tape shared by the ranks of this node: %s", path,
                 strerror(-rc));
    else if (e != MPI_SUCCESS)
        rc = mm__mpi_fail(err, e, -1, "reduction");
    else if (all)
        rc = mm__errf(err, all, "%s: another rank of this node cannot map the shared tape: %s",
                      path, strerror(-all));
    if (rc) {
        if (base) munmap(base, (size_t)h->bytes);
        free(h);
        return rc;
    }
    memset(out, 0, sizeof *out);
    out->inst = h->inst;
    out->depth.levels = h->depth.levels;
    out->depth.ids = h->depth.ids;
    snprintf(out->signal_name, sizeof out->signal_name, "%s", h->signal_name);
    mm__ticks_bind(out, base, h->n, h->depth.n, h->signal_name[0] != 0);
    out->mem_base = base;
    out->mem_bytes = (size_t)h->bytes;
    out->mem_kind = MM_MEM_SHM; /* mm_ticks_free unmaps it */
    free(h);
    return 0;
}
