/* mm__run_batch (mm_engine.h): slots of a tape through the batched kernel, or through the engine's
 * own advance function (the CUDA engine's host loop). Used by mm__run_compute (run_compute.c) and
 * by the synthetic markets' days (synthetic.c). */
#include "mm_engine.h"

int mm__run_batch(const mm__run *r, const mm__tape *tp, const mm_sim_config *sim,
                  const mm_params *p, int64_t n, int64_t first, int32_t path0, int32_t n_paths,
                  mm_metrics *out, mm_error *err)
{
    if (r->advance)
        return mm__sim_slots_tape(tp, sim, p, n, first, path0, n_paths, out, INT64_C(1) << 20,
                                  r->advance, r->advance_user, err);
    return mm__sim_batch_tape(tp, sim, p, n, first, path0, n_paths, out, err);
}
