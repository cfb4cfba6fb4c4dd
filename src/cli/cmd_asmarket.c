/* mmsim as-market: the Avellaneda-Stoikov model market over many paths, printed as the paper's
 * tables (docs/montecarlo.md).
 *
 * Settings come from flags and from an optional INI file (--config), gathered as text first; a
 * flag replaces the file's value of the same key. The INI syntax is that of `mmsim sweep`'s config
 * (sweep_config.h: '[section]', 'key = value' or 'key: value', ';' and '#' comment lines, ' ;'
 * comments, blanks trimmed), with its own sections and keys: every unknown section or key, and a
 * key given twice, is an error naming FILE:LINE. A small reader here rather than sweep_config.c,
 * whose sections are the sweep's. */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mmsim/asmarket.h"

static const char *const C = "as-market";

static const char HELP[] =
    "usage: mmsim as-market [options]\n"
    "\n"
    "The Avellaneda-Stoikov (2008) model market (docs/montecarlo.md): no tick file; the mid\n"
    "starts at s0 and moves +-sigma sqrt(dt) with probability 1/2 each step; each step the\n"
    "quotes are computed, the bid fills with probability A exp(-k delta_b) dt and the ask with\n"
    "A exp(-k delta_a) dt, independently, at the quote price; then the mid moves. Prices are\n"
    "continuous (no ticks). Prints the paper's table: for each gamma, one row per strategy.\n"
    "Every row runs on the same markets (combination id 0, paths 0 .. N-1 of the seed).\n"
    "\n"
    "  --gamma LIST      risk aversions, a comma list (default 0.1,0.01,1)\n"
    "  --strategy LIST   inventory, symmetric, glft, fixed: a comma list\n"
    "                    (default inventory,symmetric)\n"
    "  --paths N         paths per row (default 1000)\n"
    "  --seed S          master seed (default 1)\n"
    "  --threads N       OpenMP threads (default 0: all); results do not depend on it\n"
    "  --s0 P            initial mid, price units (default 100)\n"
    "  --T T             horizon (default 1)\n"
    "  --sigma S         mid volatility per sqrt(time unit) (default 2)\n"
    "  --dt DT           step; T / dt must be whole (default 0.005)\n"
    "  --k K             decay of the fill intensity, 1 / price units (default 1.5)\n"
    "  --A A             fill intensity at zero depth, 1 / time unit (default 140)\n"
    "  --q0 Q            initial inventory (default 0)\n"
    "  --spread D        fixed: distance from the mid to each quote (default 0)\n"
    "  --skew K          fixed: quote shift per unit of inventory (default 0)\n"
    "  --inv-limit N     never quote a side that could take |q| past N (default 0: none)\n"
    "  --config FILE     an INI file ([market] s0 T sigma dt k A q0, [strategy] gamma strategy\n"
    "                    spread skew inv_limit, [run] paths seed threads); flags override it\n"
    "                    (docs/examples/avellaneda-stoikov.ini)\n"
    "  -h, --help        this help\n";

/* Every setting: its INI section and key, and its flag. */
enum {
    K_S0,
    K_T,
    K_SIGMA,
    K_DT,
    K_K,
    K_A,
    K_Q0,
    K_GAMMA,
    K_STRAT,
    K_SPREAD,
    K_SKEW,
    K_INVLIM,
    K_PATHS,
    K_SEED,
    K_THREADS,
    NKEYS
};
static const struct {
    const char *sec, *key, *flag;
} KEYS[NKEYS] = {
    {"market", "s0", "--s0"},
    {"market", "T", "--T"},
    {"market", "sigma", "--sigma"},
    {"market", "dt", "--dt"},
    {"market", "k", "--k"},
    {"market", "A", "--A"},
    {"market", "q0", "--q0"},
    {"strategy", "gamma", "--gamma"},
    {"strategy", "strategy", "--strategy"},
    {"strategy", "spread", "--spread"},
    {"strategy", "skew", "--skew"},
    {"strategy", "inv_limit", "--inv-limit"},
    {"run", "paths", "--paths"},
    {"run", "seed", "--seed"},
    {"run", "threads", "--threads"},
};

/* The settings as text, with where each came from ("--sigma" or "FILE:LINE: sigma"). */
typedef struct settings {
    char *val[NKEYS];
    char origin[NKEYS][320];
    int from_flag[NKEYS];
} settings;

static void settings_free(settings *s)
{
    for (int i = 0; i < NKEYS; i++)
        free(s->val[i]);
}

