/* The sweep's limits (docs/sweep.md, "Memory" and "Stalled workers"): the memory a run needs is
 * checked before any work against the smallest of physical memory, RLIMIT_AS, RLIMIT_DATA and the
 * cgroup's limit, and a refusal names the setting to lower; a process-engine worker that makes no
 * progress is killed, its chunk rerun once on a fresh worker, and the table is the same. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../src/sweep/mm_mem_budget.h" /* internal (the library is linked statically) */
#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(memory, .fini = tu_cleanup);
TestSuite(stall, .fini = tu_cleanup);

/* ---- the limits ---- */

/* Write text to the file dir/rel, making its directories. */
static void put(const char *dir, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    cr_assert(f, "%s: %s", p, strerror(errno));
    fputs(text, f);
    fclose(f);
}

/* The limits read from a cgroup tree made of `files` (pairs of path under the root, content; NULL
 * ends) and the cgroup list `self`. */
static mm__mem_limits read_tree(const char *name, const char *self, const char *const *files)
{
    char root[600], proc[700];
    snprintf(root, sizeof root, "%s", tu_path(name));
    mkdir(root, 0755);
    for (int i = 0; files[i]; i += 2)
        put(root, files[i], files[i + 1]);
    snprintf(proc, sizeof proc, "%s.cgroup", root);
    FILE *f = fopen(proc, "w");
    cr_assert(f);
    fputs(self, f);
    fclose(f);
    mm__mem_limits l;
    mm__mem_limits_read(&l, proc, root);
    return l;
}

Test(memory, the_cgroup_v2_limit_is_the_smallest_of_the_cgroup_and_its_parents)
{
    const char *files[] = {"a/memory.max",
                           "2000000000\n",
                           "a/b/memory.max",
                           "3000000000\n",
                           "a/b/c/memory.max",
                           "max\n",
                           NULL};
    mm__mem_limits l = read_tree("v2", "0::/a/b/c\n", files);
    cr_assert_eq(l.cgroup, 2e9, "%g", l.cgroup);
    cr_assert_eq(l.cgroup_v1, 0);
    cr_assert_gt(l.phys, 0);
    /* Hybrid hierarchies mount v2 at unified/. */
    const char *hyb[] = {"unified/x/memory.max", "5000000\n", NULL};
    l = read_tree("hybrid", "0::/x\n", hyb);
    cr_assert_eq(l.cgroup, 5e6, "%g", l.cgroup);
}

Test(memory, the_cgroup_v1_limit_counts_and_its_no_limit_value_does_not)
{
    const char *files[] = {"memory/memory.limit_in_bytes",
                           "9223372036854771712\n",
                           "memory/x/memory.limit_in_bytes",
                           "1500000000\n",
                           "cpu/x/cpu.shares",
                           "1024\n",
                           NULL};
    mm__mem_limits l = read_tree("v1", "5:cpu,cpuacct:/x\n4:memory:/x\n0::/\n", files);
    cr_assert_eq(l.cgroup, 1.5e9, "%g", l.cgroup);
    cr_assert_eq(l.cgroup_v1, 1);
    const char *none[] = {"memory/memory.limit_in_bytes", "9223372036854771712\n", NULL};
    l = read_tree("v1none", "4:memory:/\n", none);
    cr_assert(isinf(l.cgroup), "%g", l.cgroup);
}

Test(memory, a_container_that_sees_its_cgroup_as_the_root_reads_the_root_s_limit)
{
    /* /proc/self/cgroup names the host's path; the container's mount shows that cgroup as its
     * root: the path's leading components are dropped until a directory exists. */
    const char *files[] = {"memory.max", "700000000\n", NULL};
    mm__mem_limits l = read_tree("ns", "0::/system.slice/docker-1234.scope\n", files);
    cr_assert_eq(l.cgroup, 7e8, "%g", l.cgroup);
    /* No cgroup list at all: no cgroup limit. */
    mm__mem_limits_read(&l, tu_path("no-such-file"), tu_path("no-such-dir"));
    cr_assert(isinf(l.cgroup));
}

/* The plan of 2 combinations x 300,000 kept paths, chunks of 1, on `workers` forked workers (the
 * process engine holds 4 results per worker in its shared ring). */
static mm__mem_plan keep_paths_plan(int workers)
{
    mm__mem_plan p = {0};
    p.n_combos = 2;
    p.n_tapes = 1;
    p.chunk = 1;
    p.paths = 300000;
    p.keep_paths = 1;
    p.rec_bytes = MM_RESULTS_SUMMARY_METRICS * sizeof(double) + 300000 * sizeof(mm_metrics);
    p.workers = workers;
    p.held = 4;
    p.forks = 1;
    return p;
}

