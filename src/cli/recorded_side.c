/* The inputs a results file records, found where they are now and known by their content
 * (recorded.h; docs/results.md, "Side inputs" and "Reruns"). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "recorded.h"
#include "sweep_config.h"

const char *cli_recorded_path(const char *p, const char *results_path, const char *data, char *buf,
                              size_t cap)
{
    struct stat st;
    if (data) {
        const char *base = strrchr(p, '/');
        snprintf(buf, cap, "%s/%s", data, base ? base + 1 : p);
        return buf;
    }
    const char *slash = strrchr(results_path, '/');
    if (p[0] != '/' && stat(p, &st) != 0 && slash) {
        snprintf(buf, cap, "%.*s/%s", (int)(slash - results_path), results_path, p);
        if (stat(buf, &st) == 0) return buf;
    }
    return p;
}

const char *cli_side_role_name(const char *role)
{
    static const char *const NAMES[][2] = {{"latency_series", "latency series"},
                                           {"latency_samples", "latency samples"},
                                           {"synthetic", "synthetic market"},
                                           {"config", "config file"}};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (!strcmp(role, NAMES[i][0])) return NAMES[i][1];
    return role;
}

/* The record of side input (role, recorded path), or -1 (a file from before side inputs). */
static int32_t side_find(const mm_results_info *in, const char *role, const char *recorded)
{
    for (int32_t i = 0; i < in->meta.n_side; i++)
        if (!strcmp(in->meta.side_roles[i], role) && !strcmp(in->meta.side_paths[i], recorded))
            return i;
    return -1;
}

/* The places a recorded path may be now, in the order they are tried: DIR/<file name> with --data;
 * else the path as recorded (a relative one from the working folder) and, for a relative path, the
 * same path beside the results file. Returns how many (1 or 2), written into c[0..) (cap bytes
 * each). */
static int candidates(const char *recorded, const char *results_path, const char *data,
                      char c[2][4096])
{
    if (data) {
        const char *base = strrchr(recorded, '/');
        snprintf(c[0], 4096, "%s/%s", data, base ? base + 1 : recorded);
        return 1;
    }
    snprintf(c[0], 4096, "%s", recorded);
    const char *slash = strrchr(results_path, '/');
    if (recorded[0] == '/' || !slash) return 1;
    snprintf(c[1], 4096, "%.*s/%s", (int)(slash - results_path), results_path, recorded);
    return 2;
}

int cli_recorded_side(const char *C, const mm_results_info *in, const char *results_path,
                      const char *data, const char *role, const char *recorded, char *buf,
                      size_t cap)
{
    char c[2][4096];
    int n = candidates(recorded, results_path, data, c);
    int32_t k = side_find(in, role, recorded);
    const char *what = cli_side_role_name(role);
    int first_seen = -1;
    uint64_t seen_hash = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(c[i], &st) != 0) continue;
        if (k < 0) { /* no record: the first that exists, as before side inputs */
            snprintf(buf, cap, "%s", c[i]);
            return 0;
        }
        uint64_t h = 0;
        int r = cli_file_xxh3(c[i], &h);
        if (r) {
            if (C)
                cli_err("%s: the %s %s (recorded in %s): %s", C, what, c[i], results_path,
                        strerror(-r));
            return -1;
        }
        if (h == in->meta.side_xxh3[k]) {
            snprintf(buf, cap, "%s", c[i]);
            return 0;
        }
        if (first_seen < 0) first_seen = i, seen_hash = h;
    }
    if (!C) return -1;
    if (first_seen >= 0)
        cli_err("%s: the %s %s (recorded in %s as %s) has changed since the sweep read it: xxh3 "
                "%016" PRIx64 " now, %016" PRIx64 " then",
                C, what, c[first_seen], results_path, recorded, seen_hash, in->meta.side_xxh3[k]);
    else if (n == 2)
        cli_err("%s: the %s %s (recorded in %s) is not found: looked for %s and %s", C, what,
                recorded, results_path, c[0], c[1]);
    else
        cli_err("%s: the %s %s (recorded in %s) is not found: looked for %s", C, what, recorded,
                results_path, c[0]);
    return -1;
}

void cli_recorded_note(const mm_results_info *in, const char *results_path, const char *data)
{
    char origin[4200], c[2][4096];
    cli_input(results_path, NULL);
    snprintf(origin, sizeof origin, "recorded in %s", results_path);
    for (int32_t i = 0; i < in->meta.n_inputs; i++) {
        int n = candidates(in->meta.input_paths[i], results_path, data, c);
        for (int j = 0; j < n; j++)
            cli_input(c[j], origin);
    }
    for (int32_t i = 0; i < in->meta.n_side; i++) {
        int n = candidates(in->meta.side_paths[i], results_path, data, c);
        for (int j = 0; j < n; j++)
            cli_input(c[j], origin);
    }
}

int cli_recorded_check_inputs(const char *C, const mm_results_info *in, const char *results_path,
                              const char *data, int print_ok, int *checked)
{
    int bad = 0, n = 0;
    char buf[4096];
    cli_sweep_config sc;
    cli_sweep_config_init(&sc);
    const char *text = in->meta.config_text ? in->meta.config_text : "";
    if (cli_sweep_config_parse_mem(&sc, text, strlen(text), "recorded configuration")) {
        cli_err("%s: %s: its configuration cannot be read: %s", C, results_path, sc.err);
        cli_sweep_config_free(&sc);
        return 1;
    }
    for (int32_t i = 0; i < in->meta.n_inputs; i++) {
        /* A synthetic market is a side input (below): its tape is a day generated from it. */
        int syn = 0;
        for (int k = 0; k < sc.n_synthetic; k++)
            syn |= !strcmp(sc.synthetic[k], in->meta.input_paths[i]);
        if (syn) continue;
        n++;
        const char *p =
            cli_recorded_path(in->meta.input_paths[i], results_path, data, buf, sizeof buf);
        const char *sym = in->meta.input_symbols[i];
        mm_ticks t = {0};
        mm_error e = {0};
        if (mm_ticks_load(p, sym && sym[0] ? sym : NULL, 0, &t, &e)) {
            cli_err("%s: the tape %s#%s (recorded in %s as %s): %s", C, p, sym ? sym : "",
                    results_path, in->meta.input_paths[i], e.msg[0] ? e.msg : mm_strerror(e.code));
            bad++;
        } else if (t.inst.fingerprint != in->meta.input_fingerprints[i]) {
            cli_err("%s: the tape %s#%s (recorded in %s) has changed since the sweep read it: "
                    "fingerprint %016" PRIx64 " now, %016" PRIx64 " then",
                    C, p, t.inst.symbol, results_path, t.inst.fingerprint,
                    in->meta.input_fingerprints[i]);
            bad++;
        } else if (print_ok) {
            printf("%s: tape %s#%s: fingerprint %016" PRIx64 " as recorded\n", C, p, t.inst.symbol,
                   t.inst.fingerprint);
        }
        mm_ticks_free(&t);
    }
    for (int32_t k = 0; k < in->meta.n_side; k++) {
        n++;
        if (cli_recorded_side(C, in, results_path, data, in->meta.side_roles[k],
                              in->meta.side_paths[k], buf, sizeof buf))
            bad++;
        else if (print_ok)
            printf("%s: %s %s: xxh3 %016" PRIx64 " as recorded\n", C,
                   cli_side_role_name(in->meta.side_roles[k]), buf, in->meta.side_xxh3[k]);
    }
    cli_sweep_config_free(&sc);
    if (checked) *checked = n;
    return bad;
}
