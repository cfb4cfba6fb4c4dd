/* mmsim signal: attach a signal column to a tape of a tick file, from a CSV of ts_ns,value points
 * (docs/formats.md, "Signal": each row takes the last point at or before its time, 0 before the
 * first). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "signal_csv.h"

static const char HELP[] =
    "usage: mmsim signal ticks.h5 --csv FILE --name NAME [--symbol X] [--replace]\n"
    "\n"
    "Attach a signal column (one number a row, e.g. a model's predicted mid move in ticks) to a "
    "tape;\n"
    "the key signal_skew then moves the strategy's fair price by signal x signal_skew ticks\n"
    "(docs/model.md 6). The CSV holds ts_ns,value lines (a header line is optional), sorted by "
    "time;\n"
    "each row of the tape takes the value of the last line at or before its timestamp, 0 before "
    "the\n"
    "first (docs/formats.md \"Signal\"). The tick file is rewritten all or nothing.\n"
    "\n"
    "  --csv FILE     the points: ts_ns (integer ns) and value (a finite number) a line\n"
    "  --name NAME    the signal's name ([A-Za-z0-9._-]+)\n"
    "  --symbol X     the instrument (needed when the file holds several)\n"
    "  --replace      replace the tape's signal if it has one\n"
    "  -h, --help     this help\n";

/* Read the points of `path` (signal_csv.c); a failure is one line naming path:line. Returns 0 or
 * an exit status. */
static int read_points(const char *path, signal_points *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_err("signal: %s: %s", path, strerror(errno));
        return MM_EXIT_RUNTIME;
    }
    char msg[512];
    int rc = signal_csv_read(f, path, p, msg, sizeof msg);
    fclose(f);
    if (rc) cli_err("signal: %s", msg);
    return rc ? MM_EXIT_RUNTIME : 0;
}

int cmd_signal(int argc, char **argv)
{
    const char *C = "signal";
    const char *csv = NULL, *name = NULL, *symbol = NULL;
    int replace = 0;
    enum { O_CSV = 256, O_NAME, O_SYMBOL, O_REPLACE };
    static const struct option opts[] = {{"csv", 1, 0, O_CSV},       {"name", 1, 0, O_NAME},
                                         {"symbol", 1, 0, O_SYMBOL}, {"replace", 0, 0, O_REPLACE},
                                         {"help", 0, 0, 'h'},        {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_CSV:
            csv = optarg;
            break;
        case O_NAME:
            name = optarg;
            break;
        case O_SYMBOL:
            symbol = optarg;
            break;
        case O_REPLACE:
            replace = 1;
            break;
        case 'h':
            fputs(HELP, stdout);
            return MM_EXIT_OK;
        default:
            cli_opt_error(C, "signal", c == ':', argv, opts);
            return MM_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        cli_err("%s: expected exactly one tick file (see 'mmsim signal --help')", C);
        return MM_EXIT_USAGE;
    }
    if (!csv || !name) {
        cli_err("%s: --csv FILE and --name NAME are required (see 'mmsim signal --help')", C);
        return MM_EXIT_USAGE;
    }
    const char *path = argv[optind];
    signal_points p = {0};
    mm_ticks t = {0};
    double *rows = NULL;
    mm_error e = {0};
    int rc = read_points(csv, &p);
    if (rc) goto out;
    if (mm_ticks_load(path, symbol, MM_LOAD_NO_VALIDATE, &t, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    rows = malloc((size_t)(t.n > 0 ? t.n : 1) * sizeof *rows);
    if (!rows) {
        cli_err("%s: out of memory for %" PRId64 " rows", C, t.n);
        rc = MM_EXIT_RUNTIME;
        goto out;
    }
    if (mm_signal_asof(t.ts_ns, t.n, p.ts, p.v, p.n, rows, &e) ||
        mm_ticks_write_signal(path, t.inst.symbol, name, rows, t.n, replace, &e)) {
        rc = cli_fail(&e);
        goto out;
    }
    int64_t before = 0;
    while (before < t.n && t.ts_ns[before] < p.ts[0])
        before++;
    printf("%s: instrument %s: signal %s from %" PRId64 " points of %s onto %" PRId64
           " rows (%" PRId64 " rows before the first point take 0)\n",
           path, t.inst.symbol, name, p.n, csv, t.n, before);
out:
    free(rows);
    mm_ticks_free(&t);
    signal_points_free(&p);
    return rc;
}
