/* MM_HD marks functions that both the host compiler and nvcc compile (the CUDA engine reuses core). */
#ifndef MM_HD_H
#define MM_HD_H

#if defined(__CUDACC__)
#define MM_HD __host__ __device__ __forceinline__
#else
#define MM_HD static inline
#endif

#endif
