/* The Avellaneda-Stoikov model market over many paths, on OpenMP threads (docs/montecarlo.md 5).
 *
 * Each path is a pure function of (parameters, seed, id, path) written into its own slot, and the
 * summary is computed afterwards in path order by one thread, so the bits do not depend on the
 * thread count or on which thread ran which path. A path runs mm__as_path_lanes: mm__as_path's
 * bits, its draws computed in vectors and most exponentials skipped (docs/perf.md). */
#include <errno.h>
#include <stdlib.h>

#include "mm_asmarket.h"
#include "mm_asmarket_lanes.h"
#include "mm_config.h"
#include "mm_internal.h"

#if MM_HAVE_OPENMP
#include <omp.h>
#endif

int mm_as_run(const mm_as_params *p, uint64_t seed, int64_t id, int64_t n_paths, int threads,
              mm_as_summary *out, mm_as_path_result *paths_out, mm_error *err)
{
    if (!p || !out) return mm__errf(err, -EINVAL, "mm_as_run: NULL argument");
    if (n_paths < 1 || n_paths > 1000000000)
        return mm__errf(err, MM_EUSAGE, "paths: %lld must be in [1, 1e9]", (long long)n_paths);
    if (threads < 0 || threads > 4096)
        return mm__errf(err, MM_EUSAGE, "threads: %d must be in [0, 4096] (0: default)", threads);
    mm__as_derived d;
    int rc = mm__as_derive(p, &d, err);
    if (rc) return rc;
    mm_as_path_result *r = paths_out ? paths_out : malloc((size_t)n_paths * sizeof *r);
    if (!r)
        return mm__errf(err, -ENOMEM, "paths: no memory for %lld path results", (long long)n_paths);
#if MM_HAVE_OPENMP
    int nt = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
#endif
    for (int64_t i = 0; i < n_paths; i++)
        mm__as_path_lanes(&d, mm_stream_key(seed, id, (int32_t)i), &r[i]);
    rc = mm_as_summarize(r, n_paths, out, err);
    if (r != paths_out) free(r);
    return rc;
}
