/* The report's selection section (docs/report.md, "Selection"; docs/select.md): the numbers of
 * `mmsim select` (mm_select_run) on the results file, drawn: the out-of-sample curve of the
 * walk-forward beside the in-sample best and the median trial, every kept trial's rank on the first
 * half of the periods against its rank on the second, and the histogram of the CSCV logits. Only
 * for a file with time blocks; a page without them is what it was before. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

enum { W = 640, H = 300, ML = 70, MR = 20, MT = 20, MB = 40, LOGIT_BINS = 20 };

static double px(double v, double lo, double hi, double a, double b)
{
    return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : (a + b) / 2;
}

static void axes_frame(rep_out *o, const char *xl, const char *yl, double ylo, double yhi)
{
    char a[32], b[32];
    rep_num(ylo, a, sizeof a);
    rep_num(yhi, b, sizeof b);
    rep_printf(o,
               "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#888\"/>\n<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
               "font-size=\"12\">%s</text>\n<text x=\"14\" y=\"%d\" font-size=\"12\" "
               "transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">%s</text>\n"
               "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n"
               "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
               ML, MT, W - ML - MR, H - MT - MB, ML + (W - ML - MR) / 2, H - 8, xl,
               MT + (H - MT - MB) / 2, MT + (H - MT - MB) / 2, yl, ML - 4, H - MB, a, ML - 4,
               MT + 10, b);
}

/* The cumulative PnL of one series over periods [t0, T) as an SVG path. */
static void curve(rep_out *o, const mm_select_result *s, int which, double lo, double hi,
                  const char *cls, const char *colour)
{
    double c = 0;
    rep_printf(o, "<path class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", cls,
               colour);
    for (int64_t t = s->min_train - 1; t < s->T; t++) {
        if (t >= s->min_train)
            c += which == 0   ? s->oos[t]
                 : which == 1 ? s->perf[(size_t)t * s->N + s->is_best]
                              : s->perf[(size_t)t * s->N + s->median];
        rep_printf(o, "%s%.2f %.2f", t == s->min_train - 1 ? "M" : " L",
                   px((double)t, (double)s->min_train - 1, (double)s->T - 1, ML, W - MR),
                   px(c, lo, hi, H - MB, MT));
    }
    rep_printf(o, "\"/>\n");
}

