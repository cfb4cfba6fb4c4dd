/* A recorded latency series from CSV (docs/model.md, section 3.2): a header naming ts_ns,
 * entry_ns and response_ns (in any order, nothing else), then one point per line, integers in ns.
 * Plain or gzip. Every error is one line "PATH:LINE: what". */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mm_internal.h"
#include "mmsim/import.h"
#include "mmsim/sim.h"

#define LAT_MAX_POINTS INT64_C(100000000)

static const char *const COLS[3] = {"ts_ns", "entry_ns", "response_ns"};
static const char *const SAMPLE_COLS[2] = {"entry_ns", "response_ns"};

/* Split line at commas into up to 3 fields; returns the number of fields (4: more than 3). */
static int split3(char *line, size_t len, char *f[3], size_t fl[3])
{
    int n = 0;
    size_t beg = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ',') continue;
        if (n == 3) return 4;
        f[n] = line + beg;
        fl[n] = i - beg;
        n++;
        beg = i + 1;
    }
    return n;
}

/* A decimal integer with an optional leading '-' (so that a negative value gets its own message).
 */
static int parse_int(const char *s, size_t n, int64_t *out)
{
    if (n > 0 && s[0] == '-') {
        if (mm__parse_i64(s + 1, n - 1, out)) return -1;
        *out = -*out;
        return 0;
    }
    return mm__parse_i64(s, n, out);
}

/* The CSV of ncol named columns (cols; a series: cols[0] is "ts_ns", strictly increasing) into
 * col[0..ncol) (n rows, owned by the caller on success). */
static int read_cols(const char *path, const char *const *COLS, int ncol, int series,
                     int64_t *col_out[3], int64_t *n_out, mm_error *err)
{
    mm__lines r;
    int rc = mm__lines_open(&r, path, err);
    if (rc) return rc;
    int64_t *col[3] = {NULL, NULL, NULL};
    int64_t n = 0, cap = 0;
    int map[3] = {-1, -1, -1}; /* map[field] = column of COLS */
    const int all = (1 << ncol) - 1;
    char *line;
    size_t len;
    rc = mm__lines_next(&r, &line, &len, err);
    if (rc == 0) rc = mm__errf(err, MM_EFORMAT, "%s: empty file (want a header line)", path);
    if (rc < 0) goto fail;
    {
        char *f[3];
        size_t fl[3];
        int nf = split3(line, len, f, fl), seen = 0;
        for (int i = 0; i < nf && i < ncol; i++)
            for (int c = 0; c < ncol; c++)
                if (fl[i] == strlen(COLS[c]) && !memcmp(f[i], COLS[c], fl[i]) &&
                    !(seen & (1 << c))) {
                    map[i] = c;
                    seen |= 1 << c;
                }
        if (nf != ncol || seen != all) {
            rc = mm__errf(err, MM_EFORMAT,
                          series ? "%s:1: the header must name the columns ts_ns, entry_ns and "
                                   "response_ns (in any order, nothing else)"
                                 : "%s:1: the header must name the columns entry_ns and "
                                   "response_ns (in any order, nothing else)",
                          path);
            goto fail;
        }
    }
    while ((rc = mm__lines_next(&r, &line, &len, err)) == 1) {
        char *f[3];
        size_t fl[3];
        int nf = split3(line, len, f, fl);
        if (nf != ncol) {
            if (nf > ncol)
                rc = mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": more than %d fields", path,
                              r.lineno, ncol);
            else
                rc = mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": %d fields, want %d", path, r.lineno,
                              nf, ncol);
            goto fail;
        }
        if (n == cap) {
            if (n >= LAT_MAX_POINTS) {
                rc = mm__errf(err, MM_EINVALID, "%s:%" PRId64 ": more than %" PRId64 " points",
                              path, r.lineno, LAT_MAX_POINTS);
                goto fail;
            }
            int64_t nc = cap ? cap * 2 : 1024;
            for (int c = 0; c < ncol; c++) {
                int64_t *p = realloc(col[c], (size_t)nc * sizeof(int64_t));
                if (!p) {
                    rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
                    goto fail;
                }
                col[c] = p;
            }
            cap = nc;
        }
        for (int i = 0; i < ncol; i++) {
            int c = map[i];
            int64_t v;
            if (parse_int(f[i], fl[i], &v)) {
                rc = mm__errf(err, MM_EFORMAT,
                              "%s:%" PRId64 ": column %s: '%.*s' is not a decimal integer", path,
                              r.lineno, COLS[c], (int)(fl[i] > 40 ? 40 : fl[i]), f[i]);
                goto fail;
            }
            if (series && c == 0 && (v < MM_SIM_TS_MIN || v > MM_SIM_TS_MAX)) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": column ts_ns: %" PRId64
                              " is outside [-2^62, 2^62 - 1] ns",
                              path, r.lineno, v);
                goto fail;
            }
            if ((!series || c > 0) && (v < 0 || v > MM_SIM_LATENCY_MAX_NS)) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": column %s: %" PRId64 " must be in [0, 1 h] ns", path,
                              r.lineno, COLS[c], v);
                goto fail;
            }
            col[c][n] = v;
        }
        if (series && n > 0 && col[0][n] <= col[0][n - 1]) {
            rc = mm__errf(err, MM_EINVALID,
                          "%s:%" PRId64 ": column ts_ns: %" PRId64
                          " is not after the previous line's %" PRId64,
                          path, r.lineno, col[0][n], col[0][n - 1]);
            goto fail;
        }
        n++;
    }
    if (rc < 0) goto fail;
    if (n == 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: no points after the header", path);
        goto fail;
    }
    mm__lines_close(&r);
    for (int c = 0; c < 3; c++)
        col_out[c] = col[c];
    *n_out = n;
    return 0;
fail:
    mm__lines_close(&r);
    for (int c = 0; c < 3; c++)
        free(col[c]);
    return rc;
}

int mm_latency_read_csv(const char *path, mm_latency_series *out, mm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!path) return mm__errf(err, -EINVAL, "mm_latency_read_csv: NULL path");
    int64_t *col[3] = {NULL, NULL, NULL}, n = 0;
    int rc = read_cols(path, COLS, 3, 1, col, &n, err);
    if (rc) return rc;
    out->n = n;
    out->ts_ns = col[0];
    out->entry_ns = col[1];
    out->response_ns = col[2];
    return 0;
}

int mm_latency_samples_read_csv(const char *path, mm_latency_samples *out, mm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!path) return mm__errf(err, -EINVAL, "mm_latency_samples_read_csv: NULL path");
    int64_t *col[3] = {NULL, NULL, NULL}, n = 0;
    int rc = read_cols(path, SAMPLE_COLS, 2, 0, col, &n, err);
    if (rc) return rc;
    out->n = n;
    out->entry_ns = col[0];
    out->response_ns = col[1];
    return 0;
}

void mm_latency_samples_free(mm_latency_samples *s)
{
    if (!s) return;
    free((void *)s->entry_ns);
    free((void *)s->response_ns);
    memset(s, 0, sizeof *s);
}

void mm_latency_free(mm_latency_series *s)
{
    if (!s) return;
    free((void *)s->ts_ns);
    free((void *)s->entry_ns);
    free((void *)s->response_ns);
    memset(s, 0, sizeof *s);
}
