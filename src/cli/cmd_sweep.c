/* mmsim sweep: a grid of parameter combinations over one or more tick files, one results table. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_keys.h"
#include "mmsim/import.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "sweep_cli.h"
#include "sweep_config.h"
#include "sweep_progress.h"

/* Printed with printf: the numbers come from the constants the code uses. */
static const char HELP[] =
    "usage: mmsim sweep ticks.h5 [more.h5 ...] --grid key=spec [--grid ...] -o results.h5 "
    "[options]\n"
    "\n"
    "Run every combination of the grid (the cartesian product of the axes; the input tapes are the "
    "first\n"
    "axis) and write one results table (docs/sweep.md, docs/results.md).\n"
    "\n"
    "  --grid key=spec     an axis: key is any model parameter ('mmsim run --help' lists them; "
    "inv_limit\n"
    "                      and inv-limit both work), spec is a:b:step (inclusive range), a:b "
    "(step 1) or\n"
    "                      v1,v2,... (e.g. --grid spread=1:20:1); an axis the strategy does not "
    "read is\n"
    "                      refused (spread with --set strategy=as)\n"
    "  --set key=value     a fixed parameter value for every combination\n"
    "  --config F          INI file with [input] files/symbols, [grid], [params], [run] (same "
    "keys)\n"
    "  --symbol X          instrument(s) to use from each file (repeatable; default: every "
    "instrument\n"
    "                      of each file, each a value of the tape axis, listed before the run)\n"
    "  -o, --output F      results file (required, here or in [run] output)\n"
    "  --engine E          process (default), threads, serial, mpi or cuda; all give identical\n"
    "                      tables (cuda: on a GPU, docs/perf-gpu.md; --device N picks it, default\n"
    "                      0; --device all spreads the chunks over every visible GPU)\n"
    "                      (mpi: run under mpirun or srun, chosen by default there; "
    "docs/cluster.md)\n"
    "  --workers N         processes or threads (default: number of cores; mpi: threads in each\n"
    "                      rank, default 1)\n"
    "  --chunk N           combinations per chunk, 1 to %d (default 0: automatic, at most %d,\n"
    "                      and at most %d / paths with --paths)\n"
    "  --stall-s S         engine process: a worker that finishes nothing for S seconds is killed\n"
    "                      and its chunk rerun once on a fresh worker (default 600; 0: wait for\n"
    "                      ever); the threads engine cannot kill a thread and waits\n"
    "  --seed S            master seed (default 1)\n"
    "  --objective M       metric the best rows are ranked by: [min:|max:]METRIC (default pnl;\n"
    "                      without a prefix, min for max_drawdown, fees, rejects, rejects_per_s,\n"
    "                      held, max_abs_q, mean_abs_q, else max); the stored index is largest\n"
    "                      first, show and report read the direction\n"
    "  --sample-ns N, --year-seconds S, --markout-ns A,B,C   metric settings (see mmsim run)\n"
    "  --latency-series F     recorded latencies for every tape (CSV, see mmsim run)\n"
    "  --synthetic F       a synthetic market (an INI of mmsim gen --config or mmsim calibrate), "
    "a\n"
    "                      tape whose every path is a fresh generated day (repeatable)\n"
    "  --paths N           Monte Carlo: N seeded paths per combination; the table then holds\n"
    "                      summaries (pnl_mean, pnl_p5, pnl_cvar5, p_loss, ...: docs/results.md)\n"
    "  --keep-paths        also store every path's metrics (/paths; N rows per combination)\n"
    "  --blocks B          also record each row's PnL, position, fills and fees at the end of\n"
    "                      each of B equal time spans of its tape (/blocks; for mmsim select)\n"
    "  --block-ns NS       the same with blocks of NS ns from each tape's first event\n"
    "  --resume            continue an interrupted run from its journal (results.h5.journal)\n"
    "  --replace           overwrite an existing results file (refused without it)\n"
    "  --quiet             no progress on stderr\n"
    "  --progress-s N      a plain progress line on stderr every N seconds (default %d where\n"
    "                      stderr is not a terminal: nohup, Slurm, 2> log; on a terminal one\n"
    "                      line rewritten in place): done/total, rate, elapsed, ETA, paths\n"
    "  --progress          a plain progress line at every update (twice a second at most)\n"
    "  --no-verify         skip the input fingerprint checks\n"
    "  -h, --help          this help\n"
    "\n"
    "Before any work the memory the run needs (the grid, each worker's chunks, a synthetic day "
    "per\n"
    "worker) is checked against physical memory, ulimit -v and -d and the cgroup's memory.max; a "
    "run\n"
    "that cannot fit is refused, naming what to lower (--workers, --chunk, --events of a "
    "--synthetic\n"
    "market) and how far (docs/sweep.md, \"Memory\").\n";

