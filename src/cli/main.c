/* mmsim: command dispatch, --help and --version. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hdf5.h>
#include <xxhash.h>

#include "cli.h"
#include "cli_keys.h"
#include "mm_config.h"
#include "mm_h5guard.h"
#include "mmsim/sweep.h"
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
    "  signal   attach a signal column (a model's predictions) to a tape, from a CSV\n"
    "  run      replay one parameter combination, print its metrics (and a trace)\n"
    "  show     provenance and best rows of a sweep's results file\n"
    "  export   every row of a results file as CSV\n"
    "  report   one HTML page of a results file: heatmap, best rows, provenance\n"
    "  select   the best row out of sample: walk-forward, PBO, deflated Sharpe, neighbours\n"
    "  sweep    run a parameter grid over tick files into one results table\n"
    "  verify   recompute a results file's content hash\n"
    "  rerun    run a results file's sweep again and check it reproduces the table\n"
    "  as-market  the Avellaneda-Stoikov model market over many paths: the paper's table\n"
    "  calibrate  fit the synthetic market (gen) to a tick file: an INI for gen --config\n"
    "\n"
    "options:\n"
    "  -h, --help     this help; 'mmsim help <command>' or 'mmsim <command> --help' for a command\n"
    "  -V, --version  version, build options, the engines this build has\n"
    "\n"
    "examples (each line reads what the lines above wrote; README.md \"Use\" has more):\n"
    "  mmsim gen --seed 42 --events 200000 --symbol SYN -o syn.h5\n"
    "  mmsim sweep syn.h5 --grid spread=0:10 --grid inv_limit=1,2,5,10 -o results.h5\n"
    "  mmsim show results.h5 --top 10 --where 'pnl>0'\n"
    "  mmsim report results.h5 -o report.html\n"
    "  mmsim run --from results.h5 --id 7 --trace fills.csv\n"
    "  mmsim sweep syn.h5 --grid spread=0:4 --set latency_dist=exponential \\\n"
    "      --set latency_ns=100000 --paths 20 -o mc.h5\n"
    "  mmsim run --from mc.h5 --id 2 --path 5\n"
    "\n"
    "exit status: 0 ok, 1 runtime error (bad input file, I/O), 2 usage error (bad flag or "
    "value).\n";

#ifdef MM_HDF5_STATIC
#define MM_HDF5_LINK "static, no filter plugins"
#else
#define MM_HDF5_LINK "shared"
#endif

static void print_version(void)
{
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("mmsim %s\n", mm_version());
    printf("build: %s, %s, fp-contract=off\n", MM_BUILD_TYPE, MM_CC);
    printf("openmp: %s\n", MM_HAVE_OPENMP ? "yes" : "no (the threads engine runs one thread)");
    /* Only the engines this binary can run: mpi is in the engine table of every build, but
     * without the MPI library it refuses to start. */
    printf("engines: run: reference, batched; sweep:");
    for (int e = 0; mm_sweep_engine_name(e); e++)
        if ((e != MM_ENGINE_MPI || MM_HAVE_MPI) && (e != MM_ENGINE_CUDA || MM_HAVE_CUDA))
            printf("%s %s", e ? "," : "", mm_sweep_engine_name(e));
    printf("\n");
    char cuda[1200];
    mm_sweep_cuda_describe(cuda, sizeof cuda);
    printf("cuda: %s\n", cuda);
    printf("mpi: %s\n",
           MM_HAVE_MPI ? "yes (sweep --engine mpi under mpirun or srun)" : "no (not built)");
    printf("hdf5: %u.%u.%u (%s), xxhash: %u\n", maj, min, rel, MM_HDF5_LINK, XXH_versionNumber());
}

static int dispatch(int argc, char **argv);

// clang-format off
static const char *const COMMANDS[] = {"gen",       "info",   "import", "run",    "show",
                                       "export",    "report", "sweep",  "verify", "rerun",
                                       "as-market", "help",   "version",
                                       "calibrate", "select",  "signal"};
// clang-format on
#define N_COMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

static int find_command(const char *name)
{
    for (int i = 0; i < N_COMMANDS; i++)
        if (!strcmp(COMMANDS[i], name)) return 1;
    return 0;
}

