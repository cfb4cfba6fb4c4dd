/* Allocation-failure injection over the public API (docs/alloc-fail.md).
 *
 * Each scenario (load a tick file, run one combination, a serial sweep, a resume, write and read a
 * results table, the three importers) is first run once counting the allocations of mmsim's code
 * (alloc_fail.c), then once for every k = 1, 2, ... with allocation number k refused, until a run
 * completes without reaching k. Every run happens in a forked child, so a crash is reported with
 * its k and the next k still runs. A run passes when:
 *   - it failed with a negative code, a non-empty one-line message, and either -ENOMEM or a message
 * that says "memory" or "allocate" (anything else misleads: "not a results file" because a malloc
 * failed), and err->code == rc; a command-line run (test_alloc_fail_cli) exits 1 with one line
 * "mmsim: ..." saying so; or it succeeded with exactly the result of the reference run (a refused
 * allocation was worked around);
 *   - every block allocated during the run was freed, no HDF5 identifier and no file descriptor is
 * left open, no shared-memory segment of the process is left in /dev/shm;
 *   - no temporary file is left beside the output and a failed run leaves no output; a failed sweep
 * may leave its journal, and then a --resume without injection must give the reference table;
 *   - under ASan/UBSan (the sanitizer build), no report: ASan and LeakSanitizer run in each child.
 *
 * Usage: test_alloc_fail [-v] [-j N] [--sites] [--from K] [--to K] [SCENARIO...]   (no scenario:
 * all of them). --sites: refuse each call site's 1st, 2nd, power-of-two-th and last call only.
 * Exit 0 when every run passes, 1 otherwise (each failing k is printed with the refused call's
 * source line and, for leaks, where the leaked block was allocated). */
#define _GNU_SOURCE /* dladdr */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "alloc_fail.h"
#include "mmsim/import.h"
#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"

/* ---- paths ---- */

static char g_base[256]; /* inputs written once by the parent */
static char g_work[300]; /* the output directory of one child run (empty at its start) */

static const char *in_path(const char *name)
{
    static char buf[4][400];
    static int slot;
    char *b = buf[slot++ & 3];
    snprintf(b, 400, "%s/%s", g_base, name);
    return b;
}

static const char *out_path(const char *name)
{
    static char buf[4][400];
    static int slot;
    char *b = buf[slot++ & 3];
    snprintf(b, 400, "%s/%s", g_work, name);
    return b;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_alloc_fail: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) die("%s: cannot write", path);
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY),
        out = in >= 0 ? open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    char buf[65536];
    ssize_t r;
    int rc = in >= 0 && out >= 0 ? 0 : -1;
    while (rc == 0 && (r = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)r) != r) rc = -1;
    if (in >= 0) close(in);
    if (out >= 0 && close(out) != 0) rc = -1;
    return rc;
}

/* 1 and *h = a 128-bit hash of a journal's bytes but for the writer's pid (bytes 32..39,
 * docs/sweep.md, "Journal and resume": each failed run is another process; a resume treats any dead
 * writer alike), in 64 KiB blocks chained through the seed (no heap: the harness's own allocations
 * stay out of the count); 0 when it cannot be read. */
static int hash_journal(const char *path, XXH128_hash_t *h)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    static char buf[65536];
    ssize_t r;
    int first = 1;
    *h = XXH3_128bits("", 0);
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        if (first && r >= 40) memset(buf + 32, 0, 8);
        first = 0;
        *h = XXH3_128bits_withSeed(buf, (size_t)r, h->low64 ^ h->high64);
    }
    close(fd);
    return r == 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[700];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Shared-memory segments of this process left in /dev/shm (tickmem names them /mmsim.<pid>.<n>). */
static int count_own_shm(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    char pre[64];
    snprintf(pre, sizeof pre, "mmsim.%ld.", (long)getpid());
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += !strncmp(e->d_name, pre, strlen(pre));
    closedir(d);
    return n;
}

/* Live processes whose parent is this process (/proc/PID/stat field 4); zombies count too (not
 * reaped). */
static int count_children(void)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    int n = 0;
    long me = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        char p[300], buf[512];
        snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = 0;
        const char *rp = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
        char state;
        long ppid;
        if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == me) n++;
    }
    closedir(d);
    return n;
}

/* ---- the result of a run, hashed, so that a run that succeeded despite a refused allocation can
 * be compared with the reference ---- */

static void hash_metrics(XXH3_state_t *s, const mm_metrics *m)
{
    double d[6 + MM_MARKOUTS] = {m->pnl, m->fees, m->mean_abs_q, m->sharpe, m->max_drawdown, 0};
    for (int k = 0; k < MM_MARKOUTS; k++)
        d[6 + k] = m->markout[k];
    int64_t i[8] = {m->volume,  m->fills_bid, m->fills_ask, m->orders,
                    m->cancels, m->rejects,   m->final_q,   m->max_abs_q};
    XXH3_64bits_update(s, d, sizeof d);
    XXH3_64bits_update(s, i, sizeof i);
}

/* A string, or a marker for NULL (a reader must not hand out NULL, but the harness must not crash
 * on it). */
static void upd_str(XXH3_state_t *s, const char *str)
{
    if (str)
        XXH3_64bits_update(s, str, strlen(str) + 1);
    else
        XXH3_64bits_update(s, "\xff(null)", 7);
}

/* The harness's own hashing uses the real libxxhash allocator: these states are not mmsim's. */
XXH3_state_t *__real_XXH3_createState(void);
XXH_errorcode __real_XXH3_freeState(XXH3_state_t *s);

static XXH3_state_t *hstate(void)
{
    XXH3_state_t *s = __real_XXH3_createState();
    if (!s) die("out of memory");
    XXH3_64bits_reset(s);
    return s;
}

static uint64_t hdone(XXH3_state_t *s)
{
    uint64_t h = XXH3_64bits_digest(s);
    __real_XXH3_freeState(s);
    return h;
}

/* ---- scenarios ----
 * body(): runs with injection armed; returns 0 or the error code (err filled), sets *res to a hash
 * of what it produced, and releases everything it acquired whatever happens. Its outputs go to
 * g_work. */

typedef struct scenario {
    const char *name;
    const char *what;
    void (*setup)(void);   /* parent, once, before the reference run (may be NULL) */
    void (*prepare)(void); /* child, before arming (may be NULL) */
    int (*body)(mm_error *err, uint64_t *res);
    const char
        *output; /* the output in g_work (named in messages; a failed run leaves no new file) */
    const char *journal; /* file in g_work a failed run may leave; then resumable (NULL: none) */
    int (*check_after_fail)(char *why, size_t cap); /* extra check after a failure (may be NULL) */
    int (*resume)(mm_error *err,
                  uint64_t *res); /* resumes a journal a failed run left (with .journal) */
    int cli; /* 1: body runs the mmsim command line (test_alloc_fail_cli): a failure is exit status
              * 1 and one line "mmsim: ..." on stderr (in err->msg), not a negative code */
    uint64_t (*digest)(
        void); /* after a success, not armed: a hash of what the run wrote (may be NULL), so that
                * a refusal worked around by writing less (empty provenance) is seen */
} scenario;

static mm_ticks g_tape; /* t.h5 loaded by the parent (run scenarios) */

static void gen_tape(mm_ticks *t, const char *sym, int64_t events, uint64_t seed)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = seed;
    p.events = events;
    snprintf(p.symbol, sizeof p.symbol, "%s", sym);
    mm_error e = {0};
    if (mm_gen_ticks(&p, t, &e)) die("mm_gen_ticks: %s", e.msg);
}

static void setup_ticks(void)
{
    if (exists(in_path("t.h5"))) return;
    mm_ticks t;
    gen_tape(&t, "SYN", 2000, 1);
    mm_write_opts wo = {0};
    mm_error e = {0};
    if (mm_ticks_write(in_path("t.h5"), &t, &wo, &e)) die("mm_ticks_write: %s", e.msg);
    mm_ticks_free(&t);
}

static void setup_tape(void)
{
    setup_ticks();
    if (g_tape.n) return;
    mm_error e = {0};
    if (mm_ticks_load(in_path("t.h5"), NULL, 0, &g_tape, &e)) die("mm_ticks_load: %s", e.msg);
}

