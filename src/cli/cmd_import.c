/* mmsim import: LOBSTER, Binance captures and generic CSV -> a tick file (docs/import-*.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mmsim/import.h"

static const char HELP[] =
    "usage: mmsim import lobster --message M --orderbook O --date YYYY-MM-DD --symbol X -o "
    "ticks.h5 [options]\n"
    "       mmsim import binance -i CAPTURE [-i NEXT_DAY ...] --symbol X --tick T --lot L -o "
    "ticks.h5 [options]\n"
    "       mmsim import csv --input FILE --map MAP --symbol X --tick T --lot L -o ticks.h5 "
    "[options]\n"
    "\n"
    "Read vendor files (plain or gzip) into a tick file, creating it or adding the instrument to "
    "it.\n"
    "The whole input is parsed and checked before anything is written; on error nothing is "
    "written.\n"
    "\n"
    "common options:\n"
    "  --symbol X        instrument symbol, [A-Za-z0-9._-]+\n"
    "  -o, --output F    tick file to create, or to add the instrument to\n"
    "  --tick T          price units per tick, decimal (lobster: default 0.01 dollars); also\n"
    "                    --tick-size, as gen says\n"
    "  --lot L           size units per lot, decimal (lobster: default 1 share); also --lot-size\n"
    "  --year-seconds S  the market's trading seconds per year, recorded for Sharpe (default:\n"
    "                    lobster 5896800 = 252 x 6.5 h, binance 31536000 = 365 x 24 h, csv none)\n"
    "  --skip-bad        skip malformed lines (counted and reported) instead of failing\n"
    "  --replace         replace the instrument if the file already holds it\n"
    "  --compress N      gzip level 0..9 for the columns (default 0: none)\n"
    "  --depth-levels N  lobster, binance: levels per side kept in the depth stream (docs/\n"
    "                    formats.md 'Depth'), 0..1000; 0: none, the level-1 tape alone (default:\n"
    "                    lobster every level of the file, binance 20)\n"
    "  -h, --help        this help\n"
    "lobster (docs/import-lobster.md):\n"
    "  --message M       the *_message_N.csv[.gz] file\n"
    "  --orderbook O     the *_orderbook_N.csv[.gz] file (any number of levels, all kept as\n"
    "                    depth with the message file's order ids)\n"
    "  --date D          trading day, YYYY-MM-DD; times are New York local time\n"
    "                    (--symbol, --date and --orderbook default to what LOBSTER's file name\n"
    "                    says: AMZN_2012-06-21_34200000_57600000_message_1.csv)\n"
    "  --subtick-reject  a hidden/cross trade price between ticks is an error (default: rounded)\n"
    "binance (docs/import-binance.md): markets spot and usdm (USD-M futures)\n"
    "  -i, --input F     capture: '<receive ns> <websocket JSON>' lines and one REST snapshot;\n"
    "                    repeat for consecutive days (in order): one tape, the book carried over\n"
    "  --market M        spot or usdm (default: taken from the messages' shape, e.g. a\n"
    "                    depthUpdate with \"pu\" is usdm, one without is spot)\n"
    "  --symbol X        the stream's symbol, optionally dated: BTCUSDT.20240808 (the part\n"
    "                    before the first '.' must match the messages)\n"
    "  --skip-gaps       go on over gaps in the depth update-id chain (counted)\n"
    "  --no-snapshot     the capture has no REST snapshot (a later day alone): the tape is\n"
    "                    the bookTicker L1; depth updates are checked, not applied\n"
    "csv (docs/import-csv.md):\n"
    "  -i, --input F     CSV file\n"
    "  --map MAP         "
    "ts=COL,bid=COL,bid_sz=COL,ask=COL,ask_sz=COL[,trade_px=COL,trade_sz=COL,side=COL]\n"
    "                    COL: a header name or a 1-based column number\n"
    "  --time FMT        ns (default), us, ms, s (decimals allowed) since the epoch, or iso "
    "(ISO-8601)\n"
    "  --delim C         field separator, one character or 'tab' (default ',')\n"
    "  --no-header       the first line is data\n"
    "  --allow-crossed   keep locked or crossed quotes (sets allow_crossed)\n";

static void print_report(const char *fmt, const mm_ticks *t, const mm_import_report *r,
                         const char *out)
{
    printf("imported %s (%s): %" PRId64 " rows, %" PRId64 " trades (%" PRId64 " lots) from %" PRId64
           " lines (%.1f MB) to %s, fingerprint %016" PRIx64 "\n",
           t->inst.symbol, fmt, r->rows, r->trades, r->trade_volume_lots, r->lines,
           (double)r->bytes * 1e-6, out, t->inst.fingerprint);
    if (!strcmp(fmt, "lobster")) {
        printf("lobster: %d levels; messages by type 1..7: %" PRId64 " %" PRId64 " %" PRId64
               " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
               "; sub-tick trade prices rounded: %" PRId64 "; crossed rows: %" PRId64 "\n",
               r->levels, r->msg_by_type[1], r->msg_by_type[2], r->msg_by_type[3],
               r->msg_by_type[4], r->msg_by_type[5], r->msg_by_type[6], r->msg_by_type[7],
               r->subtick_rounded, r->crossed_rows);
    } else if (!strcmp(fmt, "binance")) {
        printf("binance %s: %d file%s; clock offset %.3f s (exchange - receive); ", r->market,
               r->files, r->files == 1 ? "" : "s", (double)r->clock_offset_ns * 1e-9);
        printf("%" PRId64 " depth updates, %" PRId64 " bookTicker rows, %" PRId64
               " trades; %" PRId64 " bookTickers checked against the depth book; %" PRId64
               " messages before the snapshot not used; %" PRId64 " gaps skipped\n",
               r->depth_updates, r->book_tickers, r->trade_msgs, r->ticker_checks,
               r->dropped_before_sync, r->gaps);
    } else if (r->crossed_rows) {
        printf("csv: %" PRId64 " crossed or locked rows kept (allow_crossed set)\n",
               r->crossed_rows);
    }
    if (r->depth_levels > 0)
        printf("depth: %d levels per side, %" PRId64 " depth rows\n", r->depth_levels,
               r->depth_rows);
    char first[1024];
    if (r->skipped)
        printf("skipped %" PRId64 " bad lines; first: %s\n", r->skipped,
               cli_libmsg(r->first_skipped, first, sizeof first));
}

/* The parts of a LOBSTER message file's name, SYMBOL_YYYY-MM-DD_START_END_message_LEVEL.csv[.gz]
 * (any directory before it): the symbol, the date, and the path of the order book file beside it
 * (_message_ replaced by _orderbook_). 0, or -1 when the name has another shape. */
