/* A row of a results file run again from what the file records (recorded.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "mmsim/import.h"
#include "mmsim/sweep.h"
#include "recorded.h"
#include "sweep_config.h"

int cli_recorded_open(const char *C, const mm_results_info *in, const char *path, const char *data,
                      cli_recorded *r)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    cli_recorded_note(in, path, data);
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    mm_params_defaults(&r->base);
    mm_sim_config_defaults(&r->cfg);
    memcpy(r->cfg.markout_ns, in->meta.markout_ns, sizeof r->cfg.markout_ns);
    r->cfg.seed = in->meta.seed;
    r->tape_axis = mm_results_axis_find(in, "tape");
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    int rc = cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration");
    if (rc) {
        cli_err("%s: the results file's configuration cannot be read: %s", C, sc.err);
        goto out;
    }
    mm_error e = {0};
    for (int i = 0; i < sc.n_sets && !rc; i++)
        if ((rc = mm_params_set(&r->base, sc.sets[i].key, sc.sets[i].val, &e)))
            cli_err("%s: the results file's configuration: %s", C, e.msg);
    if (!rc && sc.sample_ns) {
        if (!cli_is_decimal(sc.sample_ns, 1) ||
            (r->cfg.sample_ns = strtoll(sc.sample_ns, NULL, 10)) < 1)
            rc = -1;
    }
    if (!rc && sc.year_s) {
        if (!cli_is_decimal(sc.year_s, 0) || !((r->cfg.year_s = strtod(sc.year_s, NULL)) >= 0))
            rc = -1;
    }
    if (rc == -1)
        cli_err("%s: the results file's configuration has a bad [run] sample_ns or year_seconds",
                C);
    if (!rc && sc.latency_samples) {
        char sp[4096];
        if (cli_recorded_side(C, in, path, data, "latency_samples", sc.latency_samples, sp,
                              sizeof sp)) {
            rc = -1;
        } else if (mm_latency_samples_read_csv(sp, &r->smp, &e)) {
            cli_err("%s: the recorded latency samples: %s", C, e.msg);
            rc = -1;
        } else {
            r->cfg.latency_samples = &r->smp;
        }
    }
    if (!rc && sc.n_synthetic) {
        r->syn = calloc((size_t)sc.n_synthetic, sizeof *r->syn);
        for (int k = 0; r->syn && k < sc.n_synthetic; k++)
            if ((r->syn[k] = strdup(sc.synthetic[k]))) r->n_syn++;
        if (r->n_syn < sc.n_synthetic) {
            cli_err("%s: out of memory", C);
            rc = -1;
        }
    }
    if (!rc && sc.latency_series) {
        char lp[4096];
        if (cli_recorded_side(C, in, path, data, "latency_series", sc.latency_series, lp,
                              sizeof lp)) {
            rc = -1;
        } else if (mm_latency_read_csv(lp, &r->lat, &e)) {
            cli_err("%s: the recorded latency series: %s", C, e.msg);
            rc = -1;
        } else {
            r->cfg.latency = &r->lat;
        }
    }
out:
    cli_sweep_config_free(&sc);
    if (rc) cli_recorded_free(r);
    return rc ? -1 : 0;
}

void cli_recorded_free(cli_recorded *r)
{
    mm_latency_free(&r->lat);
    mm_latency_samples_free(&r->smp);
    r->cfg.latency = NULL;
    r->cfg.latency_samples = NULL;
    for (int k = 0; k < r->n_syn; k++)
        free(r->syn[k]);
    if (r->has_day) mm_ticks_free(&r->day);
    r->has_day = 0;
    free(r->syn);
    r->syn = NULL;
    r->n_syn = 0;
}

int cli_recorded_is_synthetic(const cli_recorded *r, const mm_results_info *in, int32_t i)
{
    for (int k = 0; i >= 0 && i < in->meta.n_inputs && k < r->n_syn; k++)
        if (!strcmp(r->syn[k], in->meta.input_paths[i])) return 1;
    return 0;
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

int cli_recorded_row(const char *C, cli_recorded *r, const mm_results_info *in, int64_t id,
                     const int32_t *idx, mm_params *p, int32_t *input)
{
    *p = r->base;
    mm_error e = {0};
    for (int32_t a = 0; a < in->n_axes; a++) {
        char v[256];
        if (a == r->tape_axis) continue;
        mm_results_axis_format(&in->axes[a], idx[a], v, sizeof v);
        if (mm_params_set(p, in->axes[a].key, v, &e)) {
            cli_err("%s: row %" PRId64 ": %s", C, id, e.msg);
            return -1;
        }
    }
    *input = r->tape_axis >= 0 ? input_of(in, r->tape_axis, idx[r->tape_axis]) : -1;
    if (*input < 0) {
        cli_err("%s: row %" PRId64 ": its tape is not among the recorded inputs", C, id);
        return -1;
    }
    r->cfg.id = id;
    return 0;
}

int cli_recorded_load(const char *C, cli_recorded *r, const mm_results_info *in, const char *path,
                      int32_t i, int32_t pathno, const mm_params *prm, mm_ticks *t)
{
    char buf[4096];
    const char *p = cli_recorded_path(in->meta.input_paths[i], path, r->data, buf, sizeof buf);
    const char *sym = in->meta.input_symbols[i];
    mm_error e = {0};
    if (cli_recorded_is_synthetic(r, in, i)) {
        mm_gen_params market;
        if (cli_recorded_side(C, in, path, r->data, "synthetic", in->meta.input_paths[i], buf,
                              sizeof buf))
            return -1;
        p = buf;
        if (cli_gen_config(C, "synthetic market", p, &market)) return -1;
        if (mm_sweep_synthetic_day(&market, in->meta.seed, i, 0, 1, 1, t, &e)) {
            cli_err("%s: synthetic market %s: %s", C, p, e.msg);
            return -1;
        }
        uint64_t fp = t->inst.fingerprint;
        mm_ticks_free(t);
        if (fp != in->meta.input_fingerprints[i]) {
            cli_err("%s: synthetic market %s: its day 0 has fingerprint %016" PRIx64
                    ", the sweep's had %016" PRIx64 " (the market file changed)",
                    C, p, fp, in->meta.input_fingerprints[i]);
            return -1;
        }
        if (mm_sweep_synthetic_day(&market, in->meta.seed, i, pathno, prm->stress_vol,
                                   prm->stress_liquidity, t, &e)) {
            cli_err("%s: synthetic market %s, path %d: %s", C, p, (int)pathno, e.msg);
            return -1;
        }
        r->cfg.synthetic = 1;
        return 0;
    }
    r->cfg.synthetic = 0;
    if (mm_ticks_load(p, sym && sym[0] ? sym : NULL, 0, t, &e)) {
        cli_err("%s: tape %s: %s", C, p, e.msg[0] ? e.msg : mm_strerror(e.code));
        return -1;
    }
    if (t->inst.fingerprint != in->meta.input_fingerprints[i]) {
        cli_err("%s: tape %s#%s: fingerprint %016" PRIx64 ", the sweep ran on %016" PRIx64
                " (the file changed)",
                C, p, t->inst.symbol, t->inst.fingerprint, in->meta.input_fingerprints[i]);
        mm_ticks_free(t);
        return -1;
    }
    return 0;
}

int cli_recorded_same(const mm_metrics *a, const mm_metrics *b, int i)
{
    double fa = 0, fb = 0;
    int64_t ia = 0, ib = 0;
    mm_results_metric_value(a, i, &fa, &ia);
    mm_results_metric_value(b, i, &fb, &ib);
    return ia == ib && (fa == fb || (isnan(fa) && isnan(fb)));
}

int cli_recorded_differs(const mm_metrics *a, const mm_metrics *b)
{
    for (int i = 0; i < MM_RESULTS_METRICS; i++)
        if (!cli_recorded_same(a, b, i)) return i;
    return -1;
}

int cli_run_from(const char *C, const char *results, const char *data, int64_t id, int32_t path,
                 cli_recorded *rec, mm_params *p, mm_metrics *stored, int32_t *stored_path,
                 char *tape, size_t tape_cap, char *symbol, size_t sym_cap, uint64_t *fingerprint,
                 int64_t markout_ns[MM_MARKOUTS])
{
    mm_results_reader *rd = NULL;
    mm_error e = {0};
    if (mm_results_open(results, &rd, &e)) {
        cli_err("%s: --from %s: %s", C, results, e.msg[0] ? e.msg : mm_strerror(e.code));
        return MM_EXIT_RUNTIME;
    }
    const mm_results_info *in = mm_results_describe(rd);
    int rc = 0, said = path < 0; /* no --path: path 0, said on a Monte Carlo table */
    if (path < 0) path = 0;
    int32_t *idx = calloc((size_t)(in->n_axes > 0 ? in->n_axes : 1), sizeof *idx);
    if (!idx) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
    } else if (id < 0 || id >= in->n_rows) {
        cli_err("%s: --id %" PRId64 ": %s has rows 0 to %" PRId64, C, id, results, in->n_rows - 1);
        rc = MM_EXIT_USAGE;
    } else if (in->paths > 1 && path >= in->paths) {
        cli_err("%s: --path %d: %s has paths 0 to %" PRId64, C, (int)path, results, in->paths - 1);
        rc = MM_EXIT_USAGE;
    } else if (in->paths > 1 ? mm_results_read_values(rd, id, 1, idx, NULL, &e) ||
                                   (in->has_paths &&
                                    mm_results_read_paths(rd, id * in->paths + path, 1, stored, &e))
                             : mm_results_read(rd, id, 1, idx, stored, &e)) {
        cli_err("%s: --from %s: %s", C, results, e.msg[0] ? e.msg : mm_strerror(e.code));
        rc = MM_EXIT_RUNTIME;
    } else if (cli_recorded_open(C, in, results, data, rec)) {
        rc = MM_EXIT_RUNTIME;
    } else {
        int32_t i;
        if (cli_recorded_row(C, rec, in, id, idx, p, &i)) {
            cli_recorded_free(rec);
            rc = MM_EXIT_RUNTIME;
        } else {
            char buf[4096];
            snprintf(tape, tape_cap, "%s",
                     cli_recorded_path(in->meta.input_paths[i], results, data, buf, sizeof buf));
            snprintf(symbol, sym_cap, "%s",
                     in->meta.input_symbols[i] ? in->meta.input_symbols[i] : "");
            *fingerprint = in->meta.input_fingerprints[i];
            rec->input = i;
            if (cli_recorded_is_synthetic(rec, in, i)) {
                if (cli_recorded_load(C, rec, in, results, i, path, p, &rec->day))
                    rc = MM_EXIT_RUNTIME;
                else
                    rec->has_day = 1;
            }
            *stored_path = in->paths == 1 ? 0 : in->has_paths ? path : -1;
            if (said && in->paths > 1 && rc == 0)
                fprintf(stderr,
                        "mmsim: %s: --from %s --id %" PRId64 ": path 0 of %" PRId64
                        "; --path N for another\n",
                        C, results, id, in->paths);
            memcpy(markout_ns, in->meta.markout_ns, sizeof(int64_t) * MM_MARKOUTS);
        }
    }
    free(idx);
    mm_results_close(rd);
    return rc;
}