static uint64_t hash_tape(const mm_ticks *t)
{
    XXH3_state_t *s = hstate();
    XXH3_64bits_update(s, &t->n, sizeof t->n);
    XXH3_64bits_update(s, t->inst.symbol, strlen(t->inst.symbol));
    XXH3_64bits_update(s, &t->inst.tick_size, sizeof t->inst.tick_size);
    XXH3_64bits_update(s, &t->inst.lot_size, sizeof t->inst.lot_size);
    XXH3_64bits_update(s, &t->inst.fingerprint, sizeof t->inst.fingerprint);
    if (t->n > 0) {
        size_t n = (size_t)t->n;
        XXH3_64bits_update(s, t->ts_ns, n * 8);
        const int32_t *c[6] = {t->bid_px, t->ask_px,   t->bid_sz,
                               t->ask_sz, t->trade_px, t->trade_sz};
        for (int i = 0; i < 6; i++)
            XXH3_64bits_update(s, c[i], n * 4);
        XXH3_64bits_update(s, t->trade_side, n);
    }
    return hdone(s);
}

/* load: list the instruments and load one onto the heap (format check, validation, fingerprint). */
static int body_load(mm_error *err, uint64_t *res)
{
    char syms[4][MM_SYMBOL_MAX];
    int count = 0;
    int rc = mm_ticks_list(in_path("t.h5"), syms, 4, &count, err);
    if (rc) return rc;
    mm_ticks t = {0};
    rc = mm_ticks_load(in_path("t.h5"), syms[0], 0, &t, err);
    if (rc) return rc;
    *res = hash_tape(&t) ^ (uint64_t)count;
    mm_ticks_free(&t);
    return 0;
}

/* load_shm: the same into a sealed shared-memory segment (what the process engine does). */
static int body_load_shm(mm_error *err, uint64_t *res)
{
    mm_ticks t = {0};
    int rc = mm_ticks_load(in_path("t.h5"), NULL, MM_LOAD_SHM, &t, err);
    if (rc) return rc;
    rc = mm_ticks_seal(&t);
    if (rc) {
        mm_ticks_free(&t);
        return rc;
    }
    *res = hash_tape(&t);
    mm_ticks_free(&t);
    return 0;
}

/* gen_write: generate a tape and write a new tick file. */
static int body_gen_write(mm_error *err, uint64_t *res)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 7;
    p.events = 1500;
    snprintf(p.symbol, sizeof p.symbol, "GEN");
    mm_ticks t = {0};
    int rc = mm_gen_ticks(&p, &t, err);
    if (rc) return rc;
    mm_write_opts wo = {.compress_level = 1, .chunk_rows = 512};
    rc = mm_ticks_write(out_path("g.h5"), &t, &wo, err);
    if (rc == 0) *res = hash_tape(&t);
    mm_ticks_free(&t);
    return rc;
}

/* write_append: add a second instrument to an existing tick file (written in place). */
static void prepare_append(void)
{
    if (copy_file(in_path("t.h5"), out_path("a.h5"))) die("cannot copy t.h5");
}

static int body_write_append(mm_error *err, uint64_t *res)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 9;
    p.events = 800;
    snprintf(p.symbol, sizeof p.symbol, "ADD");
    mm_ticks t = {0};
    int rc = mm_gen_ticks(&p, &t, err);
    if (rc) return rc;
    mm_write_opts wo = {0};
    rc = mm_ticks_write(out_path("a.h5"), &t, &wo, err);
    if (rc == 0) *res = hash_tape(&t);
    mm_ticks_free(&t);
    return rc;
}

/* After a failed append the file still holds its first instrument, intact. */
static int check_append(char *why, size_t cap)
{
    mm_ticks t = {0};
    mm_error e = {0};
    int rc = mm_ticks_load(out_path("a.h5"), "SYN", 0, &t, &e);
    if (rc) {
        snprintf(why, cap, "the existing file no longer loads after the failed append: %s", e.msg);
        return -1;
    }
    mm_ticks_free(&t);
    return 0;
}

/* run_c: the reference engine, with a trace callback, then once more with Avellaneda-Stoikov
 * quotes. */
static void trace_cb(const mm_trace_rec *r, void *user)
{
    XXH3_64bits_update(user, &r->ts_ns, sizeof r->ts_ns);
    XXH3_64bits_update(user, &r->kind, sizeof r->kind);
    XXH3_64bits_update(user, &r->px, sizeof r->px);
    XXH3_64bits_update(user, &r->qty, sizeof r->qty);
    XXH3_64bits_update(user, &r->q, sizeof r->q);
}

static int body_run_c(mm_error *err, uint64_t *res)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1;
    mm_metrics m;
    XXH3_state_t *s = hstate();
    int rc = mm_sim_run_c(&g_tape, &c, &p, &m, trace_cb, s, err);
    if (rc == 0) {
        hash_metrics(s, &m);
        rc = mm_params_set(&p, "strategy", "as", err);
    }
    if (rc == 0) rc = mm_sim_run_c(&g_tape, &c, &p, &m, NULL, NULL, err);
    if (rc == 0) hash_metrics(s, &m);
    *res = hdone(s);
    return rc;
}

/* run_batch: the batched kernel over six combinations. */
static int body_run_batch(mm_error *err, uint64_t *res)
{
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_params p[6];
    for (int i = 0; i < 6; i++) {
        mm_params_defaults(&p[i]);
        p[i].spread_ticks = 0.5 * i;
        p[i].queue_rule = i % 3;
    }
    mm_metrics m[6];
    int rc = mm_sim_run_batch(&g_tape, &c, p, 6, m, err);
    if (rc) return rc;
    XXH3_state_t *s = hstate();
    for (int i = 0; i < 6; i++)
        hash_metrics(s, &m[i]);
    *res = hdone(s);
    return 0;
}

/* sweep: build a 2x2x2 grid (spread, a real axis; inv_limit and requote, two integer axes) over
 * t.h5 and run it serially, one combination per chunk, into r.h5 with its journal. */
static int g_engine = MM_ENGINE_SERIAL, g_workers = 1; /* of the sweep scenarios */

static int sweep_once(int resume, mm_error *err, uint64_t *res)
{
    mm_grid *g = NULL;
    char tape[400];
    snprintf(tape, sizeof tape, "%s#SYN", in_path("t.h5"));
    const char *tapes[1] = {tape};
    int rc = mm_grid_new(&g, err);
    if (rc == 0) rc = mm_grid_set_tapes(g, tapes, 1, err);
    if (rc == 0) rc = mm_grid_add_axis(g, "spread", "1,2", err);
    if (rc == 0) rc = mm_grid_add_axis(g, "inv_limit", "10,20", err);
    if (rc == 0) rc = mm_grid_add_axis(g, "requote", "1:2:1", err);
    if (rc == 0) rc = mm_grid_set(g, "skew", "0.1", err);
    if (rc == 0) {
        mm_sweep_opts o;
        mm_sweep_opts_defaults(&o);
        o.engine = g_engine;
        o.workers = g_workers;
        o.chunk = 1;
        o.seed = 3;
        o.config_text =
            "[grid]\nspread = 1,2\ninv_limit = 10,20\nrequote = 1:2:1\n[set]\nskew = 0.1\n";
        o.resume = resume;
        mm_sweep_report rep;
        rc = mm_sweep_run(g, &o, out_path("r.h5"), &rep, err);
        if (rc == 0) *res = rep.content_hash;
    }
    mm_grid_free(g);
    return rc;
}

static int body_sweep(mm_error *err, uint64_t *res)
{
    return sweep_once(0, err, res);
}

