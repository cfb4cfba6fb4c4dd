/* The engine table (src/sweep/mm_engine.h): every engine has one name, parsed and printed by the
 * library (mm_sweep_engine_name, mm_sweep_engine_parse), recorded as is in the results table; the
 * serial engine runs on one worker whatever is asked; a value that names no engine is refused
 * before any state exists. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "mmsim/sweep.h"
#include "testutil.h"

TestSuite(sweep_engines, .fini = tu_cleanup);

Test(sweep_engines, names_round_trip_and_unknown_names_are_refused)
{
    cr_assert_str_eq(mm_sweep_engine_name(MM_ENGINE_PROCESS), "process");
    cr_assert_str_eq(mm_sweep_engine_name(MM_ENGINE_THREADS), "threads");
    cr_assert_str_eq(mm_sweep_engine_name(MM_ENGINE_SERIAL), "serial");
    cr_assert_str_eq(mm_sweep_engine_name(MM_ENGINE_MPI), "mpi");
    cr_assert_str_eq(mm_sweep_engine_name(MM_ENGINE_CUDA), "cuda");
    int n = 0;
    while (mm_sweep_engine_name(n)) {
        cr_assert_eq(mm_sweep_engine_parse(mm_sweep_engine_name(n)), n, "engine %d", n);
        n++;
    }
    cr_assert_eq(n, 5,
                 "five engines are built today (mpi also without MPI, cuda also without CUDA: "
                 "they then refuse to run)");
    cr_assert_null(mm_sweep_engine_name(-1));
    cr_assert_eq(mm_sweep_engine_parse("gpu"), -1);
    cr_assert_eq(mm_sweep_engine_parse("Serial"), -1, "names are exact");
    cr_assert_eq(mm_sweep_engine_parse(""), -1);
    cr_assert_eq(mm_sweep_engine_parse(NULL), -1);
}

/* A one-tape grid of four combinations over a small generated tape. */
static mm_grid *grid_tiny(void)
{
    mm_grid *g = NULL;
    mm_ticks t = {0};
    mm_error e = {0};
    tu_small_tape(&t, 2000, 7);
    const char *p = tu_path("t.h5");
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    char spec[600];
    snprintf(spec, sizeof spec, "%s#%s", p, t.inst.symbol);
    mm_ticks_free(&t);
    const char *tapes[1] = {spec};
    cr_assert_eq(mm_grid_new(&g, NULL), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "1:4:1", &e), 0, "%s", e.msg);
    return g;
}

Test(sweep_engines, each_engine_is_recorded_by_name_and_gives_the_same_table, .timeout = 120)
{
    mm_grid *g = grid_tiny();
    uint64_t ref = 0;
    int n = 0;
    while (mm_sweep_engine_name(n))
        n++;
    for (int en = 0; en < n; en++) {
        if (!tu_engine_runs(en)) continue;
        mm_sweep_opts o;
        mm_sweep_opts_defaults(&o);
        o.engine = en;
        o.workers = 2;
        o.chunk = 1;
        o.config_text = "test";
        char name[32];
        snprintf(name, sizeof name, "r%d.h5", en);
        mm_sweep_report rep;
        mm_error e = {0};
        cr_assert_eq(mm_sweep_run(g, &o, tu_path(name), &rep, &e), 0, "%s: %s",
                     mm_sweep_engine_name(en), e.msg);
        cr_assert_eq(rep.chunks, 4);
        if (en == MM_ENGINE_SERIAL)
            cr_assert_eq(rep.workers, 1, "the serial engine runs on one worker");
        if (en == 0) ref = rep.content_hash;
        cr_assert_eq(rep.content_hash, ref, "%s: %016lx vs %016lx", mm_sweep_engine_name(en),
                     (unsigned long)rep.content_hash, (unsigned long)ref);
        mm_results_reader *rd = NULL;
        cr_assert_eq(mm_results_open(tu_path(name), &rd, &e), 0, "%s", e.msg);
        cr_assert_str_eq(mm_results_describe(rd)->meta.engine, mm_sweep_engine_name(en));
        mm_results_close(rd);
    }
    mm_grid_free(g);
}

