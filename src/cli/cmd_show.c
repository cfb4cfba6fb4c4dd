/* mmsim show: the provenance of a results file and its best rows, filtered by axis values. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_keys.h"
#include "mmsim/results.h"
#include "sweep_config.h"

static const char HELP[] = "usage: mmsim show results.h5 [--top N] [--sort METRIC] [--asc] "
                           "[--where key=value ...] [--all] [--no-header] [--verify]\n"
                           "\n"
                           "Print the provenance of a sweep's results file (combinations, engine, "
                           "workers, wall time, seed, content\n"
                           "hash, inputs) and a table of its best rows (docs/results.md).\n"
                           "\n"
                           "  --top N            rows to print [20]\n"
                           "  --sort METRIC      metric column to rank by, [min:|max:]METRIC [the "
                           "file's objective, in the\n"
                           "                     direction its sweep chose]; without a prefix, "
                           "smallest first for\n"
                           "                     max_drawdown, fees, rejects, rejects_per_s, held, "
                           "max_abs_q, mean_abs_q,\n"
                           "                     largest first for the others; NaN ranks last, "
                           "ties by ascending id\n"
                           "  --asc, --desc      smallest first, largest first (whatever the "
                           "metric)\n"
                           "  --where key=value  only rows whose axis `key` has this value (a "
                           "number, or a name for enum and tape\n"
                           "                     axes; a tape by its symbol alone when only one "
                           "tape has it)\n"
                           "  --where 'M<x'      only rows whose metric M compares so to x: <, <=, "
                           "=, !=, >=, > (pnl>0);\n"
                           "                     several --where combine with AND\n"
                           "  --all              print every metric column (default: a selection)\n"
                           "  --keep-idle        rank the rows without a fill too (by default "
                           "they are set aside and counted)\n"
                           "  --no-header        the table's rows only: no provenance, no title, "
                           "no column names\n"
                           "  --verify           recompute the content hash and fail (exit 1) when "
                           "it differs from the stored one\n"
                           "  -h, --help         this help\n";

/* Metric columns printed by default (the sort column is added when not among them): of a table of
 * one path per combination, and of a Monte Carlo table. */
static const char *const DEFAULT_METRICS[] = {
    "pnl",       "pnl_spread", "pnl_inventory", "fees",         "volume",   "fills_bid",
    "fills_ask", "max_abs_q",  "sharpe",        "max_drawdown", "pnl_close"};
static const char *const DEFAULT_MC[] = {"pnl_mean",    "pnl_std",           "pnl_p5",
                                         "pnl_p50",     "pnl_cvar5",         "p_loss",
                                         "sharpe_mean", "max_drawdown_mean", "final_q_std"};

/* The ranked rows: row i has id ids[i], value indices idx[i * n_axes ...] and metric values
 * m[i * n_metrics ...]. */
typedef struct rows {
    int64_t *ids;
    int32_t *idx;
    mm_results_value *m;
    int64_t n;
} rows;

typedef struct show {
    const char *path;
    mm_results_reader *r;
    const mm_results_info *info;
    mm_results_query q;
    mm_results_where *w;
    mm_results_cond *c;
} show;

/* Values of an axis for a message: the first few. */
static void list_values(const mm_results_axis *a, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int32_t k = 0; k < a->n && len < cap; k++) {
        char v[256];
        if (k == 8 && a->n > 9) {
            snprintf(buf + len, cap - len, ", ... (%" PRId32 " values)", a->n);
            return;
        }
        mm_results_axis_format(a, k, v, sizeof v);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", v);
    }
}

/* A tape axis value named by its symbol alone ("SYN" for "out/day.h5#SYN") when exactly one tape
 * has that symbol. 0 with *idx, 1 when several have it (names them in buf), MM_ENOTFOUND when none.
 */
