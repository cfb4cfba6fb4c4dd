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
    cr_assert(strstr(out, "mmsim 0.") && strstr(out, "cuda:") && strstr(out, "mpi:") && strstr(out, "openmp:"), "%s", out);
    free(out);
}

Test(cli, usage_errors_exit_2_on_one_line)
{
    const char *cases[][4] = {{"mmsim", NULL}, {"mmsim", "frobnicate", NULL}, {"mmsim", "info", NULL},
                              {"mmsim", "info", "--bogus", NULL}, {"mmsim", "gen", "--seed", NULL}};
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
    const char *g[] = {"mmsim", "gen", "--seed", "5", "--events", "30000", "--symbol", "XYZ", "--tick-size", "0.5",
                       "-o", tu_path("t.h5"), NULL};
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
    const char *g[] = {"mmsim", "gen", "--seed", "8", "--events", "50000", "-o", tu_path("r.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *a[] = {"mmsim", "run", tu_path("r.h5"), "--spread", "1", "--inv-limit", "4", "--queue", "log",
                       "--latency-ns", "200000", "--maker-fee-bps", "-1", "--trace", tu_path("t.csv"), NULL};
    char *ref, *bat;
    cr_assert_eq(tu_run(a, &ref, NULL), 0);
    const char *b[] = {"mmsim", "run", tu_path("r.h5"), "--spread", "1", "--inv-limit", "4", "--queue", "log",
                       "--latency-ns", "200000", "--maker-fee-bps", "-1", "--engine", "batched", NULL};
    cr_assert_eq(tu_run(b, &bat, NULL), 0);
    cr_assert(strstr(ref, "pnl ") && strstr(ref, "markout"), "%s", ref);
    /* Same metrics from both engines (everything after the first line). */
    char *rb = strstr(ref, "pnl"), *bb = strstr(bat, "pnl");
    char *rt = strstr(rb, "trace");
    cr_assert(rt);
    cr_assert_eq(strncmp(rb, bb, (size_t)(rt - rb)), 0, "reference:\n%s\nbatched:\n%s", ref, bat);
    /* The trace has a header and one line per record, fills included; count fills against the metrics. */
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
    const char *g[] = {"mmsim", "gen", "--seed", "8", "--events", "100", "-o", tu_path("r.h5"), NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *cases[][3] = {{"--queue", "bogus", "queue"}, {"--inv-limit", "0", "inv-limit"},
                              {"--spread", "x", "spread"},   {"--strategy", "foo", "strategy"},
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
