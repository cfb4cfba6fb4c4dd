/* The sweep journal: completed chunks, checksummed and fsync'd, beside the output (docs/sweep.md).
 *
 * File (little-endian):
 *   header   "MMSIMJ04" | run id (u64, XXH3 of the identity text) | combinations (i64) | record
 * size (i64: 184, one mm_metrics; with paths > 1 the summary and kept paths, mm_engine.h) | pid of
 * the writing process (i64) | identity length L (u32) | 0 (u32) | identity text (L bytes) | XXH3-64
 * of the header bytes before it, with the pid field read as 0 (a resumed run rewrites it) records
 * "JREC" (4 bytes) | count (u32) | first id (i64) | count x 184 bytes of metrics (mm_metrics) |
 * XXH3-64 of everything before it in the record
 *
 * The journal is locked with flock(LOCK_EX | LOCK_NB) for the whole run (the lock belongs to the
 * open file, so it goes away with the process, however it dies): a second run on the same output
 * finds it locked and names the pid in the header. A new journal is written and locked as an
 * unnamed file (O_TMPFILE) and then linked into place, so no other process ever sees it without its
 * header or its lock.
 *
 * Every record is verified where it is read: on resume (the first bad record and everything after
 * it are cut and recomputed) and again when the results table is built (a bad record is an error:
 * MM_ECHECKSUM). A record's ids are checked only after its checksum, and without overflow (first <=
 * n - count). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack: no allocation to fail */
#include <xxhash.h>

#include "mm_internal.h"
#include "mm_journal.h"

_Static_assert(sizeof(mm_metrics) == 184, "journal records store mm_metrics as 184 packed bytes");

/* MMSIMJ04: records of 184-byte mm_metrics (pnl_spread, pnl_inventory); J03 held 168 bytes. */
#define MAGIC "MMSIMJ04"
#define HDR_FIXED 48
#define PID_OFF 32
#define IDENT_MAX (1 << 20)
#define REC_HDR 16

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

/* Read exactly n bytes at off: 1, 0 at a short read (end of file), or -errno. */
static int pread_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + got, n - got, off + (off_t)got);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (r == 0) return 0;
        got += (size_t)r;
    }
    return 1;
}

static uint64_t header_sum(const unsigned char *h, size_t len)
{
    /* The pid field is excluded: a resumed run rewrites it in place. */
    unsigned char fixed[HDR_FIXED];
    memcpy(fixed, h, HDR_FIXED);
    memset(fixed + PID_OFF, 0, 8);
    XXH64_hash_t a = XXH3_64bits(fixed, HDR_FIXED);
    return XXH3_64bits_withSeed(h + HDR_FIXED, len - HDR_FIXED, a);
}

/* The lock of fd, taken without waiting; MM_ELOCKED naming the holder's pid (from the header) if
 * held. */
static int lock_fd(int fd, const char *out, mm_error *err)
{
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK)
            return mm__errf(err, -errno, "%s.journal: flock: %s", out, strerror(errno));
        int64_t pid = 0;
        if (pread_all(fd, &pid, 8, PID_OFF) == 1 && pid > 0)
            return mm__errf(err, MM_ELOCKED, "%s is being written by mmsim pid %" PRId64, out, pid);
        return mm__errf(err, MM_ELOCKED, "%s is being written by another mmsim process", out);
    }
    return 0;
}

static int exists_error(const char *path, mm_error *err)
{
    return mm__errf(err, MM_EUSAGE,
                    "%s: a journal of an interrupted run exists: set mm_sweep_opts.resume to "
                    "continue it, or delete it",
                    path);
}

int mm__journal_precheck(const char *path, const char *out, int resume, mm_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    int rc = lock_fd(fd, out, err);
    close(fd); /* releases the lock if we took it */
    if (rc == 0 && !resume) rc = exists_error(path, err);
    return rc;
}

/* The complete header of a new journal (malloc'd, *len bytes). */
static unsigned char *make_header(uint64_t run_id, const char *ident, int64_t n_combos, size_t rsz,
                                  size_t *len)
{
    size_t il = strlen(ident);
    if (il > IDENT_MAX) return NULL;
    *len = HDR_FIXED + il + 8;
    unsigned char *h = calloc(1, *len);
    if (!h) return NULL;
    int64_t rec = (int64_t)rsz, pid = (int64_t)getpid();
    uint32_t l32 = (uint32_t)il;
    memcpy(h, MAGIC, 8);
    memcpy(h + 8, &run_id, 8);
    memcpy(h + 16, &n_combos, 8);
    memcpy(h + 24, &rec, 8);
    memcpy(h + PID_OFF, &pid, 8);
    memcpy(h + 40, &l32, 4);
    memcpy(h + HDR_FIXED, ident, il);
    uint64_t sum = header_sum(h, HDR_FIXED + il);
    memcpy(h + HDR_FIXED + il, &sum, 8);
    return h;
}

