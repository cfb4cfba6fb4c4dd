/* One hand-built run through every engine, for the scenario tests that include it (test_depthq,
 * test_walk, test_signal): the reference's metrics, its trace to on_trace (user), asserted equal
 * bit for bit to the batched engine's and to the emulated CUDA kernel's (mm__thread_emulate). */
#ifndef MM_TU_ENGINES_H
#define MM_TU_ENGINES_H

#include <criterion/criterion.h>
#include <string.h>

#include "mm_accel.h"
#include "mmsim/sim.h"

static inline mm_metrics tu_run_engines(const mm_ticks *t, const mm_params *p, mm_trace_fn on_trace,
                                        void *user)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m, b, g;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(t, &c, p, &m, on_trace, user, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_sim_run_batch(t, &c, p, 1, &b, &e), 0, "%s", e.msg);
    cr_assert(!memcmp(&m, &b, sizeof m), "the batched engine differs");
    mm__tape tp;
    cr_assert_eq(mm__tape_init(&tp, t, &c), 0);
    cr_assert_eq(mm__sim_slots_tape(&tp, &c, p, 1, 0, 0, 1, &g, 8, mm__thread_emulate, NULL, &e), 0,
                 "%s", e.msg);
    mm__tape_free(&tp);
    cr_assert(!memcmp(&m, &g, sizeof m), "the CUDA kernel's work differs");
    return m;
}

#endif
