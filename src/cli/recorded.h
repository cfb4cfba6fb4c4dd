/* A row of a results file run again from what the file records (docs/results.md, "Reruns"): its
 * parameters are the recorded configuration's [params] with the row's axis values on top; its tape
 * is the input its tape axis names, which must still have the recorded fingerprint; the run
 * settings are the configuration's [run] sample_ns, year_seconds and latency_series, the file's
 * markout horizons and master seed, and the row's id (the key of its random streams). Used by
 * `mmsim run --from` and `mmsim report --curves`. Every failure prints one line starting with C. */
#ifndef MM_CLI_RECORDED_H
#define MM_CLI_RECORDED_H

#include <stdint.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"

typedef struct cli_recorded {
    mm_params base;
    mm_sim_config cfg; /* cfg.latency points at lat when the configuration names a series */
    mm_latency_series lat;
    mm_latency_samples smp;
    int32_t tape_axis;
    char **syn; /* the recorded [input] synthetic markets (their recorded paths) */
    int n_syn;
    int32_t input; /* cli_run_from: the row's input */
    mm_ticks day;  /* cli_run_from on a synthetic market: the path's day (has_day) */
    int has_day;
    const char *data; /* --data DIR: where every recorded input is looked for (NULL: as recorded) */
} cli_recorded;

/* Read the recorded configuration of results file `path` (described by in); its side inputs (the
 * latency series and samples) are found with cli_recorded_side. data: --data DIR or NULL. Every
 * recorded input is noted with cli_input (cli_recorded_note). 0 or -1. */
int cli_recorded_open(const char *C, const mm_results_info *in, const char *path, const char *data,
                      cli_recorded *r);
void cli_recorded_free(cli_recorded *r);

/* Row id with axis value indices idx (in->n_axes): its parameters into *p, its input's index into
 * *input, and r->cfg.id = id. 0 or -1. */
int cli_recorded_row(const char *C, cli_recorded *r, const mm_results_info *in, int64_t id,
                     const int32_t *idx, mm_params *p, int32_t *input);

/* Load input i: its recorded path, or when that is relative and absent, the same path beside the
 * results file; the fingerprint must be the recorded one. For a synthetic market
 * (docs/montecarlo.md section 10) the tape is its day `pathno` under p's stresses (its day 0,
 * unstressed, must have the recorded fingerprint) and r->cfg.synthetic is set. 0 or -1. */
int cli_recorded_load(const char *C, cli_recorded *r, const mm_results_info *in, const char *path,
                      int32_t i, int32_t pathno, const mm_params *p, mm_ticks *t);
/* 1 when input i is a synthetic market. */
int cli_recorded_is_synthetic(const cli_recorded *r, const mm_results_info *in, int32_t i);

/* ---- side inputs (recorded_side.c; docs/results.md, "Side inputs") ---- */

/* "latency series" for "latency_series", ...: the role of a side input in words. */
const char *cli_side_role_name(const char *role);

/* Where side input `recorded` (its role and path as the sweep recorded them) is now, known by its
 * content: DIR/<its file name> with data (--data DIR); else the path as recorded (a relative one
 * from the working folder), then, for a relative path, the same path beside the results file. The
 * first whose XXH3 is the recorded one is taken (without a record, a file from before side inputs:
 * the first that exists). Its path into buf: 0, or -1 after one line naming the file that changed
 * (its XXH3 now and then) or the places looked at (nothing printed when C is NULL). */
int cli_recorded_side(const char *C, const mm_results_info *in, const char *results_path,
                      const char *data, const char *role, const char *recorded, char *buf,
                      size_t cap);

/* Note (cli_input) the results file and every input it records, wherever it may be found now, so
 * that no output of the command replaces one of them. */
void cli_recorded_note(const mm_results_info *in, const char *results_path, const char *data);

/* mmsim verify --inputs and mmsim rerun: every recorded tape loaded and its fingerprint compared,
 * every side input's XXH3 compared; one line for each that changed or is missing (and with
 * print_ok one line on stdout for each that is as recorded). Returns the number of bad inputs;
 * *checked (may be NULL): how many were checked. */
int cli_recorded_check_inputs(const char *C, const mm_results_info *in, const char *results_path,
                              const char *data, int print_ok, int *checked);

/* Where a path the sweep recorded is now: DIR/<its file name> when data (--data DIR) is not NULL;
 * else the path as recorded, or when that is relative and absent, the same path beside the results
 * file (written into buf when it is not p itself). */
const char *cli_recorded_path(const char *p, const char *results_path, const char *data, char *buf,
                              size_t cap);

/* 1 when metric column i has the same value in a and b (NaN equals NaN). */
int cli_recorded_same(const mm_metrics *a, const mm_metrics *b, int i);

/* The first metric column whose values differ (NaN equals NaN), or -1. */
int cli_recorded_differs(const mm_metrics *a, const mm_metrics *b);

/* mmsim run --from RESULTS --id N [--path P]: row id of the results file (path P of a Monte Carlo
 * table; P < 0: no --path, path 0, which is said on stderr: "path 0 of 200; --path N for
 * another"): its recorded settings into *rec
 * (cli_recorded_free), its parameters into *p, its stored metrics into *stored, and its tape's
 * path (resolved as cli_recorded_load does), symbol and recorded fingerprint. 0, or the exit status
 * after printing one line (an id outside the table: 2; an unreadable file or configuration: 1). */
int cli_run_from(const char *C, const char *results, const char *data, int64_t id, int32_t path,
                 cli_recorded *rec, mm_params *p, mm_metrics *stored, int32_t *stored_path,
                 char *tape, size_t tape_cap, char *symbol, size_t sym_cap, uint64_t *fingerprint,
                 int64_t markout_ns[MM_MARKOUTS]);

/* mmsim run --from's checks (no tick file, no model flag: given[0..nk) with their flag names, no
 * --symbol or --latency-series: other, no flag of a setting the file records: setting, the first
 * such flag given or NULL, an --id) and then cli_run_from. */
int cli_run_from_setup(const char *C, const char *from, const char *data, int64_t id, int n_files,
                       const char *given, char (*names)[64], int nk, int other, const char *setting,
                       int32_t path, cli_recorded *rec, mm_params *p, mm_metrics *stored,
                       int32_t *stored_path, char *tape, char *sym, uint64_t *fp,
                       int64_t markout_ns[MM_MARKOUTS]);

/* After the run: compare its metrics m with the stored row's, which is path stored_path's (a table
 * of one path stores path 0; a Monte Carlo table with /paths, the path asked for; without /paths,
 * none: -1); prints one line, returns 0 when they are equal (or nothing is stored for the path),
 * else 1. */
int cli_run_from_check(const char *C, const char *results, int64_t id, int32_t path,
                       int32_t stored_path, const mm_metrics *m, const mm_metrics *stored,
                       const int64_t markout_ns[MM_MARKOUTS]);

#endif
