/* mmsim gen: synthetic market into a tick file. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
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
    "  --duration S      instead of --events: S seconds of market, events = round(S x rate)\n"
    "                    (a trading day: --duration 23400)\n"
    "  --symbol X        instrument symbol, [A-Za-z0-9._-]+ (default SYN)\n"
    "  -o, --output F    tick file to create, or to add the instrument to\n"
    "  --rate HZ         mean events per second (default 1000)\n"
    "  --vol V           mid volatility, ticks per sqrt(second) (default 2)\n"
    "  --trade-frac F    fraction of events that are trades (default 0.1)\n"
    "  --start-px P      first best bid, ticks (default 100000)\n"
    "  --max-spread K    spreads drawn in 1..K ticks (default 3)\n"
    "  --mean-queue Q    mean displayed size at the touch, lots (default 50)\n"
    "  --informed P      probability that a trade is informed: the fair price moves one tick\n"
    "                    its way at once (adverse selection; default 0, the old tapes)\n"
    "  --move-ticks J    ticks the fair price jumps in a move (default 1, the old tapes)\n"
    "  --improve-frac F  probability that an event improves a touch when the spread is over one\n"
    "                    tick (default 0.05)\n"
    "  --trade-persist P probability that the event right after a trade is another trade of the\n"
    "                    same side (runs of one sign; 0..0.999, default 0, the old tapes)\n"
    "  --trade-size M    mean size a trade wants, lots (it takes at most the displayed size);\n"
    "                    0..1000000, default 0: max(1, mean-queue / 5), the old tapes\n"
    "  --config F        read the parameters from an INI file (mmsim calibrate writes one): keys\n"
    "                    are the flags' names (rate, trade_frac, ...); flags override the file\n"
    "  --tick-size T     price units per tick (default 0.01); also --tick, as import says\n"
    "  --lot-size L      size units per lot (default 1); also --lot\n"
    "  --start-ns T      first event time, ns since the epoch (default 2026-01-02T14:30:00Z)\n"
    "  --compress N      gzip level 0..9 for the columns (default 0: none)\n"
    "  --replace         replace the instrument if the file already holds it\n"
    "  -h, --help        this help\n";

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
    O_REPLACE,
    O_INFORMED,
    O_CONFIG,
    O_JUMP,
    O_IMPROVE,
    O_DURATION,
    O_PERSIST,
    O_TSIZE
};

/* The parameters' config keys: the flags' names with '_' for '-' (either spelling is accepted). */
static const struct {
    const char *name;
    int key;
} KEYS[] = {{"seed", O_SEED},
            {"events", O_EVENTS},
            {"symbol", O_SYMBOL},
            {"rate", O_RATE},
            {"vol", O_VOL},
            {"trade_frac", O_TFRAC},
            {"start_px", O_PX},
            {"max_spread", O_SPREAD},
            {"mean_queue", O_QUEUE},
            {"tick_size", O_TICK},
            {"lot_size", O_LOT},
            {"start_ns", O_START},
            {"informed", O_INFORMED},
            {"move_ticks", O_JUMP},
            {"improve_frac", O_IMPROVE},
            {"trade_persist", O_PERSIST},
            {"trade_size", O_TSIZE}};
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

/* The flag's name of a key ("trade-frac" for O_TFRAC), in a static buffer. */
static const char *gen_key_name(int key)
{
    static char buf[32];
    for (int k = 0; k < N_KEYS; k++)
        if (KEYS[k].key == key) {
            snprintf(buf, sizeof buf, "%s", KEYS[k].name);
            for (char *c = buf; *c; c++)
                if (*c == '_') *c = '-';
            return buf;
        }
    return "?";
}

/* One parameter from a flag or a config line; `flag` names it in the message ("--rate" or
 * "market.ini:3: rate"). Returns 0 or -1 after printing the error. */
