// Compile check: the Avellaneda-Stoikov market's step (src/core/mm_asmarket.h) compiles under nvcc
// as __host__ __device__ code, with deterministic floating point (--fmad=false). Built whenever
// Meson finds nvcc; nothing runs. A CUDA engine for the model market runs exactly this kernel
// shape: one thread per path, the constants of one combination, the stream key from (seed, id,
// path).
#include "mm_asmarket.h"

__global__ void mm_as_compile_kernel(const mm__as_derived *d, uint64_t seed, int64_t id,
                                     int n_paths, double *profit, int64_t *final_q)
{
    int path = blockIdx.x * blockDim.x + threadIdx.x;
    if (path >= n_paths) return;
    uint64_t key = mm_stream_key(seed, id, path);
    mm__as_state st;
    mm__as_state_init(d, &st);
    for (int64_t i = 0; i < d->n_steps; i++)
        mm_as_step_c(d, &st, key, i);
    mm__as_state fast;
    mm__as_state_init(d, &fast);
    for (int64_t i = 0; i < d->n_steps; i++)
        mm_as_step_fast(d, &fast, key, i); /* the fast variant compiles for the device too */
    if (fast.q != st.q) final_q[path] = -1;
    profit[path] = st.cash + (double)st.q * mm__as_mid(d, st.m) - (double)d->q0 * d->s0;
    final_q[path] = st.q;
}