static mm__mem_limits no_limits(void)
{
    mm__mem_limits l = {INFINITY, INFINITY, INFINITY, INFINITY, 0};
    return l;
}

Test(memory, a_cgroup_limit_refuses_kept_paths_on_many_workers_and_names_how_many_fit)
{
    mm__mem_limits l = no_limits();
    l.phys = 64e9;
    l.cgroup = 1.5e9;
    mm__mem_plan p = keep_paths_plan(8);
    mm_error e = {0};
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    /* 8 x (4 held records + 1 computing + the paths' metrics) + 100 MB. */
    cr_assert_str_eq(e.msg, "memory: the run needs about 2.8 GB with 8 workers (each 334.7 MB: "
                            "chunks of 1 combination x 300000 paths kept), more than the 1.5 GB of "
                            "the cgroup's memory.max: lower mm_sweep_opts.workers (at most 4 fit)");
    /* The count it names fits, one more does not. */
    int fit = atoi(strstr(e.msg, "(at most ") + 9);
    cr_assert_geq(fit, 1);
    p.workers = fit;
    cr_assert_eq(mm__mem_check(&p, &l, &e), 0, "%d workers: %s", fit, e.msg);
    p.workers = fit + 1;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    /* cgroup v1 is named by its file. */
    l.cgroup_v1 = 1;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "of the cgroup's memory.limit_in_bytes: "), "%s", e.msg);
}

Test(memory, rlimits_bound_each_process_and_are_named)
{
    /* 4 workers x 306 MB is 1.2 GB in all, but a forked worker maps only the shared ring and its
     * own chunks: RLIMIT_AS of 1.2 GB is enough per process. */
    mm__mem_limits l = no_limits();
    l.as = 1.2e9;
    mm__mem_plan p = keep_paths_plan(4);
    mm_error e = {0};
    cr_assert_eq(mm__mem_check(&p, &l, &e), 0, "%s", e.msg);
    p.workers = 8;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "memory: each process of the run needs about ") &&
                  strstr(e.msg, "RLIMIT_AS (ulimit -v): lower mm_sweep_opts.workers (at most "),
              "%s", e.msg);
    l.as = INFINITY;
    l.data = 1.2e9;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "RLIMIT_DATA (ulimit -d)"), "%s", e.msg);
    /* The threads engine's workers share one process: the whole run counts against it. */
    p.forks = 0;
    p.workers = 4;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "memory: the run needs about "), "%s", e.msg);
}

Test(memory, a_synthetic_day_per_worker_is_counted_and_events_named)
{
    mm__mem_limits l = no_limits();
    l.phys = 16e9;
    mm__mem_plan p = {0};
    p.n_combos = 8;
    p.n_tapes = 1;
    p.chunk = 1;
    p.paths = 4;
    p.rec_bytes = MM_RESULTS_SUMMARY_METRICS * sizeof(double);
    p.workers = 8;
    p.held = 4;
    p.forks = 1;
    p.syn_max = p.syn_sum = 30000000; /* 69 bytes an event: 2.07 GB a day */
    mm_error e = {0};
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "(each 2.1 GB: a synthetic day of 30000000 events, 69 bytes each), "
                            "more than this machine's 16.0 GB: lower mm_sweep_opts.workers (at "
                            "most 6 fit) or the synthetic market's mm_gen_params.events (at most "),
              "%s", e.msg);
    p.syn_max = p.syn_sum = atoll(strstr(e.msg, "events (at most ") + 16);
    cr_assert_eq(mm__mem_check(&p, &l, &e), 0, "%s", e.msg);
    /* A latency series: two more tables of 8 bytes an event. */
    p.latency_table = 1;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "85 bytes each"), "%s", e.msg);
}