static int set_val(settings *s, int k, const char *v, const char *origin, int flag)
{
    char *d = strdup(v);
    if (!d) {
        cli_err("%s: out of memory", C);
        return -1;
    }
    free(s->val[k]);
    s->val[k] = d;
    snprintf(s->origin[k], sizeof s->origin[k], "%s", origin);
    s->from_flag[k] = flag;
    return 0;
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Trim blanks in place at both ends; returns the start. */
static char *trim(char *p)
{
    while (is_blank(*p))
        p++;
    size_t n = strlen(p);
    while (n && is_blank(p[n - 1]))
        p[--n] = 0;
    return p;
}

/* Read the INI file at path into s; a key a flag already set keeps the flag's value. Returns 0 or
 * -1 after printing the one-line error. */
static int read_config(settings *s, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_err("%s: --config %s: %s", C, path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0, first[NKEYS] = {0};
    char sec[64] = "";
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) != -1) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            cli_err("%s: %s:%ld: a NUL byte in the line (not a text file?)", C, path, lineno);
            rc = -1;
            break;
        }
        char *p = line;
        if (lineno == 1 && !strncmp(p, "\xEF\xBB\xBF", 3)) p += 3;
        p[strcspn(p, "\n")] = 0;
        p = trim(p);
        if (!*p || *p == ';' || *p == '#') continue;
        for (char *c = p + 1; *c; c++)
            if (*c == ';' && is_blank(c[-1])) {
                *c = 0;
                break;
            }
        p = trim(p);
        if (*p == '[') {
            size_t n = strlen(p);
            if (p[n - 1] != ']' || n - 2 >= sizeof sec) {
                cli_err("%s: %s:%ld: '%s' is not a [section] line", C, path, lineno, p);
                rc = -1;
                break;
            }
            p[n - 1] = 0;
            snprintf(sec, sizeof sec, "%s", trim(p + 1));
            if (strcmp(sec, "market") && strcmp(sec, "strategy") && strcmp(sec, "run")) {
                cli_err("%s: %s:%ld: [%s]: unknown section (market, strategy, run)", C, path,
                        lineno, sec);
                rc = -1;
            }
            continue;
        }
        char *eq = p + strcspn(p, "=:");
        if (!*eq || eq == p) {
            cli_err("%s: %s:%ld: '%s' is not 'key = value'", C, path, lineno, p);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = trim(p), *val = trim(eq + 1);
        if (!sec[0]) {
            cli_err("%s: %s:%ld: %s: a key before any [section]", C, path, lineno, key);
            rc = -1;
            break;
        }
        int k = 0;
        while (k < NKEYS && (strcmp(KEYS[k].sec, sec) || strcmp(KEYS[k].key, key)))
            k++;
        if (k == NKEYS) {
            cli_err("%s: %s:%ld: [%s] %s: unknown key", C, path, lineno, sec, key);
            rc = -1;
        } else if (first[k]) {
            cli_err("%s: %s:%ld: [%s] %s: key given twice (first at %s:%ld)", C, path, lineno, sec,
                    key, path, first[k]);
            rc = -1;
        } else {
            first[k] = lineno;
            char origin[320];
            snprintf(origin, sizeof origin, "%s:%ld: %s", path, lineno, key);
            if (!s->from_flag[k] && set_val(s, k, val, origin, 0)) rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) { /* a directory opens, then fails to read */
        cli_err("%s: --config %s: %s", C, path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

#define MAX_LIST 64

/* Split a comma list into items (blanks trimmed), into buf; at most MAX_LIST non-empty items. */
static int split(const char *origin, const char *s, char *buf, size_t cap, char **items)
{
    snprintf(buf, cap, "%s", s);
    int n = 0;
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        char *it = trim(p);
        if (!*it || n == MAX_LIST) {
            cli_err("%s: %s: '%s' must be a comma list of 1 to %d items", C, origin, s, MAX_LIST);
            return -1;
        }
        items[n++] = it;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

static const char *const STRATS[] = {"inventory", "symmetric", "glft", "fixed"};

/* The numbers of every setting into p (domains are the library's, checked later), the lists into
 * gammas and strats. Returns 0 or -1 after printing. */
static int parse(const settings *s, mm_as_params *p, double *gammas, int *ng, int *strats, int *ns,
                 int64_t *paths, uint64_t *seed, int *threads)
{
    double *dst[] = {[K_S0] = &p->s0, [K_T] = &p->T, [K_SIGMA] = &p->sigma,   [K_DT] = &p->dt,
                     [K_K] = &p->k,   [K_A] = &p->A, [K_SPREAD] = &p->spread, [K_SKEW] = &p->skew};
    for (int k = 0; k < NKEYS; k++) {
        const char *v = s->val[k], *o = s->origin[k];
        if (!v) continue;
        int64_t i;
        if (k < (int)(sizeof dst / sizeof *dst) && dst[k]) {
            if (cli_f64(C, o, v, -DBL_MAX, DBL_MAX, dst[k])) return -1;
        } else if (k == K_Q0 || k == K_INVLIM) {
            if (cli_i64(C, o, v, INT64_MIN, INT64_MAX, &i)) return -1;
            *(k == K_Q0 ? &p->q0 : &p->inv_limit) = i;
        } else if (k == K_PATHS) {
            if (cli_i64(C, o, v, 1, 1000000000, paths)) return -1;
        } else if (k == K_SEED) {
            if (cli_u64(C, o, v, seed)) return -1;
        } else if (k == K_THREADS) {
            if (cli_i64(C, o, v, 0, 4096, &i)) return -1;
            *threads = (int)i;
        }
    }
    char buf[4096], *items[MAX_LIST];
    const char *gl = s->val[K_GAMMA] ? s->val[K_GAMMA] : "0.1,0.01,1";
    const char *go = s->val[K_GAMMA] ? s->origin[K_GAMMA] : "--gamma";
    if ((*ng = split(go, gl, buf, sizeof buf, items)) < 0) return -1;
    for (int j = 0; j < *ng; j++)
        if (cli_f64(C, go, items[j], -DBL_MAX, DBL_MAX, &gammas[j])) return -1;
    const char *sl = s->val[K_STRAT] ? s->val[K_STRAT] : "inventory,symmetric";
    const char *so = s->val[K_STRAT] ? s->origin[K_STRAT] : "--strategy";
    if ((*ns = split(so, sl, buf, sizeof buf, items)) < 0) return -1;
    for (int j = 0; j < *ns; j++) {
        strats[j] = -1;
        for (int t = 0; t < 4; t++)
            if (!strcmp(items[j], STRATS[t])) strats[j] = t;
        if (strats[j] < 0) {
            cli_err("%s: %s: '%s' is not inventory, symmetric, glft or fixed", C, so, items[j]);
            return -1;
        }
    }
    return 0;
}

/* A library error on a parameter: its message starts with the key ("sigma: ..."); print it with
 * the origin of that key (the flag or FILE:LINE) instead. Returns the exit status. */
static int param_fail(const settings *s, const mm_error *e)
{
    size_t n = strcspn(e->msg, ":");
    for (int k = 0; k < NKEYS; k++)
        if (strlen(KEYS[k].key) == n && !strncmp(e->msg, KEYS[k].key, n) && e->msg[n]) {
            cli_err("%s: %s:%s", C, s->val[k] ? s->origin[k] : KEYS[k].flag, e->msg + n + 1);
            return e->code == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
        }
    cli_err("%s: %s", C, e->msg);
    return e->code == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
}

/* The tables; returns the rows without a spread (no path quoted both sides at any step: the
 * library's NaN), printed as '-'. */
static int print_tables(const mm_as_params *base, const double *gammas, int ng, const int *strats,
                        int ns, const mm_as_summary *sum, int64_t paths, uint64_t seed)
{
    int unquoted = 0;
    printf("Avellaneda-Stoikov model market: s0 %g, T %g, sigma %g, dt %g (%" PRId64
           " steps), k %g, A %g, q0 %" PRId64 "; %" PRId64 " paths, seed %" PRIu64 "\n",
           base->s0, base->T, base->sigma, base->dt, mm_as_steps(base), base->k, base->A, base->q0,
           paths, seed);
    for (int g = 0; g < ng; g++) {
        printf("\ngamma = %g\n", gammas[g]);
        printf("%-10s %8s %9s %12s %9s %13s\n", "Strategy", "Spread", "Profit", "std(Profit)",
               "Final q", "std(Final q)");
        for (int t = 0; t < ns; t++) {
            const mm_as_summary *m = &sum[g * ns + t];
            char sp[32] = "-";
            if (isnan(m->spread_mean))
                unquoted++;
            else
                snprintf(sp, sizeof sp, "%.2f", m->spread_mean);
            printf("%-10s %8s %9.2f %12.2f %9.3f %13.2f\n", STRATS[strats[t]], sp, m->profit_mean,
                   m->profit_std, m->q_mean, m->q_std);
        }
    }
    printf("\nProfit over the paths (std: population; se = std / sqrt(paths); percentiles linear "
           "between order statistics; CVaR 5%%: mean of the worst ceil(paths / 20))\n");
    printf("%-8s %-10s %7s %9s %9s %9s %9s %8s %8s %8s\n", "gamma", "strategy", "se", "p5", "p50",
           "p95", "CVaR5", "P(loss)", "fills", "max|q|");
    for (int g = 0; g < ng; g++)
        for (int t = 0; t < ns; t++) {
            const mm_as_summary *m = &sum[g * ns + t];
            printf("%-8g %-10s %7.3f %9.2f %9.2f %9.2f %9.2f %8.4f %8.1f %8.2f\n", gammas[g],
                   STRATS[strats[t]], m->profit_se, m->profit_p5, m->profit_p50, m->profit_p95,
                   m->profit_cvar5, m->prob_loss, m->fills_mean, m->max_abs_q_mean);
        }
    return unquoted;
}

int cmd_asmarket(int argc, char **argv)
{
    settings s = {0};
    const char *config = NULL;
    enum { O_CONFIG = 256 + NKEYS };
    struct option opts[NKEYS + 3];
    for (int k = 0; k < NKEYS; k++)
        opts[k] = (struct option){KEYS[k].flag + 2, 1, 0, 256 + k};
    opts[NKEYS] = (struct option){"config", 1, 0, O_CONFIG};
    opts[NKEYS + 1] = (struct option){"help", 0, 0, 'h'};
    opts[NKEYS + 2] = (struct option){0, 0, 0, 0};
    int c, rc = MM_EXIT_USAGE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c >= 256 && c < 256 + NKEYS) {
            int k = c - 256;
            if (s.from_flag[k]) {
                cli_err("%s: %s given twice", C, KEYS[k].flag);
                goto out;
            }
            if (set_val(&s, k, optarg, KEYS[k].flag, 1)) goto out;
        } else if (c == O_CONFIG) {
            config = optarg;
        } else if (c == 'h') {
            fputs(HELP, stdout);
            rc = MM_EXIT_OK;
            goto out;
        } else if (c == ':') {
            cli_err("%s: %s needs a value", C, argv[optind - 1]);
            goto out;
        } else {
            cli_err("%s: unknown option '%s' (see 'mmsim as-market --help')", C, argv[optind - 1]);
            goto out;
        }
    }
    if (optind < argc) {
        cli_err("%s: unexpected argument '%s'", C, argv[optind]);
        goto out;
    }
    if (config && read_config(&s, config)) goto out;
    mm_as_params p;
    mm_as_defaults(&p);
    double gammas[MAX_LIST];
    int strats[MAX_LIST], ng, ns, threads = 0;
    int64_t paths = 1000;
    uint64_t seed = 1;
    if (parse(&s, &p, gammas, &ng, strats, &ns, &paths, &seed, &threads)) goto out;
    /* Every row is checked before any is run. */
    mm_error e = {0};
    for (int g = 0; g < ng; g++)
        for (int t = 0; t < ns; t++) {
            mm_as_params q = p;
            q.gamma = gammas[g];
            q.strategy = strats[t];
            if (mm_as_check(&q, &e)) {
                rc = param_fail(&s, &e);
                goto out;
            }
        }
    mm_as_summary *sum = calloc((size_t)(ng * ns), sizeof *sum);
    if (!sum) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    for (int g = 0; g < ng; g++)
        for (int t = 0; t < ns; t++) {
            mm_as_params q = p;
            q.gamma = gammas[g];
            q.strategy = strats[t];
            if (mm_as_run(&q, seed, 0, paths, threads, &sum[g * ns + t], NULL, &e)) {
                rc = param_fail(&s, &e);
                free(sum);
                goto out;
            }
        }
    int unquoted = print_tables(&p, gammas, ng, strats, ns, sum, paths, seed);
    free(sum);
    /* Only the inventory limit stops a side from quoting (docs/montecarlo.md, 3.1). */
    if (unquoted)
        cli_err(
            "%s: Spread is - in %d of %d rows: no path quoted both sides at any step (|q| never "
            "below inv_limit %" PRId64 ")",
            C, unquoted, ng * ns, p.inv_limit);
    rc = MM_EXIT_OK;
out:
    settings_free(&s);
    return rc;
}
