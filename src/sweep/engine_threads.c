/* The threads engine: OpenMP threads take the chunks of a window (4 per thread) dynamically; the
 * window is then emitted in chunk order, up to its first chunk that did not finish, and fsync'd
 * (mm_engine.h). Built without OpenMP it computes the window in this thread alone. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_config.h"
#include "mm_engine.h"

#if MM_HAVE_OPENMP
#include <omp.h>
#endif

static int run_threads(mm__run *r, int workers, mm_error *err)
{
    int64_t window = (int64_t)workers * 4, cap = r->o->chunk;
    mm_params *p = malloc((size_t)(window * cap) * sizeof *p);
    unsigned char *m = malloc((size_t)(window * cap) * r->rec_bytes);
    int *rcs = calloc((size_t)window, sizeof *rcs);
    mm_error *errs = calloc((size_t)window, sizeof *errs);
    int rc = p && m && rcs && errs ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t w0 = 0; w0 < r->n_chunks && rc == 0; w0 += window) {
        if (mm__run_cancelled(r)) {
            rc = MM_EINTERRUPTED;
            break;
        }
        int64_t wn = r->n_chunks - w0 < window ? r->n_chunks - w0 : window;
#if MM_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(workers)
#endif
        for (int64_t k = 0; k < wn; k++) /* a stop skips the chunks not yet started */
            rcs[k] = mm__run_cancelled(r)
                         ? MM_EINTERRUPTED
                         : mm__run_compute(r, &r->chunks[w0 + k], p + k * cap,
                                           m + (size_t)(k * cap) * r->rec_bytes, &errs[k]);
        /* Journal the window in chunk order, up to the first chunk that did not finish. */
        for (int64_t k = 0; k < wn && rc == 0; k++) {
            if (rcs[k]) {
                if (rcs[k] != MM_EINTERRUPTED) *err = errs[k];
                rc = rcs[k];
            } else {
                rc = mm__run_emit(r, &r->chunks[w0 + k], m + (size_t)(k * cap) * r->rec_bytes, err);
            }
        }
        int src = mm__journal_sync(&r->j);
        if (src && (rc == 0 || rc == MM_EINTERRUPTED))
            rc = mm__errf(err, src, "%s: fsync: %s", r->jpath, strerror(-src));
    }
    free(p);
    free(m);
    free(rcs);
    free(errs);
    return rc;
}

#if MM_HAVE_OPENMP
const mm__engine mm__engine_threads = {"threads", 0, run_threads, 4};
#else
const mm__engine mm__engine_threads = {"threads", MM__ENGINE_ONE_WORKER, run_threads, 4};
#endif
