/* mmsim report: one self-contained HTML page for a results file: a heatmap of a metric over two
 * axes, the best rows as a sortable table, and the provenance (docs/report.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_keys.h"
#include "recorded.h"
#include "report.h"

/* The defaults, which the help prints (printf: one source for both). */
enum { TOP_DEFAULT = 20, BINS_DEFAULT = 100, BUCKETS_DEFAULT = 500, DIST_DEFAULT = 5 };
enum { SCATTER_DEFAULT = 5000 };
static const char HELP[] =
    "usage: mmsim report results.h5 -o report.html [--x KEY] [--y KEY] [--metric M] [--asc]\n"
    "                    [--agg max|mean|min] [--fix key=value ...] [--top N] [--bins N]\n"
    "                    [--curves N [--curve-buckets N]] [--dist K] [--scatter N]\n"
    "\n"
    "Write one self-contained HTML page (inline SVG and CSS, no network) for a sweep's results "
    "file:\n"
    "a heatmap of a metric over two axes, the best rows as a sortable table, and the provenance.\n"
    "The other axes are fixed by --fix or aggregated by --agg (docs/report.md).\n"
    "\n"
    "  -o, --output FILE  the HTML file (written to a temporary file, renamed when complete)\n"
    "  --x KEY, --y KEY   heatmap axes [the two axes with the most values, not fixed]\n"
    "  --metric M         metric column, [min:|max:]M [the file's objective, in its "
    "direction;\n"
    "                     without a prefix, smallest first for max_drawdown, fees, rejects, ...]\n"
    "  --asc              best = smallest, whatever the metric\n"
    "  --agg RULE         how the rows of one cell combine: max, mean or min [max; min when "
    "smallest is\n"
    "                     best]\n"
    "  --fix key=value    keep only rows whose axis `key` has this value (repeatable, AND)\n"
    "  --top N            rows in the table [%d]; 0 for none\n"
    "  --bins N           cells per heatmap axis at most (1..500); longer axes group "
    "consecutive values [%d]\n"
    "  --curves N         rerun the best N rows (0..20) and draw their PnL, inventory and mid "
    "over time [0]\n"
    "  --curve-buckets N  time buckets per curve, each keeping min, max and last [%d]\n"
    "  --dist K           Monte Carlo results: PnL distributions of the best K rows (0..100) [%d]\n"
    "  --scatter N        Monte Carlo results: mean vs p5 as points up to N rows (0..20000), a\n"
    "                     density grid above [%d]\n"
    "  -h, --help         this help\n";

/* Metric columns of the table (the heatmap's metric is added when not among them). */
static const char *const TABLE_METRICS[] = {
    "pnl",       "pnl_spread", "pnl_inventory", "fees",   "volume",       "fills_bid",
    "fills_ask", "max_abs_q",  "mean_abs_q",    "sharpe", "max_drawdown", "pnl_close"};
static const char *const TABLE_MC[] = {"pnl_mean",          "pnl_std",    "pnl_p5", "pnl_p50",
                                       "pnl_p95",           "pnl_cvar5",  "p_loss", "sharpe_mean",
                                       "max_drawdown_mean", "final_q_std"};

typedef struct report {
    const char *path, *out;
    mm_results_reader *r;
    const mm_results_info *in;
    rep_grid_opts go;
    mm_results_where *fix;
    char metric[64];
    int64_t top, curves, curve_buckets, dist, scatter;
    int mc_flag; /* --dist or --scatter given */
    rep_dist d;  /* Monte Carlo views (paths > 1) */
    rep_robust rb;
    rep_topcurve *tc; /* curves of the best rows (--curves) */
    /* The selection section (a file with time blocks): mm_select_run's result, or why not. */
    mm_select_result *sel;
    char sel_why[1024];
} report;

static void axis_list(const mm_results_info *in, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int a = 0; a < in->n_axes && len < cap; a++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", a ? ", " : "", in->axes[a].key);
}

static int find_axis(report *s, const char *flag, const char *key)
{
    char canon[64]; /* --x inv-limit is inv_limit */
    int a = mm_results_axis_find(s->in, cli_key_canon(key, canon, sizeof canon));
    if (a < 0) {
        char keys[512];
        axis_list(s->in, keys, sizeof keys);
        cli_err("report: %s: unknown axis '%s' (axes: %s)", flag, key, keys);
    }
    return a;
}

