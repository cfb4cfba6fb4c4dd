/* The signal column (docs/formats.md "Signal") and the key signal_skew (docs/model.md section 6):
 * hand-computed quotes through every engine (the reference with a trace, the batched engine and the
 * CUDA engine's per-thread code emulated on the CPU, equal bit for bit), the store (fingerprint,
 * HDF5 and raw round trips, validation, mm_ticks_write_signal's refusals) and the as-of rule. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mm_accel.h"
#include "mm_grid_int.h"
#include "mmsim/sweep.h"
#include "testutil.h"
#include "tu_engines.h"

/* t with the signal column v[0 .. t->n) named `name` (a new heap tape; t is freed). */
static void add_signal(mm_ticks *t, const double *v, const char *name)
{
    mm_ticks s = {0};
    cr_assert_eq(mm_ticks_alloc_signal(&s, t->n, 0, 1, MM_MEM_HEAP), 0);
    cr_assert_eq(t->depth.levels, 0);
    size_t n = (size_t)t->n;
    memcpy(s.ts_ns, t->ts_ns, n * 8);
    memcpy(s.bid_px, t->bid_px, n * 4);
    memcpy(s.ask_px, t->ask_px, n * 4);
    memcpy(s.bid_sz, t->bid_sz, n * 4);
    memcpy(s.ask_sz, t->ask_sz, n * 4);
    memcpy(s.trade_px, t->trade_px, n * 4);
    memcpy(s.trade_sz, t->trade_sz, n * 4);
    memcpy(s.trade_side, t->trade_side, n);
    memcpy(s.signal, v, n * 8);
    s.inst = t->inst;
    snprintf(s.signal_name, sizeof s.signal_name, "%s", name);
    mm_ticks_free(t);
    *t = s;
}

/* The market (tick 0.01, lot 1): bid 100 x 5, ask 102 x 5 on every row (mid 101), rows 1 ms
 * apart, no trade. The signal: sig0 on rows 0 .. 2, sig3 from row 3. */
static mm_ticks market(double sig0, double sig3)
{
    tu_row r[6];
    for (int i = 0; i < 6; i++)
        r[i] = (tu_row){i, 100, 5, 102, 5, 0, 0, 0};
    mm_ticks t = tu_rows_tape(r, 6, "SIG", 0.01, 1);
    double v[6] = {sig0, sig0, sig0, sig3, sig3, sig3};
    add_signal(&t, v, "pred");
    mm_error err = {0};
    cr_assert_eq(mm_ticks_validate(&t, "signal", &err), 0, "%s", err.msg);
    return t;
}

static void params(mm_params *p, const char *spread, const char *skew)
{
    mm_params_defaults(p);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(p, "spread", spread, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_params_set(p, "signal_skew", skew, &e), 0, "%s", e.msg);
}

/* The orders sent (MM_TR_ORDER): event, side, price. */
typedef struct orders {
    int n;
    int64_t ev[16];
    int32_t side[16], px[16];
} orders;

static void on_trace(const mm_trace_rec *r, void *user)
{
    orders *o = user;
    if (r->kind == MM_TR_ORDER && o->n < 16) {
        o->ev[o->n] = r->event;
        o->side[o->n] = r->side;
        o->px[o->n++] = r->px;
    }
}

/* The reference's metrics (its orders in *o), equal bit for bit to the batched engine's and the
 * emulated CUDA kernel's. */
static mm_metrics run(const mm_ticks *t, const mm_params *p, orders *o)
{
    orders none;
    if (!o) o = &none;
    memset(o, 0, sizeof *o);
    return tu_run_engines(t, p, on_trace, o);
}

/* Section 6 with half spread 1.5: fair = 101 + signal x signal_skew; bid floor(fair - 1.5), ask
 * ceil(fair + 1.5).
 *   skew 0:  fair 101: bid floor(99.5) = 99, ask ceil(102.5) = 103 (the signal of 1 ignored).
 *   skew 1:  fair 102: bid floor(100.5) = 100, ask ceil(103.5) = 104: both one tick up.
 *   skew -1: fair 100: bid floor(98.5) = 98, ask ceil(101.5) = 102. */
