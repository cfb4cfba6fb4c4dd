/* Counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11; the generator of cuRAND and
 * numpy).
 *
 * A draw is a pure function of (key, counter): key = 64-bit seed, counter = 128 bits the caller
 * lays out (for instance event index, combination id, path, purpose). No state is carried, so any
 * engine (serial, threads, processes, GPU) reproduces the same numbers for the same coordinates, in
 * any order. Verified against the Random123 known-answer vectors in tests/test_rng.c. */
#ifndef MM_RNG_H
#define MM_RNG_H

#include <stdint.h>

#include "mm_hd.h"

typedef struct mm_u32x4 {
    uint32_t v[4];
} mm_u32x4;

MM_HD uint32_t mm__mulhilo32(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Philox4x32 with 10 rounds. ctr: 4 x 32-bit counter words; key: 2 x 32-bit key words. */
MM_HD mm_u32x4 mm_philox4x32_10(mm_u32x4 ctr, uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = mm__mulhilo32(0xD2511F53u, ctr.v[0], &hi0);
        uint32_t lo1 = mm__mulhilo32(0xCD9E8D57u, ctr.v[2], &hi1);
        mm_u32x4 n;
        n.v[0] = hi1 ^ ctr.v[1] ^ k0;
        n.v[1] = lo1;
        n.v[2] = hi0 ^ ctr.v[3] ^ k1;
        n.v[3] = lo0;
        ctr = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return ctr;
}

/* Convenience: 4 draws for a 64-bit seed and counter words (a, b, c, d). */
MM_HD mm_u32x4 mm_rng4(uint64_t seed, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    mm_u32x4 ctr = {{a, b, c, d}};
    return mm_philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Uniform double in (0, 1) from two 32-bit words: (k + 0.5) / 2^52 with k the top 52 bits. Exact
 * (k + 0.5 needs at most 53 significant bits), never 0 and never 1. */
MM_HD double mm_u01(uint32_t hi, uint32_t lo)
{
    uint64_t k = ((uint64_t)hi << 20) | (lo >> 12);
    return ((double)k + 0.5) * (1.0 / 4503599627370496.0);
}

/* Threshold for an event of probability p in [0, 1] compared against a uniform 32-bit word:
 * the event happens when word < mm_prob32(p). Exact: floor(p * 2^32), saturated. */
MM_HD uint64_t mm_prob32(double p)
{
    if (!(p > 0)) return 0;
    if (p >= 1) return (uint64_t)1 << 32;
    return (uint64_t)(p * 4294967296.0);
}

/* ---- The Monte Carlo model's random streams (docs/montecarlo.md) ----
 *
 * Every draw of the model belongs to one (combination id, path) under the run's master seed and
 * has a purpose and a position, so it is the same whatever engine, worker, chunk, resume or device
 * computes it. The stream key of (seed, id, path) is the first two words of Philox4x32-10 with key
 * `seed` of the counter (id low 32 bits, id high 32 bits, path, MM_RNG_KEY_TAG); a draw is
 * Philox4x32-10 with that key of the counter (a low 32 bits, a high 32 bits, b, purpose). */
#define MM_RNG_KEY_TAG 0x4D435354u /* "MCST" */
enum mm_rng_purpose {
    MM_RNG_ENTRY = 1,    /* order-entry latency: a = orders + cancels the state sent before */
    MM_RNG_RESPONSE = 2, /* response latency: a = the state's message number (responses and fill
                            reports, from 0) */
    MM_RNG_JOIN = 3,     /* queue position on joining a level: a = event index, b = side */
    MM_RNG_CANCELS = 4,  /* cancels ahead of us: a = event index, b = side */
    MM_RNG_HIDDEN = 5,   /* a trade at our price reaching us: a = event index, b = side */
    MM_RNG_DAY = 6,      /* a synthetic day's seed: stream (seed, id = the tape's index, path),
                            a = b = 0 */
    MM_RNG_AS_MID = 16,  /* Avellaneda-Stoikov market: the mid's step, a = step index */
    MM_RNG_AS_FILL = 17  /* Avellaneda-Stoikov market: the fills, a = step index */
};

/* A draw that needs more than the four words of one block (a rejection sampler) takes its block j
 * (j = 0, 1, ...) at the purpose word purpose + 256 j: block 0 is the draw's ordinary block, and
 * the purposes above stay below 256, so no two draws share a block. */
#define MM_RNG_BLOCK(purpose, j) ((uint32_t)(purpose) + ((uint32_t)(j) << 8))

MM_HD uint64_t mm_stream_key(uint64_t seed, int64_t id, int32_t path)
{
    mm_u32x4 r = mm_rng4(seed, (uint32_t)(uint64_t)id, (uint32_t)((uint64_t)id >> 32),
                         (uint32_t)path, MM_RNG_KEY_TAG);
    return (uint64_t)r.v[0] | (uint64_t)r.v[1] << 32;
}

MM_HD mm_u32x4 mm_stream4(uint64_t key, uint32_t purpose, uint64_t a, uint32_t b)
{
    return mm_rng4(key, (uint32_t)a, (uint32_t)(a >> 32), b, purpose);
}

#endif
