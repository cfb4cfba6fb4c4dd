/* Shared by the fuzz targets: hand fuzzer bytes to an API that takes a path.
 *  - mm_fuzz_mem_file: a memfd file, named "/proc/self/fd/N"; it lives only in memory and
 * disappears with its last descriptor. Enough for open(2)/fopen/zlib (the importers).
 *  - mm_fuzz_tmp_file: a real file in $TMPDIR (default /tmp), one per process, rewritten for every
 * input and removed at exit. HDF5 needs it: H5Fopen resolves the path with realpath(3), and a
 * memfd's link target
 *    "/memfd:NAME (deleted)" does not resolve, so every memfd input failed with "cannot open HDF5
 * file". Header-only (static functions) so each target stays one source file. */
#ifndef MM_FUZZ_MEM_FILE_H
#define MM_FUZZ_MEM_FILE_H

#define _GNU_SOURCE /* memfd_create */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes n bytes of p to a new memfd; path (cap bytes) receives its name. Returns the descriptor
 * (the caller closes it). Aborts when the kernel refuses: that is the harness failing, not the
 * target. */
static inline int mm_fuzz_mem_file(const uint8_t *p, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("mmsim-fuzz", 0);
    if (fd < 0) abort();
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, p + off, n - off);
        if (w <= 0) abort();
        off += (size_t)w;
    }
    /* A descriptor of three digits, whatever the process inherited: the path is in the messages the
     * targets check byte by byte, and its length must not change a run's coverage. */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 100);
    if (high < 0 || high > 999) abort();
    close(fd);
    snprintf(path, cap, "/proc/self/fd/%d", high);
    return high;
}

static char mm__fuzz_tmp_path[256];

static void mm__fuzz_tmp_remove(void)
{
    if (mm__fuzz_tmp_path[0]) unlink(mm__fuzz_tmp_path);
}

/* Writes n bytes of p to this process's scratch file (created on first use,
 * "<dir>/mmsim-fuzz-<pid, 7 digits>.h5": a fixed length, so that a run's coverage does not depend
 * on the pid's width, tools/fuzz.sh makes <dir> a fixed-length mktemp name); returns its path.
 * Aborts when the file cannot be written (the harness failing, not the target). */
static inline const char *mm_fuzz_tmp_file(const uint8_t *p, size_t n)
{
    if (!mm__fuzz_tmp_path[0]) {
        /* Not /dev/shm: a crashing run leaves the file behind (atexit does not run), and the sweep
         * tests check that /dev/shm holds nothing after mmsim exits. */
        const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(mm__fuzz_tmp_path, sizeof mm__fuzz_tmp_path, "%s/mmsim-fuzz-%07ld.h5", dir,
                 (long)getpid());
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

/* The contract every target checks on a failure: a non-empty single line that starts with the path
 * it was given ("PATH: why" or "PATH:LINE: why"). Aborts with the offending message otherwise. */
static inline void mm_fuzz_check_msg(const char *target, int rc, const char *msg, const char *path)
{
    if (!msg[0] || strchr(msg, '\n') || strncmp(msg, path, strlen(path))) {
        fprintf(stderr, "%s: bad error message for %s (rc %d): '%s'\n", target, path, rc, msg);
        abort();
    }
}

#endif
