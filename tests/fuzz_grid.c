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
    mm_grid g;
    mm_grid_init(&g);
    const char *tapes[1] = {"fuzz.h5#X"};
    mm_error e = {0};
    if (mm_grid_set_tapes(&g, tapes, 1, &e)) abort();
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
            rc = mm_grid_add_axis(&g, line, eq + 1, &e);
        } else if (colon) {
            *colon = 0;
            rc = mm_grid_set(&g, line, colon + 1, &e);
        } else {
            continue;
        }
        if (rc && (!e.msg[0] || strchr(e.msg, '\n')))
            abort(); /* every error is one non-empty line */
        if (g.n_combos > 100000) break;
    }
    int64_t prod = 1;
    for (int32_t m = 0; m < g.n_axes; m++)
        prod *= g.axes[m].n;
    if (prod != g.n_combos) abort();
    mm_params p;
    int32_t idx[MM_GRID_AXES_MAX];
    for (int64_t id = 0; id < g.n_combos; id += 1 + g.n_combos / 64)
        if (mm_grid_combo(&g, id, &p, idx)) abort();
    mm_grid_free(&g);
    free(text);
    return 0;
}
