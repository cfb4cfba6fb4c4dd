/* mmsim calibrate: fit the synthetic market's parameters to a tape (docs/synthetic.md,
 * "Calibration") and write them as an INI file that `mmsim gen --config` reads; --facts prints the
 * tape's stylised facts. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char HELP[] =
    "usage: mmsim calibrate TICKS.h5 [--symbol S] -o market.ini [--facts] [--check-seeds N]\n"
    "\n"
    "Fit the synthetic market's parameters (docs/synthetic.md, \"Calibration\") to a tape: event\n"
    "and trade rates, the mid's volatility, the largest usual spread, the size of a new level,\n"
    "the share of informed trades, the runs of one trade side, the size of a trade, tick, lot,\n"
    "first price and time. The INI file written is read by 'mmsim gen --config market.ini'\n"
    "(flags given to gen override it). A tape of fewer than 1000 rows is fitted with a\n"
    "warning: the estimates are rough. Then the fit is checked: the tape's facts beside their\n"
    "mean +- sd over the synthetic days of seeds 1..N (N = 20; the fit itself uses other seeds).\n"
    "\n"
    "  --symbol S        the instrument (needed when the file holds more than one)\n"
    "  -o, --output F    the INI file to write (replaced if it exists)\n"
    "  --facts           print the tape's stylised facts (rates, spreads, queues, volatility\n"
    "                    over 1/10/60 s, trade impact, trade sign correlation); -o is then\n"
    "                    optional\n"
    "  --check-seeds N   synthetic days of the fit's check, 2..1000, or 0: no check (default\n"
    "                    20); each has the tape's rows, or fewer when N x rows > 8000000\n"
    "  --no-verify       skip the fingerprint check of the tape\n"
    "  -h, --help        this help\n";

/* Fewer rows than this and the fit is written with a warning (docs/synthetic.md, "Calibration"):
 * each estimate is a count's share or rate, within about 1/sqrt(count) of the truth, so below
 * 1000 events the rate is off by 3% or more and the trade share, runs and impact rest on tens of
 * trades. */
#define CALIBRATE_MIN_ROWS 1000

/* The fit's check generates at most this many events (N days of the tape's rows, or shorter days):
 * a second or so. */
#define CALIBRATE_CHECK_EVENTS 8000000

static void print_facts(const mm_ticks *t, const mm_facts *f)
{
    printf("instrument %s: %" PRId64 " rows, %.1f s\n", t->inst.symbol, f->rows, f->seconds);
    printf("events_per_s %.4g\ntrades_per_s %.4g\n", f->events_per_s, f->trades_per_s);
    printf("traded_lots %" PRId64 " (%.4g per trade)\n", f->trade_lots,
           f->trades ? (double)f->trade_lots / (double)f->trades : 0.0);
    printf("spread_mean_ticks %.4g\nspread_p99_ticks %d\n", f->spread_mean, f->spread_p99);
    printf("spread_share 1:%.3f 2:%.3f 3:%.3f 4:%.3f 5+:%.3f\n", f->spread_share[0],
           f->spread_share[1], f->spread_share[2], f->spread_share[3], f->spread_share[4]);
    printf("queue_mean_lots %.4g\nnew_level_lots %.4g (%" PRId64 " levels)\n", f->queue_mean,
           f->new_level_queue, f->new_levels);
    static const char *const H[3] = {"1s", "10s", "60s"};
    for (int k = 0; k < 3; k++)
        printf("vol_%s_ticks %.4g (%" PRId64 " changes)\n", H[k], f->vol[k], f->vol_samples[k]);
    printf("impact_1s_ticks %.4g\nimprove_share %.4g\n", f->impact_1s, f->improve_share);
    printf("trade_sign_corr lag1 %.4g lag%d %.4g\n", f->sign_corr[0], f->sign_lag, f->sign_corr[1]);
}

