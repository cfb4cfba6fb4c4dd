/* MM_HD marks functions that both the host compiler and nvcc compile (the CUDA engine reuses core).
 * MM_HD_ASSERT(x) checks an invariant of the step in unoptimised debug builds (meson
 * --buildtype=debug, the sanitizer build): active when NDEBUG is not defined and the compiler does
 * not optimise, so the release kernels pay nothing. assert() is valid in device code, so the same
 * text holds under nvcc. */
#ifndef MM_HD_H
#define MM_HD_H

#if defined(__CUDACC__)
#define MM_HD __host__ __device__ __forceinline__
#else
#define MM_HD static inline
#endif

/* MM_HD_BIG: MM_HD for the step's large helpers that many call sites share (a fill, a latency
 * draw). In the sanitizer builds they stay out of line: inlined at each site, the instrumented
 * batched kernel took 50 s of compiling per instruction set (docs/testing.md, "CI's time"). The
 * release and CUDA builds inline them as before. */
#if !defined(__CUDACC__) && (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define MM_HD_BIG static __attribute__((noinline, unused))
#else
#define MM_HD_BIG MM_HD
#endif

#if !defined(NDEBUG) && !defined(__OPTIMIZE__)
#include <assert.h>
#define MM_HD_ASSERT(x) assert(x)
#else
#define MM_HD_ASSERT(x) ((void)0)
#endif

#endif
