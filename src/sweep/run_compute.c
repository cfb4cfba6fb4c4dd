/* mm__run_compute (mm_engine.h): the computation every CPU engine runs on a chunk. It turns the
 * chunk's combination ids into parameters and hands ids, parameters and the path range to the
 * batched kernel (src/core/accel/sim_batch.c); with more than one path it reduces each
 * combination's paths to its summary (mm_results_summarize) and, when the paths are kept, appends
 * them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_blocks.h"
#include "mm_engine.h"
#include "mmsim/results.h"

int mm__run_compute(const mm__run *r, const mm__chunk *c, mm_params *params, void *out,
                    mm_error *err)
{
    for (int32_t k = 0; k < c->count; k++)
        mm_grid_combo(r->g, c->first + k, &params[k], NULL);
    if (r->n_blocks > 0)
        return mm__blocks_compute(r, c, params, out, err); /* (paths 1, no synthetic) */
    int syn = r->o->synthetic && r->o->synthetic[c->tape];
    if (r->paths == 1)
        return syn ? mm__synthetic_compute(r, c, params, out, err)
                   : mm__run_batch(r, &r->tapes[c->tape], &r->sim, params, c->count, c->first, 0, 1,
                                   out, err);
    /* Every path of every combination of the chunk in one batch (the chunk size keeps count x
     * paths bounded: sweep_run.c), then one summary per combination. */
    int64_t np = r->paths;
    mm_metrics *m = malloc((size_t)c->count * (size_t)np * sizeof *m);
    double *scratch = malloc((size_t)np * sizeof *scratch);
    int rc = m && scratch ? 0 : mm__errf(err, -ENOMEM, "out of memory (%lld paths)", (long long)np);
    if (rc == 0)
        rc = syn ? mm__synthetic_compute(r, c, params, m, err)
                 : mm__run_batch(r, &r->tapes[c->tape], &r->sim, params, c->count, c->first, 0,
                                 (int32_t)np, m, err);
    for (int32_t k = 0; rc == 0 && k < c->count; k++) {
        unsigned char *rec = (unsigned char *)out + (size_t)k * r->rec_bytes;
        double s[MM_RESULTS_SUMMARY_METRICS];
        mm_results_summarize(m + (size_t)k * (size_t)np, np, s, scratch);
        memcpy(rec, s, sizeof s);
        if (r->keep_paths)
            memcpy(rec + sizeof s, m + (size_t)k * (size_t)np, (size_t)np * sizeof *m);
    }
    free(scratch);
    free(m);
    return rc;
}
