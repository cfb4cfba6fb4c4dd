/* The configuration of `mmsim sweep`: an INI file (docs/sweep.md "Config file") and the
 * command-line flags that add to it or override it, gathered as text before anything is parsed into
 * numbers.
 *
 * No globals, no output, no exit(): every failure is a return code and one line of text in c->err,
 * so a fuzz target can link this file alone (with src/core/mm_error.c for mm_strerror if it wants
 * it). */
#ifndef MM_SWEEP_CONFIG_H
#define MM_SWEEP_CONFIG_H

#include <stddef.h>

/* One key = value, with where it came from ("sweep.ini:12" or "--grid") for messages. */
typedef struct cli_kv {
    char *key, *val, *origin;
} cli_kv;

typedef struct cli_sweep_config {
    char **files; /* [input] files, then the positional arguments */
    int n_files, cap_files;
    char **symbols; /* [input] symbols, then --symbol */
    int n_symbols, cap_symbols;
    char *
        *synthetic; /* [input] synthetic, then --synthetic: market INI files (mmsim gen --config) */
    int n_synthetic, cap_synthetic;
    cli_kv *grid; /* [grid] and --grid: axes, in the order given */
    int n_grid, cap_grid;
    cli_kv *sets; /* [params] and --set: fixed values */
    int n_sets, cap_sets;
    /* [run] settings as text (NULL: not given); a flag replaces the file's value. */
    char *engine, *workers, *chunk, *seed, *objective, *output, *sample_ns, *year_s, *markout_ns,
        *latency_series, *latency_samples, *paths, *keep_paths, *stall_s, *blocks, *block_ns;
    cli_kv *seen; /* every key read from INI files so far ("section.key" -> "FILE:LINE") */
    int n_seen, cap_seen;
    char err[1024]; /* the message of the last failure */
} cli_sweep_config;

/* Upper bound on the size of a config file (a larger file is refused with a message). */
#define CLI_SWEEP_CONFIG_MAX_BYTES (16 << 20)

void cli_sweep_config_init(cli_sweep_config *c);
void cli_sweep_config_free(cli_sweep_config *c);

/* Parse INI text (len bytes, need not be NUL-terminated) into c; name names it in messages. Lines
 * have no length limit. Syntax: '[section]' lines; 'key = value' (or 'key: value') lines; blank
 * lines and lines starting with ';' or '#' are skipped; ' ;' (a ';' after a space or tab) starts a
 * comment to the end of the line; leading and trailing blanks are dropped; a UTF-8 byte-order mark
 * is skipped. Sections: [input] (files, symbols, synthetic: comma lists), [grid] and [params] (any
 * key: checked later by the grid), [run] (engine, workers, chunk, seed, objective, output,
 * sample_ns, year_seconds, markout_ns, latency_series, latency_samples, paths, keep_paths,
 * stall_s, blocks, block_ns). A key given twice in any section (also across several files) is an
 * error. Returns 0, MM_EUSAGE with c->err = "NAME:LINE: what" (a syntax error, unknown section or
 * key, repeated key, NUL byte), or -ENOMEM. */
int cli_sweep_config_parse_mem(cli_sweep_config *c, const char *text, size_t len, const char *name);

/* Read the file at path and parse it as above. Also MM_EUSAGE with c->err = "PATH: <why>" when it
 * cannot be read (missing, a directory, unreadable, larger than CLI_SWEEP_CONFIG_MAX_BYTES). */
int cli_sweep_config_parse_file(cli_sweep_config *c, const char *path);

/* Command-line additions. Append a file or symbol (0 or -ENOMEM). */
int cli_sweep_config_add_file(cli_sweep_config *c, const char *path);
int cli_sweep_config_add_symbol(cli_sweep_config *c, const char *sym);
int cli_sweep_config_add_synthetic(cli_sweep_config *c, const char *path);

/* --grid key=value / --set key=value (flag: "--grid" or "--set"; arg: "key=value"). The flag
 * replaces the same key taken from a config file, in [grid] or [params] (flags override the file);
 * a key given twice on the command line, or both as --grid and --set, is MM_EUSAGE with c->err
 * naming the key. */
int cli_sweep_config_add_flag_kv(cli_sweep_config *c, const char *flag, const char *arg);

/* A [run] setting from a flag ("engine", ..., "markout_ns"): replaces the file's value. 0 or
 * -ENOMEM. */
int cli_sweep_config_set_run(cli_sweep_config *c, const char *key, const char *value);

/* After everything was added: a key both an axis and a fixed value is MM_EUSAGE naming the key and
 * where each came from. */
int cli_sweep_config_check(cli_sweep_config *c);

#endif
