#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "mm_h5util.h"

#include "cli.h"
#include "cli_keys.h"
#include "mm_internal.h"
#include "mmsim/results.h"
#include "sweep_config.h"

/* Bytes of the well-formed UTF-8 sequence at s (1..4; no overlong form, no surrogate, nothing
 * past U+10FFFF), or 0 when s does not start one. */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    int n = s[0] >= 0xC2 && s[0] <= 0xDF   ? 2
            : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
            : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                           : 0;
    /* The second byte's range is narrower after E0, ED, F0 and F4. */
    unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
    for (int i = 1; i < n; i++)
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF)) return 0;
    return n;
}

/* The message is one line of text whatever it quotes (a string attribute of a file, a line of
 * an input, an HDF5 error): a newline becomes a blank, and a control byte or a byte outside
 * well-formed UTF-8 is written as \xNN, so that no byte of a file reaches the terminal raw. */
void cli_err(const char *fmt, ...)
{
    char buf[1024], out[4 * sizeof buf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)buf; *p;) {
        int n = utf8_len(p);
        if (*p == '\n') {
            out[o++] = ' ';
            p++;
        } else if (n == 0 || *p < 0x20 || *p == 0x7F) {
            o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", *p);
            p++;
        } else {
            memcpy(out + o, p, (size_t)n);
            o += (size_t)n;
            p += n;
        }
    }
    out[o] = 0;
    fprintf(stderr, "mmsim: %s\n", out);
}

/* The library's messages name no command-line flag (programs embed it): where the way out is an
 * option, they name the API's spelling of it. The CLI puts its flags back, so that its lines read
 * as before (docs/bad-inputs.md checks them byte for byte). Each pair replaces every occurrence,
 * in this order; a longer phrase comes before a shorter one it contains. */
static const char *const LIB_TO_FLAG[][2] = {
    {"name one with the symbol argument", "name one with --symbol"},
    {"MM_LOAD_NO_VERIFY", "--no-verify"},
    {"mm_write_opts.replace", "--replace"},
    {"set mm_import_opts.skip_gaps", "--skip-gaps"},
    {"set mm_import_opts.no_snapshot", "--no-snapshot"},
    {"mm_import_opts.no_snapshot is set", "--no-snapshot was given"},
    {"mm_import_opts.csv_allow_crossed", "--allow-crossed"},
    {"mm_import_opts.symbol", "--symbol"},
    {"but mm_import_opts.market is ", "but --market "},
    {"mm_import_opts.subtick_reject", "--subtick-reject"},
    {"set mm_sweep_opts.resume to continue", "add --resume to continue"},
    {"with mm_sweep_opts.resume set to", "with --resume to"},
    {"the run to resume does not match", "--resume does not match"},
    {"the interrupted run: grid axis ", "the interrupted run: --grid "},
    {"the synthetic market's mm_gen_params.events", "--events of the --synthetic market"},
    {"mm_sweep_opts.workers", "--workers"},
    {"mm_sweep_opts.chunk", "--chunk"},
    {"mm_sweep_opts.paths", "--paths"},
    {"mm_sweep_opts.stall_s", "--stall-s"},
    {"mm_sweep_opts.blocks = ", "--blocks "},
    {"mm_sweep_opts.blocks", "--blocks"},
    {"mm_select_opts.min_train", "--min-train"},
    {"mm_select_opts.splits", "--splits"},
    {"import it with one, mm_import_opts.depth_levels > 0", "import it with --depth-levels N"},
    {"attach one with mm_ticks_write_signal", "attach one with mmsim signal"},
    {"(set replace to overwrite it)", "(--replace overwrites it)"},
    {"the cuda engine takes signal_skew = 0, or another engine",
     "--set signal_skew=0 for --engine cuda, or --engine process"},
    {"book = l1 on the cuda engine, or another engine",
     "--set book=l1 for --engine cuda, or --engine process"},
};

/* Replace every `from` in buf (a string in a buffer of cap bytes) by `to`, truncating at cap. */
static void replace_all(char *buf, size_t cap, const char *from, const char *to)
{
    char tmp[1024];
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = buf;; p += fl) {
        const char *hit = strstr(p, from);
        size_t keep = hit ? (size_t)(hit - p) : strlen(p);
        if (keep > sizeof tmp - 1 - n) keep = sizeof tmp - 1 - n;
        memcpy(tmp + n, p, keep);
        n += keep;
        if (!hit) break;
        size_t t = tl < sizeof tmp - 1 - n ? tl : sizeof tmp - 1 - n;
        memcpy(tmp + n, to, t);
        n += t;
        p = hit;
    }
    tmp[n] = 0;
    snprintf(buf, cap, "%s", tmp);
}

/* A library message as the CLI prints it: its API option names replaced by the CLI's flags. */
const char *cli_libmsg(const char *msg, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", msg);
    for (size_t i = 0; i < sizeof LIB_TO_FLAG / sizeof *LIB_TO_FLAG; i++)
        if (strstr(buf, LIB_TO_FLAG[i][0]))
            replace_all(buf, cap, LIB_TO_FLAG[i][0], LIB_TO_FLAG[i][1]);
    return buf;
}

