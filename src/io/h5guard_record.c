/* The guard's record across processes (mm_h5guard.h; docs/formats.md, "The guard's record").
 *
 * File layout: a sequence of 48-byte records, integers little-endian (every platform mmsim builds
 * on), nothing else:
 *   0  "MMG1"                      magic
 *   4  u32 guard version           MM_GUARD_VERSION: bumped whenever the probe checks more
 *   8  u32 HDF5 version            major << 20 | minor << 10 | release, of the library that probed
 *  12  u32 0                       reserved
 *  16  u64 file size in bytes
 *  24  u64, u64                    XXH3-128 of the file's bytes (low64, high64)
 *  40  u64                         XXH3-64 of bytes 0-39 (a torn or foreign record fails it)
 * A record vouches that HDF5 of that version did not crash opening every dataset and reading every
 * variable-length string attribute of a file with those bytes (the forked probe); the heap scan,
 * which runs in the process, is never skipped because of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "mm_h5guard.h"

#define REC 48
#define MM_GUARD_VERSION 1u
/* At most this many records are read; a file over it is rewritten with the newest MAX_KEEP. */
#define MAX_READ 8192
#define MAX_KEEP 4096

typedef struct key {
    uint64_t n, lo, hi;
} key;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static char *g_path;         /* NULL: off */
static int g_loaded;         /* the file was read (or found absent) */
static int g_rewrite;        /* a bad or foreign-sized tail, or over MAX_READ: rewrite */
static unsigned char *g_raw; /* the valid records read, as stored (any version) */
static size_t g_nraw;        /* how many */
static key *g_have;          /* those of this guard and HDF5 version */
static size_t g_nhave;
static key *g_new; /* passed in this process, not in the file */
static size_t g_nnew, g_capnew;

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t hdf5_version(void)
{
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    return (uint32_t)(maj & 0x3ff) << 20 | (uint32_t)(min & 0x3ff) << 10 | (uint32_t)(rel & 0x3ff);
}

static void encode(unsigned char *r, key k)
{
    memcpy(r, "MMG1", 4);
    put32(r + 4, MM_GUARD_VERSION);
    put32(r + 8, hdf5_version());
    put32(r + 12, 0);
    put64(r + 16, k.n);
    put64(r + 24, k.lo);
    put64(r + 32, k.hi);
    put64(r + 40, XXH3_64bits(r, 40));
}

static void reset_locked(void)
{
    free(g_path);
    free(g_raw);
    free(g_have);
    free(g_new);
    g_path = NULL;
    g_raw = NULL;
    g_have = g_new = NULL;
    g_loaded = g_rewrite = 0;
    g_nraw = g_nhave = g_nnew = g_capnew = 0;
}

int mm__h5_guard_record_set(const char *path)
{
    char *p = path ? strdup(path) : NULL;
    if (path && !p) return -ENOMEM;
    pthread_mutex_lock(&g_mu);
    reset_locked();
    g_path = p;
    pthread_mutex_unlock(&g_mu);
    return 0;
}

/* Reads the file once (under g_mu). Anything unreadable leaves the record empty: it only ever
 * spares a probe, so a missing, short or corrupt file costs that probe and nothing else. */
