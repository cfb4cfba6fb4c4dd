/* mm__run_compute (mm_engine.h): the computation every CPU engine runs on a chunk. It turns the
 * chunk's combination ids into parameters and hands ids, parameters and the path range to the
 * batched kernel (src/core/sim_batch.c). */
#include "mm_engine.h"

int mm__run_compute(const mm__run *r, const mm__chunk *c, mm_params *params, mm_metrics *m,
                    mm_error *err)
{
    for (int32_t k = 0; k < c->count; k++)
        mm_grid_combo(r->g, c->first + k, &params[k], NULL);
    /* One path (path 0) per combination: the replay model is deterministic. The Monte Carlo model
     * will pass its path range here. */
    return mm__sim_batch_tape(&r->tapes[c->tape], &r->sim, params, c->count, c->first, 0, 1, m,
                              err);
}