/* "unknown command 'swep' (did you mean sweep? see 'mmsim --help')": usage error. */
static int unknown_command(const char *cmd)
{
    const char *near = cli_suggest(cmd, COMMANDS, N_COMMANDS);
    if (near)
        cli_err("unknown command '%s' (did you mean %s? see 'mmsim --help')", cmd, near);
    else
        cli_err("unknown command '%s' (see 'mmsim --help')", cmd);
    return MM_EXIT_USAGE;
}

/* The process's heap (CLI only; the library leaves malloc alone), docs/perf.md "Start-up". A sweep
 * allocates and frees in turn the tape's columns, the tape tables, HDF5's metadata caches (one per
 * file opened) and the results' buffers, a few MiB each; each 4 KiB page the kernel maps costs a
 * page fault (2 us on one virtual machine, about 10 us on another), and the guard's probe (a fork,
 * src/io/h5guard.c) makes every 4 KiB page written before it fault again when written after it. So:
 * blocks up to 32 MiB come from the heap, freed memory stays there for the next allocation, the
 * heap grows 64 MiB at a time (address space: pages are committed when written), and the kernel is
 * asked for transparent huge pages on it (madvise; ignored where THP is off): one fault per 2 MiB.
 * A huge page needs a 2 MiB-aligned range that no 4 KiB page has touched yet, and malloc writes a
 * header at the end of each block it hands out: so the first block, kept to the end, ends just
 * below a 2 MiB boundary at least 256 KiB above the heap's end (address space only: malloc writes
 * none of it), the heap's growth is advised from that boundary on, and everything allocated after
 * it lies in huge pages. Larger blocks (a long tape) are mapped on their own as before. */
static void *volatile g_heap_head; /* cli_heap_setup's first block, freed when main ends */
static void cli_heap_setup(void)
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 64 << 20);
    const uintptr_t huge = 2u << 20;
    uintptr_t end = (uintptr_t)sbrk(0);
    uintptr_t al = (end + (256u << 10) + huge - 1) / huge * huge;
    /* The block starts at or below `end` (malloc's top chunk): with its 16-byte header it ends at
     * least 32 bytes below `al`, where malloc writes the next header. Over the free space of the
     * initial heap (132 KiB), so the heap grows by it and the pad. Kept in a global: a leak
     * checker sees it reachable, and the compiler keeps the malloc. */
    g_heap_head = malloc(al - end - 64);
    uintptr_t hi = (uintptr_t)sbrk(0) / huge * huge;
    if (g_heap_head && hi > al) madvise((void *)al, hi - al, MADV_HUGEPAGE);
}

#if MM_HAVE_MPI
/* 1 when this binary's engine "mpi" runs ranks (mmsim-mpi: engine_mpi.c), 0 in `mmsim`
 * (mpi_none.c). */
extern const int mm__mpi_ranks_linked;

/* `mmsim sweep` started by an MPI launcher runs `mmsim-mpi` from this binary's directory, the same
 * program with the MPI engine (src/cli/meson.build): `mmsim` itself does not link MPI, whose
 * libraries (open-pal, open-rte, hwloc, libevent, ...) took about 0.8 ms of every start
 * (docs/perf.md, "Start-up, session 20"; docs/cluster.md). Returns only when that fails, having
 * said why. */
static int run_mpi_binary(char **argv)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);
    if (n <= 0) {
        cli_err(
            "sweep: started by an MPI launcher; cannot find this program's path to run mmsim-mpi: "
            "%s",
            strerror(errno));
        return MM_EXIT_RUNTIME;
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    snprintf(slash ? slash + 1 : self, sizeof self - (size_t)(slash ? slash + 1 - self : 0),
             "mmsim-mpi");
    execv(self, argv);
    cli_err("sweep: started by an MPI launcher; cannot run %s (the MPI build of mmsim, installed "
            "beside it): %s",
            self, strerror(errno));
    return MM_EXIT_RUNTIME;
}
#endif

/* Defined, as 1, by tests/alloc_fail's harness, which runs this main many times in its own process
 * (main must return there); undefined (a null address) in mmsim. */
extern const int mm__cli_in_process __attribute__((weak));

/* The end of a command. exit() runs HDF5's atexit handler, which frees the library's whole state
 * (about 0.5 ms of a one-combination sweep; docs/perf.md, "Start-up, session 21"): with no HDF5
 * object left open there is nothing of it to finish, so the process leaves with _exit once every
 * stdio stream is flushed (the commands close their own files). Returns, for exit() to do the
 * rest, when an HDF5 object is still open, when a stream cannot be flushed, under a sanitizer
 * (its leak check runs at exit), in mmsim-mpi (MPI's own handlers), with the shared HDF5 (not
 * initialised at start there: counting its objects would initialise it) and in a test harness that
 * calls main itself. */
