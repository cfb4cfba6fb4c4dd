/* The CUDA engine's host interface (cuda/engine_cuda.cu; docs/perf-gpu.md). Built when Meson finds
 * nvcc (MM_HAVE_CUDA); the per-thread work is src/core/accel/mm_thread.h, the same text the CPU
 * emulation and its test run. Every function returns 0, -ENODEV (no driver or no device: err says
 * which), -ENOMEM (device or pinned memory) or -EIO (any other CUDA error, a kernel fault
 * included), with err naming the CUDA call and its error string. Nothing here prints or exits. */
#ifndef MM_CUDA_H
#define MM_CUDA_H

#include <stdint.h>

#include "mm_event.h"
#include "mmsim/mmsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA runtime and driver versions (1000 x major + 10 x minor) and the visible devices: *n of
 * them, the first max named in names. */
int mm__cuda_devices(int *n, char (*names)[128], int max, int *runtime, int *driver, mm_error *err);

/* A tape uploaded to a device: its columns and tables once, for any number of runs. */
typedef struct mm__cuda_tape mm__cuda_tape;
int mm__cuda_tape_upload(const mm__tape_view *v, int device, mm__cuda_tape **out, mm_error *err);
void mm__cuda_tape_free(mm__cuda_tape *t);
/* The host view the upload was made from (to recognise it). */
const mm__tape_view *mm__cuda_tape_host(const mm__cuda_tape *t);

/* m states st[0..m) (constants d[0..m)) through events [i0, i1) of the uploaded tape: one thread
 * per state (blocks of `block` threads, 0: 256), one launch per `tile` events (0: all), the states
 * copied back. Bit for bit mm__thread_emulate. */
int mm__cuda_run(const mm__cuda_tape *t, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                 int64_t i1, int64_t tile, int block, mm_error *err);

/* Upload, run, free: m states through [i0, i1) of view v on device `device`. */
int mm__cuda_advance(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                     int64_t i0, int64_t i1, int device, mm_error *err);

#ifdef __cplusplus
}
#endif

#endif
