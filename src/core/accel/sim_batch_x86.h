/* What the x86-64 builds of the batched kernels share (included by sim_batch_avx2.c and
 * sim_batch_avx512.c, one instruction set each): the skip kernel's text (sim_batch_body.h) and the
 * lanes kernel's helpers below (the step out of line is sim_share.h's share_step_out).
 *
 * The lanes kernel is built for x86-64 with AVX2 (4 lanes of 64 bits) and AVX-512 (8 lanes) only:
 * without 64-bit lane compares its SSE2 build ran about 9x slower than the skip kernel, and the
 * engine never chose it. The vector types are defined per build in sim_lanes.h (GCC vector
 * extensions). A comparison gives -1 (true) or 0 per lane. A broadcast of a double is x - (+0.0),
 * which is x for every x (-0.0 included). MM_LANES_ANY(m) (defined per build): whether any lane of
 * a mask is set (one vptest). */
#ifndef MM_SIM_BATCH_X86_H
#define MM_SIM_BATCH_X86_H

#include <assert.h>
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_internal.h"

#include "sim_batch_kernel.h"

#define mm__vi_b(x) ((mm__vi){0} + (int64_t)(x))
#define mm__vd_b(x) ((double)(x) - (mm__vd){0})
#define mm__vi_sel(m, a, b) ((((mm__vi)(m)) & (a)) | (~((mm__vi)(m)) & (b)))
#define mm__vd_sel(m, a, b)                                                                        \
    ((mm__vd)((((mm__vi)(m)) & (mm__vi)(a)) | (~((mm__vi)(m)) & (mm__vi)(b))))
typedef long long mm__vll __attribute__((vector_size(32)));

/* The skip kernel's x86 builds defer their parked members' samples to the lanes kernel's settle
 * (sim_lanes_settle.h, defined further down each build's file, with sim_lanes.h). */
static void lanes_settle(const mm__guards *g, const mm_derived *d, mm_state *st, int32_t j,
                         int64_t through);
static void lanes_settle_all(const mm__guards *g, const mm_derived *d, mm_state *st, int64_t m,
                             int64_t through);
#define MM_SKIP_SETTLE lanes_settle
#define MM_SKIP_SETTLE_ALL lanes_settle_all

#endif