static void cli_quick_exit(int rc)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(MM_HDF5_STATIC)
    (void)rc;
#else
#if MM_HAVE_MPI
    if (mm__mpi_ranks_linked) return;
#endif
    if (&mm__cli_in_process && mm__cli_in_process) return;
    if (fflush(NULL) != 0 || H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) return;
    _exit(rc);
#endif
}

/* The HDF5 guard's record across processes (docs/formats.md, "The guard's record"): a file that
 * passed the guard's forked probe in an earlier run, same bytes and same HDF5, skips the probe,
 * about a third of a one-combination sweep's CPU. $MMSIM_CACHE_DIR/h5guard.v1, else
 * $XDG_CACHE_HOME/mmsim/h5guard.v1, else $HOME/.cache/mmsim/h5guard.v1 (relative XDG_CACHE_HOME or
 * HOME: ignored, as the XDG specification says); MMSIM_CACHE_DIR set and empty turns it off, and
 * so does a path that does not fit. Not in mmsim-mpi (its ranks probe each file themselves). */
static void cli_guard_record_init(void)
{
#if MM_HAVE_MPI
    if (mm__mpi_ranks_linked) return;
#endif
    const char *d = getenv("MMSIM_CACHE_DIR"), *sub = "/h5guard.v1";
    if (!d) {
        d = getenv("XDG_CACHE_HOME");
        sub = "/mmsim/h5guard.v1";
        if (!d || d[0] != '/') {
            d = getenv("HOME");
            sub = "/.cache/mmsim/h5guard.v1";
            if (d && d[0] != '/') d = NULL;
        }
    }
    char path[4096];
    if (!d || !*d || snprintf(path, sizeof path, "%s%s", d, sub) >= (int)sizeof path) return;
    mm__h5_guard_record_set(path); /* -ENOMEM: no record, the probes run */
}

int main(int argc, char **argv)
{
#if MM_HAVE_MPI
    if (!mm__mpi_ranks_linked && argc > 1 && !strcmp(argv[1], "sweep") && cli_mpi_launched())
        return run_mpi_binary(argv);
#endif
    cli_signals_init();
    cli_heap_setup();
#ifdef MM_HDF5_STATIC
    /* HDF5 linked into this executable (meson option static_hdf5): a filter plugin is built
     * against the shared libhdf5 and would load a second, uninitialised copy of it, so plugins
     * are off. mmsim writes gzip + shuffle only (built in); a file whose data needs a plugin
     * filter fails to read with HDF5's error, as it does where no plugin is installed. */
    H5PLset_loading_state(0);
#endif
    cli_guard_record_init();
    int rc = dispatch(argc, argv);
    /* Only after success: a failed command leaves no trace outside its own outputs. A record
     * that cannot be written costs the next run its probes, nothing else. */
    if (rc == 0) mm__h5_guard_record_save();
    mm__h5_guard_record_set(NULL);
    cli_files_free();
    free(g_heap_head); /* (for tests/alloc_fail, which runs this main many times in one process) */
    g_heap_head = NULL;
    const char *cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    rc = cli_close_stdout(cmd, rc);
    cli_quick_exit(rc);
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(USAGE, stderr);
        return MM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") && argc > 2 && argv[2][0] != '-') {
        /* git-style: 'mmsim help sweep' is 'mmsim sweep --help'. */
        if (!find_command(argv[2])) return unknown_command(argv[2]);
        char help[] = "--help";
        char *hargv[] = {argv[0], argv[2], help, NULL};
        return dispatch(3, hargv);
    }
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
    if (!strcmp(cmd, "signal")) return cmd_signal(argc - 1, argv + 1);
    if (!strcmp(cmd, "import")) return cmd_import(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "show")) return cmd_show(argc - 1, argv + 1);
    if (!strcmp(cmd, "export")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "select")) return cmd_select(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep")) return cmd_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(cmd, "rerun")) return cmd_rerun(argc - 1, argv + 1);
    if (!strcmp(cmd, "as-market")) return cmd_asmarket(argc - 1, argv + 1);
    if (!strcmp(cmd, "calibrate")) return cmd_calibrate(argc - 1, argv + 1);
    return unknown_command(cmd);
}