/* grid: two tapes, an enum axis, a range and a list, fixed values; every combination enumerated. */
static int body_grid(mm_error *err, uint64_t *res)
{
    mm_grid *g = NULL;
    const char *tapes[2] = {"day1.h5#AAA", "day2.h5#BBB"};
    int rc = mm_grid_new(&g, err);
    if (rc == 0) rc = mm_grid_set_tapes(g, tapes, 2, err);
    if (rc == 0) rc = mm_grid_add_axis(g, "queue", "power,log,risk-averse", err);
    if (rc == 0) rc = mm_grid_add_axis(g, "spread", "0:2:0.5", err);
    if (rc == 0) rc = mm_grid_add_axis(g, "latency_ns", "0,1000,250000", err);
    if (rc == 0) rc = mm_grid_set(g, "strategy", "fixed", err);
    if (rc == 0) rc = mm_grid_set(g, "inv_limit", "50", err);
    if (rc == 0) {
        XXH3_state_t *s = hstate();
        int64_t n_combos = mm_grid_combo_count(g);
        XXH3_64bits_update(s, &n_combos, sizeof n_combos);
        for (int64_t id = 0; id < n_combos && rc == 0; id++) {
            mm_params p;
            int32_t idx[4]; /* the grid's 4 axes */
            rc = mm_grid_combo(g, id, &p, idx);
            if (rc)
                snprintf(err->msg, sizeof err->msg, "mm_grid_combo(%lld) failed", (long long)id),
                    err->code = rc;
            XXH3_64bits_update(s, idx, (size_t)mm_grid_axis_count(g) * sizeof *idx);
            XXH3_64bits_update(s, &p.spread_ticks, sizeof p.spread_ticks);
            XXH3_64bits_update(s, &p.latency_ns, sizeof p.latency_ns);
            XXH3_64bits_update(s, &p.queue_rule, sizeof p.queue_rule);
        }
        *res = hdone(s);
    }
    mm_grid_free(g);
    return rc;
}

/* sweep_process: the same sweep on the process engine with 2 workers. Only the parent's allocations
 * are counted and refused (alloc_fail.c disarms forked children); a failure must also leave no
 * worker behind. */
static void setup_process(void)
{
    setup_ticks();
    g_engine = MM_ENGINE_PROCESS;
    g_workers = 2;
}

/* sweep_threads: the threads engine with 2 workers. Its worker threads allocate in no fixed order,
 * so the k-th allocation is not always the same call: a failure's k may not reproduce, every
 * failure must still be clean. */
static void setup_threads(void)
{
    setup_ticks();
    g_engine = MM_ENGINE_THREADS;
    g_workers = 2;
}
static int body_resume(mm_error *err, uint64_t *res)
{
    return sweep_once(1, err, res);
}

/* The resume scenario starts from the journal of an interrupted run: found by running the sweep
 * with each allocation refused in turn and keeping a journal of middle size among those failures
 * leave behind (some chunks saved, not all). */
static char g_resume_journal[400];

static int64_t run_child_plain(const scenario *sc, int64_t k, int keep_journal_as, int64_t *jsize);

static void setup_resume(void)
{
    setup_ticks();
    snprintf(g_resume_journal, sizeof g_resume_journal, "%s", in_path("resume.journal"));
    if (exists(g_resume_journal)) return;
    static const scenario sw = {
        .name = "sweep", .body = body_sweep, .output = "r.h5", .journal = "r.h5.journal"};
    int64_t n = run_child_plain(&sw, 0, 0, NULL);
    if (n <= 0) die("resume setup: the reference sweep failed");
    int64_t *size = calloc((size_t)n + 1, sizeof *size), smin = INT64_MAX, smax = -1;
    for (int64_t k = 1; k <= n; k++) {
        run_child_plain(&sw, k, 0, &size[k]);
        if (size[k] > 0 && size[k] < smin) smin = size[k];
        if (size[k] > smax) smax = size[k];
    }
    /* the middle size strictly between the smallest (header only) and the largest (every chunk) */
    int64_t best = 0, target = (smin + smax) / 2, bestd = INT64_MAX;
    for (int64_t k = 1; k <= n; k++)
        if (size[k] > smin && size[k] < smax && llabs(size[k] - target) < bestd)
            best = k, bestd = llabs(size[k] - target);
    if (!best)
        for (int64_t k = 1; k <= n; k++)
            if (size[k] > 0) best = k; /* no partial journal: take the fullest */
    free(size);
    if (!best) die("resume setup: no failed sweep leaves a journal");
    run_child_plain(&sw, best, 1, NULL);
    if (!exists(g_resume_journal)) die("resume setup: the journal was not kept");
}

static void prepare_resume(void)
{
    if (copy_file(g_resume_journal, out_path("r.h5.journal")))
        die("cannot copy the resume journal");
}

/* results_write: a 2x3 table with a float and an enum axis, written in two calls, committed,
 * hashed. */
static int body_results_write(mm_error *err, uint64_t *res)
{
    static const double spread[2] = {0.5, 1.5};
    static const char *const queue[3] = {"risk_averse", "power", "log"};
    mm_results_axis ax[2] = {
        {.key = "spread", .type = MM_COL_F64, .n = 2, .f64 = spread},
        {.key = "queue", .type = MM_COL_ENUM, .n = 3, .names = queue},
    };
    int64_t mk[MM_MARKOUTS] = {1000000000, 10000000000, 60000000000};
    mm_results_writer *w = NULL;
    int rc = mm_results_create(out_path("x.h5"), ax, 2, 6, mk, &w, err);
    if (rc) return rc;
    int32_t idx[12];
    mm_metrics m[6];
    memset(m, 0, sizeof m);
    for (int i = 0; i < 6; i++) {
        idx[2 * i] = i / 3;
        idx[2 * i + 1] = i % 3;
        m[i].pnl = 10.0 - i;
        m[i].volume = i;
        m[i].markout[1] = 0.25 * i;
    }
    rc = mm_results_write(w, 3, 3, idx + 6, m + 3, err);
    if (rc == 0) rc = mm_results_write(w, 0, 3, idx, m, err);
    if (rc) {
        mm_results_abort(w);
        return rc;
    }
    const char *paths[1] = {"t.h5"}, *syms[1] = {"SYN"};
    uint64_t fps[1] = {42};
    mm_results_meta meta = {.config_text = "[grid]\n",
                            .seed = 1,
                            .engine = "serial",
                            .workers = 1,
                            .n_inputs = 1,
                            .input_paths = paths,
                            .input_symbols = syms,
                            .input_fingerprints = fps,
                            .objective = "pnl"};
    rc = mm_results_commit(w, &meta, err);
    if (rc) return rc;
    rc = mm_results_hash(out_path("x.h5"), res, err);
    if (rc)
        unlink(out_path(
            "x.h5")); /* committed, then the hash failed: the caller gives up on the table */
    return rc;
}

/* results_read: open the results of the reference sweep, read every row, the index and the hash. */
static void setup_results(void)
{
    setup_ticks();
    if (exists(in_path("r.h5"))) return;
    snprintf(g_work, sizeof g_work, "%s", g_base);
    mm_error e = {0};
    uint64_t h;
    if (sweep_once(0, &e, &h)) die("results setup: %s", e.msg);
}

static int body_results_read(mm_error *err, uint64_t *res)
{
    mm_results_reader *r = NULL;
    int rc = mm_results_open(in_path("r.h5"), &r, err);
    if (rc) return rc;
    const mm_results_info *in = mm_results_describe(r);
    XXH3_state_t *s = hstate();
    XXH3_64bits_update(s, &in->n_rows, sizeof in->n_rows);
    XXH3_64bits_update(s, &in->content_hash, sizeof in->content_hash);
    for (int32_t a = 0; a < in->n_axes; a++) {
        upd_str(s, in->axes[a].key);
        XXH3_64bits_update(s, &in->axes[a].n, sizeof in->axes[a].n);
    }
    upd_str(s, in->meta.config_text);
    for (int32_t i = 0; i < in->meta.n_inputs; i++)
        upd_str(s, in->meta.input_paths[i]);
    enum { AXES_MAX = 32 }; /* the reference table has 4 */
    int32_t idx[8 * AXES_MAX];
    mm_metrics m[8];
    int64_t rows[8];
    uint64_t h = 0;
    if (in->n_rows != 8 || in->n_axes > AXES_MAX) { /* not the reference table: a wrong result */
        hdone(s);
        mm_results_close(r);
        *res = 0;
        return 0;
    }
    rc = mm_results_read(r, 0, 8, idx, m, err);
    if (rc == 0) rc = mm_results_read_index(r, "pnl", 0, 8, rows, err);
    if (rc == 0) rc = mm_results_hash(in_path("r.h5"), &h, err);
    if (rc == 0) {
        XXH3_64bits_update(s, idx, 8 * (size_t)in->n_axes * sizeof *idx);
        for (int i = 0; i < 8; i++)
            hash_metrics(s, &m[i]);
        XXH3_64bits_update(s, rows, sizeof rows);
        XXH3_64bits_update(s, &h, sizeof h);
    }
    *res = hdone(s);
    mm_results_close(r);
    return rc;
}

