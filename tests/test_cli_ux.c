/* The command line as researchers use it (issue 13): one spelling per key, suggestions for typos,
 * git-style help, formats from file names, one overwrite policy, one multi-instrument policy,
 * flags the strategy does not read, scripts' output modes, LOBSTER file names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(ux, .fini = tu_cleanup);

/* Run argv; expect exit status code and (when want is not NULL) exactly one line of stderr equal to
 * want. Returns stdout (caller frees). */
static char *expect(const char *const *argv, int code, const char *want)
{
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, code, "exit %d (want %d): %s", rc, code, err);
    if (want) {
        cr_assert_eq(tu_lines(err), 1, "%s", err);
        size_t n = strlen(want);
        cr_assert(!strncmp(err, want, n) && err[n] == '\n', "got: %swant: %s", err, want);
    }
    free(err);
    return out;
}

/* A 3000-event tick file of SYN at name (and of GOOG too when two). */
static const char *make_ticks(const char *name, int two)
{
    const char *path = tu_path(name);
    char p[512];
    snprintf(p, sizeof p, "%s", path);
    const char *g[] = {"mmsim",    "gen", "--seed", "3", "--events", "3000",
                       "--symbol", "SYN", "-o",     p,   NULL};
    free(expect(g, 0, NULL));
    if (two) {
        const char *h[] = {"mmsim",    "gen",  "--seed", "4", "--events", "3000",
                           "--symbol", "GOOG", "-o",     p,   NULL};
        free(expect(h, 0, NULL));
    }
    return tu_path(name);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

Test(ux, inv_limit_and_inv_dash_limit_are_the_same_key_everywhere)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    /* run: --inv_limit is --inv-limit; --half-spread is --spread. */
    const char *a[] = {"mmsim", "run", t, "--inv-limit", "3", "--spread", "2", NULL};
    const char *b[] = {"mmsim", "run", t, "--inv_limit", "3", "--half-spread", "2", NULL};
    const char *c[] = {"mmsim", "run", t, "--inv_limit", "3", "--half_spread", "2", NULL};
    char *oa = expect(a, 0, NULL), *ob = expect(b, 0, NULL), *oc = expect(c, 0, NULL);
    cr_assert_str_eq(oa, ob);
    cr_assert_str_eq(oa, oc);
    free(oa);
    free(ob);
    free(oc);
    /* sweep: --grid inv-limit= and --set half-spread= name the stored keys inv_limit and spread. */
    char r[512];
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    const char *s[] = {"mmsim", "sweep",         t,        "--grid", "inv-limit=1,2",
                       "--set", "half-spread=2", "--grid", "skew=0", "-o",
                       r,       "--quiet",       NULL};
    free(expect(s, 0, NULL));
    const char *sh[] = {"mmsim", "show", r, "--where", "inv-limit=2", NULL};
    char *out = expect(sh, 0, NULL);
    cr_assert(strstr(out, "axes tape 1 x inv_limit 2 x skew 1") && strstr(out, "where inv_limit=2"),
              "%s", out);
    free(out);
    /* report's --x and --fix too. */
    char html[512];
    snprintf(html, sizeof html, "%s", tu_path("r.html"));
    const char *rp[] = {"mmsim", "report",    r,       "-o",     html,
                        "--x",   "inv-limit", "--fix", "skew=0", NULL};
    out = expect(rp, 0, NULL);
    cr_assert(strstr(out, "by inv_limit x"), "%s", out);
    free(out);
    /* The recorded configuration says spread = 2 (the canonical key). */
    const char *ex[] = {"mmsim", "export", r, "--csv", NULL};
    out = expect(ex, 0, NULL);
    cr_assert(!strncmp(out, "id,tape,inv_limit,skew,pnl,", 27), "%s", out);
    free(out);
    /* Two spellings of one key are one key: given twice. */
    const char *d[] = {"mmsim",  "sweep",       t,    "--grid", "inv-limit=1",
                       "--grid", "inv_limit=2", "-o", r,        NULL};
    free(expect(d, 2, "mmsim: sweep: --grid inv_limit: key given twice"));
    /* The config file: [grid] inv-limit, [params] half-spread and [run] sample-ns. */
    FILE *f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[grid]\ninv-limit = 1,2\n[params]\nhalf-spread = 3\n[run]\nsample-ns = "
               "500000000\nengine = serial\n");
    fclose(f);
    char ini[512], r2[512];
    snprintf(ini, sizeof ini, "%s", tu_path("c.ini"));
    snprintf(r2, sizeof r2, "%s", tu_path("r2.h5"));
    const char *e[] = {"mmsim", "sweep", t, "--config", ini, "-o", r2, NULL};
    out = expect(e, 0, NULL);
    cr_assert(strstr(out, "sweep: 2 combinations"), "%s", out);
    free(out);
}

