/* The corrupt-global-heap guard (mm_h5guard.h). Found by fuzzing (docs/fuzzing.md, finding F1).
 *
 * Layout of a global heap collection (HDF5 file format spec, "Global Heap"), integers
 * little-endian: "GCOL", version (1 byte), 3 reserved bytes, collection size (8 bytes: mmsim files
 * use 8-byte sizes), then objects: heap object index (2), reference count (2), reserved (4), object
 * size (8), data padded to a multiple of 8. Index 0 is the free space at the end; its size field
 * counts the whole remainder. HDF5 1.10.8 steps from one object to the next by 16 + padded size,
 * but by the size field alone for index 0, so a free-space object whose size is 0 never advances
 * and the decoder loops forever (finding F1); it adds that size to a pointer without a bound, so a
 * free-space size near 2^64 wraps the pointer to just before the object and the decoder again never
 * leaves the collection (finding F8); and it copies an object of the size it claims even
 * when that runs past the end of its collection, reading beyond its buffer and crashing (finding
 * F4). This walk makes the same steps and reports the first collection where a step would be 0 or
 * an object (free space included: in a valid file it is exactly the rest) would end past the
 * collection.
 *
 * A heap collection is metadata: it never lies inside a dataset's raw data, so for files over 64
 * MiB the scan skips those byte ranges (contiguous storage: H5Dget_offset / H5Dget_storage_size;
 * chunked: each chunk's address and size); the rest of a tick file is a few kilobytes of object
 * headers, B-trees and heaps. Smaller files are scanned whole: there the cost is small, and a
 * corrupt dataset header cannot hide a heap. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "mm_h5guard.h"
#include "mm_internal.h"

typedef struct range {
    uint64_t lo, hi; /* [lo, hi) bytes of raw data */
} range;

typedef struct ranges {
    range *r;
    size_t n, cap;
    int oom;
} ranges;

static void ranges_add(ranges *rs, haddr_t addr, hsize_t size)
{
    if (addr == HADDR_UNDEF || size == 0) return;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        range *r = realloc(rs->r, cap * sizeof *r);
        if (!r) {
            rs->oom = 1;
            return;
        }
        rs->r = r;
        rs->cap = cap;
    }
    rs->r[rs->n++] = (range){(uint64_t)addr, (uint64_t)addr + (uint64_t)size};
}

static void dataset_ranges(hid_t d, ranges *rs)
{
    hid_t dcpl = H5Dget_create_plist(d);
    if (dcpl < 0) return;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    H5Pclose(dcpl);
    if (layout == H5D_CONTIGUOUS) {
        ranges_add(rs, H5Dget_offset(d), H5Dget_storage_size(d));
    } else if (layout == H5D_CHUNKED) {
        hid_t space = H5Dget_space(d);
        hsize_t nchunks = 0;
        if (space >= 0 && H5Dget_num_chunks(d, space, &nchunks) >= 0) {
            for (hsize_t i = 0; i < nchunks && !rs->oom; i++) {
                hsize_t off[H5S_MAX_RANK];
                unsigned mask;
                haddr_t addr;
                hsize_t size;
                if (H5Dget_chunk_info(d, space, i, off, &mask, &addr, &size) >= 0)
                    ranges_add(rs, addr, size);
            }
        }
        if (space >= 0) H5Sclose(space);
    }
}

#if H5_VERSION_GE(1, 12, 0)
static herr_t visit(hid_t obj, const char *name, const H5O_info2_t *info, void *data)
#else
static herr_t visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
#endif
{
    if (info->type != H5O_TYPE_DATASET) return 0;
    hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
    if (d >= 0) {
        dataset_ranges(d, data);
        H5Dclose(d);
    }
    return 0;
}

