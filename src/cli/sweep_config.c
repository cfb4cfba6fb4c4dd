/* The configuration of `mmsim sweep`: INI files and flags, gathered as text (sweep_config.h).
 *
 * The INI reader is our own, not libinih: Debian's libinih fixes its line length at build time (200
 * bytes) and reports a longer line as a syntax error on the line after it, and its continuation
 * lines (an indented line continues the previous key) turn an indented 'key = value' into part of
 * the previous value. Here a line has no length limit, every error names its own line, and
 * indentation means nothing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_keys.h"
#include "mmsim/mmsim.h"
#include "sweep_config.h"

static int fail(cli_sweep_config *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(cli_sweep_config *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

static int oom(cli_sweep_config *c)
{
    return fail(c, -ENOMEM, "out of memory");
}

/* Make room for one more element in *arr (n used, *cap allocated, elements of size sz). */
static int grow(void **arr, int n, int *cap, size_t sz)
{
    if (n < *cap) return 0;
    if (*cap > (1 << 28)) return -ENOMEM;
    int nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*arr, (size_t)nc * sz);
    if (!p) return -ENOMEM;
    *arr = p;
    *cap = nc;
    return 0;
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* A copy of s[0..n) without leading and trailing blanks (NULL when out of memory). */
static char *trimdup(const char *s, size_t n)
{
    while (n && is_blank(*s))
        s++, n--;
    while (n && is_blank(s[n - 1]))
        n--;
    return strndup(s, n);
}

void cli_sweep_config_init(cli_sweep_config *c)
{
    memset(c, 0, sizeof *c);
}

static void kv_free(cli_kv *kv)
{
    free(kv->key);
    free(kv->val);
    free(kv->origin);
    kv->key = kv->val = kv->origin = NULL;
}

void cli_sweep_config_free(cli_sweep_config *c)
{
    for (int i = 0; i < c->n_files; i++)
        free(c->files[i]);
    for (int i = 0; i < c->n_symbols; i++)
        free(c->symbols[i]);
    for (int i = 0; i < c->n_synthetic; i++)
        free(c->synthetic[i]);
    free(c->synthetic);
    for (int i = 0; i < c->n_grid; i++)
        kv_free(&c->grid[i]);
    for (int i = 0; i < c->n_sets; i++)
        kv_free(&c->sets[i]);
    for (int i = 0; i < c->n_seen; i++)
        kv_free(&c->seen[i]);
    free(c->files);
    free(c->symbols);
    free(c->grid);
    free(c->sets);
    free(c->seen);
    char *s[] = {c->engine,     c->workers,        c->chunk,           c->seed,
                 c->objective,  c->output,         c->sample_ns,       c->year_s,
                 c->markout_ns, c->latency_series, c->latency_samples, c->paths,
                 c->keep_paths, c->stall_s,        c->blocks,          c->block_ns};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        free(s[i]);
    memset(c, 0, sizeof *c);
}

/* Append a string (taking ownership of v; freed on failure). */
static int push_str(char ***arr, int *n, int *cap, char *v)
{
    if (!v || grow((void **)arr, *n, cap, sizeof **arr)) {
        free(v);
        return -ENOMEM;
    }
    (*arr)[(*n)++] = v;
    return 0;
}

static int push_kv(cli_kv **arr, int *n, int *cap, const char *key, const char *val,
                   const char *origin)
{
    if (grow((void **)arr, *n, cap, sizeof **arr)) return -ENOMEM;
    cli_kv kv = {strdup(key), strdup(val), strdup(origin)};
    if (!kv.key || !kv.val || !kv.origin) {
        kv_free(&kv);
        return -ENOMEM;
    }
    (*arr)[(*n)++] = kv;
    return 0;
}

static int find_kv(const cli_kv *arr, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(arr[i].key, key)) return i;
    return -1;
}

static void remove_kv(cli_kv *arr, int *n, int i)
{
    kv_free(&arr[i]);
    memmove(&arr[i], &arr[i + 1], (size_t)(*n - i - 1) * sizeof *arr);
    (*n)--;
}

