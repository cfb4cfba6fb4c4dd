/* The parameter grid's internals shared inside src/sweep (grid.c defines them; sweep_run.c uses
 * them). */
#ifndef MM_GRID_INT_H
#define MM_GRID_INT_H

#include "mmsim/sweep.h"

/* Check every combination's parameters with mm_params_check (mm_sweep_run does, before anything
 * runs): 0, or the first invalid combination's error, naming its axis values ("grid: combination
 * spread=2 inv_limit=1: ..."). */
int mm__grid_check_combos(const mm_grid *g, mm_error *err);

#endif