static int parse_fix(report *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char key[64];
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof key) {
        cli_err("report: --fix: '%s' is not key=value", arg);
        return -1;
    }
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = 0;
    int a = find_axis(s, "--fix", key);
    if (a < 0) return -1;
    int32_t k;
    if (mm_results_axis_value(&s->in->axes[a], eq + 1, &k)) {
        char v[128];
        mm_results_axis_format(&s->in->axes[a], 0, v, sizeof v);
        cli_err("report: --fix %s: '%s' is not a value of axis %s (%" PRId32
                " values, the first %s)",
                arg, eq + 1, key, s->in->axes[a].n, v);
        return -1;
    }
    for (int32_t f = 0; f < s->go.n_fix; f++)
        if (s->fix[f].axis == a) {
            cli_err("report: --fix %s: axis %s is fixed twice", arg, key);
            return -1;
        }
    s->fix[s->go.n_fix++] = (mm_results_where){a, k};
    return 0;
}

static int is_fixed(const report *s, int a)
{
    for (int32_t f = 0; f < s->go.n_fix; f++)
        if (s->fix[f].axis == a) return 1;
    return 0;
}

/* Default axes: the free axes with the most values (ties: table order); with `multi`, only an
 * axis of more than one value (a y axis of one value draws no better than none). */
static int pick_axis(const report *s, int other, int multi)
{
    int best = -1;
    for (int a = 0; a < s->in->n_axes; a++)
        if (a != other && !is_fixed(s, a) && (!multi || s->in->axes[a].n > 1) &&
            (best < 0 || s->in->axes[a].n > s->in->axes[best].n))
            best = a;
    return best;
}

static int top_table(rep_out *o, report *s)
{
    const mm_results_info *in = s->in;
    mm_results_query q = {s->go.metric, s->go.ascending, s->fix, s->go.n_fix, s->top, NULL, 0, 0};
    if (q.k > in->n_rows) q.k = in->n_rows;
    size_t room = (size_t)(q.k > 0 ? q.k : 1), na = (size_t)(in->n_axes > 0 ? in->n_axes : 1);
    int64_t *ids = calloc(room, sizeof *ids);
    int32_t *idx = calloc(room * na, sizeof *idx);
    const size_t nm = (size_t)in->n_metrics;
    mm_results_value *m = calloc(room * nm, sizeof *m);
    mm_results_top_info ti = {0};
    mm_error e = {0};
    int rc = 0;
    if (!ids || !idx || !m) {
        cli_err("report: out of memory for --top %" PRId64, s->top);
        rc = -1;
        goto out;
    }
    if (mm_results_top_values(s->r, &q, ids, idx, m, &ti, &e)) {
        cli_fail(&e);
        rc = -1;
        goto out;
    }
    int cols[MM_RESULTS_MAX_METRICS + 1], nc = 0, have = 0, mc = in->paths > 1;
    size_t nt =
        mc ? sizeof TABLE_MC / sizeof TABLE_MC[0] : sizeof TABLE_METRICS / sizeof TABLE_METRICS[0];
    for (size_t i = 0; i < nt; i++) {
        int c = mm_results_column_find(in, mc ? TABLE_MC[i] : TABLE_METRICS[i]);
        if (c < 0) continue;
        cols[nc++] = c;
        have |= c == s->go.metric;
    }
    if (!have) cols[nc++] = s->go.metric;
    rep_printf(o, "<h2>Top %" PRId64 " of %" PRId64 " by %s (%s)</h2>\n", ti.n, ti.matched,
               s->metric, s->go.ascending ? "smallest first" : "largest first");
    rep_top_notes(o, in, ti.set_aside);
    rep_printf(o, "<p class=\"note\">Click a column header to sort by it.</p>\n");
    rep_printf(o, "<div class=\"wide\"><table class=\"sortable\" id=\"top\">\n<thead><tr><th "
                  "class=\"n\">rank</th>"
                  "<th class=\"n\">id</th>");
    for (int a = 0; a < in->n_axes; a++) {
        rep_printf(o, "<th%s>", in->axes[a].type == MM_COL_ENUM ? " class=\"s\"" : " class=\"n\"");
        rep_esc(o, in->axes[a].key);
        rep_printf(o, "</th>");
    }
    for (int j = 0; j < nc; j++)
        rep_printf(o, "<th class=\"n\">%s</th>", in->metric_names[cols[j]]);
    rep_printf(o, "</tr></thead>\n<tbody>\n");
    for (int64_t r = 0; r < ti.n; r++) {
        rep_printf(o, "<tr data-rank=\"%" PRId64 "\"><td>%" PRId64 "</td><td>%" PRId64 "</td>",
                   r + 1, r + 1, ids[r]);
        for (int a = 0; a < in->n_axes; a++) {
            char v[256];
            mm_results_axis_format(&in->axes[a], idx[(size_t)r * na + (size_t)a], v, sizeof v);
            rep_printf(o, "<td%s>", in->axes[a].type == MM_COL_ENUM ? " class=\"s\"" : "");
            rep_esc(o, v);
            rep_printf(o, "</td>");
        }
        for (int j = 0; j < nc; j++) {
            char v[64];
            const mm_results_value *x = &m[(size_t)r * nm + (size_t)cols[j]];
            if (in->metric_types[cols[j]] == MM_COL_I64)
                snprintf(v, sizeof v, "%" PRId64, x->i64);
            else
                rep_num(x->f64, v, sizeof v);
            rep_printf(o, "<td>%s</td>", v);
        }
        rep_printf(o, "</tr>\n");
    }
    rep_printf(o, "</tbody>\n</table></div>\n");
out:
    free(ids);
    free(idx);
    free(m);
    return rc;
}

