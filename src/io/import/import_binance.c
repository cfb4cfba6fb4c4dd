/* Binance capture importer, spot and USD-M futures (docs/import-binance.md).
 *
 * Input: one or more capture files (one day each, in order), one message per line,
 * "<local receive ns> <raw JSON>": combined-stream websocket messages {"stream":..., "data":{...}}
 * of the depth-diff, bookTicker and trade streams, and one REST depth snapshot
 * {"lastUpdateId":..., "bids":[...], "asks":[...]} (USD-M adds "T"). The two markets differ in
 * shape: USD-M diffs carry T and pu (pu = the previous diff's u), spot diffs only E, and continue
 * with U = previous u + 1; USD-M bookTickers carry e and T, spot bookTickers neither; the spot
 * snapshot has no time. The market is taken from the first message whose shape tells (or from
 * opts.market) and every later message must have that market's shape.
 *
 * Local receive order is not the exchange's order (the streams are separate), so every file is
 * read into memory first; the files form one capture: a later day without a snapshot continues the
 * book of the earlier one. Book messages (depth diffs and bookTickers) are then ordered by update
 * id and trades by trade id. The L2 book starts from the snapshot and is kept by the depth diffs,
 * whose id chain must be unbroken. Rows: bookTickers before the snapshot (the exchange's own L1
 * while no L2 state is known); the snapshot; every depth diff (top of the L2 book); every
 * bookTicker whose update id falls between two diffs (the L1 at that id, finer than the diffs);
 * every trade. A bookTicker with the same update id as the snapshot or a diff is not a row: it is
 * compared with the L2 book instead, and a disagreement is an error. Trades go before book messages
 * of the same millisecond (a trade is printed before the depth diff that shows the liquidity it
 * took).
 *
 * Times. Every exchange time is checked against the time the line was received: the capture's clock
 * offset is the median of (exchange time - receive time) over the messages that carry a time, and a
 * message more than TIME_TOL_NS away from (receive time + offset) is an error. Messages without an
 * exchange time (spot bookTickers and the spot snapshot) get (receive time + offset), clamped
 * between the time of the book message before them in update-id order and the time of the first
 * depth diff at or after their update id. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_binance_int.h"
#include "mm_internal.h"

const char *const mm__binance_market_name[3] = {"unknown", "spot", "usdm"};

int mm_import_binance_files(const char *const *captures, int n, const mm_import_opts *o,
                            mm_ticks *out, mm_import_report *rep, mm_error *err)
{
    mm_import_report lrep;
    if (!rep) rep = &lrep;
    memset(rep, 0, sizeof *rep);
    if (out) memset(out, 0, sizeof *out);
    if (!captures || n < 1 || !out)
        return mm__errf(err, -EINVAL, "import binance: missing argument");
    for (int i = 0; i < n; i++)
        if (!captures[i]) return mm__errf(err, -EINVAL, "import binance: missing argument");
    bn b;
    memset(&b, 0, sizeof b);
    mm_instrument inst;
    int rc = mm__import_setup(o, NULL, NULL, 365.0 * 24 * 3600, &b.tick, &b.lot, &inst, err);
    if (rc) return rc;
    if (o->market && strcmp(o->market, "spot") && strcmp(o->market, "usdm"))
        return mm__errf(err, MM_EUSAGE, "market: '%s' is not spot or usdm", o->market);
    if ((b.depth_levels = mm__import_depth_levels(o, 20, err)) < 0) return b.depth_levels;
    b.paths = captures;
    b.o = o;
    b.err = err;
    b.sym = o->symbol;
    b.symlen = strcspn(o->symbol, ".");
    if (b.symlen == 0)
        return mm__errf(err, MM_EUSAGE,
                        "symbol: '%s' has nothing before its first '.' (the stream's symbol)",
                        o->symbol);
    if (o->market) {
        b.market = !strcmp(o->market, "spot") ? MK_SPOT : MK_USDM;
        b.market_f = -1;
    }
    b.px_min = INT32_MAX;
    b.px_max = INT32_MIN;
    mm__lines lr;
    memset(&lr, 0, sizeof lr);
    mm__imp_tape tape = {0};
    mm_error lerr = {0};
    for (b.fi = 0; b.fi < n; b.fi++) {
        if ((rc = mm__lines_open(&lr, captures[b.fi], err))) goto done;
        for (;;) {
            char *s;
            size_t len;
            int r = mm__lines_next(&lr, &s, &len, err);
            if (r < 0) {
                rc = r;
                goto done;
            }
            if (!r) break;
            b.line = lr.lineno;
            b.err = o->skip_bad ? &lerr : err;
            rc = mm__binance_parse_line(&b, s, len);
            b.err = err;
            if (rc) {
                if (!o->skip_bad || rc == -ENOMEM) {
                    if (rc == -ENOMEM) mm__errf(err, rc, "%s: out of memory", captures[b.fi]);
                    goto done;
                }
                mm__import_skip(rep, &lerr);
                rc = 0;
            }
        }
        rep->lines += lr.lineno;
        rep->bytes += lr.bytes;
        mm__lines_close(&lr);
    }
    rep->files = n;
    snprintf(rep->market, sizeof rep->market, "%s", mm__binance_market_name[b.market]);
    /* source: "binance-spot capture day1.gz + day2.gz" (cut to the attribute's size) */
    int w = snprintf(inst.source, sizeof inst.source, "binance-%s capture",
                     mm__binance_market_name[b.market]);
    for (int i = 0; i < n && w > 0 && (size_t)w < sizeof inst.source; i++) {
        const char *base = strrchr(captures[i], '/');
        w += snprintf(inst.source + w, sizeof inst.source - (size_t)w, "%s%s", i ? " + " : " ",
                      base ? base + 1 : captures[i]);
    }
    if ((rc = mm__binance_replay(&b, rep, &tape))) goto done;
    rc = mm__imp_tape_finish(&tape, &inst, out, err);
    if (!rc) mm__import_totals(rep, out);
done:
    mm__imp_tape_free(&tape);
    mm__lines_close(&lr);
    mm__json_free(&b.j);
    free(b.dep);
    free(b.tk);
    free(b.tr);
    free(b.lv);
    return rc;
}

int mm_import_binance(const char *capture, const mm_import_opts *o, mm_ticks *out,
                      mm_import_report *rep, mm_error *err)
{
    const char *one[1] = {capture};
    return mm_import_binance_files(one, 1, o, out, rep, err);
}