/* The INI text: every key `mmsim gen --config` knows, with doubles in their shortest exact form. */
static int write_ini(FILE *o, const char *in, const mm_gen_params *p, const mm_facts *f, int capped)
{
    char b[64];
    fprintf(o, "# mmsim calibrate %s (instrument %s): docs/synthetic.md, \"Calibration\"\n", in,
            p->symbol);
    fprintf(o,
            "# facts: %.4g events/s, %.4g trades/s, mean spread %.4g ticks, vol 1s/10s/60s "
            "%.4g/%.4g/%.4g ticks, impact %.4g ticks, trade sign correlation lag 1/%d "
            "%.4g/%.4g\n",
            f->events_per_s, f->trades_per_s, f->spread_mean, f->vol[0], f->vol[1], f->vol[2],
            f->impact_1s, f->sign_lag, f->sign_corr[0], f->sign_corr[1]);
    if (capped)
        fprintf(o, "# vol was lowered to meet vol^2/rate + trade_frac <= 0.9: the generator "
                   "cannot move the mid as often as this tape does\n");
    fprintf(o, "[gen]\nsymbol = %s\nseed = %" PRIu64 "\nevents = %" PRId64 "\n", p->symbol, p->seed,
            p->events);
    fprintf(o, "start_ns = %" PRId64 "\n", p->start_ns);
    fprintf(o, "rate = %s\n", cli_fmt_shortest(p->rate_hz, b, sizeof b));
    fprintf(o, "vol = %s\n", cli_fmt_shortest(p->vol_ticks, b, sizeof b));
    fprintf(o, "trade_frac = %s\n", cli_fmt_shortest(p->trade_frac, b, sizeof b));
    fprintf(o, "informed = %s\n", cli_fmt_shortest(p->informed, b, sizeof b));
    fprintf(o, "move_ticks = %d\n", p->move_ticks);
    fprintf(o, "improve_frac = %s\n", cli_fmt_shortest(p->improve_frac, b, sizeof b));
    fprintf(o, "trade_persist = %s\n", cli_fmt_shortest(p->trade_persist, b, sizeof b));
    fprintf(o, "trade_size = %d\n", p->trade_size);
    fprintf(o, "start_px = %d\nmax_spread = %d\nmean_queue = %d\n", p->start_px, p->max_spread,
            p->mean_queue);
    fprintf(o, "tick_size = %s\n", cli_fmt_shortest(p->tick_size, b, sizeof b));
    fprintf(o, "lot_size = %s\n", cli_fmt_shortest(p->lot_size, b, sizeof b));
    return ferror(o) ? -1 : 0;
}

/* The fit's check (docs/synthetic.md, "The fit"): the tape's facts beside their mean +- sd over
 * the synthetic days of seeds 1..seeds. Returns an exit status. */