static void heatmap_section(rep_out *o, const report *s, const rep_grid *g)
{
    const mm_results_info *in = s->in;
    const mm_results_axis *ax = &in->axes[s->go.x], *ay = s->go.y >= 0 ? &in->axes[s->go.y] : NULL;
    rep_printf(o, "<h2>");
    rep_esc(o, s->metric);
    rep_printf(o, " by ");
    rep_esc(o, ax->key);
    if (ay) {
        rep_printf(o, " &#215; ");
        rep_esc(o, ay->key);
    }
    rep_printf(o, "</h2>\n<p class=\"note\">Each cell: the %s of %s over the rows with that ",
               rep_agg_names[s->go.agg], s->metric);
    rep_esc(o, ax->key);
    if (ay) {
        rep_printf(o, " and ");
        rep_esc(o, ay->key);
    }
    int folded = 0;
    for (int a = 0; a < in->n_axes; a++) {
        if (a == s->go.x || a == s->go.y || is_fixed(s, a)) continue;
        rep_printf(o, "%s", folded++ ? " &#215; " : " (aggregated over ");
        rep_esc(o, in->axes[a].key);
        rep_printf(o, " %" PRId32, in->axes[a].n);
    }
    rep_printf(o, "%s", folded ? ")" : "");
    for (int32_t f = 0; f < s->go.n_fix; f++) {
        char v[256];
        mm_results_axis_format(&in->axes[s->fix[f].axis], s->fix[f].value, v, sizeof v);
        rep_printf(o, "%s", f ? ", " : "; fixed: ");
        rep_esc(o, in->axes[s->fix[f].axis].key);
        rep_printf(o, "=");
        rep_esc(o, v);
    }
    rep_printf(o,
               "; %" PRId64 " of %" PRId64 " rows. Outlined: the best cell (%s). Hover a cell "
               "for its value, row count and best row. Grey: no value.",
               g->matched, g->rows, s->go.ascending ? "smallest" : "largest");
    if (rep_heatmap_diverging(g, s->metric))
        rep_printf(o,
                   " Blue: %s 0, red: %s, white: 0; each side shaded to its own extreme (the "
                   "legend's halves).",
                   s->go.ascending ? "below" : "above", s->go.ascending ? "above" : "below");
    for (int a = 0; a < in->n_axes; a++) /* money of several tapes: maybe several currencies */
        if (!strcmp(in->axes[a].key, "tape") && in->axes[a].n > 1 && a != s->go.x && a != s->go.y &&
            !is_fixed(s, a) && !strncmp(rep_metric_unit(s->metric), "money", 5))
            rep_printf(o,
                       " Money is in each tape's price unit: the %" PRId32
                       " tapes aggregated here may not share one (--fix tape=... for one).",
                       in->axes[a].n);
    if (g->bx > 1 || g->by > 1)
        rep_printf(o,
                   " Long axes are grouped: %" PRId32 " x %" PRId32
                   " consecutive values per cell (--bins).",
                   g->bx, g->by);
    rep_printf(o, "</p>\n");
    rep_heatmap(o, in, &s->go, g, s->metric);
}

