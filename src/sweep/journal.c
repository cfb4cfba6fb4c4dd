/* The sweep journal: completed chunks, checksummed and fsync'd, beside the output (docs/sweep.md).
 *
 * File: header (32 bytes) = "MMSIMJ01", run id (u64, XXH3 of the run's identity), combinations (i64),
 * metric record size (i64, 128). Then records: tag "JREC" (4 bytes), count (u32), first id (i64),
 * count x 128 bytes of metrics (mm_metrics, little-endian), XXH3-64 of everything before it in the record.
 * A torn or corrupt tail (a crash mid-write) is cut off on load: the records before it are kept. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "../core/mm_internal.h"
#include "mm_journal.h"

_Static_assert(sizeof(mm_metrics) == 128, "journal records store mm_metrics as 128 packed bytes");

#define HDR 32

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (int)(got == n);
}

int mm__journal_create(mm__journal *j, const char *path, uint64_t run_id, int64_t n_combos, mm_error *err)
{
    memset(j, 0, sizeof *j);
    j->fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (j->fd < 0) {
        if (errno == EEXIST)
            return mm__errf(err, MM_EUSAGE, "%s: a journal of an interrupted run exists: add --resume to continue it, or delete it",
                            path);
        return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    }
    char h[HDR];
    memcpy(h, "MMSIMJ01", 8);
    int64_t rec = 128;
    memcpy(h + 8, &run_id, 8);
    memcpy(h + 16, &n_combos, 8);
    memcpy(h + 24, &rec, 8);
    int rc = write_all(j->fd, h, HDR);
    if (rc == 0 && fsync(j->fd) != 0) rc = -errno;
    if (rc) {
        close(j->fd);
        unlink(path);
        return mm__errf(err, rc, "%s: %s", path, strerror(-rc));
    }
    return 0;
}

int mm__journal_resume(mm__journal *j, const char *path, uint64_t run_id, int64_t n_combos, uint8_t *done,
                       int64_t *n_done, mm_error *err)
{
    memset(j, 0, sizeof *j);
    *n_done = 0;
    j->fd = open(path, O_RDWR);
    if (j->fd < 0) {
        if (errno == ENOENT) return mm__journal_create(j, path, run_id, n_combos, err);
        return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    }
    char h[HDR];
    int64_t nc, rec;
    uint64_t id;
    if (read_all(j->fd, h, HDR) != 1 || memcmp(h, "MMSIMJ01", 8) != 0) {
        close(j->fd);
        return mm__errf(err, MM_EFORMAT, "%s: not an mmsim journal", path);
    }
    memcpy(&id, h + 8, 8);
    memcpy(&nc, h + 16, 8);
    memcpy(&rec, h + 24, 8);
    if (id != run_id || nc != n_combos || rec != 128) {
        close(j->fd);
        return mm__errf(err, MM_EUSAGE, "%s: the journal belongs to another run (different grid, inputs or settings)", path);
    }
    off_t good = HDR;
    mm_metrics *buf = NULL;
    size_t cap = 0;
    for (;;) {
        char rh[16];
        if (read_all(j->fd, rh, 16) != 1 || memcmp(rh, "JREC", 4) != 0) break;
        uint32_t count;
        int64_t first;
        memcpy(&count, rh + 4, 4);
        memcpy(&first, rh + 8, 8);
        if (count == 0 || first < 0 || first + (int64_t)count > n_combos) break;
        if (count > cap) {
            free(buf);
            cap = count;
            buf = malloc(cap * sizeof *buf);
            if (!buf) {
                close(j->fd);
                return mm__errf(err, -ENOMEM, "out of memory");
            }
        }
        uint64_t sum;
        if (read_all(j->fd, buf, count * sizeof *buf) != 1 || read_all(j->fd, &sum, 8) != 1) break;
        XXH3_state_t *s = XXH3_createState();
        XXH3_64bits_reset(s);
        XXH3_64bits_update(s, rh, 16);
        XXH3_64bits_update(s, buf, count * sizeof *buf);
        uint64_t want = XXH3_64bits_digest(s);
        XXH3_freeState(s);
        if (want != sum) break;
        int dup = 0;
        for (uint32_t k = 0; k < count; k++) dup |= done[first + k];
        if (dup) break; /* never happens with one writer; treat as corruption */
        for (uint32_t k = 0; k < count; k++) done[first + k] = 1;
        *n_done += count;
        good += 16 + (off_t)count * 128 + 8;
    }
    free(buf);
    /* Cut a torn tail so appends continue from the last whole record. */
    if (ftruncate(j->fd, good) != 0 || lseek(j->fd, good, SEEK_SET) != good || fsync(j->fd) != 0) {
        int e = errno;
        close(j->fd);
        return mm__errf(err, -e, "%s: %s", path, strerror(e));
    }
    return 0;
}

int mm__journal_append(mm__journal *j, int64_t first, uint32_t count, const mm_metrics *m)
{
    char rh[16];
    memcpy(rh, "JREC", 4);
    memcpy(rh + 4, &count, 4);
    memcpy(rh + 8, &first, 8);
    XXH3_state_t *s = XXH3_createState();
    if (!s) return -ENOMEM;
    XXH3_64bits_reset(s);
    XXH3_64bits_update(s, rh, 16);
    XXH3_64bits_update(s, m, count * sizeof *m);
    uint64_t sum = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    int rc = write_all(j->fd, rh, 16);
    if (rc == 0) rc = write_all(j->fd, m, count * sizeof *m);
    if (rc == 0) rc = write_all(j->fd, &sum, 8);
    j->unsynced = 1;
    return rc;
}

int mm__journal_sync(mm__journal *j)
{
    if (!j->unsynced) return 0;
    j->unsynced = 0;
    return fsync(j->fd) == 0 ? 0 : -errno;
}

int mm__journal_scan(const char *path, mm__journal_cb cb, void *user)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -errno;
    int rc = 0;
    if (lseek(fd, HDR, SEEK_SET) != HDR) rc = -errno;
    mm_metrics *buf = NULL;
    size_t cap = 0;
    while (rc == 0) {
        char rh[16];
        int r = read_all(fd, rh, 16);
        if (r != 1) break;
        uint32_t count;
        int64_t first;
        memcpy(&count, rh + 4, 4);
        memcpy(&first, rh + 8, 8);
        if (count > cap) {
            free(buf);
            cap = count;
            buf = malloc(cap * sizeof *buf);
            if (!buf) {
                rc = -ENOMEM;
                break;
            }
        }
        uint64_t sum;
        if (read_all(fd, buf, count * sizeof *buf) != 1 || read_all(fd, &sum, 8) != 1) {
            rc = -EIO;
            break;
        }
        rc = cb(first, count, buf, user);
    }
    free(buf);
    close(fd);
    return rc;
}

void mm__journal_close(mm__journal *j)
{
    if (j->fd > 0) close(j->fd);
    j->fd = -1;
}
