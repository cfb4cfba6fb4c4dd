/* `mmsim run --trace`: the CSV trace (run_trace.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mm_stale_tmp.h"
#include "run_trace.h"

static const char *const KIND[] = {"", "order", "cancel", "active", "reject", "fill", "done"};

int run_trace_open(run_trace *t, const char *C, const char *path, const mm_instrument *inst)
{
    memset(t, 0, sizeof *t);
    size_t n = strlen(path) + 32;
    t->tmp = malloc(n);
    if (!t->tmp) {
        cli_err("%s: --trace %s: out of memory", C, path);
        return -1;
    }
    snprintf(t->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    mm__remove_stale_tmps(path); /* of writers killed during their final write */
    t->f = fopen(t->tmp, "w");
    if (!t->f) {
        cli_err("%s: --trace %s: %s", C, path, strerror(errno));
        free(t->tmp);
        t->tmp = NULL;
        return -1;
    }
    t->path = path;
    t->tick = inst->tick_size;
    t->lot = inst->lot_size;
    t->money = inst->tick_size * inst->lot_size;
    if (fprintf(t->f, "ts_ns,event,kind,side,px_ticks,price,qty_lots,queue_ahead,taker,"
                      "position,cash,mid,fees,pnl,known_position\n") < 0)
        t->err = errno ? errno : EIO;
    return 0;
}

void run_trace_rec(const mm_trace_rec *r, run_trace *t)
{
    int n = fprintf(t->f,
                    "%" PRId64 ",%" PRId64 ",%s,%s,%" PRId32 ",%.10g,%" PRId32 ",%" PRId32
                    ",%d,%" PRId64 ",%.10g,%.10g,%.10g,%.10g,%" PRId64 "\n",
                    r->ts_ns, r->event, KIND[r->kind], r->side > 0 ? "bid" : "ask", r->px,
                    (double)r->px * t->tick, r->qty, r->ahead, r->taker, r->q,
                    (double)r->cash2 * 0.5 * t->money, (double)r->mid2 * 0.5 * t->tick, r->fees,
                    r->pnl, r->known_q);
    if (n < 0) t->err = errno ? errno : EIO;
}

int run_trace_close(run_trace *t, int discard)
{
    if (t->f) {
        /* Every write is checked: the error indicator, the final flush and the close. */
        errno = 0;
        if (fflush(t->f) != 0 && !t->err) t->err = errno ? errno : EIO;
        if (ferror(t->f) && !t->err) t->err = EIO;
        if (fclose(t->f) != 0 && !t->err) t->err = errno ? errno : EIO;
        t->f = NULL;
        if (!discard && !t->err && rename(t->tmp, t->path) != 0) t->err = errno;
        if (discard || t->err) unlink(t->tmp);
    }
    free(t->tmp);
    t->tmp = NULL;
    return t->err;
}
