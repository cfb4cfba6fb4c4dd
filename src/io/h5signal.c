/* Attaching a signal to a tape of a tick file (docs/formats.md, "Signal"): load, copy into a block
 * with the signal column, write back with mm_ticks_write's replace (the file is rebuilt in memory,
 * written to a temporary file and renamed: all or nothing). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mm_internal.h"

int mm_ticks_write_signal(const char *path, const char *symbol, const char *name,
                          const double *values, int64_t n, int replace, mm_error *err)
{
    if (!path || !name || (n > 0 && !values) || n < 0)
        return mm__errf(err, -EINVAL, "mm_ticks_write_signal: bad argument");
    if (!mm__valid_symbol(name))
        return mm__errf(err, MM_EUSAGE,
                        "%s: signal name '%s' must match [A-Za-z0-9._-]+ (at most %d characters)",
                        path, name, MM_SYMBOL_MAX - 1);
    mm_ticks old = {0}, t = {0};
    int rc = mm_ticks_load(path, symbol, 0, &old, err);
    if (rc) return rc;
    const char *sym = old.inst.symbol;
    if (n != old.n) {
        rc = mm__errf(err, MM_EUSAGE,
                      "%s: instrument %s: signal %s: %" PRId64 " values for %" PRId64
                      " rows (one value a row)",
                      path, sym, name, n, old.n);
        goto out;
    }
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(values[i])) {
            rc = mm__errf(err, MM_EUSAGE,
                          "%s: instrument %s: signal %s: value %" PRId64 " is %g (must be finite)",
                          path, sym, name, i, values[i]);
            goto out;
        }
    if (old.signal && !replace) {
        rc = mm__errf(err, -EEXIST,
                      "%s: instrument %s: already has the signal %s (set replace to overwrite it)",
                      path, sym, old.signal_name);
        goto out;
    }
    if ((rc = mm__ticks_alloc_heap_depth(&t, old.n, old.depth.n, 1))) {
        mm__errf(err, rc, "%s: instrument %s: cannot allocate %" PRId64 " rows: %s", path, sym,
                 old.n, mm_strerror(rc));
        goto out;
    }
    /* The columns are contiguous from ts_ns to the depth's cause in both blocks (same layout up
     * to the signal column): one copy, then the signal. */
    size_t head = mm__ticks_block_bytes(old.n, old.depth.n, 0);
    memcpy(t.mem_base, old.mem_base, head);
    t.inst = old.inst;
    t.depth.levels = old.depth.levels;
    t.depth.ids = old.depth.ids;
    snprintf(t.signal_name, sizeof t.signal_name, "%s", name);
    if (n > 0) memcpy(t.signal, values, (size_t)n * sizeof *values);
    mm_write_opts o = {.compress_level = 0, .chunk_rows = 0, .replace = 1};
    rc = mm_ticks_write(path, &t, &o, err);
out:
    mm_ticks_free(&t);
    mm_ticks_free(&old);
    return rc;
}