static int tape_by_symbol(const mm_results_axis *a, const char *sym, int32_t *idx, char *buf,
                          size_t cap)
{
    int found = 0;
    size_t sl = strlen(sym), len = 0;
    buf[0] = 0;
    for (int32_t k = 0; k < a->n; k++) {
        const char *hash = strrchr(a->names[k], '#');
        if (!hash || strlen(hash + 1) != sl || memcmp(hash + 1, sym, sl)) continue;
        if (found++ == 0) *idx = k;
        if (len < cap)
            len +=
                (size_t)snprintf(buf + len, cap - len, "%s%s", found > 1 ? ", " : "", a->names[k]);
    }
    return found == 1 ? 0 : found ? 1 : MM_ENOTFOUND;
}

/* --where: key=value on an axis (a number, or a name for enum and tape axes; a tape by its symbol
 * alone when that is unambiguous), or a comparison on a metric column (pnl>0, max_drawdown<=5,
 * fills_bid!=0; = and == are the same). Keys take either spelling (inv-limit, inv_limit). */
static int parse_where(show *s, const char *arg)
{
    static const char *const OPS[] = {"<=", ">=", "!=", "==", "<", ">", "="};
    static const int OP_CODE[] = {MM_CMP_LE, MM_CMP_GE, MM_CMP_NE, MM_CMP_EQ,
                                  MM_CMP_LT, MM_CMP_GT, MM_CMP_EQ};
    const char *opp = strpbrk(arg, "<>!=");
    int op = -1;
    for (int i = 0; opp && i < 7 && op < 0; i++)
        if (!strncmp(opp, OPS[i], strlen(OPS[i]))) op = i;
    if (!opp || opp == arg || op < 0) {
        cli_err("show: --where: '%s' is not key=value (or metric<value, <=, >, >=, !=)", arg);
        return -1;
    }
    const char *val = opp + strlen(OPS[op]);
    size_t klen = (size_t)(opp - arg);
    const mm_results_info *info = s->info;
    char raw[64], key[64];
    int a = MM_ENOTFOUND, metric = MM_ENOTFOUND;
    if (klen < sizeof raw) {
        memcpy(raw, arg, klen);
        raw[klen] = 0;
        cli_key_canon(raw, key, sizeof key);
        a = mm_results_axis_find(info, key);
        metric = mm_results_column_find(info, key);
    }
    if (a >= 0 && OP_CODE[op] == MM_CMP_EQ) {
        int32_t k;
        const mm_results_axis *ax = &info->axes[a];
        int r = mm_results_axis_value(ax, val, &k);
        char tapes[512];
        if (r && !strcmp(ax->key, "tape") && ax->type == MM_COL_ENUM) {
            int t = tape_by_symbol(ax, val, &k, tapes, sizeof tapes);
            if (t == 1) {
                cli_err("show: --where %s: the symbol %s is on several tapes (%s); write the tape "
                        "as FILE#%s",
                        arg, val, tapes, val);
                return -1;
            }
            r = t;
        }
        if (r) {
            char vals[512];
            list_values(ax, vals, sizeof vals);
            cli_err("show: --where %s: '%s' is not a value of axis %s (values: %s)", arg, val,
                    ax->key, vals);
            return -1;
        }
        s->w[s->q.n_where++] = (mm_results_where){a, k};
        return 0;
    }
    if (a >= 0) {
        cli_err("show: --where %s: an axis takes key=value only (%s is an axis, not a metric)", arg,
                info->axes[a].key);
        return -1;
    }
    if (metric >= 0) {
        if (!cli_is_decimal(val, 0)) {
            cli_err("show: --where %s: '%s' is not a decimal number", arg, val);
            return -1;
        }
        s->c[s->q.n_cond++] = (mm_results_cond){metric, OP_CODE[op], strtod(val, NULL)};
        return 0;
    }
    /* Unknown: the closest axis or metric name, then the lists. */
    const char *cands[MM_RESULTS_MAX_METRICS + 64];
    int nc = 0;
    for (int i = 0; i < info->n_axes && nc < 64; i++)
        cands[nc++] = info->axes[i].key;
    for (int i = 0; i < info->n_metrics; i++)
        cands[nc++] = info->metric_names[i];
    const char *near = klen < sizeof raw ? cli_suggest(raw, cands, nc) : NULL;
    char keys[512] = "";
    size_t len = 0;
    for (int i = 0; i < info->n_axes && len < sizeof keys; i++)
        len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", i ? ", " : "",
                                info->axes[i].key);
    char hint[96] = "";
    if (near) snprintf(hint, sizeof hint, "did you mean %s? ", near);
    cli_err("show: --where %s: unknown axis '%.*s' (%saxes: %s; or a metric column, as in pnl>0)",
            arg, (int)klen, arg, hint, info->n_axes ? keys : "none");
    return -1;
}

