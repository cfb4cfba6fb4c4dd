/* `mmsim run --trace`: the CSV trace of one run (docs/mmsim.1, "run"), written to a temporary file
 * beside the output and renamed when complete, so a failed run or write leaves nothing. */
#ifndef MM_RUN_TRACE_H
#define MM_RUN_TRACE_H

#include <stdio.h>

#include "mmsim/sim.h"
#include "mmsim/ticks.h"

typedef struct run_trace {
    FILE *f;
    char *tmp;               /* the temporary file: <path>.tmp.<pid> */
    const char *path;        /* the output */
    double tick, lot, money; /* of the instrument: prices and money in the CSV's units */
    int err;                 /* the first write error (errno), 0: none */
} run_trace;

/* Open the temporary file and write the header. 0, or -1 after one line naming the flag (C: the
 * command). */
int run_trace_open(run_trace *t, const char *C, const char *path, const mm_instrument *inst);
/* One record of the trace callback (mm_trace_fn): a CSV line; a write error is kept in t->err. */
void run_trace_rec(const mm_trace_rec *r, run_trace *t);
/* Flush and close; with `discard` (the run failed) or after a write error the temporary file is
 * removed, else renamed onto the output. 0, or the errno of the first failure (also in t->err).
 * Safe on a trace never opened. */
int run_trace_close(run_trace *t, int discard);

#endif
