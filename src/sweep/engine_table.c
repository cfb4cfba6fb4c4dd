/* The engine table (mm_engine.h) by enum mm_engine value, the engines' names, and the stop flag
 * every engine polls. */
#include <stdatomic.h>
#include <string.h>

#include "mm_engine.h"
#include "mmsim/sweep.h"

/* The engines, by enum mm_engine value. */
static const mm__engine *const engines[] = {
    [MM_ENGINE_PROCESS] = &mm__engine_process, [MM_ENGINE_THREADS] = &mm__engine_threads,
    [MM_ENGINE_SERIAL] = &mm__engine_serial,   [MM_ENGINE_MPI] = &mm__engine_mpi,
    [MM_ENGINE_CUDA] = &mm__engine_cuda,
};
#define N_ENGINES ((int)(sizeof engines / sizeof engines[0]))

const mm__engine *mm__engine_get(int e)
{
    return e >= 0 && e < N_ENGINES ? engines[e] : NULL;
}

const char *mm_sweep_engine_name(int engine)
{
    const mm__engine *en = mm__engine_get(engine);
    return en ? en->name : NULL;
}

int mm_sweep_engine_parse(const char *name)
{
    for (int e = 0; name && e < N_ENGINES; e++)
        if (!strcmp(engines[e]->name, name)) return e;
    return -1;
}

int mm__run_cancelled(const mm__run *r)
{
    return r->o->cancel && atomic_load_explicit(r->o->cancel, memory_order_relaxed) != 0;
}
