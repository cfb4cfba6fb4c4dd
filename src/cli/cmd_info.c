/* mmsim info: describe the instruments of a tick file. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char HELP[] =
    "usage: mmsim info ticks.h5 [--symbol X] [--list] [--no-verify]\n"
    "\n"
    "Print, for each instrument: rows, time span, tick/lot size, source, fingerprint (verified "
    "against\n"
    "the content), spread, mid, depth (levels per side and depth rows by cause), the signal (when "
    "the\n"
    "tape has one: its name, range, mean) and trade statistics.\n"
    "Validates every row (docs/formats.md).\n"
    "\n"
    "  --symbol X     only this instrument\n"
    "  --list         the instruments' symbols only, one a line (no validation, no statistics)\n"
    "  --no-verify    skip the fingerprint check\n"
    "  -h, --help     this help\n";

static void print_one(const mm_ticks *t, int verified)
{
    mm_ticks_stats s;
    mm_ticks_summarize(t, &s);
    char t0[64], t1[64];
    cli_fmt_time(s.t_first_ns, t0, sizeof t0);
    cli_fmt_time(s.t_last_ns, t1, sizeof t1);
    printf("instrument %s\n", t->inst.symbol);
    printf("  source         %s\n", t->inst.source[0] ? t->inst.source : "(none)");
    printf("  rows           %" PRId64 "\n", s.rows);
    if (s.rows > 0)
        printf("  time span      %s .. %s (%.3f s)\n", t0, t1,
               ((double)s.t_last_ns - (double)s.t_first_ns) * 1e-9);
    if (s.rows > 0) {
        static const char *const unit[] = {"1 ns",   "10 ns", "100 ns", "1 us",   "10 us",
                                           "100 us", "1 ms",  "10 ms",  "100 ms", "1 s"};
        int k = 0;
        for (int64_t r = s.ts_resolution_ns; r > 1; r /= 10)
            k++;
        printf("  clock          every timestamp a multiple of %s (latencies below it give the "
               "same runs); %" PRId64 " rows share the timestamp of the row before\n",
               unit[k], s.same_ts_rows);
    }
    printf("  tick size      %.10g\n", t->inst.tick_size);
    printf("  lot size       %.10g\n", t->inst.lot_size);
    printf("  fingerprint    %016" PRIx64 " (%s)\n", t->inst.fingerprint,
           verified ? "verified" : "not verified");
    printf("  crossed books  %s, %" PRId64 " crossed rows, %" PRId64 " rows with an empty side\n",
           t->inst.allow_crossed ? "allowed" : "not allowed", s.crossed_rows, s.empty_side_rows);
    if (s.rows > s.empty_side_rows) {
        printf("  spread ticks   min %" PRId32 ", mean %.4f, max %" PRId32 "\n", s.spread_min,
               s.spread_mean, s.spread_max);
        printf("  mid            min %.10g, max %.10g (price units)\n",
               (double)s.mid2_min * 0.5 * t->inst.tick_size,
               (double)s.mid2_max * 0.5 * t->inst.tick_size);
    }
    if (s.depth_levels > 0) {
        printf("  depth          %" PRId32 " level%s per side, %" PRId64 " depth rows (add %" PRId64
               ", cancel %" PRId64 ", trade %" PRId64 ", show %" PRId64 ", hide %" PRId64 ")",
               s.depth_levels, s.depth_levels == 1 ? "" : "s", s.depth_rows,
               s.depth_by_cause[MM_DEPTH_ADD], s.depth_by_cause[MM_DEPTH_CANCEL],
               s.depth_by_cause[MM_DEPTH_TRADE], s.depth_by_cause[MM_DEPTH_SHOW],
               s.depth_by_cause[MM_DEPTH_HIDE]);
        if (s.depth_ids)
            printf("; order ids: %" PRId64 " of %" PRId64
                   " removals name the row their order joined",
                   s.depth_joins_known, s.depth_removals);
        printf("\n");
    } else {
        printf("  depth          none (level 1 only)\n");
    }
    if (t->signal) { /* docs/formats.md "Signal" */
        double lo = 0, hi = 0, sum = 0;
        int64_t nonzero = 0;
        for (int64_t i = 0; i < t->n; i++) {
            double v = t->signal[i];
            if (i == 0 || v < lo) lo = v;
            if (i == 0 || v > hi) hi = v;
            sum += v;
            nonzero += v != 0;
        }
        printf("  signal         %s: min %.6g, mean %.6g, max %.6g, %" PRId64 " of %" PRId64
               " rows not 0\n",
               t->signal_name, lo, t->n ? sum / (double)t->n : 0.0, hi, nonzero, t->n);
    }
    printf("  trades         %" PRId64 " (buyer-initiated %" PRId64 ", seller-initiated %" PRId64
           "), volume %" PRId64 " lots",
           s.trades, s.buy_trades, s.sell_trades, s.trade_volume_lots);
    if (s.rows > 0 && s.t_last_ns > s.t_first_ns)
        printf(", %.3f trades/s",
               (double)s.trades / (((double)s.t_last_ns - (double)s.t_first_ns) * 1e-9));
    printf("\n");
}

