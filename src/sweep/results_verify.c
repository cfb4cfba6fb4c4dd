/* mm_results_verify: the content hash recomputed and every stored index checked against the rows
 * it orders (docs/results.md, "Verifying a file"). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "results_reader_int.h"

/* /index/<name> against the rows: rebuilt as the commit builds it (the same keys, the same stable
 * sort) and compared entry by entry. 0, or MM_EFORMAT naming the index and its first wrong entry.
 */
static int check_index(mm_results_reader *r, const char *name, mm_error *err)
{
    const char *p = r->path;
    int col = mm__rlayout_find(&r->lay, name);
    if (col < 0 || r->lay.cols[col].metric < 0)
        return mm__errf(err, MM_EFORMAT, "%s: /index/%s: the table has no metric column %s", p,
                        name, name);
    int64_t n = r->info.n_rows;
    size_t sz = (size_t)(n > 0 ? n : 1);
    mm__ipair *pairs = malloc(sz * sizeof *pairs), *tmp = malloc(sz * sizeof *tmp);
    int64_t *stored = malloc(sz * sizeof *stored);
    int rc = 0;
    if (!pairs || !tmp || !stored) {
        rc = mm__errf(err, -ENOMEM, "%s: cannot allocate the check of /index/%s (%" PRId64 " rows)",
                      p, name, n);
        goto out;
    }
    mm__index_ctx c = {pairs, r->lay.row_bytes, r->lay.cols[col].off, r->lay.cols[col].type};
    uint64_t h = 0;
    rc = mm__results_stream(r->results, r->mtype, r->lay.row_bytes, n, &h, mm__index_block, &c);
    if (rc) {
        rc = mm__errf(err, rc, "%s: cannot read /results: %s", p, mm_strerror(rc));
        goto out;
    }
    mm__index_sort(pairs, tmp, n);
    const int64_t *want = (const int64_t *)pairs;
    if ((rc = mm_results_read_index(r, name, 0, n, stored, err))) goto out;
    for (int64_t i = 0; i < n; i++)
        if (stored[i] != want[i]) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: /index/%s does not order the rows by %s: its entry %" PRId64
                          " is row %" PRId64 ", the table puts row %" PRId64
                          " there (the index was changed after the sweep wrote it)",
                          p, name, name, i, stored[i], want[i]);
            break;
        }
out:
    free(pairs);
    free(tmp);
    free(stored);
    return rc;
}

int mm_results_verify(const char *path, uint64_t *hash, mm_error *err)
{
    if (!path || !hash) return mm__errf(err, -EINVAL, "mm_results_verify: NULL argument");
    int rc = mm_results_hash(path, hash, err);
    if (rc) return rc;
    mm_results_reader *r;
    if ((rc = mm_results_open(path, &r, err))) return rc;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    hid_t g = -1;
    H5G_info_t gi = {0};
    if (H5Lexists(r->file, "index", H5P_DEFAULT) <= 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: no /index group (every results file has one)", path);
    } else if ((g = H5Gopen2(r->file, "index", H5P_DEFAULT)) < 0 || H5Gget_info(g, &gi) < 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: /index is not a group", path);
    } else if (gi.nlinks == 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: /index holds no index", path);
    }
    for (hsize_t i = 0; rc == 0 && i < gi.nlinks; i++) {
        char name[MM_RESULTS_NAME_MAX + 1] = "";
        ssize_t len = H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                                         H5P_DEFAULT);
        if (len < 0 || (size_t)len >= sizeof name)
            rc = mm__errf(err, MM_EFORMAT, "%s: /index holds an entry that names no metric", path);
        else
            rc = check_index(r, name, err);
    }
    if (g >= 0) H5Gclose(g);
    mm__h5quiet_end(&q);
    mm_results_close(r);
    return rc;
}
