/* mmsim: command dispatch, --help and --version. */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>
#include <xxhash.h>

#include "cli.h"
#include "mm_config.h"
#include "report.h"

static const char USAGE[] =
    "usage: mmsim <command> [options]\n"
    "\n"
    "Market-making tick simulator.\n"
    "\n"
    "commands:\n"
    "  gen      generate a synthetic market into a tick file\n"
    "  info     describe the instruments of a tick file\n"
    "  import   read LOBSTER, Binance capture or generic CSV files into a tick file\n"
    "  run      replay one parameter combination, print its metrics (and a trace)\n"
    "  show     provenance and best rows of a sweep's results file\n"
    "  export   every row of a results file as CSV\n"
    "  report   one HTML page of a results file: heatmap, best rows, provenance\n"
    "  sweep    run a parameter grid over tick files into one results table\n"
    "  as-market  the Avellaneda-Stoikov model market over many paths: the paper's table\n"
    "\n"
    "options:\n"
    "  -h, --help     this help; 'mmsim <command> --help' for a command\n"
    "  -V, --version  version, build options, CUDA/MPI availability\n"
    "\n"
    "exit status: 0 ok, 1 runtime error (bad input file, I/O), 2 usage error (bad flag or "
    "value).\n";

static void print_version(void)
{
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("mmsim %s\n", mm_version());
    printf("build: %s, %s, fp-contract=off\n", MM_BUILD_TYPE, MM_CC);
    printf("openmp: %s\n", MM_HAVE_OPENMP ? "yes" : "no");
    printf("cuda: %s\n", MM_HAVE_CUDA ? "nvcc found at build time (core headers checked under nvcc)"
                                      : "no (not built)");
    printf("mpi: %s\n", MM_HAVE_MPI ? "MPI library found at build time" : "no (not built)");
    printf("hdf5: %u.%u.%u, xxhash: %u\n", maj, min, rel, XXH_versionNumber());
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    const char *cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    return cli_close_stdout(cmd, rc);
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return MM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return MM_EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        print_version();
        return MM_EXIT_OK;
    }
    if (!strcmp(cmd, "gen")) return cmd_gen(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "show")) return cmd_show(argc - 1, argv + 1);
    if (!strcmp(cmd, "export")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep")) return cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "as-market")) return cmd_asmarket(argc - 1, argv + 1);
    cli_err("unknown command '%s' (see 'mmsim --help')", cmd);
    return MM_EXIT_USAGE;
}