int cli_run_from_check(const char *C, const char *results, int64_t id, int32_t path,
                       int32_t stored_path, const mm_metrics *m, const mm_metrics *stored,
                       const int64_t markout_ns[MM_MARKOUTS])
{
    if (stored_path < 0) {
        fprintf(stderr,
                "mmsim: %s: %s stores the summary of row %" PRId64
                "'s paths, not path %d's metrics (a sweep with --keep-paths does); nothing to "
                "compare\n",
                C, results, id, (int)path);
        return 0;
    }
    if (path != stored_path) {
        fprintf(stderr, "mmsim: %s: path %d: %s stores path 0 only; nothing to compare\n", C,
                (int)path, results);
        return 0;
    }
    int k = cli_recorded_differs(m, stored);
    if (k < 0) {
        fprintf(stderr, "mmsim: %s: row %" PRId64 " of %s: every metric equals the stored row\n", C,
                id, results);
        return 0;
    }
    char name[64];
    double a = 0, b = 0;
    int64_t ia = 0, ib = 0;
    mm_results_metric(k, markout_ns, name, sizeof name);
    mm_results_metric_value(m, k, &a, &ia);
    mm_results_metric_value(stored, k, &b, &ib);
    cli_err("%s: row %" PRId64 " of %s: the rerun differs from the stored row in %s: %.17g here, "
            "%.17g stored",
            C, id, results, name, ia || ib ? (double)ia : a, ia || ib ? (double)ib : b);
    return MM_EXIT_RUNTIME;
}