/* Importers on the small valid inputs of the importer fuzz replay
 * (tests/import/fuzz_import_replay.c). */
static const char LOB_MSG[] =
    "34200.1,1,1,100,1000000,1\n34200.2,1,2,30,1000100,-1\n34200.3,4,1,40,1000000,1\n"
    "34200.4,5,0,10,1000050,-1\n34200.5,3,2,80,1000100,-1\n34200.6,7,0,0,-1,-1\n";
static const char LOB_BOOK[] =
    "1000100,50,1000000,100\n1000100,80,1000000,100\n1000100,80,1000000,60\n"
    "1000100,80,1000000,60\n9999999999,0,1000000,60\n9999999999,0,1000000,60\n";
static const char BIN[] =
    "1000 "
    "{\"lastUpdateId\":100,\"E\":1000,\"T\":1000,\"bids\":[[\"10.0\",\"1.000\"]],\"asks\":[[\"10."
    "2\",\"2.000\"]]}\n"
    "1001 "
    "{\"stream\":\"t@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1001,\"T\":1001,\"s\":\"TST\","
    "\"U\":95,"
    "\"u\":105,\"pu\":90,\"b\":[[\"10.1\",\"0.500\"]],\"a\":[]}}\n"
    "1002 "
    "{\"stream\":\"t@bookTicker\",\"data\":{\"e\":\"bookTicker\",\"u\":105,\"s\":\"TST\",\"b\":"
    "\"10.1\","
    "\"B\":\"0.500\",\"a\":\"10.2\",\"A\":\"2.000\",\"T\":1001,\"E\":1001}}\n"
    "999 "
    "{\"stream\":\"t@trade\",\"data\":{\"e\":\"trade\",\"E\":1002,\"T\":1002,\"s\":\"TST\",\"t\":1,"
    "\"p\":\"10.2\",\"q\":\"0.100\",\"X\":\"MARKET\",\"m\":false}}\n"
    "1004 "
    "{\"stream\":\"t@depth\",\"data\":{\"e\":\"depthUpdate\",\"E\":1003,\"T\":1003,\"s\":\"TST\","
    "\"U\":106,"
    "\"u\":110,\"pu\":105,\"b\":[],\"a\":[[\"10.2\",\"1.900\"],[\"10.3\",\"0\"]]}}\n";
static const char CSV[] =
    "time,bp,bq,ap,aq,px,qty,side\n1.000000001,100.01,5,100.03,7,,,\n1.5,,,,,100.03,2,B\n"
    "2,100.01,5,100.03,5,,,\n2,100.00,0,100.03,5,100.01,5,sell\n\"3\",100.01,5,100.02,1,,,\n";

static void setup_import(void)
{
    write_file(in_path("lob_message.csv"), LOB_MSG, sizeof LOB_MSG - 1);
    write_file(in_path("lob_orderbook.csv"), LOB_BOOK, sizeof LOB_BOOK - 1);
    write_file(in_path("binance.txt"), BIN, sizeof BIN - 1);
    write_file(in_path("quotes.csv"), CSV, sizeof CSV - 1);
}

static int import_done(int rc, mm_ticks *t, uint64_t *res)
{
    if (rc == 0) {
        *res = hash_tape(t);
        mm_ticks_free(t);
    }
    return rc;
}

static int body_import_lobster(mm_error *err, uint64_t *res)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.date = "2012-06-21";
    mm_ticks t = {0};
    mm_import_report rep;
    int rc = mm_import_lobster(in_path("lob_message.csv"), in_path("lob_orderbook.csv"), &o, &t,
                               &rep, err);
    return import_done(rc, &t, res);
}

static int body_import_binance(mm_error *err, uint64_t *res)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.1";
    o.lot = "0.001";
    mm_ticks t = {0};
    mm_import_report rep;
    int rc = mm_import_binance(in_path("binance.txt"), &o, &t, &rep, err);
    return import_done(rc, &t, res);
}

static int body_import_csv(mm_error *err, uint64_t *res)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "TST";
    o.tick = "0.01";
    o.lot = "1";
    o.csv_map = "ts=time,bid=bp,bid_sz=bq,ask=ap,ask_sz=aq,trade_px=px,trade_sz=qty,side=side";
    o.csv_time = "s";
    mm_ticks t = {0};
    mm_import_report rep;
    int rc = mm_import_csv(in_path("quotes.csv"), &o, &t, &rep, err);
    return import_done(rc, &t, res);
}

#ifdef AF_WITH_CLI
/* ---- the command line (test_alloc_fail_cli: mmsim's own objects, its main included, linked in)
 * ---- */

int main(int argc, char **argv); /* mmsim's */
/* mmsim's main returns to this harness instead of leaving the process (src/cli/main.c). */
extern const int mm__cli_in_process;
const int mm__cli_in_process = 1;

/* Runs mmsim with args (NULL-terminated, without "mmsim") in this process, stdout and stderr in
 * files of g_base. Returns the exit status; err->msg gets stderr (its final newline removed), *res
 * a hash of stdout without the lines that carry timings. */
