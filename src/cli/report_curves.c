/* mmsim report --curves N: the day of each of the best N rows, rerun from what the results file
 * records. A row's parameters are the recorded configuration's [params] with the row's axis values
 * on top; its tape is the input named by its tape axis value, which must still have the
 * fingerprint the sweep recorded; the run settings are the configuration's [run] sample_ns and
 * year_seconds and the file's markout horizons. The rerun's metrics are compared with the stored
 * row, so the page says whether the curve is the run the table describes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "recorded.h"
#include "report.h"

void rep_topcurves_free(rep_topcurve *tc, int64_t n)
{
    for (int64_t i = 0; tc && i < n; i++)
        rep_curve_free(&tc[i].c);
    free(tc);
}

int rep_topcurves_run(const mm_results_info *in, const char *results_path, const int64_t *ids,
                      const int32_t *idx, const mm_metrics *stored, int64_t n, int32_t buckets,
                      rep_topcurve **out)
{
    const char *C = "report: --curves";
    *out = NULL;
    cli_recorded rec;
    if (cli_recorded_open(C, in, results_path, NULL, &rec)) return -1;
    rep_topcurve *tc = calloc((size_t)(n > 0 ? n : 1), sizeof *tc);
    if (!tc) {
        cli_err("%s: out of memory", C);
        cli_recorded_free(&rec);
        return -1;
    }
    mm_ticks t = {0};
    int32_t loaded = -1, rc = 0;
    for (int64_t r = 0; r < n && !rc; r++) {
        const int32_t *ri = &idx[(size_t)r * (size_t)in->n_axes];
        rep_topcurve *c = &tc[r];
        c->id = ids[r];
        int32_t i;
        if (cli_recorded_row(C, &rec, in, ids[r], ri, &c->p, &i)) {
            rc = -1;
            break;
        }
        if (i != loaded || cli_recorded_is_synthetic(&rec, in, i)) {
            mm_ticks_free(&t);
            loaded = -1;
            if (cli_recorded_load(C, &rec, in, results_path, i, 0, &c->p, &t)) {
                rc = -1;
                break;
            }
            loaded = i;
        }
        snprintf(c->tape, sizeof c->tape, "%s#%s", in->meta.input_paths[i], t.inst.symbol);
        if (rep_curve_init(&c->c, &t, buckets)) {
            cli_err("%s: out of memory", C);
            rc = -1;
            break;
        }
        mm_error e = {0};
        if (mm_sim_run_c(&t, &rec.cfg, &c->p, &c->m, rep_curve_on_trace, &c->c, &e)) {
            cli_err("%s: row %" PRId64 ": %s", C, ids[r], e.msg[0] ? e.msg : mm_strerror(e.code));
            rc = -1;
            break;
        }
        rep_curve_finish(&c->c);
        c->differs = cli_recorded_differs(&c->m, &stored[r]);
    }
    mm_ticks_free(&t);
    cli_recorded_free(&rec);
    if (rc) {
        rep_topcurves_free(tc, n);
        return -1;
    }
    *out = tc;
    return 0;
}

void rep_topcurves_section(rep_out *o, const mm_results_info *in, const rep_topcurve *tc, int64_t n,
                           const char *metric)
{
    rep_printf(o, "<h2>Curves of the top %" PRId64 " by %s</h2>\n", n, metric);
    rep_printf(o, "<p class=\"note\">Each row rerun with the reference engine from the recorded "
                  "configuration, its axis values and its tape (same fingerprint).</p>\n");
    for (int64_t r = 0; r < n; r++) {
        const rep_topcurve *c = &tc[r];
        rep_printf(o, "<h3>#%" PRId64 ": id %" PRId64 ", ", r + 1, c->id);
        rep_esc(o, c->tape);
        rep_printf(o, "</h3>\n");
        if (c->differs >= 0) {
            char name[64];
            mm_results_metric(c->differs, in->meta.markout_ns, name, sizeof name);
            rep_printf(o,
                       "<p><b>The rerun differs from the stored row</b> (first in %s): the tape "
                       "is the same, so mmsim's model changed since the sweep.</p>\n",
                       name);
        } else {
            rep_printf(o, "<p class=\"note\">The rerun's metrics equal the stored row's.</p>\n");
        }
        rep_curve_summary(o, &c->c, &c->p, &c->m);
        rep_curve_svg(o, &c->c);
    }
}