Test(ux, mistyped_names_get_the_closest_one)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    const char *a[] = {"mmsim", "swep", NULL};
    free(expect(a, 2, "mmsim: unknown command 'swep' (did you mean sweep? see 'mmsim --help')"));
    const char *a2[] = {"mmsim", "frobnicate", NULL};
    free(expect(a2, 2, "mmsim: unknown command 'frobnicate' (see 'mmsim --help')"));
    const char *b[] = {"mmsim", "run", t, "--inv-limt", "3", NULL};
    free(expect(b, 2,
                "mmsim: run: unknown option '--inv-limt' (did you mean --inv-limit? see 'mmsim "
                "run --help')"));
    const char *c[] = {"mmsim", "sweep", t, "--grid", "inv_limt=1,2", "-o", tu_path("x.h5"), NULL};
    free(expect(c, 2,
                "mmsim: sweep: --grid inv_limt: unknown key (did you mean inv_limit? see 'mmsim "
                "run --help' for the keys)"));
    const char *d[] = {"mmsim", "sweep",        t,    "--grid",        "spread=1",
                       "--set", "half_sprad=1", "-o", tu_path("x.h5"), NULL};
    free(expect(d, 2,
                "mmsim: sweep: --set half_sprad: unknown parameter (did you mean half_spread? see "
                "'mmsim run --help' for the keys)"));
    const char *e[] = {"mmsim", "sweep", t, "--objetive", "pnl", NULL};
    free(expect(e, 2,
                "mmsim: sweep: unknown option '--objetive' (did you mean --objective? see 'mmsim "
                "sweep --help')"));
    FILE *f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[grid]\nspread = 1\n[run]\nsampl_ns = 5\n");
    fclose(f);
    char ini[512], want[1024];
    snprintf(ini, sizeof ini, "%s", tu_path("c.ini"));
    snprintf(want, sizeof want,
             "mmsim: sweep: %s:4: [run] sampl_ns: unknown key (did you mean sample_ns?)", ini);
    const char *g[] = {"mmsim", "sweep", t, "--config", ini, "-o", tu_path("x.h5"), NULL};
    free(expect(g, 2, want));
}

Test(ux, help_command_is_the_subcommand_s_help)
{
    const char *cmds[] = {"gen", "info", "import", "run", "show", "export", "report", "sweep"};
    for (int i = 0; i < 8; i++) {
        const char *a[] = {"mmsim", "help", cmds[i], NULL};
        const char *b[] = {"mmsim", cmds[i], "--help", NULL};
        char *oa = expect(a, 0, NULL), *ob = expect(b, 0, NULL);
        cr_assert_str_eq(oa, ob, "%s", cmds[i]);
        cr_assert(strstr(oa, "usage: mmsim "), "%s", oa);
        free(oa);
        free(ob);
    }
    const char *c[] = {"mmsim", "help", "swep", NULL};
    free(expect(c, 2, "mmsim: unknown command 'swep' (did you mean sweep? see 'mmsim --help')"));
}

Test(ux, run_help_defaults_are_the_shortest_round_trip)
{
    const char *a[] = {"mmsim", "run", "--help", NULL};
    char *out = expect(a, 0, NULL);
    cr_assert(strstr(out, "Avellaneda-Stoikov risk aversion [0.1]\n"), "%s", out);
    cr_assert(strstr(out, "(0: until the tape ends) [60]\n"), "%s", out);
    cr_assert(!strstr(out, "0.10000000000000001"), "%s", out);
    cr_assert(strstr(out, "--half-spread"), "%s", out);
    free(out);
}