Test(memory, need_and_limit_near_1e9_combinations_print_as_different_numbers)
{
    /* A 32 GiB machine (34.36 GB) and 1.005e9 combinations (34.36 GB and a little): with one
     * decimal both read "34.4 GB". */
    mm__mem_limits l = no_limits();
    l.phys = 34359738368.0;
    mm__mem_plan p = {0};
    p.n_combos = 1005000000;
    p.n_tapes = 1;
    p.chunk = 256;
    p.paths = 1;
    p.rec_bytes = sizeof(mm_metrics);
    p.workers = 1;
    p.held = 4;
    p.forks = 1;
    mm_error e = {0};
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    char need[32] = "", have[32] = "";
    const char *n = strstr(e.msg, "combinations need "), *h = strstr(e.msg, "machine's ");
    cr_assert(n && h, "%s", e.msg);
    sscanf(n + 18, "%31[^o]", need);
    sscanf(h + 10, "%31[^:]", have);
    cr_assert_str_neq(need, have, "%s", e.msg);
    /* The count at the end depends on sizeof(mm_params) (a worker's grid): checked below. */
    const char *want = "grid: 1005000000 combinations need 34.37 GB of memory (34 bytes per "
                       "combination for the journal map and the results index), more than "
                       "this machine's 34.36 GB: split the grid (at most ";
    cr_assert(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
    cr_assert(strstr(e.msg, " fit)") && strlen(strstr(e.msg, " fit)")) == 5, "%s", e.msg);
    /* The count it names is the largest that fits. */
    int64_t most = atoll(strstr(e.msg, "(at most ") + 9);
    cr_assert(most > 1004000000 && most < 1005000000, "%s", e.msg);
    p.n_combos = most;
    cr_assert_eq(mm__mem_check(&p, &l, &e), 0, "%s", e.msg);
    p.n_combos = most + 1;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE, "%" PRId64 " fits too", most + 1);
    /* 1e12 combinations: no int64 or size_t product overflows. */
    p.n_combos = 1000000000000;
    p.chunk = 1024;
    cr_assert_eq(mm__mem_check(&p, &l, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "grid: 1000000000000 combinations need 34.0 TB of memory"), "%s",
              e.msg);
}

/* Run `mmsim ARGS` (NULL-ended) under RLIMIT_AS = as_bytes; returns the exit status, stderr in
 * *err. */
static int run_limited(double as_bytes, const char *const *argv, char **err)
{
    struct rlimit old, rl;
    cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
    rl.rlim_cur = (rlim_t)as_bytes;
    rl.rlim_max = old.rlim_max;
    cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0, "%s", strerror(errno));
    int rc = tu_run(argv, NULL, err);
    setrlimit(RLIMIT_AS, &old);
    return rc;
}

static const char *small_tape(void)
{
    const char *p = tu_path("t.h5");
    const char *argv[] = {"mmsim",    "gen", "--seed", "1", "--events", "2000",
                          "--symbol", "SYN", "-o",     p,   NULL};
    cr_assert_eq(tu_run(argv, NULL, NULL), 0);
    return p;
}

Test(memory, kept_paths_on_8_workers_under_ulimit_v_are_refused_naming_workers)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer cannot start under RLIMIT_AS");
#endif
    const char *t = small_tape(), *out = tu_path("o.h5");
    const char *argv[] = {"mmsim",
                          "sweep",
                          t,
                          "--grid",
                          "spread=1,2",
                          "--set",
                          "queue_join=uniform",
                          "--paths",
                          "300000",
                          "--keep-paths",
                          "--workers",
                          "8",
                          "-o",
                          out,
                          NULL};
    char *err = NULL;
    int rc = run_limited(1e9, argv, &err);
    cr_assert_eq(rc, 2, "%d: %s", rc, err);
    cr_assert_str_eq(err,
                     "mmsim: memory: each process of the run needs about 2.0 GB with 8 workers "
                     "(each 334.7 MB: chunks of 1 combination x 300000 paths kept), more than the "
                     "1.0 GB of RLIMIT_AS (ulimit -v): lower --workers (at most 3 fit)\n");
    char j[700];
    snprintf(j, sizeof j, "%s.journal", out);
    cr_assert_neq(access(j, F_OK), 0, "a refused run leaves no journal");
    free(err);
}

Test(memory, a_synthetic_day_under_ulimit_v_is_refused_naming_events)
{
#if defined(__SANITIZE_ADDRESS__)
    cr_skip_test("AddressSanitizer cannot start under RLIMIT_AS");
#endif
    const char *ini = tu_path("m.ini"), *out = tu_path("s.h5");
    FILE *f = fopen(ini, "w");
    cr_assert(f);
    fputs("[gen]\nevents = 50000000\n", f);
    fclose(f);
    const char *argv[] = {"mmsim",   "sweep",      "--synthetic", ini,
                          "--grid",  "spread=1,2", "--set",       "queue_join=uniform",
                          "--paths", "4",          "--workers",   "1",
                          "-o",      out,          NULL};
    char *err = NULL;
    int rc = run_limited(2e9, argv, &err);
    cr_assert_eq(rc, 2, "%d: %s", rc, err);
    /* The count at the end follows the sizes of the run's structures (mm_params grows with keys).
     */
    const char *want = "mmsim: memory: each process of the run needs about 7.0 GB with 1 worker "
                       "(each 3.5 GB: a synthetic day of 50000000 events, 69 bytes each), more "
                       "than the 2.0 GB of RLIMIT_AS (ulimit -v): lower --events of the "
                       "--synthetic market (at most ";
    cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
    int64_t most = atoll(err + strlen(want));
    cr_assert(most > 13000000 && most < 14000000, "%s", err);
    cr_assert(strstr(err, " fit)\n") && strlen(strstr(err, " fit)\n")) == 6, "%s", err);
    free(err);
}

