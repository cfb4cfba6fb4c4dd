/* The Avellaneda-Stoikov market's paths, fast (asmarket_lanes.c): mm__as_path's results bit for
 * bit. A path's uniforms (three per step, docs/montecarlo.md 4) and the logarithms of the two fill
 * uniforms are computed 64 steps at a time, the Philox rounds and mm_det_log of many steps in the
 * lanes of vectors (baseline SSE2, AVX2 or AVX-512; the same bits on each), then the steps run one
 * after the other with mm_as_step_fast's fill decisions (mm__as_step_uf, fast = 1). */
#ifndef MM_ASMARKET_LANES_H
#define MM_ASMARKET_LANES_H

#include "mm_asmarket.h"

/* mm__as_path on the best instruction set of this CPU (mm__batch_isa_best). */
void mm__as_path_lanes(const mm__as_derived *d, uint64_t key, mm_as_path_result *out);
/* The same on a given instruction set (MM_ISA_* of mm_accel.h): 0 or -ENODEV. */
int mm__as_path_lanes_isa(int isa, const mm__as_derived *d, uint64_t key, mm_as_path_result *out);

#endif