static void load_locked(void)
{
    g_loaded = 1;
    int fd = open(g_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    size_t want = (size_t)st.st_size;
    if (want % REC) g_rewrite = 1;
    if (want > (size_t)MAX_READ * REC) {
        want = (size_t)MAX_READ * REC;
        g_rewrite = 1;
    }
    want -= want % REC;
    unsigned char *b = want ? malloc(want) : NULL;
    size_t got = b ? mm__h5_guard_pread(fd, b, want) : 0;
    close(fd);
    got -= got % REC;
    key *have = got ? malloc(got / REC * sizeof *have) : NULL;
    if (!b || (got && !have)) {
        free(b);
        free(have);
        return;
    }
    uint32_t ver = hdf5_version();
    size_t nraw = 0, nhave = 0;
    for (size_t at = 0; at < got; at += REC) {
        const unsigned char *r = b + at;
        if (memcmp(r, "MMG1", 4) || get64(r + 40) != XXH3_64bits(r, 40)) {
            g_rewrite = 1;
            continue;
        }
        memmove(b + nraw * REC, r, REC);
        nraw++;
        if (get32(r + 4) == MM_GUARD_VERSION && get32(r + 8) == ver)
            have[nhave++] = (key){get64(r + 16), get64(r + 24), get64(r + 32)};
    }
    g_raw = b;
    g_nraw = nraw;
    g_have = have;
    g_nhave = nhave;
}

int mm__h5_guard_record_has(size_t n, XXH128_hash_t h)
{
    int hit = 0;
    pthread_mutex_lock(&g_mu);
    if (g_path) {
        if (!g_loaded) load_locked();
        for (size_t i = g_nhave; i-- > 0 && !hit;)
            hit = g_have[i].n == n && g_have[i].lo == h.low64 && g_have[i].hi == h.high64;
    }
    pthread_mutex_unlock(&g_mu);
    return hit;
}

void mm__h5_guard_record_add(size_t n, XXH128_hash_t h)
{
    pthread_mutex_lock(&g_mu);
    if (g_path) {
        if (!g_loaded) load_locked();
        int known = 0;
        for (size_t i = 0; i < g_nnew && !known; i++)
            known = g_new[i].n == n && g_new[i].lo == h.low64 && g_new[i].hi == h.high64;
        if (!known && g_nnew == g_capnew && g_capnew < MAX_KEEP) {
            size_t cap = g_capnew ? 2 * g_capnew : 8;
            key *k = realloc(g_new, cap * sizeof *k);
            if (k) {
                g_new = k;
                g_capnew = cap;
            }
        }
        if (!known && g_nnew < g_capnew) g_new[g_nnew++] = (key){n, h.low64, h.high64};
    }
    pthread_mutex_unlock(&g_mu);
}

/* mkdir -p of path's directory; the directories it makes are 0700 (XDG's cache base). */
static int make_parents(const char *path)
{
    char *d = strdup(path);
    if (!d) return -ENOMEM;
    char *slash = strrchr(d, '/');
    int rc = 0;
    if (slash && slash != d) {
        *slash = 0;
        for (char *p = d + 1; !rc; p++) {
            if (*p != '/' && *p) continue;
            char c = *p;
            *p = 0;
            if (mkdir(d, 0700) != 0 && errno != EEXIST) rc = -errno;
            *p = c;
            if (!c) break;
        }
    }
    free(d);
    return rc;
}

static int write_all(int fd, const unsigned char *b, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, b + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? -errno : -EIO;
        done += (size_t)w;
    }
    return 0;
}

int mm__h5_guard_record_save(void)
{
    pthread_mutex_lock(&g_mu);
    int rc = 0;
    if (!g_path || !g_nnew) goto out;
    size_t keep =
        g_nraw + g_nnew > MAX_KEEP ? (g_nnew >= MAX_KEEP ? 0 : MAX_KEEP - g_nnew) : g_nraw;
    int rewrite = g_rewrite || keep < g_nraw;
    size_t total = (rewrite ? keep : 0) + g_nnew;
    unsigned char *b = malloc(total * REC);
    if (!b) {
        rc = -ENOMEM;
        goto out;
    }
    size_t at = 0;
    if (rewrite) {
        memcpy(b, g_raw + (g_nraw - keep) * REC, keep * REC);
        at = keep * REC;
    }
    for (size_t i = 0; i < g_nnew; i++, at += REC)
        encode(b + at, g_new[i]);
    rc = make_parents(g_path);
    if (rc == 0 && rewrite) {
        /* A reader sees the old file or the new one whole. */
        size_t pl = strlen(g_path) + 32;
        char *tmp = malloc(pl);
        int fd = -1;
        if (!tmp)
            rc = -ENOMEM;
        else {
            snprintf(tmp, pl, "%s.tmp.%ld", g_path, (long)getpid());
            fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0) rc = -errno;
        }
        if (fd >= 0) {
            rc = write_all(fd, b, at);
            if (close(fd) != 0 && rc == 0) rc = -errno;
            if (rc == 0 && rename(tmp, g_path) != 0) rc = -errno;
            if (rc != 0) unlink(tmp);
        }
        free(tmp);
    } else if (rc == 0) {
        /* One write of whole records with O_APPEND: processes saving at once interleave
         * records, not bytes, on a local file system (elsewhere a torn record fails its check
         * and the next save rewrites the file). */
        int fd = open(g_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            rc = -errno;
        else {
            rc = write_all(fd, b, at);
            if (close(fd) != 0 && rc == 0) rc = -errno;
        }
    }
    free(b);
    if (rc == 0) {
        /* Saved: the next save of this process writes only what passes after this one. */
        g_nnew = 0;
        g_rewrite = 0;
        free(g_raw);
        g_raw = NULL;
        g_nraw = 0;
        g_loaded = 1;
    }
out:
    pthread_mutex_unlock(&g_mu);
    return rc;
}
