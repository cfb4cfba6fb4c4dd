/* The heatmap as inline SVG: one <rect class="cell"> per cell with its value and parameters in a
 * <title> (the browser's hover text) and in data-v, value labels when cells are large enough, axis
 * labels (the best cell's row and column always, in bold) and titles, the best cell outlined, and
 * a colour scale with the metric's name and unit. The first value of the y axis is at the bottom,
 * as on a plot.
 *
 * Colours (docs/report.md, "Colour scale"): a metric whose sign is profit or loss (pnl, sharpe,
 * markouts, fees: rep_metric_signed), or any metric whose cells have both signs, is drawn on a
 * diverging scale centred on zero: white at 0, blue for the good sign (above zero, or below it
 * when smaller is better), red for the other, each side scaled to its own extreme so that the
 * profitable region spans the whole blue ramp however large the losses are, and starting 15% into
 * it so that a small profit and a small loss are told apart. Other metrics are sequential
 * (viridis, the best end bright yellow). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Pixels: left and top margins, the legend's width and its title's height. */
enum { ML = 160, MT = 16, LEGEND = 200, LEGEND_TITLE = 36 };

/* The colour scale: diverging or sequential, the direction (ascending: smallest is best), and its
 * range, the cells' extent (widened to include zero when diverging). */
typedef struct scale {
    int diverging, ascending;
    double lo, hi;
} scale;

int rep_heatmap_diverging(const rep_grid *g, const char *metric)
{
    return rep_metric_signed(metric) || (g->vmin < 0 && g->vmax > 0);
}

static scale scale_of(const rep_grid *g, const char *metric, int ascending)
{
    scale s = {0, ascending, g->vmin, g->vmax};
    s.diverging = rep_heatmap_diverging(g, metric);
    if (s.diverging) {
        if (s.lo > 0) s.lo = 0;
        if (s.hi < 0) s.hi = 0;
    }
    return s;
}

