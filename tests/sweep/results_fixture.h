/* A deterministic results table for the tests, the h5py check and the benchmark: five axes (tape,
 * spread, inv_limit, queue, rep) and metrics derived from the row id by a hash, with ties, a -0.0
 * and a NaN. */
#ifndef MM_RESULTS_FIXTURE_H
#define MM_RESULTS_FIXTURE_H

#include <stdint.h>

#include "mmsim/results.h"

#define RF_AXES 5

typedef struct rf_table {
    mm_results_axis axes[RF_AXES];
    int64_t n_rows; /* 120 x reps */
    int64_t markout_ns[MM_MARKOUTS];
    double spread[4];
    int64_t inv_limit[5];
    const char *queue[3];
    const char *tape[2];
    int64_t *rep;
    const char *input_paths[2], *input_symbols[2];
    uint64_t input_fps[2];
} rf_table;

/* n_rows = 120 x reps; axis order tape, spread, inv_limit, queue, rep (the last fastest). */
void rf_init(rf_table *t, int32_t reps);
void rf_free(rf_table *t);

/* Axis indices (RF_AXES) and metrics of row id. */
void rf_row(const rf_table *t, int64_t id, int32_t *axis_idx, mm_metrics *m);

/* Fixed provenance (objective "pnl" unless objective is given). */
void rf_meta(const rf_table *t, const char *objective, mm_results_meta *meta);

/* Write the whole table to path: rows in calls of `chunk` rows, in shuffled order when shuffle_seed
 * != 0. Returns 0 or the failing call's code (err filled). */
int rf_write(const char *path, const rf_table *t, int64_t chunk, uint64_t shuffle_seed,
             const char *objective, mm_error *err);

uint64_t rf_mix(uint64_t x);

#endif
