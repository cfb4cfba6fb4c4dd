/* The queue rule's traded volume (docs/model.md 2 and 4.4; issue 28): the size that left our level
 * by trades since the level last changed is not taken as cancels, whether the tape prints a trade
 * and its size drop in one row (LOBSTER) or in two (Binance), and a change of the level in between
 * starts the count again. Each tape is hand-built and every expected fill is worked out in the
 * comments from the document, for each queue rule, through every kernel: the reference (with a
 * trace), the skip kernel and the lanes kernel of each instruction set this machine runs, and the
 * CUDA engine's per-thread code (emulated on the CPU). All must give the hand-computed fill and the
 * same metrics bit for bit. */
#include <criterion/criterion.h>
#include <string.h>

#include "mm_accel.h"
#include "testutil.h"

typedef tu_row row;

static mm_ticks make_tape(const row *r, int n)
{
    return tu_rows_tape(r, n, "QT", 0.25, 2);
}

typedef struct fills {
    int n;
    int32_t qty[8];
    int64_t event[8];
} fills;

static void on_trace(const mm_trace_rec *r, void *user)
{
    fills *f = user;
    if (r->kind != MM_TR_FILL || f->n == 8) return;
    f->qty[f->n] = r->qty;
    f->event[f->n++] = r->event;
}

enum { M = 4 }; /* combinations per kernel run: enough for the lanes kernel (MM_LANES_MIN 3) */

/* One kernel of sim_tape.h over M copies of p (ids 0..M-1); their metrics into out. */
static void run_kernel(int which, int isa, const mm__tape *tp, const mm_sim_config *c,
                       const mm_params *p, mm_metrics out[M])
{
    mm_state st[M] __attribute__((aligned(64)));
    mm_derived d[M];
    for (int j = 0; j < M; j++) {
        mm__derive(p, tp->t, &d[j]);
        mm__state_init(&st[j], tp, &d[j], j, 0);
    }
    mm__guards g;
    cr_assert_eq(mm__guards_alloc(&g, M), 0);
    int rc = which == 0 ? mm__sim_batch_advance_isa(isa, tp, d, st, &g, M, 0, tp->v.n)
                        : mm__sim_lanes_advance_isa(isa, tp, d, st, &g, M, 0, tp->v.n);
    cr_assert_eq(rc, 0);
    mm__guards_free(&g);
    for (int j = 0; j < M; j++)
        mm__finish(&st[j], tp, &d[j], c, &out[j]);
}

/* The fills of the bid order in rows r through the reference; every other kernel must give the
 * same metrics. Returns the reference's fills. */
static fills run_all(const row *r, int n, int queue_rule)
{
    mm_ticks t = make_tape(r, n);
    mm_params p;
    mm_params_defaults(&p);
    p.spread_ticks = 1; /* mid 101: bid 100, ask 102 */
    p.quote_size = 5;
    p.inv_limit = 50;
    p.queue_rule = queue_rule;
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    fills f = {0};
    mm_metrics ref, got[M];
    mm_error e = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &ref, on_trace, &f, &e), 0, "%s", e.msg);
    mm__tape tp;
    cr_assert_eq(mm__tape_init(&tp, &t, &c), 0);
    int kernels = 0;
    for (int which = 0; which < 2; which++)
        for (int isa = 0; isa < MM_ISA_COUNT; isa++) {
            if (!mm__batch_isa_supported(isa) || (which == 1 && isa == MM_ISA_SCALAR)) continue;
            memset(got, 0xa5, sizeof got);
            run_kernel(which, isa, &tp, &c, &p, got);
            for (int j = 0; j < M; j++) {
                cr_assert_eq(got[j].volume, ref.volume, "%s %s: volume %ld, reference %ld",
                             which ? "lanes" : "skip", mm__batch_isa_name(isa), (long)got[j].volume,
                             (long)ref.volume);
                cr_assert(got[j].pnl == ref.pnl && got[j].fills_bid == ref.fills_bid &&
                              got[j].final_q == ref.final_q,
                          "%s %s differs from the reference", which ? "lanes" : "skip",
                          mm__batch_isa_name(isa));
            }
            kernels++;
        }
    cr_assert_geq(kernels, 1);
    mm_params ps[M] = {p, p, p, p};
    mm__emulation em = {2, 2};
    cr_assert_eq(mm__sim_slots_tape(&tp, &c, ps, M, 0, 0, 1, got, M, mm__thread_emulate, &em, &e),
                 0, "%s", e.msg);
    for (int j = 0; j < M; j++)
        cr_assert(got[j].volume == ref.volume && got[j].pnl == ref.pnl,
                  "the CUDA engine's code (emulated): volume %ld, reference %ld",
                  (long)got[j].volume, (long)ref.volume);
    mm__tape_free(&tp);
    mm_ticks_free(&t);
    return f;
}

