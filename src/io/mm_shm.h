/* Anonymous-after-creation POSIX shared memory (see tickmem.c). */
#ifndef MM_SHM_H
#define MM_SHM_H

#include <stddef.h>

/* Map `bytes` of zeroed shared memory whose name is already unlinked. Returns NULL and *rc =
 * -errno. */
void *mm__shm_map(size_t bytes, int *rc);

#endif
