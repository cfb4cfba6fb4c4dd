/* The counting allocator of alloc_fail.h. Linked with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=strdup,--wrap=strndup,
 *   --wrap=aligned_alloc,--wrap=posix_memalign,--wrap=XXH3_createState,--wrap=XXH3_freeState
 * the linker sends every undefined reference to malloc in the program's own objects (this program
 * and the static libraries libmm_core/io/sweep) to __wrap_malloc, and __real_malloc to the C
 * library's (or, in a sanitizer build, ASan's) malloc. Shared libraries (HDF5, zlib, libxxhash,
 * libc) keep their own calls.
 *
 * The live-block table is an open-addressing hash set with linear probing and backward-shift
 * deletion (no tombstones), grown with the real calloc so that it never counts itself. One mutex
 * guards all state: the threads engine may allocate from several threads. */
#include "alloc_fail.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t sz);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__real_aligned_alloc(size_t al, size_t n);
int __real_posix_memalign(void **p, size_t al, size_t n);
XXH3_state_t *__real_XXH3_createState(void);
XXH_errorcode __real_XXH3_freeState(XXH3_state_t *s);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t sz);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void *__wrap_aligned_alloc(size_t al, size_t n);
int __wrap_posix_memalign(void **p, size_t al, size_t n);
XXH3_state_t *__wrap_XXH3_createState(void);
XXH_errorcode __wrap_XXH3_freeState(XXH3_state_t *s);

typedef struct block {
    void *p; /* NULL: empty slot */
    size_t size;
    int64_t call;
    const char *fn;
    void *caller;
} block;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_armed;
static int64_t g_count, g_fail_at, g_hit;
static int g_observe; /* 1: record the site of call g_fail_at but let it succeed */
static const char *g_hit_fn;
static void *g_hit_caller;
static block *g_tab;
static size_t g_cap, g_live; /* g_cap: a power of two, or 0 */
static void **g_sites;       /* af_record_sites: the caller of call c at g_sites[c - 1] */
static int64_t g_sites_cap;

static size_t slot_of(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (g_cap - 1);
}

static void tab_put(const block *b)
{
    if (2 * (g_live + 1) > g_cap) {
        size_t ncap = g_cap ? 2 * g_cap : 1024;
        block *nt = __real_calloc(ncap, sizeof *nt);
        if (!nt) abort(); /* the harness itself cannot run without memory */
        block *old = g_tab;
        size_t ocap = g_cap;
        g_tab = nt;
        g_cap = ncap;
        for (size_t i = 0; i < ocap; i++) {
            if (!old[i].p) continue;
            size_t s = slot_of(old[i].p);
            while (g_tab[s].p)
                s = (s + 1) & (g_cap - 1);
            g_tab[s] = old[i];
        }
        __real_free(old);
    }
    size_t s = slot_of(b->p);
    while (g_tab[s].p)
        s = (s + 1) & (g_cap - 1);
    g_tab[s] = *b;
    g_live++;
}

static void tab_del(const void *p)
{
    if (!p || !g_cap) return;
    size_t s = slot_of(p);
    while (g_tab[s].p && g_tab[s].p != p)
        s = (s + 1) & (g_cap - 1);
    if (!g_tab[s].p) return; /* not ours: allocated before af_arm or by a library */
    g_tab[s].p = NULL;
    g_live--;
    /* Backward shift: move later entries of the probe run into the hole if their home allows it. */
    size_t hole = s;
    for (size_t i = (s + 1) & (g_cap - 1); g_tab[i].p; i = (i + 1) & (g_cap - 1)) {
        size_t home = slot_of(g_tab[i].p);
        /* the entry may move to the hole when the hole lies cyclically in [home, i) */
        if (((i - home) & (g_cap - 1)) >= ((i - hole) & (g_cap - 1))) {
            g_tab[hole] = g_tab[i];
            g_tab[i].p = NULL;
            hole = i;
        }
    }
}

/* Counts one call; returns 1 if it must fail. */
static int tick(const char *fn, void *caller)
{
    if (!g_armed) return 0;
    ++g_count;
    if (g_count <= g_sites_cap) g_sites[g_count - 1] = caller;
    if (g_count != g_fail_at) return 0;
    g_hit = 1;
    g_hit_fn = fn;
    g_hit_caller = caller;
    return !g_observe;
}

static void track(void *p, size_t size, const char *fn, void *caller)
{
    if (!p || !g_armed) return;
    block b = {p, size, g_count, fn, caller};
    tab_put(&b);
}

static void disarm_in_child(void);