static int gen_set(const char *C, const char *flag, int key, const char *val, mm_gen_params *p)
{
    int64_t v;
    switch (key) {
    case O_SEED:
        if (cli_u64(C, flag, val, &p->seed)) return -1;
        break;
    case O_EVENTS:
        if (cli_i64(C, flag, val, 0, INT64_C(1) << 36, &p->events)) return -1;
        break;
    case O_SYMBOL:
        if (strlen(val) >= sizeof p->symbol) {
            cli_err("%s: %s: '%s' is longer than %d characters", C, flag, val, MM_SYMBOL_MAX - 1);
            return -1;
        }
        strcpy(p->symbol, val);
        break;
    case O_RATE:
        if (cli_f64(C, flag, val, 1e-6, 1e9, &p->rate_hz)) return -1;
        break;
    case O_VOL:
        if (cli_f64(C, flag, val, 0, 1e6, &p->vol_ticks)) return -1;
        break;
    case O_TFRAC:
        if (cli_f64(C, flag, val, 0, 0.9, &p->trade_frac)) return -1;
        break;
    case O_PX:
        if (cli_i64(C, flag, val, 1000, INT32_MAX / 2, &v)) return -1;
        p->start_px = (int32_t)v;
        break;
    case O_SPREAD:
        if (cli_i64(C, flag, val, 1, 100, &v)) return -1;
        p->max_spread = (int32_t)v;
        break;
    case O_QUEUE:
        if (cli_i64(C, flag, val, 1, 1000000, &v)) return -1;
        p->mean_queue = (int32_t)v;
        break;
    case O_TICK:
        if (cli_f64(C, flag, val, 1e-12, 1e12, &p->tick_size)) return -1;
        break;
    case O_LOT:
        if (cli_f64(C, flag, val, 1e-12, 1e12, &p->lot_size)) return -1;
        break;
    case O_IMPROVE:
        if (cli_f64(C, flag, val, 0, 0.5, &p->improve_frac)) return -1;
        break;
    case O_JUMP:
        if (cli_i64(C, flag, val, 1, 1000, &v)) return -1;
        p->move_ticks = (int32_t)v;
        break;
    case O_INFORMED:
        if (cli_f64(C, flag, val, 0, 1, &p->informed)) return -1;
        break;
    case O_PERSIST:
        if (cli_f64(C, flag, val, 0, 0.999, &p->trade_persist)) return -1;
        break;
    case O_TSIZE:
        if (cli_i64(C, flag, val, 0, 1000000, &v)) return -1;
        p->trade_size = (int32_t)v;
        break;
    case O_START:
        if (cli_i64(C, flag, val, 0, INT64_C(4102444800000000000), &p->start_ns)) return -1;
        break;
    default:
        return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = 0;
    return s;
}

/* Strict INI: blank lines, comments ('#' or ';' first), an optional "[gen]" section and
 * "key = value" lines of the keys above; anything else is an error naming FILE:LINE. A key given
 * twice is an error too. A UTF-8 byte order mark before the first line is skipped. `what` names
 * the file in a message that has no line: the flag that gave it ("--config", "--synthetic") or
 * "synthetic market" (a path a results file recorded). Returns 0, 1 (runtime: the file cannot be
 * read) or 2 (usage). */
static int gen_read_config(const char *C, const char *what, const char *path, mm_gen_params *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_err("%s: %s %s: %s", C, what, path, strerror(errno));
        return MM_EXIT_RUNTIME;
    }
    char line[1024], where[1200];
    int seen[N_KEYS] = {0}, rc = MM_EXIT_OK;
    for (int ln = 1; rc == MM_EXIT_OK && fgets(line, sizeof line, f); ln++) {
        if (!strchr(line, '\n') && !feof(f)) {
            cli_err("%s: %s:%d: line longer than %d characters", C, path, ln, (int)sizeof line - 2);
            rc = MM_EXIT_USAGE;
            break;
        }
        char *s = line;
        if (ln == 1 && !strncmp(s, "\xEF\xBB\xBF", 3)) s += 3; /* a BOM, as editors write */
        s = trim(s);
        if (!*s || *s == '#' || *s == ';') continue;
        if (*s == '[') {
            if (strcmp(s, "[gen]")) {
                cli_err("%s: %s:%d: unknown section '%s' (only [gen])", C, path, ln, s);
                rc = MM_EXIT_USAGE;
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            cli_err("%s: %s:%d: expected 'key = value', got '%s'", C, path, ln, s);
            rc = MM_EXIT_USAGE;
            break;
        }
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        for (char *c = key; *c; c++)
            if (*c == '-') *c = '_';
        int k = 0;
        while (k < N_KEYS && strcmp(KEYS[k].name, key))
            k++;
        if (k == N_KEYS) {
            cli_err("%s: %s:%d: unknown key '%s'", C, path, ln, key);
            rc = MM_EXIT_USAGE;
        } else if (seen[k]++) {
            cli_err("%s: %s:%d: %s is given twice", C, path, ln, key);
            rc = MM_EXIT_USAGE;
        } else {
            snprintf(where, sizeof where, "%s:%d: %s", path, ln, key);
            if (gen_set(C, where, KEYS[k].key, val, p)) rc = MM_EXIT_USAGE;
        }
    }
    if (rc == MM_EXIT_OK && ferror(f)) {
        cli_err("%s: %s %s: %s", C, what, path, strerror(errno));
        rc = MM_EXIT_RUNTIME;
    }
    fclose(f);
    return rc;
}

int cmd_gen(int argc, char **argv)
{
    const char *C = "gen";
    mm_gen_params p;
    mm_gen_defaults(&p);
    mm_write_opts wo = {0};
    const char *out = NULL;
    static const struct option opts[] = {{"seed", 1, 0, O_SEED},
                                         {"events", 1, 0, O_EVENTS},
                                         {"symbol", 1, 0, O_SYMBOL},
                                         {"output", 1, 0, 'o'},
                                         {"rate", 1, 0, O_RATE},
                                         {"vol", 1, 0, O_VOL},
                                         {"trade-frac", 1, 0, O_TFRAC},
                                         {"start-px", 1, 0, O_PX},
                                         {"max-spread", 1, 0, O_SPREAD},
                                         {"mean-queue", 1, 0, O_QUEUE},
                                         {"tick-size", 1, 0, O_TICK},
                                         {"lot-size", 1, 0, O_LOT},
                                         {"tick", 1, 0, O_TICK}, /* import's spelling */
                                         {"lot", 1, 0, O_LOT},
                                         {"start-ns", 1, 0, O_START},
                                         {"compress", 1, 0, O_COMP},
                                         {"replace", 0, 0, O_REPLACE},
                                         {"help", 0, 0, 'h'},
                                         {"informed", 1, 0, O_INFORMED},
                                         {"config", 1, 0, O_CONFIG},
                                         {"move-ticks", 1, 0, O_JUMP},
                                         {"improve-frac", 1, 0, O_IMPROVE},
                                         {"duration", 1, 0, O_DURATION},
                                         {"trade-persist", 1, 0, O_PERSIST},
                                         {"trade-size", 1, 0, O_TSIZE},
                                         {0, 0, 0, 0}};
    /* The config file first, so that the flags override it. */
    for (int i = 1; i < argc; i++) {
        const char *cfg = NULL;
        if (!strcmp(argv[i], "--config") && i + 1 < argc)
            cfg = argv[i + 1];
        else if (!strncmp(argv[i], "--config=", 9))
            cfg = argv[i] + 9;
        if (cfg) {
            int rc = gen_read_config(C, "--config", cfg, &p);
            if (rc) return rc;
        }
    }
    int c, events_flag = 0;
    int64_t v;
    double duration = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case O_SEED:
        case O_EVENTS:
        case O_SYMBOL:
        case O_RATE:
        case O_VOL:
        case O_TFRAC:
        case O_PX:
        case O_SPREAD:
        case O_QUEUE:
        case O_TICK:
        case O_LOT:
        case O_START:
        case O_INFORMED:
        case O_JUMP:
        case O_IMPROVE:
        case O_PERSIST:
        case O_TSIZE: {
            events_flag |= c == O_EVENTS;
            char flag[64];
            snprintf(flag, sizeof flag, "--%s", gen_key_name(c));
            if (gen_set(C, flag, c, optarg, &p)) return MM_EXIT_USAGE;
            break;
        }
        case O_CONFIG:
            break; /* read before the flags (they override it) */
        case O_DURATION:
            if (cli_f64(C, "--duration", optarg, 1e-9, 1e9, &duration)) return MM_EXIT_USAGE;
            break;
        case 'o':
            out = optarg;
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
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "gen", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_err("%s: unexpected argument '%s'", C, argv[optind]);
        return MM_EXIT_USAGE;
    }
    if (duration > 0) { /* after the flags and the config: the final rate */
        if (events_flag) {
            cli_err("%s: --duration and --events both set the number of events; give one", C);
            return MM_EXIT_USAGE;
        }
        double ev = floor(duration * p.rate_hz + 0.5);
        if (!(ev >= 1 && ev <= (double)(INT64_C(1) << 36))) {
            cli_err("%s: --duration %g s at %g events/s gives %.0f events (1 to 2^36)", C, duration,
                    p.rate_hz, ev);
            return MM_EXIT_USAGE;
        }
        p.events = (int64_t)ev;
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

int cli_gen_config(const char *C, const char *what, const char *path, mm_gen_params *p)
{
    mm_gen_defaults(p);
    return gen_read_config(C, what, path, p);
}