Test(sweep_engines, a_value_that_names_no_engine_is_a_usage_error_leaving_no_journal)
{
    mm_grid *g = grid_tiny();
    int bad[] = {-1, 5, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mm_sweep_opts o;
        mm_sweep_opts_defaults(&o);
        o.engine = bad[i];
        mm_sweep_report rep;
        mm_error e = {0};
        cr_assert_eq(mm_sweep_run(g, &o, tu_path("x.h5"), &rep, &e), MM_EUSAGE, "engine %d",
                     bad[i]);
        cr_assert_str_eq(e.msg, "engine: unknown");
        cr_assert_neq(access(tu_path("x.h5.journal"), F_OK), 0);
        cr_assert_neq(access(tu_path("x.h5"), F_OK), 0);
    }
    mm_grid_free(g);
}

/* Execution randomness (docs/model.md 3.3): every engine, worker count and chunk size gives the
 * same table for one seed; another seed gives another table. */
Test(sweep_engines, random_execution_is_the_same_table_whatever_the_engine_and_chunking,
     .timeout = 180)
{
    mm_grid *g = grid_tiny();
    mm_error e = {0};
    cr_assert_eq(mm_grid_set(g, "latency_dist", "exponential", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "latency_ns", "200000", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "response_ns", "100000", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "queue_join", "uniform", &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "trade_reach", "0.3,1", &e), 0, "%s", e.msg);
    uint64_t ref = 0;
    int n = 0, runs = 0;
    while (mm_sweep_engine_name(n))
        n++;
    for (int en = 0; en < n; en++)
        for (int chunk = 1; tu_engine_runs(en) && chunk <= 3; chunk += 2) {
            mm_sweep_opts o;
            mm_sweep_opts_defaults(&o);
            o.engine = en;
            o.workers = chunk == 1 ? 2 : 1;
            o.chunk = chunk;
            o.seed = 42;
            o.config_text = "test";
            char name[32];
            snprintf(name, sizeof name, "rnd%d_%d.h5", en, chunk);
            mm_sweep_report rep;
            cr_assert_eq(mm_sweep_run(g, &o, tu_path(name), &rep, &e), 0, "%s: %s",
                         mm_sweep_engine_name(en), e.msg);
            if (runs++ == 0) ref = rep.content_hash;
            cr_assert_eq(rep.content_hash, ref, "%s, chunk %d: %016lx vs %016lx",
                         mm_sweep_engine_name(en), chunk, (unsigned long)rep.content_hash,
                         (unsigned long)ref);
        }
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_SERIAL;
    o.seed = 43;
    o.config_text = "test";
    mm_sweep_report rep;
    cr_assert_eq(mm_sweep_run(g, &o, tu_path("rnd_other_seed.h5"), &rep, &e), 0, "%s", e.msg);
    cr_assert_neq(rep.content_hash, ref, "another seed, the same table");
    mm_grid_free(g);
}

Test(sweep_engines, the_cuda_engine_without_a_device_is_refused_before_any_state)
{
    char buf[1200];
    if (mm_sweep_cuda_describe(buf, sizeof buf) > 0)
        cr_skip_test("a CUDA device is present (%s): the engine runs", buf);
    mm_grid *g = grid_tiny();
    mm_sweep_opts o;
    mm_sweep_opts_defaults(&o);
    o.engine = MM_ENGINE_CUDA;
    o.config_text = "test";
    mm_sweep_report rep;
    mm_error e = {0};
    const char *out = tu_path("cuda.h5");
    cr_assert_eq(mm_sweep_run(g, &o, out, &rep, &e), -ENODEV, "%s", e.msg);
    cr_assert(strstr(e.msg, "engine cuda: "), "%s", e.msg);
    cr_assert_eq(strchr(e.msg, '\n'), NULL, "%s", e.msg);
    char j[600];
    snprintf(j, sizeof j, "%s.journal", out);
    cr_assert_eq(access(out, F_OK), -1);
    cr_assert_eq(access(j, F_OK), -1);
    mm_grid_free(g);
}