static int lobster_name(const char *path, char sym[64], char date[16], char *ob, size_t ob_cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *u1 = strchr(base, '_');
    const char *msg = strstr(base, "_message_");
    if (!u1 || !msg || u1 == base || (size_t)(u1 - base) >= 64 || strlen(u1 + 1) < 11) return -1;
    const char *d = u1 + 1;
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? d[i] != '-' : d[i] < '0' || d[i] > '9') return -1;
    if (d[10] != '_') return -1;
    memcpy(sym, base, (size_t)(u1 - base));
    sym[u1 - base] = 0;
    memcpy(date, d, 10);
    date[10] = 0;
    size_t head = (size_t)(msg - path);
    if (head + strlen(msg) + 3 >= ob_cap) return -1;
    snprintf(ob, ob_cap, "%.*s_orderbook_%s", (int)head, path, msg + strlen("_message_"));
    return 0;
}

int cmd_import(int argc, char **argv)
{
    const char *C = "import";
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(HELP, argc < 2 ? stderr : stdout);
        return argc < 2 ? MM_EXIT_USAGE : MM_EXIT_OK;
    }
    const char *fmt = argv[1];
    int is_lob = !strcmp(fmt, "lobster"), is_bn = !strcmp(fmt, "binance"),
        is_csv = !strcmp(fmt, "csv");
    if (!is_lob && !is_bn && !is_csv) {
        cli_err("%s: unknown format '%s' (lobster, binance or csv)", C, fmt);
        return MM_EXIT_USAGE;
    }
    mm_import_opts o;
    mm_import_opts_init(&o);
    mm_write_opts wo = {0};
    const char *out = NULL, *message = NULL, *orderbook = NULL;
    /* -i values, in order; inputs[0..2) are reserved for --message and --orderbook (the output
     * check compares the output with every input). */
    const char **inputs = NULL;
    int n_in = 0, cap_in = 0, rc_exit = MM_EXIT_USAGE;
    enum {
        O_SYMBOL = 256,
        O_TICK,
        O_LOT,
        O_SKIPBAD,
        O_REPLACE,
        O_COMP,
        O_MSG,
        O_OB,
        O_DATE,
        O_SUBTICK,
        O_GAPS,
        O_MAP,
        O_TIME,
        O_DELIM,
        O_NOHDR,
        O_CROSSED,
        O_MARKET,
        O_NOSNAP,
        O_YEAR,
        O_DEPTH
    };
    static const struct option opts[] = {{"symbol", 1, 0, O_SYMBOL},
                                         {"output", 1, 0, 'o'},
                                         {"tick", 1, 0, O_TICK},
                                         {"lot", 1, 0, O_LOT},
                                         {"tick-size", 1, 0, O_TICK}, /* gen's spelling */
                                         {"lot-size", 1, 0, O_LOT},
                                         {"skip-bad", 0, 0, O_SKIPBAD},
                                         {"replace", 0, 0, O_REPLACE},
                                         {"compress", 1, 0, O_COMP},
                                         {"message", 1, 0, O_MSG},
                                         {"orderbook", 1, 0, O_OB},
                                         {"date", 1, 0, O_DATE},
                                         {"subtick-reject", 0, 0, O_SUBTICK},
                                         {"input", 1, 0, 'i'},
                                         {"skip-gaps", 0, 0, O_GAPS},
                                         {"map", 1, 0, O_MAP},
                                         {"time", 1, 0, O_TIME},
                                         {"delim", 1, 0, O_DELIM},
                                         {"no-header", 0, 0, O_NOHDR},
                                         {"allow-crossed", 0, 0, O_CROSSED},
                                         {"market", 1, 0, O_MARKET},
                                         {"no-snapshot", 0, 0, O_NOSNAP},
                                         {"year-seconds", 1, 0, O_YEAR},
                                         {"depth-levels", 1, 0, O_DEPTH},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    int64_t v;
    optind = 1;
    opterr = 0;
    argc--, argv++; /* getopt starts after the format */
    while ((c = getopt_long(argc, argv, ":o:i:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SYMBOL:
            o.symbol = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case O_TICK:
            o.tick = optarg;
            break;
        case O_LOT:
            o.lot = optarg;
            break;
        case O_YEAR:
            if (cli_f64(C, "--year-seconds", optarg, 1, 1e12, &o.year_s)) goto fail;
            break;
        case O_SKIPBAD:
            o.skip_bad = 1;
            break;
        case O_DEPTH:
            if (cli_i64(C, "--depth-levels", optarg, 0, MM_DEPTH_MAX_LEVELS, &v)) goto fail;
            o.depth_levels = (int)v;
            break;
        case O_REPLACE:
            wo.replace = 1;
            break;
        case O_COMP:
            if (cli_i64(C, "--compress", optarg, 0, 9, &v)) goto fail;
            wo.compress_level = (int)v;
            break;
        case O_MSG:
            message = optarg;
            break;
        case O_OB:
            orderbook = optarg;
            break;
        case O_DATE:
            o.date = optarg;
            break;
        case O_SUBTICK:
            o.subtick_reject = 1;
            break;
        case 'i':
            if (n_in == cap_in) {
                int nc = cap_in ? 2 * cap_in : 8;
                const char **ni = realloc(inputs, (size_t)nc * sizeof *ni);
                if (!ni) {
                    cli_err("%s: out of memory", C);
                    rc_exit = MM_EXIT_RUNTIME;
                    goto fail;
                }
                inputs = ni;
                cap_in = nc;
            }
            inputs[n_in++] = optarg;
            break;
        case O_MARKET:
            if (strcmp(optarg, "spot") && strcmp(optarg, "usdm")) {
                cli_err("%s: --market: '%s' is not spot or usdm", C, optarg);
                goto fail;
            }
            o.market = optarg;
            break;
        case O_NOSNAP:
            o.no_snapshot = 1;
            break;
        case O_GAPS:
            o.skip_gaps = 1;
            break;
        case O_MAP:
            o.csv_map = optarg;
            break;
        case O_TIME:
            o.csv_time = optarg;
            break;
        case O_DELIM:
            if (!strcmp(optarg, "tab"))
                o.csv_delim = '\t';
            else if (strlen(optarg) == 1)
                o.csv_delim = optarg[0];
            else {
                cli_err("%s: --delim: '%s' is not one character or 'tab'", C, optarg);
                goto fail;
            }
            break;
        case O_NOHDR:
            o.csv_no_header = 1;
            break;
        case O_CROSSED:
            o.csv_allow_crossed = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            rc_exit = MM_EXIT_OK;
            goto fail;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "import", c == ':', argv, opts);
            goto fail;
        }
    }
    if (optind < argc) {
        cli_err("%s: unexpected argument '%s'", C, argv[optind]);
        goto fail;
    }
    /* A message file that is not there is said first: the names taken from it below, and the
     * flags then "required", would hide it. */
    if (is_lob && message && access(message, F_OK) != 0) {
        cli_err("%s lobster: --message %s: %s", C, message, strerror(errno));
        rc_exit = MM_EXIT_RUNTIME;
        goto fail;
    }
    /* LOBSTER names its files AMZN_2012-06-21_34200000_57600000_message_1.csv: the symbol, the
     * date and the order book file come from the message file's name when not given. */
    char lob_sym[64], lob_date[16], lob_ob[4096];
    if (is_lob && message && lobster_name(message, lob_sym, lob_date, lob_ob, sizeof lob_ob) == 0) {
        if (!o.symbol) o.symbol = lob_sym;
        if (!o.date) o.date = lob_date;
        if (!orderbook && access(lob_ob, F_OK) == 0) orderbook = lob_ob;
    }
    /* Every missing flag at once. */
    const char *miss[8];
    int n_miss = 0;
    if (!out) miss[n_miss++] = "-o/--output";
    if (!o.symbol) miss[n_miss++] = "--symbol";
    if (is_lob) {
        if (!message) miss[n_miss++] = "--message";
        if (!orderbook) miss[n_miss++] = "--orderbook";
        if (!o.date) miss[n_miss++] = "--date";
    } else {
        if (!n_in) miss[n_miss++] = "-i/--input";
        if (!o.tick) miss[n_miss++] = "--tick";
        if (!o.lot) miss[n_miss++] = "--lot";
        if (is_csv && !o.csv_map) miss[n_miss++] = "--map";
    }
    if (n_miss == 1) {
        cli_err("%s %s: %s is required", C, fmt, miss[0]);
        goto fail;
    }
    if (n_miss > 1) {
        char list[256] = "";
        size_t len = 0;
        for (int i = 0; i < n_miss; i++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                    i == 0            ? ""
                                    : i == n_miss - 1 ? " and "
                                                      : ", ",
                                    miss[i]);
        cli_err("%s %s: %s are required", C, fmt, list);
        goto fail;
    }
    if (is_csv && n_in > 1) {
        cli_err("%s csv: -i/--input: given %d times; csv reads one file", C, n_in);
        goto fail;
    }
    if (is_lob && n_in) {
        cli_err("%s lobster: -i/--input: not a lobster option (the files are --message and "
                "--orderbook)",
                C);
        goto fail;
    }
    if (is_csv && o.depth_levels != -1) {
        cli_err("%s csv: --depth-levels is a lobster and binance option (a CSV of quotes has no "
                "depth)",
                C);
        goto fail;
    }
    if (!is_bn && (o.market || o.no_snapshot)) {
        cli_err("%s %s: %s is a binance option", C, fmt, o.market ? "--market" : "--no-snapshot");
        goto fail;
    }
    /* The output is never an input, never a directory, never an HDF5 file of another kind:
     * checked before any input is read. */
    {
        const char **all = malloc(((size_t)n_in + 2) * sizeof *all);
        if (!all) {
            cli_err("%s: out of memory", C);
            rc_exit = MM_EXIT_RUNTIME;
            goto fail;
        }
        all[0] = message;
        all[1] = orderbook;
        for (int i = 0; i < n_in; i++)
            all[2 + i] = inputs[i];
        int bad = cli_check_output(C, "-o", out, all, n_in + 2) ||
                  cli_check_h5_kind(C, "-o", out, "mmsim-ticks/", "tick file");
        free(all);
        if (bad) goto fail;
    }
    mm_error e = {0};
    mm_ticks t = {0};
    mm_import_report rep;
    int rc = is_lob  ? mm_import_lobster(message, orderbook, &o, &t, &rep, &e)
             : is_bn ? mm_import_binance_files(inputs, n_in, &o, &t, &rep, &e)
                     : mm_import_csv(inputs[0], &o, &t, &rep, &e);
    if (rc) {
        if (rc == MM_EUSAGE) {
            cli_err("%s %s: --%s", C, fmt, e.msg);
            goto fail;
        }
        rc_exit = cli_fail(&e);
        goto fail;
    }
    int before = cli_instrument_count(out); /* -1: a new file */
    rc = mm_ticks_write(out, &t, &wo, &e);
    if (rc) {
        mm_ticks_free(&t);
        rc_exit = cli_fail(&e);
        goto fail;
    }
    print_report(fmt, &t, &rep, out);
    if (before >= 0) cli_note_added(out, t.inst.symbol, before);
    mm_ticks_free(&t);
    rc_exit = MM_EXIT_OK;
fail:
    free(inputs);
    return rc_exit;
}
