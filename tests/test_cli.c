/* The command line: help, version, exit codes, one-line usage errors. */
#include <criterion/criterion.h>
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
    const char *cmds[] = {"gen", "info"};
    for (int i = 0; i < 2; i++) {
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
