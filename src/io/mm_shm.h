/* Anonymous-after-creation POSIX shared memory (see tickmem.c). */
#ifndef MM_SHM_H
#define MM_SHM_H

#include <stddef.h>

/* A POSIX shared-memory segment of `bytes` (zeroed), named "/mmsim.<tag><pid>.<n>" (n counting
 * up in the process; the name into name, cap bytes), its pages reserved (posix_fallocate: a
 * /dev/shm too small is -ENOSPC, never a SIGBUS later) and mapped read-write, MAP_SHARED. keep_name
 * 0: the name is unlinked at once, only the mapping keeps the segment alive; 1: the caller unlinks
 * it once the other processes have opened it by name. Returns NULL and *rc = -errno. */
void *mm__shm_create(size_t bytes, const char *tag, int keep_name, char *name, size_t cap, int *rc);
/* mm__shm_create with its name unlinked at once. */
void *mm__shm_map(size_t bytes, int *rc);

#endif