static int cli_run(const char *const *args, mm_error *err, uint64_t *res)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"mmsim";
    for (; *args && argc < 31; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int save1 = dup(1), save2 = dup(2);
    int o = open(in_path("cli.out"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(in_path("cli.err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (save1 < 0 || save2 < 0 || o < 0 || e < 0) die("cannot redirect the command's output");
    dup2(o, 1);
    dup2(e, 2);
    close(o);
    close(e);
    int rc = main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);
    FILE *f = fopen(in_path("cli.err"), "r");
    size_t n = f ? fread(err->msg, 1, sizeof err->msg - 1, f) : 0;
    if (f) fclose(f);
    err->msg[n] = 0;
    if (n && err->msg[n - 1] == '\n') err->msg[n - 1] = 0;
    err->code = rc;
    XXH3_state_t *s = hstate();
    f = fopen(in_path("cli.out"), "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "wall", 4) && strncmp(line, "sweep:", 6))
            XXH3_64bits_update(s, line, strlen(line));
    if (f) fclose(f);
    *res = hdone(s);
    return rc;
}

static int body_cli_sweep(mm_error *err, uint64_t *res)
{
    const char *a[] = {"sweep",    in_path("t.h5"),   "--grid",  "spread=1,2",
                       "--grid",   "inv_limit=10,20", "--set",   "skew=0.1",
                       "--engine", "serial",          "--chunk", "1",
                       "-o",       out_path("r.h5"),  "--quiet", NULL};
    return cli_run(a, err, res);
}

static int body_cli_sweep_resume(mm_error *err, uint64_t *res)
{
    const char *a[] = {
        "sweep", in_path("t.h5"),  "--grid",   "spread=1,2", "--grid",  "inv_limit=10,20",
        "--set", "skew=0.1",       "--engine", "serial",     "--chunk", "1",
        "-o",    out_path("r.h5"), "--quiet",  "--resume",   NULL};
    return cli_run(a, err, res);
}

static int body_cli_run(mm_error *err, uint64_t *res)
{
    const char *a[] = {"run",     in_path("t.h5"),       "--spread", "1",
                       "--trace", out_path("trace.csv"), NULL};
    return cli_run(a, err, res);
}

static int body_cli_info(mm_error *err, uint64_t *res)
{
    const char *a[] = {"info", in_path("t.h5"), NULL};
    return cli_run(a, err, res);
}

static int body_cli_show(mm_error *err, uint64_t *res)
{
    const char *a[] = {"show", in_path("r.h5"), NULL};
    return cli_run(a, err, res);
}

static int body_cli_export(mm_error *err, uint64_t *res)
{
    const char *a[] = {"export", in_path("r.h5"), "--csv", "-o", out_path("r.csv"), NULL};
    return cli_run(a, err, res);
}

static int body_cli_gen(mm_error *err, uint64_t *res)
{
    const char *a[] = {"gen",      "--seed", "5",  "--events",       "1000",
                       "--symbol", "GEN",    "-o", out_path("g.h5"), NULL};
    return cli_run(a, err, res);
}

static uint64_t digest_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 1;
    XXH3_state_t *s = hstate();
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        XXH3_64bits_update(s, buf, n);
    fclose(f);
    return hdone(s);
}

static uint64_t digest_cli_run(void)
{
    return digest_file(out_path("trace.csv"));
}
static uint64_t digest_cli_export(void)
{
    return digest_file(out_path("r.csv"));
}
#endif

/* Digests of written files: every stored field but the timings. */

static uint64_t digest_results(const char *path)
{
    mm_results_reader *r = NULL;
    mm_error e = {0};
    if (mm_results_open(path, &r, &e)) return 1;
    const mm_results_info *in = mm_results_describe(r);
    const mm_results_meta *m = &in->meta;
    XXH3_state_t *s = hstate();
    XXH3_64bits_update(s, &in->content_hash, sizeof in->content_hash);
    XXH3_64bits_update(s, &in->n_rows, sizeof in->n_rows);
    const char *str[4] = {m->config_text, m->engine, m->objective, in->mmsim_version};
    for (int i = 0; i < 4; i++)
        upd_str(s, str[i]);
    XXH3_64bits_update(s, &m->seed, sizeof m->seed);
    XXH3_64bits_update(s, &m->workers, sizeof m->workers);
    XXH3_64bits_update(s, m->markout_ns, sizeof m->markout_ns);
    for (int32_t i = 0; i < m->n_inputs; i++) {
        upd_str(s, m->input_paths[i]);
        upd_str(s, m->input_symbols[i]);
        XXH3_64bits_update(s, &m->input_fingerprints[i], 8);
    }
    for (int32_t a = 0; a < in->n_axes; a++) {
        const mm_results_axis *ax = &in->axes[a];
        upd_str(s, ax->key);
        for (int32_t i = 0; i < ax->n; i++) {
            if (ax->type == MM_COL_F64)
                XXH3_64bits_update(s, &ax->f64[i], 8);
            else if (ax->type == MM_COL_I64)
                XXH3_64bits_update(s, &ax->i64[i], 8);
            else
                upd_str(s, ax->names[i]);
        }
    }
    mm_results_close(r);
    return hdone(s);
}

static uint64_t digest_sweep(void)
{
    return digest_results(out_path("r.h5"));
}
static uint64_t digest_results_write(void)
{
    return digest_results(out_path("x.h5"));
}

static uint64_t digest_ticks(const char *path)
{
    char syms[8][MM_SYMBOL_MAX];
    int n = 0;
    mm_error e = {0};
    if (mm_ticks_list(path, syms, 8, &n, &e)) return 1;
    XXH3_state_t *s = hstate();
    for (int i = 0; i < n && i < 8; i++) {
        mm_ticks t = {0};
        if (mm_ticks_load(path, syms[i], 0, &t, &e)) {
            hdone(s);
            return 2;
        }
        uint64_t h = hash_tape(&t);
        XXH3_64bits_update(s, &h, 8);
        XXH3_64bits_update(s, t.inst.source, strlen(t.inst.source) + 1);
        XXH3_64bits_update(s, &t.inst.allow_crossed, sizeof t.inst.allow_crossed);
        mm_ticks_free(&t);
    }
    return hdone(s);
}

static uint64_t digest_gen_write(void)
{
    return digest_ticks(out_path("g.h5"));
}
static uint64_t digest_append(void)
{
    return digest_ticks(out_path("a.h5"));
}

static const scenario g_scenarios[] = {
    {.name = "load",
     .what = "mm_ticks_list + mm_ticks_load (heap)",
     .setup = setup_ticks,
     .body = body_load},
    {.name = "load_shm",
     .what = "mm_ticks_load into shared memory + mm_ticks_seal",
     .setup = setup_ticks,
     .body = body_load_shm},
    {.name = "gen_write",
     .what = "mm_gen_ticks + mm_ticks_write (new file)",
     .body = body_gen_write,
     .output = "g.h5",
     .digest = digest_gen_write},
    {.name = "write_append",
     .what = "mm_ticks_write (second instrument into an existing file)",
     .setup = setup_ticks,
     .prepare = prepare_append,
     .body = body_write_append,
     .check_after_fail = check_append,
     .digest = digest_append},
    {.name = "run_c",
     .what = "mm_sim_run_c (fixed with a trace, then Avellaneda-Stoikov)",
     .setup = setup_tape,
     .body = body_run_c},
    {.name = "run_batch",
     .what = "mm_sim_run_batch (6 combinations)",
     .setup = setup_tape,
     .body = body_run_batch},
    {.name = "grid",
     .what = "mm_grid_set_tapes/add_axis (enum, range, list)/set/combo over every id/free",
     .body = body_grid},
    {.name = "sweep",
     .what = "mm_grid_* + serial mm_sweep_run (2x2x2, chunk 1, journal, results table)",
     .setup = setup_ticks,
     .body = body_sweep,
     .output = "r.h5",
     .journal = "r.h5.journal",
     .resume = body_resume,
     .digest = digest_sweep},
    {.name = "sweep_process",
     .what = "the sweep on the process engine, 2 workers (the parent's allocations)",
     .setup = setup_process,
     .body = body_sweep,
     .output = "r.h5",
     .journal = "r.h5.journal",
     .resume = body_resume,
     .digest = digest_sweep},
    {.name = "sweep_threads",
     .what = "the sweep on the threads engine, 2 workers",
     .setup = setup_threads,
     .body = body_sweep,
     .output = "r.h5",
     .journal = "r.h5.journal",
     .resume = body_resume,
     .digest = digest_sweep},
    {.name = "resume",
     .what = "serial mm_sweep_run --resume from an interrupted run's journal",
     .setup = setup_resume,
     .prepare = prepare_resume,
     .body = body_resume,
     .output = "r.h5",
     .journal = "r.h5.journal",
     .resume = body_resume,
     .digest = digest_sweep},
    {.name = "results_write",
     .what = "mm_results_create/write/commit + mm_results_hash",
     .body = body_results_write,
     .output = "x.h5",
     .digest = digest_results_write},
    {.name = "results_read",
     .what = "mm_results_open/describe/read/read_index/hash/close",
     .setup = setup_results,
     .body = body_results_read},
    {.name = "import_lobster",
     .what = "mm_import_lobster (6 messages)",
     .setup = setup_import,
     .body = body_import_lobster},
    {.name = "import_binance",
     .what = "mm_import_binance (USD-M capture, 5 lines)",
     .setup = setup_import,
     .body = body_import_binance},
    {.name = "import_csv",
     .what = "mm_import_csv (5 lines)",
     .setup = setup_import,
     .body = body_import_csv},
#ifdef AF_WITH_CLI
    {.name = "cli_sweep",
     .what = "mmsim sweep (serial, 2x2, chunk 1)",
     .setup = setup_ticks,
     .body = body_cli_sweep,
     .output = "r.h5",
     .journal = "r.h5.journal",
     .resume = body_cli_sweep_resume,
     .cli = 1,
     .digest = digest_sweep},
    {.name = "cli_run",
     .what = "mmsim run --trace",
     .setup = setup_ticks,
     .body = body_cli_run,
     .output = "trace.csv",
     .cli = 1,
     .digest = digest_cli_run},
    {.name = "cli_info",
     .what = "mmsim info",
     .setup = setup_ticks,
     .body = body_cli_info,
     .cli = 1},
    {.name = "cli_show",
     .what = "mmsim show",
     .setup = setup_results,
     .body = body_cli_show,
     .cli = 1},
    {.name = "cli_export",
     .what = "mmsim export --csv",
     .setup = setup_results,
     .body = body_cli_export,
     .output = "r.csv",
     .cli = 1,
     .digest = digest_cli_export},
    {.name = "cli_gen",
     .what = "mmsim gen",
     .body = body_cli_gen,
     .output = "g.h5",
     .cli = 1,
     .digest = digest_gen_write},
#endif
};

/* ---- one run in a forked child ---- */

#define MAX_VIOL 6
#define MAX_LEAK 6

typedef struct site {
    char fn[20];    /* the allocation function */
    uintptr_t addr; /* its caller's return address, as addr2line wants it (0: unknown) */
} site;

typedef struct report {
    int64_t count; /* allocations counted */
    int hit;       /* the refused one was reached */
    int rc, code;
    char msg[768];
    uint64_t res, digest;
    site refused;
    int64_t jsize; /* size of the journal a failed run left (-1: none) */
    int n_viol;
    char viol[MAX_VIOL][400];
    int64_t n_leak;
    struct {
        site at;
        size_t size;
        int64_t call;
    } leak[MAX_LEAK];
} report;

static int g_verbose;
static int g_observe; /* the next child only observes allocation k (af_arm_observe) */
static int
    g_quick; /* the next child exits with _exit: no LeakSanitizer scan (setup runs, not checked) */
static uint64_t g_ref_res;    /* the reference run's result */
static uint64_t g_ref_digest; /* and the digest of what it wrote */
static int g_pie = 1;
/* --sites: the reference run records the call site of each allocation here (shared with the forked
 * children); the loop then refuses a site's 1st, 2nd, every power-of-two-th and last call only. */
enum { SITES_CAP = 1 << 16 };
static int g_thin;
static void **g_sites;

static void to_site(site *s, const char *fn, void *caller)
{
    snprintf(s->fn, sizeof s->fn, "%s", fn ? fn : "?");
    s->addr = 0;
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fbase)
        s->addr = (uintptr_t)caller - (g_pie ? (uintptr_t)info.dli_fbase : 0) -
                  1; /* the call, not the return */
}

static void viol(report *r, const char *fmt, ...)
{
    if (r->n_viol >= MAX_VIOL) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->viol[r->n_viol++], sizeof r->viol[0], fmt, ap);
    va_end(ap);
}

typedef struct names {
    int n;
    char name[32][256];
} names;

static void list_dir(const char *dir, names *out)
{
    out->n = 0;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) && out->n < 32) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t len = strnlen(e->d_name, sizeof out->name[0] - 1);
        memcpy(out->name[out->n], e->d_name, len);
        out->name[out->n++][len] = 0;
    }
    closedir(d);
}

