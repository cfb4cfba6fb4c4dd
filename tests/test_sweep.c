/* Sweeps: every engine, worker count and chunk size gives the same table (content hash); a worker
 * killed mid-chunk is recovered; a run killed with SIGKILL resumes to the identical table; bad
 * grids and configs are usage errors naming the key. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../src/sweep/mm_journal.h" /* the journal's internal API (the library is linked statically) */
#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"
#include <hdf5.h>
#include <xxhash.h>

/* A tape long enough that a sweep over it is still running when a test acts on it (kills, signals,
 * a second run). The sanitizer build runs everything, mmsim included, several times slower, so a
 * quarter of it lasts about as long and keeps that build's suite within CI's time. */
#if defined(__SANITIZE_ADDRESS__)
#define LONG_TAPE_EVENTS "500000"
#else
#define LONG_TAPE_EVENTS "2000000"
#endif

TestSuite(sweep, .fini = tu_cleanup);

/* Two instruments in one file. */
static const char *make_ticks(int64_t events)
{
    const char *p = tu_path("ticks.h5");
    struct stat st;
    if (stat(p, &st) == 0) return p;
    for (int k = 0; k < 2; k++) {
        mm_gen_params gp;
        mm_gen_defaults(&gp);
        gp.seed = 100 + (uint64_t)k;
        gp.events = events;
        gp.trade_frac = 0.2;
        strcpy(gp.symbol, k ? "BBB" : "AAA");
        tu_gen_write(p, &gp);
    }
    return p;
}

static mm_grid *grid_small(const char *ticks)
{
    mm_grid *g = NULL;
    mm_error e = {0};
    char a[512], b[512];
    snprintf(a, sizeof a, "%s#AAA", ticks);
    snprintf(b, sizeof b, "%s#BBB", ticks);
    const char *tapes[2] = {a, b};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 2, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0:3:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "1,2,5", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "queue", "risk-averse,power", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_ns", "20000", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_combo_count(g), 2 * 4 * 3 * 2);
    return g;
}

static uint64_t sweep_hash(const mm_grid *g, int engine, int workers, int64_t chunk,
                           const char *name, mm_sweep_report *rep_out)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = engine;
    o.workers = workers;
    o.chunk = chunk;
    o.config_text = "test";
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path(name), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.combos, mm_grid_combo_count(g));
    uint64_t h;
    cr_assert_eq(mm_results_hash(tu_path(name), &h, &e), 0, "%s", e.msg);
    cr_assert_eq(h, rep.content_hash);
    char j[600];
    snprintf(j, sizeof j, "%s.journal", tu_path(name));
    cr_assert_neq(access(j, F_OK), 0, "the journal must be gone after success");
    if (rep_out) *rep_out = rep;
    return h;
}

Test(sweep, mixed_radix_ids)
{
    const char *t = make_ticks(2000);
    mm_grid *g = grid_small(t);
    mm_params p;
    int32_t idx[8];
    /* id = ((tape * 4 + spread) * 3 + inv) * 2 + queue */
    cr_assert_eq(mm_grid_combo(g, ((1 * 4 + 2) * 3 + 2) * 2 + 1, &p, idx), 0);
    cr_assert_eq(idx[0], 1);
    cr_assert_eq(idx[1], 2);
    cr_assert_eq(idx[2], 2);
    cr_assert_eq(idx[3], 1);
    cr_assert_eq(p.spread_ticks, 2.0);
    cr_assert_eq(p.inv_limit, 5);
    cr_assert_eq(p.queue_rule, MM_QUEUE_POWER);
    cr_assert_eq(p.latency_ns, 20000);
    cr_assert_eq(mm_grid_combo(g, mm_grid_combo_count(g), &p, idx), -EINVAL);
    cr_assert_eq(mm_grid_combo(g, -1, &p, idx), -EINVAL);
    /* The opaque grid's accessors. */
    cr_assert_eq(mm_grid_axis_count(g), 4);
    cr_assert_str_eq(mm_grid_axis_key(g, 0), "tape");
    cr_assert_eq(mm_grid_axis_kind(g, 0), MM_KEY_ENUM);
    cr_assert_eq(mm_grid_axis_size(g, 0), 2);
    char want[600];
    snprintf(want, sizeof want, "%s#BBB", t);
    cr_assert_str_eq(mm_grid_axis_text(g, 0, 1), want);
    cr_assert_str_eq(mm_grid_axis_key(g, 1), "spread");
    cr_assert_eq(mm_grid_axis_kind(g, 1), MM_KEY_REAL);
    cr_assert_str_eq(mm_grid_axis_text(g, 1, 3), "3");
    cr_assert_str_eq(mm_grid_axis_key(g, 2), "inv_limit");
    cr_assert_eq(mm_grid_axis_kind(g, 2), MM_KEY_INT);
    cr_assert_eq(mm_grid_axis_size(g, 2), 3);
    cr_assert_str_eq(mm_grid_axis_text(g, 2, 2), "5");
    cr_assert_str_eq(mm_grid_axis_text(g, 3, 0), "risk-averse");
    cr_assert_eq(mm_grid_base(g)->latency_ns, 20000);
    cr_assert_null(mm_grid_axis_key(g, 4));
    cr_assert_null(mm_grid_axis_key(g, -1));
    cr_assert_eq(mm_grid_axis_kind(g, 4), -1);
    cr_assert_eq(mm_grid_axis_size(g, 4), 0);
    cr_assert_null(mm_grid_axis_text(g, 2, 3));
    cr_assert_null(mm_grid_axis_text(g, 2, -1));
    mm_grid_free(NULL); /* nothing */
    /* Per-combination seeds depend on (seed, id) only, and differ between ids. */
    cr_assert_eq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(7, 5));
    cr_assert_neq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(7, 6));
    cr_assert_neq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(8, 5));
    mm_grid_free(g);
}

Test(sweep, engines_workers_and_chunks_give_identical_tables, .timeout = 240)
{
    const char *t = make_ticks(20000);
    mm_grid *g = grid_small(t);
    uint64_t ref = sweep_hash(g, MM_ENGINE_SERIAL, 1, 48, "serial.h5", NULL);
    struct {
        int engine, workers;
        int64_t chunk;
    } runs[] = {{MM_ENGINE_SERIAL, 1, 7},   {MM_ENGINE_THREADS, 2, 5}, {MM_ENGINE_THREADS, 1, 1},
                {MM_ENGINE_PROCESS, 1, 48}, {MM_ENGINE_PROCESS, 2, 3}, {MM_ENGINE_PROCESS, 3, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "r%zu.h5", i);
        uint64_t h = sweep_hash(g, runs[i].engine, runs[i].workers, runs[i].chunk, name, NULL);
        cr_assert_eq(h, ref, "engine %d, %d workers, chunk %ld: %016lx vs %016lx", runs[i].engine,
                     runs[i].workers, (long)runs[i].chunk, (unsigned long)h, (unsigned long)ref);
    }
    mm_grid_free(g);
}

Test(sweep, killed_worker_chunk_is_rerun, .timeout = 240)
{
    const char *t = make_ticks(20000);
    mm_grid *g = grid_small(t);
    uint64_t ref = sweep_hash(g, MM_ENGINE_SERIAL, 1, 4, "ref.h5", NULL);
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_PROCESS;
    o.workers = 2;
    o.chunk = 1;
    o.config_text = "test";
    /* Test hook of the process engine (engine_process.c): worker 0 dies with SIGKILL holding its
     * 2nd chunk. (It was its 4th of 24: on a loaded machine worker 1 could take all but three of
     * them and nothing was killed; worker 0 now needs 2 of 48.) Criterion runs each test in its own
     * process, so the variable stays here. */
    cr_assert_eq(setenv("MMSIM_TEST_KILL_WORKER", "0:1", 1), 0);
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("killed.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_geq(rep.chunks_rerun, 1, "the lost chunk was not rerun");
    cr_assert_eq(rep.content_hash, ref, "a killed worker changed the table");
    mm_grid_free(g);
}

/* Whole records in a journal whose chunks all hold `chunk` combinations (header: 48 bytes, the
 * identity text, 8; records: 16 + chunk x 184 + 8 bytes), or -1 when it is absent or its header is
 * not complete. */
static long journal_records(const char *path, int chunk)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    unsigned char h[48];
    struct stat st;
    long n = -1;
    if (pread(fd, h, 48, 0) == 48 && fstat(fd, &st) == 0) {
        uint32_t il;
        memcpy(&il, h + 40, 4);
        long hlen = 56 + (long)il;
        if (st.st_size >= hlen) n = (st.st_size - hlen) / (16 + (long)chunk * 184 + 8);
    }
    close(fd);
    return n;
}

/* Start `mmsim ...` (argv) in its own process group, output to /dev/null. */
static pid_t spawn(const char *const *argv)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(getenv("MMSIM_BIN"), (char *const *)argv);
        _exit(127);
    }
    setpgid(pid, pid);
    return pid;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Wait (up to about 60 s) until the journal holds `records` records; 0 if pid ended first. */
