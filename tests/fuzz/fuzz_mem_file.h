/* Shared by the fuzz targets: hand fuzzer bytes to an API that takes a path.
 *  - mm_fuzz_mem_file: a memfd file, named "/proc/self/fd/N"; it lives only in memory and disappears with its
 *    last descriptor. Enough for open(2)/fopen/zlib (the importers).
 *  - mm_fuzz_tmp_file: a real file in $TMPDIR (default /tmp), one per process, rewritten for every input
 *    and removed at exit. HDF5 needs it: H5Fopen resolves the path with realpath(3), and a memfd's link target
 *    "/memfd:NAME (deleted)" does not resolve, so every memfd input failed with "cannot open HDF5 file".
 * Header-only (static functions) so each target stays one source file. */
#ifndef MM_FUZZ_MEM_FILE_H
#define MM_FUZZ_MEM_FILE_H

#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes n bytes of p to a new memfd; path (cap bytes) receives its name. Returns the descriptor (the
 * caller closes it). Aborts when the kernel refuses: that is the harness failing, not the target. */
static inline int mm_fuzz_mem_file(const uint8_t *p, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("mmsim-fuzz", 0);
    if (fd < 0) abort();
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

static char mm__fuzz_tmp_path[256];

static void mm__fuzz_tmp_remove(void)
{
    if (mm__fuzz_tmp_path[0]) unlink(mm__fuzz_tmp_path);
}

/* Writes n bytes of p to this process's scratch file (created on first use, "<dir>/mmsim-fuzz-<pid>.h5");
 * returns its path. Aborts when the file cannot be written (the harness failing, not the target). */
static inline const char *mm_fuzz_tmp_file(const uint8_t *p, size_t n)
{
    if (!mm__fuzz_tmp_path[0]) {
        /* Not /dev/shm: a crashing run leaves the file behind (atexit does not run), and the sweep tests
         * check that /dev/shm holds nothing after mmsim exits. */
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(mm__fuzz_tmp_path, sizeof mm__fuzz_tmp_path, "%s/mmsim-fuzz-%ld.h5", dir, (long)getpid());
        atexit(mm__fuzz_tmp_remove);
    }
    int fd = open(mm__fuzz_tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) abort();
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
    if (close(fd)) abort();
    return mm__fuzz_tmp_path;
}

/* 1 when the bytes hold an HDF5 global heap collection that HDF5 1.10.8 (Debian 12's libhdf5-103) cannot
 * survive. Its collection decoder (H5HG__cache_heap_deserialize) trusts every object header:
 *  - finding F1: it advances by `need`, the object's size for the free-space object (index 0), so a
 *    free-space object of size 0 never advances: an endless loop;
 *  - finding F4: an object whose size runs past the end of the collection is later copied whole by
 *    H5HG_read (memcpy of that size): a read past the heap chunk, a segfault (exit 139 from `mmsim info`).
 * Any vlen string (mmsim's format tags, the results' config and inputs) is read through such a heap, so a
 * 30 KB file hangs or crashes mmsim. Not mmsim's bug and not fixable here: the tick and results targets
 * skip such inputs, so fuzzing goes on past them. The walk mirrors HDF5's: a "GCOL" signature, version, 3
 * reserved bytes, an 8-byte collection size, then objects of a 2-byte index, 2-byte reference count, 4
 * reserved bytes, an 8-byte size and the data padded to 8 bytes (8 = sizeof_size of every mmsim file). */
static inline int mm_fuzz_hdf5_heap_unsafe(const uint8_t *d, size_t n)
{
    for (size_t at = 0; at + 16 <= n; at++) {
        if (memcmp(d + at, "GCOL", 4)) continue;
        uint64_t size = 0;
        for (int k = 7; k >= 0; k--) size = size << 8 | d[at + 8 + k];
        size_t end = size < n - at ? at + (size_t)size : n;
        for (size_t p = at + 16; p + 16 <= end;) {
            unsigned idx = d[p] | (unsigned)d[p + 1] << 8;
            uint64_t osz = 0;
            for (int k = 7; k >= 0; k--) osz = osz << 8 | d[p + 8 + k];
            if (idx && osz > end - p - 16) return 1; /* F4 */
            uint64_t need = idx ? 16 + ((osz + 7) & ~(uint64_t)7) : osz;
            if (need == 0) return 1; /* F1 */
            if (need >= end - p) break;
            p += (size_t)need;
        }
    }
    return 0;
}

/* The contract every target checks on a failure: a non-empty single line that starts with the path it
 * was given ("PATH: why" or "PATH:LINE: why"). Aborts with the offending message otherwise. */
static inline void mm_fuzz_check_msg(const char *target, int rc, const char *msg, const char *path)
{
    if (!msg[0] || strchr(msg, '\n') || strncmp(msg, path, strlen(path))) {
        fprintf(stderr, "%s: bad error message for %s (rc %d): '%s'\n", target, path, rc, msg);
        abort();
    }
}

#endif
