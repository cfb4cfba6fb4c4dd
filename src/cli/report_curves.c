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
#include "report.h"
#include "sweep_config.h"

void rep_topcurves_free(rep_topcurve *tc, int64_t n)
{
    for (int64_t i = 0; tc && i < n; i++)
        rep_curve_free(&tc[i].c);
    free(tc);
}

/* The recorded run: [params] into *base, [run] sample_ns and year_seconds into *cfg. */
static int recorded_config(const mm_results_info *in, mm_params *base, mm_sim_config *cfg)
{
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    mm_params_defaults(base);
    mm_sim_config_defaults(cfg);
    memcpy(cfg->markout_ns, in->meta.markout_ns, sizeof cfg->markout_ns);
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    int rc = cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration");
    if (rc) {
        cli_err("report: --curves: the results file's configuration cannot be read: %s", sc.err);
        goto out;
    }
    mm_error e = {0};
    for (int i = 0; i < sc.n_sets && !rc; i++)
        if ((rc = mm_params_set(base, sc.sets[i].key, sc.sets[i].val, &e)))
            cli_err("report: --curves: the results file's configuration: %s", e.msg);
    if (!rc && sc.sample_ns) {
        if (!cli_is_decimal(sc.sample_ns, 1) ||
            (cfg->sample_ns = strtoll(sc.sample_ns, NULL, 10)) < 1)
            rc = -1;
    }
    if (!rc && sc.year_s) {
        if (!cli_is_decimal(sc.year_s, 0) || !((cfg->year_s = strtod(sc.year_s, NULL)) >= 0))
            rc = -1;
    }
    if (rc == -1)
        cli_err("report: --curves: the results file's configuration has a bad [run] sample_ns or "
                "year_seconds");
out:
    cli_sweep_config_free(&sc);
    return rc ? -1 : 0;
}

/* The input of tape axis value k: its index in meta.inputs (the one whose "path#symbol" is the
 * axis value), or -1. */
static int32_t input_of(const mm_results_info *in, int32_t tape_axis, int32_t k)
{
    char want[1024], have[1024];
    mm_results_axis_format(&in->axes[tape_axis], k, want, sizeof want);
    for (int32_t i = 0; i < in->meta.n_inputs; i++) {
        snprintf(have, sizeof have, "%s#%s", in->meta.input_paths[i],
                 in->meta.input_symbols[i] ? in->meta.input_symbols[i] : "");
        if (!strcmp(want, have)) return i;
    }
    return -1;
}

/* Load input i: its recorded path, or when that is relative and absent, the same path beside the
 * results file; the fingerprint must be the recorded one. */
static int load_input(const mm_results_info *in, const char *results_path, int32_t i, mm_ticks *t)
{
    const char *p = in->meta.input_paths[i], *sym = in->meta.input_symbols[i];
    char alt[4096];
    struct stat st;
    const char *slash = strrchr(results_path, '/');
    if (p[0] != '/' && stat(p, &st) != 0 && slash) {
        snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - results_path), results_path, p);
        if (stat(alt, &st) == 0) p = alt;
    }
    mm_error e = {0};
    if (mm_ticks_load(p, sym && sym[0] ? sym : NULL, 0, t, &e)) {
        cli_err("report: --curves: tape %s: %s", p, e.msg[0] ? e.msg : mm_strerror(e.code));
        return -1;
    }
    if (t->inst.fingerprint != in->meta.input_fingerprints[i]) {
        cli_err("report: --curves: tape %s#%s: fingerprint %016" PRIx64 ", the sweep ran on "
                "%016" PRIx64 " (the file changed)",
                p, t->inst.symbol, t->inst.fingerprint, in->meta.input_fingerprints[i]);
        mm_ticks_free(t);
        return -1;
    }
    return 0;
}

/* The first metric column whose rerun value differs from the stored one (NaN equals NaN), or -1. */
static int first_difference(const mm_metrics *a, const mm_metrics *b)
{
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        double fa = 0, fb = 0;
        int64_t ia = 0, ib = 0;
        mm_results_metric_value(a, i, &fa, &ia);
        mm_results_metric_value(b, i, &fb, &ib);
        if (ia != ib || (fa != fb && !(isnan(fa) && isnan(fb)))) return i;
    }
    return -1;
}

int rep_topcurves_run(const mm_results_info *in, const char *results_path, const int64_t *ids,
                      const int32_t *idx, const mm_metrics *stored, int64_t n, int32_t buckets,
                      rep_topcurve **out)
{
    *out = NULL;
    int32_t tape_axis = mm_results_axis_find(in, "tape");
    mm_params base;
    mm_sim_config cfg;
    if (recorded_config(in, &base, &cfg)) return -1;
    rep_topcurve *tc = calloc((size_t)(n > 0 ? n : 1), sizeof *tc);
    if (!tc) {
        cli_err("report: --curves: out of memory");
        return -1;
    }
    mm_ticks t = {0};
    int32_t loaded = -1, rc = 0;
    for (int64_t r = 0; r < n && !rc; r++) {
        const int32_t *ri = &idx[(size_t)r * (size_t)in->n_axes];
        rep_topcurve *c = &tc[r];
        c->id = ids[r];
        c->p = base;
        mm_error e = {0};
        for (int32_t a = 0; a < in->n_axes && !rc; a++) {
            char v[256];
            if (a == tape_axis) continue;
            mm_results_axis_format(&in->axes[a], ri[a], v, sizeof v);
            if (mm_params_set(&c->p, in->axes[a].key, v, &e)) {
                cli_err("report: --curves: row %" PRId64 ": %s", ids[r], e.msg);
                rc = -1;
            }
        }
        int32_t i = tape_axis >= 0 ? input_of(in, tape_axis, ri[tape_axis]) : -1;
        if (!rc && i < 0) {
            cli_err("report: --curves: row %" PRId64 ": its tape is not among the recorded inputs",
                    ids[r]);
            rc = -1;
        }
        if (!rc && i != loaded) {
            mm_ticks_free(&t);
            loaded = -1;
            if (load_input(in, results_path, i, &t))
                rc = -1;
            else
                loaded = i;
        }
        if (rc) break;
        snprintf(c->tape, sizeof c->tape, "%s#%s", in->meta.input_paths[i], t.inst.symbol);
        if (rep_curve_init(&c->c, &t, buckets)) {
            cli_err("report: --curves: out of memory");
            rc = -1;
            break;
        }
        if (mm_sim_run_c(&t, &cfg, &c->p, &c->m, rep_curve_on_trace, &c->c, &e)) {
            cli_err("report: --curves: row %" PRId64 ": %s", ids[r],
                    e.msg[0] ? e.msg : mm_strerror(e.code));
            rc = -1;
            break;
        }
        rep_curve_finish(&c->c);
        c->differs = first_difference(&c->m, &stored[r]);
    }
    mm_ticks_free(&t);
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