static int in_names(const names *l, const char *n)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->name[i], n)) return 1;
    return 0;
}

static int64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* The child: arm, run, disarm, check, report. */
static void child_run(const scenario *sc, int64_t k, int keep_journal, report *r)
{
    memset(r, 0, sizeof *r);
    r->jsize = -1;
    if (sc->prepare) sc->prepare();
    names before, after;
    list_dir(g_work, &before);
    int fds0 = count_fds();
    int journal_before = sc->journal && exists(out_path(sc->journal));
    mm_error err = {0};
    uint64_t res = 0;
    alarm(60);
    af_record_sites(k == 0 && g_thin ? g_sites : NULL, SITES_CAP);
    if (g_observe)
        af_arm_observe(k);
    else
        af_arm(k);
    int rc = sc->body(&err, &res);
    af_disarm();
    if (rc == 0 && sc->digest) {
        r->digest = sc->digest();
        res ^= r->digest * 0x9E3779B97F4A7C15ull;
    }
    r->count = af_count();
    r->hit = af_hit();
    r->rc = rc;
    r->code = err.code;
    r->res = res;
    snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    if (r->hit) to_site(&r->refused, af_hit_fn(), af_hit_caller());

    /* The outcome. */
    if (rc == 0) {
        if (k > 0 && res != g_ref_res)
            viol(r,
                 "succeeded after the refusal with a different result (the failure was ignored)");
    } else if (sc->cli) {
        if (!r->hit) viol(r, "exit status %d although no allocation was refused: %s", rc, err.msg);
        if (rc != 1)
            viol(r, "exit status %d for a refused allocation (want 1: a runtime error)", rc);
        if (strncmp(err.msg, "mmsim: ", 7) || strchr(err.msg, '\n'))
            viol(r, "stderr is not one line \"mmsim: ...\": \"%s\"", err.msg);
        else if (!strstr(err.msg, "memory") && !strstr(err.msg, "allocate"))
            viol(r, "misleading error for a refused allocation: \"%s\"", err.msg);
    } else {
        if (!r->hit) viol(r, "failed although no allocation was refused: %d %s", rc, err.msg);
        if (rc > 0) viol(r, "positive return code %d", rc);
        if (!err.msg[0])
            viol(r, "error %d (%s) without a message", rc, mm_strerror(rc));
        else if (strchr(err.msg, '\n'))
            viol(r, "message of several lines");
        if (err.code != rc) viol(r, "err.code %d differs from the return code %d", err.code, rc);
        if (rc != -ENOMEM && !strstr(err.msg, "memory") && !strstr(err.msg, "allocate"))
            viol(r, "misleading error for a refused allocation: %d (%s) \"%s\"", rc,
                 mm_strerror(rc), err.msg);
    }
    /* Nothing left behind. */
    r->n_leak = af_live();
    for (int64_t i = 0; i < r->n_leak && i < MAX_LEAK; i++) {
        const char *fn;
        void *caller;
        af_live_block(i, &r->leak[i].size, &r->leak[i].call, &fn, &caller);
        to_site(&r->leak[i].at, fn, caller);
    }
    if (r->n_leak) viol(r, "%" PRId64 " block(s) never freed", r->n_leak);
    ssize_t h5 = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (h5 != 0) viol(r, "%zd HDF5 object(s) left open (files, groups, datasets, attributes)", h5);
    int fds1 = count_fds();
    if (fds1 != fds0) viol(r, "%d file descriptor(s) left open", fds1 - fds0);
    if (count_own_shm()) viol(r, "a shared-memory segment left in /dev/shm");
    int kids = count_children();
    if (kids) viol(r, "%d child process(es) (workers) left running", kids);
    list_dir(g_work, &after);
    for (int i = 0; i < after.n; i++) {
        const char *n = after.name[i];
        int is_journal = sc->journal && !strcmp(n, sc->journal);
        if (strstr(n, ".tmp."))
            viol(r, "temporary file %s left", n);
        else if (rc != 0 && !in_names(&before, n) && !is_journal)
            viol(r, "failed run left %s%s", n,
                 sc->output && !strcmp(n, sc->output) ? " (its output)" : "");
        else if (rc == 0 && is_journal)
            viol(r, "succeeded but left its journal %s", n);
    }
    if (rc != 0 && journal_before && !exists(out_path(sc->journal)))
        viol(r, "the interrupted run's journal was removed");
    if (rc != 0 && sc->check_after_fail) {
        char why[300];
        if (sc->check_after_fail(why, sizeof why)) viol(r, "%s", why);
    }
    /* A failed sweep keeps its journal: it must resume to the reference table. */
    if (rc != 0 && sc->journal && exists(out_path(sc->journal))) {
        r->jsize = file_size(out_path(sc->journal));
        if (keep_journal && copy_file(out_path(sc->journal), g_resume_journal))
            die("cannot keep the journal");
    }
    alarm(0);
}

/* A failed sweep keeps its journal: resumed with nothing refused, in a process of its own (forked
 * from the harness, not from the failed run: mmsim's main closes stdout, so it cannot run twice in
 * one process), it must give the reference table. */