typedef cli_sweep_config cfg;

static int sweep_oom(const char *C, const char *what)
{
    cli_err("%s: out of memory for %s", C, what);
    return MM_EXIT_RUNTIME;
}

/* Set by SIGINT or SIGTERM during the sweep (the signal number); the library's worker threads poll
 * it. A lock-free atomic: the handler may run on any thread (mm_sweep_opts.cancel). */
static atomic_int sweep_signal;

static void on_signal(int sig)
{
    atomic_store_explicit(&sweep_signal, sig, memory_order_relaxed);
}

/* What an interrupted sweep advises when another command runs it (rerun): NULL, the sweep's own
 * advice. */
static const char *interrupt_cmd, *interrupt_hint;
void cli_sweep_interrupt_hint(const char *cmd, const char *hint)
{
    interrupt_cmd = cmd;
    interrupt_hint = hint;
}

/* Launched by an MPI launcher (mpirun, mpiexec, srun with PMI or PMIx)? */
int cli_mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

int cmd_sweep(int argc, char **argv)
{
    const char *C = "sweep";
    cfg c;
    cli_sweep_config_init(&c);
    int quiet = 0, resume = 0, no_verify = 0, replace = 0, force_progress = 0, rc = MM_EXIT_OK;
    double progress_s = -1;       /* --progress-s; -1: not given */
    const char *device = NULL;    /* --device N (engine cuda) */
    sweep_side side = {0};        /* the side inputs and their XXH3 */
    mm_latency_series lat = {0};  /* --latency-series */
    mm_latency_samples smp = {0}; /* --latency-samples */
    sweep_progress_state ps;      /* the progress line (when ps_on) */
    int ps_on = 0;
    mm_gen_params *syn = NULL; /* --synthetic: the markets, by tape (sweep_set_tapes) */
    const mm_gen_params **syn_ptr = NULL;
    enum {
        O_GRID = 256,
        O_SET,
        O_CONFIG,
        O_SYMBOL,
        O_ENGINE,
        O_WORKERS,
        O_CHUNK,
        O_SEED,
        O_OBJ,
        O_RESUME,
        O_QUIET,
        O_NOVERIFY,
        O_SAMPLE,
        O_YEAR,
        O_MARKOUT,
        O_LATENCY,
        O_SAMPLES,
        O_REPLACE,
        O_PROGRESS,
        O_PATHS,
        O_KEEP,
        O_BLOCKS,
        O_BLOCK_NS,
        O_SYNTH,
        O_DEVICE,
        O_STALL,
        O_PROGRESS_S
    };
    static const struct option opts[] = {{"grid", 1, 0, O_GRID},
                                         {"set", 1, 0, O_SET},
                                         {"config", 1, 0, O_CONFIG},
                                         {"symbol", 1, 0, O_SYMBOL},
                                         {"output", 1, 0, 'o'},
                                         {"engine", 1, 0, O_ENGINE},
                                         {"workers", 1, 0, O_WORKERS},
                                         {"chunk", 1, 0, O_CHUNK},
                                         {"stall-s", 1, 0, O_STALL},
                                         {"seed", 1, 0, O_SEED},
                                         {"paths", 1, 0, O_PATHS},
                                         {"keep-paths", 0, 0, O_KEEP},
                                         {"blocks", 1, 0, O_BLOCKS},
                                         {"block-ns", 1, 0, O_BLOCK_NS},
                                         {"synthetic", 1, 0, O_SYNTH},
                                         {"device", 1, 0, O_DEVICE},
                                         {"objective", 1, 0, O_OBJ},
                                         {"resume", 0, 0, O_RESUME},
                                         {"quiet", 0, 0, O_QUIET},
                                         {"no-verify", 0, 0, O_NOVERIFY},
                                         {"sample-ns", 1, 0, O_SAMPLE},
                                         {"year-seconds", 1, 0, O_YEAR},
                                         {"markout-ns", 1, 0, O_MARKOUT},
                                         {"latency-series", 1, 0, O_LATENCY},
                                         {"latency-samples", 1, 0, O_SAMPLES},
                                         {"replace", 0, 0, O_REPLACE},
                                         {"progress", 0, 0, O_PROGRESS},
                                         {"progress-s", 1, 0, O_PROGRESS_S},
                                         {"help", 0, 0, 'h'},
                                         {0, 0, 0, 0}};
    /* Two passes: the config files first (wherever --config appears, also abbreviated as getopt
     * allows), then the flags, which override them. Errors in other flags are reported by the
     * second pass. */
    const char **configs = calloc((size_t)argc + 1, sizeof *configs);
    int n_configs = 0, ch;
    if (!configs) {
        cli_sweep_config_free(&c);
        return sweep_oom(C, "the arguments");
    }
    optind = 0;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        if (ch != O_CONFIG) continue;
        configs[n_configs++] = optarg;
        int r = cli_sweep_config_parse_file(&c, optarg);
        if (r) {
            cli_err("%s: %s", C, c.err);
            rc = r == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
            goto out;
        }
    }
    optind = 0;
    while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        int r = 0;
        switch (ch) {
        case O_GRID:
            r = cli_sweep_config_add_flag_kv(&c, "--grid", optarg);
            break;
        case O_SET:
            r = cli_sweep_config_add_flag_kv(&c, "--set", optarg);
            break;
        case O_CONFIG:
            break;
        case O_SYMBOL:
            r = cli_sweep_config_add_symbol(&c, optarg);
            break;
        case 'o':
            r = cli_sweep_config_set_run(&c, "output", optarg);
            break;
        case O_ENGINE:
            r = cli_sweep_config_set_run(&c, "engine", optarg);
            break;
        case O_WORKERS:
            r = cli_sweep_config_set_run(&c, "workers", optarg);
            break;
        case O_CHUNK:
            r = cli_sweep_config_set_run(&c, "chunk", optarg);
            break;
        case O_STALL:
            r = cli_sweep_config_set_run(&c, "stall_s", optarg);
            break;
        case O_SEED:
            r = cli_sweep_config_set_run(&c, "seed", optarg);
            break;
        case O_OBJ:
            r = cli_sweep_config_set_run(&c, "objective", optarg);
            break;
        case O_PATHS:
            r = cli_sweep_config_set_run(&c, "paths", optarg);
            break;
        case O_KEEP:
            r = cli_sweep_config_set_run(&c, "keep_paths", "1");
            break;
        case O_BLOCKS:
            r = cli_sweep_config_set_run(&c, "blocks", optarg);
            break;
        case O_BLOCK_NS:
            r = cli_sweep_config_set_run(&c, "block_ns", optarg);
            break;
        case O_SYNTH:
            r = cli_sweep_config_add_synthetic(&c, optarg);
            break;
        case O_DEVICE:
            device = optarg;
            break;
        case O_SAMPLE:
            r = cli_sweep_config_set_run(&c, "sample_ns", optarg);
            break;
        case O_YEAR:
            r = cli_sweep_config_set_run(&c, "year_seconds", optarg);
            break;
        case O_MARKOUT:
            r = cli_sweep_config_set_run(&c, "markout_ns", optarg);
            break;
        case O_SAMPLES:
            r = cli_sweep_config_set_run(&c, "latency_samples", optarg);
            break;
        case O_LATENCY:
            r = cli_sweep_config_set_run(&c, "latency_series", optarg);
            break;
        case O_RESUME:
            resume = 1;
            break;
        case O_QUIET:
            quiet = 1;
            break;
        case O_REPLACE:
            replace = 1;
            break;
        case O_PROGRESS:
            force_progress = 1;
            break;
        case O_PROGRESS_S:
            if (cli_f64(C, "--progress-s", optarg, 0.1, 86400, &progress_s)) {
                rc = MM_EXIT_USAGE;
                goto out;
            }
            break;
        case O_NOVERIFY:
            no_verify = 1;
            break;
        case 'h':
            printf(HELP, SWEEP_CHUNK_MAX, MM_SWEEP_CHUNK_AUTO_MAX, MM_SWEEP_SLOTS_AUTO_MAX,
                   SWEEP_PROGRESS_S_DEFAULT);
            goto out;
        default: /* ':' (a value missing) or an unknown option */
            cli_opt_error(C, "sweep", ch == ':', argv, opts);
            rc = MM_EXIT_USAGE;
            goto out;
        }
        if (r) {
            cli_err("%s: %s", C, c.err);
            rc = r == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
            goto out;
        }
    }
    for (int i = optind; i < argc; i++)
        if (cli_sweep_config_add_file(&c, argv[i])) {
            cli_err("%s: %s", C, c.err);
            rc = MM_EXIT_RUNTIME;
            goto out;
        }
    if (cli_sweep_config_check(&c)) {
        cli_err("%s: %s", C, c.err);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (c.n_files == 0 && c.n_synthetic == 0) {
        cli_err("%s: no input tick file (positional, or [input] files in the config) and no "
                "--synthetic market",
                C);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (!c.output) {
        cli_err("%s: -o/--output is required", C);
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (c.n_grid == 0) {
        cli_err("%s: empty grid: give at least one --grid key=spec", C);
        rc = MM_EXIT_USAGE;
        goto out;
    }

    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    if (!quiet) {
        /* A terminal: one line in place; --progress: a line per update; else (a log, or
         * --progress-s N) a line every N seconds (sweep_progress.h). */
        int tty = isatty(2) && progress_s < 0 && !force_progress;
        double every = force_progress   ? 0
                       : tty            ? 1
                       : progress_s > 0 ? progress_s
                                        : SWEEP_PROGRESS_S_DEFAULT;
        sweep_progress_init(&ps, tty, every, 1);
        ps_on = 1;
        o.progress = sweep_print_progress;
        o.progress_user = &ps;
        if (!tty && every > 0) o.progress_interval_s = 0; /* every chunk: the ETA's data */
    }
    o.resume = resume;
    int64_t dev = 0;
    if (device && !strcmp(device, "all")) {
        dev = MM_SWEEP_DEVICE_ALL;
    } else if (device && (!*device || strspn(device, "0123456789") != strlen(device))) {
        cli_err("%s: --device: '%s' is neither a device number nor all", C, device);
        rc = MM_EXIT_USAGE;
        goto out;
    } else if (device && cli_i64(C, "--device", device, 0, 1023, &dev)) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    o.device = (int)dev;
    o.load_flags = no_verify ? MM_LOAD_NO_VERIFY : 0;
    if (sweep_run_settings(C, &c, &o)) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    if (ps_on) ps.paths = o.paths;
    if (!c.engine && cli_mpi_launched()) o.engine = MM_ENGINE_MPI;
    char obj_name[64], obj_text[80]; /* the indexed column; the objective as recorded */
    if (sweep_objective(C, c.objective ? c.objective : o.objective, o.sim.markout_ns, o.paths,
                        obj_name, sizeof obj_name, obj_text, sizeof obj_text)) {
        rc = MM_EXIT_USAGE;
        goto out;
    }
    o.objective = obj_name;
    if ((rc = sweep_check_output(C, &c, configs, n_configs, replace, resume))) goto out;
    /* Every input file other than the tapes, known by its content (rerun and verify --inputs
     * check them first). */
    if ((rc = sweep_side_inputs(C, &c, configs, n_configs, &side))) goto out;
    o.n_side = side.n;
    o.side_roles = side.roles;
    o.side_paths = side.paths;
    o.side_xxh3 = side.xxh3;
    if ((rc = sweep_read_latency(&c, &lat, &smp, &o))) goto out;

    /* Tapes: each file x each symbol given, or every instrument of each file. */
    mm_grid *g = NULL;
    mm_error e = {0};
    if (mm_grid_new(&g, &e)) rc = sweep_oom(C, "the grid");
    mm__sbuf cf = {0};
    int multi = 0; /* a file without --symbol held several instruments: all are swept */
    if (rc == 0) rc = sweep_set_tapes(C, &c, g, &multi, &syn, &syn_ptr);
    o.synthetic = syn_ptr;
    if (rc == 0) rc = sweep_grid_keys(C, &c, g);
    /* A parameter the strategy does not read: an axis of it would only repeat rows (refused); a
     * fixed value of it is harmless but a sign of a mistake (warned). With strategy itself an axis,
     * every key is read by some of the rows. */
    if (rc == 0) rc = sweep_check_strategy_keys(C, &c, g);
    /* The effective configuration, as INI: recorded in the results for reruns. */
    if (rc == 0) {
        sweep_config_text(&cf, &c, g, &o, obj_text);
        if (cf.oom) rc = sweep_oom(C, "the configuration text");
        o.config_text = cf.p;
    }
    /* MPI: initialised when launched by an MPI launcher (otherwise the engine runs in this
     * process); rank 0 reports, the other ranks print only their own failures. */
    int mpi_rank = 0, mpi_size = 1, mpi_on = 0;
    if (rc == 0 && o.engine == MM_ENGINE_MPI && cli_mpi_launched()) {
        if (mm_sweep_mpi_init(&mpi_rank, &mpi_size, &e))
            rc = cli_fail(&e);
        else
            mpi_on = 1;
        if (mpi_rank != 0) o.progress = NULL;
    }
    if (rc == 0) {
        mm_sweep_report rep;
        memset(&rep, 0, sizeof rep);
        /* SIGINT and SIGTERM stop the sweep cleanly: the library sees the flag, stops its workers
         * and keeps every finished chunk in the journal. */
        struct sigaction sa, old_int, old_term;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        atomic_store(&sweep_signal, 0);
        sigaction(SIGINT, &sa, &old_int);
        sigaction(SIGTERM, &sa, &old_term);
        o.cancel = &sweep_signal;
        if (o.progress) sweep_progress_start(&ps, mm_grid_combo_count(g), mm_grid_axis_size(g, 0));
        int r = mm_sweep_run(g, &o, c.output, &rep, &e);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        if (mpi_rank != 0) {
            /* A worker rank: rank 0 reports the run, and the errors every rank shares. */
            if (r && r != MM_EUSAGE && r != MM_EINTERRUPTED)
                cli_err("%s: rank %d: %s", C, mpi_rank, e.msg[0] ? e.msg : mm_strerror(r));
            rc = r == 0 ? MM_EXIT_OK
                 : r == MM_EINTERRUPTED
                     ? 128 + (atomic_load(&sweep_signal) == SIGTERM ? SIGTERM : SIGINT)
                 : r == MM_EUSAGE ? MM_EXIT_USAGE
                                  : MM_EXIT_RUNTIME;
            if (r == MM_EUSAGE || r == MM_EINTERRUPTED) mpi_on = 2; /* rank 0 ends the job */
        } else if (r == MM_EINTERRUPTED && interrupt_hint) {
            cli_err("%s: interrupted: %" PRId64 " of %" PRId64 " chunks saved; %s", interrupt_cmd,
                    rep.chunks_saved, rep.chunks_total, interrupt_hint);
            rc = 128 + (atomic_load(&sweep_signal) == SIGTERM ? SIGTERM : SIGINT);
        } else if (r == MM_EINTERRUPTED) {
            cli_err("%s: interrupted: %" PRId64 " of %" PRId64
                    " chunks saved; rerun with --resume (the same command plus --resume finishes "
                    "%s)%s",
                    C, rep.chunks_saved, rep.chunks_total, c.output,
                    mpi_size > 1 && atomic_load(&sweep_signal) == SIGTERM
                        ? " (under mpirun or srun, SIGTERM also means that another rank died)"
                        : "");
            rc = 128 + (atomic_load(&sweep_signal) == SIGTERM ? SIGTERM : SIGINT);
        } else if (r == -ECHILD && mpi_on) { /* a rank died: its chunks are in the journal */
            cli_err("%s: %s; rerun with --resume", C, e.msg);
            rc = MM_EXIT_RUNTIME;
        } else if (r == MM_EUSAGE && c.latency_series && !strncmp(e.msg, "latency:", 8)) {
            cli_err("%s: --latency-series %s:%s", C, c.latency_series, e.msg + 8);
            rc = MM_EXIT_USAGE;
        } else if (r) {
            rc = cli_fail(&e);
        } else {
            char cps[32], ups[32];
            snprintf(ups, sizeof ups, "%.3g", rep.updates_per_s);
            printf("sweep: %" PRId64 " combinations (%d tape%s) in %.3f s with %d %s worker%s: "
                   "%s combos/s, %s event x combo updates/s\n",
                   rep.combos, mm_grid_axis_size(g, 0), mm_grid_axis_size(g, 0) == 1 ? "" : "s",
                   rep.wall_s, rep.workers, /* MPI: the ranks that compute (mm__mpi_workers) */
                   o.engine == MM_ENGINE_THREADS
                       ? "thread"
                       : mm_sweep_engine_name(o.engine), /* "2 thread workers", "2 mpi workers" */
                   rep.workers == 1 ? "" : "s", cli_fmt_rate(rep.combos_per_s, cps, sizeof cps),
                   rep.updates_per_s > 0 ? ups : "-");
            if (rep.chunks_resumed)
                printf("resumed: %" PRId64 " combinations were already journaled\n",
                       rep.chunks_resumed);
            if (rep.chunks_rerun)
                printf("recovered: %" PRId64 " chunks rerun after a worker died\n",
                       rep.chunks_rerun);
            if (rep.stalls) /* said on stderr: something stopped a worker (docs/sweep.md) */
                cli_err("%s: warning: %" PRId64 " worker%s finished nothing for %g s "
                        "(--stall-s): killed, %s chunk%s rerun on a fresh worker",
                        C, rep.stalls, rep.stalls == 1 ? "" : "s", o.stall_s,
                        rep.stalls == 1 ? "its" : "their", rep.stalls == 1 ? "" : "s");
            if (multi) /* the multi-instrument policy (docs/sweep.md): said, not silent */
                printf("tapes: every instrument of each input file, one tape each (--symbol X to "
                       "choose)\n");
            printf("results: %s, content hash %016" PRIx64 "\n", c.output, rep.content_hash);
        }
    }
    free(cf.p);
    mm_grid_free(g);
    /* A failed MPI run ends the whole job (other ranks may wait for this one); a worker that only
     * shares rank 0's outcome leaves that to rank 0. */
    if (mpi_on) mm_sweep_mpi_finalize(rc && mpi_size > 1 && mpi_on == 1 ? rc : 0);
out:
    if (ps_on) sweep_progress_end(&ps);
    sweep_side_free(&side);
    mm_latency_free(&lat);
    mm_latency_samples_free(&smp);
    free(syn);
    free(syn_ptr);
    free(configs);
    cli_sweep_config_free(&c);
    return rc;
}