/* ---- stalled workers ---- */

/* One tape of 2,000 events and a grid of 16 combinations over it. */
static mm_grid *grid16(void)
{
    const char *p = tu_path("ticks.h5");
    struct stat st;
    if (stat(p, &st) != 0) {
        mm_gen_params gp;
        mm_gen_defaults(&gp);
        gp.seed = 7;
        gp.events = 2000;
        strcpy(gp.symbol, "AAA");
        tu_gen_write(p, &gp);
    }
    char a[700];
    snprintf(a, sizeof a, "%s#AAA", p);
    const char *tapes[1] = {a};
    mm_grid *g = NULL;
    mm_error e = {0};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "1:8:1", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "inv_limit", "2,5", &e), 0, "%s", e.msg);
    return g;
}

/* Options of a process-engine run on 1 worker, chunks of 1, the given stall limit. */
static mm_sweep_opts opts_stall(double stall_s)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_PROCESS;
    o.workers = 1;
    o.chunk = 1;
    o.stall_s = stall_s;
    o.config_text = "test";
    return o;
}

/* The content hash of the undisturbed run (serial engine). */
static uint64_t reference_hash(const mm_grid *g)
{
    mm_sweep_opts o = opts_stall(0);
    o.engine = MM_ENGINE_SERIAL;
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("ref.h5"), &rep, &e), 0, "%s", e.msg);
    return rep.content_hash;
}

Test(stall, the_default_limit_is_600_s_for_the_default_engine)
{
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    cr_assert_eq(o.engine, MM_ENGINE_PROCESS);
    cr_assert_eq(o.stall_s, 600);
}

Test(stall, a_stopped_worker_is_killed_and_its_chunk_rerun_on_a_fresh_worker, .timeout = 60)
{
    mm_grid *g = grid16();
    uint64_t ref = reference_hash(g);
    /* Test hook of the process engine (engine_process.c): worker 0 stops itself with SIGSTOP
     * holding its 3rd chunk. One worker: it is sure to get there. */
    cr_assert_eq(setenv("MMSIM_TEST_STALL_WORKER", "0:2", 1), 0);
    mm_sweep_opts o = opts_stall(0.5);
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("stalled.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.stalls, 1);
    cr_assert_eq(rep.chunks_rerun, 0, "the chunk went to a fresh worker, not to the parent");
    cr_assert_eq(rep.content_hash, ref, "a stall changed the table");
    uint64_t h = 0;
    cr_assert_eq(mm_results_hash(tu_path("stalled.h5"), &h, &e), 0, "%s", e.msg);
    cr_assert_eq(h, ref);
    mm_results_reader *rd = NULL;
    cr_assert_eq(mm_results_open(tu_path("stalled.h5"), &rd, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_results_describe(rd)->meta.stalls, 1, "the attribute stalls");
    mm_results_close(rd);
    mm_grid_free(g);
}

/* Progress callback: SIGSTOP every child of this thread once 2 chunks are journaled (what a user's
 * kill -STOP, or a debugger, does to a worker). */
static void stop_children(const mm_sweep_progress *p, void *user)
{
    int *done = user;
    if (*done || p->chunks_done < 2) return;
    char path[96];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
    FILE *f = fopen(path, "r");
    long pid;
    while (f && fscanf(f, "%ld", &pid) == 1)
        if (kill((pid_t)pid, SIGSTOP) == 0) (*done)++;
    if (f) fclose(f);
}

Test(stall, a_worker_stopped_from_outside_no_longer_hangs_the_run, .timeout = 60)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)syscall(SYS_gettid));
    if (access(path, R_OK) != 0) cr_skip_test("%s: no children list in this kernel", path);
    mm_grid *g = grid16();
    uint64_t ref = reference_hash(g);
    mm_sweep_opts o = opts_stall(0.5);
    int stopped = 0;
    o.progress = stop_children;
    o.progress_user = &stopped;
    o.progress_interval_s = 0;
    mm_sweep_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("stopped.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(stopped, 1, "the worker was not stopped");
    cr_assert_eq(rep.stalls, 1);
    cr_assert_eq(rep.content_hash, ref, "a stall changed the table");
    mm_grid_free(g);
}

