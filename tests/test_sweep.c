/* Sweeps: every engine, worker count and chunk size gives the same table (content hash); a worker killed
 * mid-chunk is recovered; a run killed with SIGKILL resumes to the identical table; bad grids and configs
 * are usage errors naming the key. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"
#include <hdf5.h>

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
        mm_ticks t = {0};
        mm_error e = {0};
        cr_assert_eq(mm_gen_ticks(&gp, &t, &e), 0, "%s", e.msg);
        cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
        mm_ticks_free(&t);
    }
    return p;
}

static void grid_small(mm_grid *g, const char *ticks)
{
    mm_error e = {0};
    char a[512], b[512];
    snprintf(a, sizeof a, "%s#AAA", ticks);
    snprintf(b, sizeof b, "%s#BBB", ticks);
    const char *tapes[2] = {a, b};
    mm_grid_init(g);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 2, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "0:3:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "1,2,5", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "queue", "risk-averse,power", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_ns", "20000", &e), 0, "%s", e.msg);
    cr_assert_eq(g->n_combos, 2 * 4 * 3 * 2);
}

static uint64_t sweep_hash(const mm_grid *g, int engine, int workers, int64_t chunk, const char *name,
                           mm_sweep_report *rep_out)
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
    cr_assert_eq(rep.combos, g->n_combos);
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
    mm_grid g;
    grid_small(&g, t);
    mm_params p;
    int32_t idx[8];
    /* id = ((tape * 4 + spread) * 3 + inv) * 2 + queue */
    cr_assert_eq(mm_grid_combo(&g, ((1 * 4 + 2) * 3 + 2) * 2 + 1, &p, idx), 0);
    cr_assert_eq(idx[0], 1);
    cr_assert_eq(idx[1], 2);
    cr_assert_eq(idx[2], 2);
    cr_assert_eq(idx[3], 1);
    cr_assert_eq(p.spread_ticks, 2.0);
    cr_assert_eq(p.inv_limit, 5);
    cr_assert_eq(p.queue_rule, MM_QUEUE_POWER);
    cr_assert_eq(p.latency_ns, 20000);
    cr_assert_eq(mm_grid_combo(&g, g.n_combos, &p, idx), -EINVAL);
    /* Per-combination seeds depend on (seed, id) only, and differ between ids. */
    cr_assert_eq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(7, 5));
    cr_assert_neq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(7, 6));
    cr_assert_neq(mm_sweep_combo_seed(7, 5), mm_sweep_combo_seed(8, 5));
    mm_grid_free(&g);
}

Test(sweep, engines_workers_and_chunks_give_identical_tables, .timeout = 240)
{
    const char *t = make_ticks(20000);
    mm_grid g;
    grid_small(&g, t);
    uint64_t ref = sweep_hash(&g, MM_ENGINE_SERIAL, 1, 48, "serial.h5", NULL);
    struct {
        int engine, workers;
        int64_t chunk;
    } runs[] = {{MM_ENGINE_SERIAL, 1, 7},  {MM_ENGINE_THREADS, 2, 5}, {MM_ENGINE_THREADS, 1, 1},
                {MM_ENGINE_PROCESS, 1, 48}, {MM_ENGINE_PROCESS, 2, 3}, {MM_ENGINE_PROCESS, 3, 1}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "r%zu.h5", i);
        uint64_t h = sweep_hash(&g, runs[i].engine, runs[i].workers, runs[i].chunk, name, NULL);
        cr_assert_eq(h, ref, "engine %d, %d workers, chunk %ld: %016lx vs %016lx", runs[i].engine, runs[i].workers,
                     (long)runs[i].chunk, (unsigned long)h, (unsigned long)ref);
    }
    mm_grid_free(&g);
}