static int wait_records(pid_t pid, const char *journal, long records, int chunk)
{
    for (int spins = 0; spins < 60000; spins++) {
        if (journal_records(journal, chunk) >= records) return 1;
        int ws;
        if (waitpid(pid, &ws, WNOHANG) == pid) return 0;
        nap_ms(1);
    }
    return 0;
}

/* Run `mmsim sweep ...` in its own process group; kill the whole group with SIGKILL as soon as the
 * journal holds at least `records` chunk records, or, with records = 0, right after start. Returns
 * 1 if the run was still going when killed. */
static int sweep_and_kill(const char *const *argv, const char *journal, int records, int chunk)
{
    pid_t pid = spawn(argv);
    int running = records == 0 || wait_records(pid, journal, records, chunk);
    if (running) {
        kill(-pid, SIGKILL);
        int ws;
        waitpid(pid, &ws, 0);
    }
    return running;
}

static uint64_t file_hash(const char *p)
{
    uint64_t h = 0;
    mm_error e = {0};
    cr_assert_eq(mm_results_hash(p, &h, &e), 0, "%s", e.msg);
    return h;
}

Test(sweep, kill_9_then_resume_gives_the_identical_table, .timeout = 600)
{
    const char *t = tu_path("big.h5");
    const char *g[] = {"mmsim", "gen", "--seed", "5", "--events", LONG_TAPE_EVENTS, "-o", t, NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *full[] = {"mmsim",
                          "sweep",
                          t,
                          "--grid",
                          "spread=0:15:1",
                          "--grid",
                          "inv_limit=1,3,10,30",
                          "--grid",
                          "queue=power,log",
                          "--chunk",
                          "4",
                          "--workers",
                          "2",
                          "--quiet",
                          "-o",
                          tu_path("full.h5"),
                          NULL};
    char *out;
    cr_assert_eq(tu_run(full, &out, NULL), 0);
    free(out);
    uint64_t ref = file_hash(tu_path("full.h5"));
    int records[] = {0, 1, 12, 25}; /* of 32 chunks */
    int resumed_any = 0;
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "cut%d.h5", k);
        const char *o = tu_path(name);
        const char *run[] = {"mmsim",
                             "sweep",
                             t,
                             "--grid",
                             "spread=0:15:1",
                             "--grid",
                             "inv_limit=1,3,10,30",
                             "--grid",
                             "queue=power,log",
                             "--chunk",
                             "4",
                             "--workers",
                             "2",
                             "--quiet",
                             "-o",
                             o,
                             NULL};
        char j[600];
        snprintf(j, sizeof j, "%s.journal", o);
        int killed = sweep_and_kill(run, j, records[k], 4);
        cr_assert(killed || k == 0, "the run finished before the journal had %d records",
                  records[k]);
        int interrupted = access(j, F_OK) == 0;
        if (interrupted)
            cr_assert_neq(access(o, F_OK), 0, "a results file exists beside an unfinished journal");
        /* Without --resume an existing journal is refused. */
        if (interrupted) {
            char *err;
            cr_assert_eq(tu_run(run, NULL, &err), 2);
            cr_assert(strstr(err, "--resume"), "%s", err);
            free(err);
        }
        const char *res[] = {"mmsim",
                             "sweep",
                             t,
                             "--grid",
                             "spread=0:15:1",
                             "--grid",
                             "inv_limit=1,3,10,30",
                             "--grid",
                             "queue=power,log",
                             "--chunk",
                             "4",
                             "--workers",
                             "2",
                             "--quiet",
                             "--resume",
                             "-o",
                             o,
                             NULL};
        cr_assert_eq(tu_run(res, &out, NULL), 0);
        resumed_any |= strstr(out, "resumed:") != NULL;
        free(out);
        cr_assert_eq(file_hash(o), ref, "kill after %d journal records + resume differs",
                     records[k]);
    }
    cr_assert(resumed_any, "no kill landed mid-run; make the sweep longer");
}

Test(sweep, resume_refuses_a_journal_of_an_older_format)
{
    const char *t = make_ticks(2000);
    const char *o = tu_path("x.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    const char *a[] = {"mmsim", "sweep", t, "--grid", "spread=1,2", "--quiet", "-o", o, NULL};
    cr_assert_eq(tu_run(a, NULL, NULL), 0);
    /* A journal of the first format (32-byte header, no identity text): named, not misread. */
    FILE *f = fopen(j, "w");
    fwrite("MMSIMJ01\1\2\3\4\5\6\7\10\0\0\0\0\0\0\0\0\x80\0\0\0\0\0\0\0", 1, 32, f);
    fclose(f);
    const char *b[] = {"mmsim",   "sweep",    t,    "--grid", "spread=1,2,3",
                       "--quiet", "--resume", "-o", o,        NULL};
    char *err;
    cr_assert_eq(tu_run(b, NULL, &err), 1);
    cr_assert(strstr(err, "x.h5.journal: a journal of an older mmsim (MMSIMJ01): delete it"), "%s",
              err);
    free(err);
}

Test(sweep, config_file_equals_flags)
{
    const char *t = make_ticks(5000);
    const char *ini = tu_path("s.ini");
    FILE *f = fopen(ini, "w");
    fprintf(f,
            "; a sweep\n[input]\nfiles = %s\nsymbols = AAA\n\n[grid]\nspread = 1:3:1\ninv_limit = "
            "2,4\n\n"
            "[params]\nqueue = log\n\n[run]\nengine = threads\nworkers = 2\nchunk = 2\n",
            t);
    fclose(f);
    const char *a[] = {"mmsim", "sweep", "--config", ini, "--quiet", "-o", tu_path("a.h5"), NULL};
    const char *b[] = {
        "mmsim",  "sweep",         t,       "--symbol",  "AAA",      "--grid", "spread=1:3:1",
        "--grid", "inv_limit=2,4", "--set", "queue=log", "--engine", "serial", "--quiet",
        "-o",     tu_path("b.h5"), NULL};
    char *out;
    cr_assert_eq(tu_run(a, &out, NULL), 0);
    cr_assert(strstr(out, "6 combinations"), "%s", out);
    free(out);
    cr_assert_eq(tu_run(b, NULL, NULL), 0);
    cr_assert_eq(file_hash(tu_path("a.h5")), file_hash(tu_path("b.h5")));
}

Test(sweep, bad_grids_and_configs_are_usage_errors)
{
    const char *t = make_ticks(1000);
    const char *ini = tu_path("bad.ini");
    FILE *f = fopen(ini, "w");
    fprintf(f, "[grid]\nspread = 1,2\n[grdi]\nx = 1\n");
    fclose(f);
    const char *ini2 = tu_path("bad2.ini");
    f = fopen(ini2, "w");
    fprintf(f, "[run]\nengine = process\nflavour = mild\n");
    fclose(f);
    struct {
        const char *argv[12];
        const char *needle;
    } cases[] = {
        {{"mmsim", "sweep", t, "--grid", "sprad=1:3:1", "-o", "x.h5", NULL}, "sprad"},
        {{"mmsim", "sweep", t, "--grid", "spread=3:1:1", "-o", "x.h5", NULL}, "spread"},
        {{"mmsim", "sweep", t, "--grid", "spread=1:3:0", "-o", "x.h5", NULL}, "spread"},
        {{"mmsim", "sweep", t, "--grid", "inv_limit=1.5", "-o", "x.h5", NULL}, "inv_limit"},
        {{"mmsim", "sweep", t, "--grid", "queue=fifo", "-o", "x.h5", NULL}, "queue"},
        {{"mmsim", "sweep", t, "--grid", "spread=", "-o", "x.h5", NULL}, "spread"},
        {{"mmsim", "sweep", t, "-o", "x.h5", NULL}, "empty grid"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,1", "-o", "x.h5", NULL}, "twice"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--set", "spread=3", "-o", "x.h5", NULL},
         "spread"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--engine", "gpu", "-o", "x.h5", NULL},
         "engine"},
        {{"mmsim", "sweep", t, "--grid", "inv_limit=0,1", "-o", "x.h5", NULL}, "inv_limit"},
        {{"mmsim", "sweep", "--config", ini, t, "-o", "x.h5", NULL}, "grdi"},
        {{"mmsim", "sweep", "--config", ini2, t, "-o", "x.h5", NULL}, "flavour"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--objective", "luck", "-o", "x.h5", NULL},
         "objective"},
        {{"mmsim", "sweep", t, "--grid", "spread=0:2000000:1", "-o", "x.h5", NULL},
         "more than 1000000 values"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        int rc = tu_run(cases[i].argv, NULL, &err);
        cr_assert_eq(rc, 2, "case %zu: exit %d (%s)", i, rc, err);
        cr_assert_eq(tu_lines(err), 1, "case %zu: %s", i, err);
        cr_assert(strstr(err, cases[i].needle), "case %zu: '%s' not in %s", i, cases[i].needle,
                  err);
        free(err);
        cr_assert_neq(access("x.h5", F_OK), 0);
    }
}

/* The metric columns named here by hand, each with its field of mm_metrics: independent of the
 * library's column map (src/sweep/results_cols.c), so a swap there (fills_bid for fills_ask) fails
 * this test. */
static const struct {
    const char *name;
    size_t off;
    int is_int;
} METRIC_COLS[] = {
    {"pnl", offsetof(mm_metrics, pnl), 0},
    {"fees", offsetof(mm_metrics, fees), 0},
    {"volume", offsetof(mm_metrics, volume), 1},
    {"fills_bid", offsetof(mm_metrics, fills_bid), 1},
    {"fills_ask", offsetof(mm_metrics, fills_ask), 1},
    {"orders", offsetof(mm_metrics, orders), 1},
    {"cancels", offsetof(mm_metrics, cancels), 1},
    {"rejects", offsetof(mm_metrics, rejects), 1},
    {"final_q", offsetof(mm_metrics, final_q), 1},
    {"max_abs_q", offsetof(mm_metrics, max_abs_q), 1},
    {"mean_abs_q", offsetof(mm_metrics, mean_abs_q), 0},
    {"sharpe", offsetof(mm_metrics, sharpe), 0},
    {"max_drawdown", offsetof(mm_metrics, max_drawdown), 0},
    {"pnl_close", offsetof(mm_metrics, pnl_close), 0},
    {"held", offsetof(mm_metrics, held), 1},
    {"orders_per_s", offsetof(mm_metrics, orders_per_s), 0},
    {"cancels_per_s", offsetof(mm_metrics, cancels_per_s), 0},
    {"rejects_per_s", offsetof(mm_metrics, rejects_per_s), 0},
    {"markout_1s", offsetof(mm_metrics, markout[0]), 0},
    {"markout_10s", offsetof(mm_metrics, markout[1]), 0},
    {"markout_60s", offsetof(mm_metrics, markout[2]), 0},
    {"pnl_spread", offsetof(mm_metrics, pnl_spread), 0},
    {"pnl_inventory", offsetof(mm_metrics, pnl_inventory), 0},
};

/* Read one column of /results by name as 8 bytes per row (float64 or int64, by HDF5's name
 * matching). */
static void *read_col(const char *path, const char *name, int is_int, int64_t n)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(f >= 0);
    hid_t ds = H5Dopen2(f, "results", H5P_DEFAULT);
    cr_assert(ds >= 0);
    hid_t ft = H5Dget_type(ds);
    int idx = H5Tget_member_index(ft, name);
    cr_assert(idx >= 0, "no column %s", name);
    hid_t mt_file = H5Tget_member_type(ft, (unsigned)idx);
    cr_assert_eq(H5Tget_class(mt_file), is_int ? H5T_INTEGER : H5T_FLOAT,
                 "column %s has the wrong class", name);
    H5Tclose(mt_file);
    H5Tclose(ft);
    hid_t mt = H5Tcreate(H5T_COMPOUND, 8);
    H5Tinsert(mt, name, 0, is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE);
    void *v = malloc((size_t)n * 8);
    cr_assert(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "column %s", name);
    H5Tclose(mt);
    H5Dclose(ds);
    H5Fclose(f);
    return v;
}

