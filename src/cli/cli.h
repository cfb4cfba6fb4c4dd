/* Shared pieces of the mmsim command-line tool: exit codes, messages, strict number parsing. */
#ifndef MM_CLI_H
#define MM_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"

/* Exit codes (documented in docs/mmsim.1.md). */
enum { MM_EXIT_OK = 0, MM_EXIT_RUNTIME = 1, MM_EXIT_USAGE = 2 };

/* Print "mmsim: <message>" on one line to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct option;
/* "mmsim: <cmd>: unknown option '<arg>' (did you mean --<name>? see 'mmsim <help_cmd> --help')",
 * the suggestion being the closest long option of opts (a {0} terminated getopt_long table) when it
 * is close enough to be a typo (cli_suggest; a '=value' is ignored); without one, "(see ...)" only.
 */
void cli_unknown_option(const char *cmd, const char *help_cmd, const char *arg,
                        const struct option *opts);
/* The end of every command's option loop (getopt_long with a leading ':' in its short options):
 * missing_value (getopt returned ':') prints "mmsim: <cmd>: <flag> needs a value", anything else
 * cli_unknown_option's line, for the option getopt just read (argv[optind - 1]). The caller exits
 * MM_EXIT_USAGE. */
void cli_opt_error(const char *cmd, const char *help_cmd, int missing_value, char **argv,
                   const struct option *opts);

/* The shortest "%.Ng" form of v (N = 1..17) that reads back as exactly v: 0.1, not
 * 0.10000000000000001. Into buf (cap bytes), which it returns. */
const char *cli_fmt_shortest(double v, char *buf, size_t cap);

/* A rate (per second) for a summary line: "-" when it is 0 (nothing was computed: every chunk was
 * resumed from the journal) or not finite; whole numbers from 100 up, 3 significant digits below
 * (2 long combinations in 5 s are "0.4", which "%.0f" printed as "0"). Returns buf. */
const char *cli_fmt_rate(double v, char *buf, size_t cap);

/* The number of instruments of the tick file at path, or -1 when there is none (absent, empty, not
 * readable as a tick file). */
int cli_instrument_count(const char *path);
/* After gen or import wrote symbol into a tick file that held `before` (>= 0) instruments: one line
 * on stdout, "added SYM in the existing file F, which now holds N instruments (...)" (or
 * "replaced"): the overwrite policy says adding to a file, not silently doing it. */
void cli_note_added(const char *path, const char *symbol, int before);

/* The direction of a results file's objective: 1 (smallest first) when its recorded configuration
 * says "objective = min:NAME", 0 for "max:NAME", else the metric's own
 * (cli_metric_smaller_is_better).
 */
struct mm_results_info;
int cli_objective_ascending(const struct mm_results_info *in);

/* How the sharpe column of a results file is annualised, from its recorded [run] sample_ns and
 * year_seconds (docs/model.md 7.2), as `mmsim show` and `mmsim export --comments` print it:
 * "annualised: mean / sd of the PnL change every N ns, x sqrt(Y / that clock)". Into buf (cap
 * bytes); 0, or -1 when the recorded configuration does not parse. */
int cli_sharpe_label(const struct mm_results_info *in, char *buf, size_t cap);

/* When an annualised Sharpe ratio means little (docs/results.md, "When sharpe means something"):
 * its tape spans less than one trading session (CLI_SESSION_S, an equity day of 6.5 h) or gives
 * fewer than CLI_SHARPE_MIN_SAMPLES samples of the recorded clock. The flags of input tape i
 * (CLI_SHARPE_SHORT | CLI_SHARPE_FEW, 0: none), its samples and span; -1 when the file does not
 * record the span (written before it). */
#define CLI_SESSION_S 23400.0
#define CLI_SHARPE_MIN_SAMPLES 100
enum { CLI_SHARPE_SHORT = 1, CLI_SHARPE_FEW = 2 };
int cli_sharpe_flags(const struct mm_results_info *in, int32_t i, int64_t *samples, double *span_s);
/* The flag as text: "short", "few", "short,few", or "-". */
const char *cli_sharpe_flag_text(int flags);
/* One "warning" line on stdout per input tape whose Sharpe is flagged (prefix starts each). */
void cli_sharpe_warnings(const struct mm_results_info *in, const char *prefix);

/* Report a library error (its one-line message) and return MM_EXIT_USAGE for MM_EUSAGE, else 1. */
int cli_fail(const mm_error *e);
/* An MPI launcher (mpirun, mpiexec, srun with PMI or PMIx) started this process (its environment).
 */
int cli_mpi_launched(void);
/* A library message as the CLI prints it: the API's option names in it (MM_LOAD_NO_VERIFY,
 * mm_sweep_opts.resume, ...) replaced by the CLI's flags (--no-verify, --resume, ...); into buf
 * (cap bytes), which it returns. */
const char *cli_libmsg(const char *msg, char *buf, size_t cap);

/* Strict parsers: the whole string must be a decimal number in range: no blanks, no hex, no octal
 * (a leading 0 is decimal), no inf/nan; integers are digits with an optional '-' (no '+'). Return 0
 * or -1 after printing "mmsim: <cmd>: <flag>: '<text>' is not ..." or "... is out of range [lo,
 * hi]". */
/* 1 when s is a number as the strict parsers accept it (integer: digits with an optional '-'; else
 * a decimal real), 0 otherwise. */
