// The CUDA engine (docs/perf-gpu.md): one thread per slot (a combination on a path), each running
// mm__thread_advance (src/core/accel/mm_thread.h) over a tile of events per launch, its state in a
// local copy (registers and local memory) between loads and stores of global memory. The tape's
// columns and tables live on the device once per upload; the host code is thin: allocate, copy,
// launch, copy back, and turn every CUDA error into one line in mm_error. Compiled with
// --fmad=false (no contraction) and IEEE division and square root (nvcc's defaults without
// --use_fast_math), so the floating point is the CPU's, operation for operation.
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_cuda.h"
#include "mm_thread.h"

extern "C" int mm__errf(mm_error *err, int code, const char *fmt, ...);

namespace
{

int cuda_fail(mm_error *err, cudaError_t e, const char *what)
{
    int code =
        e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice
            ? -ENODEV
        : e == cudaErrorMemoryAllocation ? -ENOMEM
                                         : -EIO;
    return mm__errf(err, code, "cuda: %s: %s", what, cudaGetErrorString(e));
}

__global__ void advance_kernel(mm__tape_view v, const mm_derived *d, mm_state *st, int64_t m,
                               int64_t i0, int64_t i1)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    mm_state s = st[j];
    mm__thread_advance(&v, &d[j], &s, i0, i1);
    st[j] = s;
}

} // namespace

struct mm__cuda_tape {
    int device;
    mm__tape_view host; // the view uploaded (host pointers)
    mm__tape_view dev;  // the same view with device pointers
    void *block;        // one allocation holding every column and table
};

extern "C" int mm__cuda_devices(int *n, char (*names)[128], int max, int *runtime, int *driver,
                                mm_error *err)
{
    *n = 0;
    *runtime = *driver = 0;
    cudaError_t e = cudaRuntimeGetVersion(runtime);
    if (e == cudaSuccess) e = cudaDriverGetVersion(driver);
    if (e != cudaSuccess) return cuda_fail(err, e, "version");
    e = cudaGetDeviceCount(n);
    if (e != cudaSuccess) {
        *n = 0;
        return cuda_fail(err, e, "cudaGetDeviceCount");
    }
    for (int i = 0; i < *n && i < max; i++) {
        cudaDeviceProp p;
        if ((e = cudaGetDeviceProperties(&p, i)) != cudaSuccess)
            return cuda_fail(err, e, "cudaGetDeviceProperties");
        snprintf(names[i], 128, "%.80s (sm_%d%d, %.0f GiB)", p.name, p.major, p.minor,
                 (double)p.totalGlobalMem / (1 << 30));
    }
    return 0;
}

extern "C" int mm__cuda_tape_upload(const mm__tape_view *v, int device, mm__cuda_tape **out,
                                    mm_error *err)
{
    *out = NULL;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return cuda_fail(err, e, "cudaGetDeviceCount");
    if (device < 0 || device >= count)
        return mm__errf(err, -ENODEV, "cuda: device %d: %d device%s visible", device, count,
                        count == 1 ? "" : "s");
    if ((e = cudaSetDevice(device)) != cudaSuccess) return cuda_fail(err, e, "cudaSetDevice");
    // Column sizes, in the view's order; each piece 256-byte aligned in one allocation.
    const size_t n = (size_t)v->n;
    struct piece {
        const void *src;
        size_t bytes;
    } pc[32];
    int np = 0;
    pc[np++] = {v->ts_ns, n * 8};
    pc[np++] = {v->bid_px, n * 4};
    pc[np++] = {v->ask_px, n * 4};
    pc[np++] = {v->bid_sz, n * 4};
    pc[np++] = {v->ask_sz, n * 4};
    pc[np++] = {v->trade_px, n * 4};
    pc[np++] = {v->trade_sz, n * 4};
    pc[np++] = {v->trade_side, n};
    pc[np++] = {v->mid2, n * 8};
    for (int k = 0; k < MM_MARKOUTS; k++)
        pc[np++] = {v->mid2_h[k], n * 8};
    pc[np++] = {v->nsamp, n * 4};
    pc[np++] = {v->traded[0], n * 8};
    pc[np++] = {v->traded[1], n * 8};
    pc[np++] = {v->lat_e, v->lat_e ? n * 8 : 0};
    pc[np++] = {v->lat_r, v->lat_r ? n * 8 : 0};
    pc[np++] = {v->samp_e, v->samp_e ? (size_t)v->nsamp_lat * 8 : 0};
    pc[np++] = {v->samp_r, v->samp_r ? (size_t)v->nsamp_lat * 8 : 0};
    size_t off[32], total = 0;
    for (int k = 0; k < np; k++) {
        off[k] = total;
        total += (pc[k].bytes + 255) / 256 * 256;
    }
    mm__cuda_tape *t = (mm__cuda_tape *)calloc(1, sizeof *t);
    if (!t) return mm__errf(err, -ENOMEM, "cuda: out of host memory");
    t->device = device;
    t->host = *v;
    if ((e = cudaMalloc(&t->block, total ? total : 1)) != cudaSuccess) {
        free(t);
        return cuda_fail(err, e, "cudaMalloc (the tape)");
    }
    char *base = (char *)t->block;
    for (int k = 0; k < np && e == cudaSuccess; k++)
        if (pc[k].bytes)
            e = cudaMemcpy(base + off[k], pc[k].src, pc[k].bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(t->block);
        free(t);
        return cuda_fail(err, e, "cudaMemcpy (the tape)");
    }
    mm__tape_view d = *v;
    int k = 0;
    d.ts_ns = (const int64_t *)(base + off[k++]);
    d.bid_px = (const int32_t *)(base + off[k++]);
    d.ask_px = (const int32_t *)(base + off[k++]);
    d.bid_sz = (const int32_t *)(base + off[k++]);
    d.ask_sz = (const int32_t *)(base + off[k++]);
    d.trade_px = (const int32_t *)(base + off[k++]);
    d.trade_sz = (const int32_t *)(base + off[k++]);
    d.trade_side = (const int8_t *)(base + off[k++]);
    d.mid2 = (const int64_t *)(base + off[k++]);
    for (int h = 0; h < MM_MARKOUTS; h++)
        d.mid2_h[h] = (const int64_t *)(base + off[k++]);
    d.nsamp = (const int32_t *)(base + off[k++]);
    d.traded[0] = (const int64_t *)(base + off[k++]);
    d.traded[1] = (const int64_t *)(base + off[k++]);
    d.lat_e = v->lat_e ? (const int64_t *)(base + off[k]) : NULL;
    k++;
    d.lat_r = v->lat_r ? (const int64_t *)(base + off[k]) : NULL;
    k++;
    d.samp_e = v->samp_e ? (const int64_t *)(base + off[k]) : NULL;
    k++;
    d.samp_r = v->samp_r ? (const int64_t *)(base + off[k]) : NULL;
    d.dv = NULL; /* the depth stream stays on the host: book = l2 is refused on this engine */
    /* So does the signal: signal_skew other than 0 is refused on this engine. */
    d.signal = NULL;
    t->dev = d;
    *out = t;
    return 0;
}

