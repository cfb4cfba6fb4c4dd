/* A run's day as a small page (mmsim run --curve): PnL, inventory and mid over time with the fills,
 * downsampled into nb buckets of equal time. Each bucket keeps the minimum, the maximum and the
 * last value of each series, so a spike inside a bucket still shows as the bucket's range; the
 * page's size depends on nb, not on the number of events.
 *
 * The trace gives the state (position, cash, fees) at each order, cancel and fill; between two
 * records the state is constant and only the mid moves, so every event's PnL is
 * (cash2 + q x mid2) x 0.5 x tick_size x lot_size - fees, the marking of docs/model.md section 7.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"

enum { S_PNL = 0, S_Q = 1, S_MID = 2 };

int rep_curve_init(rep_curve *c, const mm_ticks *t, int32_t nb)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->tick = t->inst.tick_size;
    c->n_events = t->n;
    snprintf(c->symbol, sizeof c->symbol, "%s", t->inst.symbol);
    c->nb = nb < 1 ? 1 : nb;
    c->b = calloc((size_t)c->nb, sizeof *c->b);
    if (!c->b) return -ENOMEM;
    if (t->n > 0) {
        c->t0 = t->ts_ns[0];
        c->t1 = t->ts_ns[t->n - 1];
    }
    return 0;
}

void rep_curve_free(rep_curve *c)
{
    free(c->b);
    c->b = NULL;
}

static int32_t bucket_of(const rep_curve *c, int64_t ts)
{
    if (c->t1 <= c->t0) return 0;
    /* (ts - t0) / (t1 - t0 + 1) x nb, in floating point: the span may be near 2^63 ns. */
    double f = ((double)ts - (double)c->t0) / ((double)c->t1 - (double)c->t0 + 1.0);
    int32_t b = (int32_t)(f * c->nb);
    return b < 0 ? 0 : b >= c->nb ? c->nb - 1 : b;
}

static void put(rep_bucket *b, int s, double v)
{
    if (!b->has[s]) {
        b->lo[s] = b->hi[s] = v;
        b->has[s] = 1;
    }
    if (v < b->lo[s]) b->lo[s] = v;
    if (v > b->hi[s]) b->hi[s] = v;
    b->last[s] = v;
}

/* Account events [c->next, upto) with the current state. */
static void advance(rep_curve *c, int64_t upto)
{
    const mm_ticks *t = c->t;
    const double money = t->inst.tick_size * t->inst.lot_size;
    for (int64_t i = c->next; i < upto && i < t->n; i++) {
        if (t->bid_px[i] != MM_PX_NONE_BID && t->ask_px[i] != MM_PX_NONE_ASK)
            c->mid2 = (int64_t)t->bid_px[i] + t->ask_px[i];
        rep_bucket *b = &c->b[bucket_of(c, t->ts_ns[i])];
        put(b, S_Q, (double)c->q);
        if (c->mid2 != 0) {
            put(b, S_MID, (double)c->mid2 * 0.5 * t->inst.tick_size);
            put(b, S_PNL, (double)(c->cash2 + c->q * c->mid2) * 0.5 * money - c->fees);
        }
    }
    if (upto > c->next) c->next = upto;
}

void rep_curve_on_trace(const mm_trace_rec *r, void *user)
{
    rep_curve *c = user;
    advance(c, r->event); /* the events before this record's, with the state before it */
    c->q = r->q;
    c->cash2 = r->cash2;
    c->fees = r->fees;
    if (r->kind == MM_TR_FILL) {
        rep_bucket *b = &c->b[bucket_of(c, r->ts_ns)];
        int s = r->side > 0 ? 0 : 1;
        b->fills[s]++;
        b->qty[s] += r->qty;
        b->pxq[s] += (double)r->px * r->qty;
        c->n_fills++;
    }
}

void rep_curve_finish(rep_curve *c)
{
    advance(c, c->t->n);
    c->t = NULL; /* the page needs only what the buckets and the fields above hold */
}

/* ---- the page ---- */

enum { W = 1100, PH = 190, ML = 90, MR = 20, GAP = 34 };