Test(ux, export_takes_the_format_from_the_extension)
{
    char t[512], r[512], csv[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    snprintf(csv, sizeof csv, "%s", tu_path("r.CSV"));
    const char *s[] = {"mmsim", "sweep", t, "--grid", "spread=1,2", "-o", r, "--quiet", NULL};
    free(expect(s, 0, NULL));
    const char *a[] = {"mmsim", "export", r, "-o", csv, NULL};
    free(expect(a, 0, NULL));
    char *text = slurp(csv);
    cr_assert(text && !strncmp(text, "id,tape,spread,pnl,", 19), "%s", text);
    cr_assert_eq(tu_lines(text), 3);
    free(text);
    const char *b[] = {"mmsim", "export", r, "-o", tu_path("r.txt"), NULL};
    free(
        expect(b, 2,
               "mmsim: export: choose an output format: --csv (or -o FILE.csv), or --mmtape (or -o "
               "FILE.mmtape) for a tick file"));
}

Test(ux, a_range_without_a_step_steps_by_one)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    const char *a[] = {"mmsim",  "sweep",         t,    "--grid",        "spread=1:3",
                       "--grid", "inv_limit=1:2", "-o", tu_path("r.h5"), NULL};
    char *out = expect(a, 0, NULL);
    cr_assert(strstr(out, "sweep: 6 combinations"), "%s", out);
    free(out);
}

Test(ux, show_where_tape_takes_a_symbol_alone_when_unambiguous)
{
    char t[512], u[512], r[512], r2[512], want[2048];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 1));
    snprintf(u, sizeof u, "%s", make_ticks("u.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    snprintf(r2, sizeof r2, "%s", tu_path("r2.h5"));
    const char *s[] = {"mmsim", "sweep", t, "--grid", "spread=1,2", "-o", r, NULL};
    char *out = expect(s, 0, NULL);
    /* Two instruments, no --symbol: both are swept, and the summary says so. */
    cr_assert(strstr(out, "(2 tapes)") && strstr(out, "tapes: every instrument of each input"),
              "%s", out);
    free(out);
    const char *a[] = {"mmsim", "show", r, "--where", "tape=GOOG", "--keep-idle", NULL};
    out = expect(a, 0, NULL);
    snprintf(want, sizeof want, "top 2 of 2 rows where tape=%s#GOOG,", t);
    cr_assert(strstr(out, want), "%s", out);
    free(out);
    /* SYN is on two tapes of r2.h5: the message names both. */
    const char *s2[] = {"mmsim",  "sweep",    t,    u,  "--symbol", "SYN",
                        "--grid", "spread=1", "-o", r2, NULL};
    free(expect(s2, 0, NULL));
    const char *b[] = {"mmsim", "show", r2, "--where", "tape=SYN", NULL};
    snprintf(want, sizeof want,
             "mmsim: show: --where tape=SYN: the symbol SYN is on several tapes (%s#SYN, %s#SYN); "
             "write the tape as FILE#SYN",
             t, u);
    free(expect(b, 2, want));
}

Test(ux, sweep_refuses_to_overwrite_results_without_replace)
{
    char t[512], r[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    const char *s[] = {"mmsim", "sweep", t, "--grid", "spread=1,2", "-o", r, NULL, NULL};
    free(expect(s, 0, NULL));
    struct stat st0, st1;
    cr_assert_eq(stat(r, &st0), 0);
    char want[1024];
    snprintf(want, sizeof want, "mmsim: sweep: -o %s: exists; add --replace to overwrite it", r);
    free(expect(s, 2, want));
    /* --resume without the journal of an interrupted run is not a way around it. */
    s[7] = "--resume";
    snprintf(want, sizeof want,
             "mmsim: sweep: -o %s: exists; add --replace to overwrite it (--resume continues only "
             "a run whose journal is beside it)",
             r);
    free(expect(s, 2, want));
    cr_assert_eq(stat(r, &st1), 0);
    cr_assert_eq(st0.st_ino, st1.st_ino, "the results file was replaced");
    s[7] = "--replace";
    free(expect(s, 0, NULL));
    cr_assert_eq(stat(r, &st1), 0);
    cr_assert_neq(st0.st_ino, st1.st_ino, "--replace did not write a new table");
}

Test(ux, info_counts_the_file_s_instruments_and_lists_them)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 1));
    const char *a[] = {"mmsim", "info", t, "--symbol", "GOOG", NULL};
    char *out = expect(a, 0, NULL), want[1024];
    snprintf(want, sizeof want, "file %s: 2 instruments, showing GOOG\ninstrument GOOG\n", t);
    cr_assert(!strncmp(out, want, strlen(want)), "%s", out);
    free(out);
    const char *b[] = {"mmsim", "info", t, "--list", NULL};
    out = expect(b, 0, NULL);
    cr_assert_str_eq(out, "GOOG\nSYN\n");
    free(out);
    const char *c[] = {"mmsim", "info", t, "--symbol", "XX", NULL};
    out = expect(c, 1, NULL);
    cr_assert_str_eq(out, "", "nothing on stdout before the error");
    free(out);
}

