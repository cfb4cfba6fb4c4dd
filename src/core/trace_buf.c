/* mm_trace_collect (mmsim/sim.h): a run's trace records into a growing array. */
#include <stdlib.h>
#include <string.h>

#include "mmsim/sim.h"

void mm_trace_collect(const mm_trace_rec *r, void *user)
{
    mm_trace_buf *b = user;
    if (b->oom) return; /* a gap would be worse than a short trace: nothing after a failure */
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 1024;
        mm_trace_rec *p =
            (size_t)cap <= SIZE_MAX / sizeof *p ? realloc(b->rec, (size_t)cap * sizeof *p) : NULL;
        if (!p) {
            b->oom = 1;
            return;
        }
        b->rec = p;
        b->cap = cap;
    }
    b->rec[b->n++] = *r;
}

void mm_trace_buf_free(mm_trace_buf *b)
{
    free(b->rec);
    memset(b, 0, sizeof *b);
}