Test(signal, a_signal_of_one_tick_moves_both_quotes_one_tick)
{
    mm_ticks t = market(1, 1);
    mm_params p;
    orders o;
    const char *skew[] = {"0", "1", "-1"};
    const int32_t bid[] = {99, 100, 98}, ask[] = {103, 104, 102};
    for (int k = 0; k < 3; k++) {
        params(&p, "1.5", skew[k]);
        run(&t, &p, &o);
        cr_assert_eq(o.n, 2, "skew %s: one order a side (%d)", skew[k], o.n);
        cr_assert(o.ev[0] == 0 && o.side[0] == 1 && o.px[0] == bid[k], "skew %s: bid %d at %d",
                  skew[k], o.px[0], (int)o.ev[0]);
        cr_assert(o.ev[1] == 0 && o.side[1] == -1 && o.px[1] == ask[k], "skew %s: ask %d", skew[k],
                  o.px[1]);
    }
    mm_ticks_free(&t);
}

/* Signal 0.25 x skew 2 = 0.5 tick: fair 101.5, bid floor(100) = 100, ask ceil(103) = 103 (the
 * half tick shifts the bid only: rounding away from the fair price). */
Test(signal, half_a_tick_moves_the_side_that_rounds_over)
{
    mm_ticks t = market(0.25, 0.25);
    mm_params p;
    orders o;
    params(&p, "1.5", "2");
    run(&t, &p, &o);
    cr_assert(o.n == 2 && o.px[0] == 100 && o.px[1] == 103, "bid %d ask %d", o.px[0], o.px[1]);
    mm_ticks_free(&t);
}

/* The signal of the event's own row moves the decision of that event: 0 on rows 0 .. 2 (orders at
 * 99 / 103 at row 0, live from row 1), 2 from row 3: fair 103 with skew 1, bid floor(101.5) = 101,
 * ask ceil(104.5) = 105, each 2 ticks from its order (requote 1): replaced at row 3, not before. */
Test(signal, the_row_of_the_event_moves_its_decision)
{
    mm_ticks t = market(0, 2);
    mm_params p;
    orders o;
    params(&p, "1.5", "1");
    mm_metrics m = run(&t, &p, &o);
    cr_assert_eq(o.n, 4, "%d orders", o.n);
    cr_assert(o.px[0] == 99 && o.px[1] == 103 && o.ev[0] == 0 && o.ev[1] == 0);
    cr_assert(o.ev[2] == 3 && o.side[2] == 1 && o.px[2] == 101, "bid %d at event %d", o.px[2],
              (int)o.ev[2]);
    cr_assert(o.ev[3] == 3 && o.side[3] == -1 && o.px[3] == 105, "ask %d at event %d", o.px[3],
              (int)o.ev[3]);
    cr_assert_eq(m.cancels, 2);
    mm_ticks_free(&t);
}

/* signal_skew = 0 is the model without the signal: a tape with a signal gives, bit for bit, the
 * metrics of the same tape without one, through every engine; a skew other than 0 changes them. */
Test(signal, skew_zero_is_the_tape_without_a_signal_bit_for_bit)
{
    mm_ticks plain = {0}, t = {0};
    tu_small_tape(&plain, 20000, 3);
    tu_small_tape(&t, 20000, 3);
    double *v = malloc(20000 * sizeof *v);
    cr_assert(v);
    for (int i = 0; i < 20000; i++)
        v[i] = sin(i * 0.01) * 3 + (i % 7 == 0 ? 0.5 : 0);
    add_signal(&t, v, "wave");
    free(v);
    mm_params p;
    params(&p, "0.5", "0");
    mm_metrics a = run(&plain, &p, NULL), b = run(&t, &p, NULL);
    cr_assert(!memcmp(&a, &b, sizeof a), "signal_skew 0 differs from the tape without a signal");
    params(&p, "0.5", "1.5");
    mm_metrics c = run(&t, &p, NULL);
    cr_assert(c.orders != a.orders || c.pnl != a.pnl, "signal_skew 1.5 changed nothing");
    mm_ticks_free(&plain);
    mm_ticks_free(&t);
}

