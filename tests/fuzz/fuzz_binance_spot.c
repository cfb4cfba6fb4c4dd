/* Fuzz target for the Binance spot path of the importer (docs/import-binance.md), through the
 * public API mm_import_binance_files. Input: byte 0 holds option bits (1 skip_bad, 2 skip_gaps, 4
 * --market spot, else detected from the messages, 8 no_snapshot); the rest is a capture ("<receive
 * ns> <JSON>" lines, plain or gzip), cut into up to 4 consecutive files at each line
 * "--next-file--". Each file reaches the importer as a memfd path. Checked: a failure is one line
 * starting with the path of one of the files; a success is a tape that passes mm_ticks_validate,
 * whose report counts every file, and, when the market was forced, says "spot". Seeds:
 * fixtures/fuzz/binance_spot/ (the spot capture of tests/import/test_import_binance.c, whole,
 * forced, split into two days, the second day alone, and gzip). */
#include "fuzz_mem_file.h"

#include <errno.h>

#include "mmsim/import.h"
#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES_MAX 4
static const char SEP[] = "--next-file--\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20)) return 0;
    unsigned bits = data[0];
    data++, size--;
    char paths[FILES_MAX][64];
    const char *files[FILES_MAX];
    int fds[FILES_MAX], n = 0;
    size_t at = 0;
    while (n < FILES_MAX) {
        /* The next separator that starts a line (or the input). */
        size_t end = size, next = size;
        for (size_t i = at; i + sizeof SEP - 1 <= size; i++)
            if ((i == at || data[i - 1] == '\n') && !memcmp(data + i, SEP, sizeof SEP - 1)) {
                end = i;
                next = i + sizeof SEP - 1;
                break;
            }
        if (n == FILES_MAX - 1) end = next = size;
        fds[n] = mm_fuzz_mem_file(data + at, end - at, paths[n], sizeof paths[n]);
        files[n] = paths[n];
        n++;
        if (next >= size) break;
        at = next;
    }
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.01";
    o.lot = "0.00001";
    o.skip_bad = bits & 1;
    o.skip_gaps = (bits >> 1) & 1;
    o.market = bits & 4 ? "spot" : NULL;
    o.no_snapshot = (bits >> 3) & 1;
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    int rc = mm_import_binance_files(files, n, &o, &t, &rep, &e);
    if (rc) {
        int named = 0;
        for (int i = 0; i < n; i++)
            named |= !strncmp(e.msg, paths[i], strlen(paths[i]));
        if (!e.msg[0] || strchr(e.msg, '\n') || (!named && rc != -ENOMEM)) {
            fprintf(stderr, "fuzz_binance_spot: bad error message (rc %d): '%s'\n", rc, e.msg);
            abort();
        }
    } else {
        mm_error v = {0};
        if (mm_ticks_validate(&t, "fuzz", &v)) {
            fprintf(stderr, "fuzz_binance_spot: an import returned an invalid tape: %s\n", v.msg);
            abort();
        }
        if (rep.files != n || ((bits & 4) && strcmp(rep.market, "spot"))) {
            fprintf(stderr, "fuzz_binance_spot: report says %d files (of %d), market '%s'\n",
                    rep.files, n, rep.market);
            abort();
        }
        mm_ticks_free(&t);
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    return 0;
}
