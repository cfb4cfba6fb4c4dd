/* Replays the grid fuzz target (fuzz_grid.c) over seeded mutations of valid grid specs: byte flips,
 * insertions, deletions and truncations. A Meson test, run under ASan/UBSan in CI.
 * Then replays every stored input (fixtures/fuzz/grid/ and its regress/, docs/fuzzing.md).
 * Usage: fuzz_grid_replay [iterations] [seed] [DIR_OR_FILE...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const SEEDS[] = {
    "spread=1:20:1\ninv_limit=1,2,5,10,20\n",
    "queue=risk-averse,power,log\nqueue_n:2\nlatency_ns=0:1000000:250000\n",
    "strategy=fixed,as,glft\nas_horizon=0,30\nglft_Q:5\nmaker_fee_bps=-2,0,1.5\n",
    "fair=mid,micro\nrequote=1:3:1\npost_only:0\nspread=0.5:2.5:0.5\n",
};

static uint64_t state;
static uint32_t rnd(void)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(state >> 33);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1500;
    state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    static const char alphabet[] = "0123456789:=,.-\n abcdefgilmnopqrstuvwxyz_";
    int runs = 0;
    for (size_t s = 0; s < sizeof SEEDS / sizeof SEEDS[0]; s++) {
        LLVMFuzzerTestOneInput((const uint8_t *)SEEDS[s], strlen(SEEDS[s]));
        for (int i = 0; i < iters; i++) {
            char buf[512];
            size_t n = strlen(SEEDS[s]);
            memcpy(buf, SEEDS[s], n);
            int muts = 1 + (int)(rnd() % 4);
            for (int m = 0; m < muts; m++) {
                uint32_t op = rnd() % 4, pos = n ? rnd() % (uint32_t)n : 0;
                char ch = alphabet[rnd() % (sizeof alphabet - 1)];
                if (op == 0 && n)
                    buf[pos] = ch;
                else if (op == 1 && n + 1 < sizeof buf) {
                    memmove(buf + pos + 1, buf + pos, n - pos);
                    buf[pos] = ch;
                    n++;
                } else if (op == 2 && n) {
                    memmove(buf + pos, buf + pos + 1, n - pos - 1);
                    n--;
                } else if (op == 3) {
                    n = pos;
                }
            }
            LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
            runs++;
        }
    }
    long stored = 0;
    int bad = 0;
    for (int i = 3; i < argc; i++)
        bad |= mm_fuzz_replay_path(argv[i], &stored);
    printf("fuzz_grid_replay: %d mutated grids and %ld stored inputs, no crash, every error one "
           "line\n",
           runs, stored);
    return bad;
}