void cli_opt_error(const char *cmd, const char *help_cmd, int missing_value, char **argv,
                   const struct option *opts)
{
    if (missing_value)
        cli_err("%s: %s needs a value", cmd, argv[optind - 1]);
    else
        cli_unknown_option(cmd, help_cmd, argv[optind - 1], opts);
}

void cli_unknown_option(const char *cmd, const char *help_cmd, const char *arg,
                        const struct option *opts)
{
    const char *near = NULL;
    if (!strncmp(arg, "--", 2) && arg[2]) {
        char word[128];
        snprintf(word, sizeof word, "%s", arg + 2);
        char *eq = strchr(word, '=');
        if (eq) *eq = 0;
        int n = 0;
        while (opts[n].name)
            n++;
        const char **names = calloc((size_t)n + 1, sizeof *names);
        if (names) {
            for (int i = 0; i < n; i++)
                names[i] = opts[i].name;
            near = cli_suggest(word, names, n);
            free(names);
        }
    }
    if (near)
        cli_err("%s: unknown option '%s' (did you mean --%s? see 'mmsim %s --help')", cmd, arg,
                near, help_cmd);
    else
        cli_err("%s: unknown option '%s' (see 'mmsim %s --help')", cmd, arg, help_cmd);
}

const char *cli_fmt_rate(double v, char *buf, size_t cap)
{
    if (!(v > 0) || !isfinite(v))
        snprintf(buf, cap, "-");
    else if (v >= 100)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.3g", v);
    return buf;
}

const char *cli_fmt_shortest(double v, char *buf, size_t cap)
{
    return mm__fmt_shortest(v, buf, cap); /* one rule for the library and the command line */
}

int cli_instrument_count(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return -1;
    mm_error e = {0};
    int n = 0;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int rc = mm_ticks_list(path, NULL, 0, &n, &e);
    mm__h5quiet_end(&q);
    return rc ? -1 : n;
}

void cli_note_added(const char *path, const char *symbol, int before)
{
    int n = cli_instrument_count(path);
    if (n < 0) return; /* the write succeeded: only the note is lost */
    printf("%s %s %s the existing file %s, which now holds %d instrument%s (mmsim info %s "
           "--list)\n",
           n == before ? "replaced" : "added", symbol, n == before ? "in" : "to", path, n,
           n == 1 ? "" : "s", path);
}

int cli_objective_ascending(const mm_results_info *in)
{
    const char *cfg = in->meta.config_text, *p = cfg;
    while (p && (p = strstr(p, "objective = ")) != NULL) {
        if (p == cfg || p[-1] == '\n') {
            p += strlen("objective = ");
            if (!strncmp(p, "min:", 4)) return 1;
            if (!strncmp(p, "max:", 4)) return 0;
            break;
        }
        p++;
    }
    return cli_metric_smaller_is_better(in->meta.objective);
}

int cli_sharpe_label(const mm_results_info *in, char *buf, size_t cap)
{
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    int rc = cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration");
    if (!rc) {
        double y = sc.year_s ? strtod(sc.year_s, NULL) : 0;
        char year[64];
        if (y > 0)
            snprintf(year, sizeof year, "%.10g s", y);
        else
            snprintf(year, sizeof year, "each tape's recorded year");
        snprintf(buf, cap,
                 "annualised: mean / sd of the PnL change every %s ns, x sqrt(%s / that "
                 "clock)",
                 sc.sample_ns ? sc.sample_ns : "1000000000", year);
    }
    cli_sweep_config_free(&sc);
    return rc ? -1 : 0;
}

int cli_sharpe_flags(const mm_results_info *in, int32_t i, int64_t *samples, double *span_s)
{
    if (!in->meta.input_span_ns || i < 0 || i >= in->meta.n_inputs) return -1;
    int64_t span = in->meta.input_span_ns[i], sample_ns = 1000000000;
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    if (!cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration") &&
        sc.sample_ns)
        sample_ns = strtoll(sc.sample_ns, NULL, 10);
    cli_sweep_config_free(&sc);
    if (sample_ns <= 0) sample_ns = 1000000000;
    *samples = span / sample_ns;
    *span_s = (double)span * 1e-9;
    return (*span_s < CLI_SESSION_S ? CLI_SHARPE_SHORT : 0) |
           (*samples < CLI_SHARPE_MIN_SAMPLES ? CLI_SHARPE_FEW : 0);
}

const char *cli_sharpe_flag_text(int flags)
{
    static const char *const T[] = {"-", "short", "few", "short,few"};
    return flags < 0 ? "?" : T[flags & 3];
}