/* The directory of path ("." for a bare name), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static int create(mm__journal *j, const char *path, const char *out, uint64_t run_id,
                  const char *ident, int64_t n_combos, mm_error *err)
{
    size_t len = 0;
    unsigned char *h = make_header(run_id, ident, n_combos, j->rec, &len);
    char *dir = dir_of(path);
    int rc = 0, fd = -1;
    if (!h || !dir) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
        goto out;
    }
    /* An unnamed file, written, synced and locked, then linked in: linkat fails with EEXIST if a
     * journal appeared meanwhile, so two runs can never both create one. */
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    if (fd >= 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if ((rc = write_all(fd, h, len)) == 0 && fsync(fd) != 0) rc = -errno;
        if (rc == 0 && flock(fd, LOCK_EX) != 0) rc = -errno;
        if (rc == 0 && linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0) rc = -errno;
        if (rc == 0) goto linked;
        close(fd);
        fd = -1;
        if (rc == -EEXIST) {
            rc = mm__journal_precheck(path, out, 0, err);
            if (rc == 0)
                rc =
                    exists_error(path, err); /* removed again meanwhile: still refuse, never race */
            goto out;
        }
        if (rc != -ENOENT && rc != -EPERM && rc != -EXDEV) {
            rc = mm__errf(err, rc, "%s: %s", path, strerror(-rc));
            goto out;
        }
        rc = 0; /* no /proc, or links refused: create it in place */
    } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        rc = mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        goto out;
    }
    /* No O_TMPFILE on this file system: create in place, lock at once. (Another run that opens it
     * in the moment before the lock is taken finds its header incomplete and refuses it as not a
     * journal.) */
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = errno == EEXIST ? mm__journal_precheck(path, out, 0, err)
                             : mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        if (rc == 0) rc = exists_error(path, err);
        goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) rc = -errno;
    if (rc == 0) rc = write_all(fd, h, len);
    if (rc == 0 && fsync(fd) != 0) rc = -errno;
    if (rc) {
        close(fd);
        fd = -1;
        unlink(path);
        rc = mm__errf(err, rc, "%s: %s", path, strerror(-rc));
        goto out;
    }
linked : {
    /* The new name is durable once the directory is synced. */
    int dfd = open(dir, O_RDONLY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}
    j->fd = fd;
    j->data_off = (off_t)len;
    fd = -1;
out:
    if (fd >= 0) close(fd);
    free(h);
    free(dir);
    return rc;
}

/* ---- identity: name the first difference ---- */

/* Next line of *p as name and value (tab-separated); 0 at the end. */
static int next_line(const char **p, const char **name, size_t *nl, const char **val, size_t *vl)
{
    if (!**p) return 0;
    const char *e = strchr(*p, '\n');
    if (!e) e = *p + strlen(*p);
    const char *tab = memchr(*p, '\t', (size_t)(e - *p));
    *name = *p;
    *nl = tab ? (size_t)(tab - *p) : (size_t)(e - *p);
    *val = tab ? tab + 1 : e;
    *vl = (size_t)(e - *val);
    *p = *e ? e + 1 : e;
    return 1;
}

/* Describe the first line where the journal's identity (there) and this run's (here) differ. */
static void explain(const char *there, const char *here, char *buf, size_t cap)
{
    const char *a = there, *b = here;
    for (;;) {
        const char *na = "", *va = "", *nb = "", *vb = "";
        size_t nal = 0, val = 0, nbl = 0, vbl = 0;
        int ha = next_line(&a, &na, &nal, &va, &val), hb = next_line(&b, &nb, &nbl, &vb, &vbl);
        if (!ha && !hb) break;
        if (!ha || !hb || nal != nbl || memcmp(na, nb, nal)) {
            snprintf(buf, cap, "%.*s there, %.*s here", ha ? (int)nal : 7, ha ? na : "nothing",
                     hb ? (int)nbl : 7, hb ? nb : "nothing");
            return;
        }
        if (val == vbl && !memcmp(va, vb, val)) continue;
        int n = (int)nal;
        if (nal > 5 &&
            !memcmp(na, "axis ", 5)) /* "grid axis spread=0,1,2 there, spread=0,1 here" */
            snprintf(buf, cap, "grid axis %.*s=%.*s there, %.*s=%.*s here", n - 5, na + 5, (int)val,
                     va, n - 5, na + 5, (int)vbl, vb);
        else if (nal > 12 && !memcmp(na, "axis-values ", 12))
            snprintf(buf, cap,
                     "grid axis %.*s: same count and ends, different values (hash %.*s there, %.*s "
                     "here)",
                     n - 12, na + 12, (int)val, va, (int)vbl, vb);
        else if (nal > 4 && !memcmp(na, "set ", 4))
            snprintf(buf, cap, "%.*s=%.*s there, %.*s=%.*s here", n - 4, na + 4, (int)val, va,
                     n - 4, na + 4, (int)vbl, vb);
        else if (nal == 4 && !memcmp(na, "axes", 4))
            snprintf(buf, cap, "grid axes %.*s there, %.*s here", (int)val, va, (int)vbl, vb);
        else
            snprintf(buf, cap, "%.*s %.*s there, %.*s here", n, na, (int)val, va, (int)vbl, vb);
        return;
    }
    snprintf(buf, cap, "a different run identity");
}