static void print_provenance(const show *s)
{
    const mm_results_info *in = s->info;
    const mm_results_meta *m = &in->meta;
    printf("results   %s: %" PRId64 " combination%s", s->path, in->n_rows,
           in->n_rows == 1 ? "" : "s");
    for (int a = 0; a < in->n_axes; a++)
        printf("%s%s %" PRId32, a ? " x " : ", axes ", in->axes[a].key, in->axes[a].n);
    printf("\n");
    printf("engine    %s, %" PRId32 " worker%s, mmsim %s\n", m->engine[0] ? m->engine : "(unknown)",
           m->workers, m->workers == 1 ? "" : "s", in->mmsim_version);
    printf("wall      %.3f s, %.6g combinations/s, %.6g updates/s\n", m->wall_s, m->combos_per_s,
           m->updates_per_s);
    printf("seed      %" PRIu64 "\n", m->seed);
    if (m->stalls)
        printf("stalls    %" PRId64 " worker%s killed for making no progress, %s chunk%s rerun on "
               "a fresh worker (docs/sweep.md, \"Stalled workers\")\n",
               m->stalls, m->stalls == 1 ? "" : "s", m->stalls == 1 ? "its" : "their",
               m->stalls == 1 ? "" : "s");
    if (in->paths > 1)
        printf("paths     %" PRId64 " per combination: each row summarises them (docs/results.md, "
               "\"Monte Carlo\")%s\n",
               in->paths, in->has_paths ? "; every path's row is in /paths" : "");
    printf("hash      %016" PRIx64 " (content_hash)\n", in->content_hash);
    printf("markouts ");
    for (int k = 0; k < MM_MARKOUTS; k++) {
        char h[32];
        mm_results_horizon_name(m->markout_ns[k], h, sizeof h);
        printf(" %s", h);
    }
    printf("\n");
    /* Sharpe's annualisation, from the recorded [run] settings (docs/model.md 7.2). */
    char sharpe[256];
    if (!cli_sharpe_label(in, sharpe, sizeof sharpe)) printf("sharpe    %s\n", sharpe);
    cli_sharpe_warnings(in, "warning   ");
    printf("objective %s, %s (the stored index is largest first)\n", m->objective,
           cli_objective_ascending(in) ? "smallest first" : "largest first");
    for (int32_t i = 0; i < m->n_inputs; i++)
        printf("%s%s%s%s (fingerprint %016" PRIx64 ")\n", i ? "          " : "inputs    ",
               m->input_paths[i], m->input_symbols[i] ? "#" : "",
               m->input_symbols[i] ? m->input_symbols[i] : "", m->input_fingerprints[i]);
    if (m->n_inputs == 0) printf("inputs    (none recorded)\n");
}