Test(sweep, killed_worker_chunk_is_rerun, .timeout = 240)
{
    const char *t = make_ticks(20000);
    mm_grid g;
    grid_small(&g, t);
    uint64_t ref = sweep_hash(&g, MM_ENGINE_SERIAL, 1, 4, "ref.h5", NULL);
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_PROCESS;
    o.workers = 2;
    o.chunk = 2;
    o.config_text = "test";
    o.test_kill_worker = 0;
    o.test_kill_worker_after = 3; /* worker 0 dies with SIGKILL holding its 4th chunk */
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(&g, &o, tu_path("killed.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_geq(rep.chunks_rerun, 1, "the lost chunk was not rerun");
    cr_assert_eq(rep.content_hash, ref, "a killed worker changed the table");
    mm_grid_free(&g);
}

/* Run `mmsim sweep ...` in its own process group; kill the whole group with SIGKILL as soon as the journal
 * holds at least `records` chunk records (each 16 + chunk x 128 + 8 bytes after a 32-byte header), or, with
 * records = 0, right after start. Returns 1 if the run was still going when killed. */
static int sweep_and_kill(const char *const *argv, const char *journal, int records, int chunk)
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
    long want = 32 + (long)records * (16 + chunk * 128 + 8);
    int running = 1;
    for (int spins = 0; spins < 60000; spins++) {
        struct stat st;
        if (records == 0 || (stat(journal, &st) == 0 && st.st_size >= want)) break;
        int ws;
        if (waitpid(pid, &ws, WNOHANG) == pid) {
            running = 0;
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
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
    const char *g[] = {"mmsim", "gen", "--seed", "5", "--events", "2000000", "-o", t, NULL};
    cr_assert_eq(tu_run(g, NULL, NULL), 0);
    const char *full[] = {"mmsim", "sweep", t, "--grid", "spread=0:15:1", "--grid", "inv_limit=1,3,10,30", "--grid", "queue=power,log",
                          "--chunk", "4", "--workers", "2", "--quiet", "-o", tu_path("full.h5"), NULL};
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
        const char *run[] = {"mmsim", "sweep", t, "--grid", "spread=0:15:1", "--grid", "inv_limit=1,3,10,30", "--grid", "queue=power,log",
                             "--chunk", "4", "--workers", "2", "--quiet", "-o", o, NULL};
        char j[600];
        snprintf(j, sizeof j, "%s.journal", o);
        int killed = sweep_and_kill(run, j, records[k], 4);
        cr_assert(killed || k == 0, "the run finished before the journal had %d records", records[k]);
        int interrupted = access(j, F_OK) == 0;
        if (interrupted) cr_assert_neq(access(o, F_OK), 0, "a results file exists beside an unfinished journal");
        /* Without --resume an existing journal is refused. */
        if (interrupted) {
            char *err;
            cr_assert_eq(tu_run(run, NULL, &err), 2);
            cr_assert(strstr(err, "--resume"), "%s", err);
            free(err);
        }
        const char *res[] = {"mmsim", "sweep", t, "--grid", "spread=0:15:1", "--grid", "inv_limit=1,3,10,30", "--grid", "queue=power,log",
                             "--chunk", "4", "--workers", "2", "--quiet", "--resume", "-o", o, NULL};
        cr_assert_eq(tu_run(res, &out, NULL), 0);
        resumed_any |= strstr(out, "resumed:") != NULL;
        free(out);
        cr_assert_eq(file_hash(o), ref, "kill after %d journal records + resume differs", records[k]);
    }
    cr_assert(resumed_any, "no kill landed mid-run; make the sweep longer");
}

Test(sweep, resume_refuses_another_run)
{
    const char *t = make_ticks(2000);
    const char *o = tu_path("x.h5");
    char j[600];
    snprintf(j, sizeof j, "%s.journal", o);
    const char *a[] = {"mmsim", "sweep", t, "--grid", "spread=1,2", "--quiet", "-o", o, NULL};
    cr_assert_eq(tu_run(a, NULL, NULL), 0);
    /* Fake an interrupted run of a different grid: a journal with another identity. */
    FILE *f = fopen(j, "w");
    fwrite("MMSIMJ01\1\2\3\4\5\6\7\10\0\0\0\0\0\0\0\0\x80\0\0\0\0\0\0\0", 1, 32, f);
    fclose(f);
    const char *b[] = {"mmsim", "sweep", t, "--grid", "spread=1,2,3", "--quiet", "--resume", "-o", o, NULL};
    char *err;
    cr_assert_eq(tu_run(b, NULL, &err), 2);
    cr_assert(strstr(err, "another run"), "%s", err);
    free(err);
}

Test(sweep, config_file_equals_flags)
{
    const char *t = make_ticks(5000);
    const char *ini = tu_path("s.ini");
    FILE *f = fopen(ini, "w");
    fprintf(f, "; a sweep\n[input]\nfiles = %s\nsymbols = AAA\n\n[grid]\nspread = 1:3:1\ninv_limit = 2,4\n\n"
               "[params]\nqueue = log\n\n[run]\nengine = threads\nworkers = 2\nchunk = 2\n", t);
    fclose(f);
    const char *a[] = {"mmsim", "sweep", "--config", ini, "--quiet", "-o", tu_path("a.h5"), NULL};
    const char *b[] = {"mmsim", "sweep", t, "--symbol", "AAA", "--grid", "spread=1:3:1", "--grid", "inv_limit=2,4",
                       "--set", "queue=log", "--engine", "serial", "--quiet", "-o", tu_path("b.h5"), NULL};
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
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--set", "spread=3", "-o", "x.h5", NULL}, "spread"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--engine", "gpu", "-o", "x.h5", NULL}, "engine"},
        {{"mmsim", "sweep", t, "--grid", "inv_limit=0,1", "-o", "x.h5", NULL}, "inv_limit"},
        {{"mmsim", "sweep", "--config", ini, t, "-o", "x.h5", NULL}, "grdi"},
        {{"mmsim", "sweep", "--config", ini2, t, "-o", "x.h5", NULL}, "flavour"},
        {{"mmsim", "sweep", t, "--grid", "spread=1,2", "--objective", "luck", "-o", "x.h5", NULL}, "objective"},
        {{"mmsim", "sweep", t, "--grid", "spread=0:2000000:1", "-o", "x.h5", NULL}, "more than 1000000 values"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        int rc = tu_run(cases[i].argv, NULL, &err);
        cr_assert_eq(rc, 2, "case %zu: exit %d (%s)", i, rc, err);
        cr_assert_eq(tu_lines(err), 1, "case %zu: %s", i, err);
        cr_assert(strstr(err, cases[i].needle), "case %zu: '%s' not in %s", i, cases[i].needle, err);
        free(err);
        cr_assert_neq(access("x.h5", F_OK), 0);
    }
}

