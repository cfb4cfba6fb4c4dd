/* Binance capture importer (import_binance.c): times. The capture's clock offset and the check of
 * every exchange time against the time its line was received. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_binance_int.h"
#include "mm_internal.h"

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Exchange time - receive time, ns. Both lie in [0, INT64_MAX] (get_ms, mm__parse_i64), so the
 * difference fits in int64. */
static int64_t skew_ns(int64_t t_ms, int64_t recv_ns)
{
    return t_ms * 1000000 - recv_ns;
}

/* The capture's clock offset: the lower median of skew_ns over every message with an exchange time
 * (a median, so that a few wrong times cannot move it). Returns 0, 1 (no timed message: *off = 0)
 * or -ENOMEM. */
int mm__binance_clock_offset(const bn *b, int64_t *off)
{
    *off = 0;
    int64_t n = b->ndep + b->ntr + (b->have_snap && b->snap_t_ms >= 0), k = 0;
    for (int64_t i = 0; i < b->ntk; i++)
        n += b->tk[i].t_ms >= 0;
    if (n == 0) return 1;
    int64_t *a = malloc((size_t)n * sizeof *a);
    if (!a) return -ENOMEM;
    for (int64_t i = 0; i < b->ndep; i++)
        a[k++] = skew_ns(b->dep[i].t_ms, b->dep[i].recv_ns);
    for (int64_t i = 0; i < b->ntr; i++)
        a[k++] = skew_ns(b->tr[i].t_ms, b->tr[i].recv_ns);
    for (int64_t i = 0; i < b->ntk; i++)
        if (b->tk[i].t_ms >= 0) a[k++] = skew_ns(b->tk[i].t_ms, b->tk[i].recv_ns);
    if (b->have_snap && b->snap_t_ms >= 0) a[k++] = skew_ns(b->snap_t_ms, b->snap_recv);
    qsort(a, (size_t)n, sizeof *a, cmp_i64);
    *off = a[(n - 1) / 2];
    free(a);
    return 0;
}

/* The first (in file, line order) message whose exchange time is more than TIME_TOL_NS from its
 * receive time + off. */
typedef struct late {
    int32_t f;
    int64_t line, t_ms, recv_ns;
    const char *what;
} late;

static void late_note(late *w, int64_t off, int32_t f, int64_t line, int64_t t_ms, int64_t recv_ns,
                      const char *what)
{
    double d = (double)skew_ns(t_ms, recv_ns) - (double)off;
    if (d <= (double)TIME_TOL_NS && d >= -(double)TIME_TOL_NS) return;
    if (w->what && (w->f < f || (w->f == f && w->line < line))) return;
    *w = (late){f, line, t_ms, recv_ns, what};
}

int mm__binance_check_times(bn *b, int64_t off)
{
    late w = {0};
    for (int64_t i = 0; i < b->ndep; i++)
        late_note(&w, off, b->dep[i].f, b->dep[i].line, b->dep[i].t_ms, b->dep[i].recv_ns,
                  "depthUpdate");
    for (int64_t i = 0; i < b->ntr; i++)
        late_note(&w, off, b->tr[i].f, b->tr[i].line, b->tr[i].t_ms, b->tr[i].recv_ns, "trade");
    for (int64_t i = 0; i < b->ntk; i++)
        if (b->tk[i].t_ms >= 0)
            late_note(&w, off, b->tk[i].f, b->tk[i].line, b->tk[i].t_ms, b->tk[i].recv_ns,
                      "bookTicker");
    if (b->have_snap && b->snap_t_ms >= 0)
        late_note(&w, off, b->snap_f, b->snap_line, b->snap_t_ms, b->snap_recv, "snapshot");
    if (!w.what) return 0;
    double d = ((double)skew_ns(w.t_ms, w.recv_ns) - (double)off) * 1e-9;
    return mm__errf(b->err, MM_EINVALID,
                    "%s:%" PRId64 ": %s time %" PRId64 " ms is %.0f s %s the time the line was "
                    "received (receive ns + the capture's clock offset of %.3f s); more than %d s "
                    "off is a wrong time",
                    PATH(b, w.f), w.line, w.what, w.t_ms, d < 0 ? -d : d,
                    d > 0 ? "after" : "before", (double)off * 1e-9,
                    (int)(TIME_TOL_NS / 1000000000));
}

/* Receive time + offset, in ms, within [0, INT64_MAX / 10^6]. */
int64_t mm__binance_est_ms(int64_t recv_ns, int64_t off)
{
    int64_t ns = off > 0 && recv_ns > INT64_MAX - off ? INT64_MAX : recv_ns + off;
    if (ns < 0) return 0;
    return ns / 1000000 > INT64_MAX / 1000000 ? INT64_MAX / 1000000 : ns / 1000000;
}
