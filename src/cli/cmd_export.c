/* mmsim export: every row of a results file as CSV, in id order; or one instrument of a tick file
 * as a raw tape (.mmtape). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "mm_stale_tmp.h"
#include "mmsim/results.h"

static const char HELP[] =
    "usage: mmsim export results.h5 [--csv] [--comments] [-o out.csv]\n"
    "       mmsim export ticks.h5 [--symbol S] --mmtape -o out.mmtape\n"
    "\n"
    "Write every row of a sweep's results file (docs/results.md) as CSV, in id order: a header "
    "line (id,\n"
    "the axis keys, the metric columns), axis values as values (numbers, or names for enum and "
    "tape axes,\n"
    "quoted when needed), doubles with 17 significant digits so they read back exactly.\n"
    "\n"
    "  --csv              CSV output (the only format; implied by -o FILE.csv)\n"
    "  --comments         start with '# ' lines: the results file, its content hash and how its "
    "sharpe\n"
    "                     column is annualised (read with pandas.read_csv(FILE, comment=\"#\"); "
    "fields\n"
    "                     holding '#' are then quoted)\n"
    "  -o, --output FILE  write FILE (through a temporary file, renamed when complete) [standard "
    "output]\n"
    "  --mmtape           a tick file's instrument as a raw tape (docs/formats.md, \"Raw tape\"): "
    "flat\n"
    "                     little-endian columns with a checksum, read without HDF5 by checkmodel "
    "--tape\n"
    "                     (the GPU check); implied by -o FILE.mmtape; -o is required\n"
    "  --symbol S         the instrument to write (needed when the tick file holds several)\n"
    "  -h, --help         this help\n";

/* A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break, and with comments
 * also a '#' (a tape's "path#symbol"): a reader skipping comments (pandas' comment="#") ends an
 * unquoted field at the '#'. */