static void check_resume(const scenario *sc, report *r)
{
    /* A journal of the same bytes (but for the dead writer's pid) as one that already resumed to
     * the reference table resumes to it again: checked once. */
    static struct {
        const scenario *sc;
        XXH128_hash_t h;
    } seen[1024];
    static int n_seen;
    XXH128_hash_t jh;
    int hashed = hash_journal(out_path(sc->journal), &jh);
    for (int i = 0; i < n_seen && hashed; i++)
        if (seen[i].sc == sc && XXH128_isEqual(seen[i].h, jh)) return;
    struct {
        int rc;
        uint64_t digest;
        char msg[768];
    } out = {-1, 0, "the resume process sent no result"};
    int p[2];
    if (pipe(p)) die("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        alarm(60);
        mm_error e2 = {0};
        uint64_t h = 0;
        out.rc = sc->resume(&e2, &h);
        out.digest = out.rc == 0 && sc->digest ? sc->digest() : 0;
        memcpy(out.msg, e2.msg, sizeof out.msg);
        ssize_t w = write(p[1], &out, sizeof out);
        _exit(w == (ssize_t)sizeof out ? 0 : 3);
    }
    close(p[1]);
    if (read(p[0], &out, sizeof out) != (ssize_t)sizeof out) out.rc = -1;
    close(p[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (out.rc)
        viol(r, "the journal left by the failure does not resume: %s", out.msg);
    else if (sc->digest && out.digest != g_ref_digest)
        viol(r, "the resumed table differs from the reference");
    else if (hashed && n_seen < (int)(sizeof seen / sizeof *seen))
        seen[n_seen].sc = sc, seen[n_seen++].h = jh;
}

/* Runs scenario sc with allocation k refused (0: none) in a child; fills *r; returns the child's
 * wait status. */
static int run_child(const scenario *sc, int64_t k, int keep_journal, report *r)
{
    snprintf(g_work, sizeof g_work, "%s/w", g_base);
    rm_dir(g_work);
    if (mkdir(g_work, 0700)) die("%s: %s", g_work, strerror(errno));
    int p[2];
    if (pipe(p)) die("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        static report mine_s;
        report *mine = &mine_s;
        child_run(sc, k, keep_journal, mine);
        const char *b = (const char *)mine;
        size_t left = sizeof *mine;
        while (left) {
            ssize_t w = write(p[1], b, left);
            if (w <= 0) _exit(3);
            b += w, left -= (size_t)w;
        }
        close(p[1]);
        if (g_quick) _exit(0);
        exit(0); /* not _exit: LeakSanitizer checks the child at exit */
    }
    close(p[1]);
    memset(r, 0, sizeof *r);
    char *b = (char *)r;
    size_t got = 0;
    ssize_t n;
    while (got < sizeof *r && (n = read(p[0], b + got, sizeof *r - got)) > 0)
        got += (size_t)n;
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) die("waitpid: %s", strerror(errno));
    if (got != sizeof *r)
        r->n_viol = -1; /* no report: crashed or killed */
    else if (r->rc && r->jsize >= 0 && sc->resume && !g_quick && !g_observe)
        check_resume(sc, r);
    rm_dir(g_work);
    return st;
}

static int64_t run_child_plain(const scenario *sc, int64_t k, int keep_journal_as, int64_t *jsize)
{
    report r;
    g_quick = 1;
    int st = run_child(sc, k, keep_journal_as, &r);
    g_quick = 0;
    if (jsize) *jsize = r.jsize;
    if (!WIFEXITED(st) || WEXITSTATUS(st) || r.n_viol < 0) return -1;
    return k == 0 && r.rc ? -1 : r.count;
}

/* ---- reporting ---- */

static char g_exe[512];

/* "function (file:line)" of an address in this program, by addr2line; the bare address without it.
 */
static void describe_site(const site *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s at 0x%" PRIxPTR, s->fn, s->addr);
    if (!s->addr) return;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "addr2line -f -e '%s' 0x%" PRIxPTR " 2>/dev/null", g_exe, s->addr);
    FILE *f = popen(cmd, "r");
    if (!f) return;
    char fn[256] = "", line[512] = "";
    if (fgets(fn, sizeof fn, f) && fgets(line, sizeof line, f)) {
        fn[strcspn(fn, "\n")] = 0;
        line[strcspn(line, "\n ")] = 0;
        const char *l = line, *cut;
        if ((cut = strstr(line, "/src/")))
            l = cut + 1;
        else if ((cut = strstr(line, "/tests/")))
            l = cut + 1;
        if (strcmp(fn, "??") && l[0] != '?' && l[0] != ':')
            snprintf(out, cap, "%s in %s (%s)", s->fn, fn, l);
        else if (strcmp(fn, "??"))
            snprintf(out, cap, "%s in %s", s->fn, fn); /* no debug information */
    }
    pclose(f);
}

static void print_failure(const scenario *sc, int64_t k, int st, const report *r)
{
    char where[600] = "";
    if (r->n_viol >= 0 && r->hit) describe_site(&r->refused, where, sizeof where);
    if (r->n_viol <
        0) { /* crashed before reporting: find the site with a run that lets the call succeed */
        report o;
        g_observe = 1;
        int ost = run_child(sc, k, 0, &o);
        g_observe = 0;
        if (WIFEXITED(ost) && o.n_viol >= 0 && o.hit)
            describe_site(&o.refused, where, sizeof where);
    }
    printf("FAIL %s k=%" PRId64 "%s%s", sc->name, k, where[0] ? ": refused " : "", where);
    if (r->n_viol >= 0 && r->rc) printf(" -> %d \"%s\"", r->rc, r->msg);
    printf("\n");
    if (WIFSIGNALED(st))
        printf("    crashed: signal %d (%s)%s\n", WTERMSIG(st), strsignal(WTERMSIG(st)),
               WTERMSIG(st) == SIGALRM ? ": no result within 60 s" : "");
    else if (WEXITSTATUS(st))
        printf("    exit status %d (a sanitizer report above: ASan/UBSan 1, LeakSanitizer 23)\n",
               WEXITSTATUS(st));
    if (r->n_viol < 0) {
        printf("    the child sent no report\n");
        return;
    }
    for (int i = 0; i < r->n_viol; i++)
        printf("    %s\n", r->viol[i]);
    for (int64_t i = 0; i < r->n_leak && i < MAX_LEAK; i++) {
        char at[600];
        describe_site(&r->leak[i].at, at, sizeof at);
        printf("    leaked: %zu bytes from allocation #%" PRId64 ", %s\n", r->leak[i].size,
               r->leak[i].call, at);
    }
}

/* Runs one scenario over every k; returns the number of failing runs. */
/* Each input HDF5 file opened once in the parent, so that mm__h5_guard's record of files that
 * passed (docs/formats.md, "Corrupt files HDF5 cannot read") holds them before the children fork:
 * a run then forks no probe child of its own for them (under ASan each fork of the child cost more
 * than the rest of its run). The guard allocates nothing for such files, so the allocations
 * counted and refused are the same either way. */
static void warm_guard(void)
{
    DIR *d = opendir(g_base);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 3, ".h5")) continue;
        char syms[8][MM_SYMBOL_MAX];
        int count = 0;
        mm_error err = {0};
        if (mm_ticks_list(in_path(e->d_name), syms, 8, &count, &err) == 0) continue;
        mm_results_reader *r = NULL;
        if (mm_results_open(in_path(e->d_name), &r, &err) == 0) mm_results_close(r);
    }
    closedir(d);
}

/* --sites: which of the reference run's calls 1..total to refuse (want[k] = 1). A call site (the
 * caller's return address) is refused at its 1st and 2nd call, at every power-of-two-th call and at
 * its last: a loop's first pass, a later one and its end, not each of its hundreds of iterations.
 * Calls past SITES_CAP, whose site was not recorded, are all refused. */
static char *pick_calls(int64_t total)
{
    char *want = calloc((size_t)total + 2, 1);
    if (!want) die("out of memory");
    int64_t rec = total < SITES_CAP ? total : SITES_CAP;
    for (int64_t k = 1; k <= total; k++) {
        if (k > rec) {
            want[k] = 1;
            continue;
        }
        int64_t j = 1, later = 0;
        for (int64_t i = 1; i < k; i++)
            j += g_sites[i - 1] == g_sites[k - 1];
        for (int64_t i = k + 1; i <= rec && !later; i++)
            later = g_sites[i - 1] == g_sites[k - 1];
        want[k] = j <= 2 || (j & (j - 1)) == 0 || !later;
    }
    return want;
}

