/* The CUDA engine's per-thread work without a GPU (docs/perf-gpu.md, "Testable without a GPU"):
 * mm__thread_advance (src/core/accel/mm_thread.h, the function the kernel runs) driven by the CPU
 * in the kernel's order (mm__thread_emulate: tiles of events, blocks of threads) gives every metric
 * bit for bit equal to the batched CPU engine, on seeded random tapes and seeded random parameters
 * covering the strategies, queue rules, latencies, response channel and every randomness source. */
#include <criterion/criterion.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_rng.h"
#include "testutil.h"

TestSuite(thread, .fini = tu_cleanup);

/* Parameters from draw r (seeded: the same set every run). */
static mm_params random_params(uint64_t seed, int k)
{
    mm_params p;
    mm_params_defaults(&p);
    mm_u32x4 a = mm_rng4(seed, (uint32_t)k, 1, 0, 0), b = mm_rng4(seed, (uint32_t)k, 2, 0, 0);
    p.strategy = (int32_t)(a.v[0] % 3);
    p.spread_ticks = (double)(a.v[1] % 5);
    p.skew_ticks = (double)(a.v[2] % 3) * 0.25;
    p.fair_micro = (int32_t)(a.v[3] & 1);
    p.quote_size = 1 + (int32_t)(b.v[0] % 3);
    p.inv_limit = p.quote_size * (1 + (int32_t)(b.v[1] % 6));
    p.queue_rule = (int32_t)(b.v[2] % 3);
    p.post_only = (int32_t)((b.v[3] >> 1) & 1);
    p.cross_rule = (int32_t)((b.v[3] >> 2) & 1);
    p.fill_volume = (int32_t)((b.v[3] >> 3) & 1);
    p.trade_through_only = (b.v[3] >> 4) % 5 == 0;
    mm_u32x4 c = mm_rng4(seed, (uint32_t)k, 3, 0, 0);
    p.latency_ns = (int64_t)(c.v[0] % 4) * 300000;
    p.response_ns = (int64_t)(c.v[1] % 3) * 200000;
    p.feed_latency_ns = (int64_t)(c.v[2] % 2) * 100000;
    p.latency_dist = (int32_t)(c.v[3] % 3);
    p.latency_sigma = 0.5;
    mm_u32x4 e = mm_rng4(seed, (uint32_t)k, 4, 0, 0);
    p.queue_join = (int32_t)(e.v[0] & 1);
    p.trade_reach = (e.v[1] & 3) ? 1.0 : 0.6;
    p.cancel_draw = (int32_t)(e.v[2] & 1);
    p.max_orders_per_s = (e.v[3] & 7) == 0 ? 5 : 0;
    p.reject_backoff_ns = (e.v[3] & 8) ? 1000000 : 0;
    p.requote_ticks = 1 + (int32_t)((e.v[3] >> 4) % 2);
    p.stress_latency = (e.v[3] >> 8) % 4 == 0 ? 3 : 1;
    return p;
}

Test(thread, the_emulated_kernel_equals_the_batched_engine_bit_for_bit, .timeout = 240)
{
    enum { COMBOS = 48, PATHS = 3 };
    const int64_t tiles[] = {0, 1, 97, 1000};
    for (uint64_t seed = 1; seed <= 4; seed++) {
        mm_ticks t = {0};
        tu_small_tape(&t, 3000 + 500 * (int64_t)seed, (int)seed);
        mm_sim_config c;
        mm_sim_config_defaults(&c);
        c.seed = seed * 77;
        mm__tape tp;
        cr_assert_eq(mm__tape_init(&tp, &t, &c), 0);
        mm_params p[COMBOS];
        for (int k = 0; k < COMBOS; k++)
            p[k] = random_params(seed, k);
        mm_metrics ref[COMBOS * PATHS], got[COMBOS * PATHS];
        mm_error e = {0};
        cr_assert_eq(mm__sim_batch_tape(&tp, &c, p, COMBOS, 1000, 2, PATHS, ref, &e), 0, "%s",
                     e.msg);
        int64_t traded = 0;
        for (int s = 0; s < COMBOS * PATHS; s++)
            traded += ref[s].volume;
        cr_assert_gt(traded, 0, "seed %lu: nothing traded: a weak check", (unsigned long)seed);
        for (size_t ti = 0; ti < sizeof tiles / sizeof tiles[0]; ti++) {
            mm__emulation em = {tiles[ti], 32};
            memset(got, 0xa5, sizeof got);
            cr_assert_eq(mm__sim_slots_tape(&tp, &c, p, COMBOS, 1000, 2, PATHS, got, 50,
                                            mm__thread_emulate, &em, &e),
                         0, "%s", e.msg);
            for (int s = 0; s < COMBOS * PATHS; s++)
                cr_assert_eq(memcmp(&got[s], &ref[s], sizeof got[s]), 0,
                             "seed %lu, tile %ld: slot %d (combination %d, strategy %d) differs: "
                             "pnl %.17g vs %.17g",
                             (unsigned long)seed, (long)tiles[ti], s, s / PATHS,
                             p[s / PATHS].strategy, got[s].pnl, ref[s].pnl);
        }
        mm__tape_free(&tp);
        mm_ticks_free(&t);
    }
}