static int32_t clampi(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void value_text(const mm_results_axis *a, int32_t k, int brief, char *buf, size_t cap)
{
    if (brief && a->type == MM_COL_F64)
        rep_num(a->f64[k], buf, cap); /* 6 significant digits: 2.1, not 2.1000000000000001 */
    else
        mm_results_axis_format(a, k, buf, cap);
}

/* The label of cell k along axis a with b values per cell: "v", or "first..last" for a run; brief
 * (axis labels) rounds floats to 6 significant digits, titles keep them exact. */
static void cell_label(const mm_results_axis *a, int32_t b, int32_t k, int brief, char *buf,
                       size_t cap)
{
    int32_t lo = k * b, hi = lo + b - 1 < a->n - 1 ? lo + b - 1 : a->n - 1;
    char s1[128], s2[128];
    value_text(a, lo, brief, s1, sizeof s1);
    if (hi == lo) {
        snprintf(buf, cap, "%s", s1);
        return;
    }
    value_text(a, hi, brief, s2, sizeof s2);
    snprintf(buf, cap, "%s..%s", s1, s2);
}

/* Position in the colour map of value v: [-1, 1] when diverging (0 only for 0; each sign from
 * 0.15 to 1 of its side, scaled to that side's extreme; the good sign positive), else [0, 1] with
 * the best end at 1 (bright). */
static double scale_t(const scale *s, double v)
{
    if (s->diverging) {
        double t = v > 0 ? 0.15 + 0.85 * v / s->hi : v < 0 ? -(0.15 + 0.85 * v / s->lo) : 0;
        return s->ascending ? -t : t;
    }
    double t = s->hi > s->lo ? (v - s->lo) / (s->hi - s->lo) : 0.5;
    return s->ascending ? 1 - t : t;
}

static void cell_title(rep_out *o, const mm_results_info *in, const rep_grid_opts *go,
                       const rep_grid *g, int32_t i, int32_t j, const char *metric_name)
{
    const rep_cell *c = &g->cells[(size_t)j * (size_t)g->nx + (size_t)i];
    char s[300], v[64];
    rep_printf(o, "<title>");
    cell_label(&in->axes[go->x], g->bx, i, 0, s, sizeof s);
    rep_esc(o, in->axes[go->x].key);
    rep_printf(o, "=");
    rep_esc(o, s);
    if (go->y >= 0) {
        cell_label(&in->axes[go->y], g->by, j, 0, s, sizeof s);
        rep_printf(o, ", ");
        rep_esc(o, in->axes[go->y].key);
        rep_printf(o, "=");
        rep_esc(o, s);
    }
    rep_printf(o, "&#10;");
    rep_esc(o, metric_name);
    rep_num(c->v, v, sizeof v);
    if (c->n == 0)
        rep_printf(o, ": no rows");
    else
        rep_printf(o, " %s = %s over %lld row%s", rep_agg_names[go->agg], v, (long long)c->n,
                   c->n == 1 ? "" : "s");
    if (c->n_nan) rep_printf(o, " (%lld NaN)", (long long)c->n_nan);
    if (c->best_id >= 0) {
        const int32_t *bi =
            &g->best_idx[((size_t)j * (size_t)g->nx + (size_t)i) * (size_t)g->n_axes];
        rep_printf(o, "&#10;best row: id %lld", (long long)c->best_id);
        for (int32_t a = 0; a < in->n_axes; a++) {
            if (g->bx == 1 && a == go->x) continue;
            if (g->by == 1 && a == go->y) continue;
            mm_results_axis_format(&in->axes[a], bi[a], s, sizeof s);
            rep_printf(o, ", ");
            rep_esc(o, in->axes[a].key);
            rep_printf(o, "=");
            rep_esc(o, s);
        }
    }
    rep_printf(o, "</title>");
}

/* The value at fraction p (0 at the top, 1 at the bottom) of the legend's bar: linear from hi to
 * lo; on a diverging scale with both signs, the top half from hi to 0 and the bottom half from 0
 * to lo, as each side of the colours is scaled to its own extreme. */
static double legend_value(const scale *s, double p)
{
    if (s->diverging && s->hi > 0 && s->lo < 0)
        return p < 0.5 ? s->hi * (1 - 2 * p) : s->lo * (2 * p - 1);
    return s->hi - (s->hi - s->lo) * p;
}

/* The colour scale at (x0, y0): the metric's name and unit, a bar of h pixels from the largest
 * value (top) to the smallest with five values marked (0 among them on a diverging scale), and the
 * best cell's value under it. */
static void legend(rep_out *o, const rep_grid *g, const scale *s, const char *metric, int x0,
                   int y0, int h)
{
    enum { STEPS = 48, BAR = 18 };
    if (g->best < 0) return;
    rep_printf(o, "<g class=\"legend\"><text class=\"lbl\" x=\"%d\" y=\"%d\">", x0, y0 + 10);
    rep_esc(o, metric);
    rep_printf(o, "</text><text class=\"unit\" x=\"%d\" y=\"%d\">", x0, y0 + 25);
    rep_esc(o, rep_metric_unit(metric));
    rep_printf(o, "</text>\n");
    y0 += LEGEND_TITLE;
    for (int k = 0; k < STEPS; k++) {
        /* k = 0 at the top: the largest value. */
        double v = legend_value(s, (k + 0.5) / STEPS);
        char col[8];
        rep_color(scale_t(s, v), s->diverging, col);
        rep_printf(o, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>", x0,
                   y0 + (double)h * k / STEPS, BAR, (double)h / STEPS + 0.3, col);
    }
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#888\"/>\n",
               x0, y0, BAR, h);
    char a[64];
    for (int k = 0; k <= 4; k++) { /* ticks at 0, 1/4, ... of the bar */
        double y = y0 + h * k / 4.0;
        rep_num(legend_value(s, k / 4.0), a, sizeof a);
        rep_printf(o,
                   "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
                   "<text x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\">%s</text>\n",
                   x0 + BAR, x0 + BAR + 4, y, y, x0 + BAR + 7, y, a);
    }
    rep_num(g->cells[g->best].v, a, sizeof a);
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"none\" "
               "stroke=\"#000\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" "
               "dominant-baseline=\"middle\">best cell: %s</text></g>\n",
               x0 + 2, y0 + h + 12, x0 + BAR + 5, y0 + h + 19, a);
}

