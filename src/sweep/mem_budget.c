/* The memory check of a sweep (mm_mem_budget.h, docs/sweep.md "Memory"): the limits this process
 * runs under, what a planned run will hold, and the one-line refusal that says which setting to
 * lower and how far.
 *
 * Two budgets, because the limits bound different things. Physical memory and the cgroup's limit
 * bound every process of the run together: the parent, the shared results ring and each forked
 * worker. RLIMIT_AS and RLIMIT_DATA bound each process alone (a forked worker inherits them and
 * maps the ring too). A run is refused when either is passed; all arithmetic is in double, so a
 * grid of 1e12 combinations or a worker count of 4096 cannot overflow it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_internal.h"
#include "mm_mem_budget.h"
#include "mmsim/results.h"
#include "mmsim/sim.h"

/* Memory the run needs beyond its tapes, per combination: the done map (1 byte), the results
 * writer's row bitmap (1/8) and, at commit, the objective index's (key, row) pairs and the sort's
 * scratch (2 x 16 bytes); per chunk, its plan (16 bytes) and the process engine's state words (8).
 */
#define BYTES_PER_COMBO 34
#define BYTES_PER_CHUNK 24
/* The program itself: its code and libraries (about 35 MB of address space, measured) and the
 * results writer's HDF5 chunk cache (64 MiB, docs/results.md). */
#define BASE_BYTES 100e6
/* One worker's batched kernel: states, derived constants and scratch of at most 1,024 slots. */
#define KERNEL_BYTES 1048576.0
/* A thread's stack (the threads engine's workers share one address space). */
#define STACK_BYTES 8388608.0
/* A synthetic day per event: its tick row (8 + 6 x 4 + 1 = 33 bytes) and the tape tables a run
 * reads (twice the mid, three markout mids, the sampling count: 36 bytes); a latency series adds
 * its two tables (16 bytes). */
#define DAY_EVENT_BYTES 69
#define DAY_LATENCY_BYTES 16
/* cgroup v1 writes "no limit" as a number near 2^63. */
#define CGROUP_NO_LIMIT 1152921504606846976.0 /* 2^60 */

void mm__fmt_bytes(double b, char *buf, size_t cap)
{
    const char *u[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
    int i = 0;
    while (b >= 1000 && i < 5)
        b /= 1000, i++;
    snprintf(buf, cap, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

/* need and have as text that shows need > have: one decimal when that tells them apart ("34.0 TB",
 * "25.3 GB"), more when it does not ("34.37 GB" against "34.36 GB"), exact bytes at the last. */
static void fmt_pair(double need, double have, char *n, char *h, size_t cap)
{
    mm__fmt_bytes(need, n, cap);
    mm__fmt_bytes(have, h, cap);
    for (int d = 2; d <= 4 && !strcmp(n, h); d++) {
        const char *u[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
        int i = 0;
        double sn = need, sh = have;
        while (sn >= 1000 && i < 5)
            sn /= 1000, sh /= 1000, i++;
        snprintf(n, cap, "%.*f %s", d, sn, u[i]);
        snprintf(h, cap, "%.*f %s", d, sh, u[i]);
    }
    if (!strcmp(n, h)) {
        snprintf(n, cap, "%.0f bytes", need);
        snprintf(h, cap, "%.0f bytes", have);
    }
}

/* ---- the limits ---- */

/* The limit in dir/name: bytes, or INFINITY ("max", no such file, unreadable, v1's "no limit"). */
static double read_limit(const char *dir, const char *name)
{
    char path[4352];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return INFINITY;
    char buf[64];
    double v = INFINITY;
    if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9') {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(buf, &end, 10);
        if (errno == 0 && (*end == '\n' || *end == 0) && (double)x < CGROUP_NO_LIMIT) v = (double)x;
    }
    fclose(f);
    return v;
}

/* The smallest limit file `name` from the cgroup at base/path up to base. path is as
 * /proc/self/cgroup gives it; where base/path is not a directory (a container whose mount shows its
 * own cgroup as the root), leading components are dropped until it is, base itself last. */
static double walk_limits(const char *base, const char *path, const char *name)
{
    char dir[4096];
    struct stat st;
    size_t blen = strlen(base);
    if (blen >= sizeof dir - 2) return INFINITY;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        snprintf(dir, sizeof dir, "%s%s%s", base, *p ? "/" : "", p);
        size_t n = strlen(dir);
        while (n > blen && dir[n - 1] == '/')
            dir[--n] = 0;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) break;
        if (!*p) return INFINITY; /* no such mount */
        const char *slash = strchr(p, '/');
        p = slash ? slash : p + strlen(p);
    }
    double lim = INFINITY;
    for (;;) {
        lim = fmin(lim, read_limit(dir, name));
        char *s = strrchr(dir, '/');
        if (strlen(dir) <= blen || !s || (size_t)(s - dir) < blen) break;
        *s = 0;
    }
    return lim;
}

/* 1 when the comma list `list` holds `word`. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, word, n) && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

void mm__mem_limits_read(mm__mem_limits *l, const char *proc_cgroup, const char *cgroup_root)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    l->phys = pages > 0 && psz > 0 ? (double)pages * (double)psz : INFINITY;
    struct rlimit rl;
    l->as = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur
                                                                           : INFINITY;
    l->data = getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (double)rl.rlim_cur
                                                                               : INFINITY;
    l->cgroup = INFINITY;
    l->cgroup_v1 = 0;
    FILE *f = proc_cgroup ? fopen(proc_cgroup, "r") : NULL;
    if (!f) return;
    char line[4096], base[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = 0;
        const char *ctl = c1 + 1, *path = c2 + 1;
        if (!strcmp(line, "0") && !*ctl) { /* v2: mounted at the root, or at unified/ (hybrid) */
            snprintf(base, sizeof base, "%s", cgroup_root);
            l->cgroup = fmin(l->cgroup, walk_limits(base, path, "memory.max"));
            snprintf(base, sizeof base, "%s/unified", cgroup_root);
            l->cgroup = fmin(l->cgroup, walk_limits(base, path, "memory.max"));
        } else if (has_word(ctl, "memory")) { /* v1's memory controller */
            snprintf(base, sizeof base, "%s/memory", cgroup_root);
            double v = walk_limits(base, path, "memory.limit_in_bytes");
            if (v < l->cgroup) l->cgroup = v, l->cgroup_v1 = 1;
        }
    }
    fclose(f);
}

