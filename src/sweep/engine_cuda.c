/* The CUDA engine (docs/perf-gpu.md): the chunks in order on one GPU, each chunk's slots (its
 * combinations x paths) set up and finished on the host (mm__sim_slots_tape) and advanced through
 * the tape on the device (cuda/engine_cuda.cu), one thread per slot. Each recorded tape is uploaded
 * once; a synthetic day (docs/montecarlo.md 10) is uploaded for its chunk. The table is the one
 * every engine writes: the kernel is bit for bit the batched CPU engine (tests/test_thread.c on the
 * CPU, tools/gpu-check on a GPU). Built without CUDA, the engine exists and says so (mm_engine.h:
 * sweep_run.c asks mm__cuda_probe before any state). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_config.h"
#include "mm_engine.h"
#if MM_HAVE_CUDA
#include "mm_cuda.h"
#endif

#if MM_HAVE_CUDA
#if MM_HAVE_OPENMP
#include <omp.h>
#endif

/* The device of the calling host thread: with several devices, the threads engine's OpenMP thread
 * k drives device k (engine_threads.c runs num_threads(workers) = the number of devices). */
static int thread_slot(void)
{
#if MM_HAVE_OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

typedef struct cuda_state {
    int device;
    mm__cuda_tape **tapes; /* [n_tapes], NULL for a synthetic tape */
    int32_t n;
} cuda_state;

/* mm__advance_fn on the device: the uploaded tape whose host view this is, or this view uploaded
 * for the call (a synthetic day). */
static int advance_gpu(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                       void *user, mm_error *err)
{
    cuda_state *cs = user;
    for (int32_t t = 0; t < cs->n; t++)
        if (cs->tapes[t] && mm__cuda_tape_host(cs->tapes[t])->ts_ns == v->ts_ns &&
            mm__cuda_tape_host(cs->tapes[t])->n == v->n)
            return mm__cuda_run(cs->tapes[t], d, st, m, 0, v->n, 0, 256, err);
    return mm__cuda_advance(v, d, st, m, 0, v->n, cs->device, err);
}

/* Several devices: the calling thread's own (user: cuda_state[workers]). */
static int advance_gpus(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                        void *user, mm_error *err)
{
    return advance_gpu(v, d, st, m, (cuda_state *)user + thread_slot(), err);
}
#endif

/* Test hook: MMSIM_CUDA_EMULATE=N (N >= 1) runs this engine's host loop with the kernel's
 * per-thread work on the CPU (mm__thread_emulate, in the kernel's order) as if N devices were
 * visible, so that the engine's chunking, setup and finish, on one device or spread over several,
 * are tested end to end on machines without a GPU (tests/test_montecarlo.c). Returns N, or 0. */
static int emulated(void)
{
    const char *e = getenv("MMSIM_CUDA_EMULATE");
    if (!e || *e < '1' || *e > '9' || (e[1] && (e[1] < '0' || e[1] > '9' || e[2]))) return 0;
    return atoi(e);
}

int mm__cuda_probe(int device, mm_error *err)
{
    int emu = emulated();
    if (emu) {
        if (device >= emu)
            return mm__errf(err, -ENODEV, "engine cuda: device %d: %d CUDA device%s visible",
                            device, emu, emu == 1 ? "" : "s");
        return device == MM_SWEEP_DEVICE_ALL ? emu : 1;
    }
#if MM_HAVE_CUDA
    int n = 0, rt = 0, drv = 0;
    char names[1][128];
    mm_error e = {0};
    int rc = mm__cuda_devices(&n, names, 1, &rt, &drv, &e);
    if (rc) return mm__errf(err, rc, "engine cuda: cannot run here: %s", e.msg);
    if (n < 1 || device >= n)
        return mm__errf(err, -ENODEV, "engine cuda: device %d: %d CUDA device%s visible",
                        device < 0 ? 0 : device, n, n == 1 ? "" : "s");
    return device == MM_SWEEP_DEVICE_ALL ? n : 1;
#else
    (void)device;
    return mm__errf(err, -ENODEV,
                    "engine cuda: this mmsim was built without CUDA (nvcc was not found when it "
                    "was built)");
#endif
}
int mm_sweep_cuda_describe(char *buf, size_t cap)
{
#if MM_HAVE_CUDA
    int n = 0, rt = 0, drv = 0;
    char names[8][128];
    mm_error e = {0};
    int rc = mm__cuda_devices(&n, names, 8, &rt, &drv, &e);
    size_t len = (size_t)snprintf(buf, cap, "runtime %d.%d, driver ", rt / 1000, rt % 1000 / 10);
    if (len < cap && drv)
        len += (size_t)snprintf(buf + len, cap - len, "%d.%d", drv / 1000, drv % 1000 / 10);
    else if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, "none");
    if (rc && len < cap) {
        snprintf(buf + len, cap - len, "; no device (%s)", e.msg);
        return rc;
    }
    for (int i = 0; i < n && i < 8 && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "; devices: ", names[i]);
    if (n == 0 && len < cap) snprintf(buf + len, cap - len, "; no device");
    return n;
#else
    snprintf(buf, cap, "not built (nvcc was not found when this mmsim was built)");
    return -ENODEV;
#endif
}

