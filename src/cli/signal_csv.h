/* The points of `mmsim signal --csv` (docs/formats.md "Signal"): ts_ns,value lines, an optional
 * header line, sorted by time, values finite. A parser of outside input, with its fuzz target
 * (tests/fuzz/fuzz_signal_csv.c). */
#ifndef MM_SIGNAL_CSV_H
#define MM_SIGNAL_CSV_H

#include <stdint.h>
#include <stdio.h>

typedef struct signal_points {
    int64_t n, cap;
    int64_t *ts; /* ns, non-decreasing */
    double *v;   /* finite */
} signal_points;

/* Read every line of f (named `name` in messages) into p (zeroed by the caller; its arrays freed
 * with signal_points_free, also after a failure). Returns 0, or -1 with msg (cap bytes) holding
 * "NAME:LINE: what" (or "NAME: what" for the file as a whole). */
int signal_csv_read(FILE *f, const char *name, signal_points *p, char *msg, size_t cap);
void signal_points_free(signal_points *p);

#endif