Test(stall, a_chunk_that_stalls_twice_fails_naming_it_and_resume_finishes_it, .timeout = 60)
{
    mm_grid *g = grid16();
    uint64_t ref = reference_hash(g);
    /* Worker 0 stops on its 2nd chunk (chunk 1); the fresh worker (number 1) stops on its first,
     * the same chunk. */
    cr_assert_eq(setenv("MMSIM_TEST_STALL_WORKER", "0:1,1:0", 1), 0);
    mm_sweep_opts o = opts_stall(0.3);
    mm_sweep_report rep;
    mm_error e = {0};
    const char *out = tu_path("twice.h5");
    cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), -ETIMEDOUT, "%s", e.msg);
    cr_assert_str_eq(e.msg, "chunk 1 (combinations 1 to 1) stalled twice: its worker, then a fresh "
                            "one, finished nothing in 0.3 s; raise mm_sweep_opts.stall_s if a "
                            "chunk takes longer, or find what stops the workers");
    cr_assert_eq(rep.stalls, 1);
    cr_assert_eq(rep.chunks_saved, 1, "chunk 0 is journaled");
    cr_assert_neq(access(out, F_OK), 0, "no table");
    /* The journal keeps chunk 0; a resume without the stalls finishes the same table. */
    cr_assert_eq(unsetenv("MMSIM_TEST_STALL_WORKER"), 0);
    o.resume = 1;
    cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.chunks_resumed, 1);
    cr_assert_eq(rep.content_hash, ref);
    mm_grid_free(g);
}

Test(stall, the_limit_is_checked_before_any_state)
{
    mm_grid *g = grid16();
    const double bad[] = {-1, 0.05, 604801, NAN, INFINITY};
    const char *want[] = {"stall_s: -1 must be", "stall_s: 0.05 must be", "stall_s: 604801 must be",
                          "stall_s: nan must be", "stall_s: inf must be"};
    const char *out = tu_path("bad.h5");
    char j[700];
    snprintf(j, sizeof j, "%s.journal", out);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mm_sweep_opts o = opts_stall(bad[i]);
        mm_sweep_report rep;
        mm_error e = {0};
        cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), MM_EUSAGE, "%g: %s", bad[i], e.msg);
        cr_assert(strstr(e.msg, want[i]) &&
                      strstr(e.msg, " 0 (no limit) or in [0.1, 604800] seconds"),
                  "%s", e.msg);
        cr_assert_neq(access(j, F_OK), 0);
    }
    mm_grid_free(g);
}

Test(stall, the_cli_warns_on_stderr_and_the_table_verifies_as_the_undisturbed_one, .timeout = 60)
{
    const char *t = small_tape(), *ref = tu_path("ref.h5"), *out = tu_path("x.h5");
    char *o1 = NULL, *o2 = NULL, *err = NULL, *v = NULL;
    const char *a1[] = {"mmsim",    "sweep",  t,    "--grid", "spread=1:6:1",
                        "--engine", "serial", "-o", ref,      NULL};
    cr_assert_eq(tu_run(a1, &o1, NULL), 0);
    cr_assert_eq(setenv("MMSIM_TEST_STALL_WORKER", "0:1", 1), 0);
    const char *a2[] = {"mmsim",   "sweep", t,    "--grid", "spread=1:6:1", "--workers", "1",
                        "--chunk", "1",     "-o", out,      "--stall-s",    "0.3",       NULL};
    cr_assert_eq(tu_run(a2, &o2, &err), 0, "%s", err);
    cr_assert_str_eq(err, "mmsim: sweep: warning: 1 worker finished nothing for 0.3 s (--stall-s): "
                          "killed, its chunk rerun on a fresh worker\n");
    /* `mmsim verify` recomputes the content hash: the undisturbed run's. */
    const char *hash = strstr(o1, "content hash ");
    cr_assert(hash, "%s", o1);
    char want[64];
    snprintf(want, sizeof want, "content hash %.16s verified", hash + 13);
    const char *a3[] = {"mmsim", "verify", out, NULL};
    cr_assert_eq(tu_run(a3, &v, NULL), 0);
    cr_assert(strstr(v, want), "%s vs %s", v, want);
    /* The results record the stall (attribute stalls), and show says so. */
    char *sh = NULL;
    const char *a4[] = {"mmsim", "show", out, NULL};
    cr_assert_eq(tu_run(a4, &sh, NULL), 0);
    cr_assert(strstr(sh, "\nstalls    1 worker killed for making no progress, its chunk rerun on "
                         "a fresh worker"),
              "%s", sh);
    free(sh);
    free(o1);
    free(o2);
    free(err);
    free(v);
}
