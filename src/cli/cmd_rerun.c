/* mmsim verify: recompute a results file's content hash. mmsim rerun: run its sweep again from what
 * it records and check that the new table has the same content hash (docs/results.md, "Reruns"). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "recorded.h"
#include "sweep_cli.h"
#include "sweep_config.h"

static const char VERIFY_HELP[] =
    "usage: mmsim verify RESULTS.h5 [--inputs [--data DIR]]\n"
    "\n"
    "Recompute the content hash of the results table (its rows, docs/results.md) and compare it\n"
    "with the hash the sweep stored, and check every stored index (/index/<objective>) against\n"
    "the rows. Exit 0 when all agree, 1 when the table or an index was changed.\n"
    "\n"
    "  --inputs       also check every input the file records: each tape's fingerprint and the\n"
    "                 XXH3 of each other file (latency series and samples, synthetic markets,\n"
    "                 config files); exit 1 naming each that changed or is missing\n"
    "  --data DIR     look for the inputs in DIR (by file name) instead of their recorded paths\n";

static const char RERUN_HELP[] =
    "usage: mmsim rerun RESULTS.h5 [-o AGAIN.h5 [--replace | --resume]] [--data DIR] [--engine E]\n"
    "                   [--workers N]\n"
    "\n"
    "Run the sweep that wrote RESULTS.h5 again from what it records (its configuration, master\n"
    "seed and inputs, each checked against its recorded fingerprint before any work) and compare\n"
    "the new table's content hash with the stored one. Exit 0 when they are equal; 1 and a "
    "summary\n"
    "of the rows and columns that differ otherwise.\n"
    "\n"
    "  -o F           keep the new table in F (default: a temporary file beside RESULTS, "
    "removed);\n"
    "                 an existing F is refused, as by the sweep\n"
    "  --replace      with -o: overwrite F when it exists\n"
    "  --resume       with -o: finish an interrupted rerun into F (its journal is beside it)\n"
    "  --data DIR     look for every recorded input (tapes, latency files, markets) in DIR (by\n"
    "                 file name) instead of their recorded paths\n"
    "  --engine E     sweep engine for the rerun (any gives the same table) [process]\n"
    "  --workers N    workers [number of cores]\n";

/* Shared option loop for one-file commands: returns the file, or NULL with *rc set. */
static int parse_common(const char *C, const char *help, int argc, char **argv,
                        const struct option *opts, const char *short_opts, int (*on)(int, void *),
                        void *user, const char **file)
{
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return -1;
        }
        if (c == ':') {
            cli_err("%s: %s needs a value", C, argv[optind - 1]);
            return MM_EXIT_USAGE;
        }
        if (c == '?' || !on || on(c, user)) {
            if (c == '?' || !on) cli_unknown_option(C, C, argv[optind - 1], opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one results file (see 'mmsim %s --help')", C, C);
        return MM_EXIT_USAGE;
    }
    *file = argv[optind];
    return 0;
}

/* After a hash mismatch: when rows were moved out of id order, one line saying so (the reader's
 * only MM_EFORMAT when it reads the ids alone is "PATH: row R holds id I", the first such row) and
 * 1; else 0 (the caller says the table was changed). */
static int rows_moved(const char *C, const char *path, int64_t rows, uint64_t got, uint64_t stored)
{
    mm_results_reader *rd = NULL;
    mm_error e = {0};
    int moved = mm_results_open(path, &rd, &e) == 0 &&
                mm_results_read(rd, 0, rows, NULL, NULL, &e) == MM_EFORMAT;
    if (moved) {
        size_t pl = strlen(path);
        const char *why =
            strncmp(e.msg, path, pl) || strncmp(e.msg + pl, ": ", 2) ? e.msg : e.msg + pl + 2;
        cli_err("%s: %s: the rows are out of id order (%s): content hash %016" PRIx64
                " recomputed, %016" PRIx64 " stored",
                C, path, why, got, stored);
    }
    mm_results_close(rd);
    return moved;
}

typedef struct verify_opts {
    int inputs;
    const char *data;
} verify_opts;

static int verify_opt(int c, void *user)
{
    verify_opts *o = user;
    if (c == 256)
        o->inputs = 1;
    else if (c == 257)
        o->data = optarg;
    else
        return 1;
    return 0;
}

