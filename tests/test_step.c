/* The step's internals that no trace shows (docs/model.md, section 3.2): the queue of fill reports
 * in flight to the strategy, which holds MM_REPORTS and then adds a report to its newest. */
#include <criterion/criterion.h>
#include <string.h>

#include "mm_step.h"

static void init(mm_state *st)
{
    memset(st, 0, sizeof *st);
    st->chan_ns = INT64_MIN;
    st->wake_ns = MM_NEVER;
    for (int k = 0; k < 2; k++) {
        st->s[k].land_ns = MM_NEVER;
        st->s[k].resp_ns = INT64_MIN;
        st->s[k].done_ns = MM_NEVER;
    }
}

/* An event at ts with no two-sided book: the decision only takes in the reports known by then. */
static void deliver(mm_state *st, const mm_derived *d, int64_t ts)
{
    mm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts = ts;
    mm__decide(st, &ev, d, NULL);
}

Test(reports, a_full_queue_adds_the_new_report_to_its_newest_which_then_arrives_later)
{
    mm_state st;
    init(&st);
    mm_derived d;
    memset(&d, 0, sizeof d);
    d.resp_ns = 100;
    mm_event ev;
    memset(&ev, 0, sizeof ev);
    /* Ten fills of +1 lot at ts = 1 .. 10: reports due at 101 .. 110. The first 8 fill the queue;
     * the 9th and 10th are added to the 8th, now due at 110 with 3 lots. */
    for (int i = 1; i <= 10; i++) {
        ev.ts = i;
        int64_t a = mm__resp_at(&st, &ev, &d);
        cr_assert_eq(a, i + 100);
        mm__report(&st, &ev, a, 1);
    }
    cr_assert_eq(st.nrep, MM_REPORTS);
    cr_assert_eq(st.wake_ns, 101, "the first report is a time to step");
    int32_t last = (st.rep0 + MM_REPORTS - 1) % MM_REPORTS;
    cr_assert(st.rep_t[last] == 110 && st.rep_q[last] == 3);
    deliver(&st, &d, 100);
    cr_assert_eq(st.kq, 0, "nothing is known before 101");
    deliver(&st, &d, 108);
    cr_assert_eq(st.kq, 7, "reports 101 .. 107 are known at 108");
    cr_assert_eq(st.nrep, 1);
    deliver(&st, &d, 109);
    cr_assert_eq(st.kq, 7, "the 8th fill's report now comes with the 10th");
    deliver(&st, &d, 110);
    cr_assert_eq(st.kq, 10);
    cr_assert_eq(st.nrep, 0);
    /* A message at response latency 0 behind nothing pending is known at once. */
    d.resp_ns = 0;
    ev.ts = 200;
    mm__report(&st, &ev, mm__resp_at(&st, &ev, &d), -4);
    cr_assert(st.kq == 6 && st.nrep == 0);
}