static int write_page(report *s, const rep_grid *g)
{
    rep_out o = {0};
    int e = rep_open(&o, s->out);
    if (e) {
        cli_err("report: -o %s: %s", s->out, strerror(e));
        return MM_EXIT_RUNTIME;
    }
    const char *base = strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path;
    char title[512];
    snprintf(title, sizeof title, "mmsim report: %s", base);
    rep_page_begin(&o, title);
    rep_printf(&o, "<h1>");
    rep_esc(&o, title);
    rep_printf(&o,
               "</h1>\n<p class=\"sub\">%" PRId64 " combinations over %" PRId32 " axes, objective ",
               s->in->n_rows, s->in->n_axes);
    rep_esc(&o, s->in->meta.objective);
    rep_printf(&o, "; written by mmsim %s</p>\n", mm_version());
    heatmap_section(&o, s, g);
    if (s->top > 0 && top_table(&o, s)) {
        rep_abort(&o);
        return MM_EXIT_RUNTIME;
    }
    if (s->tc) rep_topcurves_section(&o, s->in, s->tc, s->curves, s->metric);
    if (s->in->n_blocks > 0) rep_select_section(&o, s->in, s->sel, s->sel_why);
    if (s->in->paths > 1) {
        if (s->dist > 0) rep_dist_section(&o, s->in, &s->d, &s->go);
        rep_robust_section(&o, s->in, &s->rb, s->dist > 0 ? &s->d : NULL, &s->go);
    }
    rep_provenance(&o, s->in, s->path);
    rep_page_end(&o);
    e = rep_commit(&o);
    if (e) {
        cli_err("report: -o %s: %s", s->out, strerror(e));
        return MM_EXIT_RUNTIME;
    }
    return MM_EXIT_OK;
}

/* Rerun the best --curves rows (same metric, direction and filters as the table). */
static int run_curves(report *s)
{
    const mm_results_info *in = s->in;
    mm_results_query q = {
        s->go.metric, s->go.ascending, s->fix, s->go.n_fix, s->curves, NULL, 0, 0};
    size_t room = (size_t)s->curves, na = (size_t)(in->n_axes > 0 ? in->n_axes : 1);
    int64_t *ids = calloc(room, sizeof *ids);
    int32_t *idx = calloc(room * na, sizeof *idx);
    mm_metrics *m = calloc(room, sizeof *m);
    mm_results_top_info ti = {0};
    mm_error e = {0};
    int rc = -1;
    if (in->paths > 1)
        cli_err("report: --curves: %s holds Monte Carlo summaries; draw one path's day with "
                "'mmsim run --from %s --id N --path P --curve day.html'",
                s->path, s->path);
    else if (!ids || !idx || !m)
        cli_err("report: out of memory for --curves");
    else if (mm_results_top(s->r, &q, ids, idx, m, &ti, &e))
        cli_fail(&e);
    else if (!rep_topcurves_run(in, s->path, ids, idx, m, ti.n, (int32_t)s->curve_buckets,
                                &s->tc)) {
        s->curves = ti.n;
        rc = 0;
    }
    free(ids);
    free(idx);
    free(m);
    return rc;
}

