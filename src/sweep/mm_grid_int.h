/* The parameter grid's layout (include/mmsim/sweep.h declares mm_grid opaque): for grid.c and the
 * sweep (sweep_run.c reads the axes to describe the run, check it and write the results' /axes).
 * Everything outside src/sweep uses the accessors of sweep.h. */
#ifndef MM_GRID_INT_H
#define MM_GRID_INT_H

#include <stdint.h>

#include "mmsim/sweep.h"

/* Longest key (mm_params keys and "tape"), terminating NUL included. */
#define MM__GRID_KEY_MAX 32

typedef struct mm__grid_axis {
    char key[MM__GRID_KEY_MAX];
    int32_t kind; /* MM_KEY_INT, MM_KEY_REAL, MM_KEY_ENUM (tape axis: MM_KEY_ENUM) */
    int32_t n;
    char **text; /* n values as text: what mm_params_set receives (tape: "path#symbol") */
    double *num; /* n values as numbers (enums: their index; tape: its position) */
    mm_params
        *parsed;    /* n parameter sets with this axis's field set to each value (not the tape) */
    int32_t key_ix; /* index of the key (mm__params_key_index; not the tape) */
} mm__grid_axis;

struct mm_grid {
    int32_t n_axes, cap_axes;
    mm__grid_axis *axes; /* [n_axes] in id order: axes[0] is the tape axis */
    int64_t n_combos;    /* product of the axis sizes (0 with no axis) */
    mm_params base;      /* values of the keys that are not axes */
};

/* Check every combination's parameters with mm_params_check (mm_sweep_run does, before anything
 * runs): 0, or the first invalid combination's error, naming its axis values ("grid: combination
 * spread=2 inv_limit=1: ..."). -ENOMEM when out of memory. */
int mm__grid_check_combos(const mm_grid *g, const mm_sim_config *cfg, mm_error *err);

/* What the grid's combinations ask of tape t (loaded, before anything runs): book = l2 a depth
 * stream (mm__params_tape_check), and with the cuda engine (cuda = 1) no combination that the
 * tape's depth stream would make l2 (book = l2, or auto on a tape with depth: the device has no
 * depth stream yet); signal_skew other than 0 a signal column, and not with the cuda engine (the
 * device has no signal column). 0, or MM_EUSAGE naming the key and the tape. */
int mm__grid_check_tape(const mm_grid *g, const mm_ticks *t, int cuda, mm_error *err);

/* 1 when some combination of g draws random numbers (a Monte Carlo run's paths can differ). */
int mm__grid_draws(const mm_grid *g);

#endif
