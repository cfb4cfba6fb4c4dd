/* Allocation-failure injection (docs/alloc-fail.md): a counting allocator linked in front of the C
 * library with -Wl,--wrap, so only calls made by the objects of this program and of mmsim's static
 * libraries (core, io, sweep) are counted and can fail; HDF5's, zlib's and libc's own allocations
 * are not.
 *
 * Counted and failable: malloc, calloc, realloc, strdup, strndup, aligned_alloc, posix_memalign and
 * XXH3_createState. Every block they return is tracked (with the call that made it) until free or
 * XXH3_freeState, so a test can ask how many blocks are still live. Tools and tests only. */
#ifndef MM_ALLOC_FAIL_H
#define MM_ALLOC_FAIL_H

#include <stddef.h>
#include <stdint.h>

/* Start counting from zero; the call numbered fail_at (1-based) returns NULL (posix_memalign:
 * ENOMEM), every other call succeeds. fail_at 0: count only. Tracking of live blocks starts empty.
 */
void af_arm(int64_t fail_at);
/* Like af_arm, but call number `at` only records its site (af_hit_fn, af_hit_caller) and succeeds:
 * tells where a run that crashed was refused. */
void af_arm_observe(int64_t at);
/* While armed, call number c (1 <= c <= cap) stores its caller's return address in sites[c - 1]
 * (the harness's thinning, test_alloc_fail --sites). NULL: record nothing. */
void af_record_sites(void **sites, int64_t cap);
/* Stop counting and failing; live blocks stay tracked (af_live) until they are freed. */
void af_disarm(void);
/* Calls counted since af_arm. */
int64_t af_count(void);
/* 1 once the call numbered fail_at has been refused. */
int af_hit(void);
/* Which function failed and the return address of its caller (0 if none yet). */
const char *af_hit_fn(void);
void *af_hit_caller(void);

/* Blocks allocated since af_arm and not yet freed. af_live_block(i, ...) describes the i-th one (i
 * < n): its size, the call number that made it and the caller's return address. */
int64_t af_live(void);
int af_live_block(int64_t i, size_t *size, int64_t *call, const char **fn, void **caller);

#endif
