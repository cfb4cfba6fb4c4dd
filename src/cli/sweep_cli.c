/* The parts of `mmsim sweep` around the library's run (sweep_cli.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_keys.h"
#include "mmsim/import.h"
#include "mmsim/results.h"
#include "sweep_cli.h"

/* " (did you mean KEY? see 'mmsim run --help' for the keys)" for an unknown model key. */
void sweep_key_hint(const char *key, char *buf, size_t cap)
{
    const char *near = cli_suggest_key(key);
    if (near)
        snprintf(buf, cap, " (did you mean %s? see 'mmsim run --help' for the keys)", near);
    else
        snprintf(buf, cap, " (see 'mmsim run --help' for the keys)");
}

/* The overwrite policy (docs/sweep.md "Outputs"): an existing results file is replaced only with
 * --replace. A --resume with the journal of an interrupted run beside it continues that run (the
 * journal is the proof that this output is being written by it). Returns 0 or -1 after printing. */
int sweep_check_overwrite(const char *C, const char *out, int replace, int resume)
{
    struct stat st;
    if (replace || stat(out, &st) != 0) return 0;
    char j[PATH_MAX + 16]; /* on the stack: this check cannot fail for lack of memory */
    int journal = 0;
    if (strlen(out) < PATH_MAX) {
        snprintf(j, sizeof j, "%s.journal", out);
        journal = stat(j, &st) == 0;
    }
    if (resume && journal) return 0;
    cli_err("%s: -o %s: exists; add --replace to overwrite it%s", C, out,
            resume ? " (--resume continues only a run whose journal is beside it)" : "");
    return -1;
}

/* Refuse an axis whose key the strategy of every row does not read; warn about a fixed value of
 * one. Returns 0 or MM_EXIT_USAGE after printing. */
int sweep_check_strategy_keys(const char *C, const cli_sweep_config *c, const mm_grid *g)
{
    for (int i = 0; i < c->n_grid; i++)
        if (!strcmp(c->grid[i].key, "strategy")) return 0;
    int s = mm_grid_base(g)->strategy;
    for (int i = 0; i < c->n_grid; i++) {
        int want = cli_key_strategy(c->grid[i].key);
        if (want < 0 || want == s) continue;
        const char *o = c->grid[i].origin;
        cli_err("%s: %s%s%s: has no effect with strategy %s (only %s reads it); set strategy=%s or "
                "drop the axis",
                C, o, o[0] == '-' ? " " : ": ", c->grid[i].key, cli_strategy_name(s),
                cli_strategy_name(want), cli_strategy_name(want));
        return MM_EXIT_USAGE;
    }
    for (int i = 0; i < c->n_sets; i++) {
        int want = cli_key_strategy(c->sets[i].key);
        if (want < 0 || want == s) continue;
        const char *o = c->sets[i].origin;
        cli_err("%s: warning: %s%s%s: has no effect with strategy %s (only %s reads it)", C, o,
                o[0] == '-' ? " " : ": ", c->sets[i].key, cli_strategy_name(s),
                cli_strategy_name(want));
    }
    return 0;
}

/* Number of the Monte Carlo summary column called name, or -1. */
static int summary_find(const char *name, const int64_t markout_ns[MM_MARKOUTS])
{
    for (int i = 0; i < MM_RESULTS_SUMMARY_METRICS; i++) {
        char n[64];
        mm_results_summary_metric(i, markout_ns, n, sizeof n);
        if (!strcmp(n, name)) return i;
    }
    return -1;
}