Test(ux, a_parameter_the_strategy_does_not_read_warns_or_is_refused)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    char *out, *err;
    const char *a[] = {"mmsim", "run", t, "--strategy", "as", "--spread", "1", NULL};
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert_str_eq(err,
                     "mmsim: run: warning: --spread has no effect with --strategy as (only fixed "
                     "reads it)\n");
    cr_assert(strstr(out, "pnl "), "%s", out);
    free(out);
    free(err);
    const char *b[] = {"mmsim", "run", t, "--as-gamma", "0.2", NULL};
    cr_assert_eq(tu_run(b, &out, &err), 0, "%s", err);
    cr_assert(strstr(err, "--as-gamma has no effect with --strategy fixed (only as reads it)"),
              "%s", err);
    free(out);
    free(err);
    const char *c[] = {"mmsim", "run", t, "--strategy", "as", "--as-gamma", "0.2", NULL};
    cr_assert_eq(tu_run(c, &out, &err), 0, "%s", err);
    cr_assert_str_eq(err, "");
    free(out);
    free(err);
    /* A sweep axis the strategy does not read is refused before any work. */
    const char *d[] = {"mmsim",  "sweep",      t,    "--set",         "strategy=as",
                       "--grid", "spread=1,2", "-o", tu_path("r.h5"), NULL};
    free(expect(d, 2,
                "mmsim: sweep: --grid spread: has no effect with strategy as (only fixed reads "
                "it); set strategy=fixed or drop the axis"));
    cr_assert_neq(access(tu_path("r.h5"), F_OK), 0);
    /* A fixed value of one is a warning, and the sweep runs. */
    const char *w[] = {"mmsim",  "sweep",         t,
                       "--set",  "strategy=as",   "--set",
                       "skew=1", "--grid",        "as_gamma=0.1,0.2",
                       "-o",     tu_path("w.h5"), NULL};
    cr_assert_eq(tu_run(w, &out, &err), 0, "%s", err);
    cr_assert_str_eq(err, "mmsim: sweep: warning: --set skew: has no effect with strategy as (only "
                          "fixed reads it)\n");
    free(out);
    free(err);
    /* With strategy itself an axis, some rows read it: accepted. */
    const char *e[] = {"mmsim",  "sweep",      t,    "--grid",        "strategy=fixed,as",
                       "--grid", "spread=1,2", "-o", tu_path("r.h5"), NULL};
    free(expect(e, 0, NULL));
}

Test(ux, run_json_is_one_object_with_every_metric)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    const char *a[] = {"mmsim", "run", t, "--spread", "1", "--json", NULL};
    char *out = expect(a, 0, NULL);
    cr_assert_eq(tu_lines(out), 1, "%s", out);
    cr_assert(!strncmp(out, "{\"instrument\":\"SYN\",", 20), "%s", out);
    cr_assert(strstr(out, "\"pnl\":") && strstr(out, "\"markout_60s\":") &&
                  strstr(out, "\"as_gamma\":0.1,") && strstr(out, "\"strategy\":\"fixed\""),
              "%s", out);
    FILE *f = fopen(tu_path("o.json"), "w");
    fputs(out, f);
    fclose(f);
    free(out);
    if (access("/usr/bin/python3", X_OK) == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                 "assert len(d[\"metrics\"]) == %d and d[\"params\"][\"spread\"] == 1' %s",
                 MM_RESULTS_METRICS, tu_path("o.json"));
        cr_assert_eq(system(cmd), 0);
    }
}