/* ---- records ---- */

/* Read and verify the record at off of a file of `size` bytes into *buf (grown as needed; the whole
 * record). Returns 1 for a good record, 0 at the end of the file, or -1 for a torn or bad record
 * (*why says which), or -errno (read error, out of memory). */
static int read_record(int fd, off_t off, off_t size, int64_t n_combos, size_t rec,
                       unsigned char **buf, size_t *cap, int64_t *first, uint32_t *count,
                       const char **why)
{
    if (off == size) return 0;
    unsigned char rh[REC_HDR];
    *why = "torn record header";
    if (size - off < REC_HDR + 8) return -1;
    int r = pread_all(fd, rh, REC_HDR, off);
    if (r != 1) return r < 0 ? r : -1;
    *why = "bad record tag";
    if (memcmp(rh, "JREC", 4)) return -1;
    memcpy(count, rh + 4, 4);
    memcpy(first, rh + 8, 8);
    /* Bound the read by what the file holds before trusting any field. */
    *why = "torn record";
    if (*count == 0 || (off_t)*count > (size - off - REC_HDR - 8) / (off_t)rec) return -1;
    size_t len = REC_HDR + (size_t)*count * rec + 8;
    if (len > *cap) {
        unsigned char *nb = realloc(*buf, len);
        if (!nb) return -ENOMEM;
        *buf = nb;
        *cap = len;
    }
    r = pread_all(fd, *buf, len, off);
    if (r != 1) return r < 0 ? r : -1;
    uint64_t sum;
    memcpy(&sum, *buf + len - 8, 8);
    *why = "checksum mismatch";
    if (XXH3_64bits(*buf, len - 8) != sum) return -1;
    /* Only now are count and first trusted; no overflow: first <= n - count. */
    *why = "ids outside the grid";
    if ((int64_t)*count > n_combos || *first < 0 || *first > n_combos - (int64_t)*count) return -1;
    return 1;
}

