/* The signal column of a tape (docs/formats.md, "Signal"): its validation rules and the as-of rule
 * that turns timed points into one value a row. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "mm_internal.h"

int mm__signal_validate(const mm_ticks *t, const char *file, mm_error *err)
{
    if (!t->signal) {
        if (t->signal_name[0])
            return mm__errf(err, MM_EINVALID,
                            "%s: instrument %s: signal %.*s: a name without a column", file,
                            t->inst.symbol, MM_SYMBOL_MAX - 1, t->signal_name);
        return 0;
    }
    if (!mm__valid_symbol(t->signal_name))
        return mm__errf(err, MM_EINVALID,
                        "%s: instrument %s: column signal: name '%.*s' must match "
                        "[A-Za-z0-9._-]+ (at most %d characters)",
                        file, t->inst.symbol, MM_SYMBOL_MAX - 1, t->signal_name, MM_SYMBOL_MAX - 1);
    for (int64_t i = 0; i < t->n; i++)
        if (!isfinite(t->signal[i]))
            return mm__errf(err, MM_EINVALID,
                            "%s: instrument %s: column signal: row %" PRId64
                            ": value %g is not finite",
                            file, t->inst.symbol, i, t->signal[i]);
    return 0;
}

int mm_signal_asof(const int64_t *row_ts, int64_t n, const int64_t *ts, const double *v, int64_t m,
                   double *out, mm_error *err)
{
    if (n < 0 || m < 0 || (n > 0 && (!row_ts || !out)) || (m > 0 && (!ts || !v)))
        return mm__errf(err, MM_EUSAGE, "mm_signal_asof: bad argument");
    for (int64_t k = 0; k < m; k++) {
        if (!isfinite(v[k]))
            return mm__errf(err, MM_EUSAGE, "signal point %" PRId64 ": value %g is not finite", k,
                            v[k]);
        if (k > 0 && ts[k] < ts[k - 1])
            return mm__errf(err, MM_EUSAGE,
                            "signal point %" PRId64 ": time %" PRId64
                            " is before the previous point's %" PRId64
                            " (points must be sorted by time)",
                            k, ts[k], ts[k - 1]);
    }
    /* Both sequences are sorted: one merge. Row i takes the last point with ts <= row_ts[i] (of
     * points at the same time, the last one), 0 before the first point. */
    int64_t k = 0;
    double cur = 0.0;
    for (int64_t i = 0; i < n; i++) {
        while (k < m && ts[k] <= row_ts[i])
            cur = v[k++];
        out[i] = cur;
    }
    return 0;
}
