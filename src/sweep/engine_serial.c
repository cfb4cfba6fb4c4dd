/* The serial engine: chunks one after the other in this process, each emitted and fsync'd as it
 * finishes (mm_engine.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_engine.h"

static int run_serial(mm__run *r, int workers, mm_error *err)
{
    (void)workers;
    int64_t cap = r->o->chunk;
    mm_params *p = malloc((size_t)cap * sizeof *p);
    unsigned char *m = malloc((size_t)cap * r->rec_bytes);
    int rc = p && m ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t c = 0; c < r->n_chunks && rc == 0; c++) {
        if (mm__run_cancelled(r)) {
            rc = MM_EINTERRUPTED;
            break;
        }
        rc = mm__run_compute(r, &r->chunks[c], p, m, err);
        if (rc == 0) rc = mm__run_emit(r, &r->chunks[c], m, err);
        if (rc == 0 && (rc = mm__journal_sync(&r->j)))
            mm__errf(err, rc, "%s: fsync: %s", r->jpath, strerror(-rc));
    }
    free(p);
    free(m);
    return rc;
}

const mm__engine mm__engine_serial = {"serial", MM__ENGINE_ONE_WORKER | MM__ENGINE_BIG_CHUNKS,
                                      run_serial, 0};
