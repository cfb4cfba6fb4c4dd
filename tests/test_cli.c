/* The command line: help, version, exit codes, one-line usage errors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(cli, .fini = tu_cleanup);

Test(cli, help_and_version)
{
    const char *h[] = {"mmsim", "--help", NULL};
    char *out;
    cr_assert_eq(tu_run(h, &out, NULL), 0);
    cr_assert(strstr(out, "gen") && strstr(out, "info") && strstr(out, "exit status"), "%s", out);
    free(out);
    const char *cmds[] = {"gen", "info", "run"};
    for (int i = 0; i < 3; i++) {
        const char *a[] = {"mmsim", cmds[i], "--help", NULL};
        cr_assert_eq(tu_run(a, &out, NULL), 0);
        cr_assert(strstr(out, "usage: mmsim"), "%s", out);
        free(out);
    }
    const char *v[] = {"mmsim", "--version", NULL};
    cr_assert_eq(tu_run(v, &out, NULL), 0);
    cr_assert(strstr(out, "mmsim 0.") && strstr(out, "cuda:") && strstr(out, "mpi:") &&
                  strstr(out, "openmp:"),
              "%s", out);
    free(out);
}

Test(cli, usage_errors_exit_2_on_one_line)
{
    const char *cases[][4] = {{"mmsim", NULL},
                              {"mmsim", "frobnicate", NULL},
                              {"mmsim", "info", NULL},
                              {"mmsim", "info", "--bogus", NULL},
                              {"mmsim", "gen", "--seed", NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        int rc = tu_run(cases[i], NULL, &err);
        cr_assert_eq(rc, 2, "case %zu: exit %d", i, rc);
        if (i > 0) cr_assert_eq(tu_lines(err), 1, "case %zu: %s", i, err);
        free(err);
    }
}

Test(cli, gen_then_info_reports_the_tape)
{
    const char *g[] = {"mmsim", "gen",         "--seed", "5",  "--events",      "30000", "--symbol",
                       "XYZ",   "--tick-size", "0.5",    "-o", tu_path("t.h5"), NULL};
    char *out;
    cr_assert_eq(tu_run(g, &out, NULL), 0);
    free(out);
    const char *i[] = {"mmsim", "info", tu_path("t.h5"), NULL};
    cr_assert_eq(tu_run(i, &out, NULL), 0);
    cr_assert(strstr(out, "instrument XYZ"), "%s", out);
    cr_assert(strstr(out, "rows           30000"), "%s", out);
    cr_assert(strstr(out, "tick size      0.5"), "%s", out);
    cr_assert(strstr(out, "(verified)"), "%s", out);
    cr_assert(strstr(out, "spread ticks   min 1"), "%s", out);
    free(out);
}

Test(cli, run_prints_metrics_engines_agree_and_trace_is_complete)
{
    const char *g[] = {"mmsim", "gen", "--seed",        "8", "--events",
                       "50000", "-o",  tu_path("r.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *a[] = {"mmsim",
                       "run",
                       tu_path("r.h5"),
                       "--spread",
                       "1",
                       "--inv-limit",
                       "4",
                       "--queue",
                       "log",
                       "--latency-ns",
                       "200000",
                       "--maker-fee-bps",
                       "-1",
                       "--trace",
                       tu_path("t.csv"),
                       NULL};
    char *ref, *bat;
    cr_assert_eq(tu_run(a, &ref, NULL), 0);
    const char *b[] = {"mmsim",
                       "run",
                       tu_path("r.h5"),
                       "--spread",
                       "1",
                       "--inv-limit",
                       "4",
                       "--queue",
                       "log",
                       "--latency-ns",
                       "200000",
                       "--maker-fee-bps",
                       "-1",
                       "--engine",
                       "batched",
                       NULL};
    cr_assert_eq(tu_run(b, &bat, NULL), 0);
    cr_assert(strstr(ref, "pnl ") && strstr(ref, "markout"), "%s", ref);
    /* Same metrics from both engines (everything after the first line). */
    char *rb = strstr(ref, "pnl"), *bb = strstr(bat, "pnl");
    char *rt = strstr(rb, "trace");
    cr_assert(rt);
    cr_assert_eq(strncmp(rb, bb, (size_t)(rt - rb)), 0, "reference:\n%s\nbatched:\n%s", ref, bat);
    /* The trace has a header and one line per record, fills included; count fills against the
     * metrics. */
    FILE *f = fopen(tu_path("t.csv"), "r");
    cr_assert(f);
    char line[512];
    int fills = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (strstr(line, ",fill,")) fills++;
    }
    fclose(f);
    int fb = 0, fa = 0;
    cr_assert_eq(sscanf(strstr(ref, "fills"), "fills %d bid, %d ask", &fb, &fa), 2);
    cr_assert_eq(fills, fb + fa);
    cr_assert_gt(fills, 0);
    cr_assert_gt(lines, fills);
    free(ref);
    free(bat);
}

