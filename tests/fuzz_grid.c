/* Fuzz target for the sweep grid and parameter parsers (outside input: --grid/--set flags, INI
 * values). Input: lines "key=spec" (axis) or "key:value" (fixed value). Any input must give 0 or a
 * usage error with a one-line message naming something, never a crash, a leak or undefined
 * behaviour; the grid must stay consistent (n_combos = product of the axis sizes, every combination
 * valid to fetch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "mmsim/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    mm_grid *g = NULL;
    if (mm_grid_new(&g, NULL)) abort();
    const char *tapes[1] = {"fuzz.h5#X"};
    mm_error e = {0};
    if (mm_grid_set_tapes(g, tapes, 1, &e)) abort();
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '='), *colon = strchr(line, ':');
        int rc;
        memset(&e, 0, sizeof e);
        if (eq && (!colon || eq < colon)) {
            *eq = 0;
            /* Keep each run cheap: ranges of more than 10,000 values are legal (up to 1e6) but slow
             * under the sanitizers; the axis-size limit itself is tested in test_sweep. */
            double lo, hi, step;
            if (sscanf(eq + 1, "%lf:%lf:%lf", &lo, &hi, &step) == 3 && step > 0 &&
                (hi - lo) / step > 10000)
                continue;
            rc = mm_grid_add_axis(g, line, eq + 1, &e);
        } else if (colon) {
            *colon = 0;
            rc = mm_grid_set(g, line, colon + 1, &e);
        } else {
            continue;
        }
        if (rc && (!e.msg[0] || strchr(e.msg, '\n')))
            abort(); /* every error is one non-empty line */
        if (mm_grid_combo_count(g) > 100000) break;
    }
    int64_t prod = 1;
    int32_t na = mm_grid_axis_count(g);
    if (na < 1 || na > mm_params_key_count() + 1)
        abort(); /* the tape, then each key at most once */
    for (int32_t m = 0; m < na; m++) {
        int32_t n = mm_grid_axis_size(g, m);
        if (n < 1 || !mm_grid_axis_key(g, m) || mm_grid_axis_kind(g, m) < 0 ||
            !mm_grid_axis_text(g, m, n - 1) || mm_grid_axis_text(g, m, n))
            abort();
        prod *= n;
    }
    if (prod != mm_grid_combo_count(g)) abort();
    mm_params p;
    int32_t *idx = malloc(sizeof *idx * (size_t)na);
    if (!idx) abort();
    for (int64_t id = 0; id < mm_grid_combo_count(g); id += 1 + mm_grid_combo_count(g) / 64) {
        if (mm_grid_combo(g, id, &p, idx)) abort();
        for (int32_t m = 0; m < na; m++)
            if (idx[m] < 0 || idx[m] >= mm_grid_axis_size(g, m)) abort();
    }
    free(idx);
    mm_grid_free(g);
    free(text);
    return 0;
}
