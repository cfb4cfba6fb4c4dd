/* The CSV points of `mmsim signal` (signal_csv.h). Prints nothing: the command prints messages. */
#include "signal_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

/* Strip a trailing CR/LF; split at the one comma. */
static int split(char *line, char **a, char **b)
{
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = 0;
    char *comma = strchr(line, ',');
    if (!comma || strchr(comma + 1, ',')) return -1;
    *comma = 0;
    *a = line;
    *b = comma + 1;
    return 0;
}

static int parse_value(const char *s, double *v)
{
    if (!mm__is_decimal(s, 0)) return -1;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *end || errno == ERANGE || !isfinite(*v) ? -1 : 0;
}

int signal_csv_read(FILE *f, const char *name, signal_points *p, char *msg, size_t cap)
{
    char *line = NULL;
    size_t lcap = 0;
    int64_t lineno = 0;
    int rc = -1;
    ssize_t got;
    while ((got = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        char *a, *b;
        if ((size_t)got != strlen(line) || split(line, &a, &b)) {
            snprintf(msg, cap, "%s:%" PRId64 ": expected two fields ts_ns,value", name, lineno);
            goto out;
        }
        if (lineno == 1 && !mm__is_decimal(a, 1)) continue; /* a header */
        int64_t ts = 0;
        double v;
        errno = 0;
        if (mm__is_decimal(a, 1)) ts = strtoll(a, NULL, 10);
        if (!mm__is_decimal(a, 1) || errno == ERANGE) {
            snprintf(msg, cap, "%s:%" PRId64 ": ts_ns '%.40s' is not an integer of ns", name,
                     lineno, a);
            goto out;
        }
        if (parse_value(b, &v)) {
            snprintf(msg, cap, "%s:%" PRId64 ": value '%.40s' is not a finite decimal number", name,
                     lineno, b);
            goto out;
        }
        if (p->n > 0 && ts < p->ts[p->n - 1]) {
            snprintf(msg, cap,
                     "%s:%" PRId64 ": ts_ns %" PRId64 " is before the previous line's %" PRId64
                     " (sort the file by time)",
                     name, lineno, ts, p->ts[p->n - 1]);
            goto out;
        }
        if (p->n == p->cap) {
            int64_t nc = p->cap ? 2 * p->cap : 4096;
            int64_t *nt = realloc(p->ts, (size_t)nc * sizeof *nt);
            if (nt) p->ts = nt;
            double *nv = nt ? realloc(p->v, (size_t)nc * sizeof *nv) : NULL;
            if (nv) p->v = nv;
            if (!nt || !nv) {
                snprintf(msg, cap, "%s: out of memory", name);
                goto out;
            }
            p->cap = nc;
        }
        p->ts[p->n] = ts;
        p->v[p->n++] = v;
    }
    if (ferror(f)) {
        snprintf(msg, cap, "%s: read error", name);
        goto out;
    }
    if (p->n == 0) {
        snprintf(msg, cap, "%s: no ts_ns,value lines", name);
        goto out;
    }
    rc = 0;
out:
    free(line);
    return rc;
}

void signal_points_free(signal_points *p)
{
    free(p->ts);
    free(p->v);
    p->ts = NULL;
    p->v = NULL;
    p->n = p->cap = 0;
}