/* Read one float64 column of /results by name. */
static double *read_col(const char *path, const char *name, int64_t n)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    cr_assert(f >= 0);
    hid_t ds = H5Dopen2(f, "results", H5P_DEFAULT);
    cr_assert(ds >= 0);
    hid_t mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
    H5Tinsert(mt, name, 0, H5T_NATIVE_DOUBLE);
    double *v = malloc((size_t)n * sizeof *v);
    cr_assert(H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0, "column %s", name);
    H5Tclose(mt);
    H5Dclose(ds);
    H5Fclose(f);
    return v;
}

Test(sweep, table_values_are_the_reference_engine_s)
{
    const char *t = make_ticks(20000);
    mm_grid g;
    grid_small(&g, t);
    sweep_hash(&g, MM_ENGINE_PROCESS, 2, 5, "v.h5", NULL);
    double *pnl = read_col(tu_path("v.h5"), "pnl", g.n_combos);
    double *sharpe = read_col(tu_path("v.h5"), "sharpe", g.n_combos);
    double *spread = read_col(tu_path("v.h5"), "spread", g.n_combos);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    for (int64_t id = 0; id < g.n_combos; id += 7) {
        mm_params p;
        int32_t idx[8];
        mm_grid_combo(&g, id, &p, idx);
        mm_ticks tk = {0};
        mm_error e = {0};
        cr_assert_eq(mm_ticks_load(t, idx[0] ? "BBB" : "AAA", 0, &tk, &e), 0, "%s", e.msg);
        mm_metrics m;
        cr_assert_eq(mm_sim_run_c(&tk, &c, &p, &m, NULL, NULL, &e), 0, "%s", e.msg);
        cr_assert(memcmp(&m.pnl, &pnl[id], 8) == 0, "id %ld: pnl %.17g vs %.17g", (long)id, m.pnl, pnl[id]);
        cr_assert(memcmp(&m.sharpe, &sharpe[id], 8) == 0, "id %ld: sharpe", (long)id);
        cr_assert_eq(spread[id], p.spread_ticks);
        mm_ticks_free(&tk);
    }
    free(pnl);
    free(sharpe);
    free(spread);
    mm_grid_free(&g);
}

Test(sweep, progress_only_on_a_terminal)
{
    const char *t = make_ticks(20000);
    if (access("/usr/bin/script", X_OK) != 0) cr_skip_test("no /usr/bin/script to provide a terminal");
    char cmd[2048];
    /* On a pseudo-terminal (util-linux script), progress lines appear on stderr. */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/script -qec \"%s sweep %s --grid spread=0:7:1 --grid inv_limit=1,2 -o %s\" /dev/null > %s 2>&1",
             getenv("MMSIM_BIN"), t, tu_path("tty.h5"), tu_path("tty.txt"));
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(tu_path("tty.txt"), "r");
    char buf[8192] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    cr_assert(strstr(buf, "sweep: chunks") && strstr(buf, "combos/s") && strstr(buf, "ETA"), "%s", buf);
    /* Not a terminal: no progress. */
    const char *a[] = {"mmsim", "sweep", t, "--grid", "spread=0:7:1", "--grid", "inv_limit=1,2", "-o", tu_path("plain.h5"), NULL};
    char *err;
    cr_assert_eq(tu_run(a, NULL, &err), 0);
    cr_assert_eq(strstr(err, "chunks"), NULL, "%s", err);
    free(err);
}
