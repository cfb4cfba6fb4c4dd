/* Fuzz target for the CSV points of `mmsim signal` (docs/formats.md "Signal";
 * src/cli/signal_csv.c). Input: the file. Checked: a failure is one line starting with the file's
 * name, and no points are kept that break the contract; on success at least one point, times
 * non-decreasing, values finite, and the as-of rule (mm_signal_asof) takes them. Seeds:
 * fixtures/fuzz/signal_csv/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"
#include "signal_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1 << 20)) return 0;
    FILE *f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1, "r");
    if (!f) return 0;
    if (!size) fgetc(f); /* an empty file: at its end at once */
    signal_points p = {0};
    char msg[512] = "";
    int rc = signal_csv_read(f, "p.csv", &p, msg, sizeof msg);
    fclose(f);
    if (rc) {
        if (strncmp(msg, "p.csv", 5) != 0 || strchr(msg, '\n')) {
            fprintf(stderr, "fuzz_signal_csv: the message is not one line naming the file: %s\n",
                    msg);
            abort();
        }
    } else {
        if (p.n < 1) abort();
        for (int64_t k = 0; k < p.n; k++)
            if (!isfinite(p.v[k]) || (k > 0 && p.ts[k] < p.ts[k - 1])) abort();
        /* The as-of rule takes them: rows at each point's time get its value (the last of a time).
         */
        double *out = malloc((size_t)p.n * sizeof *out);
        mm_error e = {0};
        if (!out || mm_signal_asof(p.ts, p.n, p.ts, p.v, p.n, out, &e)) abort();
        for (int64_t k = 0; k < p.n; k++)
            if (k + 1 == p.n || p.ts[k + 1] != p.ts[k])
                if (out[k] != p.v[k]) abort();
        free(out);
    }
    signal_points_free(&p);
    return 0;
}