Test(signal, skew_without_a_signal_column_is_refused)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 100, 1);
    mm_params p;
    params(&p, "1", "0.5");
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_metrics m;
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m, NULL, NULL, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal_skew: 0.5 needs a signal column, and tape TST has none "
                            "(attach one with mm_ticks_write_signal)");
    cr_assert_eq(mm_sim_run_batch(&t, &c, &p, 1, &m, &e), MM_EUSAGE);
    cr_assert_eq(mm_params_set(&p, "signal_skew", "-1e6", &e), 0);
    cr_assert_eq(mm_params_check(&p, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal_skew: -1e+06 must be within +-1e6 ticks per signal unit");
    mm_ticks_free(&t);
}

/* ---- the store ---- */

/* A tape without a signal hashes as before the signal existed (the value mmsim gen --seed 7
 * --events 1000 --symbol TST stored before this change); a signal changes the hash, and so do
 * its name and each value. */
Test(signal, fingerprint_covers_the_signal_and_only_then)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 1000, 7);
    uint64_t plain = mm_ticks_fingerprint(&t);
    cr_assert_eq(plain, 0x4cc93773e0ef3639ULL, "%016llx", (unsigned long long)plain);
    double v[1000] = {0};
    add_signal(&t, v, "a");
    uint64_t zeros = mm_ticks_fingerprint(&t);
    cr_assert_neq(zeros, plain, "an all-zero signal is still a column");
    snprintf(t.signal_name, sizeof t.signal_name, "b");
    uint64_t named = mm_ticks_fingerprint(&t);
    cr_assert_neq(named, zeros);
    t.signal[999] = 1e-300;
    cr_assert_neq(mm_ticks_fingerprint(&t), named);
    mm_ticks_free(&t);
}

static void write_tape(const char *path, mm_ticks *t)
{
    mm_write_opts o = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write(path, t, &o, &e), 0, "%s", e.msg);
}

Test(signal, write_signal_round_trips_through_the_file_and_shared_memory)
{
    tu_tmpdir();
    const char *path = tu_path("s.h5");
    mm_ticks t = {0};
    tu_small_tape(&t, 3000, 5);
    write_tape(path, &t);
    double *v = malloc(3000 * sizeof *v);
    for (int i = 0; i < 3000; i++)
        v[i] = (i % 11) * 0.125 - 0.5;
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write_signal(path, NULL, "toy", v, 3000, 0, &e), 0, "%s", e.msg);
    for (int shm = 0; shm < 2; shm++) {
        mm_ticks u = {0};
        cr_assert_eq(mm_ticks_load(path, NULL, shm ? MM_LOAD_SHM : 0, &u, &e), 0, "%s", e.msg);
        cr_assert(u.signal && !strcmp(u.signal_name, "toy"));
        cr_assert(!memcmp(u.signal, v, 3000 * sizeof *v));
        cr_assert(!memcmp(u.ts_ns, t.ts_ns, 3000 * 8) && !memcmp(u.bid_px, t.bid_px, 3000 * 4));
        cr_assert_eq(u.inst.fingerprint, mm_ticks_fingerprint(&u));
        cr_assert_neq(u.inst.fingerprint, mm_ticks_fingerprint(&t));
        cr_assert_eq(u.mem_kind, shm ? MM_MEM_SHM : MM_MEM_HEAP);
        mm_ticks_free(&u);
    }
    /* A second signal: refused without replace (the file unchanged), written with it. */
    v[0] = 9;
    cr_assert_eq(mm_ticks_write_signal(path, "TST", "other", v, 3000, 0, &e), -EEXIST);
    cr_assert(strstr(e.msg, "already has the signal toy (set replace to overwrite it)"), "%s",
              e.msg);
    cr_assert_eq(mm_ticks_write_signal(path, "TST", "other", v, 3000, 1, &e), 0, "%s", e.msg);
    mm_ticks u = {0};
    cr_assert_eq(mm_ticks_load(path, NULL, 0, &u, &e), 0, "%s", e.msg);
    cr_assert(!strcmp(u.signal_name, "other") && u.signal[0] == 9);
    mm_ticks_free(&u);
    free(v);
    mm_ticks_free(&t);
    tu_cleanup();
}