/* Print the ranked entries as an aligned table. */
static int print_table(const show *s, const rows *t, int all, int header)
{
    const mm_results_info *in = s->info;
    const int64_t n = t->n;
    const size_t na = (size_t)in->n_axes;
    int metrics[MM_RESULTS_MAX_METRICS + 1], nm = 0;
    if (all) {
        for (int i = 0; i < in->n_metrics; i++)
            metrics[nm++] = i;
    } else {
        int have = 0, mc = in->paths > 1;
        size_t nd = mc ? sizeof DEFAULT_MC / sizeof DEFAULT_MC[0]
                       : sizeof DEFAULT_METRICS / sizeof DEFAULT_METRICS[0];
        for (size_t i = 0; i < nd; i++) {
            int c = mm_results_column_find(in, mc ? DEFAULT_MC[i] : DEFAULT_METRICS[i]);
            if (c < 0) continue;
            metrics[nm++] = c;
            have |= c == s->q.metric;
        }
        if (!have) metrics[nm++] = s->q.metric;
    }
    /* sharpe_flag (docs/results.md, "When sharpe means something"): when a tape's Sharpe is
     * flagged, a last column gives each row's flag. */
    int flag = 0, tape_axis = in->n_axes > 0 && !strcmp(in->axes[0].key, "tape") ? 0 : -1;
    for (int32_t i = 0; in->paths == 1 && i < in->meta.n_inputs; i++) {
        int64_t ns;
        double sp;
        flag |= cli_sharpe_flags(in, i, &ns, &sp) > 0;
    }
    int ncols = 2 + in->n_axes + nm + flag;
    typedef struct cellbuf {
        char s[64];
    } cellbuf;
    const size_t cell = sizeof(cellbuf);
    cellbuf *cells = calloc((size_t)(n + 1) * (size_t)ncols, sizeof *cells);
    int *width = calloc((size_t)ncols, sizeof *width), *left = calloc((size_t)ncols, sizeof *left);
    if (!cells || !width || !left) {
        free(cells);
        free(width);
        free(left);
        cli_err("show: out of memory");
        return -1;
    }
#define CELL(r, c) (cells[(size_t)(r) * (size_t)ncols + (size_t)(c)].s)
    snprintf(CELL(0, 0), cell, "rank");
    snprintf(CELL(0, 1), cell, "id");
    for (int a = 0; a < in->n_axes; a++) {
        snprintf(CELL(0, 2 + a), cell, "%s", in->axes[a].key);
        left[2 + a] = in->axes[a].type == MM_COL_ENUM;
    }
    for (int j = 0; j < nm; j++)
        snprintf(CELL(0, 2 + in->n_axes + j), cell, "%s", in->metric_names[metrics[j]]);
    if (flag) {
        snprintf(CELL(0, ncols - 1), cell, "sharpe_flag");
    }
    for (int64_t r = 0; r < n; r++) {
        snprintf(CELL(r + 1, 0), cell, "%" PRId64, r + 1);
        snprintf(CELL(r + 1, 1), cell, "%" PRId64, t->ids[r]);
        for (int a = 0; a < in->n_axes; a++)
            mm_results_axis_format(&in->axes[a], t->idx[(size_t)r * na + (size_t)a],
                                   CELL(r + 1, 2 + a), cell);
        for (int j = 0; j < nm; j++) {
            char *c = CELL(r + 1, 2 + in->n_axes + j);
            const mm_results_value *v = &t->m[(size_t)r * (size_t)in->n_metrics + metrics[j]];
            if (in->metric_types[metrics[j]] == MM_COL_I64)
                snprintf(c, cell, "%" PRId64, v->i64);
            else
                snprintf(c, cell, "%.8g", v->f64);
        }
        if (flag) {
            int64_t ns;
            double sp;
            int32_t ti = tape_axis < 0 ? 0 : t->idx[(size_t)r * na + (size_t)tape_axis];
            snprintf(CELL(r + 1, ncols - 1), cell, "%s",
                     cli_sharpe_flag_text(cli_sharpe_flags(in, ti, &ns, &sp)));
        }
    }
    for (int64_t r = header ? 0 : 1; r <= n; r++)
        for (int c = 0; c < ncols; c++) {
            int len = (int)strlen(CELL(r, c));
            if (len > width[c]) width[c] = len;
        }
    for (int64_t r = header ? 0 : 1; r <= n; r++) {
        for (int c = 0; c < ncols; c++)
            printf("%s%*s", c ? "  " : "", left[c] ? -width[c] : width[c], CELL(r, c));
        printf("\n");
    }
#undef CELL
    free(cells);
    free(width);
    free(left);
    return 0;
}