Test(ux, show_filters_on_metrics_and_prints_rows_alone)
{
    char t[512], r[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    const char *s[] = {"mmsim",  "sweep",         t,    "--grid", "spread=0:4",
                       "--grid", "inv_limit=1,5", "-o", r,        NULL};
    free(expect(s, 0, NULL));
    /* (--keep-idle: the rows without a fill are ranked too, so that the two halves are all 10.) */
    const char *a[] = {"mmsim",       "show",        r,   "--where", "pnl>0", "--top", "100",
                       "--no-header", "--keep-idle", NULL};
    char *pos = expect(a, 0, NULL);
    const char *b[] = {"mmsim",       "show",        r,   "--where", "pnl<=0", "--top", "100",
                       "--no-header", "--keep-idle", NULL};
    char *rest = expect(b, 0, NULL);
    cr_assert_eq(tu_lines(pos) + tu_lines(rest), 10, "%s---\n%s", pos, rest);
    cr_assert(!strstr(pos, "rank") && !strstr(pos, "results"), "%s", pos);
    /* Every row printed under pnl>0 has a positive pnl (column 6: rank id tape spread inv_limit
     * pnl). */
    char *save, *line = strtok_r(pos, "\n", &save);
    while (line) {
        double pnl = 0;
        char tape[256];
        cr_assert_eq(sscanf(line, "%*d %*d %255s %*g %*d %lg", tape, &pnl), 2, "%s", line);
        cr_assert_gt(pnl, 0, "%s", line);
        line = strtok_r(NULL, "\n", &save);
    }
    free(pos);
    free(rest);
    const char *c[] = {"mmsim", "show", r, "--where", "pnl>0", "--where", "spread=1", NULL};
    char *out = expect(c, 0, NULL);
    cr_assert(strstr(out, "where spread=1 and pnl>0, by pnl descending:"), "%s", out);
    free(out);
    const char *d[] = {"mmsim", "show", r, "--where", "pnk>0", NULL};
    free(expect(d, 2,
                "mmsim: show: --where pnk>0: unknown axis 'pnk' (did you mean pnl? axes: tape, "
                "spread, inv_limit; or a metric column, as in pnl>0)"));
    const char *e[] = {"mmsim", "show", r, "--where", "spread>1", NULL};
    free(expect(e, 2,
                "mmsim: show: --where spread>1: an axis takes key=value only (spread is an axis, "
                "not a metric)"));
}

static void write_file(const char *path, const char *const *lines, int n)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
}

Test(ux, lobster_file_names_give_symbol_date_and_order_book)
{
    static const char *const MSG[] = {"34200.1,1,1,100,1000000,1", "34200.2,1,2,30,1000100,-1",
                                      "34200.3,4,1,40,1000000,1"};
    static const char *const OB[] = {"1000100,50,1000000,100", "1000100,80,1000000,100",
                                     "1000100,80,1000000,60"};
    char m[512], o[512], out_h5[512];
    snprintf(m, sizeof m, "%s", tu_path("ZZZ_2012-06-21_34200000_57600000_message_1.csv"));
    snprintf(o, sizeof o, "%s", tu_path("ZZZ_2012-06-21_34200000_57600000_orderbook_1.csv"));
    snprintf(out_h5, sizeof out_h5, "%s", tu_path("z.h5"));
    write_file(m, MSG, 3);
    write_file(o, OB, 3);
    const char *a[] = {"mmsim", "import", "lobster", "--message", m, "-o", out_h5, NULL};
    char *out = expect(a, 0, NULL);
    cr_assert(strstr(out, "imported ZZZ (lobster): 3 rows"), "%s", out);
    free(out);
    const char *b[] = {"mmsim", "info", out_h5, NULL};
    out = expect(b, 0, NULL);
    cr_assert(strstr(out, "instrument ZZZ") && strstr(out, "2012-06-21T"), "%s", out);
    free(out);
    /* A flag given wins over the name. */
    const char *c[] = {"mmsim",    "import", "lobster", "--message", m,
                       "--symbol", "ALT",    "-o",      out_h5,      NULL};
    out = expect(c, 0, NULL);
    cr_assert(strstr(out, "imported ALT (lobster)"), "%s", out);
    free(out);
}

