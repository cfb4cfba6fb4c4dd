/* mmsim run: one parameter combination through a tick file; prints its metrics, optionally a trace.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_keys.h"
#include "mmsim/import.h"
#include "mmsim/results.h"
#include "recorded.h"
#include "report.h"
#include "run_trace.h"

static void help(void)
{
    printf(
        "usage: mmsim run ticks.h5 [--symbol X] [model options] [--trace fills.csv] [--curve "
        "day.html]\n"
        "\n"
        "Replay one parameter combination through the tape and print its metrics (docs/model.md).\n"
        "\n"
        "model options (each is also a sweep axis, key inv_limit for --inv-limit; flags take "
        "either\n"
        "spelling, --inv_limit too; defaults in brackets):\n");
    mm_params d;
    mm_params_defaults(&d);
    for (int i = 0; i < mm_params_key_count(); i++) {
        const char *h, *k = mm_params_key_name(i, &h);
        char flag[64], def[64];
        snprintf(flag, sizeof flag, "--%s", k);
        for (char *c = flag; *c; c++)
            if (*c == '_') *c = '-';
        double num;
        if (mm_params_key_kind(k, NULL) == MM_KEY_REAL && !mm_params_get_num(&d, k, &num))
            cli_fmt_shortest(num, def, sizeof def);
        else
            mm_params_get(&d, k, def, sizeof def);
        printf("  %-22s %s [%s]\n", flag, h, def);
        if (!strcmp(k, "spread"))
            printf("  %-22s the same: spread is the half-spread (key half_spread)\n",
                   "--half-spread");
    }
    printf(
        "\nrun options:\n"
        "  --symbol X             instrument (needed when the file holds several)\n"
        "  --trace F              write every order, cancel, activation, rejection and fill as "
        "CSV\n"
        "  --curve F              write PnL, inventory and mid over time with the fills as one "
        "HTML page\n"
        "                         (docs/report.md)\n"
        "  --curve-buckets N      time buckets of the curve, each keeping min, max and last "
        "[1000]\n"
        "  --engine E             reference (default) or batched; both give identical metrics\n"
        "  --sample-ns N          PnL sampling clock for Sharpe and drawdown [1000000000]\n"
        "  --year-seconds S       seconds in a trading year for annualising [0: the tape's, "
        "recorded\n"
        "                         by the importer; 5896800 = 252 x 6.5 h when it has none]\n"
        "  --markout-ns A,B,C     markout horizons [1000000000,10000000000,60000000000]\n"
        "  --seed S, --path P     the random streams' master seed [1] and path [0]: used only by\n"
        "                         the random execution options (docs/model.md, 3.3); with\n"
        "                         --from on a Monte Carlo table, the row's path (without --path:\n"
        "                         path 0, said on stderr)\n"
        "  --latency-samples F    measured latencies for --latency-dist empirical, CSV\n"
        "                         entry_ns,response_ns (docs/model.md, 3.3)\n"
        "  --latency-series F     recorded latencies, CSV ts_ns,entry_ns,response_ns: added to\n"
        "                         --latency-ns and --response-ns (docs/model.md, 3.2)\n"
        "  --no-verify            skip the tick file's fingerprint check\n"
        "  --json                 print the metrics as one JSON object (for scripts)\n"
        "  --from R --id N        rerun row N of results file R (its parameters, tape, settings\n"
        "                         and random streams: no model flag, --seed, --sample-ns,\n"
        "                         --year-seconds or --markout-ns; --path P picks a path) and\n"
        "                         compare with the stored row\n"
        "  --data DIR             with --from: look for the recorded inputs in DIR (by file name)\n"
        "  -h, --help             this help\n");
}

/* What the trace callback feeds: the CSV trace (run_trace.c), the curve, or both. */
typedef struct trace_sinks {
    run_trace *csv;
    rep_curve *curve;
} trace_sinks;

static void on_trace(const mm_trace_rec *r, void *user)
{
    trace_sinks *s = user;
    if (s->csv) run_trace_rec(r, s->csv);
    if (s->curve) rep_curve_on_trace(r, s->curve);
}