int cmd_info(int argc, char **argv)
{
    const char *C = "info";
    const char *symbol = NULL;
    int flags = 0;
    int list = 0;
    enum { O_SYMBOL = 256, O_NOVERIFY, O_LIST };
    static const struct option opts[] = {{"symbol", 1, 0, O_SYMBOL},
                                         {"list", 0, 0, O_LIST},
                                         {"no-verify", 0, 0, O_NOVERIFY},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_SYMBOL:
            symbol = optarg;
            break;
        case O_NOVERIFY:
            flags |= MM_LOAD_NO_VERIFY;
            break;
        case O_LIST:
            list = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "info", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one tick file (see 'mmsim info --help')", C);
        return MM_EXIT_USAGE;
    }
    const char *path = argv[optind];
    mm_error e = {0};
    int count = 0;
    char(*syms)[MM_SYMBOL_MAX] = NULL;
    /* Every instrument's name, also with --symbol: the first line counts the file's instruments,
     * not the ones shown. */
    int in_file = 0;
    if (mm_ticks_list(path, NULL, 0, &in_file, &e)) return cli_fail(&e);
    syms = calloc((size_t)in_file + 1, MM_SYMBOL_MAX);
    if (!syms) {
        cli_err("%s: out of memory for the list of instruments", C);
        return MM_EXIT_RUNTIME;
    }
    if (mm_ticks_list(path, syms, in_file, &in_file, &e)) {
        free(syms);
        return cli_fail(&e);
    }
    if (list) {
        for (int i = 0; i < in_file; i++)
            if (!symbol || !strcmp(symbol, syms[i])) printf("%s\n", syms[i]);
        free(syms);
        return MM_EXIT_OK;
    }
    int known = !symbol;
    for (int i = 0; symbol && i < in_file; i++)
        known |= !strcmp(symbol, syms[i]);
    if (!known) { /* the load says why, before any line is printed */
        mm_ticks t = {0};
        int r = mm_ticks_load(path, symbol, flags, &t, &e);
        mm_ticks_free(&t);
        if (r) {
            free(syms);
            return cli_fail(&e);
        }
    }
    count = symbol ? 1 : in_file; /* --symbol: loaded by its name as given (never truncated) */
    if (symbol)
        printf("file %s: %d instrument%s, showing %s\n", path, in_file, in_file == 1 ? "" : "s",
               symbol);
    else
        printf("file %s: %d instrument%s\n", path, count, count == 1 ? "" : "s");
    int rc = MM_EXIT_OK;
    for (int i = 0; i < count && rc == MM_EXIT_OK; i++) {
        mm_ticks t = {0};
        if (mm_ticks_load(path, symbol ? symbol : syms[i], flags, &t, &e)) {
            rc = cli_fail(&e);
            break;
        }
        print_one(&t, !(flags & MM_LOAD_NO_VERIFY));
        mm_ticks_free(&t);
    }
    free(syms);
    return rc;
}