static int cmp_range(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

/* The first "GCOL" that lies wholly in p[0, len), or NULL: memchr (vectorised in libc) for its
 * first byte, then the other three. A quarter of the instructions of glibc's memmem for this
 * needle on tick files (about 0.9 against 3.7 an input byte: callgrind, docs/perf.md). */
static const unsigned char *find_gcol(const unsigned char *p, size_t len)
{
    while (len >= 4) {
        const unsigned char *g = memchr(p, 'G', len - 3);
        if (!g) return NULL;
        if (g[1] == 'C' && g[2] == 'O' && g[3] == 'L') return g;
        len -= (size_t)(g + 1 - p);
        p = g + 1;
    }
    return NULL;
}

/* Offset of a heap whose signature starts in d[from, to) and which HDF5 cannot decode safely, or
 * -1. */
static int64_t scan(const unsigned char *d, size_t n, size_t from, size_t to, const char **why)
{
    if (to > n) to = n;
    const unsigned char *at = d + from;
    while ((size_t)(at - d) < to) {
        size_t left = n - (size_t)(at - d), span = to - (size_t)(at - d) + 3;
        at = find_gcol(at, span < left ? span : left);
        if (!at) break;
        size_t off = (size_t)(at - d);
        if (off + 16 > n) break;
        uint64_t size = le64(at + 8);
        size_t end = size < n - off ? off + (size_t)size : n;
        for (size_t p = off + 16; p + 16 <= end;) {
            unsigned idx = d[p] | (unsigned)d[p + 1] << 8;
            uint64_t osz = le64(d + p + 8);
            uint64_t step = idx ? 16 + ((osz + 7) & ~(uint64_t)7) : osz;
            if (step == 0) {
                *why = "does not advance";
                return (int64_t)off;
            }
            if (idx &&
                osz > end - p - 16) { /* an object past its collection: HDF5 copies it whole */
                *why = "has an object past its end";
                return (int64_t)off;
            }
            if (!idx && osz > end - p) { /* free space past its collection: HDF5's pointer wraps */
                *why = "has free space past its end";
                return (int64_t)off;
            }
            if (step >= end - p) break;
            p += (size_t)step;
        }
        at++;
    }
    return -1;
}

#if H5_VERSION_GE(1, 12, 0)
static herr_t probe_visit(hid_t obj, const char *name, const H5O_info2_t *info, void *data)
#else
static herr_t probe_visit(hid_t obj, const char *name, const H5O_info_t *info, void *data)
#endif
{
    (void)data;
    if (info->type == H5O_TYPE_DATASET) {
        hid_t d = H5Dopen2(obj, name, H5P_DEFAULT);
        if (d >= 0) H5Dclose(d);
    }
    /* Every variable-length string attribute of the object, read as mmsim's readers read them
     * (finding F7: a heap ID naming an object past the heap's end crashes H5HG_read). */
    hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
    if (o < 0) return 0;
    int na = H5Aget_num_attrs(o);
    for (int i = 0; i < na && i < 4096; i++) {
        hid_t a = H5Aopen_by_idx(o, ".", H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, (hsize_t)i,
                                 H5P_DEFAULT, H5P_DEFAULT);
        if (a < 0)
            a = H5Aopen_by_idx(o, ".", H5_INDEX_NAME, H5_ITER_NATIVE, (hsize_t)i, H5P_DEFAULT,
                               H5P_DEFAULT);
        if (a < 0) continue;
        hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
        hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
        if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 && np > 0 &&
            np <= (1 << 20)) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(ft)); /* as read_strs: HDF5 converts no character sets */
            char **buf = calloc((size_t)np, sizeof *buf);
            if (buf && H5Aread(a, mt, buf) >= 0) H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, buf);
            free(buf);
            H5Tclose(mt);
        }
        if (sp >= 0) H5Sclose(sp);
        if (ft >= 0) H5Tclose(ft);
        H5Aclose(a);
    }
    H5Oclose(o);
    return 0;
}

/* Finding F9: HDF5 1.10.8 divides by zero (SIGFPE) in H5Dopen on a chunked layout with a zero
 * dimension, and the layout is parsed only there; finding F7: it reads out of bounds reading a
 * string attribute whose heap ID names an object past its heap. So a file opened read-only first
 * has every dataset opened and every variable-length string attribute read in a child process
 * (fork; the child writes nothing, dumps no core and leaves with _exit). Returns 1 when the child
 * did not exit with status 0 (HDF5 crashed), 0 otherwise, also when fork fails (then the parent's
 * own opens run unprotected) or the file is open for writing (a file mmsim writes into has passed
 * this check when it was read). */