int sweep_objective(const char *C, const char *text, const int64_t markout_ns[MM_MARKOUTS],
                    int64_t paths, char *name, size_t cap, char *shown, size_t scap)
{
    int asc = 0;
    int bad = cli_objective_split(text, name, cap, &asc);
    if (!bad && paths > 1 && summary_find(name, markout_ns) < 0 &&
        mm_results_metric_find(name, markout_ns) >= 0 && strlen(name) + 6 <= cap) {
        /* With paths, a per-run metric's name means its mean over the paths. */
        strcat(name, "_mean");
        if (!strchr(text, ':')) asc = cli_metric_smaller_is_better(name);
    }
    if (!bad)
        bad = paths > 1 ? summary_find(name, markout_ns) < 0
                        : mm_results_metric_find(name, markout_ns) < 0;
    if (bad) {
        char list[2048] = "";
        size_t len = 0;
        if (paths > 1)
            for (int i = 0; i < MM_RESULTS_SUMMARY_METRICS && len < sizeof list; i++) {
                char n[64];
                mm_results_summary_metric(i, markout_ns, n, sizeof n);
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", n);
            }
        else
            mm_results_metric_list(markout_ns, list, sizeof list);
        cli_err("%s: objective: '%s' is not a %smetric column, optionally after min: or max: (%s)",
                C, text, paths > 1 ? "Monte Carlo summary " : "", list);
        return -1;
    }
    if (asc == cli_metric_smaller_is_better(name))
        snprintf(shown, scap, "%s", name);
    else
        snprintf(shown, scap, "%s:%s", asc ? "min" : "max", name);
    return 0;
}

/* Moved out of cmd_sweep.c as it was (the strict parsers print the flag, the text and the range).
 */
int sweep_run_settings(const char *C, const cli_sweep_config *c, mm_sweep_opts *o)
{
    int64_t v64;
    if (c->engine) {
        o->engine = mm_sweep_engine_parse(c->engine);
        if (o->engine < 0) {
            char names[128] = "";
            size_t len = 0;
            int n = 0;
            while (mm_sweep_engine_name(n))
                n++;
            for (int e = 0; e < n && len < sizeof names; e++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                        e == 0       ? ""
                                        : e == n - 1 ? " or "
                                                     : ", ",
                                        mm_sweep_engine_name(e));
            cli_err("%s: engine: '%s' is not %s", C, c->engine, names);
            return -1;
        }
    }
    if (c->workers) {
        if (cli_i64(C, "workers", c->workers, 0, 4096, &v64)) return -1;
        o->workers = (int)v64;
    }
    if (c->chunk) {
        if (cli_i64(C, "chunk", c->chunk, 0, SWEEP_CHUNK_MAX, &v64)) return -1;
        o->chunk = v64;
    }
    if (c->seed && cli_u64(C, "seed", c->seed, &o->seed)) return -1;
    if (c->sample_ns) {
        if (cli_i64(C, "sample_ns", c->sample_ns, 1, CLI_NS_MAX, &v64)) return -1;
        o->sim.sample_ns = v64;
    }
    if (c->year_s && cli_f64(C, "year_seconds", c->year_s, 0, 1e12, &o->sim.year_s)) return -1;
    if (c->markout_ns && cli_markouts(C, "markout_ns", c->markout_ns, o->sim.markout_ns)) return -1;
    if (c->paths && cli_i64(C, "paths", c->paths, 1, 1000000, &o->paths)) return -1;
    if (c->keep_paths) {
        if (cli_i64(C, "keep_paths", c->keep_paths, 0, 1, &v64)) return -1;
        o->keep_paths = (int)v64;
    }
    if (c->stall_s) {
        if (cli_f64(C, "stall_s", c->stall_s, 0, 604800, &o->stall_s)) return -1;
        if (o->stall_s > 0 && o->stall_s < 0.1) {
            cli_err("%s: stall_s: %s must be 0 (no limit) or at least 0.1 s", C, c->stall_s);
            return -1;
        }
    }
    if (o->keep_paths && o->paths < 2) {
        cli_err("%s: keep_paths: stores each path's row, which needs --paths N with N >= 2", C);
        return -1;
    }
    if (c->blocks) {
        if (cli_i64(C, "blocks", c->blocks, 0, MM_RESULTS_BLOCKS_MAX, &v64)) return -1;
        o->blocks = (int32_t)v64;
    }
    if (c->block_ns && cli_i64(C, "block_ns", c->block_ns, 0, CLI_NS_MAX, &o->block_ns)) return -1;
    if (o->blocks > 0 && o->block_ns > 0) {
        cli_err("%s: blocks: give --blocks B or --block-ns NS, not both", C);
        return -1;
    }
    if ((o->blocks > 0 || o->block_ns > 0) && o->paths > 1) {
        cli_err("%s: blocks: time blocks are recorded for replays of one path (not with --paths)",
                C);
        return -1;
    }
    return 0;
}

