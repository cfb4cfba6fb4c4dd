/* mm_trace_collect (mmsim/sim.h): the whole trace in memory, record for record the trace
 * callback's. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "mmsim/mmsim.h"

typedef struct seen {
    mm_trace_rec *rec;
    int64_t n, cap;
} seen;

static void on_rec(const mm_trace_rec *r, void *user)
{
    seen *s = user;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->rec = realloc(s->rec, (size_t)s->cap * sizeof *s->rec);
        cr_assert_not_null(s->rec);
    }
    s->rec[s->n++] = *r;
}

static void day(mm_ticks *t)
{
    mm_gen_params g;
    mm_gen_defaults(&g);
    g.seed = 11;
    g.events = 20000;
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&g, t, &e), 0, "%s", e.msg);
}

Test(trace_buf, holds_every_record_the_callback_sees_in_order)
{
    mm_ticks t = {0};
    day(&t);
    mm_params p;
    mm_params_defaults(&p);
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_error e = {0};
    cr_assert_eq(mm_params_set(&p, "spread", "1", &e), 0);
    cr_assert_eq(mm_params_set(&p, "inv_limit", "20", &e), 0);
    seen s = {0};
    mm_metrics m1, m2;
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m1, on_rec, &s, &e), 0, "%s", e.msg);
    mm_trace_buf b = {0};
    cr_assert_eq(mm_sim_run_c(&t, &c, &p, &m2, mm_trace_collect, &b, &e), 0, "%s", e.msg);
    cr_assert_gt(s.n, 1024, "a trace long enough to make the buffer grow: %lld", (long long)s.n);
    cr_assert_eq(b.oom, 0);
    cr_assert_eq(b.n, s.n);
    cr_assert_geq(b.cap, b.n);
    int64_t fills = 0;
    for (int64_t i = 0; i < b.n; i++) {
        const mm_trace_rec *a = &s.rec[i], *r = &b.rec[i];
        cr_assert(a->ts_ns == r->ts_ns && a->event == r->event && a->kind == r->kind &&
                      a->side == r->side && a->px == r->px && a->qty == r->qty &&
                      a->ahead == r->ahead && a->taker == r->taker && a->q == r->q &&
                      a->cash2 == r->cash2 && a->mid2 == r->mid2 && a->fees == r->fees &&
                      a->pnl == r->pnl && a->known_q == r->known_q,
                  "record %lld differs", (long long)i);
        fills += r->kind == MM_TR_FILL;
    }
    cr_assert_eq(fills > 0, 1, "the run fills");
    mm_trace_buf_free(&b);
    cr_assert(b.rec == NULL && b.n == 0 && b.cap == 0 && b.oom == 0);
    mm_trace_buf_free(&b); /* safe on a zeroed buffer */
    free(s.rec);
    mm_ticks_free(&t);
}

Test(trace_buf, stops_growing_after_a_failure_and_keeps_what_it_had)
{
    mm_trace_buf b = {0};
    mm_trace_rec r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 3; i++) {
        r.event = i;
        mm_trace_collect(&r, &b);
    }
    cr_assert_eq(b.n, 3);
    b.oom = 1; /* as after a failed realloc: later records are dropped, not appended after a gap */
    r.event = 3;
    mm_trace_collect(&r, &b);
    cr_assert_eq(b.n, 3);
    cr_assert_eq(b.rec[2].event, 2);
    mm_trace_buf_free(&b);
}
