/* The engine "mpi" in a build without MPI (meson -Dmpi=disabled, or no MPI library found): the
 * name stays known, and a run computes every chunk in this process, as one rank would
 * (engine_mpi.c). mm_sweep_mpi_init says MPI is missing. */
#include <errno.h>
#include <stddef.h>

#include "mm_engine.h"

int mm_sweep_mpi_init(int *rank, int *size, mm_error *err)
{
    if (rank) *rank = 0;
    if (size) *size = 1;
    return mm__errf(err, -ENOSYS, "MPI: this build of mmsim has no MPI (meson -Dmpi=enabled)");
}

void mm_sweep_mpi_finalize(int code)
{
    (void)code;
}

int mm__mpi_begin(mm__run *r, mm_error *err)
{
    (void)r;
    (void)err;
    return 0;
}

int mm__mpi_load(mm__run *r, const char *path, const char *symbol, int flags, mm_ticks *out,
                 mm_error *err)
{
    (void)r;
    return mm_ticks_load(path, symbol, flags & ~MM_LOAD_SHM, out, err);
}

int mm__mpi_workers(const mm__run *r)
{
    (void)r;
    return 1;
}

void mm__mpi_end(mm__run *r)
{
    (void)r;
}

static int run_one(mm__run *r, int workers, mm_error *err)
{
    (void)workers;
    int threads = r->o->workers > 0 ? r->o->workers : 1;
    return threads > 1 ? mm__engine_threads.run(r, threads, err) : mm__engine_serial.run(r, 1, err);
}

/* No ranks in this binary (engine_mpi.c: 1); src/cli/main.c reads it. */
const int mm__mpi_ranks_linked = 0;

const mm__engine mm__engine_mpi = {
    "mpi", MM__ENGINE_NO_FORK | MM__ENGINE_ONE_WORKER | MM__ENGINE_RANKS, run_one, 4};