static int print_check(const char *C, const char *in, const mm_ticks *t, const mm_gen_params *p,
                       int seeds)
{
    int64_t events = t->n;
    if (events > CALIBRATE_CHECK_EVENTS / seeds) events = CALIBRATE_CHECK_EVENTS / seeds;
    mm_gen_fit r;
    mm_error e = {0};
    if (mm_gen_fit_check(t, p, seeds, events, &r, &e)) {
        cli_err("%s: %s: %s: fit check: %s", C, in, p->symbol, e.msg);
        return MM_EXIT_RUNTIME;
    }
    printf("fit check: the tape beside %d synthetic days of the fit (seeds 1..%d, %" PRId64
           " events each%s), mean +- sd over the days:\n",
           seeds, seeds, events,
           events < t->n ? ", fewer than the tape's rows: its trades and lots scaled to them" : "");
    printf("  %-22s %12s %27s %8s\n", "fact", "real", "synthetic", "off");
    for (int k = 0; k < MM_FIT_FACTS; k++) {
        char off[32] = "-";
        if (r.real[k] != 0) snprintf(off, sizeof off, "%+.1f%%", 100 * (r.mean[k] / r.real[k] - 1));
        /* Counts of a day (up to millions of lots) in full, the rest to 6 digits. */
        const char *name = mm_fit_fact_name((mm_fit_fact)k);
        if (fabs(r.real[k]) >= 1e5)
            printf("  %-22s %12.0f %13.0f +- %-10.3g %8s\n", name, r.real[k], r.mean[k], r.sd[k],
                   off);
        else
            printf("  %-22s %12.6g %13.6g +- %-10.3g %8s\n", name, r.real[k], r.mean[k], r.sd[k],
                   off);
    }
    return MM_EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *C = "calibrate";
    const char *symbol = NULL, *out = NULL;
    int facts = 0, flags = 0;
    int64_t seeds = 20;
    enum { O_SYMBOL = 256, O_FACTS, O_NOVERIFY, O_SEEDS };
    static const struct option opts[] = {{"symbol", 1, 0, O_SYMBOL},
                                         {"output", 1, 0, 'o'},
                                         {"facts", 0, 0, O_FACTS},
                                         {"help", 0, 0, 'h'},
                                         {"no-verify", 0, 0, O_NOVERIFY},
                                         {"check-seeds", 1, 0, O_SEEDS},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SYMBOL:
            symbol = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case O_FACTS:
            facts = 1;
            break;
        case O_NOVERIFY:
            flags |= MM_LOAD_NO_VERIFY;
            break;
        case O_SEEDS:
            if (cli_i64(C, "--check-seeds", optarg, 0, 1000, &seeds)) return MM_EXIT_USAGE;
            if (seeds == 1) {
                cli_err("%s: --check-seeds: 1 gives no spread over seeds; give 0 (no check) or "
                        "2..1000",
                        C);
                return MM_EXIT_USAGE;
            }
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "calibrate", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one tick file (see 'mmsim calibrate --help')", C);
        return MM_EXIT_USAGE;
    }
    const char *in = argv[optind];
    if (!out && !facts) {
        cli_err("%s: -o/--output is required (or --facts)", C);
        return MM_EXIT_USAGE;
    }
    const char *inputs[] = {in, NULL};
    if (out && (cli_check_output(C, "-o", out, inputs, 1) ||
                cli_check_not_h5(C, "-o", out, "an INI file")))
        return MM_EXIT_USAGE;
    mm_error e = {0};
    mm_ticks t = {0};
    if (mm_ticks_load(in, symbol, flags, &t, &e)) return cli_fail(&e);
    mm_gen_params p;
    mm_facts f;
    int capped = 0;
    int rc = mm_gen_calibrate(&t, &p, &f, &capped, &e);
    if (rc) {
        mm_ticks_free(&t);
        cli_err("%s: %s: %s", C, in, e.msg);
        return MM_EXIT_RUNTIME;
    }
    if (facts) print_facts(&t, &f);
    if (!out) {
        mm_ticks_free(&t);
        return MM_EXIT_OK;
    }
    /* All or nothing: a temporary beside the output, renamed over it once complete. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    FILE *o = fopen(tmp, "w");
    if (!o) {
        cli_err("%s: -o %s: %s", C, out, strerror(errno));
        mm_ticks_free(&t);
        return MM_EXIT_RUNTIME;
    }
    int bad = write_ini(o, in, &p, &f, capped);
    if (fclose(o) || bad || rename(tmp, out)) {
        cli_err("%s: -o %s: %s", C, out, strerror(errno ? errno : EIO));
        unlink(tmp);
        mm_ticks_free(&t);
        return MM_EXIT_RUNTIME;
    }
    if (f.rows < CALIBRATE_MIN_ROWS)
        cli_err("%s: %s: %s: fitted to %" PRId64 " rows, fewer than %d: the estimates are rough "
                "(docs/synthetic.md, \"Calibration\")",
                C, in, p.symbol, f.rows, CALIBRATE_MIN_ROWS);
    printf("wrote %s: rate %.6g/s, vol %.4g ticks/sqrt(s), trade_frac %.4g, informed %.3g, "
           "move_ticks %d, improve_frac %.3g, trade_persist %.4g, trade_size %d, max_spread %d, "
           "mean_queue %d%s\n",
           out, p.rate_hz, p.vol_ticks, p.trade_frac, p.informed, p.move_ticks, p.improve_frac,
           p.trade_persist, p.trade_size, p.max_spread, p.mean_queue,
           capped ? " (vol capped: see the file)" : "");
    fflush(stdout);
    rc = seeds ? print_check(C, in, &t, &p, (int)seeds) : MM_EXIT_OK;
    mm_ticks_free(&t);
    return rc;
}