void rep_heatmap(rep_out *o, const mm_results_info *in, const rep_grid_opts *go, const rep_grid *g,
                 const char *metric_name)
{
    const mm_results_axis *ax = &in->axes[go->x], *ay = go->y >= 0 ? &in->axes[go->y] : NULL;
    int32_t cw = clampi(840 / g->nx, 3, 72), ch = clampi(520 / g->ny, 3, 44);
    if (!ay) ch = 44;
    int32_t pw = cw * g->nx, ph = ch * g->ny;
    /* Axis labels: at most one every 15 px (x labels are turned when long or crowded). */
    char s[300];
    int32_t step = clampi((15 * g->nx + pw - 1) / pw, 1, g->nx), turn = 0, longest = 0;
    for (int32_t i = 0; i < g->nx; i += step) {
        cell_label(ax, g->bx, i, 1, s, sizeof s);
        int32_t len = (int32_t)strlen(s);
        turn |= len * 7 > cw * step;
        longest = len > longest ? len : longest;
    }
    /* Below the plot: the labels (turned: about 5 px down per character), then the axis title. */
    int32_t below = turn ? 24 + clampi(longest, 4, 24) * 5 : 40;
    /* The legend: its title, a bar as tall as the plot (at least 130 px), the best cell's line. */
    int32_t lh = ph - LEGEND_TITLE > 130 ? ph - LEGEND_TITLE : 130;
    int32_t H = MT + ph + below + 10, W = ML + pw + 24 + LEGEND;
    if (H < MT + LEGEND_TITLE + lh + 40) H = MT + LEGEND_TITLE + lh + 40;
    scale sc = scale_of(g, metric_name, go->ascending);
    /* The best cell's column and row: always labelled, in bold. */
    int32_t bi = g->best >= 0 ? (int32_t)(g->best % g->nx) : -1,
            bj = g->best >= 0 ? (int32_t)(g->best / g->nx) : -1;
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heatmap\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-nx=\"%d\" data-ny=\"%d\">\n",
               W, H, W, H, g->nx, g->ny);
    int values = cw >= 46 && ch >= 16;
    for (int32_t j = 0; j < g->ny; j++) {
        for (int32_t i = 0; i < g->nx; i++) {
            const rep_cell *c = &g->cells[(size_t)j * (size_t)g->nx + (size_t)i];
            char col[8] = "#e0e0e0", dv[64];
            if (!isnan(c->v)) rep_color(scale_t(&sc, c->v), sc.diverging, col);
            rep_num(c->v, dv, sizeof dv);
            int32_t x = ML + i * cw, y = MT + (g->ny - 1 - j) * ch;
            rep_printf(o,
                       "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                       "fill=\"%s\" data-v=\"%s\">",
                       x, y, cw, ch, col, dv);
            cell_title(o, in, go, g, i, j, metric_name);
            rep_printf(o, "</rect>\n");
            if (values && !isnan(c->v)) {
                char v[64];
                snprintf(v, sizeof v, "%.4g", c->v == 0 ? 0.0 : c->v);
                rep_printf(o,
                           "<text class=\"v\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                           "dominant-baseline=\"middle\" pointer-events=\"none\" "
                           "style=\"fill:%s\">%s</text>\n",
                           x + cw / 2, y + ch / 2, rep_color_light(col) ? "#111" : "#fff", v);
            }
        }
    }
    /* The plot's frame: cells of value 0 are white on a diverging scale. */
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\" "
               "pointer-events=\"none\"/>\n",
               ML, MT, pw, ph);
    if (g->best >= 0) {
        int32_t i = (int32_t)(g->best % g->nx), j = (int32_t)(g->best / g->nx);
        int32_t x = ML + i * cw, y = MT + (g->ny - 1 - j) * ch;
        rep_printf(o,
                   "<rect class=\"best\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                   "fill=\"none\" stroke=\"#fff\" stroke-width=\"4\" pointer-events=\"none\"/>"
                   "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                   "stroke=\"#000\" stroke-width=\"2\" pointer-events=\"none\"/>\n",
                   x, y, cw, ch, x, y, cw, ch);
        if (cw < 14 || ch < 14) /* small cells: a ring around the best one as well */
            rep_printf(o,
                       "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"11\" fill=\"none\" stroke=\"#000\" "
                       "stroke-width=\"2\" pointer-events=\"none\"/>\n",
                       x + cw * 0.5, y + ch * 0.5);
    }
    for (int32_t i = 0; i < g->nx; i++) {
        /* Every step-th label, and the best column's (its neighbours within a step give way). */
        if (i != bi && (i % step || (bi >= 0 && abs(i - bi) < step))) continue;
        cell_label(ax, g->bx, i, 1, s, sizeof s);
        int32_t x = ML + i * cw + cw / 2, y = MT + ph + 14;
        const char *cls = i == bi ? " class=\"bst\"" : "";
        if (turn)
            rep_printf(o,
                       "<text%s x=\"%d\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-40 %d "
                       "%d)\">",
                       cls, x, y, x, y);
        else
            rep_printf(o, "<text%s x=\"%d\" y=\"%d\" text-anchor=\"middle\">", cls, x, y);
        rep_esc(o, s);
        rep_printf(o, "</text>\n");
    }
    rep_printf(o, "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2,
               MT + ph + below);
    rep_esc(o, ax->key);
    rep_printf(o, "</text>\n");
    if (ay) {
        step = clampi((15 * g->ny + ph - 1) / ph, 1, g->ny);
        for (int32_t j = 0; j < g->ny; j++) {
            if (j != bj && (j % step || (bj >= 0 && abs(j - bj) < step))) continue;
            cell_label(ay, g->by, j, 1, s, sizeof s);
            rep_printf(o,
                       "<text%s x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">",
                       j == bj ? " class=\"bst\"" : "", ML - 6, MT + (g->ny - 1 - j) * ch + ch / 2);
            rep_esc(o, s);
            rep_printf(o, "</text>\n");
        }
        rep_printf(o,
                   "<text class=\"lbl\" x=\"14\" y=\"%d\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 14 %d)\">",
                   MT + ph / 2, MT + ph / 2);
        rep_esc(o, ay->key);
        rep_printf(o, "</text>\n");
    }
    legend(o, g, &sc, metric_name, ML + pw + 24, MT, lh);
    rep_printf(o, "</svg>\n");
}
