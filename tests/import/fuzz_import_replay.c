/* Runs the importer fuzz target (fuzz_import.c) over seeded mutations of small valid inputs of each
 * format: byte flips, insertions, deletions, truncations and line swaps. A Meson test (suite
 * mutations: the release build; the ASan pass of tools/test.sh skips it, and tools/fuzz.sh runs the
 * target under ASan + UBSan). Then replays every stored input (fixtures/fuzz/import/ and its
 * regress/, docs/fuzzing.md). Usage: fuzz_import_replay [iterations per seed] [seed]
 * [DIR_OR_FILE...] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char LOB[] =
    "\0"
    "34200.1,1,1,100,1000000,1\n34200.2,1,2,30,1000100,-1\n34200.3,4,1,40,1000000,1\n"
    "34200.4,5,0,10,1000050,-1\n34200.5,3,2,80,1000100,-1\n34200.6,7,0,0,-1,-1\n"
    "\0"
    "1000100,50,1000000,100\n1000100,80,1000000,100\n1000100,80,1000000,60\n"
    "1000100,80,1000000,60\n9999999999,0,1000000,60\n9999999999,0,1000000,60\n";
/* Two levels a side, order ids that join, cancel, trade and come from before the file (the depth
 * stream's rows of tests/import/test_import_depth.c). */
static const char LOB2[] =
    "\0"
    "34200.1,1,10,100,1000000,1\n34200.2,1,11,30,1000100,1\n34200.3,2,10,40,1000000,1\n"
    "34200.4,4,11,30,1000100,1\n34200.5,3,99,50,1000200,-1\n34200.6,5,0,5,1000250,-1\n"
    "34200.7,1,12,10,1000000,1\n34200.8,3,12,10,1000000,1\n"
    "\0"
    "1000200,50,1000000,100,1000300,70,999900,40\n1000200,50,1000100,30,1000300,70,1000000,100\n"
    "1000200,50,1000100,30,1000300,70,1000000,60\n1000200,50,1000000,60,1000300,70,999900,40\n"
    "1000300,70,1000000,60,1000400,20,999900,40\n1000300,70,1000000,60,1000400,20,999900,40\n"
    "1000300,70,1000000,70,1000400,20,999900,40\n1000300,70,1000000,60,1000400,20,999900,40\n";
static const char BIN[] = "\1"
                          "1000 "
                          "{\"lastUpdateId\":100,\"E\":1000,\"T\":1000,\"bids\":[[\"10.0\",\"1."
                          "000\"]],\"asks\":[[\"10.2\",\"2.000\"]]}\n"
                          "1001 "
                          "{\"stream\":\"t@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1001,"
                          "\"T\":1001,\"s\":\"TST\",\"U\":95,\"u\":105,"
                          "\"pu\":90,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[]}}\n"
                          "1002 "
                          "{\"stream\":\"t@bookTicker\",\"data\":{\"e\":\"bookTicker\",\"u\":105,"
                          "\"s\":\"TST\",\"b\":\"10.1\",\"B\":\"0.500\","
                          "\"a\":\"10.2\",\"A\":\"2.000\",\"T\":1001,\"E\":1001}}\n"
                          "999 "
                          "{\"stream\":\"t@trade\",\"data\":{\"e\":\"trade\",\"E\":1002,\"T\":1002,"
                          "\"s\":\"TST\",\"t\":1,\"p\":\"10.2\","
                          "\"q\":\"0.100\",\"X\":\"MARKET\",\"m\":false}}\n"
                          "1004 "
                          "{\"stream\":\"t@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1003,"
                          "\"T\":1003,\"s\":\"TST\",\"U\":106,\"u\":110,"
                          "\"pu\":105,\"b\":[],\"a\":[[\"10.2\",\"1.900\"],[\"10.3\",\"0\"]]}}\n";
static const char CSV[] =
    "\2"
    "time,bp,bq,ap,aq,px,qty,side\n1.000000001,100.01,5,100.03,7,,,\n1.5,,,,,100.03,2,B\n"
    "2,100.01,5,100.03,5,,,\n2,100.00,0,100.03,5,100.01,5,sell\n\"3\",100.01,5,100.02,1,,,\n";

static uint64_t s_rng;
static uint64_t rnd(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return s_rng;
}

static size_t mutate(uint8_t *b, size_t n, size_t cap)
{
    static const char interesting[] = ",.-0123456789\n\"{}[]: e\0\xff";
    int edits = 1 + (int)(rnd() % 4);
    for (int k = 0; k < edits && n > 1; k++) {
        size_t at = 1 + (size_t)(rnd() % (n - 1));
        switch (rnd() % 5) {
        case 0:
            b[at] = (uint8_t)interesting[rnd() % (sizeof interesting - 1)];
            break;
        case 1:
            b[at] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 2:
            memmove(b + at, b + at + 1, n - at - 1);
            n--;
            break;
        case 3:
            if (n < cap) {
                memmove(b + at + 1, b + at, n - at);
                b[at] = (uint8_t)interesting[rnd() % (sizeof interesting - 1)];
                n++;
            }
            break;
        default:
            n = at;
            break; /* truncate */
        }
    }
    return n;
}

/* The latency files (first byte 250: a series, 251: samples; fuzz_import.c). */
static const char LATS[] = "\xfats_ns,entry_ns,response_ns\n1000,200,300\n2000,100,50\n3000,0,7\n";
static const char LATM[] = "\xfbresponse_ns,entry_ns\n50,100\n70,300\n";

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 3000;
    s_rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9E3779B97F4A7C15ULL;
    const struct {
        const char *p;
        size_t n;
    } seeds[6] = {{LOB, sizeof LOB - 1}, {LOB2, sizeof LOB2 - 1}, {BIN, sizeof BIN - 1},
                  {CSV, sizeof CSV - 1}, {LATS, sizeof LATS - 1}, {LATM, sizeof LATM - 1}};
    static uint8_t buf[8192];
    long runs = 0;
    for (int s = 0; s < 6; s++) {
        /* the unmodified seed first: it must import */
        memcpy(buf, seeds[s].p, seeds[s].n);
        LLVMFuzzerTestOneInput(buf, seeds[s].n);
        for (long i = 0; i < iters; i++, runs++) {
            memcpy(buf, seeds[s].p, seeds[s].n);
            size_t n = mutate(buf, seeds[s].n, sizeof buf);
            LLVMFuzzerTestOneInput(buf, n);
        }
    }
    long stored = 0;
    int bad = 0;
    for (int i = 3; i < argc; i++)
        bad |= mm_fuzz_replay_path(argv[i], &stored);
    printf("fuzz_import_replay: %ld mutated inputs and %ld stored inputs, no crash, every error "
           "one line "
           "naming its file\n",
           runs, stored);
    return bad;
}