static const int RULES[] = {MM_QUEUE_RISK_AVERSE, MM_QUEUE_POWER, MM_QUEUE_LOG};

/* Our 5-lot bid is sent at row 0 and lands at row 1 behind the 10 lots at 100 (ahead 10). */
#define START                                                                                      \
    {0, 100, 10, 102, 10, 0, 0, 0},                                                                \
    {                                                                                              \
        1, 100, 10, 102, 10, 0, 0, 0                                                               \
    }
/* The probe: an 8-lot sell at 100 takes what is ahead and fills us with the rest. */
#define PROBE                                                                                      \
    {                                                                                              \
        4, 100, 6, 102, 10, 100, 8, -1                                                             \
    }

Test(queue_traded, a_trade_and_its_size_drop_in_one_row_are_no_cancel)
{
    /* Row 2: 4 lots trade at 100 and the level shows 6: 4.2 takes 4 from ahead (6 left); 4.4:
     * dec = 10 - 6 - 4 = 0, no cancel. The probe takes the 6 ahead and fills 8 - 6 = 2 lots,
     * whatever the rule (the same as before traded volume was counted across rows). */
    row r[] = {START, {2, 100, 6, 102, 10, 100, 4, -1}, {3, 100, 6, 102, 10, 0, 0, 0}, PROBE};
    for (int k = 0; k < 3; k++) {
        fills f = run_all(r, 5, RULES[k]);
        cr_assert_eq(f.n, 1, "rule %d: %d fills", RULES[k], f.n);
        cr_assert_eq(f.qty[0], 2, "rule %d: 8 traded - 6 ahead = 2 (got %d)", RULES[k], f.qty[0]);
        cr_assert_eq(f.event[0], 4);
    }
}

Test(queue_traded, a_trade_then_its_size_drop_in_the_next_row_are_no_cancel)
{
    /* Binance: row 2 prints the 4-lot trade (the level still shows 10), row 3 the drop to 6. Row 2:
     * ahead 10 - 4 = 6; row 3: dec = 10 - 6 - 4 (traded at 100 since the level last changed) = 0,
     * no cancel: ahead stays 6 and the probe fills 2 for every rule. Counting the drop as cancels
     * (the old rule) would have cut the queue again: power (n = 2) share 36/52 of 4 = 3 (fill 5),
     * log share ln 7 / (ln 7 + ln 5) of 4 = 2 (fill 4). */
    row r[] = {START, {2, 100, 10, 102, 10, 100, 4, -1}, {3, 100, 6, 102, 10, 0, 0, 0}, PROBE};
    for (int k = 0; k < 3; k++) {
        fills f = run_all(r, 5, RULES[k]);
        cr_assert_eq(f.n, 1, "rule %d: %d fills", RULES[k], f.n);
        cr_assert_eq(f.qty[0], 2, "rule %d: 8 traded - 6 ahead = 2 (got %d)", RULES[k], f.qty[0]);
    }
}

Test(queue_traded, a_change_on_the_other_side_in_between_keeps_the_count)
{
    /* As above with the ask's size changing between the trade and the drop (the bid level is
     * unchanged): the 4 traded lots still explain the drop; the probe fills 2. */
    row r[] = {START,
               {2, 100, 10, 102, 10, 100, 4, -1},
               {2.5, 100, 10, 102, 7, 0, 0, 0},
               {3, 100, 6, 102, 10, 0, 0, 0},
               PROBE};
    for (int k = 0; k < 3; k++) {
        fills f = run_all(r, 6, RULES[k]);
        cr_assert_eq(f.n, 1);
        cr_assert_eq(f.qty[0], 2, "rule %d: got %d", RULES[k], f.qty[0]);
    }
}

