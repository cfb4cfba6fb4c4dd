/* Fuzz target for the importers (LOBSTER pair, Binance capture, generic CSV), libFuzzer style.
 *
 * The first input byte picks the format; the rest is the file content (for LOBSTER, the message
 * file and the orderbook file separated by the first 0x00 byte). Inputs are handed to the importers
 * through memfd files. Every call must either succeed with a valid tape (its depth stream
 * included: the validation replays it) or fail with a one-line message that starts with the file's
 * path; anything else aborts. The last byte's bits pick skip_bad (bit 0) and the depth levels kept
 * (bits 1-2).
 *
 * With clang: meson builds `fuzz_import` (-fsanitize=fuzzer,address) next to this file; run
 *   build/tests/import/fuzz_import -max_total_time=60
 * With any compiler, `fuzz_import_replay` (fuzz_import_replay.c, a Meson test) feeds it seeded
 * mutations of the hand-written fixtures, so the target is exercised on every test run (and under
 * ASan in CI). */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../fuzz/fuzz_mem_file.h"
#include "mmsim/import.h"
#include "mmsim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int rc, const mm_ticks *t, const mm_error *e, const char *path)
{
    if (rc == 0) {
        mm_error v = {0};
        if (mm_ticks_validate(t, "fuzz", &v)) {
            fprintf(stderr, "fuzz_import: an import returned an invalid tape: %s\n", v.msg);
            abort();
        }
        return;
    }
    if (!e->msg[0] || strchr(e->msg, '\n') || (strncmp(e->msg, path, strlen(path)) && rc != -12)) {
        fprintf(stderr, "fuzz_import: bad error message for %s (rc %d): '%s'\n", path, rc, e->msg);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    /* A first byte of 250 or more picks the latency files (series: even, samples: odd). */
    int kind = data[0] >= 250 ? 3 + (data[0] & 1) : data[0] % 3;
    data++, size--;
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.skip_bad = size > 0 && (data[size - 1] & 1);
    /* The depth stream (LOBSTER, Binance): bits 1-2 of the last byte pick the levels kept: the
     * format's default, 1, 2 or none. */
    static const int depth_levels[4] = {-1, 1, 2, 0};
    o.depth_levels = depth_levels[size > 0 ? (data[size - 1] >> 1) & 3 : 0];
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    char p1[64], p2[64];
    int rc, fd1, fd2 = -1;
    if (kind == 0) {
        const uint8_t *sep = memchr(data, 0, size);
        size_t n1 = sep ? (size_t)(sep - data) : size;
        fd1 = mm_fuzz_mem_file(data, n1, p1, sizeof p1);
        fd2 = sep ? mm_fuzz_mem_file(sep + 1, size - n1 - 1, p2, sizeof p2)
                  : mm_fuzz_mem_file(data, 0, p2, sizeof p2);
        o.date = "2012-06-21";
        rc = mm_import_lobster(p1, p2, &o, &t, &rep, &e);
        /* errors name either file */
        if (rc && !strncmp(e.msg, p2, strlen(p2)))
            check(rc, &t, &e, p2);
        else
            check(rc, &t, &e, p1);
    } else if (kind == 1) {
        fd1 = mm_fuzz_mem_file(data, size, p1, sizeof p1);
        o.tick = "0.1";
        o.lot = "0.001";
        o.skip_gaps = o.skip_bad;
        rc = mm_import_binance(p1, &o, &t, &rep, &e);
        check(rc, &t, &e, p1);
    } else if (kind >= 3) {
        fd1 = mm_fuzz_mem_file(data, size, p1, sizeof p1);
        mm_latency_series ls;
        mm_latency_samples sm;
        rc =
            kind == 3 ? mm_latency_read_csv(p1, &ls, &e) : mm_latency_samples_read_csv(p1, &sm, &e);
        if (rc == 0 && kind == 3) {
            for (int64_t i = 1; i < ls.n; i++)
                if (ls.ts_ns[i] <= ls.ts_ns[i - 1]) abort(); /* the reader's promise */
            mm_latency_free(&ls);
        } else if (rc == 0) {
            mm_latency_samples_free(&sm);
        }
        if (rc) check(rc, NULL, &e, p1);
        close(fd1);
        return 0;
    } else {
        fd1 = mm_fuzz_mem_file(data, size, p1, sizeof p1);
        o.tick = "0.01";
        o.lot = "1";
        o.csv_map = "ts=time,bid=bp,bid_sz=bq,ask=ap,ask_sz=aq,trade_px=px,trade_sz=qty,side=side";
        o.csv_time = "s";
        rc = mm_import_csv(p1, &o, &t, &rep, &e);
        if (rc != MM_EUSAGE) check(rc, &t, &e, p1);
    }
    if (rc == 0) mm_ticks_free(&t);
    close(fd1);
    if (fd2 >= 0) close(fd2);
    return 0;
}