int cmd_show(int argc, char **argv)
{
    const char *C = "show";
    show s = {0};
    int64_t top = 20;
    const char *sort = NULL;
    int all = 0, verify = 0, no_header = 0;
    const char **wargs = calloc((size_t)argc + 1, sizeof *wargs);
    int n_wargs = 0;
    enum { O_TOP = 256, O_SORT, O_ASC, O_WHERE, O_ALL, O_VERIFY, O_NOHEADER, O_DESC, O_IDLE };
    int dir = -1; /* --asc 1, --desc 0, -1: the sort's or the objective's own direction */
    static const struct option opts[] = {{"top", 1, 0, O_TOP},
                                         {"sort", 1, 0, O_SORT},
                                         {"asc", 0, 0, O_ASC},
                                         {"desc", 0, 0, O_DESC},
                                         {"where", 1, 0, O_WHERE},
                                         {"all", 0, 0, O_ALL},
                                         {"verify", 0, 0, O_VERIFY},
                                         {"no-header", 0, 0, O_NOHEADER},
                                         {"keep-idle", 0, 0, O_IDLE},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c, rc = MM_EXIT_OK, keep_idle = 0;
    if (!wargs) {
        cli_err("%s: out of memory", C);
        return MM_EXIT_RUNTIME;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_TOP:
            if (cli_i64(C, "--top", optarg, 1, INT64_C(1) << 40, &top)) rc = MM_EXIT_USAGE;
            break;
        case O_SORT:
            sort = optarg;
            break;
        case O_DESC:
            dir = 0;
            break;
        case O_ASC:
            dir = 1;
            break;
        case O_WHERE:
            wargs[n_wargs++] = optarg;
            break;
        case O_ALL:
            all = 1;
            break;
        case O_VERIFY:
            verify = 1;
            break;
        case O_IDLE:
            keep_idle = 1;
            break;
        case O_NOHEADER:
            no_header = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            free(wargs);
            return MM_EXIT_OK;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "show", c == ':', argv, opts);
            rc = MM_EXIT_USAGE;
            break;
        }
        if (rc) {
            free(wargs);
            return rc;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one results file (see 'mmsim show --help')", C);
        free(wargs);
        return MM_EXIT_USAGE;
    }
    s.path = argv[optind];
    mm_error e = {0};
    if (mm_results_open(s.path, &s.r, &e)) {
        free(wargs);
        return cli_fail(&e);
    }
    s.info = mm_results_describe(s.r);
    s.w = calloc((size_t)n_wargs + 1, sizeof *s.w);
    s.c = calloc((size_t)n_wargs + 1, sizeof *s.c);
    s.q.where = s.w;
    s.q.keep_idle = keep_idle;
    s.q.cond = s.c;
    rows t = {0};
    if (!s.w || !s.c) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    /* The direction: --asc/--desc, else the prefix of --sort (min:max_drawdown), else the
     * metric's own (smaller is better for max_drawdown, fees, ...), else, for the file's objective,
     * the direction its sweep recorded ("objective = min:..." in its configuration). */
    char sort_key[64];
    int asc = 0;
    if (sort && cli_objective_split(sort, sort_key, sizeof sort_key, &asc)) {
        cli_err("%s: --sort: '%s' is not a metric column, optionally after min: or max:", C, sort);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    char sort_name[64];
    if (sort) sort = cli_key_canon(sort_key, sort_name, sizeof sort_name); /* max-drawdown too */
    if (!sort) asc = cli_objective_ascending(s.info);
    s.q.ascending = dir >= 0 ? dir : asc;
    s.q.metric = mm_results_column_find(s.info, sort ? sort : s.info->meta.objective);
    if (s.q.metric < 0) {
        char list[2048];
        mm_results_column_list(s.info, list, sizeof list);
        if (sort)
            cli_err("%s: --sort: unknown metric '%s' (%s)", C, sort, list);
        else
            cli_err("%s: objective '%s' is not a metric column", s.path, s.info->meta.objective);
        rc = sort ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
        goto out;
    }
    for (int i = 0; i < n_wargs; i++)
        if (parse_where(&s, wargs[i])) {
            rc = MM_EXIT_USAGE;
            goto out;
        }
    if (verify) {
        uint64_t hash;
        if (mm_results_hash(s.path, &hash, &e)) {
            rc = cli_fail(&e);
            goto out;
        }
        if (hash != s.info->content_hash) {
            cli_err("%s: content hash mismatch: stored %016" PRIx64 ", content %016" PRIx64
                    " (file modified or corrupt)",
                    s.path, s.info->content_hash, hash);
            rc = MM_EXIT_RUNTIME;
            goto out;
        }
    }
    /* Room for the rows asked for, at most the table. */
    s.q.k = top < s.info->n_rows ? top : s.info->n_rows;
    size_t room = (size_t)(s.q.k > 0 ? s.q.k : 1),
           na = (size_t)(s.info->n_axes > 0 ? s.info->n_axes : 1);
    t.ids = calloc(room, sizeof *t.ids);
    t.m = t.ids ? calloc(room * (size_t)s.info->n_metrics, sizeof *t.m) : NULL;
    t.idx = t.m ? calloc(room * na, sizeof *t.idx) : NULL;
    if (!t.idx) {
        cli_err("%s: out of memory for --top %" PRId64, C, top);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    mm_results_top_info ti;
    if (mm_results_top_values(s.r, &s.q, t.ids, t.idx, t.m, &ti, &e)) {
        if (e.code == -ENOMEM)
            cli_err("%s: out of memory", C);
        else
            cli_fail(&e);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    t.n = ti.n;
    if (no_header) {
        /* Rows only, for scripts (awk, sort): no provenance, no title, no column names; nothing
         * at all when no row matches. */
        if (t.n > 0 && print_table(&s, &t, all, 0)) rc = MM_EXIT_RUNTIME;
        goto out;
    }
    print_provenance(&s);
    const char *sname = s.info->metric_names[s.q.metric];
    printf("\ntop %" PRId64 " of %" PRId64 " row%s", t.n, ti.matched, ti.matched == 1 ? "" : "s");
    for (int i = 0; i < s.q.n_where; i++) {
        char v[256];
        mm_results_axis_format(&s.info->axes[s.w[i].axis], s.w[i].value, v, sizeof v);
        printf("%s%s=%s", i ? " and " : " where ", s.info->axes[s.w[i].axis].key, v);
    }
    static const char *const OPS[] = {"<", "<=", "=", "!=", ">=", ">"};
    for (int i = 0; i < s.q.n_cond; i++) {
        char v[40];
        const char *mname = s.info->metric_names[s.c[i].metric];
        printf("%s%s%s%s", i || s.q.n_where ? " and " : " where ", mname, OPS[s.c[i].op],
               cli_fmt_shortest(s.c[i].value, v, sizeof v));
    }
    printf(", by %s %s%s:\n", sname, s.q.ascending ? "ascending" : "descending",
           ti.from_index ? " (stored index)" : "");
    if (ti.set_aside > 0)
        printf("set aside %" PRId64 " row%s with no fill (fills_bid + fills_ask = 0): a row that "
               "never trades is no strategy, and its pnl of 0 would rank above every row that "
               "takes risk (--keep-idle ranks them)\n",
               ti.set_aside, ti.set_aside == 1 ? "" : "s");
    if (t.n == 0)
        printf("(no rows)\n");
    else if (print_table(&s, &t, all, 1))
        rc = MM_EXIT_RUNTIME;
out:
    free(t.idx);
    free(t.m);
    free(t.ids);
    free(s.w);
    free(s.c);
    free(wargs);
    mm_results_close(s.r);
    return rc;
}