Test(signal, write_signal_refuses_bad_values_and_leaves_the_file)
{
    tu_tmpdir();
    const char *path = tu_path("s.h5");
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 5);
    write_tape(path, &t);
    double v[10] = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write_signal(path, NULL, "x", v, 9, 0, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "instrument TST: signal x: 9 values for 10 rows"), "%s", e.msg);
    v[4] = NAN;
    cr_assert_eq(mm_ticks_write_signal(path, NULL, "x", v, 10, 0, &e), MM_EUSAGE);
    cr_assert(strstr(e.msg, "signal x: value 4 is nan (must be finite)"), "%s", e.msg);
    v[4] = 0;
    cr_assert_eq(mm_ticks_write_signal(path, NULL, "a b", v, 10, 0, &e), MM_EUSAGE);
    mm_ticks u = {0};
    cr_assert_eq(mm_ticks_load(path, NULL, 0, &u, &e), 0, "%s", e.msg);
    cr_assert(!u.signal && !u.signal_name[0], "the file has no signal after the refusals");
    cr_assert_eq(u.inst.fingerprint, mm_ticks_fingerprint(&t));
    mm_ticks_free(&u);
    mm_ticks_free(&t);
    tu_cleanup();
}

Test(signal, validation_refuses_a_value_that_is_not_finite)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 5);
    double v[10] = {0};
    v[6] = INFINITY;
    add_signal(&t, v, "p");
    mm_error e = {0};
    cr_assert_eq(mm_ticks_validate(&t, "f.h5", &e), MM_EINVALID);
    cr_assert_str_eq(e.msg, "f.h5: instrument TST: column signal: row 6: value inf is not finite");
    mm_ticks_free(&t);
}

Test(signal, the_raw_tape_carries_the_signal)
{
    tu_tmpdir();
    const char *path = tu_path("s.mmtape");
    mm_ticks t = {0};
    tu_small_tape(&t, 500, 2);
    double v[500];
    for (int i = 0; i < 500; i++)
        v[i] = i * 0.5 - 100;
    add_signal(&t, v, "raw");
    t.inst.fingerprint = mm_ticks_fingerprint(&t);
    FILE *f = fopen(path, "wb");
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write_raw(f, &t, &e), 0, "%s", e.msg);
    fclose(f);
    mm_ticks u = {0};
    cr_assert_eq(mm_ticks_load_raw(path, &u, &e), 0, "%s", e.msg);
    cr_assert(u.signal && !strcmp(u.signal_name, "raw") && !memcmp(u.signal, v, sizeof v));
    cr_assert_eq(mm_ticks_fingerprint(&u), t.inst.fingerprint);
    mm_ticks_free(&u);
    /* One bit of a signal value flipped: the checksum says so. */
    f = fopen(path, "r+b");
    cr_assert_eq(fseek(f, -8, SEEK_END), 0);
    int c = fgetc(f);
    cr_assert_eq(fseek(f, -8, SEEK_END), 0);
    fputc(c ^ 1, f);
    fclose(f);
    cr_assert_eq(mm_ticks_load_raw(path, &u, &e), MM_ECHECKSUM, "%s", e.msg);
    mm_ticks_free(&t);
    tu_cleanup();
}

/* The as-of rule: a row takes the last point at or before its time (of points at one time, the
 * last), 0 before the first point. */