/* --from: no tick file, no model flag, no --symbol or --latency-series (the row's are used),
 * and --id; then the row. 0 or the exit status. */
int cli_run_from_setup(const char *C, const char *from, const char *data, int64_t id, int n_files,
                       const char *given, char (*names)[64], int nk, int other, const char *setting,
                       int32_t path, cli_recorded *rec, mm_params *p, mm_metrics *stored,
                       int32_t *stored_path, char *tape, char *sym, uint64_t *fp,
                       int64_t markout_ns[MM_MARKOUTS])
{
    if (n_files != 0) {
        cli_err("%s: --from %s: the tape is the row's; give no tick file", C, from);
        return MM_EXIT_USAGE;
    }
    for (int i = 0; i < nk; i++)
        if (given[i]) {
            cli_err("%s: --from %s: the parameters are the row's; drop --%s", C, from, names[i]);
            return MM_EXIT_USAGE;
        }
    if (other) {
        cli_err("%s: --from %s: the tape and latency series are the row's; drop --symbol and "
                "--latency-series",
                C, from);
        return MM_EXIT_USAGE;
    }
    if (setting) {
        /* The row's numbers come from the sweep's seed and settings: another --seed would draw
         * other random streams and compare them with the stored row. --path picks a path. */
        cli_err("%s: --from %s: the seed and run settings are the ones %s records; drop %s", C,
                from, from, setting);
        return MM_EXIT_USAGE;
    }
    if (id < 0) {
        cli_err("%s: --from %s needs --id N (a row of the table)", C, from);
        return MM_EXIT_USAGE;
    }
    return cli_run_from(C, from, data, id, path, rec, p, stored, stored_path, tape, 4096, sym,
                        MM_SYMBOL_MAX, fp, markout_ns);
}