/* Write the curve page through a temporary file. Returns 0 or an exit status (after printing). */
static int write_curve(const char *path, rep_curve *c, const char *tape, const mm_params *p,
                       const mm_metrics *m)
{
    rep_out o = {0};
    int e = rep_open(&o, path);
    if (!e) {
        rep_curve_finish(c);
        rep_curve_page(&o, c, tape, p, m);
        e = rep_commit(&o);
    }
    if (e) {
        cli_err("run: --curve %s: %s", path, strerror(e));
        return MM_EXIT_RUNTIME;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    const char *C = "run";
    int nk = mm_params_key_count();
    enum {
        O_SYMBOL = 256,
        O_TRACE,
        O_ENGINE,
        O_SAMPLE,
        O_YEAR,
        O_MARKOUT,
        O_NOVERIFY,
        O_CURVE,
        O_CURVE_BUCKETS,
        O_JSON,
        O_LATENCY,
        O_SAMPLES,
        O_SEED,
        O_PATH,
        O_FROM,
        O_ID,
        O_DATA,
        O_KEY0 = 1000
    };
    /* Each key twice (--inv-limit and --inv_limit), the aliases (--half-spread, --half_spread),
     * the run options and the terminator. */
    struct option *opts = calloc(2 * (size_t)nk + 4 + 20, sizeof *opts);
    char(*names)[64] = calloc(2 * (size_t)nk, 64);
    char *given = calloc((size_t)nk + 1, 1); /* the keys given as flags, for the warning */
    if (!opts || !names || !given) {
        free(opts);
        free(names);
        free(given);
        cli_err("%s: out of memory", C);
        return MM_EXIT_RUNTIME;
    }
    int o = 0;
    for (int i = 0; i < nk; i++) {
        snprintf(names[i], 64, "%s", mm_params_key_name(i, NULL));
        for (char *c = names[i]; *c; c++)
            if (*c == '_') *c = '-';
        opts[o++] = (struct option){names[i], 1, 0, O_KEY0 + i};
        snprintf(names[nk + i], 64, "%s", mm_params_key_name(i, NULL));
        if (strcmp(names[nk + i], names[i]))
            opts[o++] = (struct option){names[nk + i], 1, 0, O_KEY0 + i};
        if (!strcmp(names[nk + i], "spread")) {
            opts[o++] = (struct option){"half-spread", 1, 0, O_KEY0 + i};
            opts[o++] = (struct option){"half_spread", 1, 0, O_KEY0 + i};
        }
    }
    opts[o++] = (struct option){"symbol", 1, 0, O_SYMBOL};
    opts[o++] = (struct option){"trace", 1, 0, O_TRACE};
    opts[o++] = (struct option){"engine", 1, 0, O_ENGINE};
    opts[o++] = (struct option){"sample-ns", 1, 0, O_SAMPLE};
    opts[o++] = (struct option){"year-seconds", 1, 0, O_YEAR};
    opts[o++] = (struct option){"markout-ns", 1, 0, O_MARKOUT};
    opts[o++] = (struct option){"no-verify", 0, 0, O_NOVERIFY};
    opts[o++] = (struct option){"curve", 1, 0, O_CURVE};
    opts[o++] = (struct option){"curve-buckets", 1, 0, O_CURVE_BUCKETS};
    opts[o++] = (struct option){"latency-series", 1, 0, O_LATENCY};
    opts[o++] = (struct option){"latency-samples", 1, 0, O_SAMPLES};
    opts[o++] = (struct option){"seed", 1, 0, O_SEED};
    opts[o++] = (struct option){"path", 1, 0, O_PATH};
    opts[o++] = (struct option){"from", 1, 0, O_FROM};
    opts[o++] = (struct option){"id", 1, 0, O_ID};
    opts[o++] = (struct option){"data", 1, 0, O_DATA};
    opts[o++] = (struct option){"json", 0, 0, O_JSON};
    opts[o++] = (struct option){"help", 0, 0, 'h'};
    mm_params p;
    mm_params_defaults(&p);
    mm_sim_config cfg;
    mm_sim_config_defaults(&cfg);
    const char *symbol = NULL, *trace_path = NULL, *curve_path = NULL, *lat_path = NULL,
               *smp_path = NULL;
    mm_latency_samples smp = {0};
    const char *from_path = NULL; /* --from: a row of a results file */
    const char *data_dir = NULL;  /* --data DIR: where --from looks for the recorded inputs */
    const char *setting = NULL;   /* the first flag given of a setting that --from takes */
    int64_t from_id = -1;
    int path_given = 0; /* --path: with --from on a Monte Carlo table, else path 0 is said */
    cli_recorded rec;
    memset(&rec, 0, sizeof rec);
    mm_metrics stored;
    int32_t stored_path = -1;
    char from_tape[4096] = "", from_sym[MM_SYMBOL_MAX] = "";
    uint64_t from_fp = 0;
    mm_latency_series lat = {0};
    int64_t curve_buckets = 1000;
    rep_curve curve = {0};
    int flags = 0, batched = 0, json = 0, rc = MM_EXIT_OK, c;
    mm_error e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c >= O_KEY0 && c < O_KEY0 + nk) {
            /* Numbers are decimal and complete: no blanks, hex, inf or nan (enums are names). */
            int kind = mm_params_key_kind(mm_params_key_name(c - O_KEY0, NULL), NULL);
            if (kind != MM_KEY_ENUM && !cli_is_decimal(optarg, kind == MM_KEY_INT)) {
                cli_err("%s: --%s: '%s' is not a decimal %s", C, names[c - O_KEY0], optarg,
                        kind == MM_KEY_INT ? "integer" : "number");
                rc = MM_EXIT_USAGE;
                goto out;
            }
            if (mm_params_set(&p, mm_params_key_name(c - O_KEY0, NULL), optarg, &e)) {
                cli_err("%s: --%s", C, e.msg);
                rc = MM_EXIT_USAGE;
                goto out;
            }
            given[c - O_KEY0] = 1;
            continue;
        }
        int64_t v;
        switch (c) {
        case O_SYMBOL:
            symbol = optarg;
            break;
        case O_TRACE:
            trace_path = optarg;
            break;
        case O_ENGINE:
            if (!strcmp(optarg, "reference"))
                batched = 0;
            else if (!strcmp(optarg, "batched"))
                batched = 1;
            else {
                cli_err("%s: --engine: '%s' is not reference or batched", C, optarg);
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_SAMPLE:
            setting = setting ? setting : "--sample-ns";
            if (cli_i64(C, "--sample-ns", optarg, 1, CLI_NS_MAX, &v)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            cfg.sample_ns = v;
            break;
        case O_YEAR:
            setting = setting ? setting : "--year-seconds";
            if (cli_f64(C, "--year-seconds", optarg, 0, 1e12, &cfg.year_s)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_MARKOUT:
            setting = setting ? setting : "--markout-ns";
            if (cli_markouts(C, "--markout-ns", optarg, cfg.markout_ns)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_NOVERIFY:
            flags |= MM_LOAD_NO_VERIFY;
            break;
        case O_JSON:
            json = 1;
            break;
        case O_CURVE:
            curve_path = optarg;
            break;
        case O_LATENCY:
            lat_path = optarg;
            break;
        case O_SAMPLES:
            smp_path = optarg;
            break;
        case O_FROM:
            from_path = optarg;
            break;
        case O_DATA:
            data_dir = optarg;
            break;
        case O_ID:
            if (cli_i64(C, "--id", optarg, 0, INT64_MAX, &from_id)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_SEED:
            setting = setting ? setting : "--seed";
            if (cli_u64(C, "--seed", optarg, &cfg.seed)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_PATH:
            if (cli_i64(C, "--path", optarg, 0, INT32_MAX, &v)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            cfg.path = (int32_t)v;
            path_given = 1;
            break;
        case O_CURVE_BUCKETS:
            if (cli_i64(C, "--curve-buckets", optarg, 1, 100000, &curve_buckets)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case 'h':
            help();
            goto out;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "run", c == ':', argv, opts);
            rc = MM_EXIT_USAGE;
            goto out;
        }
    }
    if (data_dir && !from_path) {
        cli_err("%s: --data %s: only with --from (where to look for a results file's inputs)", C,
                data_dir);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (from_path &&
        (rc = cli_run_from_setup(C, from_path, data_dir, from_id, argc - optind, given, names, nk,
                                 symbol || lat_path || smp_path, setting,
                                 path_given ? cfg.path : -1, &rec, &p, &stored, &stored_path,
                                 from_tape, from_sym, &from_fp, cfg.markout_ns))) {
        goto out;
    }
    if (from_path) {
        int32_t path = cfg.path;
        cfg = rec.cfg; /* the recorded settings, seed and id; the path asked for */
        cfg.path = path;
        symbol = from_sym[0] ? from_sym : NULL;
    } else if (argc - optind != 1) {
        cli_err("%s: expected exactly one tick file (see 'mmsim run --help')", C);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (mm_params_check(&p, &e)) {
        for (char *q = e.msg; *q && *q != ':'; q++)
            if (*q == '_') *q = '-';
        cli_err("%s: --%s", C, e.msg);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    /* A flag the strategy does not read changes nothing: say so (the run goes on). */
    for (int i = 0; i < nk; i++) {
        int want = given[i] ? cli_key_strategy(mm_params_key_name(i, NULL)) : -1;
        if (want >= 0 && want != p.strategy)
            cli_err("%s: warning: --%s has no effect with --strategy %s (only %s reads it)", C,
                    names[i], cli_strategy_name(p.strategy), cli_strategy_name(want));
    }
    if ((trace_path || curve_path) && batched) {
        cli_err("%s: %s needs the reference engine", C, trace_path ? "--trace" : "--curve");
        rc = MM_EXIT_USAGE;
        goto out;
    }
    const char *path = from_path ? from_tape : argv[optind];
    /* The trace never replaces an input (the tick file, the latency series), any other HDF5
     * file, or anything that is not a writable file. */
    const char *const inputs[3] = {path, lat_path ? lat_path : path, smp_path ? smp_path : path};
    if (trace_path && (cli_check_output(C, "--trace", trace_path, inputs, 3) ||
                       cli_check_not_h5(C, "--trace", trace_path, "a CSV trace"))) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    const char *const curve_inputs[4] = {path, trace_path ? trace_path : path,
                                         lat_path ? lat_path : path, smp_path ? smp_path : path};
    if (curve_path && (cli_check_output(C, "--curve", curve_path, curve_inputs, 4) ||
                       cli_check_not_h5(C, "--curve", curve_path, "an HTML curve"))) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (curve_path && trace_path && !strcmp(curve_path, trace_path)) {
        cli_err("%s: --curve %s: also the --trace file; choose another file", C, curve_path);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (smp_path) {
        if (mm_latency_samples_read_csv(smp_path, &smp, &e)) {
            rc = cli_fail(&e);
            goto out;
        }
        cfg.latency_samples = &smp;
    }
    if (lat_path) {
        if (mm_latency_read_csv(lat_path, &lat, &e)) {
            rc = cli_fail(&e);
            goto out;
        }
        cfg.latency = &lat;
    }
    mm_ticks t = {0};
    if (from_path && rec.has_day) { /* a synthetic market's day, generated and checked */
        t = rec.day;
        rec.has_day = 0;
    } else if (mm_ticks_load(path, symbol, flags, &t, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (from_path && !cfg.synthetic && t.inst.fingerprint != from_fp) {
        cli_err("%s: --from: tape %s#%s: fingerprint %016" PRIx64 ", the sweep ran on %016" PRIx64
                " (the file changed)",
                C, path, t.inst.symbol, t.inst.fingerprint, from_fp);
        mm_ticks_free(&t);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    run_trace tf = {0};
    if (trace_path && run_trace_open(&tf, C, trace_path, &t.inst)) {
        mm_ticks_free(&t);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    if (curve_path && rep_curve_init(&curve, &t, (int32_t)curve_buckets)) {
        cli_err("%s: --curve %s: out of memory", C, curve_path);
        run_trace_close(&tf, 1);
        mm_ticks_free(&t);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    trace_sinks sinks = {trace_path ? &tf : NULL, curve_path ? &curve : NULL};
    mm_metrics m;
    int r = batched ? mm_sim_run_batch(&t, &cfg, &p, 1, &m, &e)
                    : mm_sim_run_c(&t, &cfg, &p, &m, trace_path || curve_path ? on_trace : NULL,
                                   &sinks, &e);
    if (tf.f && run_trace_close(&tf, r != 0) && r == 0) {
        cli_err("%s: --trace %s: %s", C, trace_path, strerror(tf.err));
        mm_ticks_free(&t);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    if (r) {
        mm_ticks_free(&t);
        if (e.code == MM_EUSAGE) {
            /* A run setting the engine refused for this tape ("sample_ns: ..."): name it as its
             * flag. */
            const char *flag = !strncmp(e.msg, "year_s:", 7) ? "year-seconds" : NULL;
            if (!strncmp(e.msg, "latency:", 8)) {
                cli_err("%s: --latency-series %s:%s", C, lat_path, e.msg + 8);
            } else if (flag) {
                cli_err("%s: --%s%s", C, flag, e.msg + 6);
            } else {
                for (char *q = e.msg; *q && *q != ':' && *q != ' '; q++)
                    if (*q == '_') *q = '-';
                char m[sizeof e.msg];
                cli_err("%s: --%s", C, cli_libmsg(e.msg, m, sizeof m));
            }
            rc = MM_EXIT_USAGE;
        } else {
            cli_err("%s: %s: %s", C, path, e.msg[0] ? e.msg : mm_strerror(e.code));
            rc = MM_EXIT_RUNTIME;
        }
        goto out;
    }
    /* The curve is written (or its failure reported) before anything is printed, as the trace. */
    if (curve_path && (rc = write_curve(curve_path, &curve, path, &p, &m))) {
        mm_ticks_free(&t);
        goto out;
    }
    if (from_path)
        rc = cli_run_from_check(C, from_path, from_id, cfg.path, stored_path, &m, &stored,
                                cfg.markout_ns);
    if (json) {
        cli_run_print_json(&t, &cfg, &p, &m, batched, trace_path, curve_path);
        mm_ticks_free(&t);
        goto out;
    }
    printf("instrument %s: %" PRId64 " events, engine %s\n", t.inst.symbol, t.n,
           batched ? "batched" : "reference");
    printf("pnl            %.10g (marked to the last mid)\n", m.pnl);
    printf("pnl close      %.10g (final position closed at the touch, taker fee)\n", m.pnl_close);
    printf("fees           %.10g\n", m.fees);
    printf("volume         %" PRId64 " lots\n", m.volume);
    printf("fills          %" PRId64 " bid, %" PRId64 " ask\n", m.fills_bid, m.fills_ask);
    printf("orders         %" PRId64 " sent, %" PRId64 " cancels, %" PRId64 " rejected, %" PRId64
           " held back\n",
           m.orders, m.cancels, m.rejects, m.held);
    printf("per second     %.6g orders, %.6g cancels, %.6g rejects\n", m.orders_per_s,
           m.cancels_per_s, m.rejects_per_s);
    printf("position       final %" PRId64 ", max |q| %" PRId64 ", mean |q| %.6g lots\n", m.final_q,
           m.max_abs_q, m.mean_abs_q);
    printf("sharpe         %.6g (annualised, %g s samples, %g s/year)\n", m.sharpe,
           (double)cfg.sample_ns * 1e-9, mm_sim_year_s(&cfg, &t.inst));
    printf("max drawdown   %.10g\n", m.max_drawdown);
    for (int k = 0; k < MM_MARKOUTS; k++) { /* named as show and export name the columns */
        char h[32];
        mm_results_horizon_name(cfg.markout_ns[k], h, sizeof h);
        printf("markout_%-6s %.10g\n", h, m.markout[k]);
    }
    if (trace_path) printf("trace          %s\n", trace_path);
    if (curve_path) printf("curve          %s\n", curve_path);
    mm_ticks_free(&t);
out:
    if (from_path) cli_recorded_free(&rec);
    mm_latency_free(&lat);
    mm_latency_samples_free(&smp);
    rep_curve_free(&curve);
    free(opts);
    free(names);
    free(given);
    return rc;
}