/* ---- what a run needs ---- */

typedef struct need {
    double all;    /* every process together (against physical memory and the cgroup) */
    double proc;   /* the largest process (against RLIMIT_AS and RLIMIT_DATA) */
    double worker; /* one worker: its chunks (computed and held) and its own scratch */
    double chunks; /* of which the chunks */
    double day;    /* of which a synthetic day */
} need;

/* The settings a refusal may suggest lowering, in the order it names them, and the grid's size. */
enum { K_WORKERS, K_CHUNK, K_EVENTS, K_PATHS, K_COMBOS, K_N };

/* The plan p with the settings x[K_N] in place of its own (x[K_EVENTS]: the largest synthetic
 * day's events). */
static need estimate(const mm__mem_plan *p, const double x[K_N])
{
    const double workers = x[K_WORKERS], chunk = x[K_CHUNK], events = x[K_EVENTS],
                 paths = x[K_PATHS], combos = x[K_COMBOS];
    need n;
    const double mets = (double)sizeof(mm_metrics);
    double rec = p->keep_paths ? (double)p->rec_bytes + (paths - (double)p->paths) * mets
                               : (double)p->rec_bytes;
    double per_event = DAY_EVENT_BYTES + (p->latency_table ? DAY_LATENCY_BYTES : 0);
    double grid = combos * BYTES_PER_COMBO + (combos / chunk + 2.0 * p->n_tapes) * BYTES_PER_CHUNK;
    double held = p->held * chunk * rec; /* per worker: in the parent, or the shared ring */
    double own = chunk * ((double)sizeof(mm_params) + rec) +
                 (paths > 1 ? chunk * paths * mets + paths * 8.0 : 0);
    double parent_days = p->syn_max > 0 ? (double)p->syn_sum * (events / (double)p->syn_max) : 0;
    n.day = events * per_event;
    n.chunks = held + own;
    n.worker = n.chunks + n.day + KERNEL_BYTES + (!p->forks && workers > 1 ? STACK_BYTES : 0);
    n.all = BASE_BYTES + grid + parent_days * per_event + workers * n.worker;
    /* A forked worker maps the whole ring and inherits the parent's days; the parent holds the
     * grid's bookkeeping, a worker its own chunks and day. */
    n.proc = p->forks ? BASE_BYTES + workers * held + parent_days * per_event +
                            fmax(grid, n.worker - held)
                      : n.all;
    return n;
}

typedef struct budget {
    double all, proc;
} budget;

/* The plan's own settings. */
static void planned(const mm__mem_plan *p, double x[K_N])
{
    x[K_WORKERS] = p->workers;
    x[K_CHUNK] = (double)p->chunk;
    x[K_EVENTS] = (double)p->syn_max;
    x[K_PATHS] = (double)p->paths;
    x[K_COMBOS] = (double)p->n_combos;
}

/* Does the plan fit with setting k at v, the others as planned? */
static int fits(const mm__mem_plan *p, budget b, int k, int64_t v)
{
    double x[K_N];
    planned(p, x);
    x[k] = (double)v;
    need n = estimate(p, x);
    return n.all <= b.all && n.proc <= b.proc;
}

/* The largest v in [lo, hi] with which the plan fits (the need grows with each setting), or lo - 1
 * when none. */
