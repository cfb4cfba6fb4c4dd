/* Memory for tapes: heap blocks and POSIX shared-memory segments.
 *
 * A shared segment is created with shm_open(O_CREAT | O_EXCL), sized, mapped MAP_SHARED and
 * unlinked at once: only the mapping keeps it alive, so a crash of any process leaks nothing in
 * /dev/shm. Its pages are reserved at creation (posix_fallocate), so a /dev/shm too small for the
 * tape is -ENOSPC, never SIGBUS. Children forked after mm_ticks_seal() inherit the mapping
 * read-only (the pages are shared, never copied). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm_internal.h"
#include "mm_shm.h"

void *mm__shm_create(size_t bytes, const char *tag, int keep_name, char *name, size_t cap, int *rc)
{
    static atomic_uint counter;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        snprintf(name, cap, "/mmsim.%s%ld.%u", tag, (long)getpid(), atomic_fetch_add(&counter, 1));
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        *rc = -errno;
        return NULL;
    }
    /* Reserve every page now: ftruncate alone makes a sparse segment, and when /dev/shm is too
     * small the first touch of a page that cannot be allocated is SIGBUS (MAP_POPULATE ignores the
     * failure), a crash of the whole sweep. posix_fallocate reports ENOSPC here instead. */
    void *p = MAP_FAILED;
    int saved = 0;
    if (ftruncate(fd, (off_t)bytes) != 0)
        saved = errno;
    else if ((saved = posix_fallocate(fd, 0, (off_t)bytes)) == 0) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED) saved = errno;
    }
    if (!keep_name || p == MAP_FAILED) shm_unlink(name);
    close(fd);
    if (p == MAP_FAILED) {
        *rc = -saved;
        return NULL;
    }
    *rc = 0;
    return p;
}

void *mm__shm_map(size_t bytes, int *rc)
{
    char name[64];
    return mm__shm_create(bytes, "", 0, name, sizeof name, rc);
}

int mm_ticks_alloc(mm_ticks *t, int64_t n, int kind)
{
    return mm_ticks_alloc_depth(t, n, 0, kind);
}

int mm_ticks_alloc_depth(mm_ticks *t, int64_t n, int64_t depth_n, int kind)
{
    return mm_ticks_alloc_signal(t, n, depth_n, 0, kind);
}

int mm_ticks_alloc_signal(mm_ticks *t, int64_t n, int64_t depth_n, int signal, int kind)
{
    if (!t || n < 0 || n > INT64_C(1) << 40 || depth_n < 0 || depth_n > INT64_C(1) << 40 ||
        (signal != 0 && signal != 1))
        return -EINVAL;
    if (kind == MM_MEM_HEAP) return mm__ticks_alloc_heap_depth(t, n, depth_n, signal);
    if (kind != MM_MEM_SHM) return -EINVAL;
    size_t bytes = mm__ticks_block_bytes(n, depth_n, signal);
    int rc;
    void *base = mm__shm_map(bytes, &rc);
    if (!base) return rc;
    mm__ticks_bind(t, base, n, depth_n, signal);
    t->mem_base = base;
    t->mem_bytes = bytes;
    t->mem_kind = MM_MEM_SHM;
    return 0;
}

int mm_ticks_seal(mm_ticks *t)
{
    if (!t || t->mem_kind != MM_MEM_SHM) return -EINVAL;
    if (mprotect(t->mem_base, t->mem_bytes, PROT_READ) != 0) return -errno;
    return 0;
}

void mm_ticks_free(mm_ticks *t)
{
    if (!t) return;
    if (t->mem_kind == MM_MEM_HEAP)
        free(t->mem_base);
    else if (t->mem_kind == MM_MEM_SHM)
        munmap(t->mem_base, t->mem_bytes);
    memset(t, 0, sizeof *t);
}