Test(queue_traded, a_change_of_our_level_in_between_starts_the_count_again)
{
    /* Row 2: 4 lots trade at 100, the level still shows 10 (ahead 6). Row 2.5: 2 lots join: the
     * level changed (10 -> 12; dec = 10 - 12 - 4 < 0) and the count starts again. Row 3: the level
     * drops 12 -> 8 with no trade since: 4 real cancels, behind = 12 - 6 = 6. Power and log: share
     * f(6) / (f(6) + f(6)) = 1/2, cut floor(4 x 0.5 + 0.5) = 2, ahead 4: the probe (8 lots, the
     * level showing 8) fills 8 - 4 = 4. Risk-averse: ahead min(6, 8) = 6, fill 2. (Keeping the 4
     * traded lots past the change would have found no cancel: fill 2 for every rule.) */
    row r[] = {START,
               {2, 100, 10, 102, 10, 100, 4, -1},
               {2.5, 100, 12, 102, 10, 0, 0, 0},
               {3, 100, 8, 102, 10, 0, 0, 0},
               {4, 100, 8, 102, 10, 100, 8, -1}};
    const int want[] = {2, 4, 4};
    for (int k = 0; k < 3; k++) {
        fills f = run_all(r, 6, RULES[k]);
        cr_assert_eq(f.n, 1);
        cr_assert_eq(f.qty[0], want[k], "rule %d: fill %d, want %d", RULES[k], f.qty[0], want[k]);
    }
}

/* Section 2's sample counts: n_samples[i] = K(i) - K(i-1), K(i) = floor((ts_i - ts_0) / sample_ns).
 * mm__tape_init keeps K with its next boundary and divides only after a gap of more than one
 * interval (session 20); this compares it with the division on every row, over seeded timestamps
 * with repeats, steps inside an interval, rows on a boundary exactly, one-interval steps and gaps
 * of many intervals, for several sampling clocks. */
Test(tape_tables, sample_counts_are_the_floor_division_of_every_row)
{
    enum { N = 4000 };
    static const int64_t CLOCKS[] = {1, 7, 1000, 1000000, 1000000000, INT64_C(3600000000000)};
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int c = 0; c < (int)(sizeof CLOCKS / sizeof CLOCKS[0]); c++) {
        int64_t S = CLOCKS[c];
        mm_ticks t = {0};
        cr_assert_eq(mm_ticks_alloc(&t, N, MM_MEM_HEAP), 0);
        snprintf(t.inst.symbol, sizeof t.inst.symbol, "NS");
        t.inst.tick_size = 0.25;
        t.inst.lot_size = 1;
        t.inst.allow_crossed = 1;
        int64_t ts = INT64_C(1000000000000);
        for (int i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int kind = (int)(x % 6);
            int64_t r = (int64_t)((x >> 8) % (uint64_t)(S > 1 ? S : 2));
            if (i > 0) {
                int64_t k0 = (ts - t.ts_ns[0]) / S;
                if (kind == 1)
                    ts += r / 4; /* inside, or just over */
                else if (kind == 2)
                    ts = t.ts_ns[0] + (k0 + 1) * S; /* the next boundary exactly */
                else if (kind == 3)
                    ts = t.ts_ns[0] + (k0 + 1) * S - 1; /* just before it */
                else if (kind == 4)
                    ts += S; /* one interval */
                else if (kind == 5)
                    ts += (int64_t)(x >> 40) % 50 * S + r; /* many */
                /* kind 0: the same timestamp */
            }
            t.ts_ns[i] = ts;
            t.bid_px[i] = 100;
            t.bid_sz[i] = 1;
            t.ask_px[i] = 101;
            t.ask_sz[i] = 1;
        }
        mm_sim_config cfg;
        mm_sim_config_defaults(&cfg);
        cfg.sample_ns = S;
        if ((t.ts_ns[N - 1] - t.ts_ns[0]) / S > 100000000) { /* over the samples' cap: fewer rows */
            mm_ticks_free(&t);
            continue;
        }
        mm__tape tp;
        cr_assert_eq(mm__tape_init(&tp, &t, &cfg), 0, "sample_ns %lld", (long long)S);
        int64_t prev = 0;
        for (int i = 0; i < N; i++) {
            int64_t k = (t.ts_ns[i] - t.ts_ns[0]) / S;
            cr_assert_eq(tp.nsamp[i], (int32_t)(k - prev), "sample_ns %lld row %d: %d, want %lld",
                         (long long)S, i, tp.nsamp[i], (long long)(k - prev));
            prev = k;
        }
        mm__tape_free(&tp);
        mm_ticks_free(&t);
    }
}