static int64_t largest(const mm__mem_plan *p, budget b, int k, int64_t lo, int64_t hi)
{
    int64_t best = lo - 1;
    while (lo <= hi) {
        int64_t v = lo + (hi - lo) / 2;
        if (fits(p, b, k, v))
            best = v, lo = v + 1;
        else
            hi = v - 1;
    }
    return best;
}

int mm__mem_check(const mm__mem_plan *p, const mm__mem_limits *l, mm_error *err)
{
    budget b = {fmin(l->phys, l->cgroup), fmin(l->as, l->data)};
    double x[K_N];
    planned(p, x);
    need n = estimate(p, x);
    int over_proc = n.proc > b.proc, over_all = n.all > b.all;
    if (!over_proc && !over_all) return 0;
    /* The limit to name: the smaller of those passed. */
    int by_proc = over_proc && (!over_all || b.proc <= b.all);
    double have = by_proc ? b.proc : b.all, needed = by_proc ? n.proc : n.all;
    char nb[48], hb[48], limit[128];
    fmt_pair(needed, have, nb, hb, sizeof nb);
    if (by_proc)
        snprintf(limit, sizeof limit, "the %s of %s", hb,
                 l->as <= l->data ? "RLIMIT_AS (ulimit -v)" : "RLIMIT_DATA (ulimit -d)");
    else if (l->cgroup < l->phys)
        snprintf(limit, sizeof limit, "the %s of the cgroup's %s", hb,
                 l->cgroup_v1 ? "memory.limit_in_bytes" : "memory.max");
    else
        snprintf(limit, sizeof limit, "this machine's %s", hb);

    /* The grid's own bookkeeping does not fit, whatever the workers hold: fewer combinations. */
    double x0[K_N] = {0, (double)p->chunk, 0, 1, (double)p->n_combos};
    need floor = estimate(p, x0);
    if (floor.all > b.all || floor.proc > b.proc) {
        int64_t fit = largest(p, b, K_COMBOS, 1, p->n_combos - 1);
        char part[64] = "";
        if (fit >= 1) snprintf(part, sizeof part, " (at most %" PRId64 " fit)", fit);
        return mm__errf(err, MM_EUSAGE,
                        "grid: %" PRId64 " combinations need %s of memory (%d bytes per "
                        "combination for the journal map and the results index), more than %s: "
                        "split the grid%s",
                        p->n_combos, nb, BYTES_PER_COMBO, limit, part);
    }

    /* What fits when one setting is lowered, the others as they are. */
    static const char *const name[K_COMBOS] = {"mm_sweep_opts.workers", "mm_sweep_opts.chunk",
                                               "the synthetic market's mm_gen_params.events",
                                               "mm_sweep_opts.paths"};
    const int64_t now[K_COMBOS] = {p->workers, p->chunk, p->syn_max, p->paths},
                  low[K_COMBOS] = {1, 1, 1, 2};
    char fix[512] = "";
    size_t len = 0;
    for (int k = 0; k < K_COMBOS; k++) {
        if (k == K_PATHS && len)
            break; /* the paths change the results: named only as a last resort */
        int64_t v = now[k] > low[k] ? largest(p, b, k, low[k], now[k] - 1) : low[k] - 1;
        if (v >= low[k] && len < sizeof fix)
            len += (size_t)snprintf(fix + len, sizeof fix - len, "%s%s (at most %" PRId64 " fit)",
                                    len ? " or " : "", name[k], v);
    }
    if (!len) /* no one setting is enough */
        snprintf(fix, sizeof fix, "%s and %s%s%s together", name[K_WORKERS], name[K_CHUNK],
                 p->syn_max ? " and " : "", p->syn_max ? name[K_EVENTS] : "");
    char each[48], what[160];
    mm__fmt_bytes(n.worker, each, sizeof each);
    if (n.day > n.chunks)
        snprintf(what, sizeof what, "a synthetic day of %" PRId64 " events, %d bytes each",
                 p->syn_max, DAY_EVENT_BYTES + (p->latency_table ? DAY_LATENCY_BYTES : 0));
    else if (p->paths > 1)
        snprintf(what, sizeof what, "chunks of %" PRId64 " combination%s x %" PRId64 " paths%s",
                 p->chunk, p->chunk == 1 ? "" : "s", p->paths, p->keep_paths ? " kept" : "");
    else
        snprintf(what, sizeof what, "chunks of %" PRId64 " combination%s", p->chunk,
                 p->chunk == 1 ? "" : "s");
    return mm__errf(err, MM_EUSAGE,
                    "memory: %s needs about %s with %d worker%s (each %s: %s), more than %s: "
                    "lower %s",
                    by_proc && p->forks ? "each process of the run" : "the run", nb, p->workers,
                    p->workers == 1 ? "" : "s", each, what, limit, fix);
}