static void fmt_clock(int64_t ns, char *buf, size_t cap)
{
    time_t s = (time_t)(ns >= 0 ? ns / 1000000000 : (ns - 999999999) / 1000000000);
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(buf, cap, "%H:%M:%S", &tm)) snprintf(buf, cap, "?");
}

static double nice_step(double span)
{
    double raw = span / 4, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void panel(rep_out *o, const rep_curve *c, int s, const char *name, const char *color,
                  int y0)
{
    const double pw = W - ML - MR;
    double lo = INFINITY, hi = -INFINITY;
    for (int32_t k = 0; k < c->nb; k++) {
        const rep_bucket *b = &c->b[k];
        if (b->has[s]) {
            lo = fmin(lo, b->lo[s]);
            hi = fmax(hi, b->hi[s]);
        }
        for (int f = 0; f < 2 && s == S_MID; f++)
            if (b->qty[f]) {
                double px = b->pxq[f] / (double)b->qty[f] * c->tick;
                lo = fmin(lo, px);
                hi = fmax(hi, px);
            }
    }
    rep_printf(o,
               "<g class=\"panel\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
               "fill=\"#fbfbfb\" stroke=\"#ccc\"/>\n",
               ML, y0, W - ML - MR, PH);
    rep_printf(o, "<text class=\"lbl\" x=\"%d\" y=\"%d\">%s</text>\n", ML, y0 - 8, name);
    if (!(lo <= hi)) {
        rep_printf(o, "<text x=\"%d\" y=\"%d\">no values</text>\n</g>\n", ML + 10, y0 + PH / 2);
        return;
    }
    double pad = hi > lo ? (hi - lo) * 0.06 : fabs(hi) * 0.01 + 1e-9;
    lo -= pad;
    hi += pad;
#define X(k) (ML + ((k) + 0.5) * pw / c->nb)
#define Y(v) (y0 + PH - ((v)-lo) / (hi - lo) * PH)
    double st = nice_step(hi - lo);
    for (double v = ceil(lo / st) * st; v <= hi; v += st) {
        char t[64];
        rep_num(fabs(v) < st * 1e-9 ? 0 : v, t, sizeof t);
        rep_printf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", ML,
                   W - MR, Y(v), Y(v), fabs(v) < st * 1e-9 ? "#999" : "#eee");
        rep_printf(o,
                   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                   "dominant-baseline=\"middle\">%s</text>\n",
                   ML - 6, Y(v), t);
    }
    /* The range of each bucket (a spike stays visible), then the line through the last values. */
    rep_printf(o,
               "<path fill=\"none\" stroke=\"%s\" stroke-opacity=\"0.35\" stroke-width=\"%.2f\" "
               "d=\"",
               color, fmax(1.0, pw / c->nb));
    for (int32_t k = 0; k < c->nb; k++)
        if (c->b[k].has[s])
            rep_printf(o, "M%.1f %.1fV%.1f", X(k), Y(c->b[k].hi[s]),
                       Y(c->b[k].lo[s]) + (c->b[k].lo[s] == c->b[k].hi[s] ? 0.5 : 0));
    rep_printf(o, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.3\" points=\"",
               color);
    for (int32_t k = 0; k < c->nb; k++)
        if (c->b[k].has[s]) rep_printf(o, "%.1f,%.1f ", X(k), Y(c->b[k].last[s]));
    rep_printf(o, "\"/>\n");
    for (int32_t k = 0; k < c->nb && s == S_MID; k++)
        for (int f = 0; f < 2; f++) {
            const rep_bucket *b = &c->b[k];
            if (!b->qty[f]) continue;
            double px = b->pxq[f] / (double)b->qty[f] * c->tick, x = X(k), y = Y(px);
            char tb[32], pv[64];
            fmt_clock(c->t0 + (int64_t)((double)(c->t1 - c->t0) * k / c->nb), tb, sizeof tb);
            rep_num(px, pv, sizeof pv);
            /* Bought (bid fill): a green triangle pointing up; sold: a red one pointing down. */
            rep_printf(
                o,
                "<path class=\"fill\" d=\"M%.1f %.1fl-4 %dh8z\" fill=\"%s\"><title>%s: %" PRId64
                " %s fill%s, %" PRId64 " lots at %s (volume-weighted)</title></path>\n",
                x, y + (f ? 4 : -4), f ? -7 : 7, f ? "#c0392b" : "#1e8449", tb, b->fills[f],
                f ? "ask (sold)" : "bid (bought)", b->fills[f] == 1 ? "" : "s", b->qty[f], pv);
        }
#undef X
#undef Y
    rep_printf(o, "</g>\n");
}