/* Turn the names into numbers and check them against the file. Returns 0 or an exit status. */
static int resolve(report *s, const char *x, const char *y, const char *metric, const char *agg,
                   char **fixes, int n_fixes)
{
    const mm_results_info *in = s->in;
    /* The direction, as show has it: --asc, else the prefix of --metric (min:max_drawdown), else
     * the metric's own, else the direction the file's sweep recorded for its objective. */
    char mname[64];
    int asc = 0;
    if (metric && cli_objective_split(metric, mname, sizeof mname, &asc)) {
        cli_err("report: --metric: '%s' is not a metric column, optionally after min: or max:",
                metric);
        return MM_EXIT_USAGE;
    }
    if (!metric) asc = cli_objective_ascending(in);
    if (!s->go.ascending) s->go.ascending = asc;
    s->go.metric = mm_results_column_find(in, metric ? mname : in->meta.objective);
    if (s->go.metric < 0) {
        char list[2048];
        mm_results_column_list(in, list, sizeof list);
        if (metric) {
            cli_err("report: --metric: unknown metric '%s' (%s)", metric, list);
            return MM_EXIT_USAGE;
        }
        cli_err("%s: objective '%s' is not a metric column", s->path, in->meta.objective);
        return MM_EXIT_RUNTIME;
    }
    snprintf(s->metric, sizeof s->metric, "%s", in->metric_names[s->go.metric]);
    s->go.agg = s->go.ascending ? REP_AGG_MIN : REP_AGG_MAX;
    if (agg) {
        int k = 0;
        while (k < 3 && strcmp(agg, rep_agg_names[k]))
            k++;
        if (k == 3) {
            cli_err("report: --agg: '%s' is not max, mean or min", agg);
            return MM_EXIT_USAGE;
        }
        s->go.agg = k;
    }
    for (int i = 0; i < n_fixes; i++)
        if (parse_fix(s, fixes[i])) return MM_EXIT_USAGE;
    s->go.x = x ? find_axis(s, "--x", x) : -1;
    s->go.y = y ? find_axis(s, "--y", y) : -1;
    if ((x && s->go.x < 0) || (y && s->go.y < 0)) return MM_EXIT_USAGE;
    if (x && y && s->go.x == s->go.y) {
        cli_err("report: --x and --y are both '%s'; choose two axes", x);
        return MM_EXIT_USAGE;
    }
    for (int k = 0; k < 2; k++) {
        int a = k ? s->go.y : s->go.x;
        if (a >= 0 && is_fixed(s, a)) {
            cli_err("report: %s %s: the axis is also fixed by --fix", k ? "--y" : "--x",
                    in->axes[a].key);
            return MM_EXIT_USAGE;
        }
    }
    if (s->go.x < 0) s->go.x = pick_axis(s, s->go.y, 0);
    if (s->go.x < 0) {
        cli_err("report: no axis left for the heatmap (every axis is fixed by --fix)");
        return MM_EXIT_USAGE;
    }
    if (!y) s->go.y = pick_axis(s, s->go.x, 1); /* -1 when none is left: one row */
    return 0;
}

