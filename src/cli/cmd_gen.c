/* mmsim gen: synthetic market into a tick file. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char HELP[] =
    "usage: mmsim gen --seed S --events N --symbol X -o ticks.h5 [options]\n"
    "\n"
    "Generate a synthetic market (docs/synthetic.md): the mid follows a random walk of the given\n"
    "volatility, spreads of 1..max-spread ticks, queue sizes, Poisson arrivals of trades with "
    "aggressor\n"
    "sides. The same parameters give the same bytes (and fingerprint) on every machine.\n"
    "\n"
    "  --seed S          master seed (default 1)\n"
    "  --events N        number of events (default 1000000)\n"
    "  --symbol X        instrument symbol, [A-Za-z0-9._-]+ (default SYN)\n"
    "  -o, --output F    tick file to create, or to add the instrument to\n"
    "  --rate HZ         mean events per second (default 1000)\n"
    "  --vol V           mid volatility, ticks per sqrt(second) (default 2)\n"
    "  --trade-frac F    fraction of events that are trades (default 0.1)\n"
    "  --start-px P      first best bid, ticks (default 100000)\n"
    "  --max-spread K    spreads drawn in 1..K ticks (default 3)\n"
    "  --mean-queue Q    mean displayed size at the touch, lots (default 50)\n"
    "  --tick-size T     price units per tick (default 0.01); also --tick, as import says\n"
    "  --lot-size L      size units per lot (default 1); also --lot\n"
    "  --start-ns T      first event time, ns since the epoch (default 2026-01-02T14:30:00Z)\n"
    "  --compress N      gzip level 0..9 for the columns (default 0: none)\n"
    "  --replace         replace the instrument if the file already holds it\n"
    "  -h, --help        this help\n";

int cmd_gen(int argc, char **argv)
{
    const char *C = "gen";
    mm_gen_params p;
    mm_gen_defaults(&p);
    mm_write_opts wo = {0};
    const char *out = NULL;
    enum {
        O_SEED = 256,
        O_EVENTS,
        O_SYMBOL,
        O_RATE,
        O_VOL,
        O_TFRAC,
        O_PX,
        O_SPREAD,
        O_QUEUE,
        O_TICK,
        O_LOT,
        O_START,
        O_COMP,
        O_REPLACE
    };
    static const struct option opts[] = {
        {"seed", 1, 0, O_SEED},        {"events", 1, 0, O_EVENTS},  {"symbol", 1, 0, O_SYMBOL},
        {"output", 1, 0, 'o'},         {"rate", 1, 0, O_RATE},      {"vol", 1, 0, O_VOL},
        {"trade-frac", 1, 0, O_TFRAC}, {"start-px", 1, 0, O_PX},    {"max-spread", 1, 0, O_SPREAD},
        {"mean-queue", 1, 0, O_QUEUE}, {"tick-size", 1, 0, O_TICK}, {"lot-size", 1, 0, O_LOT},
        {"tick", 1, 0, O_TICK}, /* import's spelling */
        {"lot", 1, 0, O_LOT},          {"start-ns", 1, 0, O_START}, {"compress", 1, 0, O_COMP},
        {"replace", 0, 0, O_REPLACE},  {"help", 0, 0, 'h'},         {0, 0, 0, 0}};
    int c;
    int64_t v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SEED:
            if (cli_u64(C, "--seed", optarg, &p.seed)) return MM_EXIT_USAGE;
            break;
        case O_EVENTS:
            if (cli_i64(C, "--events", optarg, 0, INT64_C(1) << 36, &p.events))
                return MM_EXIT_USAGE;
            break;
        case O_SYMBOL:
            if (strlen(optarg) >= sizeof p.symbol) {
                cli_err("%s: --symbol: '%s' is longer than %d characters", C, optarg,
                        MM_SYMBOL_MAX - 1);
                return MM_EXIT_USAGE;
            }
            strcpy(p.symbol, optarg);
            break;
        case 'o':
            out = optarg;
            break;
        case O_RATE:
            if (cli_f64(C, "--rate", optarg, 1e-6, 1e9, &p.rate_hz)) return MM_EXIT_USAGE;
            break;
        case O_VOL:
            if (cli_f64(C, "--vol", optarg, 0, 1e6, &p.vol_ticks)) return MM_EXIT_USAGE;
            break;
        case O_TFRAC:
            if (cli_f64(C, "--trade-frac", optarg, 0, 0.9, &p.trade_frac)) return MM_EXIT_USAGE;
            break;
        case O_PX:
            if (cli_i64(C, "--start-px", optarg, 1000, INT32_MAX / 2, &v)) return MM_EXIT_USAGE;
            p.start_px = (int32_t)v;
            break;
        case O_SPREAD:
            if (cli_i64(C, "--max-spread", optarg, 1, 100, &v)) return MM_EXIT_USAGE;
            p.max_spread = (int32_t)v;
            break;
        case O_QUEUE:
            if (cli_i64(C, "--mean-queue", optarg, 1, 1000000, &v)) return MM_EXIT_USAGE;
            p.mean_queue = (int32_t)v;
            break;
        case O_TICK:
            if (cli_f64(C, "--tick-size", optarg, 1e-12, 1e12, &p.tick_size)) return MM_EXIT_USAGE;
            break;
        case O_LOT:
            if (cli_f64(C, "--lot-size", optarg, 1e-12, 1e12, &p.lot_size)) return MM_EXIT_USAGE;
            break;
        case O_START:
            if (cli_i64(C, "--start-ns", optarg, 0, INT64_C(4102444800000000000), &p.start_ns))
                return MM_EXIT_USAGE;
            break;
        case O_COMP:
            if (cli_i64(C, "--compress", optarg, 0, 9, &v)) return MM_EXIT_USAGE;
            wo.compress_level = (int)v;
            break;
        case O_REPLACE:
            wo.replace = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        case ':':
            cli_err("%s: %s needs a value", C, argv[optind - 1]);
            return MM_EXIT_USAGE;
        default:
            cli_unknown_option(C, "gen", argv[optind - 1], opts);
            return MM_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_err("%s: unexpected argument '%s'", C, argv[optind]);
        return MM_EXIT_USAGE;
    }
    if (!out) {
        cli_err("%s: -o/--output is required", C);
        return MM_EXIT_USAGE;
    }
    /* The output before any work: a directory, an unwritable place, or an existing file that is not
     * a tick file (a results file, any other HDF5 file, a text file) is a usage error. */
    if (cli_check_output(C, "-o", out, NULL, 0) ||
        cli_check_h5_kind(C, "-o", out, "mmsim-ticks/", "tick file"))
        return MM_EXIT_USAGE;
    mm_error e = {0};
    mm_ticks t = {0};
    int rc = mm_gen_ticks(&p, &t, &e);
    if (rc == -EINVAL) {
        cli_err("%s: --%s", C, e.msg);
        return MM_EXIT_USAGE;
    }
    if (rc) return cli_fail(&e);
    int before = cli_instrument_count(out); /* -1: a new file */
    rc = mm_ticks_write(out, &t, &wo, &e);
    if (rc) {
        mm_ticks_free(&t);
        return cli_fail(&e);
    }
    printf("wrote %s: %" PRId64 " events to %s, fingerprint %016" PRIx64 "\n", t.inst.symbol, t.n,
           out, t.inst.fingerprint);
    if (before >= 0) cli_note_added(out, t.inst.symbol, before);
    mm_ticks_free(&t);
    return MM_EXIT_OK;
}