static void arm(int64_t fail_at, int observe)
{
    static int registered;
    if (!registered) registered = pthread_atfork(NULL, NULL, disarm_in_child) == 0;
    pthread_mutex_lock(&g_mu);
    g_armed = 1;
    g_observe = observe;
    g_count = 0;
    g_fail_at = fail_at;
    g_hit = 0;
    g_hit_fn = NULL;
    g_hit_caller = NULL;
    if (g_cap) memset(g_tab, 0, g_cap * sizeof *g_tab);
    g_live = 0;
    pthread_mutex_unlock(&g_mu);
}

/* A forked child (a process-engine worker) neither counts nor refuses: its calls would interleave
 * with the parent's numbering in no fixed order. */
static void disarm_in_child(void)
{
    g_armed = 0;
}

void af_arm(int64_t fail_at)
{
    arm(fail_at, 0);
}
void af_arm_observe(int64_t at)
{
    arm(at, 1);
}

void af_record_sites(void **sites, int64_t cap)
{
    pthread_mutex_lock(&g_mu);
    g_sites = sites;
    g_sites_cap = sites ? cap : 0;
    pthread_mutex_unlock(&g_mu);
}

void af_disarm(void)
{
    pthread_mutex_lock(&g_mu);
    g_armed = 0;
    pthread_mutex_unlock(&g_mu);
}

int64_t af_count(void)
{
    return g_count;
}
int af_hit(void)
{
    return (int)g_hit;
}
const char *af_hit_fn(void)
{
    return g_hit_fn;
}
void *af_hit_caller(void)
{
    return g_hit_caller;
}
int64_t af_live(void)
{
    return (int64_t)g_live;
}

int af_live_block(int64_t i, size_t *size, int64_t *call, const char **fn, void **caller)
{
    for (size_t s = 0; s < g_cap; s++) {
        if (!g_tab[s].p || i--) continue;
        *size = g_tab[s].size;
        *call = g_tab[s].call;
        *fn = g_tab[s].fn;
        *caller = g_tab[s].caller;
        return 0;
    }
    return -1;
}

/* The wrappers. Each takes the lock, counts, and either fails (errno ENOMEM) or allocates and
 * tracks. */
#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

void *__wrap_malloc(size_t n)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    void *p = NULL;
    if (tick("malloc", caller))
        errno = ENOMEM;
    else
        track(p = __real_malloc(n), n, "malloc", caller);
    pthread_mutex_unlock(&g_mu);
    return p;
}

void *__wrap_calloc(size_t n, size_t sz)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    void *p = NULL;
    if (tick("calloc", caller))
        errno = ENOMEM;
    else
        track(p = __real_calloc(n, sz), n * sz, "calloc", caller);
    pthread_mutex_unlock(&g_mu);
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    void *p = NULL;
    if (tick("realloc", caller)) {
        errno = ENOMEM; /* the old block stays valid, as with a real failure */
    } else {
        p = __real_realloc(old, n);
        if (p || n == 0) tab_del(old);
        track(p, n, "realloc", caller);
    }
    pthread_mutex_unlock(&g_mu);
    return p;
}

void __wrap_free(void *p)
{
    pthread_mutex_lock(&g_mu);
    tab_del(p);
    pthread_mutex_unlock(&g_mu);
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    char *p = NULL;
    if (tick("strdup", caller))
        errno = ENOMEM;
    else
        track(p = __real_strdup(s), strlen(s) + 1, "strdup", caller);
    pthread_mutex_unlock(&g_mu);
    return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    char *p = NULL;
    if (tick("strndup", caller))
        errno = ENOMEM;
    else {
        p = __real_strndup(s, n);
        track(p, p ? strlen(p) + 1 : 0, "strndup", caller);
    }
    pthread_mutex_unlock(&g_mu);
    return p;
}

void *__wrap_aligned_alloc(size_t al, size_t n)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    void *p = NULL;
    if (tick("aligned_alloc", caller))
        errno = ENOMEM;
    else
        track(p = __real_aligned_alloc(al, n), n, "aligned_alloc", caller);
    pthread_mutex_unlock(&g_mu);
    return p;
}

int __wrap_posix_memalign(void **out, size_t al, size_t n)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    int rc = ENOMEM;
    if (!tick("posix_memalign", caller)) {
        rc = __real_posix_memalign(out, al, n);
        if (rc == 0) track(*out, n, "posix_memalign", caller);
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

XXH3_state_t *__wrap_XXH3_createState(void)
{
    void *caller = CALLER;
    pthread_mutex_lock(&g_mu);
    XXH3_state_t *p = NULL;
    if (!tick("XXH3_createState", caller)) {
        p = __real_XXH3_createState();
        track(p, 0, "XXH3_createState", caller); /* the state's size is private to libxxhash */
    }
    pthread_mutex_unlock(&g_mu);
    return p;
}

XXH_errorcode __wrap_XXH3_freeState(XXH3_state_t *s)
{
    pthread_mutex_lock(&g_mu);
    tab_del(s);
    pthread_mutex_unlock(&g_mu);
    return __real_XXH3_freeState(s);
}