/* Split a comma list and append its non-empty items (blanks around each item dropped). */
static int split_list(const char *s, char ***out, int *n, int *cap)
{
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *v = trimdup(p, len);
        if (!v) return -ENOMEM;
        if (*v) {
            if (push_str(out, n, cap, v)) return -ENOMEM;
        } else {
            free(v);
        }
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

int cli_sweep_config_add_file(cli_sweep_config *c, const char *path)
{
    return push_str(&c->files, &c->n_files, &c->cap_files, strdup(path)) ? oom(c) : 0;
}

int cli_sweep_config_add_synthetic(cli_sweep_config *c, const char *path)
{
    return push_str(&c->synthetic, &c->n_synthetic, &c->cap_synthetic, strdup(path)) ? oom(c) : 0;
}

int cli_sweep_config_add_symbol(cli_sweep_config *c, const char *sym)
{
    return push_str(&c->symbols, &c->n_symbols, &c->cap_symbols, strdup(sym)) ? oom(c) : 0;
}

static const char *const RUN_KEYS[] = {
    "engine",     "workers",      "chunk",      "seed",           "objective",       "output",
    "sample_ns",  "year_seconds", "markout_ns", "latency_series", "latency_samples", "paths",
    "keep_paths", "stall_s",      "blocks",     "block_ns"};
#define N_RUN_KEYS (sizeof RUN_KEYS / sizeof RUN_KEYS[0])

static char **run_slot(cli_sweep_config *c, const char *key)
{
    char **slots[N_RUN_KEYS] = {
        &c->engine,     &c->workers,        &c->chunk,           &c->seed,
        &c->objective,  &c->output,         &c->sample_ns,       &c->year_s,
        &c->markout_ns, &c->latency_series, &c->latency_samples, &c->paths,
        &c->keep_paths, &c->stall_s,        &c->blocks,          &c->block_ns};
    for (size_t i = 0; i < N_RUN_KEYS; i++)
        if (!strcmp(key, RUN_KEYS[i])) return slots[i];
    return NULL;
}

int cli_sweep_config_set_run(cli_sweep_config *c, const char *key, const char *value)
{
    char **dst = run_slot(c, key);
    if (!dst) return fail(c, MM_EUSAGE, "%s: not a [run] setting", key);
    char *v = strdup(value);
    if (!v) return oom(c);
    free(*dst);
    *dst = v;
    return 0;
}

int cli_sweep_config_add_flag_kv(cli_sweep_config *c, const char *flag, const char *arg)
{
    int is_grid = !strcmp(flag, "--grid");
    const char *eq = strchr(arg, '=');
    if (!eq) return fail(c, MM_EUSAGE, "%s: '%s' must be key=value", flag, arg);
    char *key = trimdup(arg, (size_t)(eq - arg));
    if (!key) return oom(c);
    int rc = 0;
    char canon[256];
    if (strlen(key) < sizeof canon) { /* inv-limit is inv_limit, half_spread is spread */
        cli_key_canon(key, canon, sizeof canon);
        char *k2 = strdup(canon);
        if (!k2) {
            free(key);
            return oom(c);
        }
        free(key);
        key = k2;
    }
    if (!*key) {
        rc = fail(c, MM_EUSAGE, "%s: '%s' must be key=value", flag, arg);
        goto out;
    }
    /* A flag overrides the config file's value of the same key (in either section); a key given by
     * two flags is an error. */
    for (int pass = 0; pass < 2; pass++) {
        cli_kv *arr = pass == 0 ? c->grid : c->sets;
        int *n = pass == 0 ? &c->n_grid : &c->n_sets;
        int i = find_kv(arr, *n, key);
        if (i < 0) continue;
        if (arr[i].origin[0] == '-') {
            if (!strcmp(arr[i].origin, flag))
                rc = fail(c, MM_EUSAGE, "%s %s: key given twice", flag, key);
            else
                rc = fail(c, MM_EUSAGE, "%s %s: key given both as --grid and as --set", flag, key);
            goto out;
        }
        remove_kv(arr, n, i);
    }
    char *val = trimdup(eq + 1, strlen(eq + 1));
    if (!val) {
        rc = oom(c);
        goto out;
    }
    if (is_grid)
        rc = push_kv(&c->grid, &c->n_grid, &c->cap_grid, key, val, flag);
    else
        rc = push_kv(&c->sets, &c->n_sets, &c->cap_sets, key, val, flag);
    free(val);
    if (rc) rc = oom(c);
out:
    free(key);
    return rc;
}

int cli_sweep_config_check(cli_sweep_config *c)
{
    for (int i = 0; i < c->n_grid; i++) {
        int j = find_kv(c->sets, c->n_sets, c->grid[i].key);
        if (j >= 0)
            return fail(c, MM_EUSAGE, "%s: both an axis (%s) and a fixed value (%s)",
                        c->grid[i].key, c->grid[i].origin, c->sets[j].origin);
    }
    return 0;
}

/* One 'key = value' of section sec, read at where ("FILE:LINE"). */
static int on_key(cli_sweep_config *c, const char *sec, const char *key_as_written, const char *val,
                  const char *where)
{
    /* Keys have one canonical spelling: sample-ns is sample_ns, inv-limit is inv_limit. A key too
     * long for the buffer is kept as written (it names nothing and is refused below or later). */
    char canon[256];
    const char *key = key_as_written;
    if (strcmp(sec, "input") && strlen(key) < sizeof canon)
        key = cli_key_canon(key_as_written, canon, sizeof canon);
    /* Every key read from a file is remembered, so a repeat names the line of the first. */
    size_t n = strlen(sec) + strlen(key) + 2;
    char *id = malloc(n);
    if (!id) return oom(c);
    snprintf(id, n, "%s.%s", sec, key);
    int i = find_kv(c->seen, c->n_seen, id);
    if (i >= 0) {
        fail(c, MM_EUSAGE, "%s: [%s] %s: key given twice (first at %s)", where, sec, key,
             c->seen[i].val);
        free(id);
        return MM_EUSAGE;
    }
    int rc = push_kv(&c->seen, &c->n_seen, &c->cap_seen, id, where, where);
    free(id);
    if (rc) return oom(c);

    if (!strcmp(sec, "input")) {
        if (!strcmp(key, "files"))
            return split_list(val, &c->files, &c->n_files, &c->cap_files) ? oom(c) : 0;
        if (!strcmp(key, "symbols"))
            return split_list(val, &c->symbols, &c->n_symbols, &c->cap_symbols) ? oom(c) : 0;
        if (!strcmp(key, "synthetic"))
            return split_list(val, &c->synthetic, &c->n_synthetic, &c->cap_synthetic) ? oom(c) : 0;
        const char *const IN_KEYS[] = {"files", "symbols", "synthetic"};
        const char *hint = cli_suggest(key, IN_KEYS, 3);
        if (hint)
            return fail(c, MM_EUSAGE, "%s: [input] %s: unknown key (did you mean %s?)", where, key,
                        hint);
    } else if (!strcmp(sec, "grid") || !strcmp(sec, "params")) {
        int g = sec[0] == 'g';
        if (g)
            rc = push_kv(&c->grid, &c->n_grid, &c->cap_grid, key, val, where);
        else
            rc = push_kv(&c->sets, &c->n_sets, &c->cap_sets, key, val, where);
        return rc ? oom(c) : 0;
    } else if (!strcmp(sec, "run")) {
        if (run_slot(c, key)) return cli_sweep_config_set_run(c, key, val);
        const char *hint = cli_suggest(key, RUN_KEYS, (int)N_RUN_KEYS);
        if (hint)
            return fail(c, MM_EUSAGE, "%s: [run] %s: unknown key (did you mean %s?)", where, key,
                        hint);
    }
    return fail(c, MM_EUSAGE, "%s: [%s] %s: unknown key", where, sec, key);
}

static int known_section(const char *s)
{
    return !strcmp(s, "input") || !strcmp(s, "grid") || !strcmp(s, "params") || !strcmp(s, "run");
}

int cli_sweep_config_parse_mem(cli_sweep_config *c, const char *text, size_t len, const char *name)
{
    char *sec = NULL;
    char *line = NULL;
    int rc = 0;
    size_t pos = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) pos = 3;
    for (long lineno = 1; pos < len && rc == 0; lineno++) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        if (memchr(s, 0, n)) {
            rc = fail(c, MM_EUSAGE, "%s:%ld: a NUL byte in the line (not a text file?)", name,
                      lineno);
            break;
        }
        free(line);
        line = trimdup(s, n);
        if (!line) {
            rc = oom(c);
            break;
        }
        if (!line[0] || line[0] == ';' || line[0] == '#') continue;
        /* An inline comment: ';' after a blank, as libinih has it. */
        for (char *p = line + 1; *p; p++)
            if (*p == ';' && is_blank(p[-1])) {
                *p = 0;
                break;
            }
        size_t l = strlen(line);
        while (l && is_blank(line[l - 1]))
            line[--l] = 0;
        char where[64];
        snprintf(where, sizeof where, "%ld", lineno);
        size_t wn = strlen(name) + strlen(where) + 2;
        char *at = malloc(wn);
        if (!at) {
            rc = oom(c);
            break;
        }
        snprintf(at, wn, "%s:%s", name, where);
        if (line[0] == '[') {
            char *close = strchr(line, ']');
            if (!close || close[1]) {
                rc = fail(c, MM_EUSAGE, "%s: '%s' is not a section header [name]", at, line);
            } else {
                free(sec);
                sec = trimdup(line + 1, (size_t)(close - line - 1));
                if (!sec)
                    rc = oom(c);
                else if (!known_section(sec))
                    rc = fail(c, MM_EUSAGE, "%s: unknown section [%s] (input, grid, params or run)",
                              at, sec);
            }
        } else {
            char *sep = strpbrk(line, "=:");
            if (!sep) {
                rc = fail(c, MM_EUSAGE, "%s: '%s' is not key = value", at, line);
            } else {
                char *key = trimdup(line, (size_t)(sep - line));
                char *val = trimdup(sep + 1, strlen(sep + 1));
                if (!key || !val)
                    rc = oom(c);
                else if (!*key)
                    rc = fail(c, MM_EUSAGE, "%s: '%s' has no key before '%c'", at, line, *sep);
                else if (!sec)
                    rc = fail(c, MM_EUSAGE, "%s: %s: key outside a section", at, key);
                else
                    rc = on_key(c, sec, key, val, at);
                free(key);
                free(val);
            }
        }
        free(at);
    }
    free(line);
    free(sec);
    return rc;
}

int cli_sweep_config_parse_file(cli_sweep_config *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return fail(c, MM_EUSAGE, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(c, MM_EUSAGE, "%s: is a directory, not a config file", path);
    FILE *f = fopen(path, "rb");
    if (!f) return fail(c, MM_EUSAGE, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len > CLI_SWEEP_CONFIG_MAX_BYTES) {
            rc = fail(c, MM_EUSAGE, "%s: larger than %d MiB: not a config file", path,
                      CLI_SWEEP_CONFIG_MAX_BYTES >> 20);
            goto out;
        }
        if (len == cap) {
            size_t nc = cap ? cap * 2 : 4096;
            if (nc > (size_t)CLI_SWEEP_CONFIG_MAX_BYTES + 1)
                nc = (size_t)CLI_SWEEP_CONFIG_MAX_BYTES + 1;
            char *p = realloc(buf, nc + 1);
            if (!p) {
                rc = oom(c);
                goto out;
            }
            buf = p;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        rc = fail(c, MM_EUSAGE, "%s: %s", path, strerror(errno ? errno : EIO));
        goto out;
    }
    rc = cli_sweep_config_parse_mem(c, buf ? buf : "", len, path);
out:
    free(buf);
    fclose(f);
    return rc;
}