Test(sweep, every_metric_of_every_row_is_the_reference_engine_s, .timeout = 240)
{
    char t[512];
    snprintf(t, sizeof t, "%s", make_ticks(20000));
    mm_grid *g = grid_small(t);
    sweep_hash(g, MM_ENGINE_PROCESS, 2, 5, "v.h5", NULL);
    /* The table has exactly id, the axes and these metrics. */
    hid_t f = H5Fopen(tu_path("v.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "results", H5P_DEFAULT);
    hid_t ft = H5Dget_type(ds);
    cr_assert_eq(H5Tget_nmembers(ft),
                 1 + mm_grid_axis_count(g) + (int)(sizeof METRIC_COLS / sizeof METRIC_COLS[0]));
    H5Tclose(ft);
    H5Dclose(ds);
    H5Fclose(f);
    const size_t nc = sizeof METRIC_COLS / sizeof METRIC_COLS[0];
    void *cols[sizeof METRIC_COLS / sizeof METRIC_COLS[0]];
    for (size_t c = 0; c < nc; c++)
        cols[c] = read_col(tu_path("v.h5"), METRIC_COLS[c].name, METRIC_COLS[c].is_int,
                           mm_grid_combo_count(g));
    double *spread = read_col(tu_path("v.h5"), "spread", 0, mm_grid_combo_count(g));
    int64_t *inv = read_col(tu_path("v.h5"), "inv_limit", 1, mm_grid_combo_count(g));
    mm_sim_config cfg;
    mm_sim_config_defaults(&cfg);
    mm_ticks tk[2];
    memset(tk, 0, sizeof tk);
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load(t, "AAA", 0, &tk[0], &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_load(t, "BBB", 0, &tk[1], &e), 0, "%s", e.msg);
    int64_t differ = 0; /* rows where the two sides' fill counts differ: a swap must be visible */
    for (int64_t id = 0; id < mm_grid_combo_count(g); id++) {
        mm_params p;
        int32_t idx[8];
        mm_grid_combo(g, id, &p, idx);
        mm_metrics m;
        cr_assert_eq(mm_sim_run_c(&tk[idx[0]], &cfg, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
        for (size_t c = 0; c < nc; c++)
            cr_assert(memcmp((const char *)&m + METRIC_COLS[c].off, (const char *)cols[c] + 8 * id,
                             8) == 0,
                      "id %ld: column %s differs from mm_sim_run_c", (long)id, METRIC_COLS[c].name);
        cr_assert_eq(spread[id], p.spread_ticks);
        cr_assert_eq(inv[id], p.inv_limit);
        differ += m.fills_bid != m.fills_ask;
    }
    cr_assert_gt(differ, 0, "no row tells fills_bid from fills_ask");
    for (size_t c = 0; c < nc; c++)
        free(cols[c]);
    free(spread);
    free(inv);
    mm_ticks_free(&tk[0]);
    mm_ticks_free(&tk[1]);
    mm_grid_free(g);
}

Test(sweep, progress_only_on_a_terminal)
{
    const char *t = make_ticks(20000);
    if (access("/usr/bin/script", X_OK) != 0)
        cr_skip_test("no /usr/bin/script to provide a terminal");
    char cmd[2048];
    /* On a pseudo-terminal (util-linux script), progress lines appear on stderr. */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/script -qec \"%s sweep %s --grid spread=0:7:1 --grid inv_limit=1,2 -o %s\" "
             "/dev/null > %s 2>&1",
             getenv("MMSIM_BIN"), t, tu_path("tty.h5"), tu_path("tty.txt"));
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(tu_path("tty.txt"), "r");
    char buf[8192] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cr_assert(strstr(buf, "sweep: ") && strstr(buf, "combos/s") &&
                  strstr(buf, "32/32 combinations") && strstr(buf, "ETA") && strstr(buf, "100.0%"),
              "%s", buf);
    /* Not a terminal, and shorter than the interval of a log's lines (60 s): no progress. */
    const char *a[] = {"mmsim",
                       "sweep",
                       t,
                       "--grid",
                       "spread=0:7:1",
                       "--grid",
                       "inv_limit=1,2",
                       "-o",
                       tu_path("plain.h5"),
                       NULL};
    char *err;
    cr_assert_eq(tu_run(a, NULL, &err), 0);
    cr_assert_eq(strstr(err, "sweep:"), NULL, "%s", err);
    free(err);
    /* --progress: the same lines, one per call, where stderr is a file (a job's log). */
    const char *b[] = {"mmsim",
                       "sweep",
                       t,
                       "--grid",
                       "spread=0:7:1",
                       "--grid",
                       "inv_limit=1,2",
                       "--progress",
                       "-o",
                       tu_path("log.h5"),
                       NULL};
    cr_assert_eq(tu_run(b, NULL, &err), 0);
    /* The first line before anything is loaded, then one as soon as the tapes are. */
    const char *first = "sweep: 32 combinations over 2 tapes: loading\n"
                        "sweep: 0/32 combinations (0.0%), elapsed ";
    cr_assert(!strncmp(err, first, strlen(first)), "%s", err);
    cr_assert(strstr(err, "sweep: 32/32 combinations (100.0%), ") && strstr(err, ", done\n"), "%s",
              err);
    cr_assert_eq(strchr(err, '\r'), NULL, "%s", err);
    free(err);
}

/* ---- the journal's internal API (item by item of docs/sweep.md, "Journal and resume") ---- */

TestSuite(journal, .fini = tu_cleanup);

static const char IDENT[] = "tapes\t1\nseed\t1\n";

/* What the progress callback saw, call by call. */
typedef struct progress_log {
    int n;
    mm_sweep_progress p[64];
} progress_log;

static void log_progress(const mm_sweep_progress *p, void *user)
{
    progress_log *l = user;
    cr_assert_lt(l->n, 64);
    l->p[l->n++] = *p;
}

Test(sweep, progress_is_a_callback_with_the_run_s_counts)
{
    const char *t = make_ticks(2000);
    mm_grid *g = grid_small(t);
    mm_ticks tk;
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load(t, "AAA", 0, &tk, &e), 0, "%s", e.msg);
    int64_t events = tk.n;
    mm_ticks_free(&tk);
    static progress_log l; /* zeroed */
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    cr_assert_eq(o.progress, NULL);
    cr_assert(o.progress_interval_s == 0.5);
    o.engine = MM_ENGINE_SERIAL;
    o.chunk = 5; /* 24 combinations per tape: chunks of 5, 5, 5, 5, 4 on each of the 2 tapes */
    o.config_text = "test";
    o.progress = log_progress;
    o.progress_user = &l;
    o.progress_interval_s = 0; /* every chunk */
    mm_sweep_report rep;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("p.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(l.n, 1 + 10 + 1, "one call at the start, one per chunk, then the final one");
    int64_t combos = 0;
    for (int i = 0; i < l.n; i++) {
        const mm_sweep_progress *p = &l.p[i];
        int final = i == l.n - 1;
        if (i > 0 && !final) combos += (i - 1) % 5 == 4 ? 4 : 5;
        cr_assert_eq(p->final, final, "call %d", i);
        cr_assert_eq(p->chunks_done, final ? 10 : i, "call %d", i);
        cr_assert_eq(p->updates_total, l.p[l.n - 1].updates_done, "call %d", i);
        cr_assert_eq(p->chunks_total, 10);
        cr_assert_eq(p->combos_total, 48);
        cr_assert_eq(p->combos_done, combos, "call %d", i);
        cr_assert_geq(p->elapsed_s, 0);
        if (i > 0) cr_assert_geq(p->elapsed_s, l.p[i - 1].elapsed_s);
    }
    cr_assert_eq(l.p[l.n - 1].combos_done, 48);
    /* The first 5 chunks are tape AAA's 24 combinations. */
    cr_assert_eq(l.p[5].updates_done, 24 * events);
    cr_assert_eq(l.p[0].updates_done, 0);

    /* The library throttles: with the default interval a fast run reports its start (before any
     * chunk ends, so a slow first chunk does not leave the user without a line) and the final call
     * only. */
    static progress_log l2;
    o.progress_user = &l2;
    o.progress_interval_s = 3600;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("p2.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(l2.n, 2);
    cr_assert_eq(l2.p[0].chunks_done, 0);
    cr_assert_eq(l2.p[0].final, 0);
    cr_assert_eq(l2.p[1].final, 1);
    cr_assert_eq(l2.p[1].chunks_done, 10);
    mm_grid_free(g);
}

Test(sweep, every_key_can_be_an_axis_and_the_grid_has_no_fixed_axis_limit)
{
    const char *tapes[1] = {"t.h5#AAA"};
    mm_grid *g = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_grid_new(&g, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    mm_params d;
    mm_params_defaults(&d);
    int n = mm_params_key_count();
    for (int k = 0; k < n; k++) {
        const char *key = mm_params_key_name(k, NULL);
        char v[64];
        cr_assert_eq(mm_params_get(&d, key, v, sizeof v), 0, "%s", key);
        cr_assert_eq(mm_grid_add_axis(g, key, v, &e), 0, "%s=%s: %s", key, v, e.msg);
    }
    cr_assert_eq(mm_grid_axis_count(g), n + 1);
    cr_assert_eq(mm_grid_combo_count(g), 1);
    cr_assert_str_eq(mm_grid_axis_key(g, n), mm_params_key_name(n - 1, NULL));
    int32_t *idx = calloc((size_t)n + 1, sizeof *idx);
    mm_params p;
    cr_assert_eq(mm_grid_combo(g, 0, &p, idx), 0);
    free(idx);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "1", &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "spread: axis given twice");
    mm_grid_free(g);
}

Test(sweep, grid_numbers_are_checked_as_the_command_line_checks_them)
{
    const char *tapes[1] = {"t.h5#AAA"};
    struct {
        const char *key, *spec, *msg; /* msg NULL: accepted */
    } cases[] = {
        {"inv_limit", "+5", "inv_limit: '+5' is not a decimal integer"},
        {"inv_limit", "1e3", "inv_limit: '1e3' is not a decimal integer"},
        {"inv_limit", "5.0", "inv_limit: '5.0' is not a decimal integer"},
        {"inv_limit", "-0,5", NULL},
        {"inv_limit", "+1:5:1", NULL}, /* range bounds are decimal numbers, as for a real axis */
        {"spread", "+0.5", NULL},
        {"spread", "0x10", "spread: '0x10' is not a decimal number"},
        {"spread", " +1 , 2e0", NULL},
        {"spread", "1:+5:1", NULL},
        {"spread", "1::1",
         "spread: '1::1' is not a range a:b[:step] of decimal numbers with step > 0 and b >= a"},
        {"spread", "1:2:1:",
         "spread: '1:2:1:' is not a range a:b[:step] of decimal numbers with step > 0 and b >= a"},
        {"spread", "1:2", NULL},              /* a:b is a:b:1 (issue 13) */
        {"inv_limit", "1:3", NULL},           /* an integer key too */
        {"sprad", "1", "sprad: unknown key"}, /* no command-line hint from the library */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mm_grid *g = NULL;
        mm_error e = {0};
        cr_assert_eq(mm_grid_new(&g, NULL), 0);
        cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
        int rc = mm_grid_add_axis(g, cases[k].key, cases[k].spec, &e);
        if (cases[k].msg) {
            cr_assert_eq(rc, MM_EUSAGE, "%s=%s", cases[k].key, cases[k].spec);
            cr_assert_str_eq(e.msg, cases[k].msg);
        } else {
            cr_assert_eq(rc, 0, "%s=%s: %s", cases[k].key, cases[k].spec, e.msg);
        }
        mm_grid_free(g);
    }
}

Test(journal, a_failed_open_leaves_no_descriptor_to_close_twice)
{
    /* A file that is not a journal: the open fails after opening the file. Closing the journal
     * afterwards must not close a descriptor that has since been given to someone else. */
    const char *p = tu_path("bad.journal");
    FILE *f = fopen(p, "w");
    fputs("not a journal at all, but long enough to read a header from it........", f);
    fclose(f);
    mm__journal j;
    mm_error e = {0};
    uint8_t done[4] = {0};
    int64_t n_done;
    cr_assert_eq(
        mm__journal_open(&j, p, "bad", 1, 1, IDENT, 4, sizeof(mm_metrics), done, &n_done, &e),
        MM_EFORMAT);
    cr_assert_eq(j.fd, -1);
    int other =
        open("/dev/null", O_RDONLY); /* takes the lowest free number: the one the journal had */
    mm__journal_close(&j);
    cr_assert_neq(fcntl(other, F_GETFD), -1, "the journal closed another owner's descriptor");
    close(other);
}

Test(journal, descriptor_0_is_closed_too)
{
    close(0); /* the journal gets descriptor 0 */
    mm__journal j;
    mm_error e = {0};
    uint8_t done[4] = {0};
    int64_t n_done;
    cr_assert_eq(mm__journal_open(&j, tu_path("z.journal"), "z", 0, 1, IDENT, 4, sizeof(mm_metrics),
                                  done, &n_done, &e),
                 0, "%s", e.msg);
    cr_assert_eq(j.fd, 0);
    mm__journal_close(&j);
    cr_assert_eq(fcntl(0, F_GETFD), -1, "descriptor 0 was left open");
    cr_assert_eq(j.fd, -1);
}

static mm_metrics metric_rows(int64_t first, int k)
{
    mm_metrics m;
    memset(&m, 0, sizeof m);
    m.pnl = (double)(first + k) * 1.5;
    m.fills_bid = first + k;
    return m;
}

/* A journal with records [0,2) and [2,4) of a 4-combination run; returns its path and header
 * length. */
static const char *journal_with_two_records(long *hlen)
{
    const char *p = tu_path("two.journal");
    mm__journal j;
    mm_error e = {0};
    uint8_t done[4] = {0};
    int64_t n_done;
    cr_assert_eq(
        mm__journal_open(&j, p, "two", 0, 7, IDENT, 4, sizeof(mm_metrics), done, &n_done, &e), 0,
        "%s", e.msg);
    for (int64_t first = 0; first < 4; first += 2) {
        mm_metrics m[2] = {metric_rows(first, 0), metric_rows(first, 1)};
        cr_assert_eq(mm__journal_append(&j, first, 2, m), 0);
    }
    cr_assert_eq(mm__journal_sync(&j), 0);
    *hlen = (long)j.data_off;
    mm__journal_close(&j);
    return p;
}

Test(journal, record_ids_are_checked_after_the_checksum_without_overflow)
{
    long hlen;
    const char *p = journal_with_two_records(&hlen);
    /* Replace the second record by one with a valid checksum whose first id is near INT64_MAX:
     * first + count wraps around. It must be cut (and its chunk recomputed), not used to index the
     * done map. */
    unsigned char rec[16 + 2 * 184 + 8];
    memcpy(rec, "JREC", 4);
    uint32_t count = 2;
    int64_t first = INT64_MAX - 1;
    memcpy(rec + 4, &count, 4);
    memcpy(rec + 8, &first, 8);
    memset(rec + 16, 0x11, 2 * 184);
    uint64_t sum = XXH3_64bits(rec, 16 + 2 * 184);
    memcpy(rec + 16 + 2 * 184, &sum, 8);
    int fd = open(p, O_WRONLY);
    cr_assert_eq(pwrite(fd, rec, sizeof rec, hlen + (long)sizeof rec), (ssize_t)sizeof rec);
    close(fd);
    mm__journal j;
    mm_error e = {0};
    uint8_t done[4] = {0};
    int64_t n_done;
    cr_assert_eq(
        mm__journal_open(&j, p, "two", 1, 7, IDENT, 4, sizeof(mm_metrics), done, &n_done, &e), 0,
        "%s", e.msg);
    cr_assert_eq(n_done, 2);
    cr_assert_eq(j.records, 1);
    cr_assert(done[0] && done[1] && !done[2] && !done[3]);
    mm__journal_close(&j);
    struct stat st;
    stat(p, &st);
    cr_assert_eq(st.st_size, hlen + (long)sizeof rec, "the bad record was not cut");
}

typedef struct scan_seen {
    int records;
    double pnl_sum;
} scan_seen;

static int scan_cb(int64_t first, uint32_t count, const unsigned char *bytes, void *user)
{
    const mm_metrics *m = (const mm_metrics *)bytes;
    scan_seen *s = user;
    s->records++;
    for (uint32_t k = 0; k < count; k++) {
        cr_assert_eq(m[k].fills_bid, first + k);
        s->pnl_sum += m[k].pnl;
    }
    return 0;
}

Test(journal, a_flipped_byte_fails_the_final_scan)
{
    long hlen;
    const char *p = journal_with_two_records(&hlen);
    mm__journal j;
    mm_error e = {0};
    uint8_t done[4] = {0};
    int64_t n_done;
    cr_assert_eq(
        mm__journal_open(&j, p, "two", 1, 7, IDENT, 4, sizeof(mm_metrics), done, &n_done, &e), 0,
        "%s", e.msg);
    cr_assert_eq(n_done, 4);
    scan_seen seen = {0};
    cr_assert_eq(mm__journal_scan(&j, p, scan_cb, &seen, &e), 0, "%s", e.msg);
    cr_assert_eq(seen.records, 2);
    /* The file changes under the run (a bad disk, another program): one byte of the second record's
     * pnl. */
    int fd = open(p, O_RDWR);
    long at = hlen + (16 + 2 * 184 + 8) + 16 + 3;
    unsigned char b;
    cr_assert_eq(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    cr_assert_eq(pwrite(fd, &b, 1, at), 1);
    close(fd);
    seen = (scan_seen){0};
    int rc = mm__journal_scan(&j, p, scan_cb, &seen, &e);
    cr_assert_eq(rc, MM_ECHECKSUM, "%s", e.msg);
    cr_assert_eq(seen.records, 1, "the bad record reached the table");
    cr_assert(strstr(e.msg, "record 1 at byte") && strstr(e.msg, "checksum mismatch") &&
                  strstr(e.msg, "mm_sweep_opts.resume"),
              "%s", e.msg);
    mm__journal_close(&j);
}

/* ---- sweeps: flipped records, stops, dead parents, locks, full disks ---- */

/* A 4 x 3 x 2 grid on one tape of the given file (24 combinations). */
static mm_grid *grid_one(const char *ticks)
{
    mm_grid *g = NULL;
    mm_error e = {0};
    char a[512];
    snprintf(a, sizeof a, "%s#AAA", ticks);
    const char *tapes[1] = {a};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0:3:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "1,2,5", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "queue", "risk-averse,power", &e), 0, "%s", e.msg);
    return g;
}

/* Sets *stop once `records` chunks are journaled, from the sweep's progress callback (called after
 * every chunk with progress_interval_s 0), as a signal handler or another thread would. A thread
 * polling the journal raced the engines: on a loaded machine the serial engine finished all 12
 * chunks before the poller ran. */
typedef struct stop_at {
    long records;
    atomic_int *stop;
} stop_at;

static void stop_cb(const mm_sweep_progress *p, void *user)
{
    stop_at *s = user;
    if (p->chunks_done >= s->records) atomic_store(s->stop, 1);
}

/* Run the grid with a stop requested once `records` records are journaled; returns mm_sweep_run's
 * code. */
static int sweep_stopped(const mm_grid *g, int engine, int workers, int chunk, const char *out,
                         long records, mm_sweep_report *rep, mm_error *e)
{
    atomic_int stop = 0;
    stop_at s = {records, &stop};
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = engine;
    o.workers = workers;
    o.chunk = chunk;
    o.config_text = "test";
    o.cancel = &stop;
    o.progress = stop_cb;
    o.progress_user = &s;
    o.progress_interval_s = 0;
    return mm_sweep_run(g, &o, out, rep, e);
}

static int resume_run(const mm_grid *g, int engine, int chunk, const char *out,
                      mm_sweep_report *rep, mm_error *e)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = engine;
    o.workers = 2;
    o.chunk = chunk;
    o.config_text = "test";
    o.resume = 1;
    return mm_sweep_run(g, &o, out, rep, e);
}

Test(sweep, a_flipped_byte_in_a_journal_record_is_recomputed_on_resume, .timeout = 240)
{
    const char *t = make_ticks(200000);
    mm_grid *g = grid_one(t);
    uint64_t ref = sweep_hash(g, MM_ENGINE_SERIAL, 1, 4, "ref.h5", NULL);
    const char *o = tu_path("flip.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    mm_sweep_report rep;
    mm_error e = {0};
    int rc = sweep_stopped(g, MM_ENGINE_SERIAL, 1, 4, o, 3, &rep, &e);
    cr_assert_eq(rc, MM_EINTERRUPTED, "the run was not stopped (%d: %s)", rc, e.msg);
    long kept = journal_records(j, 4);
    cr_assert(kept >= 3 && kept < 6, "%ld records", kept);
    /* Flip one byte in the metrics of the second record. */
    int fd = open(j, O_RDWR);
    unsigned char h[48];
    cr_assert_eq(pread(fd, h, 48, 0), 48);
    uint32_t il;
    memcpy(&il, h + 40, 4);
    long at = 56 + (long)il + (16 + 4 * 184 + 8) + 16 + 5;
    unsigned char b;
    cr_assert_eq(pread(fd, &b, 1, at), 1);
    b ^= 0x08;
    cr_assert_eq(pwrite(fd, &b, 1, at), 1);
    close(fd);
    /* Resume keeps the first record only, recomputes the rest: the table is the uninterrupted one.
     */
    cr_assert_eq(resume_run(g, MM_ENGINE_PROCESS, 4, o, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.chunks_resumed, 4, "combinations kept from the journal: %ld",
                 (long)rep.chunks_resumed);
    cr_assert_eq(rep.content_hash, ref, "a damaged record reached the table");
    cr_assert_neq(access(j, F_OK), 0);
    mm_grid_free(g);
}

Test(sweep, a_stop_keeps_the_journal_in_every_engine_and_resume_is_identical, .timeout = 300)
{
    const char *t = make_ticks(200000);
    mm_grid *g = grid_one(t);
    uint64_t ref = sweep_hash(g, MM_ENGINE_SERIAL, 1, 2, "ref.h5", NULL);
    int engines[] = {MM_ENGINE_SERIAL, MM_ENGINE_THREADS, MM_ENGINE_PROCESS};
    for (int k = 0; k < 3; k++) {
        char name[32], j[600];
        snprintf(name, sizeof name, "stop%d.h5", k);
        const char *o = tu_path(name);
        snprintf(j, sizeof j, "%s.journal", o);
        mm_sweep_report rep;
        mm_error e = {0};
        int rc = sweep_stopped(g, engines[k], 2, 2, o, 2, &rep, &e);
        cr_assert_eq(rc, MM_EINTERRUPTED, "engine %d was not stopped (%d: %s)", engines[k], rc,
                     e.msg);
        cr_assert_eq(rep.chunks_total, 12, "engine %d", engines[k]);
        cr_assert(rep.chunks_saved >= 2 && rep.chunks_saved < 12, "engine %d: %ld saved",
                  engines[k], (long)rep.chunks_saved);
        cr_assert_eq(journal_records(j, 2), rep.chunks_saved,
                     "engine %d: the journal does not hold what was reported", engines[k]);
        char want[96];
        snprintf(want, sizeof want, "interrupted: %ld of 12 chunks saved in the journal",
                 (long)rep.chunks_saved);
        cr_assert_str_eq(e.msg, want);
        cr_assert_neq(access(o, F_OK), 0, "engine %d: a table exists after a stop", engines[k]);
        cr_assert_eq(resume_run(g, engines[k], 2, o, &rep, &e), 0, "%s", e.msg);
        cr_assert_eq(rep.content_hash, ref, "engine %d: stop + resume differs", engines[k]);
    }
    mm_grid_free(g);
}

/* pids of the children of `parent` (from /proc). */
static int children_of(pid_t parent, pid_t *out, int cap)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)) && n < cap) {
        char p[300], buf[512];
        if (de->d_name[0] < '1' || de->d_name[0] > '9') continue;
        snprintf(p, sizeof p, "/proc/%s/stat", de->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        char *rp = strrchr(buf, ')');
        int ppid = 0;
        char state;
        if (rp && sscanf(rp + 2, "%c %d", &state, &ppid) == 2 && ppid == parent)
            out[n++] = atoi(de->d_name);
    }
    if (d) closedir(d);
    return n;
}

static int shm_segments_of(pid_t pid)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "mmsim.%ld.", (long)pid);
    DIR *d = opendir("/dev/shm");
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    if (d) closedir(d);
    return n;
}