int cmd_verify(int argc, char **argv)
{
    const char *C = "verify";
    static const struct option opts[] = {
        {"inputs", 0, 0, 256}, {"data", 1, 0, 257}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    const char *path = NULL;
    verify_opts vo = {0};
    int rc = parse_common(C, VERIFY_HELP, argc, argv, opts, ":h", verify_opt, &vo, &path);
    if (rc) return rc < 0 ? MM_EXIT_OK : rc;
    if (vo.data && !vo.inputs) {
        cli_err("%s: --data %s: only with --inputs (where to look for the recorded inputs)", C,
                vo.data);
        return MM_EXIT_USAGE;
    }
    mm_results_reader *rd = NULL;
    mm_error e = {0};
    if (mm_results_open(path, &rd, &e)) return cli_fail(&e);
    uint64_t stored = mm_results_describe(rd)->content_hash, got = 0;
    int64_t rows = mm_results_describe(rd)->n_rows;
    if (mm_results_hash(path, &got, &e)) {
        rc = cli_fail(&e);
    } else if (got != stored && rows_moved(C, path, rows, got, stored)) {
        rc = MM_EXIT_RUNTIME;
    } else if (got != stored) {
        cli_err("%s: %s: content hash %016" PRIx64 " recomputed, %016" PRIx64
                " stored: the table was changed after the sweep wrote it",
                C, path, got, stored);
        rc = MM_EXIT_RUNTIME;
    } else if (mm_results_verify(path, &got, &e)) { /* the indexes */
        rc = cli_fail(&e);
    } else {
        printf("%s: content hash %016" PRIx64 " verified (%" PRId64 " rows), index verified\n",
               path, got, rows);
    }
    if (vo.inputs) {
        const mm_results_info *in = mm_results_describe(rd);
        int checked = 0, bad = cli_recorded_check_inputs(C, in, path, vo.data, 1, &checked);
        if (bad) {
            cli_err("%s: %s: %d of its %d recorded inputs changed or are missing (above)", C, path,
                    bad, checked);
            if (!rc) rc = MM_EXIT_RUNTIME;
        }
    }
    mm_results_close(rd);
    return rc;
}

typedef struct rerun_opts {
    const char *out, *data, *engine, *workers;
    int replace, resume;
} rerun_opts;

static int rerun_opt(int c, void *user)
{
    rerun_opts *o = user;
    switch (c) {
    case 'o':
        o->out = optarg;
        return 0;
    case 256:
        o->data = optarg;
        return 0;
    case 257:
        o->engine = optarg;
        return 0;
    case 258:
        o->workers = optarg;
        return 0;
    case 259:
        o->replace = 1;
        return 0;
    case 260:
        o->resume = 1;
        return 0;
    }
    return 1;
}

/* Rows and columns where two tables of the same shape differ: one line each for the first few
 * columns, with the count of rows and the first row. */
static void summarize(const char *C, const char *a, const char *b)
{
    mm_results_reader *ra = NULL, *rb = NULL;
    mm_error e = {0};
    if (mm_results_open(a, &ra, &e) || mm_results_open(b, &rb, &e)) {
        cli_err("%s: cannot compare the tables: %s", C, e.msg);
        mm_results_close(ra);
        return;
    }
    const mm_results_info *ia = mm_results_describe(ra), *ib = mm_results_describe(rb);
    if (ia->n_rows != ib->n_rows || ia->n_axes != ib->n_axes || ia->n_metrics != ib->n_metrics) {
        cli_err("%s: the tables differ in shape: %" PRId64 " rows x %d axes stored, %" PRId64
                " x %d now",
                C, ia->n_rows, (int)ia->n_axes, ib->n_rows, (int)ib->n_axes);
        mm_results_close(ra);
        mm_results_close(rb);
        return;
    }
    enum { BLK = 4096 };
    int32_t na = ia->n_axes > 0 ? ia->n_axes : 1;
    int32_t *xa = malloc(sizeof(int32_t) * BLK * (size_t)na),
            *xb = malloc(sizeof(int32_t) * BLK * (size_t)na);
    const int nm = ia->n_metrics;
    mm_results_value *ma = malloc(sizeof *ma * BLK * (size_t)nm),
                     *mb = malloc(sizeof *mb * BLK * (size_t)nm);
    int64_t count[MM_RESULTS_MAX_METRICS] = {0}, first[MM_RESULTS_MAX_METRICS], rows = 0,
            axis_rows = 0;
    for (int k = 0; k < nm; k++)
        first[k] = -1;
    int bad = !(xa && xb && ma && mb);
    for (int64_t f = 0; !bad && f < ia->n_rows; f += BLK) {
        int64_t n = ia->n_rows - f < BLK ? ia->n_rows - f : BLK;
        if ((bad = mm_results_read_values(ra, f, n, xa, ma, &e) ||
                   mm_results_read_values(rb, f, n, xb, mb, &e)))
            break;
        for (int64_t r = 0; r < n; r++) {
            int any = memcmp(&xa[r * na], &xb[r * na], sizeof(int32_t) * (size_t)ia->n_axes) != 0;
            axis_rows += any;
            for (int k = 0; k < nm; k++) {
                /* Bit for bit (NaN equal to NaN): the 8 bytes of either type. */
                if (memcmp(&ma[r * nm + k], &mb[r * nm + k], 8)) {
                    if (first[k] < 0) first[k] = f + r;
                    count[k]++;
                    any = 1;
                }
            }
            rows += any;
        }
    }
    /* A table that cannot be read row by row (rows out of id order, no memory) has no count. */
    if (bad)
        cli_err("%s: cannot compare the tables row by row: %s", C,
                e.msg[0] ? e.msg : "out of memory");
    else
        cli_err("%s: %" PRId64 " of %" PRId64 " rows differ%s", C, rows, ia->n_rows,
                axis_rows ? " (some in their axis values)" : "");
    for (int k = 0; k < nm && !bad; k++)
        if (count[k])
            cli_err("%s:   column %s: %" PRId64 " rows, the first row %" PRId64, C,
                    ia->metric_names[k], count[k], first[k]);
    free(xa);
    free(xb);
    free(ma);
    free(mb);
    mm_results_close(ra);
    mm_results_close(rb);
}

/* argv for cmd_sweep, growing. */
typedef struct argvb {
    char **v;
    int n, cap;
} argvb;

static int push(argvb *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        int nc = a->cap ? a->cap * 2 : 32;
        char **nv = realloc(a->v, (size_t)nc * sizeof *nv);
        if (!nv) return -1;
        a->v = nv;
        a->cap = nc;
    }
    if (!(a->v[a->n] = strdup(s))) return -1;
    a->v[++a->n] = NULL;
    return 0;
}