Test(ux, import_names_every_missing_flag_at_once)
{
    const char *a[] = {"mmsim", "import", "lobster", NULL};
    free(expect(a, 2,
                "mmsim: import lobster: -o/--output, --symbol, --message, --orderbook and --date "
                "are required"));
    const char *b[] = {"mmsim", "import", "csv", "-o", tu_path("x.h5"), "--symbol", "X", NULL};
    free(expect(b, 2, "mmsim: import csv: -i/--input, --tick, --lot and --map are required"));
    const char *c[] = {"mmsim", "import", "binance", "-i",       "cap.txt", "--tick",
                       "0.1",   "--lot",  "1",       "--symbol", "X",       NULL};
    free(expect(c, 2, "mmsim: import binance: -o/--output is required"));
}

Test(ux, version_names_only_engines_that_exist)
{
    const char *a[] = {"mmsim", "--version", NULL};
    char *out = expect(a, 0, NULL);
    cr_assert(strstr(out, "engines: run: reference, batched; sweep: process, threads, serial"),
              "%s", out);
    /* cuda: listed as an engine only when built with CUDA; the line says what the runtime sees. */
    char buf[1200];
    int devices = mm_sweep_cuda_describe(buf, sizeof buf);
    cr_assert(strstr(out, "cuda: ") && strstr(out, buf), "%s", out);
    cr_assert(devices > 0 || strstr(buf, "no device") || strstr(buf, "not built"), "%s", buf);
    cr_assert(!strstr(out, "nvcc found"), "%s", out);
    free(out);
}

Test(ux, objectives_have_a_direction)
{
    char t[512], r[512], r2[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    snprintf(r2, sizeof r2, "%s", tu_path("r2.h5"));
    /* max_drawdown: smaller is better, so its best rows come first without a prefix. */
    const char *a[] = {"mmsim",       "sweep",        t,    "--grid", "spread=0:3",
                       "--objective", "max_drawdown", "-o", r,        NULL};
    free(expect(a, 0, NULL));
    const char *b[] = {"mmsim", "show", r, "--top", "100", NULL};
    char *out = expect(b, 0, NULL);
    cr_assert(strstr(out, "by max_drawdown ascending:"), "%s", out);
    free(out);
    /* max: (recorded in the configuration) turns it round; show follows the recorded direction. */
    const char *c[] = {
        "mmsim", "sweep", t,   "--grid", "spread=0:3", "--objective", "max:max_drawdown",
        "-o",    r2,      NULL};
    free(expect(c, 0, NULL));
    const char *d[] = {"mmsim", "show", r2, NULL};
    out = expect(d, 0, NULL);
    cr_assert(strstr(out, "by max_drawdown descending (stored index):"), "%s", out);
    cr_assert(strstr(out, "objective max_drawdown, largest first"), "%s", out);
    free(out);
    /* --sort takes a prefix too, and --asc/--desc win over everything. */
    const char *e[] = {"mmsim", "show", r2, "--sort", "min:pnl", NULL};
    out = expect(e, 0, NULL);
    cr_assert(strstr(out, "by pnl ascending:"), "%s", out);
    free(out);
    const char *f[] = {"mmsim", "show", r, "--desc", NULL};
    out = expect(f, 0, NULL);
    cr_assert(strstr(out, "by max_drawdown descending (stored index):"), "%s", out);
    free(out);
    /* report follows the same direction. */
    char html[512];
    snprintf(html, sizeof html, "%s", tu_path("r.html"));
    const char *h[] = {"mmsim", "report", r, "-o", html, NULL};
    free(expect(h, 0, NULL));
    char *page = slurp(html);
    cr_assert(page && strstr(page, "smallest first"), "report of a max_drawdown objective");
    free(page);
    /* A bad prefix lists every choice. */
    const char *g[] = {"mmsim",       "sweep",   t,    "--grid",        "spread=1",
                       "--objective", "low:pnl", "-o", tu_path("x.h5"), NULL};
    free(expect(g, 2,
                "mmsim: sweep: objective: 'low:pnl' is not a metric column, optionally after min: "
                "or max: (pnl, fees, volume, fills_bid, fills_ask, orders, cancels, rejects, "
                "final_q, max_abs_q, mean_abs_q, sharpe, max_drawdown, pnl_close, held, "
                "orders_per_s, cancels_per_s, rejects_per_s, markout_1s, markout_10s, "
                "markout_60s, pnl_spread, pnl_inventory)"));
}

Test(ux, gen_and_import_take_the_same_tick_and_lot_flags)
{
    char g[512];
    snprintf(g, sizeof g, "%s", tu_path("g.h5"));
    const char *a[] = {"mmsim", "gen",   "--seed", "1",  "--events", "100", "--tick",
                       "0.5",   "--lot", "2",      "-o", g,          NULL};
    free(expect(a, 0, NULL));
    const char *b[] = {"mmsim", "info", g, NULL};
    char *out = expect(b, 0, NULL);
    cr_assert(strstr(out, "tick size      0.5\n") && strstr(out, "lot size       2\n"), "%s", out);
    free(out);
    const char *c[] = {"mmsim", "import", "--help", NULL};
    out = expect(c, 0, NULL);
    cr_assert(strstr(out, "--tick-size"), "%s", out);
    free(out);
}

Test(ux, example_configs_run)
{
    const char *fx = getenv("MMSIM_FIXTURES");
    cr_assert(fx);
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    const char *names[] = {"spread-inventory.ini", "multi-day.ini", "fee-latency.ini"};
    for (int i = 0; i < 3; i++) {
        char ini[1024], out[512];
        snprintf(ini, sizeof ini, "%s/../docs/examples/%s", fx, names[i]);
        snprintf(out, sizeof out, "%s", tu_path(names[i]));
        const char *a[] = {"mmsim", "sweep", t, "--config", ini, "-o", out, "--quiet", NULL};
        char *o = expect(a, 0, NULL);
        cr_assert(strstr(o, "sweep: ") && strstr(o, "results: "), "%s: %s", names[i], o);
        free(o);
    }
}

Test(ux, run_names_markouts_as_show_and_export_do)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    const char *a[] = {"mmsim", "run", t, "--markout-ns", "1000000,10000000000,60000000000", NULL};
    char *out = expect(a, 0, NULL);
    cr_assert(strstr(out, "\nmarkout_1ms ") && strstr(out, "\nmarkout_10s ") &&
                  strstr(out, "\nmarkout_60s "),
              "%s", out);
    free(out);
}