Test(sweep, workers_die_at_once_when_their_parent_is_killed, .timeout = 240)
{
    const char *t = tu_path("big.h5");
    const char *gen[] = {"mmsim",          "gen", "--seed", "5", "--events",
                         LONG_TAPE_EVENTS, "-o",  t,        NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    /* Orphans are reparented to this process (a subreaper), so it can see them exit and reap them.
     */
    cr_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    const char *o = tu_path("orphan.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    const char *run[] = {
        "mmsim",   "sweep", t,           "--grid", "spread=0:15:1", "--grid", "inv_limit=1,3,10,30",
        "--chunk", "2",     "--workers", "2",      "--quiet",       "-o",     o,
        NULL};
    pid_t parent = spawn(run);
    cr_assert(wait_records(parent, j, 1, 2), "the sweep ended before its first record");
    pid_t w[8];
    int nw = children_of(parent, w, 8);
    cr_assert_eq(nw, 2, "%d workers", nw);
    kill(parent, SIGKILL); /* the parent alone */
    int ws;
    cr_assert_eq(waitpid(parent, &ws, 0), parent);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int gone = 0;
    while (gone < nw) {
        for (int i = 0; i < nw; i++) {
            if (w[i] > 0 && waitpid(w[i], &ws, WNOHANG) == w[i]) {
                cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "worker %d ended otherwise",
                          w[i]);
                w[i] = 0;
                gone++;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (gone < nw && el > 5.0) { /* SIGKILL at once; 5 s for a loaded CI machine */
            for (int i = 0; i < nw; i++)
                if (w[i] > 0) kill(w[i], SIGKILL);
            cr_assert_fail("%d of %d workers still running 5 s after their parent was killed",
                           nw - gone, nw);
        }
        nap_ms(5);
    }
    cr_assert_eq(shm_segments_of(parent), 0, "/dev/shm holds a segment of the killed run");
    /* Nothing holds the journal any more: --resume finishes the table. */
    const char *res[] = {"mmsim",
                         "sweep",
                         t,
                         "--grid",
                         "spread=0:15:1",
                         "--grid",
                         "inv_limit=1,3,10,30",
                         "--chunk",
                         "2",
                         "--workers",
                         "2",
                         "--quiet",
                         "--resume",
                         "-o",
                         o,
                         NULL};
    char *err;
    cr_assert_eq(tu_run(res, NULL, &err), 0, "%s", err);
    free(err);
}

Test(sweep, a_second_run_on_the_same_output_is_refused_at_once, .timeout = 240)
{
    const char *t = tu_path("big.h5");
    const char *gen[] = {"mmsim",          "gen", "--seed", "5", "--events",
                         LONG_TAPE_EVENTS, "-o",  t,        NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *o = tu_path("busy.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    const char *run[] = {
        "mmsim",   "sweep", t,           "--grid", "spread=0:15:1", "--grid", "inv_limit=1,3,10,30",
        "--chunk", "2",     "--workers", "2",      "--quiet",       "-o",     o,
        NULL};
    const char *res[] = {"mmsim",
                         "sweep",
                         t,
                         "--grid",
                         "spread=0:15:1",
                         "--grid",
                         "inv_limit=1,3,10,30",
                         "--chunk",
                         "2",
                         "--workers",
                         "2",
                         "--quiet",
                         "--resume",
                         "-o",
                         o,
                         NULL};
    pid_t first = spawn(run);
    cr_assert(wait_records(first, j, 1, 2), "the first run ended before its first record");
    char want[700];
    snprintf(want, sizeof want, "%s is being written by mmsim pid %ld", o, (long)first);
    for (int k = 0; k < 2; k++) {
        char *err;
        int rc = tu_run(k ? res : run, NULL, &err);
        cr_assert_eq(rc, 1, "%s run: exit %d (%s)", k ? "a --resume" : "a second", rc, err);
        cr_assert(strstr(err, want), "'%s' not in %s", want, err);
        cr_assert_eq(tu_lines(err), 1, "%s", err);
        /* "At once": refused while the first run still holds the output, not after waiting for
         * it to end (a wall-clock bound fails on a loaded CI machine: 2.1 s under ASan once). */
        int ws0;
        cr_assert_eq(waitpid(first, &ws0, WNOHANG), 0,
                     "%s run was refused only after the first run ended",
                     k ? "a --resume" : "a second");
        free(err);
    }
    /* The first run is unharmed: it finishes with the table. */
    int ws;
    cr_assert_eq(waitpid(first, &ws, 0), first);
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the first run failed");
    cr_assert_eq(access(o, F_OK), 0);
    cr_assert_neq(access(j, F_OK), 0);
}

Test(sweep, resume_names_what_differs, .timeout = 240)
{
    const char *t = make_ticks(20000);
    const char *o = tu_path("id.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    /* An interrupted run: a journal without records, left by a run stopped before its first chunk.
     */
    mm_grid *g = grid_one(t);
    mm_sweep_opts opt;
    mm_sweep_opts_defaults(&opt);
    atomic_int stop = 1;
    opt.cancel = &stop;
    opt.engine = MM_ENGINE_SERIAL;
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &opt, o, &rep, &e), MM_EINTERRUPTED, "%s", e.msg);
    cr_assert_eq(access(j, F_OK), 0);
    mm_grid_free(g);
    char other[512];
    snprintf(other, sizeof other, "%s", tu_path("other.h5"));
    {
        mm_gen_params gp;
        mm_gen_defaults(&gp);
        gp.seed = 999;
        gp.events = 20000;
        strcpy(gp.symbol, "AAA");
        mm_ticks tk = {0};
        cr_assert_eq(mm_gen_ticks(&gp, &tk, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_ticks_write(other, &tk, NULL, &e), 0, "%s", e.msg);
        mm_ticks_free(&tk);
    }
    struct {
        const char *what;
        const char *want;
    } cases[] = {
        {"seed", "seed 1 there, 2 here"},
        {"set", "latency_ns=0 there, latency_ns=5000 here"},
        {"axis", "grid axis inv_limit=1,2,5 there, inv_limit=1,2,6 here"},
        {"axes", "grid axes spread,inv_limit,queue there, spread,inv_limit here"},
        {"objective", "objective pnl there, sharpe here"},
        {"markout", "markout_ns 1000000000,10000000000,60000000000 there, "
                    "1000000000,10000000000,30000000000 here"},
        {"sample", "sample_ns 1000000000 there, 500000000 here"},
        {"tape", "fingerprint"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *w = cases[k].what;
        char a[1100];
        snprintf(a, sizeof a, "%s#AAA", strcmp(w, "tape") ? t : other);
        const char *tapes[1] = {a};
        cr_assert_eq(mm_grid_new(&g, NULL), 0);
        cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_add_axis(g, "spread", "0:3:1", &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_add_axis(g, "inv_limit", strcmp(w, "axis") ? "1,2,5" : "1,2,6", &e), 0,
                     "%s", e.msg);
        if (strcmp(w, "axes"))
            cr_assert_eq(mm_grid_add_axis(g, "queue", "risk-averse,power", &e), 0, "%s", e.msg);
        if (!strcmp(w, "set"))
            cr_assert_eq(mm_grid_set(g, "latency_ns", "5000", &e), 0, "%s", e.msg);
        mm_sweep_opts_defaults(&opt);
        opt.engine = MM_ENGINE_SERIAL;
        opt.resume = 1;
        if (!strcmp(w, "seed")) opt.seed = 2;
        if (!strcmp(w, "objective")) opt.objective = "sharpe";
        if (!strcmp(w, "markout")) opt.sim.markout_ns[2] = INT64_C(30000000000);
        if (!strcmp(w, "sample")) opt.sim.sample_ns = 500000000;
        int rc = mm_sweep_run(g, &opt, o, &rep, &e);
        cr_assert_eq(rc, MM_EUSAGE, "%s: %d (%s)", w, rc, e.msg);
        char want[700];
        snprintf(want, sizeof want,
                 "%s: the run to resume does not match the interrupted run: ", j);
        cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s: %s", w, e.msg);
        cr_assert(strstr(e.msg, cases[k].want), "%s: '%s' not in %s", w, cases[k].want, e.msg);
        mm_grid_free(g);
    }
    cr_assert_eq(access(j, F_OK), 0, "a refused resume removed the journal");
}

/* Usage errors found by the library leave nothing behind: no journal, no temporary file, no table.
 */
Test(sweep, usage_errors_leave_no_journal)
{
    const char *t = make_ticks(2000);
    mm_error e = {0};
    char a[512];
    snprintf(a, sizeof a, "%s#AAA", t);
    const char *tapes[1] = {a};
    mkdir(tu_path("adir"), 0755);
    struct {
        const char *key1, *spec1, *key2, *spec2, *objective, *out;
        int64_t markout;
        const char *want;
    } cases[] = {
        {"size", "1:10:1", "inv_limit", "1:100:1", NULL, "u.h5", 0,
         "grid: combination size=2 inv_limit=1: inv_limit: 1 must be in ["},
        {"spread", "1,2", NULL, NULL, NULL, "u.h5", 1000,
         "markout_ns: the horizons 1000,1000,1000 give the column markout_1us twice"},
        {"spread", "1,2", NULL, NULL, "luck", "u.h5", 0,
         "objective: 'luck' is not a metric column (pnl, fees, volume"},
        {"spread", "1,2", NULL, NULL, NULL, "adir", 0, "adir: is a directory"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mm_grid *g = NULL;
        cr_assert_eq(mm_grid_new(&g, NULL), 0);
        cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_grid_add_axis(g, cases[k].key1, cases[k].spec1, &e), 0, "%s", e.msg);
        if (cases[k].key2)
            cr_assert_eq(mm_grid_add_axis(g, cases[k].key2, cases[k].spec2, &e), 0, "%s", e.msg);
        mm_sweep_opts o;
        mm_sweep_opts_defaults(&o);
        if (cases[k].objective) o.objective = cases[k].objective;
        if (cases[k].markout)
            for (int m = 0; m < MM_MARKOUTS; m++)
                o.sim.markout_ns[m] = cases[k].markout;
        const char *out = tu_path(cases[k].out);
        mm_sweep_report rep;
        cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), MM_EUSAGE, "case %zu: %s", k, e.msg);
        cr_assert(strstr(e.msg, cases[k].want), "case %zu: '%s' not in '%s'", k, cases[k].want,
                  e.msg);
        char j[600];
        snprintf(j, sizeof j, "%s.journal", out);
        cr_assert_neq(access(j, F_OK), 0, "case %zu left %s", k, j);
        if (strcmp(cases[k].out, "adir")) cr_assert_neq(access(out, F_OK), 0);
        mm_grid_free(g);
    }
    DIR *d = opendir(tu_tmpdir());
    struct dirent *de;
    while ((de = readdir(d)))
        cr_assert_null(strstr(de->d_name, ".tmp."), "left %s", de->d_name);
    closedir(d);
}

Test(sweep, any_metric_column_is_an_objective)
{
    const char *t = make_ticks(2000);
    mm_grid *g = grid_one(t);
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_SERIAL;
    o.objective = "markout_1s";
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("mk.h5"), &rep, &e), 0, "%s", e.msg);
    hid_t f = H5Fopen(tu_path("mk.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(H5Lexists(f, "index/markout_1s", H5P_DEFAULT) > 0);
    H5Fclose(f);
    mm_grid_free(g);
}

Test(sweep, a_huge_grid_is_refused_at_once_with_the_memory_it_needs)
{
    const char *t = make_ticks(2000);
    mm_error e = {0};
    char a[512];
    snprintf(a, sizeof a, "%s#AAA", t);
    const char *tapes[1] = {a};
    mm_grid *g = NULL;
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "1:1000:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "1:1000:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "latency_ns", "0:999:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "skew", "0:999:1", &e), 0, "%s", e.msg);
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    mm_sweep_report rep;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = mm_sweep_run(g, &o, tu_path("huge.h5"), &rep, &e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_assert_eq(rc, MM_EUSAGE, "%s", e.msg);
    /* "more than this machine's 25.3 GB", or the cgroup's limit where it is smaller. */
    cr_assert(strstr(e.msg, "grid: 1000000000000 combinations need 34.0 TB of memory") &&
                  strstr(e.msg, ", more than "),
              "%s", e.msg);
    /* Refused by arithmetic, not by trying: seconds at most even on a loaded CI machine. */
    cr_assert_lt((double)(t1.tv_sec - t0.tv_sec), 10.0);
    char j[600];
    snprintf(j, sizeof j, "%s.journal", tu_path("huge.h5"));
    cr_assert_neq(access(j, F_OK), 0);
    mm_grid_free(g);
}

Test(sweep, stale_temporaries_of_dead_pids_are_removed)
{
    const char *t = make_ticks(2000);
    /* A pid that existed and is gone: a reaped child's. */
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    int ws;
    waitpid(dead, &ws, 0);
    const char *o = tu_path("st.h5");
    char stale[600], live[600], other[600];
    snprintf(stale, sizeof stale, "%s.tmp.%ld", o, (long)dead);
    snprintf(live, sizeof live, "%s.tmp.%ld", o, (long)getpid()); /* this test is alive */
    snprintf(other, sizeof other, "%s.tmp.x%ld", o, (long)dead);  /* not a pid: not ours */
    const char *files[] = {stale, live, other};
    for (int k = 0; k < 3; k++) {
        FILE *f = fopen(files[k], "w");
        fputs("partial table", f);
        fclose(f);
    }
    const char *run[] = {"mmsim",      "sweep",   t,    "--symbol", "AAA", "--grid",
                         "spread=1,2", "--quiet", "-o", o,          NULL};
    cr_assert_eq(tu_run(run, NULL, NULL), 0);
    cr_assert_neq(access(stale, F_OK), 0, "the dead pid's temporary is still there");
    cr_assert_eq(access(live, F_OK), 0, "a live pid's temporary was removed");
    cr_assert_eq(access(other, F_OK), 0);
}

Test(sweep, a_kill_during_the_final_write_then_resume_gives_the_same_table, .timeout = 300)
{
    const char *t = make_ticks(2000);
    const char *o = tu_path("fw.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    const char *run[] = {"mmsim",
                         "sweep",
                         t,
                         "--symbol",
                         "AAA",
                         "--grid",
                         "spread=0:99:1",
                         "--grid",
                         "inv_limit=1:200:1",
                         "--engine",
                         "serial",
                         "--quiet",
                         "-o",
                         o,
                         NULL};
    const char *ref[] = {"mmsim",  "sweep",         t,        "--symbol",          "AAA",
                         "--grid", "spread=0:99:1", "--grid", "inv_limit=1:200:1", "--engine",
                         "serial", "--quiet",       "-o",     tu_path("fwref.h5"), NULL};
    cr_assert_eq(tu_run(ref, NULL, NULL), 0);
    int caught = 0;
    char tmp[700] = "";
    for (int attempt = 0; attempt < 5 && !caught; attempt++) {
        unlink(o);
        unlink(j);
        pid_t pid = spawn(run);
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", o, (long)pid);
        for (;;) {
            if (access(tmp, F_OK) == 0) {
                kill(-pid, SIGKILL);
                caught = 1;
            }
            int ws;
            if (waitpid(pid, &ws, caught ? 0 : WNOHANG) == pid) break;
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
        if (caught) caught = access(tmp, F_OK) == 0 && access(j, F_OK) == 0;
    }
    cr_assert(caught, "no kill landed during the final write");
    const char *res[] = {"mmsim",
                         "sweep",
                         t,
                         "--symbol",
                         "AAA",
                         "--grid",
                         "spread=0:99:1",
                         "--grid",
                         "inv_limit=1:200:1",
                         "--engine",
                         "serial",
                         "--quiet",
                         "--resume",
                         "-o",
                         o,
                         NULL};
    cr_assert_eq(tu_run(res, NULL, NULL), 0);
    cr_assert_neq(access(tmp, F_OK), 0, "the killed run's temporary is still there");
    cr_assert_eq(file_hash(o), file_hash(tu_path("fwref.h5")));
}

Test(sweep, a_full_disk_keeps_the_journal_and_resume_finishes, .timeout = 240)
{
    const char *t = make_ticks(2000);
    const char *fs = tu_path("fs");
    mkdir(fs, 0755);
    if (mount("tmpfs", fs, "tmpfs", 0, "size=400k") != 0)
        cr_skip_test("cannot mount a tmpfs (%s): not root?", strerror(errno));
    char o[600], j[700];
    snprintf(o, sizeof o, "%s/out.h5", fs);
    snprintf(j, sizeof j, "%s.journal", o);
    const char *run[] = {"mmsim",
                         "sweep",
                         t,
                         "--symbol",
                         "AAA",
                         "--grid",
                         "spread=0:39:1",
                         "--grid",
                         "inv_limit=1:50:1",
                         "--engine",
                         "serial",
                         "--quiet",
                         "-o",
                         o,
                         NULL};
    char *err;
    int rc = tu_run(run, NULL, &err);
    char want[700];
    snprintf(want, sizeof want, "mmsim: %s: No space left on device\n", o);
    int ok = rc == 1 && !strcmp(err, want);
    char msg[1400];
    snprintf(msg, sizeof msg, "exit %d, stderr '%s'", rc, err);
    free(err);
    int no_table = access(o, F_OK) != 0, journal = access(j, F_OK) == 0;
    int tmps = 0;
    DIR *d = opendir(fs);
    struct dirent *de;
    while (d && (de = readdir(d)))
        tmps += strstr(de->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    /* Room on the disk: --resume writes the table from the journal alone. */
    mount("tmpfs", fs, "tmpfs", MS_REMOUNT, "size=4m");
    const char *res[] = {"mmsim",
                         "sweep",
                         t,
                         "--symbol",
                         "AAA",
                         "--grid",
                         "spread=0:39:1",
                         "--grid",
                         "inv_limit=1:50:1",
                         "--engine",
                         "serial",
                         "--quiet",
                         "--resume",
                         "-o",
                         o,
                         NULL};
    char *out;
    int rc2 = tu_run(res, &out, NULL);
    uint64_t h = rc2 == 0 ? file_hash(o) : 0;
    int resumed = out && strstr(out, "resumed: 2000 combinations") != NULL;
    free(out);
    umount(fs);
    cr_assert(ok, "%s", msg);
    cr_assert(no_table && journal && tmps == 0, "table %d, journal %d, temporaries %d", !no_table,
              journal, tmps);
    cr_assert_eq(rc2, 0);
    cr_assert(resumed, "the resume recomputed chunks: the journal was not intact");
    const char *ref[] = {"mmsim",  "sweep",         t,        "--symbol",         "AAA",
                         "--grid", "spread=0:39:1", "--grid", "inv_limit=1:50:1", "--engine",
                         "serial", "--quiet",       "-o",     tu_path("ref.h5"),  NULL};
    cr_assert_eq(tu_run(ref, NULL, NULL), 0);
    cr_assert_eq(h, file_hash(tu_path("ref.h5")));
}

Test(sweep, the_engine_reaps_only_its_own_workers, .timeout = 240)
{
    const char *t = make_ticks(20000);
    /* A child of the host program that has already exited: a waitpid(-1) in the engine would reap
     * it. */
    pid_t mine = fork();
    if (mine == 0) _exit(7);
    nap_ms(50);
    mm_grid *g = grid_one(t);
    sweep_hash(g, MM_ENGINE_PROCESS, 2, 2, "reap.h5", NULL);
    int ws;
    cr_assert_eq(waitpid(mine, &ws, WNOHANG), mine, "the sweep reaped the host's child");
    cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 7);
    mm_grid_free(g);
}

Test(sweep, sigint_and_sigterm_stop_the_run_and_resume_is_identical, .timeout = 300)
{
    const char *t = tu_path("big.h5");
    const char *gen[] = {"mmsim",          "gen", "--seed", "5", "--events",
                         LONG_TAPE_EVENTS, "-o",  t,        NULL};
    cr_assert_eq(tu_run(gen, NULL, NULL), 0);
    const char *ref[] = {
        "mmsim",   "sweep", t,         "--grid", "spread=0:15:1",   "--grid", "inv_limit=1,3,10,30",
        "--chunk", "2",     "--quiet", "-o",     tu_path("ref.h5"), NULL};
    cr_assert_eq(tu_run(ref, NULL, NULL), 0);
    uint64_t want = file_hash(tu_path("ref.h5"));
    int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        char name[32], j[700], errf[700];
        snprintf(name, sizeof name, "sig%d.h5", k);
        char o[600];
        snprintf(o, sizeof o, "%s", tu_path(name));
        snprintf(j, sizeof j, "%s.journal", o);
        snprintf(errf, sizeof errf, "%s.err", o);
        const char *run[] = {"mmsim",
                             "sweep",
                             t,
                             "--grid",
                             "spread=0:15:1",
                             "--grid",
                             "inv_limit=1,3,10,30",
                             "--chunk",
                             "2",
                             "--workers",
                             "2",
                             "--quiet",
                             "-o",
                             o,
                             NULL};
        pid_t pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            setpgid(0, 0);
            int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            execv(getenv("MMSIM_BIN"), (char *const *)run);
            _exit(127);
        }
        setpgid(pid, pid);
        cr_assert(wait_records(pid, j, 2, 2), "the run ended before its second record");
        pid_t w[8];
        int nw = children_of(pid, w, 8);
        /* SIGINT as a terminal sends it (to the whole group); SIGTERM to the parent alone. */
        if (sigs[k] == SIGINT)
            kill(-pid, SIGINT);
        else
            kill(pid, SIGTERM);
        int ws;
        cr_assert_eq(waitpid(pid, &ws, 0), pid);
        cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 128 + sigs[k], "signal %d: status %x",
                  sigs[k], ws);
        for (int i = 0; i < nw; i++)
            cr_assert(kill(w[i], 0) != 0, "worker %d outlived the stopped run", w[i]);
        FILE *f = fopen(errf, "r");
        char line[1024] = "";
        cr_assert(fgets(line, sizeof line, f));
        char extra[16];
        cr_assert_null(fgets(extra, sizeof extra, f), "more than one line on stderr");
        fclose(f);
        cr_assert(strstr(line, "interrupted: ") &&
                      strstr(line, " of 32 chunks saved; rerun with --resume"),
                  "%s", line);
        long saved = atol(strstr(line, "interrupted: ") + 13);
        cr_assert_eq(journal_records(j, 2), saved, "the message says %ld saved: %s", saved, line);
        cr_assert_neq(access(o, F_OK), 0);
        const char *res[] = {"mmsim",
                             "sweep",
                             t,
                             "--grid",
                             "spread=0:15:1",
                             "--grid",
                             "inv_limit=1,3,10,30",
                             "--chunk",
                             "2",
                             "--workers",
                             "2",
                             "--quiet",
                             "--resume",
                             "-o",
                             o,
                             NULL};
        cr_assert_eq(tu_run(res, NULL, NULL), 0);
        cr_assert_eq(file_hash(o), want, "signal %d + resume differs", sigs[k]);
    }
}

Test(sweep, a_run_that_fails_before_its_first_record_leaves_no_journal, .timeout = 120)
{
    const char *t = make_ticks(2000);
    const char *fs = tu_path("fs");
    mkdir(fs, 0755);
    /* Room for the journal's header, not for its first record (256 combinations x 184 bytes). */
    if (mount("tmpfs", fs, "tmpfs", 0, "size=16k") != 0)
        cr_skip_test("cannot mount a tmpfs (%s): not root?", strerror(errno));
    char o[600], j[700];
    snprintf(o, sizeof o, "%s/out.h5", fs);
    snprintf(j, sizeof j, "%s.journal", o);
    const char *run[] = {"mmsim",
                         "sweep",
                         t,
                         "--symbol",
                         "AAA",
                         "--grid",
                         "spread=0:39:1",
                         "--grid",
                         "inv_limit=1:50:1",
                         "--engine",
                         "serial",
                         "--quiet",
                         "-o",
                         o,
                         NULL};
    char *err;
    int rc = tu_run(run, NULL, &err);
    char want[800];
    snprintf(want, sizeof want, "mmsim: %s: No space left on device\n", j);
    int ok = rc == 1 && !strcmp(err, want);
    char msg[1400];
    snprintf(msg, sizeof msg, "exit %d, stderr '%s'", rc, err);
    free(err);
    int journal = access(j, F_OK) == 0, table = access(o, F_OK) == 0;
    umount(fs);
    cr_assert(ok, "%s", msg);
    cr_assert(!journal && !table, "journal %d, table %d", journal, table);
}
