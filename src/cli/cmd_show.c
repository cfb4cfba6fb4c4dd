/* mmsim show: the provenance of a results file and its best rows, filtered by axis values. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mmsim/results.h"

static const char HELP[] = "usage: mmsim show results.h5 [--top N] [--sort METRIC] [--asc] "
                           "[--where key=value ...] [--all] [--verify]\n"
                           "\n"
                           "Print the provenance of a sweep's results file (combinations, engine, "
                           "workers, wall time, seed, content\n"
                           "hash, inputs) and a table of its best rows (docs/results.md).\n"
                           "\n"
                           "  --top N            rows to print [20]\n"
                           "  --sort METRIC      metric column to rank by, best = largest [the "
                           "file's objective, whose stored index\n"
                           "                     is used]; NaN ranks last, ties by ascending id\n"
                           "  --asc              best = smallest (e.g. --sort max_drawdown --asc)\n"
                           "  --where key=value  only rows whose axis `key` has this value (a "
                           "number, or a name for enum and tape\n"
                           "                     axes); several --where combine with AND\n"
                           "  --all              print every metric column (default: a selection)\n"
                           "  --verify           recompute the content hash and fail (exit 1) when "
                           "it differs from the stored one\n"
                           "  -h, --help         this help\n";

/* Metric columns printed by default (the sort column is added when not among them). */
static const int DEFAULT_METRICS[] = {0, 1, 2, 3, 4, 9, 11, 12, 13};

typedef struct where {
    int axis;
    int32_t idx;
} where;

typedef struct entry {
    int64_t row;
    int type; /* of the sort column */
    double f;
    int64_t i;
    mm_metrics m;
    int32_t *axis_idx;
} entry;

typedef struct show {
    const char *path;
    mm_results_reader *r;
    const mm_results_info *info;
    int sort; /* metric number */
    int asc;
    int64_t top; /* rows wanted */
    where *w;
    int n_where;
} show;

/* Shortest "%.Ng" that reads back as the same double. */
static void fmt_f64(double v, char *buf, size_t cap)
{
    char t[32];
    int prec = 15;
    snprintf(t, sizeof t, "%.15g", v);
    while (prec < 17 && strtod(t, NULL) != v && !isnan(v))
        snprintf(t, sizeof t, "%.*g", ++prec, v);
    snprintf(buf, cap, "%s", t);
}

static void fmt_axis(const mm_results_axis *a, int32_t k, char *buf, size_t cap)
{
    if (a->type == MM_COL_F64)
        fmt_f64(a->f64[k], buf, cap);
    else if (a->type == MM_COL_I64)
        snprintf(buf, cap, "%" PRId64, a->i64[k]);
    else
        snprintf(buf, cap, "%s", a->names[k]);
}

static int find_metric(const mm_results_info *info, const char *name)
{
    char n[64];
    for (int i = 0; i < MM_RESULTS_METRICS; i++) {
        mm_results_metric(i, info->meta.markout_ns, n, sizeof n);
        if (!strcmp(n, name)) return i;
    }
    return -1;
}

static void list_metrics(const mm_results_info *info, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < MM_RESULTS_METRICS && len < cap; i++) {
        char n[64];
        mm_results_metric(i, info->meta.markout_ns, n, sizeof n);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", n);
    }
}

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
        fmt_axis(a, k, v, sizeof v);
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "", v);
    }
}

/* Value index of `text` on axis a, or -1. A float matches the value equal to it or, when none is,
 * the one value within 1e-9 relative (so "0.3" finds 0.30000000000000004). */
static int32_t match_value(const mm_results_axis *a, const char *text)
{
    char *end;
    errno = 0;
    if (a->type == MM_COL_ENUM) {
        for (int32_t k = 0; k < a->n; k++)
            if (!strcmp(a->names[k], text)) return k;
        return -1;
    }
    if (!cli_is_decimal(text, a->type == MM_COL_I64)) return -1; /* no blanks, hex, inf or nan */
    if (a->type == MM_COL_I64) {
        long long v = strtoll(text, &end, 10);
        if (!*text || *end || errno) return -1;
        for (int32_t k = 0; k < a->n; k++)
            if (a->i64[k] == v) return k;
        return -1;
    }
    double v = strtod(text, &end);
    if (!*text || *end || errno || !isfinite(v)) return -1;
    int32_t near = -1, n_near = 0;
    for (int32_t k = 0; k < a->n; k++) {
        if (a->f64[k] == v) return k;
        if (fabs(a->f64[k] - v) <= 1e-9 * fmax(fabs(v), fabs(a->f64[k]))) {
            near = k;
            n_near++;
        }
    }
    return n_near == 1 ? near : -1;
}

