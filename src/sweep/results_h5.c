/* HDF5 helpers of the results file: block reads and writes, and the streaming pass that hashes the
 * table (docs/results.md, "Content hash"). The quiet error stack and the attributes are src/io's
 * (mm_h5util.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "results_int.h"

int mm__ds_rw(hid_t ds, hid_t mtype, int64_t first, int64_t n, void *buf, int write)
{
    if (n == 0) return 0;
    hsize_t start = (hsize_t)first, count = (hsize_t)n;
    hid_t fs = H5Dget_space(ds);
    hid_t ms = H5Screate_simple(1, &count, NULL);
    herr_t r =
        fs < 0 || ms < 0 ? -1 : H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    if (r >= 0)
        r = write ? H5Dwrite(ds, mtype, ms, fs, H5P_DEFAULT, buf)
                  : H5Dread(ds, mtype, ms, fs, H5P_DEFAULT, buf);
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return r < 0 ? MM_EHDF5 : 0;
}

int mm__results_stream(hid_t ds, hid_t mtype, size_t row_bytes, int64_t n, uint64_t *hash,
                       mm__block_fn fn, void *user)
{
    /* The XXH3 state is heap-allocated: its layout is private to libxxhash. */
    XXH3_state_t *st = XXH3_createState();
    int64_t blk = n < MM_RESULTS_BLOCK ? n : MM_RESULTS_BLOCK;
    unsigned char *buf = malloc((size_t)(blk > 0 ? blk : 1) * row_bytes);
    int rc = st && buf ? 0 : -ENOMEM;
    if (rc == 0) XXH3_64bits_reset(st);
    for (int64_t first = 0; rc == 0 && first < n; first += blk) {
        int64_t k = n - first < blk ? n - first : blk;
        rc = mm__ds_rw(ds, mtype, first, k, buf, 0);
        if (rc == 0) XXH3_64bits_update(st, buf, (size_t)k * row_bytes);
        if (rc == 0 && fn) rc = fn(buf, first, k, user);
    }
    if (rc == 0) *hash = XXH3_64bits_digest(st);
    free(buf);
    if (st) XXH3_freeState(st);
    return rc;
}

uint64_t mm__hash_pair(uint64_t h_results, uint64_t h_paths)
{
    uint64_t b[2] = {h_results, h_paths};
    return XXH3_64bits(b, sizeof b);
}

int mm__fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -errno;
    int rc = fsync(fd) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}