Test(cli, run_rejects_bad_model_flags)
{
    const char *g[] = {"mmsim", "gen", "--seed",        "8", "--events",
                       "100",   "-o",  tu_path("r.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *cases[][3] = {{"--queue", "bogus", "queue"},
                              {"--inv-limit", "0", "inv-limit"},
                              {"--spread", "x", "spread"},
                              {"--strategy", "foo", "strategy"},
                              {"--latency-ns", "-5", "latency"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[] = {"mmsim", "run", tu_path("r.h5"), cases[i][0], cases[i][1], NULL};
        char *err;
        cr_assert_eq(tu_run(a, NULL, &err), 2, "%s %s", cases[i][0], cases[i][1]);
        cr_assert_eq(tu_lines(err), 1, "%s", err);
        cr_assert(strstr(err, cases[i][2]), "%s", err);
        free(err);
    }
    const char *a[] = {"mmsim", "run", tu_path("missing.h5"), NULL};
    char *err;
    cr_assert_eq(tu_run(a, NULL, &err), 1);
    cr_assert(strstr(err, "missing.h5"), "%s", err);
    free(err);
}

/* ---- issue 8: outputs, strict inputs, stdout and trace write errors, signals (src/cli) ---- */

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Run mmsim with stdout sent to stdout_path (NULL: discarded), stderr captured, and an optional
 * limit on the size of the files it writes (fsize > 0: RLIMIT_FSIZE with SIGXFSZ ignored, so a
 * write past it fails with EFBIG as on a full disk). Returns the exit status or 128 + signal. */
static int run_ex(const char *const *argv, const char *stdout_path, long fsize, char **err)
{
    const char *bin = getenv("MMSIM_BIN");
    cr_assert(bin);
    char ef[] = "/tmp/mmsim-err-XXXXXX";
    int efd = mkstemp(ef);
    cr_assert(efd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int ofd = open(stdout_path ? stdout_path : "/dev/null", O_WRONLY);
        if (ofd < 0) _exit(126);
        dup2(ofd, 1);
        dup2(efd, 2);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(125);
        }
        execv(bin, (char *const *)argv);
        dprintf(2, "exec %s: %s\n", bin, strerror(errno));
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    lseek(efd, 0, SEEK_SET);
    char buf[8192];
    ssize_t n = read(efd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    close(efd);
    unlink(ef);
    if (err) *err = strdup(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A 2000-event tape t.h5 and a 2 x 2 results file r.h5 of it in the test's directory. */
static void make_inputs(void)
{
    const char *g[] = {"mmsim", "gen", "--seed",        "1", "--events", "2000", "--symbol",
                       "SYN",   "-o",  tu_path("t.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *s[] = {
        "mmsim",    "sweep",  tu_path("t.h5"), "--grid", "spread=1,2",    "--grid", "inv_limit=1,2",
        "--engine", "serial", "--quiet",       "-o",     tu_path("r.h5"), NULL};
    char *err;
    cr_assert_eq(tu_run(s, NULL, &err), 0, "%s", err);
    free(err);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t r;
    while ((r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

/* Expect exit status `code`, exactly one line of stderr equal to `want` (or starting with it when
 * want ends with "..."). */
static void expect_line(int rc, char *err, int code, const char *want)
{
    cr_assert_eq(rc, code, "exit %d (want %d): %s", rc, code, err);
    cr_assert_eq(tu_lines(err), 1, "%s", err);
    size_t n = strlen(want);
    if (n > 3 && !strcmp(want + n - 3, "..."))
        cr_assert(!strncmp(err, want, n - 3), "got: %swant: %s", err, want);
    else
        cr_assert(!strncmp(err, want, n) && err[n] == '\n', "got: %swant: %s", err, want);
    free(err);
}

/* Run argv (stdout discarded) and expect as expect_line. */
static void expect_run(const char *const *argv, int code, const char *want)
{
    char *err;
    int rc = tu_run(argv, NULL, &err);
    expect_line(rc, err, code, want);
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* No file in the test directory whose name starts with prefix (temporary files left behind). */
static int leftovers(const char *prefix)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls %s | grep -q '^%s'", tu_tmpdir(), prefix);
    return system(cmd) == 0;
}

Test(cli, sweep_output_that_is_an_input_is_refused_before_any_work)
{
    make_inputs();
    size_t n0 = 0, n1 = 0;
    char *before = slurp(tu_path("t.h5"), &n0);
    cr_assert(symlink(tu_path("t.h5"), tu_path("link.h5")) == 0);
    cr_assert(link(tu_path("t.h5"), tu_path("hard.h5")) == 0);
    const char *outs[] = {"t.h5", "link.h5", "hard.h5"};
    for (int i = 0; i < 3; i++) {
        char o[512];
        snprintf(o, sizeof o, "%s", tu_path(outs[i]));
        const char *a[] = {"mmsim", "sweep", tu_path("t.h5"), "--grid", "spread=1,2", "-o",
                           o,       NULL};
        char *err, want[1200], j[600];
        int rc = tu_run(a, NULL, &err);
        if (i == 0)
            snprintf(want, sizeof want,
                     "mmsim: sweep: -o %s: the output is also an input; choose another output file",
                     o);
        else
            snprintf(want, sizeof want,
                     "mmsim: sweep: -o %s: the output is the same file as the input %s; choose "
                     "another output file",
                     o, tu_path("t.h5"));
        expect_line(rc, err, 2, want);
        snprintf(j, sizeof j, "%s.journal", o);
        cr_assert(!exists(j), "%s exists", j);
    }
    char *after = slurp(tu_path("t.h5"), &n1);
    cr_assert(n0 == n1 && !memcmp(before, after, n0), "the tick file changed");
    free(before);
    free(after);
}

Test(cli, sweep_never_writes_into_a_tick_file)
{
    make_inputs();
    const char *g[] = {"mmsim", "gen", "--seed", "2", "--events", "100", "-o", tu_path("other.h5"),
                       NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *a[] = {"mmsim",      "sweep", tu_path("t.h5"),     "--grid",
                       "spread=1,2", "-o",    tu_path("other.h5"), NULL};
    char *err, want[1024];
    int rc = tu_run(a, NULL, &err);
    snprintf(want, sizeof want,
             "mmsim: sweep: -o %s: is a mmsim-ticks/1 file, not a results file; refusing to write "
             "into it",
             tu_path("other.h5"));
    expect_line(rc, err, 2, want);
    /* A results file is replaced by a new sweep only with --replace (issue 13: one overwrite
     * policy). */
    const char *b[] = {"mmsim",  "sweep", tu_path("t.h5"), "--grid", "spread=3,4", "--engine",
                       "serial", "-o",    tu_path("r.h5"), NULL,     NULL};
    rc = tu_run(b, NULL, &err);
    snprintf(want, sizeof want, "mmsim: sweep: -o %s: exists; add --replace to overwrite it",
             tu_path("r.h5"));
    expect_line(rc, err, 2, want);
    b[9] = "--replace";
    cr_assert_eq(tu_run(b, NULL, &err), 0, "%s", err);
    free(err);
}

Test(cli, sweep_output_directory_is_a_usage_error_and_leaves_no_journal)
{
    make_inputs();
    cr_assert(mkdir(tu_path("d"), 0755) == 0);
    const char *a[] = {"mmsim",      "sweep", tu_path("t.h5"), "--grid",
                       "spread=1,2", "-o",    tu_path("d"),    NULL};
    char *err, want[1024];
    int rc = tu_run(a, NULL, &err);
    snprintf(want, sizeof want, "mmsim: sweep: -o %s: is a directory", tu_path("d"));
    expect_line(rc, err, 2, want);
    cr_assert(!exists(tu_path("d.journal")));
    const char *b[] = {"mmsim",      "sweep", tu_path("t.h5"),       "--grid",
                       "spread=1,2", "-o",    tu_path("nodir/r.h5"), NULL};
    rc = tu_run(b, NULL, &err);
    snprintf(want, sizeof want, "mmsim: sweep: -o %s: directory %s does not exist",
             tu_path("nodir/r.h5"), tu_path("nodir"));
    expect_line(rc, err, 2, want);
}

Test(cli, run_trace_and_export_never_replace_an_input_an_hdf5_file_or_a_device)
{
    make_inputs();
    struct {
        const char *args[10];
        const char *want;
    } cases[] = {
        {{"run", "t.h5", "--trace", "t.h5"},
         "mmsim: run: --trace T/t.h5: the output is also an input; choose another output file"},
        {{"run", "t.h5", "--trace", "r.h5"},
         "mmsim: run: --trace T/r.h5: is an HDF5 file; refusing to overwrite it with a CSV trace"},
        {{"run", "t.h5", "--trace", "pipe"},
         "mmsim: run: --trace T/pipe: is not a regular file (a device, pipe or socket); refusing "
         "to replace it"},
        {{"export", "r.h5", "--csv", "-o", "r.h5"},
         "mmsim: export: -o T/r.h5: the output is also an input; choose another output file"},
        {{"export", "r.h5", "--csv", "-o", "t.h5"},
         "mmsim: export: -o T/t.h5: is an HDF5 file; refusing to overwrite it with a CSV file"},
    };
    /* A named pipe stands for a device: a binary with the bug would replace /dev/null (run as
     * root). */
    cr_assert(mkfifo(tu_path("pipe"), 0644) == 0);
    size_t nt0 = 0, nr0 = 0;
    char *t0 = slurp(tu_path("t.h5"), &nt0), *r0 = slurp(tu_path("r.h5"), &nr0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[12] = {"mmsim"};
        char paths[10][512];
        for (int k = 0; cases[i].args[k]; k++) {
            const char *s = cases[i].args[k];
            if (strstr(s, ".h5") || !strcmp(s, "pipe"))
                snprintf(paths[k], 512, "%s", tu_path(s));
            else
                snprintf(paths[k], 512, "%s", s);
            a[k + 1] = paths[k];
        }
        char want[1024];
        const char *t = strstr(cases[i].want, "T/");
        if (t)
            snprintf(want, sizeof want, "%.*s%s/%s", (int)(t - cases[i].want), cases[i].want,
                     tu_tmpdir(), t + 2);
        else
            snprintf(want, sizeof want, "%s", cases[i].want);
        char *err;
        int rc = tu_run(a, NULL, &err);
        expect_line(rc, err, 2, want);
    }
    size_t nt1 = 0, nr1 = 0;
    char *t1 = slurp(tu_path("t.h5"), &nt1), *r1 = slurp(tu_path("r.h5"), &nr1);
    cr_assert(nt0 == nt1 && !memcmp(t0, t1, nt0), "t.h5 changed");
    cr_assert(nr0 == nr1 && !memcmp(r0, r1, nr0), "r.h5 changed");
    struct stat st;
    cr_assert(lstat(tu_path("pipe"), &st) == 0 && S_ISFIFO(st.st_mode), "the pipe was replaced");
    free(t0), free(t1), free(r0), free(r1);
}

Test(cli, a_failed_trace_or_export_write_exits_1_and_leaves_no_file)
{
    make_inputs();
    /* A file-size limit makes the writes fail with EFBIG, as a full disk does with ENOSPC. */
    const char *a[] = {"mmsim", "run", tu_path("t.h5"), "--trace", tu_path("tr.csv"), NULL};
    char *err, want[1024];
    int rc = run_ex(a, NULL, 4096, &err);
    snprintf(want, sizeof want, "mmsim: run: --trace %s: %s", tu_path("tr.csv"), strerror(EFBIG));
    expect_line(rc, err, 1, want);
    cr_assert(!exists(tu_path("tr.csv")));
    cr_assert(!leftovers("tr.csv"), "a temporary trace file was left");
    const char *g[] = {"mmsim",         "sweep",  tu_path("t.h5"),    "--grid",
                       "spread=1:40:1", "--grid", "inv_limit=1:10:1", "--engine",
                       "serial",        "-o",     tu_path("big.h5"),  NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *e[] = {"mmsim", "export", tu_path("big.h5"), "--csv", "-o", tu_path("big.csv"),
                       NULL};
    rc = run_ex(e, NULL, 8192, &err);
    snprintf(want, sizeof want, "mmsim: export: -o %s: %s", tu_path("big.csv"), strerror(EFBIG));
    expect_line(rc, err, 1, want);
    cr_assert(!exists(tu_path("big.csv")));
    cr_assert(!leftovers("big.csv"), "a temporary CSV file was left");
}

Test(cli, a_full_standard_output_exits_1_with_one_line)
{
    make_inputs();
    struct {
        const char *args[10];
        const char *cmd;
    } cases[] = {
        {{"info", "t.h5"}, "info"},
        {{"run", "t.h5"}, "run"},
        {{"show", "r.h5"}, "show"},
        {{"export", "r.h5", "--csv"}, "export"},
        {{"sweep", "t.h5", "--grid", "spread=5,6", "--engine", "serial", "-o", "s.h5"}, "sweep"},
        {{"--help"}, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *a[12] = {"mmsim"};
        char paths[10][512];
        for (int k = 0; cases[i].args[k]; k++) {
            const char *s = cases[i].args[k];
            snprintf(paths[k], 512, "%s", strstr(s, ".h5") ? tu_path(s) : s);
            a[k + 1] = paths[k];
        }
        char *err, want[256];
        int rc = run_ex(a, "/dev/full", 0, &err);
        if (cases[i].cmd)
            snprintf(want, sizeof want, "mmsim: %s: standard output: %s", cases[i].cmd,
                     strerror(ENOSPC));
        else
            snprintf(want, sizeof want, "mmsim: standard output: %s", strerror(ENOSPC));
        expect_line(rc, err, 1, want);
    }
}

Test(cli, a_repeated_axis_or_key_is_a_usage_error_naming_it)
{
    make_inputs();
    const char *a[] = {"mmsim",      "sweep", tu_path("t.h5"), "--grid", "spread=1,2", "--grid",
                       "spread=3,4", "-o",    tu_path("o.h5"), NULL};
    char *err;
    expect_run(a, 2, "mmsim: sweep: --grid spread: key given twice");
    const char *b[] = {"mmsim",    "sweep", tu_path("t.h5"), "--grid", "spread=1,2", "--set",
                       "spread=3", "-o",    tu_path("o.h5"), NULL};
    expect_run(b, 2, "mmsim: sweep: --set spread: key given both as --grid and as --set");
    const char *ini[] = {"[grid]\nspread = 1,2\ninv_limit = 1,2\nspread = 3,4\n",
                         "[params]\nqueue = power\n\n[params]\nqueue = log\n",
                         "[run]\nseed = 1\nseed = 2\n", "[input]\nsymbols = SYN\nsymbols = SYN\n",
                         "[grid]\nspread = 1,2\n[params]\nspread = 3\n"};
    const char *want[] = {"[grid] spread: key given twice (first at F:2)",
                          "[params] queue: key given twice (first at F:2)",
                          "[run] seed: key given twice (first at F:2)",
                          "[input] symbols: key given twice (first at F:2)", NULL};
    const int line[] = {4, 5, 3, 3, 0};
    for (int i = 0; i < 5; i++) {
        FILE *f = fopen(tu_path("c.ini"), "w");
        fprintf(f, "%s", ini[i]);
        fclose(f);
        const char *c[] = {"mmsim",          "sweep", tu_path("t.h5"), "--config",
                           tu_path("c.ini"), "-o",    tu_path("o.h5"), NULL};
        char w[1024];
        if (want[i]) {
            const char *F = strstr(want[i], "F:");
            snprintf(w, sizeof w, "mmsim: sweep: %s:%d: %.*s%s:%s", tu_path("c.ini"), line[i],
                     (int)(F - want[i]), want[i], tu_path("c.ini"), F + 2);
        } else {
            snprintf(w, sizeof w,
                     "mmsim: sweep: spread: both an axis (%s:2) and a fixed value (%s:4)",
                     tu_path("c.ini"), tu_path("c.ini"));
        }
        expect_run(c, 2, w);
        cr_assert(!exists(tu_path("o.h5.journal")));
    }
    /* A flag overrides the file's value of the same key (docs/sweep.md): not an error. */
    FILE *f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[grid]\nspread = 1,2\n[params]\ninv_limit = 3\n");
    fclose(f);
    const char *d[] = {"mmsim",  "sweep",        tu_path("t.h5"), "--config",    tu_path("c.ini"),
                       "--grid", "spread=5,6,7", "--set",         "inv_limit=4", "--engine",
                       "serial", "-o",           tu_path("o.h5"), NULL};
    char *out;
    cr_assert_eq(tu_run(d, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sweep: 3 combinations"), "%s", out);
    free(out);
    free(err);
}

Test(cli, numbers_are_decimal_complete_and_in_range)
{
    make_inputs();
    struct {
        const char *flag, *val, *want;
    } cases[] = {
        {"--seed", " -1", "mmsim: sweep: seed: ' -1' is not a decimal integer"},
        {"--seed", "-1", "mmsim: sweep: seed: '-1' must not be negative"},
        {"--seed", "0x10", "mmsim: sweep: seed: '0x10' is not a decimal integer"},
        {"--seed", "5 ", "mmsim: sweep: seed: '5 ' is not a decimal integer"},
        {"--seed", "18446744073709551616",
         "mmsim: sweep: seed: 18446744073709551616 is out of range [0, 18446744073709551615]"},
        {"--workers", "+2", "mmsim: sweep: workers: '+2' is not a decimal integer"},
        {"--year-seconds", "0x1p20",
         "mmsim: sweep: year_seconds: '0x1p20' is not a finite decimal number"},
        {"--year-seconds", "inf",
         "mmsim: sweep: year_seconds: 'inf' is not a finite decimal number"},
        {"--grid", "spread=:5:1",
         "mmsim: sweep: --grid spread: ':5:1' is not a range a:b[:step] of decimal numbers with "
         "step "
         "> 0 and b >= a"},
        {"--grid", "spread=1:5:",
         "mmsim: sweep: --grid spread: '1:5:' is not a range a:b[:step] of decimal numbers with "
         "step "
         "> 0 and b >= a"},
        {"--grid", "spread=1: 5:1",
         "mmsim: sweep: --grid spread: '1: 5:1' is not a range a:b[:step] of decimal numbers with "
         "step > 0 and b >= a"},
        {"--grid", "spread=0x10", "mmsim: sweep: --grid spread: '0x10' is not a decimal number"},
        {"--grid", "spread=1,,2", "mmsim: sweep: --grid spread: '1,,2' has an empty value"},
        {"--markout-ns", "1000,1000,1000",
         "mmsim: sweep: markout_ns: the horizon 1000 ns is given twice"},
        {"--markout-ns", "9223372036854775807,2,3",
         "mmsim: sweep: markout_ns: 9223372036854775807 is out of range [1, 1000000000000000000]"},
        {"--markout-ns", "1,2",
         "mmsim: sweep: markout_ns: '1,2' must be 3 integers (ns) separated by commas"},
        {"--sample-ns", "9223372036854775807",
         "mmsim: sweep: sample_ns: 9223372036854775807 is out of range [1, 1000000000000000000]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int grid = !strcmp(cases[i].flag, "--grid");
        const char *a[] = {"mmsim",
                           "sweep",
                           tu_path("t.h5"),
                           "--grid",
                           grid ? cases[i].val : "inv_limit=1,2",
                           cases[i].flag,
                           grid ? "inv_limit=1" : cases[i].val,
                           "-o",
                           tu_path("o.h5"),
                           NULL};
        if (grid) a[5] = "--set";
        expect_run(a, 2, cases[i].want);
        cr_assert(!exists(tu_path("o.h5.journal")), "case %zu left a journal", i);
    }
    const char *r[][4] = {
        {"--spread", " 5", "mmsim: run: --spread: ' 5' is not a decimal number"},
        {"--inv-limit", "1e3", "mmsim: run: --inv-limit: '1e3' is not a decimal integer"},
        {"--sample-ns", "9223372036854775807",
         "mmsim: run: --sample-ns: 9223372036854775807 is out of range [1, 1000000000000000000]"},
        {"--markout-ns", "5,5,6", "mmsim: run: --markout-ns: the horizon 5 ns is given twice"}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        const char *a[] = {"mmsim", "run", tu_path("t.h5"), r[i][0], r[i][1], NULL};
        expect_run(a, 2, r[i][2]);
    }
    const char *fx[] = {"mmsim",          "sweep", tu_path("t.h5"), "--grid", "spread=1,2", "--set",
                        "inv_limit=0x10", "-o",    tu_path("o.h5"), NULL};
    expect_run(fx, 2, "mmsim: sweep: --set inv_limit: '0x10' is not a decimal integer");
    /* A leading zero is decimal: --seed 010 is seed 10 (the recorded configuration says so). */
    const char *s[] = {"mmsim", "sweep",    tu_path("t.h5"), "--grid", "spread=1,2",    "--seed",
                       "010",   "--engine", "serial",        "-o",     tu_path("o.h5"), NULL};
    char *err, *out;
    cr_assert_eq(tu_run(s, NULL, &err), 0, "%s", err);
    free(err);
    const char *sh[] = {"mmsim", "show", tu_path("o.h5"), NULL};
    cr_assert_eq(tu_run(sh, &out, NULL), 0);
    cr_assert(strstr(out, "seed      10\n"), "%s", out);
    free(out);
}

Test(cli, config_lines_have_no_length_limit_and_errors_name_their_own_line)
{
    make_inputs();
    /* A [grid] line of about 400 characters (libinih stops at 200 and blames the next line). */
    FILE *f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "; a sweep\n[grid]\nspread = ");
    for (int v = 1; v <= 100; v++)
        fprintf(f, "%s%d", v > 1 ? ", " : "", v);
    fprintf(f, "   ; one hundred values\n[run]\nengine = serial\n");
    fclose(f);
    const char *a[] = {"mmsim",    "sweep",          "--replace", tu_path("t.h5"),
                       "--config", tu_path("c.ini"), "-o",        tu_path("o.h5"),
                       NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sweep: 100 combinations"), "%s", out);
    free(out);
    free(err);
    /* A bad line after a long one is reported at its own line. */
    f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[grid]\nspread = ");
    for (int v = 1; v <= 100; v++)
        fprintf(f, "%s%d", v > 1 ? "," : "", v);
    fprintf(f, "\nthis line is wrong\n");
    fclose(f);
    char want[1024];
    snprintf(want, sizeof want, "mmsim: sweep: %s:3: 'this line is wrong' is not key = value",
             tu_path("c.ini"));
    expect_run(a, 2, want);
    /* An indented key is a key, not a continuation of the previous value. */
    f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[grid]\n  spread = 1,2\n  inv_limit = 1,2\n[run]\n  engine = serial\n");
    fclose(f);
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sweep: 4 combinations"), "%s", out);
    free(out);
    free(err);
}

Test(cli, config_that_is_a_directory_says_so)
{
    make_inputs();
    cr_assert(mkdir(tu_path("cfg"), 0755) == 0);
    const char *a[] = {"mmsim", "sweep", "--config", tu_path("cfg"), NULL};
    char want[1024];
    snprintf(want, sizeof want, "mmsim: sweep: %s: is a directory, not a config file",
             tu_path("cfg"));
    expect_run(a, 2, want);
}

Test(cli, objective_is_any_float_metric_column)
{
    make_inputs();
    const char *a[] = {"mmsim",      "sweep",       tu_path("t.h5"), "--grid",
                       "spread=1,2", "--objective", "markout_1s",    "--engine",
                       "serial",     "-o",          tu_path("o.h5"), NULL};
    char *err, *out;
    cr_assert_eq(tu_run(a, NULL, &err), 0, "%s", err);
    free(err);
    const char *sh[] = {"mmsim", "show", tu_path("o.h5"), NULL};
    cr_assert_eq(tu_run(sh, &out, NULL), 0);
    cr_assert(strstr(out, "objective markout_1s"), "%s", out);
    free(out);
    const char *b[] = {"mmsim",
                       "sweep",
                       tu_path("t.h5"),
                       "--grid",
                       "spread=1,2",
                       "--objective",
                       "markout_2s",
                       "--markout-ns",
                       "2000000000,3000000000,4000000000",
                       "--engine",
                       "serial",
                       "-o",
                       tu_path("p.h5"),
                       NULL};
    cr_assert_eq(tu_run(b, NULL, &err), 0, "%s", err);
    free(err);
    /* An integer metric is an objective too (docs/results.md); an axis or a made-up name is not. */
    const char *v[] = {"mmsim",      "sweep",       tu_path("t.h5"), "--grid",
                       "spread=1,2", "--objective", "volume",        "--engine",
                       "serial",     "-o",          tu_path("v.h5"), NULL};
    cr_assert_eq(tu_run(v, NULL, &err), 0, "%s", err);
    free(err);
    const char *c[] = {"mmsim",  "sweep", tu_path("t.h5"), "--grid", "spread=1,2", "--objective",
                       "spread", "-o",    tu_path("q.h5"), NULL};
    expect_run(c, 2,
               "mmsim: sweep: objective: 'spread' is not a metric column, optionally after min: "
               "or max: (pnl, fees, volume, "
               "fills_bid, fills_ask, orders, "
               "cancels, rejects, final_q, max_abs_q, mean_abs_q, sharpe, max_drawdown, "
               "pnl_close, held, orders_per_s, cancels_per_s, rejects_per_s, "
               "markout_1s, markout_10s, markout_60s, pnl_spread, pnl_inventory)");
}

Test(cli, a_nan_axis_value_in_a_results_file_is_named)
{
    make_inputs();
    hid_t f = H5Fopen(tu_path("r.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert(f >= 0);
    hid_t d = H5Dopen2(f, "/axes/spread", H5P_DEFAULT);
    cr_assert(d >= 0);
    double v[2] = {NAN, 2};
    cr_assert(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d);
    H5Fclose(f);
    const char *a[] = {"mmsim", "show", tu_path("r.h5"), NULL};
    char want[1024];
    snprintf(want, sizeof want,
             "mmsim: %s: /axes/spread: value 0 is NaN (axis values must be finite)",
             tu_path("r.h5"));
    expect_run(a, 1, want);
}

Test(cli, sweep_takes_every_input_beyond_old_fixed_limits)
{
    make_inputs();
    /* 300 tapes (the old parser kept 256 files silently). */
    const char *a[400] = {"mmsim", "sweep"};
    int n = 2;
    static char names[300][512];
    for (int i = 0; i < 300; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "l%03d.h5", i);
        snprintf(names[i], sizeof names[i], "%s", tu_path(nm));
        cr_assert(symlink(tu_path("t.h5"), names[i]) == 0);
        a[n++] = names[i];
    }
    const char *rest[] = {"--grid",      "spread=1", "--engine",      "serial",
                          "--no-verify", "-o",       tu_path("o.h5"), NULL};
    for (int i = 0; rest[i]; i++)
        a[n++] = rest[i];
    a[n] = NULL;
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sweep: 300 combinations (300 tapes)"), "%s", out);
    free(out);
    free(err);
}

/* Start mmsim in the background with stdout and stderr to files; returns its pid. */
static pid_t spawn(const char *const *argv, const char *out_path, const char *err_path)
{
    const char *bin = getenv("MMSIM_BIN");
    cr_assert(bin);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644),
            e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* One interrupted run: start the sweep, wait until its journal holds some records, send sig, and
 * check the exit status, the one line and the journal; then --resume must finish the table. */
static void interrupt_and_resume(const char *engine, int sig)
{
    const char *o = tu_path("o.h5");
    char journal[600];
    snprintf(journal, sizeof journal, "%s.journal", o);
    const char *a[] = {"mmsim",
                       "sweep",
                       tu_path("big.h5"),
                       "--grid",
                       "spread=1:40:1",
                       "--grid",
                       "inv_limit=1:50:1",
                       "--engine",
                       engine,
                       "--workers",
                       "2",
                       "--chunk",
                       "16",
                       "--quiet",
                       "-o",
                       o,
                       NULL};
    pid_t pid = spawn(a, tu_path("out.txt"), tu_path("err.txt"));
    /* Wait for a few journal records (the header alone is smaller than 4 KiB). */
    struct stat st;
    int waited_ms = 0;
    while (!(stat(journal, &st) == 0 && st.st_size > 4096) && waited_ms < 60000) {
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
        waited_ms += 5;
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0,
                     "the sweep ended before it could be interrupted");
    }
    cr_assert_lt(waited_ms, 60000, "no journal records after 60 s");
    cr_assert_eq(kill(pid, sig), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    size_t n = 0;
    char *err = slurp(tu_path("err.txt"), &n);
    cr_assert(err);
    err = realloc(err, n + 1);
    err[n] = 0;
    cr_assert(WIFEXITED(status), "killed by signal %d: %s",
              WIFSIGNALED(status) ? WTERMSIG(status) : 0, err);
    cr_assert_eq(WEXITSTATUS(status), 128 + sig, "exit %d: %s", WEXITSTATUS(status), err);
    cr_assert_eq(tu_lines(err), 1, "%s", err);
    long long saved = -1, total = -1;
    int used = 0;
    cr_assert_eq(
        sscanf(err, "mmsim: sweep: interrupted: %lld of %lld chunks saved; rerun with --resume%n",
               &saved, &total, &used),
        2, "%s", err);
    /* ... and what to rerun: the same command with --resume finishes the output. */
    char tail[1200];
    snprintf(tail, sizeof tail, " (the same command plus --resume finishes %s)\n", o);
    cr_assert_str_eq(err + used, tail);
    cr_assert_eq(total, (2000 + 15) / 16, "%s", err);
    cr_assert(saved >= 1 && saved < total, "%s", err);
    free(err);
    cr_assert(exists(journal), "the journal was not kept");
    cr_assert(!exists(o), "a results file exists after an interruption");
    /* --resume finishes the same run. */
    const char *r[] = {"mmsim",
                       "sweep",
                       tu_path("big.h5"),
                       "--grid",
                       "spread=1:40:1",
                       "--grid",
                       "inv_limit=1:50:1",
                       "--engine",
                       engine,
                       "--workers",
                       "2",
                       "--chunk",
                       "16",
                       "--quiet",
                       "--resume",
                       "-o",
                       o,
                       NULL};
    char *out;
    cr_assert_eq(tu_run(r, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "resumed: "), "%s", out);
    cr_assert(exists(o) && !exists(journal));
    free(out);
    free(err);
    unlink(o);
}

Test(cli, sigint_and_sigterm_stop_a_sweep_and_resume_finishes_it, .timeout = 280)
{
    const char *g[] = {"mmsim",  "gen", "--seed",          "3", "--events",
                       "100000", "-o",  tu_path("big.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    interrupt_and_resume("serial", SIGTERM);
    interrupt_and_resume("process", SIGINT);
}

Test(cli, an_abbreviated_config_flag_is_read_not_ignored)
{
    make_inputs();
    FILE *f = fopen(tu_path("c.ini"), "w");
    fprintf(f, "[input]\nfiles = %s\n[grid]\nspread = 1,2,3\n[run]\nengine = serial\n",
            tu_path("t.h5"));
    fclose(f);
    /* getopt_long accepts --conf for --config: the file must be read, not skipped. */
    const char *a[] = {"mmsim", "sweep", "--conf", tu_path("c.ini"), "-o", tu_path("o.h5"), NULL};
    char *out, *err;
    cr_assert_eq(tu_run(a, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "sweep: 3 combinations"), "%s", out);
    free(out);
    free(err);
    char arg[600];
    snprintf(arg, sizeof arg, "--conf=%s", tu_path("c.ini"));
    const char *c[] = {"mmsim", "sweep", arg, "-o", tu_path("c.ini"), NULL};
    char want[1400];
    snprintf(want, sizeof want,
             "mmsim: sweep: -o %s: the output is also an input; choose another output file",
             tu_path("c.ini"));
    expect_run(c, 2, want);
}

#include "mm_config.h"

/* The CUDA engine's module (src/sweep/cuda_load.c): `mmsim` loads it only for the engine or
 * --version; found in the build tree, --version names the runtime; a module that cannot be loaded
 * gives the engine a one-line error naming it (exit 1), and --version says why. */
Test(cli, the_cuda_engine_is_a_module_loaded_when_asked_for, .timeout = 60)
{
    if (!MM_HAVE_CUDA) cr_skip_test("built without CUDA");
    const char *v[] = {"mmsim", "--version", NULL};
    char *out, *err;
    cr_assert_eq(tu_run(v, &out, NULL), 0);
    cr_assert(strstr(out, "cuda: runtime ") && !strstr(out, "runtime 0.0") &&
                  !strstr(out, "cannot be loaded"),
              "%s", out);
    free(out);
    setenv("MMSIM_CUDA_MODULE", "/nonexistent/mmsim-cuda.so", 1);
    cr_assert_eq(tu_run(v, &out, NULL), 0);
    cr_assert(strstr(out, "mmsim-cuda.so) cannot be loaded: /nonexistent/mmsim-cuda.so"), "%s",
              out);
    free(out);
    const char *t = tu_path("t.h5");
    const char *gen[] = {"mmsim", "gen", "--seed", "3", "--events", "2000", "-o", t, NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *sw[] = {"mmsim",    "sweep", t,    "--grid",        "spread=1:2",
                        "--engine", "cuda",  "-o", tu_path("c.h5"), NULL};
    cr_assert_eq(tu_run(sw, NULL, &err), 1);
    cr_assert(strstr(err, "engine cuda: cannot run here: the CUDA engine's module (mmsim-cuda.so) "
                          "cannot be loaded") &&
                  tu_lines(err) == 1,
              "%s", err);
    free(err);
    unsetenv("MMSIM_CUDA_MODULE");
}
