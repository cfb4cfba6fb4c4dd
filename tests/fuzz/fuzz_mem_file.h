/* Shared by the fuzz targets: hand fuzzer bytes to an API that takes a path, through a memfd file.
 * The file lives only in memory and disappears with its last descriptor; "/proc/self/fd/N" names it for
 * open(2), HDF5 and zlib alike. Header-only (static functions) so each target stays one source file. */
#ifndef MM_FUZZ_MEM_FILE_H
#define MM_FUZZ_MEM_FILE_H

#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