static int parse_where(show *s, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        cli_err("show: --where: '%s' is not key=value", arg);
        return -1;
    }
    size_t klen = (size_t)(eq - arg);
    const mm_results_info *info = s->info;
    for (int a = 0; a < info->n_axes; a++) {
        if (strlen(info->axes[a].key) != klen || strncmp(info->axes[a].key, arg, klen)) continue;
        int32_t k = match_value(&info->axes[a], eq + 1);
        if (k < 0) {
            char vals[512];
            list_values(&info->axes[a], vals, sizeof vals);
            cli_err("show: --where %s: '%s' is not a value of axis %s (values: %s)", arg, eq + 1,
                    info->axes[a].key, vals);
            return -1;
        }
        s->w[s->n_where++] = (where){a, k};
        return 0;
    }
    char keys[512] = "";
    size_t len = 0;
    for (int a = 0; a < info->n_axes && len < sizeof keys; a++)
        len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", a ? ", " : "",
                                info->axes[a].key);
    cli_err("show: --where %s: unknown axis '%.*s' (axes: %s)", arg, (int)klen, arg,
            info->n_axes ? keys : "none");
    return -1;
}

/* 1 when a ranks before b: better value first (NaN last), ties by ascending id. */
static int before(const entry *a, const entry *b, int asc)
{
    if (a->type == MM_COL_F64) {
        int na = isnan(a->f), nb = isnan(b->f);
        if (na != nb) return nb;
        if (!na && a->f != b->f) return asc ? a->f < b->f : a->f > b->f;
    } else if (a->i != b->i) {
        return asc ? a->i < b->i : a->i > b->i;
    }
    return a->row < b->row;
}

static int g_asc; /* for qsort */
static int cmp_entries(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    return before(a, b, g_asc) ? -1 : before(b, a, g_asc) ? 1 : 0;
}

/* Heap of the best `cap` entries seen, the worst at the top. */
typedef struct heap {
    entry *e;
    int64_t n, cap;
    int asc, n_axes;
} heap;

static void swap_entries(entry *a, entry *b)
{
    entry t = *a;
    *a = *b;
    *b = t;
}

static void sift_down(heap *h, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, worst = i;
        if (l < h->n && before(&h->e[worst], &h->e[l], h->asc)) worst = l;
        if (r < h->n && before(&h->e[worst], &h->e[r], h->asc)) worst = r;
        if (worst == i) return;
        swap_entries(&h->e[i], &h->e[worst]);
        i = worst;
    }
}

static void sift_up(heap *h, int64_t i)
{
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (!before(&h->e[p], &h->e[i], h->asc)) return;
        swap_entries(&h->e[p], &h->e[i]);
        i = p;
    }
}

static void fill_entry(entry *e, int64_t row, const mm_metrics *m, const int32_t *idx, int n_axes,
                       int sort)
{
    e->row = row;
    e->m = *m;
    memcpy(e->axis_idx, idx, (size_t)n_axes * sizeof *idx);
    e->type = mm_results_metric_value(m, sort, &e->f, &e->i);
}

static void heap_offer(heap *h, int64_t row, const mm_metrics *m, const int32_t *idx, int sort)
{
    entry cand = {0};
    cand.row = row;
    cand.type = mm_results_metric_value(m, sort, &cand.f, &cand.i);
    if (h->n < h->cap) {
        fill_entry(&h->e[h->n], row, m, idx, h->n_axes, sort);
        sift_up(h, h->n++);
    } else if (h->cap > 0 && before(&cand, &h->e[0], h->asc)) {
        fill_entry(&h->e[0], row, m, idx, h->n_axes, sort);
        sift_down(h, 0);
    }
}

/* Scan every row in id order, keep those passing the filters, rank them. Returns rows matched or
 * -1. */