void rep_select_section(rep_out *o, const mm_results_info *in, const mm_select_result *s,
                        const char *why_not)
{
    rep_printf(o, "<h2 id=\"selection\">Selection: the best row out of sample</h2>\n");
    if (!s) {
        rep_printf(o, "<p class=\"note\">");
        rep_esc(o, why_not ? why_not : "no selection");
        rep_printf(o, "</p>\n");
        return;
    }
    char t1[512], t2[512], a[64], b[64], c[64];
    cli_select_trial_text(in, s->trial[s->is_best], t1, sizeof t1);
    cli_select_trial_text(in, s->trial[s->smooth_best], t2, sizeof t2);
    rep_printf(o,
               "<p class=\"note\">As <code>mmsim select</code> (docs/select.md): %" PRId64
               " periods (%s) x %" PRId64 " trials, objective %s; %" PRId64 " of the %" PRId64
               " trials never fill and are set aside.</p>\n",
               s->T, s->by_tape ? "the tapes" : "time blocks, tape after tape", s->N,
               s->stat == MM_SELECT_PNL ? "pnl" : "sharpe", s->n_idle, s->n_all);
    rep_printf(o,
               "<table class=\"sel\" id=\"select-stats\" data-pbo=\"%.17g\" data-dsr=\"%.17g\" "
               "data-splits=\"%" PRId64 "\" data-trials=\"%" PRId64 "\" data-periods=\"%" PRId64
               "\" data-idle=\"%" PRId64 "\">\n",
               s->pbo, s->dsr.dsr, s->n_logits, s->N, s->T, s->n_idle);
    rep_printf(o, "<tr><th>walk-forward (%s window), out of sample</th><td>%s</td></tr>\n",
               s->window ? "rolling" : "expanding", (rep_num(s->oos_total, a, sizeof a), a));
    rep_printf(o, "<tr><th>in-sample best, trial %" PRId64 " (", s->trial[s->is_best]);
    rep_esc(o, t1);
    rep_printf(o, "), same periods</th><td>%s</td></tr>\n", (rep_num(s->is_total, b, sizeof b), b));
    rep_printf(o, "<tr><th>median trial, same periods</th><td>%s</td></tr>\n",
               (rep_num(s->median_total, c, sizeof c), c));
    rep_printf(
        o, "<tr><th>PBO (CSCV, %" PRId32 " groups, %" PRId64 " splits)</th><td>%.4f</td></tr>\n",
        s->S, s->n_logits, s->pbo);
    rep_printf(o,
               "<tr><th>deflated Sharpe ratio of the in-sample best (sharpe %.4g per period, "
               "sr0 %.4g, %" PRId64 " trials)</th><td>%.4f (%s)</td></tr>\n",
               s->dsr.sr, s->dsr.sr0, s->dsr.n_trials, s->dsr.dsr,
               isnan(s->dsr.dsr)    ? "undefined"
               : s->dsr.dsr >= 0.95 ? "significant at 95%"
                                    : "not significant at 95%");
    rep_printf(o, "<tr><th>best after smoothing over grid neighbours: trial %" PRId64 " (",
               s->smooth_best);
    rep_esc(o, t2);
    rep_printf(o, ")</th><td>%s</td></tr>\n</table>\n",
               (rep_num(s->smooth[s->smooth_best], a, sizeof a), a));

    /* 1. The out-of-sample curve. */
    double lo = 0, hi = 0, cs[3] = {0, 0, 0};
    for (int64_t t = s->min_train; t < s->T; t++) {
        cs[0] += s->oos[t];
        cs[1] += s->perf[(size_t)t * s->N + s->is_best];
        cs[2] += s->perf[(size_t)t * s->N + s->median];
        for (int k = 0; k < 3; k++) {
            if (cs[k] < lo) lo = cs[k];
            if (cs[k] > hi) hi = cs[k];
        }
    }
    rep_printf(o,
               "<p class=\"note\">Cumulative PnL from period %" PRId64
               " on: the walk-forward rule (blue: each period traded with the trial that was "
               "best before it), the trial best over all periods (orange: in sample, so "
               "optimistic), the median trial (grey).</p>\n",
               s->min_train);
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"wf\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" data-oos-total=\"%.17g\">\n",
               W, H, W, H, s->oos_total);
    axes_frame(o, "period", "cumulative pnl", lo, hi);
    rep_printf(o, "<line x1=\"%d\" x2=\"%d\" y1=\"%.2f\" y2=\"%.2f\" stroke=\"#ccc\"/>\n", ML,
               W - MR, px(0, lo, hi, H - MB, MT), px(0, lo, hi, H - MB, MT));
    curve(o, s, 2, lo, hi, "median", "#999");
    curve(o, s, 1, lo, hi, "isbest", "#e08214");
    curve(o, s, 0, lo, hi, "oos", "#2166ac");
    rep_printf(o, "</svg>\n");

    /* 2. Ranks in sample (first half) against out of sample (second half). */
    rep_printf(o, "<p class=\"note\">Each kept trial's rank on the first half of the periods "
                  "(across) against its rank on the second (up), 1 = worst: on the diagonal, a "
                  "ranking that persists; a cloud, one that does not.</p>\n");
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ranks\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-points=\"%" PRId64 "\">\n",
               W, H, W, H, s->N);
    axes_frame(o, "rank in sample (first half)", "rank out of sample", 1, (double)s->N);
    for (int64_t j = 0; j < s->N; j++) {
        char tt[512];
        cli_select_trial_text(in, s->trial[j], tt, sizeof tt);
        rep_printf(o,
                   "<circle class=\"rk\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"#2166ac\" "
                   "fill-opacity=\"0.6\" data-is=\"%.17g\" data-oos=\"%.17g\"><title>trial %" PRId64
                   ": ",
                   px(s->rank_is[j], 1, (double)s->N, ML, W - MR),
                   px(s->rank_oos[j], 1, (double)s->N, H - MB, MT), s->rank_is[j], s->rank_oos[j],
                   s->trial[j]);
        rep_esc(o, tt);
        rep_printf(o, "; ranks %g, %g</title></circle>\n", s->rank_is[j], s->rank_oos[j]);
    }
    rep_printf(o, "</svg>\n");

    /* 3. The logits of the CSCV splits. */
    double l0 = INFINITY, l1 = -INFINITY;
    for (int64_t k = 0; k < s->n_logits; k++) {
        if (s->logits[k] < l0) l0 = s->logits[k];
        if (s->logits[k] > l1) l1 = s->logits[k];
    }
    if (!(l1 > l0)) l0 -= 0.5, l1 += 0.5;
    int64_t bins[LOGIT_BINS] = {0}, top = 1;
    for (int64_t k = 0; k < s->n_logits; k++) {
        int i = (int)((s->logits[k] - l0) / (l1 - l0) * LOGIT_BINS);
        if (i >= LOGIT_BINS) i = LOGIT_BINS - 1;
        bins[i]++;
    }
    for (int i = 0; i < LOGIT_BINS; i++)
        if (bins[i] > top) top = bins[i];
    rep_printf(o,
               "<p class=\"note\">The logit of the in-sample best's rank out of sample, one per "
               "split of the periods into halves (%" PRId64
               " splits); red: at or below 0, where it did no better than the median. PBO is "
               "their share: %.4f.</p>\n",
               s->n_logits, s->pbo);
    rep_printf(o,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"logits\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-splits=\"%" PRId64 "\">\n",
               W, H, W, H, s->n_logits);
    axes_frame(o, "logit", "splits", 0, (double)top);
    double bw = (double)(W - ML - MR) / LOGIT_BINS;
    for (int i = 0; i < LOGIT_BINS; i++) {
        double e0 = l0 + (l1 - l0) * i / LOGIT_BINS, e1 = l0 + (l1 - l0) * (i + 1) / LOGIT_BINS;
        double y = px((double)bins[i], 0, (double)top, H - MB, MT);
        rep_printf(o,
                   "<rect class=\"lg\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                   "fill=\"%s\" data-n=\"%" PRId64 "\"><title>logit %.3g to %.3g: %" PRId64
                   " splits</title></rect>\n",
                   ML + bw * i, y, bw - 1, (double)(H - MB) - y, e1 <= 0 ? "#d6604d" : "#4393c3",
                   bins[i], e0, e1, bins[i]);
    }
    rep_printf(o, "</svg>\n");
}

