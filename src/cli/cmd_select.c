/* mmsim select: is the best row of a sweep one worth trading? Walk-forward selection, PBO by
 * CSCV, the deflated Sharpe ratio and neighbourhood robustness of a results file
 * (docs/select.md); the numbers are mm_select_run's (src/sweep/select.c), printed. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mmsim/results.h"
#include "mmsim/select.h"
#include "report.h"

static const char HELP[] =
    "usage: mmsim select results.h5 [--objective pnl|sharpe] [--by block|tape] [--window N]\n"
    "                    [--min-train N] [--splits S] [--periods]\n"
    "\n"
    "Judge the selection of a sweep's best row out of sample (docs/select.md), over the time\n"
    "blocks of its rows (sweep --blocks B) or over its tapes: walk-forward selection, the\n"
    "probability of backtest overfitting (PBO, by combinatorially symmetric cross-validation),\n"
    "the deflated Sharpe ratio of the in-sample best, and the best row of the grid smoothed over\n"
    "its neighbours. Trials that never fill are set aside (counted, never ranked).\n"
    "\n"
    "  --objective M   pnl (the sum of a set of periods' PnL changes, default) or sharpe (their\n"
    "                  mean / standard deviation, per period)\n"
    "  --by U          the periods: block (the time blocks, tape after tape; the default when\n"
    "                  the file has them) or tape (each tape's whole PnL)\n"
    "  --window N      walk-forward: choose on the last N periods (rolling); default 0: every\n"
    "                  period before (expanding)\n"
    "  --min-train N   walk-forward: the first choice after N periods [1]\n"
    "  --splits S      CSCV: S groups of periods, even, 2 to 16 [the largest even <= periods]\n"
    "  --periods       also print the walk-forward period by period\n"
    "  -h, --help      this help\n";

/* Trial n's axis values (the axes other than the tape) as "key=value key=value". */
void cli_select_trial_text(const mm_results_info *in, int64_t n, char *buf, size_t cap)
{
    int32_t a0 = in->n_axes > 0 && !strcmp(in->axes[0].key, "tape");
    size_t len = 0;
    buf[0] = 0;
    int64_t stride = 1;
    for (int32_t a = in->n_axes - 1; a >= a0; a--)
        stride *= in->axes[a].n;
    for (int32_t a = a0; a < in->n_axes && len < cap; a++) {
        stride /= in->axes[a].n;
        char v[256];
        mm_results_axis_format(&in->axes[a], (int32_t)(n / stride % in->axes[a].n), v, sizeof v);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s=%s", a > a0 ? " " : "", in->axes[a].key,
                                v);
    }
    if (!buf[0]) snprintf(buf, cap, "(no axis)");
}