void sweep_config_text(mm__sbuf *cf, const cli_sweep_config *c, const mm_grid *g,
                       const mm_sweep_opts *o, const char *obj_text)
{
    mm__sb_printf(cf, "[input]\nfiles = ");
    for (int f = 0; f < c->n_files; f++)
        mm__sb_printf(cf, "%s%s", f ? ", " : "", c->files[f]);
    mm__sb_printf(cf, "\n");
    if (c->n_symbols) {
        mm__sb_printf(cf, "symbols = ");
        for (int s = 0; s < c->n_symbols; s++)
            mm__sb_printf(cf, "%s%s", s ? ", " : "", c->symbols[s]);
        mm__sb_printf(cf, "\n");
    }
    for (int s = 0; s < c->n_synthetic; s++)
        mm__sb_printf(cf, "%s%s%s", s ? ", " : "synthetic = ", c->synthetic[s],
                      s + 1 == c->n_synthetic ? "\n" : "");
    mm__sb_printf(cf, "\n[grid]\n");
    for (int i = 0; i < c->n_grid; i++)
        mm__sb_printf(cf, "%s = %s\n", c->grid[i].key, c->grid[i].val);
    mm__sb_printf(cf, "\n[params]\n");
    for (int k = 0; k < mm_params_key_count(); k++) {
        const char *key = mm_params_key_name(k, NULL);
        int on_axis = 0;
        for (int i = 0; i < c->n_grid; i++)
            on_axis |= !strcmp(c->grid[i].key, key);
        if (on_axis) continue;
        char buf[64];
        mm_params_get(mm_grid_base(g), key, buf, sizeof buf);
        mm__sb_printf(cf, "%s = %s\n", key, buf);
    }
    mm__sb_printf(cf,
                  "\n[run]\nengine = %s\nworkers = %d\nchunk = %" PRId64 "\nseed = %" PRIu64
                  "\nobjective = %s\n",
                  mm_sweep_engine_name(o->engine), o->workers, o->chunk, o->seed, obj_text);
    char year[32];
    mm__sb_printf(cf,
                  "sample_ns = %" PRId64 "\nyear_seconds = %s\nmarkout_ns = %" PRId64 ",%" PRId64
                  ",%" PRId64 "\n",
                  o->sim.sample_ns, cli_fmt_shortest(o->sim.year_s, year, sizeof year),
                  o->sim.markout_ns[0], o->sim.markout_ns[1], o->sim.markout_ns[2]);
    if (c->latency_series) mm__sb_printf(cf, "latency_series = %s\n", c->latency_series);
    if (c->latency_samples) mm__sb_printf(cf, "latency_samples = %s\n", c->latency_samples);
    if (o->paths > 1)
        mm__sb_printf(cf, "paths = %" PRId64 "\nkeep_paths = %d\n", o->paths, o->keep_paths);
    if (o->blocks > 0) mm__sb_printf(cf, "blocks = %" PRId32 "\n", o->blocks);
    if (o->block_ns > 0) mm__sb_printf(cf, "block_ns = %" PRId64 "\n", o->block_ns);
}

/* "path#symbol", heap-allocated (NULL when out of memory). */
static char *join_hash(const char *path, const char *sym)
{
    size_t n = strlen(path) + strlen(sym) + 2;
    char *r = malloc(n);
    if (r) snprintf(r, n, "%s#%s", path, sym);
    return r;
}

static int push_tape(char ***tapes, int *nt, int *cap, char *name)
{
    if (!name) return -1;
    if (*nt == *cap) {
        char **p =
            *cap < (1 << 26) ? realloc(*tapes, (size_t)(*cap ? 2 * *cap : 16) * sizeof *p) : NULL;
        if (!p) {
            free(name);
            return -1;
        }
        *tapes = p;
        *cap = *cap ? 2 * *cap : 16;
    }
    (*tapes)[(*nt)++] = name;
    return 0;
}