static int64_t select_scan(show *s, heap *h)
{
    const int64_t block = 65536, n = s->info->n_rows;
    int na = s->info->n_axes;
    int32_t *idx = malloc((size_t)block * (size_t)(na > 0 ? na : 1) * sizeof *idx);
    mm_metrics *m = malloc((size_t)block * sizeof *m);
    int64_t matched = 0;
    mm_error e = {0};
    if (!idx || !m) {
        cli_err("show: out of memory");
        matched = -1;
    }
    for (int64_t first = 0; matched >= 0 && first < n; first += block) {
        int64_t k = n - first < block ? n - first : block;
        if (mm_results_read(s->r, first, k, idx, m, &e)) {
            cli_fail(&e);
            matched = -1;
            break;
        }
        for (int64_t i = 0; i < k; i++) {
            const int32_t *ri = idx + (size_t)i * (size_t)na;
            int ok = 1;
            for (int j = 0; j < s->n_where && ok; j++)
                ok = ri[s->w[j].axis] == s->w[j].idx;
            if (!ok) continue;
            matched++;
            heap_offer(h, first + i, &m[i], ri, s->sort);
        }
    }
    free(idx);
    free(m);
    return matched;
}

/* The stored index gives the best rows directly. */
static int select_index(show *s, heap *h)
{
    int64_t k = h->cap;
    int64_t *rows = malloc((size_t)(k > 0 ? k : 1) * sizeof *rows);
    mm_error e = {0};
    if (!rows) {
        cli_err("show: out of memory");
        return -1;
    }
    int rc = mm_results_read_index(s->r, s->info->meta.objective, 0, k, rows, &e);
    int32_t *idx = malloc((size_t)(s->info->n_axes > 0 ? s->info->n_axes : 1) * sizeof *idx);
    for (int64_t i = 0; rc == 0 && i < k; i++) {
        mm_metrics m;
        rc = idx ? mm_results_read(s->r, rows[i], 1, idx, &m, &e) : -ENOMEM;
        if (rc == 0) fill_entry(&h->e[h->n++], rows[i], &m, idx, s->info->n_axes, s->sort);
    }
    if (rc) {
        if (!e.msg[0])
            cli_err("show: out of memory");
        else
            cli_fail(&e);
    }
    free(idx);
    free(rows);
    return rc ? -1 : 0;
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
    printf("hash      %016" PRIx64 " (content_hash)\n", in->content_hash);
    printf("markouts ");
    for (int k = 0; k < MM_MARKOUTS; k++) {
        char h[32];
        mm_results_horizon_name(m->markout_ns[k], h, sizeof h);
        printf(" %s", h);
    }
    printf("\nobjective %s (stored index)\n", m->objective);
    for (int32_t i = 0; i < m->n_inputs; i++)
        printf("%s%s%s%s (fingerprint %016" PRIx64 ")\n", i ? "          " : "inputs    ",
               m->input_paths[i], m->input_symbols[i] ? "#" : "",
               m->input_symbols[i] ? m->input_symbols[i] : "", m->input_fingerprints[i]);
    if (m->n_inputs == 0) printf("inputs    (none recorded)\n");
}