static void put_field(FILE *f, const char *s, int comments)
{
    if (!strpbrk(s, comments ? ",\"\r\n#" : ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

/* Text inside a '# ' line: a line break (or another control character) would end the comment. */
static void put_comment_text(FILE *f, const char *s)
{
    for (const char *c = s; *c; c++)
        fputc((unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c, f);
}

/* --comments: what the columns alone do not say, one '# ' line each. */
static void write_comments(const mm_results_info *in, const char *path, FILE *f)
{
    fputs("# mmsim export of ", f);
    put_comment_text(f, path);
    fprintf(f, ": %" PRId64 " rows, content hash %016" PRIx64 ", written by mmsim ", in->n_rows,
            in->content_hash);
    put_comment_text(f, in->mmsim_version);
    fputc('\n', f);
    char sharpe[256];
    if (!cli_sharpe_label(in, sharpe, sizeof sharpe)) fprintf(f, "# sharpe: %s\n", sharpe);
}

static int write_csv(mm_results_reader *r, const char *path, int comments, FILE *f)
{
    const mm_results_info *in = mm_results_describe(r);
    int na = in->n_axes;
    if (comments) write_comments(in, path, f);
    fputs("id", f);
    for (int a = 0; a < na; a++) {
        fputc(',', f);
        put_field(f, in->axes[a].key, comments);
    }
    const int nm = in->n_metrics;
    for (int i = 0; i < nm; i++)
        fprintf(f, ",%s", in->metric_names[i]);
    /* sharpe_flag (docs/results.md, "When sharpe means something"), as show computes it: each row's
     * tape's flag, in every row of a table of one path per combination that records its tapes'
     * spans (a file written before input_span_ns has no flags: no column). */
    int64_t ns;
    double sp;
    int flag = in->paths == 1 && cli_sharpe_flags(in, 0, &ns, &sp) >= 0;
    int tape_axis = na > 0 && !strcmp(in->axes[0].key, "tape") ? 0 : -1;
    if (flag) fputs(",sharpe_flag", f);
    fputc('\n', f);
    const int64_t block = 8192;
    int32_t *idx = malloc((size_t)block * (size_t)(na > 0 ? na : 1) * sizeof *idx);
    mm_results_value *m = malloc((size_t)block * (size_t)nm * sizeof *m);
    mm_error e = {0};
    int rc = 0;
    if (!idx || !m) {
        cli_err("export: out of memory");
        rc = MM_EXIT_RUNTIME;
    }
    for (int64_t first = 0; rc == 0 && first < in->n_rows; first += block) {
        int64_t k = in->n_rows - first < block ? in->n_rows - first : block;
        if (mm_results_read_values(r, first, k, idx, m, &e)) {
            rc = cli_fail(&e);
            break;
        }
        for (int64_t i = 0; i < k; i++) {
            char num[32]; /* numbers: the shortest text that reads back as the same double */
            fprintf(f, "%" PRId64, first + i);
            for (int a = 0; a < na; a++) {
                const mm_results_axis *x = &in->axes[a];
                int32_t v = idx[(size_t)i * (size_t)na + (size_t)a];
                if (x->type == MM_COL_F64)
                    fprintf(f, ",%s", cli_fmt_shortest(x->f64[v], num, sizeof num));
                else if (x->type == MM_COL_I64)
                    fprintf(f, ",%" PRId64, x->i64[v]);
                else {
                    fputc(',', f);
                    put_field(f, x->names[v], comments);
                }
            }
            for (int j = 0; j < nm; j++) {
                const mm_results_value *v = &m[(size_t)i * (size_t)nm + (size_t)j];
                if (in->metric_types[j] == MM_COL_I64)
                    fprintf(f, ",%" PRId64, v->i64);
                else
                    fprintf(f, ",%s", cli_fmt_shortest(v->f64, num, sizeof num));
            }
            if (flag) {
                int32_t ti = tape_axis < 0 ? 0 : idx[(size_t)i * (size_t)na + (size_t)tape_axis];
                fputc(',', f); /* "short,few" is quoted (RFC 4180) */
                put_field(f, cli_sharpe_flag_text(cli_sharpe_flags(in, ti, &ns, &sp)), comments);
            }
            fputc('\n', f);
        }
        if (ferror(f)) break;
    }
    free(idx);
    free(m);
    return rc;
}

typedef int (*write_fn)(FILE *f, void *ctx);

/* Writes out through a temporary file beside it, synced and renamed when complete; on any failure
 * the temporary file is removed and the output is left as it was. Returns an exit status. */
static int write_atomic(const char *C, const char *out, write_fn fn, void *ctx)
{
    size_t tn = strlen(out) + 32;
    char *tmp = malloc(tn);
    if (!tmp) {
        cli_err("%s: -o %s: out of memory", C, out);
        return MM_EXIT_RUNTIME;
    }
    snprintf(tmp, tn, "%s.tmp.%ld", out, (long)getpid());
    mm__remove_stale_tmps(out); /* of writers killed during their final write */
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cli_err("%s: -o %s: %s", C, tmp, strerror(errno));
        free(tmp);
        return MM_EXIT_RUNTIME;
    }
    int rc = fn(f, ctx);
    errno = 0;
    int werr = fflush(f) != 0;
    int saved = werr ? errno : 0;
    if (!werr && ferror(f)) werr = 1, saved = EIO;
    if (!werr && fsync(fileno(f)) != 0) werr = 1, saved = errno;
    if (fclose(f) != 0 && !werr) werr = 1, saved = errno;
    if (!werr && rc == 0 && rename(tmp, out) != 0) werr = 1, saved = errno;
    if (werr || rc) unlink(tmp);
    free(tmp);
    if (werr && rc == 0) {
        cli_err("%s: -o %s: %s", C, out, strerror(saved ? saved : EIO));
        rc = MM_EXIT_RUNTIME;
    }
    return rc;
}

typedef struct csv_ctx {
    mm_results_reader *r;
    const char *path;
    int comments;
} csv_ctx;

static int csv_fn(FILE *f, void *ctx)
{
    csv_ctx *c = ctx;
    return write_csv(c->r, c->path, c->comments, f);
}

typedef struct raw_ctx {
    const mm_ticks *t;
    const char *out;
} raw_ctx;

static int raw_fn(FILE *f, void *ctx)
{
    raw_ctx *c = ctx;
    mm_error e = {0};
    if (mm_ticks_write_raw(f, c->t, &e) == 0) return MM_EXIT_OK;
    cli_err("export: -o %s: %s", c->out, e.msg);
    return MM_EXIT_RUNTIME;
}

/* export ticks.h5 --mmtape -o out.mmtape: one instrument as a raw tape. */
static int export_tape(const char *C, const char *path, const char *symbol, const char *out)
{
    if (!out) {
        cli_err("%s: --mmtape writes a binary file: give -o FILE.mmtape", C);
        return MM_EXIT_USAGE;
    }
    if (cli_check_output(C, "-o", out, &path, 1) || cli_check_not_h5(C, "-o", out, "a raw tape"))
        return MM_EXIT_USAGE;
    mm_error e = {0};
    mm_ticks t;
    if (mm_ticks_load(path, symbol, 0, &t, &e)) return cli_fail(&e);
    raw_ctx c = {&t, out};
    int rc = write_atomic(C, out, raw_fn, &c);
    mm_ticks_free(&t);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    const char *C = "export";
    const char *out = NULL, *symbol = NULL;
    int csv = 0, comments = 0, mmtape = 0;
    enum { O_CSV = 256, O_COMMENTS, O_MMTAPE, O_SYMBOL };
    static const struct option opts[] = {{"csv", 0, 0, O_CSV},
                                         {"comments", 0, 0, O_COMMENTS},
                                         {"mmtape", 0, 0, O_MMTAPE},
                                         {"symbol", 1, 0, O_SYMBOL},
                                         {"output", 1, 0, 'o'},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case O_CSV:
            csv = 1;
            break;
        case O_COMMENTS:
            comments = 1;
            break;
        case O_MMTAPE:
            mmtape = 1;
            break;
        case O_SYMBOL:
            symbol = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "export", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one results or tick file (see 'mmsim export --help')", C);
        return MM_EXIT_USAGE;
    }
    /* The format from the output's name when no flag says it: r.csv (any case) is CSV, t.mmtape a
     * raw tape. */
    size_t ol = out ? strlen(out) : 0;
    if (!csv && !mmtape && ol > 4 && !strcasecmp(out + ol - 4, ".csv")) csv = 1;
    if (!csv && !mmtape && ol > 7 && !strcasecmp(out + ol - 7, ".mmtape")) mmtape = 1;
    if (csv && mmtape) {
        cli_err("%s: --csv and --mmtape: choose one output format", C);
        return MM_EXIT_USAGE;
    }
    if (!csv && !mmtape) {
        cli_err("%s: choose an output format: --csv (or -o FILE.csv), or --mmtape (or -o "
                "FILE.mmtape) for a tick file",
                C);
        return MM_EXIT_USAGE;
    }
    const char *path = argv[optind];
    if (mmtape) {
        if (comments) {
            cli_err("%s: --comments is for CSV output, not --mmtape", C);
            return MM_EXIT_USAGE;
        }
        return export_tape(C, path, symbol, out);
    }
    if (symbol) {
        cli_err("%s: --symbol names a tick file's instrument: it goes with --mmtape", C);
        return MM_EXIT_USAGE;
    }
    /* -o never replaces the results file it reads, nor any other HDF5 file. */
    if (out &&
        (cli_check_output(C, "-o", out, &path, 1) || cli_check_not_h5(C, "-o", out, "a CSV file")))
        return MM_EXIT_USAGE;
    mm_error e = {0};
    mm_results_reader *r;
    if (mm_results_open(path, &r, &e)) return cli_fail(&e);
    if (!out) {
        /* Standard output: main() checks the final flush and close and reports a failed write. */
        int rc = write_csv(r, path, comments, stdout);
        mm_results_close(r);
        return rc;
    }
    csv_ctx cc = {r, path, comments};
    int rc = write_atomic(C, out, csv_fn, &cc);
    mm_results_close(r);
    return rc;
}