Test(ux, gen_and_import_say_when_they_add_to_an_existing_file)
{
    char g[512], want[2048];
    snprintf(g, sizeof g, "%s", tu_path("g.h5"));
    const char *a[] = {"mmsim",    "gen", "--seed", "1", "--events", "100",
                       "--symbol", "A",   "-o",     g,   NULL};
    char *out = expect(a, 0, NULL);
    cr_assert_eq(tu_lines(out), 1, "a new file: one line\n%s", out);
    free(out);
    const char *b[] = {"mmsim",    "gen", "--seed", "1", "--events", "100",
                       "--symbol", "B",   "-o",     g,   NULL};
    out = expect(b, 0, NULL);
    snprintf(want, sizeof want,
             "added B to the existing file %s, which now holds 2 instruments (mmsim info %s "
             "--list)\n",
             g, g);
    cr_assert(strstr(out, want), "%s", out);
    free(out);
    const char *c[] = {"mmsim",    "gen", "--seed", "2", "--events",  "100",
                       "--symbol", "B",   "-o",     g,   "--replace", NULL};
    out = expect(c, 0, NULL);
    cr_assert(strstr(out, "replaced B in the existing file "), "%s", out);
    free(out);
}

/* The demo of tools/bootstrap.sh and the README: the calibrated AMZN-like market gives the 6.5 h
 * day the README describes (57,515 events, the fingerprint of the day its numbers came from). */
Test(ux, the_demo_market_config_generates_the_readme_day)
{
    const char *fx = getenv("MMSIM_FIXTURES");
    cr_assert(fx);
    char ini[1024], out[512];
    snprintf(ini, sizeof ini, "%s/../docs/examples/amzn-market.ini", fx);
    snprintf(out, sizeof out, "%s", tu_path("demo.h5"));
    const char *g[] = {"mmsim", "gen", "--config", ini, "-o", out, NULL};
    free(expect(g, 0, NULL));
    const char *i[] = {"mmsim", "info", out, NULL};
    char *o = expect(i, 0, NULL);
    cr_assert(strstr(o, "rows           57515") && strstr(o, "77bed4da1696ae61") &&
                  strstr(o, "(23343.777 s)"),
              "%s", o);
    free(o);
}

