/* Fuzz target for the sweep configuration (src/cli/sweep_config.c, docs/sweep.md "Config file"):
 * the INI reader and the flags that add to it. Input: INI text, then optionally a 0x00 byte and
 * command-line additions, one per line: "grid key=value", "set key=value" (as --grid/--set), "run
 * key value" (a [run] flag), "file PATH", "symbol S". Then cli_sweep_config_check, and every axis
 * and fixed value goes into an mm_grid as `mmsim sweep` does. Checked:
 *  - every failure is a non-empty one-line message, a config error starting with the name
 * "fuzz.ini";
 *  - parsing the same text a second time into the same config fails when the first parse read any
 * key (a key given twice across files is an error) and names a line of "again.ini";
 *  - after a successful parse every stored key, value and origin is a string;
 *  - nothing leaks (ASan's leak check) and nothing reads out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"
#include "mmsim/sweep.h"
#include "sweep_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *msg, const char *prefix)
{
    if (!msg[0] || strchr(msg, '\n') ||
        (prefix && strncmp(msg, prefix, strlen(prefix)) && strcmp(msg, "out of memory"))) {
        fprintf(stderr, "fuzz_sweep_config: bad message (want one line starting with %s): '%s'\n",
                prefix ? prefix : "anything", msg);
        abort();
    }
}

static void check_kvs(const cli_kv *kv, int n)
{
    for (int i = 0; i < n; i++)
        if (!kv[i].key || !kv[i].val || !kv[i].origin) abort();
}

/* The command-line part: "grid k=v", "set k=v", "run k v", "file P", "symbol S". */
static int apply_flags(cli_sweep_config *c, char *text)
{
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(l, ' ');
        if (!sp) continue;
        *sp = 0;
        char *arg = sp + 1;
        int rc = 0;
        if (!strcmp(l, "grid") || !strcmp(l, "set")) {
            rc = cli_sweep_config_add_flag_kv(c, l[0] == 'g' ? "--grid" : "--set", arg);
        } else if (!strcmp(l, "run")) {
            char *v = strchr(arg, ' ');
            if (!v) continue;
            *v++ = 0;
            rc = cli_sweep_config_set_run(c, arg, v);
        } else if (!strcmp(l, "file")) {
            rc = cli_sweep_config_add_file(c, arg);
        } else if (!strcmp(l, "symbol")) {
            rc = cli_sweep_config_add_symbol(c, arg);
        }
        if (rc) {
            one_line(c->err, NULL);
            return rc;
        }
    }
    return 0;
}

/* As `mmsim sweep` does: the axes, then the fixed values, into a grid over one tape. */
static void to_grid(const cli_sweep_config *c)
{
    mm_grid *g = NULL;
    const char *tapes[1] = {"fuzz.h5#X"};
    mm_error e = {0};
    if (mm_grid_new(&g, &e) || mm_grid_set_tapes(g, tapes, 1, &e)) abort();
    for (int i = 0; i < c->n_grid && mm_grid_combo_count(g) <= 100000; i++) {
        /* Ranges of more than 10,000 values are legal but slow under the sanitizers (as in
         * fuzz_grid.c). */
        double lo, hi, step;
        if (sscanf(c->grid[i].val, "%lf:%lf:%lf", &lo, &hi, &step) == 3 && step > 0 &&
            (hi - lo) / step > 10000)
            continue;
        memset(&e, 0, sizeof e);
        if (mm_grid_add_axis(g, c->grid[i].key, c->grid[i].val, &e)) one_line(e.msg, NULL);
    }
    for (int i = 0; i < c->n_sets; i++) {
        memset(&e, 0, sizeof e);
        if (mm_grid_set(g, c->sets[i].key, c->sets[i].val, &e)) one_line(e.msg, NULL);
    }
    mm_grid_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536) return 0;
    const uint8_t *nul = memchr(data, 0, size);
    size_t ini_len = nul ? (size_t)(nul - data) : size;
    cli_sweep_config c;
    cli_sweep_config_init(&c);
    int rc = cli_sweep_config_parse_mem(&c, (const char *)data, ini_len, "fuzz.ini");
    if (rc) {
        one_line(c.err, "fuzz.ini");
        cli_sweep_config_free(&c);
        return 0;
    }
    check_kvs(c.grid, c.n_grid);
    check_kvs(c.sets, c.n_sets);
    for (int i = 0; i < c.n_files; i++)
        if (!c.files[i]) abort();
    if (c.n_seen > 0) {
        /* The same keys again, as a second --config file: the first repeated key is an error. */
        cli_sweep_config again;
        cli_sweep_config_init(&again);
        if (cli_sweep_config_parse_mem(&again, (const char *)data, ini_len, "fuzz.ini")) abort();
        int rc2 = cli_sweep_config_parse_mem(&again, (const char *)data, ini_len, "again.ini");
        if (rc2 == 0) {
            fprintf(stderr, "fuzz_sweep_config: the same %d keys read twice were accepted\n",
                    c.n_seen);
            abort();
        }
        one_line(again.err, "again.ini:");
        cli_sweep_config_free(&again);
    }
    if (nul) {
        size_t n = size - ini_len - 1;
        char *flags = malloc(n + 1);
        if (!flags) abort();
        memcpy(flags, nul + 1, n);
        flags[n] = 0;
        rc = apply_flags(&c, flags);
        free(flags);
    }
    if (rc == 0 && (rc = cli_sweep_config_check(&c)) != 0) one_line(c.err, NULL);
    if (rc == 0) {
        check_kvs(c.grid, c.n_grid);
        check_kvs(c.sets, c.n_sets);
        to_grid(&c);
    }
    cli_sweep_config_free(&c);
    return 0;
}