static int pushf(argvb *a, const char *k, const char *v)
{
    size_t n = strlen(k) + strlen(v) + 2;
    char *s = malloc(n);
    if (!s) return -1;
    snprintf(s, n, "%s=%s", k, v);
    int rc = push(a, s);
    free(s);
    return rc;
}

int cmd_rerun(int argc, char **argv)
{
    const char *C = "rerun";
    static const struct option opts[] = {{"output", 1, 0, 'o'},  {"data", 1, 0, 256},
                                         {"engine", 1, 0, 257},  {"workers", 1, 0, 258},
                                         {"replace", 0, 0, 259}, {"resume", 0, 0, 260},
                                         {"help", 0, 0, 'h'},    {0, 0, 0, 0}};
    rerun_opts ro = {0};
    const char *path = NULL;
    int rc = parse_common(C, RERUN_HELP, argc, argv, opts, ":ho:", rerun_opt, &ro, &path);
    if (rc) return rc < 0 ? MM_EXIT_OK : rc;
    if ((ro.replace || ro.resume) && !ro.out) {
        cli_err("%s: %s: only with -o F (without it the rerun's table is a temporary file, "
                "removed)",
                C, ro.replace ? "--replace" : "--resume");
        return MM_EXIT_USAGE;
    }
    if (ro.replace && ro.resume) {
        cli_err("%s: --replace and --resume: choose one (--resume keeps what the interrupted "
                "rerun journaled, --replace starts again)",
                C);
        return MM_EXIT_USAGE;
    }
    mm_results_reader *rd = NULL;
    mm_error e = {0};
    if (mm_results_open(path, &rd, &e)) return cli_fail(&e);
    const mm_results_info *in = mm_results_describe(rd);
    /* The new table replaces neither the results file nor any input it records, and an existing
     * file only with --replace (or --resume of an interrupted rerun into it), as for the sweep. */
    cli_recorded_note(in, path, ro.data);
    if (ro.out && (cli_check_output(C, "-o", ro.out, &path, 1) ||
                   cli_check_h5_kind(C, "-o", ro.out, "mmsim-results/", "results file") ||
                   sweep_check_overwrite(C, ro.out, ro.replace, ro.resume))) {
        mm_results_close(rd);
        return MM_EXIT_USAGE;
    }
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    argvb a = {0};
    char tmp[4200] = "", buf[4200], lat[4096] = "", smp[4096] = "";
    uint64_t stored = in->content_hash, actual = 0;
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    if (cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration")) {
        cli_err("%s: %s: its configuration cannot be read: %s", C, path, sc.err);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    if (strcmp(in->mmsim_version, mm_version()))
        cli_err("%s: warning: %s was written by mmsim %s, this is %s: the model may differ", C,
                path, in->mmsim_version, mm_version());
    /* The table as it is: does it still have the hash the sweep recorded? */
    if (mm_results_hash(path, &actual, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    /* Every input where it is now, with its recorded fingerprint (before any work). */
    int bad = push(&a, "sweep");
    for (int32_t i = 0; i < in->meta.n_inputs && !rc; i++) {
        const char *ip = cli_recorded_path(in->meta.input_paths[i], path, ro.data, buf, sizeof buf);
        if (ip != buf) snprintf(buf, sizeof buf, "%s", ip);
        const char *sym = in->meta.input_symbols[i];
        mm_ticks t = {0};
        int syn = 0;
        for (int k = 0; k < sc.n_synthetic; k++)
            syn |= !strcmp(sc.synthetic[k], in->meta.input_paths[i]);
        if (syn) {
            /* A synthetic market: its path 0 (the seed's, unstressed) is what was fingerprinted. */
            mm_gen_params market;
            if (cli_gen_config(C, "synthetic market", buf, &market)) {
                rc = MM_EXIT_RUNTIME;
            } else if (mm_sweep_synthetic_day(&market, in->meta.seed, i, 0, 1, 1, &t, &e)) {
                cli_err("%s: synthetic market %s: %s", C, buf, e.msg);
                rc = MM_EXIT_RUNTIME;
            } else if (t.inst.fingerprint != in->meta.input_fingerprints[i]) {
                cli_err("%s: synthetic market %s: its day 0 has fingerprint %016" PRIx64
                        ", the sweep's had %016" PRIx64 " (the market file changed)",
                        C, buf, t.inst.fingerprint, in->meta.input_fingerprints[i]);
                rc = MM_EXIT_RUNTIME;
            }
        } else if (mm_ticks_load(buf, sym && sym[0] ? sym : NULL, 0, &t, &e)) {
            cli_err("%s: input %s#%s (recorded as %s): %s", C, buf, sym ? sym : "",
                    in->meta.input_paths[i], e.msg[0] ? e.msg : mm_strerror(e.code));
            rc = MM_EXIT_RUNTIME;
        } else if (t.inst.fingerprint != in->meta.input_fingerprints[i]) {
            cli_err("%s: input %s#%s: fingerprint %016" PRIx64 ", the sweep ran on %016" PRIx64
                    " (the file changed)",
                    C, buf, t.inst.symbol, t.inst.fingerprint, in->meta.input_fingerprints[i]);
            rc = MM_EXIT_RUNTIME;
        }
        mm_ticks_free(&t);
    }
    /* The side inputs by their content (docs/results.md, "Side inputs"): the latency files the
     * sweep reads again must be the recorded ones (the synthetic markets are checked above by
     * their day 0, and by their XXH3 where recorded); a config file is not read again (the table
     * records the whole configuration), so a changed one is only said. */
    for (int32_t k = 0; k < in->meta.n_side && !rc; k++) {
        const char *role = in->meta.side_roles[k];
        if (!strcmp(role, "config")) {
            char cp[4096];
            if (cli_recorded_side(NULL, in, path, ro.data, role, in->meta.side_paths[k], cp,
                                  sizeof cp))
                cli_err("%s: note: the config file %s changed or moved since the sweep; the rerun "
                        "uses the configuration %s records",
                        C, in->meta.side_paths[k], path);
        } else if (!strcmp(role, "synthetic") &&
                   cli_recorded_side(C, in, path, ro.data, role, in->meta.side_paths[k], buf,
                                     sizeof buf)) {
            rc = MM_EXIT_RUNTIME;
        } /* the latency files: found and checked once, below, where their paths are taken */
    }
    if (!rc && sc.latency_series &&
        cli_recorded_side(C, in, path, ro.data, "latency_series", sc.latency_series, lat,
                          sizeof lat))
        rc = MM_EXIT_RUNTIME;
    if (!rc && sc.latency_samples &&
        cli_recorded_side(C, in, path, ro.data, "latency_samples", sc.latency_samples, smp,
                          sizeof smp))
        rc = MM_EXIT_RUNTIME;
    if (rc) goto out;
    /* The files and symbols as the sweep was given them, in order: the same tapes in the same
     * order, so the tape axis gets the same indices. */
    for (int f = 0; f < sc.n_files; f++) {
        bad |= push(&a, cli_recorded_path(sc.files[f], path, ro.data, buf, sizeof buf));
    }
    for (int y = 0; y < sc.n_symbols; y++)
        bad |= push(&a, "--symbol") | push(&a, sc.symbols[y]);
    for (int k = 0; k < sc.n_synthetic; k++)
        bad |= push(&a, "--synthetic") |
               push(&a, cli_recorded_path(sc.synthetic[k], path, ro.data, buf, sizeof buf));
    for (int i = 0; i < sc.n_grid; i++)
        bad |= push(&a, "--grid") | pushf(&a, sc.grid[i].key, sc.grid[i].val);
    /* The fixed parameters that differ from the defaults (the sweep starts from them; the others
     * would only draw "has no effect" warnings). */
    mm_params defaults;
    mm_params_defaults(&defaults);
    for (int i = 0; i < sc.n_sets; i++) {
        char def[64] = "";
        mm_params_get(&defaults, sc.sets[i].key, def, sizeof def);
        if (strcmp(def, sc.sets[i].val))
            bad |= push(&a, "--set") | pushf(&a, sc.sets[i].key, sc.sets[i].val);
    }
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, in->meta.seed);
    bad |= push(&a, "--seed") | push(&a, seed);
    const char *run_flags[][2] = {{"--objective", sc.objective},
                                  {"--sample-ns", sc.sample_ns},
                                  {"--year-seconds", sc.year_s},
                                  {"--markout-ns", sc.markout_ns},
                                  {"--latency-series", sc.latency_series ? lat : NULL},
                                  {"--latency-samples", sc.latency_samples ? smp : NULL},
                                  {"--chunk", sc.chunk},
                                  {"--paths", sc.paths},
                                  {"--blocks", sc.blocks},
                                  {"--block-ns", sc.block_ns},
                                  {"--engine", ro.engine},
                                  {"--workers", ro.workers}};
    for (size_t i = 0; i < sizeof run_flags / sizeof run_flags[0]; i++)
        if (run_flags[i][1]) bad |= push(&a, run_flags[i][0]) | push(&a, run_flags[i][1]);
    if (sc.keep_paths && !strcmp(sc.keep_paths, "1")) bad |= push(&a, "--keep-paths");
    if (!ro.out) {
        const char *slash = strrchr(path, '/');
        snprintf(tmp, sizeof tmp, "%.*s%s.rerun.%ld.h5", slash ? (int)(slash - path + 1) : 0, path,
                 slash ? slash + 1 : path, (long)getpid());
    }
    bad |= push(&a, "-o") | push(&a, ro.out ? ro.out : tmp) | push(&a, "--quiet");
    if (ro.replace) bad |= push(&a, "--replace");
    if (ro.resume) bad |= push(&a, "--resume");
    if (bad) {
        cli_err("%s: out of memory", C);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    mm_results_close(rd);
    rd = NULL;
    char hint[4400];
    if (ro.out)
        snprintf(hint, sizeof hint,
                 "the same rerun command plus --resume finishes %s (-o %s --resume)", ro.out,
                 ro.out);
    else
        snprintf(hint, sizeof hint,
                 "nothing is kept without -o: run the rerun again (with -o F, an interrupted "
                 "rerun can be finished with --resume)");
    cli_sweep_interrupt_hint(C, hint);
    rc = cmd_sweep(a.n, a.v);
    cli_sweep_interrupt_hint(NULL, NULL);
    if (rc) {
        if (rc != 128 + 2 && rc != 128 + 15) cli_err("%s: the sweep of %s failed (above)", C, path);
        goto out;
    }
    uint64_t got = 0;
    if (mm_results_hash(ro.out ? ro.out : tmp, &got, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    if (got == stored && actual == stored) {
        printf("%s: rerun of %s: content hash %016" PRIx64 " reproduced\n", C, path, got);
    } else if (actual != stored) {
        cli_err("%s: %s: its table has content hash %016" PRIx64
                " but the sweep recorded %016" PRIx64
                " (the table was changed after it was written); the rerun gives %016" PRIx64,
                C, path, actual, stored, got);
        summarize(C, path, ro.out ? ro.out : tmp);
        rc = MM_EXIT_RUNTIME;
    } else {
        cli_err("%s: rerun of %s: content hash %016" PRIx64 ", stored %016" PRIx64, C, path, got,
                stored);
        summarize(C, path, ro.out ? ro.out : tmp);
        rc = MM_EXIT_RUNTIME;
    }
out:
    if (tmp[0]) {
        unlink(tmp);
        char j[4300];
        snprintf(j, sizeof j, "%s.journal", tmp);
        unlink(j);
    }
    for (int i = 0; i < a.n; i++)
        free(a.v[i]);
    free(a.v);
    cli_sweep_config_free(&sc);
    mm_results_close(rd);
    return rc;
}
