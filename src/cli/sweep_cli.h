/* The parts of `mmsim sweep` around the library's run: the overwrite policy, the checks of keys
 * against the strategy, the recorded configuration (cmd_sweep.c is the flags and the run;
 * sweep_progress.c the progress line). */
#ifndef MM_SWEEP_CLI_H
#define MM_SWEEP_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "mm_sbuf.h"
#include "mmsim/sweep.h"
#include "sweep_config.h"

/* " (did you mean KEY? see 'mmsim run --help' for the keys)" (or without the suggestion) for an
 * unknown model key, into buf. */
void sweep_key_hint(const char *key, char *buf, size_t cap);

/* The overwrite policy: 0, or -1 after printing (a usage error). */
int sweep_check_overwrite(const char *C, const char *out, int replace, int resume);

/* Axes the strategy does not read are refused, fixed values of them warned about. 0 or
 * MM_EXIT_USAGE after printing. */
int sweep_check_strategy_keys(const char *C, const cli_sweep_config *c, const mm_grid *g);

/* The grid's tape axis: each file x each symbol (or every instrument of each file: *multi = 1 when
 * one held several), then each --synthetic market ("market.ini#SYMBOL"). With synthetic markets,
 * *syn (one entry per market) and *syn_ptr (one per tape, NULL for a file) are allocated for
 * mm_sweep_opts.synthetic; the caller frees both. 0 or an exit status after one line. */
int sweep_set_tapes(const char *C, const cli_sweep_config *c, mm_grid *g, int *multi,
                    mm_gen_params **syn, const mm_gen_params ***syn_ptr);

/* The run's side inputs (docs/results.md, "Side inputs"): each --config file, the latency series
 * and samples, each synthetic market, with the XXH3 of its bytes, for mm_sweep_opts.side_*. */
typedef struct sweep_side {
    int32_t n;
    const char **roles, **paths; /* n each; the paths are the caller's strings */
    uint64_t *xxh3;
} sweep_side;
/* Fill s (sweep_side_free): 0, or MM_EXIT_RUNTIME after one line naming the file that cannot be
 * read. */
int sweep_side_inputs(const char *C, const cli_sweep_config *c, const char *const *configs,
                      int n_configs, sweep_side *s);
void sweep_side_free(sweep_side *s);

/* The largest --chunk (a plain integer literal: the help prints it). */
#define SWEEP_CHUNK_MAX 1000000

/* The effective configuration as INI text (inputs, axes, every fixed parameter, run settings; the
 * objective as recorded, obj_text), appended to cf: what the results record for reruns. */
void sweep_config_text(mm__sbuf *cf, const cli_sweep_config *c, const mm_grid *g,
                       const mm_sweep_opts *o, const char *obj_text);

/* The [run] settings given as text (engine, workers, chunk, seed, sample_ns, year_seconds,
 * markout_ns, paths, keep_paths, stall_s), parsed strictly into o. 0, or -1 after printing (a
 * usage error). */
int sweep_run_settings(const char *C, const cli_sweep_config *c, mm_sweep_opts *o);

/* The objective as written ([min:|max:]METRIC), checked against the metric columns named from
 * markout_ns: its column name into name (what the library indexes) and into shown the text the
 * configuration records ("NAME" when the direction is the metric's own, else "min:NAME" or
 * "max:NAME"). 0, or -1 after printing (a usage error). */
int sweep_objective(const char *C, const char *text, const int64_t markout_ns[MM_MARKOUTS],
                    int64_t paths, char *name, size_t cap, char *shown, size_t scap);

/* The steps of `mmsim sweep` before the run, each 0 or an exit status after one line:
 * sweep_check_output: -o is none of the inputs (tick files, the config files configs[0 ..
 * n_configs), latency files, synthetic markets), not a directory or another kind of file, and the
 * overwrite policy allows it; sweep_read_latency: the latency series and samples read into lat and
 * smp and handed to o->sim; sweep_grid_keys: the axes and fixed keys into g, an error named by
 * where the key came from (a flag or a config file's line). */
int sweep_check_output(const char *C, const cli_sweep_config *c, const char *const *configs,
                       int n_configs, int replace, int resume);
int sweep_read_latency(const cli_sweep_config *c, mm_latency_series *lat, mm_latency_samples *smp,
                       mm_sweep_opts *o);
int sweep_grid_keys(const char *C, const cli_sweep_config *c, mm_grid *g);

#endif