int cli_is_decimal(const char *s, int integer);
int cli_i64(const char *cmd, const char *flag, const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t *out);
int cli_f64(const char *cmd, const char *flag, const char *s, double lo, double hi, double *out);

/* Longest clock or horizon in ns accepted from the user (--sample-ns, --markout-ns): the library's
 * MM_SIM_HORIZON_MAX_NS (1e18 ns, about 31.7 years). With every simulated timestamp in [-2^62, 2^62
 * - 1] (mmsim/sim.h), a timestamp plus such a value cannot overflow int64. */
#define CLI_NS_MAX MM_SIM_HORIZON_MAX_NS

/* --markout-ns A,B,C: exactly MM_MARKOUTS decimal integers in [1, CLI_NS_MAX] whose column names
 * (markout_<h>) are distinct. Returns 0 or -1 after printing why. */
int cli_markouts(const char *cmd, const char *flag, const char *s, int64_t out[MM_MARKOUTS]);

/* Format ns since the epoch as ISO-8601 UTC with nanoseconds. */
void cli_fmt_time(int64_t ns, char *buf, int cap);

/* ---- inputs and outputs (cli_files.c) ----
 * One rule, in one place: no command writes an output over a file it reads. Every file a command
 * reads is noted with cli_input as soon as its path is known (a flag, a config file, a results
 * file, an input a results file records), before the outputs are checked; cli_check_output then
 * refuses an output that is any of them (same device and inode, after links). origin (may be NULL)
 * says how the input was reached when that is not a flag ("recorded in r.h5"). */
void cli_input(const char *path, const char *origin);
/* 0, or -1 after printing "mmsim: <cmd>: <flag> <out>: the output is ... the input ..." (a usage
 * error) when out is a noted input. cli_check_output calls it. */
int cli_check_inputs(const char *cmd, const char *flag, const char *out);
/* Install the handler that, on SIGINT, SIGTERM or SIGHUP, removes the temporaries of the outputs
 * cli_check_output has seen ("<out>.tmp.<pid>", where every writer puts its output before the
 * rename) and ends the process by that signal (exit status 128 + signal). main calls it; the sweep
 * replaces it while it runs (it stops cleanly and keeps its journal) and restores it after. */
void cli_signals_init(void);
/* Add "<out>.tmp.<pid>" to what the handler removes (cli_check_output calls it). */
void cli_output_tmp(const char *out);
/* Free what cli_input and cli_output_tmp hold (main, when the command is done). */
void cli_files_free(void);
/* XXH3-64 (seed 0) of the whole file at path: 0, or a negative errno. */
int cli_file_xxh3(const char *path, uint64_t *hash);

/* Check an output path before any work: not the same file as any of inputs[0..n_inputs) (NULL
 * entries skipped) nor any file noted with cli_input, not a directory, a regular file if it exists
 * (outputs are renamed into place, which would replace a device or a pipe), writable if it exists,
 * in an existing writable directory. Returns 0, or -1 after printing "mmsim: <cmd>: <flag> <out>:
 * <reason>" (a usage error: exit MM_EXIT_USAGE). */
int cli_check_output(const char *cmd, const char *flag, const char *out, const char *const *inputs,
                     int n_inputs);

/* An output that already exists must be an HDF5 file whose root attribute mmsim_format starts with
 * want_prefix ("mmsim-ticks/", "mmsim-results/"); what names that kind in the message ("tick
 * file"). Returns 0 (absent or the right kind) or -1 after printing why (a usage error). */
int cli_check_h5_kind(const char *cmd, const char *flag, const char *out, const char *want_prefix,
                      const char *what);

/* An output written as text (CSV) must not replace an existing HDF5 file (a tick or results file).
 * Returns 0, or -1 after printing "mmsim: <cmd>: <flag> <out>: is an HDF5 file; refusing to
 * overwrite it with <what>" (a usage error). */
int cli_check_not_h5(const char *cmd, const char *flag, const char *out, const char *what);

/* Flush and close stdout; a failed write (a full disk, /dev/full) prints "<cmd>: standard output:
 * <reason>" (cmd may be NULL) and turns an exit status of 0 into MM_EXIT_RUNTIME (after a failure,
 * whose line is already printed, nothing more is printed). Returns the exit status to use. */
int cli_close_stdout(const char *cmd, int rc);

int cmd_gen(int argc, char **argv);
/* A market INI (mmsim gen --config's syntax, docs/synthetic.md) into *p, from the defaults: 0, or
 * the exit status after one line naming FILE:LINE and the key (2) or the file (1), the file as
 * "C: what path: reason" (what: the flag that gave it, or "synthetic market"). */
int cli_gen_config(const char *C, const char *what, const char *path, mm_gen_params *p);
int cmd_info(int argc, char **argv);
int cmd_signal(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
/* When cmd (rerun) runs cmd_sweep: the line an interrupted sweep prints is "mmsim: <cmd>:
 * interrupted: N of M chunks saved; <hint>". NULL, NULL: the sweep's own line. */
void cli_sweep_interrupt_hint(const char *cmd, const char *hint);
/* mmsim run --json (cmd_run_json.c). */
void cli_run_print_json(const mm_ticks *t, const mm_sim_config *cfg, const mm_params *p,
                        const mm_metrics *m, int batched, const char *trace, const char *curve);
int cmd_verify(int argc, char **argv); /* cmd_rerun.c */
int cmd_rerun(int argc, char **argv);
int cmd_asmarket(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);

#endif
