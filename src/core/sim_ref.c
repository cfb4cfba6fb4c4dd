/* Reference engine: one combination through the tape, every event, in order. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "mm_internal.h"
#include "sim_tape.h"

int mm_sim_run_c(const mm_ticks *t, const mm_sim_config *c, const mm_params *p, mm_metrics *out,
                 mm_trace_fn trace, void *user, mm_error *err)
{
    if (!t || !c || !p || !out) return mm__errf(err, -EINVAL, "mm_sim_run_c: NULL argument");
    int rc = mm_sim_check_params(p, c, err);
    if (rc) return rc;
    if ((rc = mm_sim_config_check(c, t, err)) || (rc = mm__params_tape_check(p, t, err))) return rc;
    mm__tape tp;
    if ((rc = mm__tape_init(&tp, t, c)))
        return mm__errf(err, rc, "cannot allocate the tape tables");
    mm_derived d;
    mm__derive(p, t, &d);
    mm_side *rungs = mm__rungs_attach(&d, 1, &rc); /* a ladder's rungs 1.. (6.2) */
    if (rc) {
        mm__tape_free(&tp);
        return mm__errf(err, rc, "cannot allocate the ladder's orders");
    }
    mm_state st;
    mm__state_init(&st, &tp, &d, c->id, c->path);
    mm_trace_sink sink = {trace, user, 0};
    mm_event ev;
    for (int64_t i = 0; i < t->n; i++) {
        mm__event(&tp.v, i, &ev);
        mm_step_c(&st, &ev, &d, trace ? &sink : NULL);
    }
    mm__finish(&st, &tp, &d, c, out);
    free(rungs);
    mm__tape_free(&tp);
    if (st.ovf_event) return mm__overflow_err(st.ovf_event, -1, err);
    return 0;
}