/* The chunks in order on one device (the serial engine's loop: each emitted and fsync'd), or, with
 * several, the threads engine's windows (4 chunks per device, taken as they finish, emitted in
 * chunk order), one host thread per device; the slots advanced by `advance`: the device(s), or
 * their emulation. */
static int run_with(mm__run *r, int devices, mm__advance_fn advance, void *user, mm_error *err)
{
    r->advance = advance;
    r->advance_user = user;
    int rc =
        devices > 1 ? mm__engine_threads.run(r, devices, err) : mm__engine_serial.run(r, 1, err);
    r->advance = NULL;
    r->advance_user = NULL;
    return rc;
}

static int run_cuda(mm__run *r, int workers, mm_error *err)
{
    int n_dev = workers; /* mm__cuda_probe's count (sweep_run.c) */
    if (emulated()) {
        mm__emulation em = {4096, 128};
        return run_with(r, n_dev, mm__thread_emulate, &em, err);
    }
#if MM_HAVE_CUDA
    /* The devices: the one asked for, or 0 .. n_dev - 1; each with its own copy of the tapes. */
    cuda_state *cs = calloc((size_t)n_dev, sizeof *cs);
    int rc = cs ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int k = 0; k < n_dev && rc == 0; k++) {
        cs[k].device = r->o->device == MM_SWEEP_DEVICE_ALL ? k : r->o->device;
        cs[k].n = r->n_tapes;
        cs[k].tapes = calloc((size_t)r->n_tapes, sizeof(mm__cuda_tape *));
        if (!cs[k].tapes) rc = mm__errf(err, -ENOMEM, "out of memory");
        for (int32_t t = 0; t < r->n_tapes && rc == 0; t++)
            if (!(r->o->synthetic && r->o->synthetic[t]))
                rc = mm__cuda_tape_upload(&r->tapes[t].v, cs[k].device, &cs[k].tapes[t], err);
    }
    if (rc == 0)
        rc = n_dev > 1 ? run_with(r, n_dev, advance_gpus, cs, err)
                       : run_with(r, 1, advance_gpu, &cs[0], err);
    for (int k = 0; cs && k < n_dev; k++) {
        for (int32_t t = 0; cs[k].tapes && t < r->n_tapes; t++)
            mm__cuda_tape_free(cs[k].tapes[t]);
        free(cs[k].tapes);
    }
    free(cs);
    return rc;
#else
    (void)r;
    return mm__cuda_probe(0, err);
#endif
}

/* Chunks as large as the GPU takes (MM__ENGINE_GPU_CHUNKS; workers = the devices); one process,
 * no fork (a CUDA context does not survive one). */
const mm__engine mm__engine_cuda = {"cuda", MM__ENGINE_NO_FORK | MM__ENGINE_GPU_CHUNKS, run_cuda,
                                    4};