int mm__journal_open(mm__journal *j, const char *path, const char *out, int resume, uint64_t run_id,
                     const char *ident, int64_t n_combos, size_t rec_bytes, uint8_t *done,
                     int64_t *n_done, mm_error *err)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    j->n_combos = n_combos;
    j->rec = rec_bytes;
    *n_done = 0;
    if (!resume) return create(j, path, out, run_id, ident, n_combos, err);
    int fd = -1, rc = 0;
    unsigned char *h = NULL, *buf = NULL;
    size_t cap = 0;
    for (int attempt = 0;; attempt++) {
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) return create(j, path, out, run_id, ident, n_combos, err);
            return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        }
        if ((rc = lock_fd(fd, out, err))) goto fail;
        /* Locked; but the run that held the lock may have finished and removed the journal
         * meanwhile. */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev)
            break;
        close(fd);
        fd = -1;
        if (attempt == 3) return mm__errf(err, -EAGAIN, "%s: replaced while being opened", path);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        goto fail;
    }
    unsigned char fixed[HDR_FIXED];
    uint32_t il = 0;
    int r = pread_all(fd, fixed, 8, 0);
    if (r == 1 && (!memcmp(fixed, "MMSIMJ01", 8) || !memcmp(fixed, "MMSIMJ02", 8) ||
                   !memcmp(fixed, "MMSIMJ03", 8))) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: a journal of an older mmsim (%.8s): delete it and run again", path,
                      (const char *)fixed);
        goto fail;
    }
    if (r == 1) r = pread_all(fd, fixed, HDR_FIXED, 0);
    if (r == 1) memcpy(&il, fixed + 40, 4);
    if (r != 1 || memcmp(fixed, MAGIC, 8) || il > IDENT_MAX ||
        (off_t)(HDR_FIXED + il + 8) > st.st_size) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: not an mmsim journal (or its header is damaged): delete it", path);
        goto fail;
    }
    size_t hlen = HDR_FIXED + il + 8;
    h = malloc(hlen + 1);
    if (!h) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    uint64_t sum;
    if (pread_all(fd, h, hlen, 0) != 1 ||
        (memcpy(&sum, h + HDR_FIXED + il, 8), sum != header_sum(h, HDR_FIXED + il))) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: not an mmsim journal (or its header is damaged): delete it", path);
        goto fail;
    }
    uint64_t id;
    int64_t nc, rec;
    memcpy(&id, h + 8, 8);
    memcpy(&nc, h + 16, 8);
    memcpy(&rec, h + 24, 8);
    if (id != run_id || nc != n_combos || rec != (int64_t)j->rec) {
        h[HDR_FIXED + il] = 0;
        char why[600];
        explain((const char *)h + HDR_FIXED, ident, why, sizeof why);
        rc = mm__errf(err, MM_EUSAGE,
                      "%s: the run to resume does not match the interrupted run: %s", path, why);
        goto fail;
    }
    int64_t pid = (int64_t)getpid();
    if (pwrite(fd, &pid, 8, PID_OFF) != 8) {
        rc = mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        goto fail;
    }
    /* Keep every whole, verified record; cut the file before the first that is not. */
    off_t good = (off_t)hlen;
    for (;;) {
        int64_t first;
        uint32_t count;
        const char *why;
        r = read_record(fd, good, st.st_size, n_combos, j->rec, &buf, &cap, &first, &count, &why);
        if (r == 0 || r == -1) break;
        if (r < 0) {
            rc = mm__errf(err, r, "%s: %s", path, strerror(-r));
            goto fail;
        }
        int dup = 0;
        for (uint32_t k = 0; k < count; k++)
            dup |= done[first + k];
        if (dup) break; /* never happens with one writer; treat as corruption */
        for (uint32_t k = 0; k < count; k++)
            done[first + k] = 1;
        *n_done += count;
        j->records++;
        good += REC_HDR + (off_t)count * (off_t)j->rec + 8;
    }
    if (ftruncate(fd, good) != 0 || lseek(fd, good, SEEK_SET) != good || fsync(fd) != 0) {
        rc = mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        goto fail;
    }
    free(h);
    free(buf);
    j->fd = fd;
    j->data_off = (off_t)hlen;
    return 0;
fail:
    if (fd >= 0) close(fd);
    free(h);
    free(buf);
    j->records = 0;
    *n_done = 0;
    return rc;
}

int mm__journal_append(mm__journal *j, int64_t first, uint32_t count, const void *m)
{
    unsigned char rh[REC_HDR];
    memcpy(rh, "JREC", 4);
    memcpy(rh + 4, &count, 4);
    memcpy(rh + 8, &first, 8);
    /* XXH3-64 of the header and the metrics, streamed without a heap state. */
    XXH3_state_t s;
    XXH3_INITSTATE(&s);
    XXH3_64bits_reset(&s);
    XXH3_64bits_update(&s, rh, REC_HDR);
    XXH3_64bits_update(&s, m, count * j->rec);
    uint64_t sum = XXH3_64bits_digest(&s);
    int rc = write_all(j->fd, rh, REC_HDR);
    if (rc == 0) rc = write_all(j->fd, m, count * j->rec);
    if (rc == 0) rc = write_all(j->fd, &sum, 8);
    j->unsynced = 1;
    if (rc == 0) j->records++;
    return rc;
}

int mm__journal_sync(mm__journal *j)
{
    if (!j->unsynced) return 0;
    j->unsynced = 0;
    return fsync(j->fd) == 0 ? 0 : -errno;
}

int mm__journal_scan(const mm__journal *j, const char *path, mm__journal_cb cb, void *user,
                     mm_error *err)
{
    struct stat st;
    if (fstat(j->fd, &st) != 0) return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    unsigned char *buf = NULL;
    size_t cap = 0;
    off_t off = j->data_off;
    int rc = 0;
    for (int64_t rec = 0;; rec++) {
        int64_t first;
        uint32_t count;
        const char *why;
        int r = read_record(j->fd, off, st.st_size, j->n_combos, j->rec, &buf, &cap, &first, &count,
                            &why);
        if (r == 0) break;
        if (r == -1) {
            rc = mm__errf(err, MM_ECHECKSUM,
                          "%s: record %" PRId64
                          " at byte %lld: %s (the journal changed after it was written): run again "
                          "with mm_sweep_opts.resume set to recompute its chunks",
                          path, rec, (long long)off, why);
            break;
        }
        if (r < 0) {
            rc = mm__errf(err, r, "%s: %s", path, strerror(-r));
            break;
        }
        if ((rc = cb(first, count, buf + REC_HDR, user))) break;
        off += REC_HDR + (off_t)count * (off_t)j->rec + 8;
    }
    free(buf);
    return rc;
}

void mm__journal_close(mm__journal *j)
{
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
}