void rep_top_notes(rep_out *o, const mm_results_info *in, int64_t set_aside)
{
    if (set_aside > 0)
        rep_printf(o,
                   "<p class=\"note\" id=\"set-aside\" data-n=\"%" PRId64 "\">Set aside: %" PRId64
                   " row%s with no fill (fills_bid + fills_ask = 0). A "
                   "row that never trades is no strategy, and its pnl of 0 would rank above every "
                   "row that takes risk.</p>\n",
                   set_aside, set_aside, set_aside == 1 ? "" : "s");
    for (int32_t i = 0; in->paths == 1 && i < in->meta.n_inputs; i++) {
        int64_t ns;
        double sp;
        int f = cli_sharpe_flags(in, i, &ns, &sp);
        if (f <= 0) continue;
        rep_printf(o, "<p class=\"note warn\" data-sharpe-flag=\"%s\">Warning: sharpe on ",
                   cli_sharpe_flag_text(f));
        rep_esc(o, in->meta.input_paths[i]);
        rep_printf(o, "#");
        rep_esc(o, in->meta.input_symbols[i] ? in->meta.input_symbols[i] : "");
        rep_printf(o,
                   " is annualised from %" PRId64 " samples over %.6g s (%s): read it as a rough "
                   "number.</p>\n",
                   ns, sp,
                   f == 3   ? "shorter than one trading session of 6.5 h, fewer than 100 samples"
                   : f == 1 ? "shorter than one trading session of 6.5 h"
                            : "fewer than 100 samples");
    }
}

int rep_select_build(const char *path, const char *metric, mm_select_result **out, char *why,
                     size_t cap, mm_error *err)
{
    /* The selection section: a file it cannot judge (fewer than two trials that fill, ...) is said
     * on the page, not an error of the report. */
    mm_select_opts so;
    mm_select_opts_defaults(&so);
    so.stat = !strcmp(metric, "sharpe") ? MM_SELECT_SHARPE : MM_SELECT_PNL;
    mm_error se = {0};
    *out = NULL;
    if (mm_select_run(path, &so, out, &se) == 0) return 0;
    if (se.code != MM_EUSAGE) {
        *err = se;
        return se.code;
    }
    snprintf(why, cap, "No selection: %s", se.msg);
    return 0;
}