void cli_sharpe_warnings(const mm_results_info *in, const char *prefix)
{
    for (int32_t i = 0; i < in->meta.n_inputs; i++) {
        int64_t n;
        double s;
        int f = cli_sharpe_flags(in, i, &n, &s);
        if (f <= 0) continue;
        printf("%ssharpe on %s%s%s is annualised from %" PRId64 " samples over %.6g s: %s%s%s; "
               "read it as a rough number (docs/results.md, \"When sharpe means something\")\n",
               prefix, in->meta.input_paths[i], in->meta.input_symbols[i] ? "#" : "",
               in->meta.input_symbols[i] ? in->meta.input_symbols[i] : "", n, s,
               f & CLI_SHARPE_SHORT ? "shorter than one trading session (6.5 h)" : "",
               f == 3 ? " and " : "", f & CLI_SHARPE_FEW ? "fewer than 100 samples" : "");
    }
}

int cli_fail(const mm_error *e)
{
    char buf[1024];
    cli_err("%s", e->msg[0] ? cli_libmsg(e->msg, buf, sizeof buf) : mm_strerror(e->code));
    return e->code == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
}

int cli_is_decimal(const char *s, int integer)
{
    return mm__is_decimal(s, integer);
}

int cli_i64(const char *cmd, const char *flag, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!mm__is_decimal(s, 1)) {
        cli_err("%s: %s: '%s' is not a decimal integer", cmd, flag, s);
        return -1;
    }
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi) {
        cli_err("%s: %s: %s is out of range [%" PRId64 ", %" PRId64 "]", cmd, flag, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t *out)
{
    if (*s == '-' && mm__is_decimal(s, 1)) {
        cli_err("%s: %s: '%s' must not be negative", cmd, flag, s);
        return -1;
    }
    if (*s == '-' || !mm__is_decimal(s, 1)) {
        cli_err("%s: %s: '%s' is not a decimal integer", cmd, flag, s);
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno == ERANGE) {
        cli_err("%s: %s: %s is out of range [0, %" PRIu64 "]", cmd, flag, s, UINT64_MAX);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_f64(const char *cmd, const char *flag, const char *s, double lo, double hi, double *out)
{
    errno = 0;
    double v = mm__is_decimal(s, 0) ? strtod(s, NULL) : NAN;
    if (!isfinite(v)) {
        cli_err("%s: %s: '%s' is not a finite decimal number", cmd, flag, s);
        return -1;
    }
    if (v < lo || v > hi) {
        cli_err("%s: %s: %s is out of range [%g, %g]", cmd, flag, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_markouts(const char *cmd, const char *flag, const char *s, int64_t out[MM_MARKOUTS])
{
    int64_t v[MM_MARKOUTS];
    const char *p = s;
    for (int k = 0; k < MM_MARKOUTS; k++) {
        const char *comma = strchr(p, ',');
        if ((k < MM_MARKOUTS - 1) != (comma != NULL)) {
            cli_err("%s: %s: '%s' must be %d integers (ns) separated by commas", cmd, flag, s,
                    MM_MARKOUTS);
            return -1;
        }
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (n >= sizeof item)
            n = sizeof item - 1; /* longer than any int64: still not a number below */
        memcpy(item, p, n);
        item[n] = 0;
        if (n == sizeof item - 1) item[n - 1] = 'x';
        if (cli_i64(cmd, flag, item, 1, CLI_NS_MAX, &v[k])) return -1;
        p = comma ? comma + 1 : p;
    }
    /* The horizons name the markout columns (markout_1s, ...): they must give distinct names. */
    for (int i = 0; i < MM_MARKOUTS; i++)
        for (int j = 0; j < i; j++) {
            char a[32], b[32];
            mm_results_horizon_name(v[i], a, sizeof a);
            mm_results_horizon_name(v[j], b, sizeof b);
            if (!strcmp(a, b)) {
                cli_err("%s: %s: the horizon %" PRId64 " ns is given twice", cmd, flag, v[i]);
                return -1;
            }
        }
    memcpy(out, v, sizeof v);
    return 0;
}

void cli_fmt_time(int64_t ns, char *buf, int cap)
{
    /* Floor division without negating ns (-INT64_MIN overflows). */
    int64_t sec = ns / 1000000000, frac = ns % 1000000000;
    if (frac < 0) {
        sec -= 1;
        frac += 1000000000;
    }
    time_t tt = (time_t)sec;
    struct tm tm;
    char date[64];
    if (gmtime_r(&tt, &tm) == NULL || strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
        /* A year gmtime cannot represent: print the raw count rather than garbage. */
        snprintf(buf, (size_t)cap, "%" PRId64 " ns since the epoch", ns);
        return;
    }
    snprintf(buf, (size_t)cap, "%s.%09" PRId64 "Z", date, frac);
}

/* ---- standard output: a full disk or a closed pipe is an error, not exit 0 ---- */

int cli_close_stdout(const char *cmd, int rc)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int saved = bad ? errno : 0;
    bad |= ferror(stdout) != 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    /* A command that failed has printed its one line already; a write error is reported only after
     * a success (one line in all cases). */
    if (bad && rc == MM_EXIT_OK) {
        if (cmd)
            cli_err("%s: standard output: %s", cmd, saved ? strerror(saved) : "write error");
        else
            cli_err("standard output: %s", saved ? strerror(saved) : "write error");
        return MM_EXIT_RUNTIME;
    }
    return rc;
}