int sweep_set_tapes(const char *C, const cli_sweep_config *c, mm_grid *g, int *multi,
                    mm_gen_params **syn, const mm_gen_params ***syn_ptr)
{
    char **tapes = NULL;
    int nt = 0, cap = 0, rc = 0;
    mm_error e = {0};
    for (int f = 0; f < c->n_files && rc == 0; f++) {
        int count = c->n_symbols;
        char(*syms)[MM_SYMBOL_MAX] = NULL;
        if (!c->n_symbols) {
            /* Room for 16 symbols first: a second listing (the file opened again) only for more. */
            int room = 16;
            for (;;) {
                if (!(syms = calloc((size_t)room, MM_SYMBOL_MAX))) {
                    cli_err("%s: out of memory for the list of instruments", C);
                    rc = MM_EXIT_RUNTIME;
                    break;
                }
                if (mm_ticks_list(c->files[f], syms, room, &count, &e)) {
                    rc = cli_fail(&e);
                    break;
                }
                if (count <= room) break;
                free(syms);
                syms = NULL;
                room = count;
            }
            if (rc) {
                free(syms);
                break;
            }
            *multi |= count > 1;
        }
        for (int s = 0; s < count && rc == 0; s++)
            if (push_tape(&tapes, &nt, &cap,
                          join_hash(c->files[f], syms ? syms[s] : c->symbols[s])))
                rc = MM_EXIT_RUNTIME, cli_err("%s: out of memory for the list of tapes", C);
        free(syms);
    }
    if (rc == 0 && c->n_synthetic) {
        *syn = calloc((size_t)c->n_synthetic, sizeof **syn);
        *syn_ptr = calloc((size_t)(nt + c->n_synthetic), sizeof **syn_ptr);
        if (!*syn || !*syn_ptr) rc = MM_EXIT_RUNTIME, cli_err("%s: out of memory", C);
    }
    for (int k = 0; k < c->n_synthetic && rc == 0; k++) {
        FILE *f = fopen(c->synthetic[k], "r");
        if (!f) {
            cli_err("%s: --synthetic %s: %s", C, c->synthetic[k], strerror(errno));
            rc = MM_EXIT_RUNTIME;
            break;
        }
        fclose(f);
        if ((rc = cli_gen_config(C, "--synthetic", c->synthetic[k], &(*syn)[k]))) break;
        (*syn_ptr)[nt] = &(*syn)[k];
        if (push_tape(&tapes, &nt, &cap, join_hash(c->synthetic[k], (*syn)[k].symbol)))
            rc = MM_EXIT_RUNTIME, cli_err("%s: out of memory for the list of tapes", C);
    }
    if (rc == 0 && mm_grid_set_tapes(g, (const char *const *)tapes, nt, &e)) rc = cli_fail(&e);
    for (int i = 0; i < nt; i++)
        free(tapes[i]);
    free(tapes);
    return rc;
}

void sweep_side_free(sweep_side *s)
{
    free(s->roles);
    free(s->paths);
    free(s->xxh3);
    memset(s, 0, sizeof *s);
}

int sweep_side_inputs(const char *C, const cli_sweep_config *c, const char *const *configs,
                      int n_configs, sweep_side *s)
{
    memset(s, 0, sizeof *s);
    size_t cap = (size_t)n_configs + (size_t)c->n_synthetic + 2;
    s->roles = calloc(cap, sizeof *s->roles);
    s->paths = calloc(cap, sizeof *s->paths);
    s->xxh3 = calloc(cap, sizeof *s->xxh3);
    if (!s->roles || !s->paths || !s->xxh3) {
        sweep_side_free(s);
        cli_err("%s: out of memory (the list of inputs)", C);
        return MM_EXIT_RUNTIME;
    }
    for (int i = 0; i < n_configs; i++)
        s->roles[s->n] = "config", s->paths[s->n++] = configs[i];
    if (c->latency_series) s->roles[s->n] = "latency_series", s->paths[s->n++] = c->latency_series;
    if (c->latency_samples)
        s->roles[s->n] = "latency_samples", s->paths[s->n++] = c->latency_samples;
    for (int i = 0; i < c->n_synthetic; i++)
        s->roles[s->n] = "synthetic", s->paths[s->n++] = c->synthetic[i];
    for (int32_t i = 0; i < s->n; i++) {
        int r = cli_file_xxh3(s->paths[i], &s->xxh3[i]);
        if (r) {
            const char *flag = !strcmp(s->roles[i], "config")            ? "--config"
                               : !strcmp(s->roles[i], "latency_series")  ? "--latency-series"
                               : !strcmp(s->roles[i], "latency_samples") ? "--latency-samples"
                                                                         : "--synthetic";
            cli_err("%s: %s %s: %s", C, flag, s->paths[i], strerror(-r));
            sweep_side_free(s);
            return MM_EXIT_RUNTIME;
        }
    }
    return 0;
}