static int run_scenario(const scenario *sc, int64_t from, int64_t to)
{
    g_engine = MM_ENGINE_SERIAL;
    g_workers = 1;
    if (g_thin && !g_sites) {
        /* mapped here, not in main: with -j each scenario's process has its own */
        void *m = mmap(NULL, SITES_CAP * sizeof *g_sites, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) die("mmap: %s", strerror(errno));
        g_sites = m;
    }
    if (sc->setup) sc->setup();
    warm_guard();
    report r;
    g_ref_res = 0;
    int st = run_child(sc, 0, 0, &r);
    if (!WIFEXITED(st) || WEXITSTATUS(st) || r.n_viol != 0 || r.rc) {
        print_failure(sc, 0, st, &r);
        printf("%s: the reference run (nothing refused) fails\n", sc->name);
        return 1;
    }
    g_ref_res = r.res;
    g_ref_digest = r.digest;
    int64_t total = r.count, clean = 0, worked = 0, bad = 0, bare = 0, skipped = 0, k;
    char *want = g_thin ? pick_calls(total) : NULL;
    char bare_sites[8][600];
    int n_bare_sites = 0;
    int64_t last = to > 0 ? to : INT64_MAX;
    for (k = from; k <= last; k++) {
        if (want && k <= total && !want[k]) {
            skipped++;
            continue;
        }
        st = run_child(sc, k, 0, &r);
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && r.n_viol == 0;
        if (ok && r.rc == 0 && !r.hit) break; /* past the last allocation: done */
        if (!ok) {
            bad++;
            print_failure(sc, k, st, &r);
        } else if (r.rc) {
            clean++;
            /* Clean, but a message that names neither a file nor an operation helps little
             * overnight: noted, not failed (docs/alloc-fail.md). */
            if (!strcmp(r.msg, "out of memory")) {
                bare++;
                char where[600];
                describe_site(&r.refused, where, sizeof where);
                int seen = 0;
                for (int i = 0; i < n_bare_sites; i++)
                    seen |= !strcmp(bare_sites[i], where);
                if (!seen && n_bare_sites < 8)
                    snprintf(bare_sites[n_bare_sites++], sizeof bare_sites[0], "%s", where);
            }
        } else {
            worked++;
        }
        if (g_verbose && ok) {
            char where[600];
            describe_site(&r.refused, where, sizeof where);
            printf("  ok %s k=%" PRId64 ": refused %s -> %d \"%s\"\n", sc->name, k, where, r.rc,
                   r.rc ? r.msg : "(worked around)");
        }
        if (k > 4 * total + 100) {
            printf("FAIL %s: still allocating at k=%" PRId64
                   " although the reference run made %" PRId64 " allocations\n",
                   sc->name, k, total);
            bad++;
            break;
        }
    }
    free(want);
    printf("%-15s %4" PRId64 " allocations; refused one at a time: %" PRId64
           " clean errors, %" PRId64 " worked around, %" PRId64 " FAILED   (%s)\n",
           sc->name, total, clean, worked, bad, sc->what);
    if (skipped)
        printf("    --sites: %" PRId64 " repeated calls of a call site not refused\n", skipped);
    if (bare) {
        printf("    note: %" PRId64 " of the clean errors say only \"out of memory\" (no file or "
               "operation named), e.g. after:\n",
               bare);
        for (int i = 0; i < n_bare_sites; i++)
            printf("      %s\n", bare_sites[i]);
    }
    fflush(stdout);
    return bad > 0;
}

#ifdef AF_WITH_CLI
/* mmsim's main is linked in: the harness runs from a constructor and exits before it. (glibc passes
 * argc and argv to constructors.) */
static int af_main(int argc, char **argv);
__attribute__((constructor)) static void af_cli_entry(int argc, char **argv, char **envp)
{
    (void)envp;
    exit(af_main(argc, argv));
}
static int af_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
    int64_t from = 1, to = 0;
    const char *only[64];
    int n_only = 0, jobs = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            g_verbose = 1;
        else if (!strcmp(argv[i], "-j") && i + 1 < argc)
            jobs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--from") && i + 1 < argc)
            from = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--sites"))
            g_thin = 1;
        else if (!strcmp(argv[i], "--to") && i + 1 < argc)
            to = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--list")) {
            for (size_t s = 0; s < sizeof g_scenarios / sizeof *g_scenarios; s++)
                printf("%-15s %s\n", g_scenarios[s].name, g_scenarios[s].what);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr,
                    "usage: test_alloc_fail [-v] [-j N] [--list] [--sites] [--from K] [--to K] "
                    "[SCENARIO...]\n");
            return 2;
        } else if (n_only < 64)
            only[n_only++] = argv[i];
    }
    ssize_t len = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
    if (len <= 0) die("/proc/self/exe: %s", strerror(errno));
    g_exe[len] = 0;
    Dl_info info;
    if (dladdr((void *)die, &info) && (uintptr_t)info.dli_fbase == 0x400000) g_pie = 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    snprintf(g_base, sizeof g_base, "/tmp/mmsim-alloc-fail-XXXXXX");
    if (!mkdtemp(g_base)) die("mkdtemp: %s", strerror(errno));
    int failed = 0, ran = 0;
    size_t pick[64];
    for (size_t s = 0; s < sizeof g_scenarios / sizeof *g_scenarios && ran < 64; s++) {
        int want = n_only == 0;
        for (int i = 0; i < n_only; i++)
            want |= !strcmp(only[i], g_scenarios[s].name);
        if (want) pick[ran++] = s;
    }
    if (jobs <= 1) {
        for (int i = 0; i < ran; i++)
            failed += run_scenario(&g_scenarios[pick[i]], from, to);
    } else {
        /* Scenarios in parallel, up to `jobs` at a time: each in a process of its own with its own
         * input directory, its report in a file, printed in order at the end. */
        pid_t pids[64] = {0};
        int next = 0, running = 0, done = 0;
        char top[256];
        snprintf(top, sizeof top, "%s", g_base);
        fflush(stdout);
        while (done < ran) {
            while (running < jobs && next < ran) {
                int i = next++;
                pid_t pid = fork();
                if (pid < 0) die("fork: %s", strerror(errno));
                if (pid == 0) {
                    char out[300];
                    snprintf(out, sizeof out, "%s/report.%d", top, i);
                    if (!freopen(out, "w", stdout)) die("%s: %s", out, strerror(errno));
                    char nb[sizeof top + 16];
                    snprintf(nb, sizeof nb, "%s/s%d", top, i);
                    if (strlen(nb) >= sizeof g_base) die("%s: path too long", nb);
                    memcpy(g_base, nb, strlen(nb) + 1);
                    if (mkdir(g_base, 0700)) die("%s: %s", g_base, strerror(errno));
                    int bad = run_scenario(&g_scenarios[pick[i]], from, to);
                    if (g_tape.n) mm_ticks_free(&g_tape);
                    rm_dir(g_base);
                    fflush(stdout);
                    exit(bad ? 1 : 0);
                }
                pids[i] = pid;
                running++;
            }
            int st;
            pid_t pid = wait(&st);
            if (pid < 0) die("wait: %s", strerror(errno));
            for (int i = 0; i < ran; i++)
                if (pids[i] == pid) {
                    failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
                    if (!WIFEXITED(st))
                        printf("FAIL %s: the scenario's process died (signal %d)\n",
                               g_scenarios[pick[i]].name, WTERMSIG(st));
                    running--;
                    done++;
                }
        }
        for (int i = 0; i < ran; i++) {
            char path[300];
            snprintf(path, sizeof path, "%s/report.%d", top, i);
            FILE *f = fopen(path, "r");
            char buf[4096];
            size_t n;
            while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
                fwrite(buf, 1, n, stdout);
            if (f) fclose(f);
            unlink(path);
        }
    }
    if (g_tape.n) mm_ticks_free(&g_tape);
    rm_dir(g_base);
    if (!ran) {
        fprintf(stderr, "test_alloc_fail: no such scenario (--list lists them)\n");
        return 2;
    }
    printf("%s: %d of %d scenarios with failures\n", failed ? "FAIL" : "OK", failed, ran);
    return failed ? 1 : 0;
}