extern "C" void mm__cuda_tape_free(mm__cuda_tape *t)
{
    if (!t) return;
    cudaSetDevice(t->device);
    cudaFree(t->block);
    free(t);
}

extern "C" const mm__tape_view *mm__cuda_tape_host(const mm__cuda_tape *t)
{
    return &t->host;
}

extern "C" int mm__cuda_run(const mm__cuda_tape *t, const mm_derived *d, mm_state *st, int64_t m,
                            int64_t i0, int64_t i1, int64_t tile, int block, mm_error *err)
{
    if (m <= 0 || i1 <= i0) return 0;
    if (block <= 0) block = 256;
    if (tile <= 0) tile = i1 - i0;
    cudaError_t e = cudaSetDevice(t->device);
    if (e != cudaSuccess) return cuda_fail(err, e, "cudaSetDevice");
    mm_derived *dd = NULL;
    mm_state *ds = NULL;
    if ((e = cudaMalloc(&dd, (size_t)m * sizeof *dd)) != cudaSuccess ||
        (e = cudaMalloc(&ds, (size_t)m * sizeof *ds)) != cudaSuccess) {
        cudaFree(dd);
        return cuda_fail(err, e, "cudaMalloc (the states)");
    }
    int rc = 0;
    if ((e = cudaMemcpy(dd, d, (size_t)m * sizeof *dd, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (e = cudaMemcpy(ds, st, (size_t)m * sizeof *ds, cudaMemcpyHostToDevice)) != cudaSuccess)
        rc = cuda_fail(err, e, "cudaMemcpy (to the device)");
    unsigned grid = (unsigned)((m + block - 1) / block);
    for (int64_t a = i0; rc == 0 && a < i1; a += tile) {
        int64_t b = i1 - a < tile ? i1 : a + tile;
        advance_kernel<<<grid, block>>>(t->dev, dd, ds, m, a, b);
        if ((e = cudaGetLastError()) != cudaSuccess) rc = cuda_fail(err, e, "launch");
    }
    if (rc == 0 && (e = cudaDeviceSynchronize()) != cudaSuccess)
        rc = cuda_fail(err, e, "the kernel");
    if (rc == 0 &&
        (e = cudaMemcpy(st, ds, (size_t)m * sizeof *ds, cudaMemcpyDeviceToHost)) != cudaSuccess)
        rc = cuda_fail(err, e, "cudaMemcpy (the states back)");
    cudaFree(dd);
    cudaFree(ds);
    return rc;
}

extern "C" int mm__cuda_advance(const mm__tape_view *v, const mm_derived *d, mm_state *st,
                                int64_t m, int64_t i0, int64_t i1, int device, mm_error *err)
{
    mm__cuda_tape *t = NULL;
    int rc = mm__cuda_tape_upload(v, device, &t, err);
    if (rc == 0) rc = mm__cuda_run(t, d, st, m, i0, i1, 0, 256, err);
    mm__cuda_tape_free(t);
    return rc;
}