void rep_curve_summary(rep_out *o, const rep_curve *c, const mm_params *p, const mm_metrics *m)
{
    char a[64], b[64];
    fmt_clock(c->t0, a, sizeof a);
    fmt_clock(c->t1, b, sizeof b);
    rep_printf(o,
               "<p class=\"sub\">%" PRId64 " events from %s to %s UTC in %" PRId32
               " buckets of %.3g s; each bucket draws its range (min to max, light) and its "
               "last value (line); %" PRId64 " fills, marked on the mid (green: bought, red: "
               "sold; hover for counts).</p>\n",
               c->n_events, a, b, c->nb, (double)(c->t1 - c->t0) * 1e-9 / c->nb, c->n_fills);
    rep_printf(o, "<dl>\n");
    char v1[64], v2[64], v3[64];
    rep_num(m->pnl, v1, sizeof v1);
    rep_num(m->fees, v2, sizeof v2);
    rep_num(m->sharpe, v3, sizeof v3);
    rep_printf(o,
               "<dt>pnl</dt><dd>%s (fees %s)</dd>\n<dt>fills</dt><dd>%" PRId64 " bid, %" PRId64
               " ask, volume %" PRId64 " lots</dd>\n<dt>position</dt><dd>final %" PRId64
               ", max |q| %" PRId64 "</dd>\n<dt>sharpe</dt><dd>%s</dd>\n",
               v1, v2, m->fills_bid, m->fills_ask, m->volume, m->final_q, m->max_abs_q, v3);
    rep_printf(o, "<dt>parameters</dt><dd>");
    for (int i = 0; i < mm_params_key_count(); i++) {
        const char *k = mm_params_key_name(i, NULL);
        char v[64];
        mm_params_get(p, k, v, sizeof v);
        rep_printf(o, "%s", i ? " " : "");
        rep_esc(o, k);
        rep_printf(o, "=");
        rep_esc(o, v);
    }
    rep_printf(o, "</dd>\n</dl>\n");
}

void rep_curve_svg(rep_out *o, const rep_curve *c)
{
    int H = 3 * (PH + GAP) + 40;
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"curve\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-buckets=\"%" PRId32 "\">\n",
               W, H, W, H, c->nb);
    panel(o, c, S_PNL, "PnL (money, marked to mid, after fees)", "#1f4e9c", GAP);
    panel(o, c, S_Q, "inventory (lots)", "#8e44ad", GAP + PH + GAP);
    panel(o, c, S_MID, "mid (price) and fills", "#444", GAP + 2 * (PH + GAP));
    for (int k = 0; k <= 6; k++) {
        char t[32];
        fmt_clock(c->t0 + (int64_t)((double)(c->t1 - c->t0) * k / 6), t, sizeof t);
        rep_printf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n",
                   ML + (W - ML - MR) * k / 6.0, H - 14, k == 6 ? "end" : "middle", t);
    }
    rep_printf(o, "</svg>\n");
}

void rep_curve_page(rep_out *o, const rep_curve *c, const char *tape_path, const mm_params *p,
                    const mm_metrics *m)
{
    char title[512];
    snprintf(title, sizeof title, "mmsim run: %s#%s", tape_path, c->symbol);
    rep_page_begin(o, title);
    rep_printf(o, "<h1>");
    rep_esc(o, title);
    rep_printf(o, "</h1>\n");
    rep_curve_summary(o, c, p, m);
    rep_printf(o, "<p class=\"note\">Written by mmsim %s.</p>\n", mm_version());
    rep_curve_svg(o, c);
    rep_page_end(o);
}