/* gen --duration S: S seconds of market, round(S x rate) events; not with --events. */
Test(ux, gen_duration_sets_the_events_from_the_rate)
{
    const char *g[] = {"mmsim", "gen", "--duration",      "2340", "--rate", "5", "--vol",
                       "1",     "-o",  tu_path("dur.h5"), NULL};
    char *o = expect(g, 0, NULL);
    cr_assert(strstr(o, ": 11700 events to"), "2340 s x 5 events/s: %s", o);
    free(o);
    const char *b[] = {"mmsim", "gen", "--duration",       "10", "--events",
                       "5",     "-o",  tu_path("both.h5"), NULL};
    free(expect(b, 2,
                "mmsim: gen: --duration and --events both set the number of events; give one"));
}

/* fixtures/results-int32.h5 was written by mmsim 0.1.0 before the index columns became HDF5 enums
 * (its tape and queue columns are plain int32): every reader still reads it, and its content hash
 * is the one a rerun with the enum columns reproduces (docs/results.md). */
Test(ux, results_written_before_the_enum_columns_still_read)
{
    const char *r = tu_fixture("results-int32.h5");
    const char *v[] = {"mmsim", "verify", r, NULL};
    char *o = expect(v, 0, NULL);
    cr_assert(strstr(o, "content hash 02083864f4d4f043 verified (8 rows)"), "%s", o);
    free(o);
    const char *s[] = {
        "mmsim",       "show",        r,   "--where", "tape=SYN", "--where", "queue=power",
        "--no-header", "--keep-idle", NULL};
    o = expect(s, 0, NULL);
    cr_assert_eq(tu_lines(o), 2, "%s", o);
    cr_assert(strstr(o, "tape.h5#SYN") && strstr(o, "power") && !strstr(o, "risk-averse"),
              "names, not indexes: %s", o);
    free(o);
    const char *x[] = {"mmsim", "export", r, "--csv", NULL};
    o = expect(x, 0, NULL);
    cr_assert_eq(tu_lines(o), 9, "%s", o);
    cr_assert(strstr(o, "\n6,tape.h5#SYN,power,1,0.5,"), "%s", o);
    free(o);
    const char *h[] = {"mmsim", "report", r, "-o", tu_path("r.html"), NULL};
    free(expect(h, 0, NULL));
}

/* export --comments: '# ' lines first, naming the file, its hash and how sharpe is annualised (the
 * line show prints); tape names quoted for pandas' comment="#". Without it, the header comes first.
 */
Test(ux, export_comments_say_how_sharpe_is_annualised)
{
    char t[512], r[512];
    snprintf(t, sizeof t, "%s", make_ticks("t.h5", 0));
    snprintf(r, sizeof r, "%s", tu_path("r.h5"));
    const char *s[] = {
        "mmsim",     "sweep", t, "--grid",  "spread=1,2", "--year-seconds", "1000", "--sample-ns",
        "500000000", "-o",    r, "--quiet", NULL};
    free(expect(s, 0, NULL));
    const char *sh[] = {"mmsim", "show", r, NULL};
    char *o = expect(sh, 0, NULL);
    const char *want = "annualised: mean / sd of the PnL change every 500000000 ns, x sqrt(1000 s "
                       "/ that clock)\n";
    cr_assert(strstr(o, want), "%s", o);
    free(o);
    const char *c[] = {"mmsim", "export", r, "--csv", "--comments", NULL};
    o = expect(c, 0, NULL);
    cr_assert(!strncmp(o, "# mmsim export of ", 18) && strstr(o, ": 2 rows, content hash "), "%s",
              o);
    char line[1024];
    snprintf(line, sizeof line, "\n# sharpe: %sid,tape,spread,pnl,", want);
    cr_assert(strstr(o, line), "%s", o);
    snprintf(line, sizeof line, "\n0,\"%s#SYN\",1,", t);
    cr_assert(strstr(o, line), "the tape quoted: %s", o);
    free(o);
    const char *p[] = {"mmsim", "export", r, "--csv", NULL};
    o = expect(p, 0, NULL);
    cr_assert(!strncmp(o, "id,tape,spread,", 15), "%s", o);
    snprintf(line, sizeof line, "\n0,%s#SYN,1,", t);
    cr_assert(strstr(o, line), "%s", o);
    free(o);
}
