/* The CUDA engine's host interface (cuda/mm_cuda.h) in the `mmsim` executable, which does not link
 * the CUDA runtime: the functions are loaded on first use from the module mmsim-cuda.so
 * (cuda/meson.build, the same object libmmsim links), so that a process that never asks for the
 * engine does not load the runtime and libstdc++ (about 0.5 ms of every start; docs/perf.md,
 * "Start-up, session 20").
 *
 * Which module: $MMSIM_CUDA_MODULE (a path) when set; for the build tree's executable
 * (MM_BUILD_EXE) the build tree's module (MM_CUDA_MODULE_BUILD); for any other, the one installed
 * beside it, <exe dir>/../<libdir>/mmsim/mmsim-cuda.so (also under meson install --destdir). When
 * it does not load, every function fails with -ENODEV and the reason (dlerror). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_cuda.h"
#include "mm_internal.h"

typedef int (*devices_fn)(int *, char (*)[128], int, int *, int *, mm_error *);
typedef int (*upload_fn)(const mm__tape_view *, int, mm__cuda_tape **, mm_error *);
typedef void (*tfree_fn)(mm__cuda_tape *);
typedef const mm__tape_view *(*host_fn)(const mm__cuda_tape *);
typedef int (*run_fn)(const mm__cuda_tape *, const mm_derived *, mm_state *, int64_t, int64_t,
                      int64_t, int64_t, int, mm_error *);
typedef int (*advance_fn)(const mm__tape_view *, const mm_derived *, mm_state *, int64_t, int64_t,
                          int64_t, int, mm_error *);

static struct {
    devices_fn devices;
    upload_fn upload;
    tfree_fn tfree;
    host_fn host;
    run_fn run;
    advance_fn advance;
} F;
static char why[2048];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Appends "path: reason" to why. */
static void note(const char *path, const char *reason)
{
    size_t len = strlen(why);
    if (len < sizeof why - 1)
        snprintf(why + len, sizeof why - len, "%s%s: %s", len ? "; " : "", path, reason);
}

static int try_load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        note(path, e ? e : "cannot load");
        return 0;
    }
    /* Object pointers to function pointers: POSIX dlsym's contract. */
    void *p[6] = {dlsym(h, "mm__cuda_devices"),   dlsym(h, "mm__cuda_tape_upload"),
                  dlsym(h, "mm__cuda_tape_free"), dlsym(h, "mm__cuda_tape_host"),
                  dlsym(h, "mm__cuda_run"),       dlsym(h, "mm__cuda_advance")};
    for (int i = 0; i < 6; i++)
        if (!p[i]) {
            note(path, "not the CUDA engine's module (a function is missing)");
            dlclose(h);
            return 0;
        }
    memcpy(&F.devices, &p[0], sizeof p[0]);
    memcpy(&F.upload, &p[1], sizeof p[1]);
    memcpy(&F.tfree, &p[2], sizeof p[2]);
    memcpy(&F.host, &p[3], sizeof p[3]);
    memcpy(&F.run, &p[4], sizeof p[4]);
    memcpy(&F.advance, &p[5], sizeof p[5]);
    return 1; /* kept loaded for the process's life */
}

static void load(void)
{
    const char *env = getenv("MMSIM_CUDA_MODULE");
    if (env && *env) {
        try_load(env);
        return;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        note("/proc/self/exe", strerror(errno));
        return;
    }
    self[n] = 0;
    /* The build tree's executable takes the build tree's module; any other (installed, or under
     * meson install --destdir) the one installed beside it: never one of another build. */
    if (!strcmp(self, MM_BUILD_EXE)) {
        try_load(MM_CUDA_MODULE_BUILD);
        return;
    }
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    char path[4096 + 256];
    const char *lib = MM_LIBDIR;
    if (lib[0] == '/')
        snprintf(path, sizeof path, "%s/mmsim/mmsim-cuda.so", lib);
    else
        snprintf(path, sizeof path, "%s/../%s/mmsim/mmsim-cuda.so", slash ? self : ".", lib);
    try_load(path);
}

static int ready(mm_error *err)
{
    pthread_once(&once, load);
    if (F.devices) return 0;
    return mm__errf(err, -ENODEV, "the CUDA engine's module (mmsim-cuda.so) cannot be loaded: %s",
                    why);
}

int mm__cuda_devices(int *n, char (*names)[128], int max, int *runtime, int *driver, mm_error *err)
{
    int rc = ready(err);
    if (rc) {
        *n = 0;
        *runtime = *driver = 0;
        return rc;
    }
    return F.devices(n, names, max, runtime, driver, err);
}

int mm__cuda_tape_upload(const mm__tape_view *v, int device, mm__cuda_tape **out, mm_error *err)
{
    int rc = ready(err);
    return rc ? rc : F.upload(v, device, out, err);
}

void mm__cuda_tape_free(mm__cuda_tape *t)
{
    if (t && F.tfree) F.tfree(t); /* a tape exists only once the module is loaded */
}

const mm__tape_view *mm__cuda_tape_host(const mm__cuda_tape *t)
{
    return F.host ? F.host(t) : NULL;
}

int mm__cuda_run(const mm__cuda_tape *t, const mm_derived *d, mm_state *st, int64_t m, int64_t i0,
                 int64_t i1, int64_t tile, int block, mm_error *err)
{
    int rc = ready(err);
    return rc ? rc : F.run(t, d, st, m, i0, i1, tile, block, err);
}

int mm__cuda_advance(const mm__tape_view *v, const mm_derived *d, mm_state *st, int64_t m,
                     int64_t i0, int64_t i1, int device, mm_error *err)
{
    int rc = ready(err);
    return rc ? rc : F.advance(v, d, st, m, i0, i1, device, err);
}
