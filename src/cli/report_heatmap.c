/* The heatmap as inline SVG: one <rect class="cell"> per cell with its value and parameters in a
 * <title> (the browser's hover text), value labels when cells are large enough, axis labels and
 * titles, the best cell outlined, and a colour scale. The first value of the y axis is at the
 * bottom, as on a plot. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

enum { ML = 160, MT = 16, LEGEND = 130 };

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

/* Position in the colour map of value v: [-1, 1] when diverging, else [0, 1] with the best end at
 * 1 (bright). */
static double scale_t(const rep_grid *g, double v, int diverging, int ascending)
{
    if (diverging) {
        double a = fabs(g->vmin) > fabs(g->vmax) ? fabs(g->vmin) : fabs(g->vmax);
        return v / a;
    }
    double t = g->vmax > g->vmin ? (v - g->vmin) / (g->vmax - g->vmin) : 0.5;
    return ascending ? 1 - t : t;
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

static void legend(rep_out *o, const rep_grid *g, int diverging, int ascending, int x0, int y0,
                   int h)
{
    enum { STEPS = 32, BAR = 18 };
    if (g->best < 0) return;
    for (int k = 0; k < STEPS; k++) {
        /* k = 0 at the top: the largest value. */
        double v = g->vmax - (g->vmax - g->vmin) * (k + 0.5) / STEPS;
        char col[8];
        rep_color(scale_t(g, v, diverging, ascending), diverging, col);
        rep_printf(o, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>", x0,
                   y0 + (double)h * k / STEPS, BAR, (double)h / STEPS + 0.3, col);
    }
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#888\"/>\n",
               x0, y0, BAR, h);
    char a[64], b[64];
    rep_num(g->vmax, a, sizeof a);
    rep_num(g->vmin, b, sizeof b);
    rep_printf(o, "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">%s</text>", x0 + BAR + 5,
               y0 + 4, a);
    rep_printf(o, "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">%s</text>\n", x0 + BAR + 5,
               y0 + h - 4, b);
    if (diverging && g->vmax > g->vmin)
        rep_printf(o, "<text x=\"%d\" y=\"%.1f\" dominant-baseline=\"middle\">0</text>\n",
                   x0 + BAR + 5, y0 + h * g->vmax / (g->vmax - g->vmin));
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
    int32_t H = MT + ph + below + 10, W = ML + pw + 24 + LEGEND;
    if (H < MT + 170 + 10) H = MT + 170 + 10;
    int diverging = g->vmin < 0 && g->vmax > 0;
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heatmap\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-nx=\"%d\" data-ny=\"%d\">\n",
               W, H, W, H, g->nx, g->ny);
    int values = cw >= 46 && ch >= 16;
    for (int32_t j = 0; j < g->ny; j++) {
        for (int32_t i = 0; i < g->nx; i++) {
            const rep_cell *c = &g->cells[(size_t)j * (size_t)g->nx + (size_t)i];
            char col[8] = "#e0e0e0";
            if (!isnan(c->v)) rep_color(scale_t(g, c->v, diverging, go->ascending), diverging, col);
            int32_t x = ML + i * cw, y = MT + (g->ny - 1 - j) * ch;
            rep_printf(o,
                       "<rect class=\"cell\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                       "fill=\"%s\">",
                       x, y, cw, ch, col);
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
    for (int32_t i = 0; i < g->nx; i += step) {
        cell_label(ax, g->bx, i, 1, s, sizeof s);
        int32_t x = ML + i * cw + cw / 2, y = MT + ph + 14;
        if (turn)
            rep_printf(o,
                       "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-40 %d "
                       "%d)\">",
                       x, y, x, y);
        else
            rep_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x, y);
        rep_esc(o, s);
        rep_printf(o, "</text>\n");
    }
    rep_printf(o, "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", ML + pw / 2,
               MT + ph + below);
    rep_esc(o, ax->key);
    rep_printf(o, "</text>\n");
    if (ay) {
        step = clampi((15 * g->ny + ph - 1) / ph, 1, g->ny);
        for (int32_t j = 0; j < g->ny; j += step) {
            cell_label(ay, g->by, j, 1, s, sizeof s);
            rep_printf(o,
                       "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">",
                       ML - 6, MT + (g->ny - 1 - j) * ch + ch / 2);
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
    legend(o, g, diverging, go->ascending, ML + pw + 24, MT, ph > 160 ? ph : 160);
    rep_printf(o, "</svg>\n");
}
