/* The CUDA engine's per-thread work (docs/perf-gpu.md), written once for the host compiler and nvcc
 * (MM_HD): one slot (a combination on a path) through events [i0, i1) of a tape view, building
 * each event from the view (mm__event), skipping it where the batched CPU engine's skip test says
 * the state cannot change (mm__can_skip on the guards, kept in registers; only the PnL samples are
 * taken, mm__sample) and stepping it otherwise (mm_step_c). A slot's state after [i0, i1) is bit
 * for bit what mm_step_c gives on every event, so tiles of events can be run one after the other
 * (the kernel's launches) and the CPU can drive this function exactly as a GPU thread does
 * (mm__thread_emulate, sim_thread.c). */
#ifndef MM_THREAD_H
#define MM_THREAD_H

#include <stdint.h>

#include "mm_skip.h"
#include "mm_step.h"

MM_HD void mm__thread_advance(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t i0,
                              int64_t i1)
{
    const uint8_t kind = mm__guard_kind(d);
    int64_t lo, hi, land;
    double flo = MM_BAND_EMPTY_LO, fhi = MM_BAND_EMPTY_HI; /* kind 3: no step seen yet */
    mm__guard_of(st, &lo, &hi, &land);
    if (kind == MM_KIND_TIME) land = INT64_MIN; /* no step seen yet: the first event steps */
    for (int64_t i = i0; i < i1; i++) {
        mm_event ev;
        mm__event(v, i, &ev);
        mm__gate gt;
        mm__gate_of(&ev, &gt);
        if (mm__can_skip(kind, lo, hi, land, flo, fhi, &gt) &&
            (d->book == MM_BOOK_L1 || !mm__depth_touch(st, &ev))) {
            if (ev.n_samples) mm__sample(st, &ev, d); /* what the step would have changed */
            continue;
        }
        mm_step_c(st, &ev, d, (mm_trace_sink *)0);
        mm__guard_of(st, &lo, &hi, &land);
        if (kind == MM_KIND_TIME && (i + 1 >= i1 || land > v->ts_ns[i + 1])) {
            /* (Not computed when the next event steps anyway.) */
            int64_t u = mm__tv_until(st, d, &ev, v->t_end);
            if (u < land) land = u;
        }
        if (kind == MM_KIND_BAND) {
            /* Not needed when the next event steps anyway (an order sent here lands there). */
            if (i + 1 < i1 && land <= v->ts_ns[i + 1]) {
                flo = MM_BAND_EMPTY_LO;
                fhi = MM_BAND_EMPTY_HI;
            } else {
                mm__band_of(st, d, &ev, &flo, &fhi);
            }
        }
    }
}

#endif