int cmd_report(int argc, char **argv)
{
    const char *C = "report";
    report s = {0};
    s.top = TOP_DEFAULT;
    s.go.max_bins = BINS_DEFAULT;
    s.curve_buckets = BUCKETS_DEFAULT;
    s.dist = DIST_DEFAULT;
    s.scatter = SCATTER_DEFAULT;
    const char *x = NULL, *y = NULL, *metric = NULL, *agg = NULL;
    char **fixes = calloc((size_t)argc + 1, sizeof *fixes);
    int n_fixes = 0, c, rc = MM_EXIT_OK;
    int64_t v;
    rep_grid g = {0};
    enum {
        O_X = 256,
        O_Y,
        O_METRIC,
        O_ASC,
        O_AGG,
        O_FIX,
        O_TOP,
        O_BINS,
        O_CURVES,
        O_BUCKETS,
        O_DIST,
        O_SCATTER
    };
    static const struct option opts[] = {{"output", 1, 0, 'o'},
                                         {"x", 1, 0, O_X},
                                         {"y", 1, 0, O_Y},
                                         {"metric", 1, 0, O_METRIC},
                                         {"asc", 0, 0, O_ASC},
                                         {"agg", 1, 0, O_AGG},
                                         {"fix", 1, 0, O_FIX},
                                         {"top", 1, 0, O_TOP},
                                         {"bins", 1, 0, O_BINS},
                                         {"curves", 1, 0, O_CURVES},
                                         {"curve-buckets", 1, 0, O_BUCKETS},
                                         {"dist", 1, 0, O_DIST},
                                         {"scatter", 1, 0, O_SCATTER},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    if (!fixes) {
        cli_err("%s: out of memory", C);
        return MM_EXIT_RUNTIME;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1 && !rc) {
        switch (c) {
        case 'o':
            s.out = optarg;
            break;
        case O_X:
            x = optarg;
            break;
        case O_Y:
            y = optarg;
            break;
        case O_METRIC:
            metric = optarg;
            break;
        case O_ASC:
            s.go.ascending = 1;
            break;
        case O_AGG:
            agg = optarg;
            break;
        case O_FIX:
            fixes[n_fixes++] = optarg;
            break;
        case O_TOP:
            if (cli_i64(C, "--top", optarg, 0, 100000, &s.top)) rc = MM_EXIT_USAGE;
            break;
        case O_BINS:
            if (cli_i64(C, "--bins", optarg, 1, 500, &v)) rc = MM_EXIT_USAGE;
            s.go.max_bins = (int32_t)v;
            break;
        case O_CURVES:
            if (cli_i64(C, "--curves", optarg, 0, 20, &s.curves)) rc = MM_EXIT_USAGE;
            break;
        case O_BUCKETS:
            if (cli_i64(C, "--curve-buckets", optarg, 1, 10000, &s.curve_buckets))
                rc = MM_EXIT_USAGE;
            break;
        case O_DIST:
        case O_SCATTER:
            if (cli_i64(C, c == O_DIST ? "--dist" : "--scatter", optarg, 0,
                        c == O_DIST ? 100 : 20000, c == O_DIST ? &s.dist : &s.scatter))
                rc = MM_EXIT_USAGE;
            s.mc_flag = 1;
            break;
        case 'h':
            printf(HELP, TOP_DEFAULT, BINS_DEFAULT, BUCKETS_DEFAULT, DIST_DEFAULT, SCATTER_DEFAULT);
            free(fixes);
            return MM_EXIT_OK;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "report", c == ':', argv, opts);
            rc = MM_EXIT_USAGE;
            break;
        }
    }
    if (!rc && argc - optind != 1) {
        cli_err("%s: expected exactly one results file (see 'mmsim report --help')", C);
        rc = MM_EXIT_USAGE;
    }
    if (!rc && !s.out) {
        cli_err("%s: -o FILE is required (the HTML report)", C);
        rc = MM_EXIT_USAGE;
    }
    if (rc) goto out;
    s.path = argv[optind];
    mm_error e = {0};
    if (mm_results_open(s.path, &s.r, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    s.in = mm_results_describe(s.r);
    /* The report never replaces its input (nor, with --curves, which reads them, an input the
     * results file records), an HDF5 file, or anything but a writable file. */
    if (s.curves > 0) cli_recorded_note(s.in, s.path, NULL);
    if (cli_check_output(C, "-o", s.out, &s.path, 1) ||
        cli_check_not_h5(C, "-o", s.out, "an HTML report")) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    s.fix = calloc((size_t)n_fixes + 1, sizeof *s.fix);
    if (!s.fix) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    s.go.fix = s.fix;
    rc = resolve(&s, x, y, metric, agg, fixes, n_fixes);
    if (!rc && s.mc_flag && s.in->paths < 2) {
        cli_err("report: --dist and --scatter are for Monte Carlo results; %s has one path per "
                "combination",
                s.path);
        rc = MM_EXIT_USAGE;
    }
    if (rc) goto out;
    if (s.in->paths > 1 && ((s.dist > 0 && rep_dist_build(s.r, &s.go, s.dist, &s.d, &e)) ||
                            rep_robust_build(s.r, &s.go, s.scatter, &s.rb, &e))) {
        rc = cli_fail(&e);
        goto out;
    }
    if (rep_grid_build(s.r, &s.go, &g, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (s.in->n_blocks > 0 && s.in->paths == 1 &&
        rep_select_build(s.path, s.metric, &s.sel, s.sel_why, sizeof s.sel_why, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (s.curves > 0 && run_curves(&s)) {
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    rc = write_page(&s, &g);
    if (!rc)
        printf("report %s: %s by %s x %s, %" PRId32 " x %" PRId32 " cells\n", s.out, s.metric,
               s.in->axes[s.go.x].key, s.go.y >= 0 ? s.in->axes[s.go.y].key : "-", g.nx, g.ny);
out:
    rep_grid_free(&g);
    rep_dist_free(&s.d);
    rep_robust_free(&s.rb);
    mm_select_free(s.sel);
    rep_topcurves_free(s.tc, s.curves);
    free(s.fix);
    free(fixes);
    mm_results_close(s.r);
    return rc;
}
