// Compile check: the model's per-event step (src/core/mm_step.h) and the RNG compile under nvcc as
// __host__ __device__ code. Built whenever Meson finds nvcc (option cuda=auto); nothing runs, since
// the development machines have no GPU. The CUDA engine (a later issue) is built on exactly these
// functions.
#include "mm_rng.h"
#include "mm_step.h"

// One thread per combination; events streamed in order. Arguments are device arrays.
__global__ void mm_step_compile_kernel(mm_state *st, const mm_derived *d, const mm_event *ev,
                                       int64_t n_events, int n_combos)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n_combos) return;
    mm_state s = st[j];
    for (int64_t i = 0; i < n_events; i++)
        mm_step_c(&s, &ev[i], &d[j], nullptr);
    mm_u32x4 r = mm_rng4(42, (uint32_t)j, 0, 0, 0);
    s.fees += mm_det_log(mm_u01(r.v[0], r.v[1])) * 0.0;
    st[j] = s;
}