Test(signal, asof_takes_the_last_point_at_or_before_each_row)
{
    const int64_t rows[] = {5, 10, 10, 15, 20, 30};
    const int64_t ts[] = {10, 12, 12, 20};
    const double v[] = {1, 2, 3, 4};
    double out[6];
    mm_error e = {0};
    cr_assert_eq(mm_signal_asof(rows, 6, ts, v, 4, out, &e), 0, "%s", e.msg);
    const double want[] = {0, 1, 1, 3, 4, 4};
    for (int i = 0; i < 6; i++)
        cr_assert_eq(out[i], want[i], "row %d: %g", i, out[i]);
    const int64_t bad_ts[] = {10, 9};
    cr_assert_eq(mm_signal_asof(rows, 6, bad_ts, v, 2, out, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal point 1: time 9 is before the previous point's 10 (points "
                            "must be sorted by time)");
    const double nan_v[] = {1, NAN};
    cr_assert_eq(mm_signal_asof(rows, 6, ts, nan_v, 2, out, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal point 1: value nan is not finite");
}

/* ---- the command line ---- */

static char *run_ok(const char *const *argv)
{
    char *out = NULL, *err = NULL;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", argv[1], rc, err);
    free(err);
    return out;
}

/* mmsim signal: a CSV with a header, points between rows and two at one time; each row takes the
 * last point at or before its time, 0 before the first. Without the header, the same column. */
Test(signal, cli_imports_a_csv_with_the_asof_rule)
{
    tu_tmpdir();
    const char *path = tu_path("t.h5"), *csv = tu_path("p.csv"), *csv2 = tu_path("q.csv");
    mm_ticks t = {0};
    tu_small_tape(&t, 1000, 9);
    write_tape(path, &t);
    int64_t a = t.ts_ns[100], b = t.ts_ns[500];
    FILE *f = fopen(csv, "w"), *g = fopen(csv2, "w");
    fprintf(f, "ts_ns,value\n");
    fprintf(f, "%lld,1.5\n%lld,-2\n%lld,0.25\n", (long long)a, (long long)b, (long long)b);
    fprintf(g, "%lld,1.5\r\n%lld,-2\r\n%lld,0.25\r\n", (long long)a, (long long)b, (long long)b);
    fclose(f);
    fclose(g);
    const char *cmd[] = {"mmsim", "signal", path, "--csv", csv, "--name", "toy", NULL};
    free(run_ok(cmd));
    mm_ticks u = {0};
    mm_error e = {0};
    cr_assert_eq(mm_ticks_load(path, NULL, 0, &u, &e), 0, "%s", e.msg);
    cr_assert(u.signal && !strcmp(u.signal_name, "toy"));
    for (int64_t i = 0; i < u.n; i++) {
        double want = u.ts_ns[i] < a ? 0 : u.ts_ns[i] < b ? 1.5 : 0.25;
        cr_assert_eq(u.signal[i], want, "row %lld: %g", (long long)i, u.signal[i]);
    }
    uint64_t fp = u.inst.fingerprint;
    mm_ticks_free(&u);
    const char *again[] = {"mmsim",  "signal", path,        "--csv", csv2,
                           "--name", "toy",    "--replace", NULL};
    free(run_ok(again));
    cr_assert_eq(mm_ticks_load(path, NULL, 0, &u, &e), 0, "%s", e.msg);
    cr_assert_eq(u.inst.fingerprint, fp, "no header, CRLF: the same column");
    mm_ticks_free(&u);
    /* info shows it; export carries it into the raw tape. */
    const char *info[] = {"mmsim", "info", path, NULL};
    char *out = run_ok(info);
    cr_assert(strstr(out, "  signal         toy: min 0, mean "), "%s", out);
    free(out);
    const char *raw = tu_path("t.mmtape");
    const char *exp[] = {"mmsim", "export", path, "-o", raw, NULL};
    free(run_ok(exp));
    cr_assert_eq(mm_ticks_load_raw(raw, &u, &e), 0, "%s", e.msg);
    cr_assert(u.signal && !strcmp(u.signal_name, "toy") && u.inst.fingerprint == fp);
    cr_assert_eq(mm_ticks_fingerprint(&u), fp);
    mm_ticks_free(&u);
    mm_ticks_free(&t);
    tu_cleanup();
}

static uint64_t content_hash(const char *out)
{
    const char *p = strstr(out, "content hash ");
    cr_assert(p, "%s", out);
    return strtoull(p + 13, NULL, 16);
}

/* A sweep over signal_skew on a tape with a signal: one content hash with the serial, threads and
 * process engines; the rows with signal_skew 0 are the rows of the tape without a signal. */
Test(signal, cli_sweep_over_signal_skew_engines_agree)
{
    tu_tmpdir();
    const char *path = tu_path("t.h5"), *plain = tu_path("p.h5");
    mm_ticks t = {0};
    tu_small_tape(&t, 20000, 4);
    write_tape(path, &t);
    write_tape(plain, &t);
    double *v = malloc(20000 * sizeof *v);
    for (int i = 0; i < 20000; i++)
        v[i] = (double)((i / 300) % 5) - 2;
    mm_error e = {0};
    cr_assert_eq(mm_ticks_write_signal(path, NULL, "steps", v, 20000, 0, &e), 0, "%s", e.msg);
    free(v);
    const char *eng[] = {"serial", "threads", "process"};
    uint64_t h[3];
    for (int k = 0; k < 3; k++) {
        const char *argv[] = {
            "mmsim",        "sweep",    path,   "--grid", "signal_skew=0,0.5,1,-1", "--grid",
            "spread=0.5,2", "--engine", eng[k], "-o",     tu_path(eng[k]),          NULL};
        char *out = NULL, *err = NULL;
        cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
        h[k] = content_hash(err[0] ? err : out);
        free(out);
        free(err);
    }
    cr_assert(h[0] == h[1] && h[1] == h[2], "%llx %llx %llx", (unsigned long long)h[0],
              (unsigned long long)h[1], (unsigned long long)h[2]);
    /* Row by row: signal_skew = 0 against the tape without a signal. */
    const char *s0[] = {"mmsim", "run", path, "--spread", "2", "--signal-skew", "0", NULL};
    const char *s1[] = {"mmsim", "run", path, "--spread", "2", "--signal-skew", "1", NULL};
    const char *p0[] = {"mmsim", "run", plain, "--spread", "2", NULL};
    char *a = run_ok(s0), *b = run_ok(p0), *c = run_ok(s1);
    /* The metrics after the first line (which names the tape's instrument and engine). */
    cr_assert_str_eq(strchr(a, '\n'), strchr(b, '\n'));
    cr_assert_str_neq(strchr(c, '\n'), strchr(b, '\n'));
    free(a);
    free(b);
    free(c);
    mm_ticks_free(&t);
    tu_cleanup();
}

/* The sweep's check before anything runs (mm__grid_check_tape): signal_skew other than 0, on the
 * base or an axis, needs the tape's signal, and is refused on the cuda engine (the device has no
 * signal column); 0 alone passes everywhere. */
Test(signal, a_grid_with_signal_skew_is_checked_against_each_tape_and_engine)
{
    mm_ticks plain = {0}, t = {0};
    tu_small_tape(&plain, 100, 1);
    tu_small_tape(&t, 100, 1);
    double v[100] = {0};
    add_signal(&t, v, "z");
    mm_grid *g = NULL;
    mm_error e = {0};
    const char *tapes[] = {"t.h5"};
    cr_assert_eq(mm_grid_new(&g, &e), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "spread", "1,2", &e), 0, "%s", e.msg);
    cr_assert_eq(mm__grid_check_tape(g, &plain, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_add_axis(g, "signal_skew", "0,0.5", &e), 0, "%s", e.msg);
    cr_assert_eq(mm__grid_check_tape(g, &t, 0, &e), 0, "%s", e.msg);
    cr_assert_eq(mm__grid_check_tape(g, &plain, 0, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal_skew: 0.5 needs a signal column, and tape TST has none (attach "
                            "one with mm_ticks_write_signal)");
    cr_assert_eq(mm__grid_check_tape(g, &t, 1, &e), MM_EUSAGE);
    cr_assert_str_eq(e.msg, "signal_skew: 0.5 runs on the CPU engines only (the cuda engine takes "
                            "signal_skew = 0, or another engine)");
    mm_grid_free(g);
    /* On the base (--set) instead of an axis. */
    cr_assert_eq(mm_grid_new(&g, &e), 0);
    cr_assert_eq(mm_grid_set_tapes(g, tapes, 1, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_grid_set(g, "signal_skew", "-2", &e), 0, "%s", e.msg);
    cr_assert_eq(mm__grid_check_tape(g, &t, 0, &e), 0, "%s", e.msg);
    cr_assert_eq(mm__grid_check_tape(g, &t, 1, &e), MM_EUSAGE);
    cr_assert_eq(mm__grid_check_tape(g, &plain, 0, &e), MM_EUSAGE);
    mm_grid_free(g);
    mm_ticks_free(&plain);
    mm_ticks_free(&t);
}
