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

#if !defined(NDEBUG) && !defined(__OPTIMIZE__)
#include <assert.h>
#define MM_HD_ASSERT(x) assert(x)
#else
#define MM_HD_ASSERT(x) ((void)0)
#endif

#endif