unsigned long mm__h5_guard_probes;

static int datasets_crash_hdf5(hid_t file)
{
    unsigned intent = 0;
    if (H5Fget_intent(file, &intent) < 0 || (intent & H5F_ACC_RDWR)) return 0;
    /* The child holds the write end of a pipe and never writes: the parent's poll() returns when
     * the child's exit closes it, at once (a sleep-and-check loop waited up to twice as long). */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) return 0;
    mm__h5_guard_probes++;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return 0;
    }
    if (pid == 0) {
        close(pfd[0]);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        /* Silent: a sanitizer build would print its report of the crash on the shared stderr. */
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
#if H5_VERSION_GE(1, 12, 0)
        H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_NATIVE, probe_visit, NULL, H5O_INFO_BASIC);
#else
        H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, probe_visit, NULL, H5O_INFO_BASIC);
#endif
        _exit(0);
    }
    close(pfd[1]);
    /* At most 60 s: a heap HDF5 walks forever (F1, F8) in a file over 64 MiB, which the heap scan
     * only reaches after this probe, would otherwise hang here. */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int timed_out = 0, ws = 0, reaped = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left_ms = 60000 - ((long)(t.tv_sec - t0.tv_sec) * 1000 +
                                (long)(t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left_ms <= 0) {
            timed_out = 1;
            break;
        }
        /* Checked every 50 ms as well: a process forked meanwhile by another thread may hold a
         * copy of the write end. */
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int r = poll(&p, 1, left_ms < 50 ? (int)left_ms : 50);
        if (r < 0 && errno != EINTR) break;
        pid_t w = waitpid(pid, &ws, r > 0 ? 0 : WNOHANG); /* r > 0: POLLHUP, the child is gone */
        if (w == pid) {
            reaped = 1;
            break;
        }
        if (w < 0 && errno != EINTR) {
            close(pfd[0]);
            return 0;
        }
    }
    close(pfd[0]);
    if (timed_out) kill(pid, SIGKILL);
    while (!reaped && waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) return 0;
    if (timed_out) return 2;
    return !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* The files up to 64 MiB that passed both checks in this process, by size and XXH3-128 of their
 * bytes: both checks depend on nothing else, so the same bytes opened again (a sweep opens each
 * tape file twice: to list its instruments and to load it; the same file under several names)
 * skip the scan and the child. Content, not path or inode: a file rewritten
 * in place (a fuzzer's input) is checked again. A ring of MM_GUARD_PASSED; larger files are always
 * checked (their probe costs little beside reading them). */
#define MM_GUARD_PASSED 64
static struct {
    size_t n;
    XXH128_hash_t h;
} g_passed[MM_GUARD_PASSED];
static unsigned g_passed_next;
static pthread_mutex_t g_passed_mu = PTHREAD_MUTEX_INITIALIZER;

static int passed_find(size_t n, XXH128_hash_t h)
{
    int hit = 0;
    pthread_mutex_lock(&g_passed_mu);
    for (int i = 0; i < MM_GUARD_PASSED && !hit; i++)
        hit = g_passed[i].n == n && XXH128_isEqual(g_passed[i].h, h);
    pthread_mutex_unlock(&g_passed_mu);
    return hit;
}

static void passed_add(size_t n, XXH128_hash_t h)
{
    pthread_mutex_lock(&g_passed_mu);
    g_passed[g_passed_next % MM_GUARD_PASSED].n = n;
    g_passed[g_passed_next % MM_GUARD_PASSED].h = h;
    g_passed_next++;
    pthread_mutex_unlock(&g_passed_mu);
}

/* The file's bytes for the hash and the scan: files up to MM_GUARD_READ bytes are read into a
 * buffer, larger ones mapped. Mapping costs a page fault per 64 KiB and, on some virtual machines,
 * far more for each page first touched through a new mapping (mmap + XXH3 of a 1.5 MB file: 0.6 ms
 * where pread into a reused buffer + XXH3 took 0.2 ms; docs/perf.md, "Start-up, session 21"); a
 * sweep hashes each tape twice (listing, loading), and its heap keeps the freed buffer for the
 * next. Returns MAP_FAILED when that fails (then, as when mapping fails, no hash and no scan: the
 * child probe still runs). */
#define MM_GUARD_READ ((size_t)8 << 20)
size_t mm__h5_guard_pread(int fd, void *b, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (unsigned char *)b + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

static unsigned char *guard_map(int fd, size_t n)
{
    if (n <= MM_GUARD_READ) {
        unsigned char *b = malloc(n);
        if (b && mm__h5_guard_pread(fd, b, n) == n) return b;
        free(b);
        return MAP_FAILED;
    }
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    return m == MAP_FAILED ? MAP_FAILED : (unsigned char *)m;
}

static void guard_unmap(unsigned char *m, size_t n)
{
    if (n <= MM_GUARD_READ)
        free(m);
    else
        munmap(m, n);
}

int mm__h5_guard(hid_t file, const char *path, mm_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    int rc = 0;
    ranges rs = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 16) goto out;
    size_t n = (size_t)st.st_size;
    /* Files up to 64 MiB: the heap scan first (whole file, no HDF5 call), then the child probe.
     * Larger ones: the probe first (it has a time limit), since the scan then needs the datasets'
     * ranges, read by opening them. The dataset ranges come from the file itself: a corrupt header
     * could claim that a heap is raw data, hence the whole scan of smaller files (about 30 ms at
     * most). */
    int whole = n <= ((size_t)64 << 20);
    H5E_auto2_t func;
    void *fdata;
    H5Eget_auto2(H5E_DEFAULT, &func, &fdata);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    int crash = whole ? 0 : datasets_crash_hdf5(file);
    if (!whole && !crash) {
#if H5_VERSION_GE(1, 12, 0)
        H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &rs, H5O_INFO_BASIC);
#else
        H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &rs, H5O_INFO_BASIC);
#endif
    }
    H5Eset_auto2(H5E_DEFAULT, func, fdata);
    if (rs.oom) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
        goto out;
    }
    int64_t bad = -1;
    const char *why = "";
    XXH128_hash_t h = {0, 0};
    if (!crash) {
        unsigned char *m = guard_map(fd, n);
        if (m != MAP_FAILED && whole) {
            h = XXH3_128bits(m, n);
            if (passed_find(n, h)) {
                guard_unmap(m, n);
                goto out;
            }
        }
        if (m != MAP_FAILED) {
            if (rs.n) qsort(rs.r, rs.n, sizeof *rs.r, cmp_range);
            size_t from = 0;
            for (size_t i = 0; i <= rs.n && bad < 0; i++) {
                size_t to = i < rs.n ? (size_t)(rs.r[i].lo < n ? rs.r[i].lo : n) : n;
                if (to > from) bad = scan(m, n, from, to, &why);
                if (i < rs.n && rs.r[i].hi > from) from = rs.r[i].hi < n ? (size_t)rs.r[i].hi : n;
            }
            guard_unmap(m, n);
        }
    }
    if (bad >= 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s: corrupt HDF5 file (global heap at byte %lld %s)", path,
                      (long long)bad, why);
        goto out;
    }
    int hashed = whole && (h.low64 | h.high64);
    /* A file an earlier process probed (the record, when the caller set one) skips the child. */
    int recorded = hashed && mm__h5_guard_record_has(n, h);
    if (whole && !recorded) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        crash = datasets_crash_hdf5(file);
        H5Eset_auto2(H5E_DEFAULT, func, fdata);
    }
    if (crash)
        rc = mm__errf(err, MM_EFORMAT, "%s: corrupt HDF5 file (HDF5 %s reading it)", path,
                      crash == 2 ? "does not finish" : "crashes");
    else if (hashed) {
        passed_add(n, h);
        if (!recorded) mm__h5_guard_record_add(n, h);
    }
out:
    free(rs.r);
    close(fd);
    return rc;
}