static const char *num(double v, char *buf, size_t cap)
{
    if (isnan(v)) return "nan";
    snprintf(buf, cap, "%.6g", v);
    return buf;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_result(const char *path, const mm_results_info *in, const mm_select_result *s,
                         int periods)
{
    char a[64], b[64], c[64], t1[512], t2[512];
    const char *unit = s->stat == MM_SELECT_PNL ? "pnl" : "sharpe";
    printf("select    %s: %" PRId64 " rows, %" PRId32 " tape%s, ", path, s->n_rows, s->n_tapes,
           s->n_tapes == 1 ? "" : "s");
    if (s->by_tape)
        printf("periods = the tapes: %" PRId64 " periods x %" PRId64 " trials\n", s->T, s->N);
    else
        printf("%" PRId32 " time blocks per tape (%s): %" PRId64 " periods x %" PRId64 " trials\n",
               s->n_blocks, in->block_ns ? "fixed length" : "equal spans", s->T, s->N);
    printf("set aside %" PRId64 " of %" PRId64 " trials: no fill on any tape (fills_bid + "
           "fills_ask = 0): no strategy, never ranked\n",
           s->n_idle, s->n_all);
    printf("objective %s (%s)\n\n", unit,
           s->stat == MM_SELECT_PNL ? "the sum of the PnL changes of a set of periods, money"
                                    : "mean / sd of the PnL changes of a set of periods, per "
                                      "period, not annualised");
    cli_select_trial_text(in, s->trial[s->is_best], t1, sizeof t1);
    cli_select_trial_text(in, s->trial[s->median], t2, sizeof t2);
    printf("walk-forward (%s window%s, first choice after %" PRId64 " period%s):\n",
           s->window ? "rolling" : "expanding", "", s->min_train, s->min_train == 1 ? "" : "s");
    if (s->window) printf("  window: the last %" PRId64 " periods\n", s->window);
    printf("  out of sample, periods %" PRId64 "..%" PRId64 ": walk-forward %s, in-sample best "
           "%s, median trial %s (pnl)\n",
           s->min_train, s->T - 1, num(s->oos_total, a, sizeof a), num(s->is_total, b, sizeof b),
           num(s->median_total, c, sizeof c));
    printf("  in-sample best: trial %" PRId64 " (%s); median trial %" PRId64 " (%s)\n",
           s->trial[s->is_best], t1, s->trial[s->median], t2);
    printf("  the walk-forward chose %" PRId64 " distinct trial%s\n", s->oos_distinct,
           s->oos_distinct == 1 ? "" : "s");
    if (periods) {
        printf("  period  end_ns               chosen  oos_pnl      is_best_pnl  median_pnl\n");
        for (int64_t t = s->min_train; t < s->T; t++)
            printf("  %6" PRId64 "  %-19" PRId64 "  %6" PRId64 "  %-11s  %-11s  %s\n", t,
                   s->period_end_ns[t], s->trial[s->chosen[t]], num(s->oos[t], a, sizeof a),
                   num(s->perf[(size_t)t * s->N + s->is_best], b, sizeof b),
                   num(s->perf[(size_t)t * s->N + s->median], c, sizeof c));
    }
    double *l = malloc((size_t)s->n_logits * sizeof *l);
    printf("\noverfitting (CSCV, Bailey, Borwein, Lopez de Prado and Zhu): %" PRId32
           " groups, %" PRId64 " splits\n",
           s->S, s->n_logits);
    printf("  PBO = %.4f (the share of splits where the in-sample best ranks at or below the "
           "median out of sample)\n",
           s->pbo);
    if (l) {
        memcpy(l, s->logits, (size_t)s->n_logits * sizeof *l);
        qsort(l, (size_t)s->n_logits, sizeof *l, cmp_d);
        int64_t n = s->n_logits;
        char d[64], e[64];
        printf("  logits: min %s, p25 %s, median %s, p75 %s, max %s\n", num(l[0], a, sizeof a),
               num(l[n / 4], b, sizeof b), num(l[n / 2], c, sizeof c),
               num(l[(3 * n) / 4], d, sizeof d), num(l[n - 1], e, sizeof e));
        free(l);
    }
    const mm_select_dsr_out *d = &s->dsr;
    printf("\ndeflated Sharpe ratio (Bailey and Lopez de Prado 2014) of the in-sample best, "
           "trial %" PRId64 ":\n",
           s->trial[s->is_best]);
    char e[64], f[64], g[64];
    printf("  sharpe %s per period over T = %" PRId64 " periods, skewness %s, kurtosis %s; "
           "N = %" PRId64 " trials, var of their sharpe %s\n",
           num(d->sr, a, sizeof a), d->T, num(d->skew, b, sizeof b), num(d->kurt, c, sizeof c),
           d->n_trials, num(s->sr_var, e, sizeof e));
    printf("  expected best sharpe of N trials with no skill sr0 = %s; z = %s; DSR = %s: %s\n",
           num(d->sr0, f, sizeof f), num(d->z, g, sizeof g), num(d->dsr, a, sizeof a),
           isnan(d->dsr)    ? "undefined"
           : d->dsr >= 0.95 ? "significant at 95%"
                            : "not significant at 95%");
    cli_select_trial_text(in, s->raw_best, t1, sizeof t1);
    cli_select_trial_text(in, s->smooth_best, t2, sizeof t2);
    printf("\nneighbourhood (each trial's %s averaged with its grid neighbours, one step along a "
           "numeric axis):\n",
           unit);
    printf("  raw best      trial %" PRId64 " (%s): %s, smoothed %s\n", s->raw_best, t1,
           num(s->value[s->raw_best], a, sizeof a), num(s->smooth[s->raw_best], b, sizeof b));
    printf("  smoothed best trial %" PRId64 " (%s): %s, smoothed %s\n", s->smooth_best, t2,
           num(s->value[s->smooth_best], a, sizeof a), num(s->smooth[s->smooth_best], b, sizeof b));
}

int cmd_select(int argc, char **argv)
{
    const char *C = "select";
    enum { O_OBJ = 256, O_BY, O_WINDOW, O_MIN, O_SPLITS, O_PERIODS };
    static const struct option opts[] = {{"objective", 1, 0, O_OBJ}, {"by", 1, 0, O_BY},
                                         {"window", 1, 0, O_WINDOW}, {"min-train", 1, 0, O_MIN},
                                         {"splits", 1, 0, O_SPLITS}, {"periods", 0, 0, O_PERIODS},
                                         {"help", 0, 0, 'h'},        {0, 0, 0, 0}};
    mm_select_opts o;
    mm_select_opts_defaults(&o);
    int c, periods = 0;
    int64_t v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_OBJ:
            if (!strcmp(optarg, "pnl"))
                o.stat = MM_SELECT_PNL;
            else if (!strcmp(optarg, "sharpe"))
                o.stat = MM_SELECT_SHARPE;
            else {
                cli_err("%s: --objective: '%s' is not pnl or sharpe (the statistics a set of "
                        "time blocks adds up to)",
                        C, optarg);
                return MM_EXIT_USAGE;
            }
            break;
        case O_BY:
            if (!strcmp(optarg, "block") || !strcmp(optarg, "tape"))
                o.by_tape = !strcmp(optarg, "tape");
            else {
                cli_err("%s: --by: '%s' is not block or tape", C, optarg);
                return MM_EXIT_USAGE;
            }
            break;
        case O_WINDOW:
            if (cli_i64(C, "--window", optarg, 0, INT64_C(1) << 40, &o.window))
                return MM_EXIT_USAGE;
            break;
        case O_MIN:
            if (cli_i64(C, "--min-train", optarg, 1, INT64_C(1) << 40, &o.min_train))
                return MM_EXIT_USAGE;
            break;
        case O_SPLITS:
            if (cli_i64(C, "--splits", optarg, 2, MM_SELECT_SPLITS_MAX, &v)) return MM_EXIT_USAGE;
            if (v % 2) {
                cli_err("%s: --splits: %" PRId64 " must be even", C, v);
                return MM_EXIT_USAGE;
            }
            o.splits = (int32_t)v;
            break;
        case O_PERIODS:
            periods = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        default:
            cli_opt_error(C, "select", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one results file (see 'mmsim select --help')", C);
        return MM_EXIT_USAGE;
    }
    const char *path = argv[optind];
    mm_error e = {0};
    mm_results_reader *r = NULL;
    if (mm_results_open(path, &r, &e)) return cli_fail(&e);
    mm_select_result *s = NULL;
    int rc = MM_EXIT_OK;
    if (mm_select_run(path, &o, &s, &e))
        rc = cli_fail(&e);
    else
        print_result(path, mm_results_describe(r), s, periods);
    mm_select_free(s);
    mm_results_close(r);
    return rc;
}