/* Print the ranked entries as an aligned table. */
static int print_table(const show *s, const entry *e, int64_t n, int all)
{
    const mm_results_info *in = s->info;
    int metrics[MM_RESULTS_METRICS], nm = 0;
    if (all) {
        for (int i = 0; i < MM_RESULTS_METRICS; i++)
            metrics[nm++] = i;
    } else {
        int have = 0;
        for (size_t i = 0; i < sizeof DEFAULT_METRICS / sizeof DEFAULT_METRICS[0]; i++) {
            metrics[nm++] = DEFAULT_METRICS[i];
            have |= DEFAULT_METRICS[i] == s->sort;
        }
        if (!have) metrics[nm++] = s->sort;
    }
    int ncols = 2 + in->n_axes + nm;
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
        mm_results_metric(metrics[j], in->meta.markout_ns, CELL(0, 2 + in->n_axes + j), cell);
    for (int64_t r = 0; r < n; r++) {
        snprintf(CELL(r + 1, 0), cell, "%" PRId64, r + 1);
        snprintf(CELL(r + 1, 1), cell, "%" PRId64, e[r].row);
        for (int a = 0; a < in->n_axes; a++)
            fmt_axis(&in->axes[a], e[r].axis_idx[a], CELL(r + 1, 2 + a), cell);
        for (int j = 0; j < nm; j++) {
            double f = 0;
            int64_t i = 0;
            char *c = CELL(r + 1, 2 + in->n_axes + j);
            if (mm_results_metric_value(&e[r].m, metrics[j], &f, &i) == MM_COL_I64)
                snprintf(c, cell, "%" PRId64, i);
            else
                snprintf(c, cell, "%.8g", f);
        }
    }
    for (int64_t r = 0; r <= n; r++)
        for (int c = 0; c < ncols; c++) {
            int len = (int)strlen(CELL(r, c));
            if (len > width[c]) width[c] = len;
        }
    for (int64_t r = 0; r <= n; r++) {
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
    s.top = 20;
    const char *sort = NULL;
    int all = 0, verify = 0;
    const char **wargs = calloc((size_t)argc + 1, sizeof *wargs);
    int n_wargs = 0;
    enum { O_TOP = 256, O_SORT, O_ASC, O_WHERE, O_ALL, O_VERIFY };
    static const struct option opts[] = {{"top", 1, 0, O_TOP}, {"sort", 1, 0, O_SORT},
                                         {"asc", 0, 0, O_ASC}, {"where", 1, 0, O_WHERE},
                                         {"all", 0, 0, O_ALL}, {"verify", 0, 0, O_VERIFY},
                                         {"help", 0, 0, 'h'},  {0, 0, 0, 0}};
    int c, rc = MM_EXIT_OK;
    if (!wargs) {
        cli_err("%s: out of memory", C);
        return MM_EXIT_RUNTIME;
    }
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_TOP:
            if (cli_i64(C, "--top", optarg, 1, INT64_C(1) << 40, &s.top)) rc = MM_EXIT_USAGE;
            break;
        case O_SORT:
            sort = optarg;
            break;
        case O_ASC:
            s.asc = 1;
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
        case 'h':
            fputs(HELP, stdout);
            free(wargs);
            return MM_EXIT_OK;
        case ':':
            cli_err("%s: %s needs a value", C, argv[optind - 1]);
            rc = MM_EXIT_USAGE;
            break;
        default:
            cli_err("%s: unknown option '%s' (see 'mmsim show --help')", C, argv[optind - 1]);
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
    heap h = {0};
    int32_t *idx_store = NULL;
    if (!s.w) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    s.sort = find_metric(s.info, sort ? sort : s.info->meta.objective);
    if (s.sort < 0) {
        char list[1024];
        list_metrics(s.info, list, sizeof list);
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
    int64_t want = s.top < s.info->n_rows ? s.top : s.info->n_rows;
    h.cap = want;
    h.asc = s.asc;
    h.n_axes = s.info->n_axes;
    h.e = calloc((size_t)(want > 0 ? want : 1), sizeof *h.e);
    idx_store = h.e ? calloc((size_t)(want > 0 ? want : 1) * (size_t)(h.n_axes > 0 ? h.n_axes : 1),
                             sizeof(int32_t))
                    : NULL;
    if (!idx_store) {
        cli_err("%s: out of memory for --top %" PRId64, C, s.top);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    for (int64_t i = 0; i < want; i++)
        h.e[i].axis_idx = idx_store + (size_t)i * (size_t)(h.n_axes > 0 ? h.n_axes : 1);
    int use_index = s.n_where == 0 && !s.asc &&
                    !strcmp(sort ? sort : s.info->meta.objective, s.info->meta.objective);
    int64_t matched = s.info->n_rows;
    if (use_index) {
        if (select_index(&s, &h)) rc = MM_EXIT_RUNTIME;
    } else if ((matched = select_scan(&s, &h)) < 0) {
        rc = MM_EXIT_RUNTIME;
    }
    if (rc == 0) {
        g_asc = s.asc;
        qsort(h.e, (size_t)h.n, sizeof *h.e, cmp_entries);
        print_provenance(&s);
        char sname[64];
        mm_results_metric(s.sort, s.info->meta.markout_ns, sname, sizeof sname);
        printf("\ntop %" PRId64 " of %" PRId64 " row%s", h.n, matched, matched == 1 ? "" : "s");
        for (int i = 0; i < s.n_where; i++) {
            char v[256];
            fmt_axis(&s.info->axes[s.w[i].axis], s.w[i].idx, v, sizeof v);
            printf("%s%s=%s", i ? " and " : " where ", s.info->axes[s.w[i].axis].key, v);
        }
        printf(", by %s %s%s:\n", sname, s.asc ? "ascending" : "descending",
               use_index ? " (stored index)" : "");
        if (h.n == 0)
            printf("(no rows)\n");
        else if (print_table(&s, h.e, h.n, all))
            rc = MM_EXIT_RUNTIME;
    }
out:
    free(idx_store);
    free(h.e);
    free(s.w);
    free(wargs);
    mm_results_close(s.r);
    return rc;
}