/* ---- the inputs and the grid (cmd_sweep.c's steps before the run) ---- */

int sweep_check_output(const char *C, const cli_sweep_config *c, const char *const *configs,
                       int n_configs, int replace, int resume)
{
    /* Never an input (a tick file, a config file, a latency file, a synthetic market), never a
     * directory or a file of another kind (before any work). */
    const char **inputs =
        calloc((size_t)(c->n_files + c->n_synthetic + n_configs) + 3, sizeof *inputs);
    if (!inputs) {
        cli_err("%s: out of memory for the list of inputs", C);
        return MM_EXIT_RUNTIME;
    }
    int n_in = 0;
    for (int i = 0; i < c->n_files; i++)
        inputs[n_in++] = c->files[i];
    for (int i = 0; i < n_configs; i++)
        inputs[n_in++] = configs[i];
    if (c->latency_series) inputs[n_in++] = c->latency_series;
    if (c->latency_samples) inputs[n_in++] = c->latency_samples;
    for (int i = 0; i < c->n_synthetic; i++)
        inputs[n_in++] = c->synthetic[i];
    int bad = cli_check_output(C, "-o", c->output, inputs, n_in) ||
              cli_check_h5_kind(C, "-o", c->output, "mmsim-results/", "results file") ||
              sweep_check_overwrite(C, c->output, replace, resume);
    free(inputs);
    return bad ? MM_EXIT_USAGE : 0;
}

int sweep_read_latency(const cli_sweep_config *c, mm_latency_series *lat, mm_latency_samples *smp,
                       mm_sweep_opts *o)
{
    mm_error le = {0};
    if (c->latency_series) {
        if (mm_latency_read_csv(c->latency_series, lat, &le)) return cli_fail(&le);
        o->sim.latency = lat;
    }
    if (c->latency_samples) {
        if (mm_latency_samples_read_csv(c->latency_samples, smp, &le)) return cli_fail(&le);
        o->sim.latency_samples = smp;
    }
    return 0;
}

/* A grid or parameter error, named by where the key came from: "--grid spread: ..." or "f.ini:4:
 * spread: ...", with hint (may be "") after the library's message. */
static int origin_fail(const char *C, const char *origin, const mm_error *e, const char *hint)
{
    cli_err("%s: %s%s%s%s", C, origin, origin[0] == '-' ? " " : ": ", e->msg, hint);
    return e->code == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
}

int sweep_grid_keys(const char *C, const cli_sweep_config *c, mm_grid *g)
{
    mm_error e = {0};
    for (int i = 0; i < c->n_grid; i++)
        if (mm_grid_add_axis(g, c->grid[i].key, c->grid[i].val, &e)) {
            /* The library says "KEY: unknown key"; the CLI says where the keys are listed. */
            int unknown =
                strcmp(c->grid[i].key, "tape") && mm_params_key_kind(c->grid[i].key, NULL) < 0;
            char hint[160] = "";
            if (unknown) sweep_key_hint(c->grid[i].key, hint, sizeof hint);
            return origin_fail(C, c->grid[i].origin, &e, hint);
        }
    for (int i = 0; i < c->n_sets; i++) {
        /* A fixed number is decimal and complete, as an axis value is (grid.c checks those). */
        int kind = mm_params_key_kind(c->sets[i].key, NULL);
        if (kind >= 0 && kind != MM_KEY_ENUM &&
            !cli_is_decimal(c->sets[i].val, kind == MM_KEY_INT)) {
            e.code = MM_EUSAGE;
            snprintf(e.msg, sizeof e.msg, "%s: '%s' is not a decimal %s", c->sets[i].key,
                     c->sets[i].val, kind == MM_KEY_INT ? "integer" : "number");
            return origin_fail(C, c->sets[i].origin, &e, "");
        }
        if (mm_grid_set(g, c->sets[i].key, c->sets[i].val, &e)) {
            char hint[160] = "";
            if (kind < 0) sweep_key_hint(c->sets[i].key, hint, sizeof hint);
            return origin_fail(C, c->sets[i].origin, &e, hint);
        }
    }
    return 0;
}
