/* mm_select_run (include/mmsim/select.h, docs/select.md): a results file's performance matrix
 * (periods = time blocks or tapes, trials = combinations of the other axes, the trials without a
 * fill set aside), then walk-forward selection, PBO, the deflated Sharpe ratio of the in-sample
 * best, in-sample and out-of-sample ranks and neighbourhood smoothing (select_stats.c). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "mmsim/select.h"

void mm_select_opts_defaults(mm_select_opts *o)
{
    memset(o, 0, sizeof *o);
    o->stat = MM_SELECT_PNL;
    o->by_tape = -1;
    o->min_train = 1;
}

void mm_select_free(mm_select_result *r)
{
    if (!r) return;
    free(r->trial);
    free(r->perf);
    free(r->period_end_ns);
    free(r->chosen);
    free(r->oos);
    free(r->logits);
    free(r->rank_is);
    free(r->rank_oos);
    free(r->value);
    free(r->smooth);
    free(r);
}

/* Mid-ranks (1 = worst .. n = best) of x[0 .. n) into rk. O(n^2) would do for a page of trials
 * but not for a million: sort an index instead. */
static const double *rank_x;
static int cmp_rank(const void *a, const void *b)
{
    double x = rank_x[*(const int64_t *)a], y = rank_x[*(const int64_t *)b];
    return (x > y) - (x < y);
}
static int mid_ranks(const double *x, int64_t n, double *rk)
{
    int64_t *ix = malloc((size_t)(n ? n : 1) * sizeof *ix);
    if (!ix) return -ENOMEM;
    for (int64_t i = 0; i < n; i++)
        ix[i] = i;
    rank_x = x; /* (qsort has no user pointer; callers are single-threaded per process) */
    qsort(ix, (size_t)n, sizeof *ix, cmp_rank);
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        while (j + 1 < n && x[ix[j + 1]] == x[ix[i]])
            j++;
        for (int64_t k = i; k <= j; k++)
            rk[ix[k]] = 1 + (double)(i + j) / 2;
        i = j + 1;
    }
    free(ix);
    return 0;
}

static int run(mm_results_reader *rd, const char *path, const mm_select_opts *o,
               mm_select_result *s, mm_error *err)
{
    const mm_results_info *in = mm_results_describe(rd);
    if (in->paths > 1)
        return mm__errf(
            err, MM_EUSAGE,
            "%s: a Monte Carlo table (%" PRId64
            " paths): select works on replays of one path (a sweep with mm_sweep_opts.blocks)",
            path, in->paths);
    int32_t nt = 1;
    if (in->n_axes > 0 && !strcmp(in->axes[0].key, "tape")) nt = in->axes[0].n;
    s->n_rows = in->n_rows;
    s->n_tapes = nt;
    s->n_all = in->n_rows / nt;
    s->stat = o->stat;
    int by_tape = o->by_tape < 0 ? in->n_blocks == 0 : o->by_tape;
    if (!by_tape && in->n_blocks == 0)
        return mm__errf(
            err, MM_EUSAGE,
            "%s: no time blocks (/blocks): sweep again with mm_sweep_opts.blocks = 16, or "
            "select over its tapes",
            path);
    if (by_tape && nt < 2)
        return mm__errf(err, MM_EUSAGE,
                        "%s: no time blocks and one tape: nothing to select out of sample on "
                        "(sweep again with mm_sweep_opts.blocks = 16)",
                        path);
    s->by_tape = by_tape;
    s->n_blocks = by_tape ? 0 : in->n_blocks;
    int64_t nb = by_tape ? 1 : in->n_blocks, na = s->n_all;
    s->T = (int64_t)nt * nb;
    /* One pass over the table (and /blocks) in blocks of rows: each trial's fills over every
     * tape, and each row's PnL per period. */
    int64_t *fills = calloc((size_t)na, sizeof *fills);
    double *all = malloc((size_t)s->T * (size_t)na * sizeof *all); /* [T][n_all] */
    const int64_t blk = 4096;
    mm_metrics *m = malloc((size_t)blk * sizeof *m);
    mm_results_block *b = by_tape ? NULL : malloc((size_t)blk * (size_t)nb * sizeof *b);
    int rc = fills && all && m && (by_tape || b) ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int64_t first = 0; rc == 0 && first < in->n_rows; first += blk) {
        int64_t k = in->n_rows - first < blk ? in->n_rows - first : blk;
        rc = mm_results_read(rd, first, k, NULL, m, err);
        if (rc == 0 && !by_tape) rc = mm_results_read_blocks(rd, first, k, b, err);
        for (int64_t i = 0; rc == 0 && i < k; i++) {
            int64_t id = first + i, t = id / na, n = id % na;
            fills[n] += m[i].fills_bid + m[i].fills_ask;
            if (by_tape) {
                all[(size_t)t * na + n] = m[i].pnl;
                continue;
            }
            double prev = 0;
            for (int64_t j = 0; j < nb; j++) {
                double v = b[(size_t)i * nb + j].pnl;
                all[(size_t)(t * nb + j) * na + n] = v - prev;
                prev = v;
            }
        }
    }
    free(m);
    free(b);
    int64_t N = 0;
    for (int64_t n = 0; rc == 0 && n < na; n++)
        N += fills[n] > 0;
    s->N = N;
    s->n_idle = na - N;
    if (rc == 0 && N < 2)
        rc = mm__errf(err, MM_EUSAGE,
                      "%s: %" PRId64 " of its %" PRId64
                      " trials fill at least once: select needs two or more",
                      path, N, na);
    if (rc == 0 && s->T < 2)
        rc = mm__errf(err, MM_EUSAGE, "%s: %" PRId64 " period: select needs two or more", path,
                      s->T);
    size_t T = (size_t)s->T, n_ = (size_t)(N ? N : 1);
    if (rc == 0) {
        s->trial = malloc(n_ * sizeof *s->trial);
        s->perf = malloc(T * n_ * sizeof *s->perf);
        s->period_end_ns = calloc(T, sizeof *s->period_end_ns);
        s->chosen = malloc(T * sizeof *s->chosen);
        s->oos = malloc(T * sizeof *s->oos);
        s->rank_is = malloc(n_ * sizeof *s->rank_is);
        s->rank_oos = malloc(n_ * sizeof *s->rank_oos);
        s->value = malloc((size_t)na * sizeof *s->value);
        s->smooth = malloc((size_t)na * sizeof *s->smooth);
        if (!s->trial || !s->perf || !s->period_end_ns || !s->chosen || !s->oos || !s->rank_is ||
            !s->rank_oos || !s->value || !s->smooth)
            rc = mm__errf(err, -ENOMEM, "out of memory");
    }
    if (rc == 0) {
        int64_t k = 0;
        for (int64_t n = 0; n < na; n++)
            if (fills[n] > 0) s->trial[k++] = n;
        for (size_t t = 0; t < T; t++)
            for (int64_t j = 0; j < N; j++)
                s->perf[t * (size_t)N + (size_t)j] = all[t * (size_t)na + (size_t)s->trial[j]];
        if (!by_tape) memcpy(s->period_end_ns, in->block_end_ns, T * sizeof *s->period_end_ns);
    }
    /* Walk-forward. */
    s->window = o->window;
    s->min_train = o->min_train < 1 ? 1 : o->min_train;
    if (rc == 0 && s->min_train >= s->T)
        rc = mm__errf(err, MM_EUSAGE,
                      "mm_select_opts.min_train: %" PRId64 " periods leave none of the %" PRId64
                      " to test on",
                      s->min_train, s->T);
    if (rc == 0)
        rc = mm_select_walk_forward(s->perf, s->T, N, s->window, s->min_train, o->stat, s->chosen,
                                    s->oos, err);
    double *full = rc == 0 ? malloc(n_ * sizeof *full) : NULL;
    if (rc == 0 && !full) rc = mm__errf(err, -ENOMEM, "out of memory");
    if (rc == 0) {
        s->is_best = 0;
        for (int64_t j = 0; j < N; j++) {
            full[j] = mm_select_stat_of(s->perf, N, j, 0, s->T, o->stat);
            if (full[j] > full[s->is_best]) s->is_best = j;
        }
        double *rk = malloc(n_ * sizeof *rk);
        if (!rk || mid_ranks(full, N, rk)) {
            free(rk);
            rc = mm__errf(err, -ENOMEM, "out of memory");
        } else {
            /* The lower median: the trial of rank floor((N + 1) / 2) (mid-ranks of ties: the
             * nearest below). */
            double want = (double)((N + 1) / 2), bestd = INFINITY;
            s->median = 0;
            for (int64_t j = 0; j < N; j++)
                if (rk[j] <= want && want - rk[j] < bestd) bestd = want - rk[j], s->median = j;
            free(rk);
        }
        s->oos_total = s->is_total = s->median_total = 0;
        for (int64_t t = s->min_train; t < s->T; t++) {
            s->oos_total += s->oos[t];
            s->is_total += s->perf[(size_t)t * N + s->is_best];
            s->median_total += s->perf[(size_t)t * N + s->median];
        }
        s->oos_distinct = 0;
        for (int64_t t = s->min_train; t < s->T; t++) {
            int seen = 0;
            for (int64_t u = s->min_train; u < t && !seen; u++)
                seen = s->chosen[u] == s->chosen[t];
            s->oos_distinct += !seen;
        }
    }
    /* PBO. */
    if (rc == 0) {
        int32_t S = o->splits;
        if (S == 0) {
            S = s->T < MM_SELECT_SPLITS_MAX ? (int32_t)s->T : MM_SELECT_SPLITS_MAX;
            S -= S % 2;
        }
        s->S = S;
        int64_t nl = mm_select_n_splits(S);
        if (nl == 0 || S > s->T)
            rc = mm__errf(err, MM_EUSAGE,
                          "mm_select_opts.splits: %" PRId32
                          " must be even, from 2 to %d and at most the %" PRId64 " periods",
                          S, MM_SELECT_SPLITS_MAX, s->T);
        else if (!(s->logits = malloc((size_t)nl * sizeof *s->logits)))
            rc = mm__errf(err, -ENOMEM, "out of memory");
        else
            rc = mm_select_pbo(s->perf, s->T, N, S, o->stat, s->logits, &s->n_logits, &s->pbo, err);
    }
    /* Ranks on the first and the second half of the periods. */
    if (rc == 0) {
        int64_t h = s->T / 2;
        for (int64_t j = 0; j < N; j++) {
            full[j] = mm_select_stat_of(s->perf, N, j, 0, h, o->stat);
        }
        if (mid_ranks(full, N, s->rank_is)) rc = mm__errf(err, -ENOMEM, "out of memory");
        for (int64_t j = 0; rc == 0 && j < N; j++)
            full[j] = mm_select_stat_of(s->perf, N, j, h, s->T, o->stat);
        if (rc == 0 && mid_ranks(full, N, s->rank_oos)) rc = mm__errf(err, -ENOMEM, "oom");
    }
    /* The deflated Sharpe ratio of the full-sample best. */
    if (rc == 0) {
        double sum = 0, sq = 0;
        int64_t c = 0;
        for (int64_t j = 0; j < N; j++) {
            double v = mm_select_stat_of(s->perf, N, j, 0, s->T, MM_SELECT_SHARPE);
            if (!isfinite(v)) continue;
            full[c++] = v;
            sum += v;
        }
        double mean = c ? sum / (double)c : 0;
        for (int64_t j = 0; j < c; j++)
            sq += (full[j] - mean) * (full[j] - mean);
        s->sr_var = c > 1 ? sq / (double)(c - 1) : 0;
        double *r = malloc(T * sizeof *r);
        if (!r) rc = mm__errf(err, -ENOMEM, "out of memory");
        for (size_t t = 0; rc == 0 && t < T; t++)
            r[t] = s->perf[t * (size_t)N + (size_t)s->is_best];
        if (rc == 0) rc = mm_select_dsr(r, s->T, s->sr_var, N, &s->dsr, err);
        free(r);
    }
    /* Neighbourhood: each trial's full-sample statistic over the grid of the other axes. */
    if (rc == 0) {
        int32_t a0 = in->n_axes > 0 && !strcmp(in->axes[0].key, "tape"), nd = in->n_axes - a0;
        int32_t *dims = malloc(((size_t)nd + 1) * sizeof *dims);
        unsigned char *ord = malloc((size_t)nd + 1);
        if (!dims || !ord) rc = mm__errf(err, -ENOMEM, "out of memory");
        for (int32_t d = 0; rc == 0 && d < nd; d++) {
            dims[d] = in->axes[a0 + d].n;
            ord[d] = in->axes[a0 + d].type != MM_COL_ENUM;
        }
        for (int64_t n = 0; rc == 0 && n < na; n++)
            s->value[n] = NAN;
        for (int64_t j = 0; rc == 0 && j < N; j++)
            s->value[s->trial[j]] = mm_select_stat_of(s->perf, N, j, 0, s->T, o->stat);
        /* A trial set aside is still part of the landscape its neighbours sit in: its value is
         * what it made (0), from the full matrix. */
        for (int64_t n = 0; rc == 0 && n < na; n++)
            if (fills[n] == 0) {
                double sm = 0;
                for (size_t t = 0; t < T; t++)
                    sm += all[t * (size_t)na + (size_t)n];
                s->value[n] = o->stat == MM_SELECT_PNL ? sm : 0;
            }
        if (rc == 0) mm_select_smooth(s->value, nd, dims, ord, s->smooth);
        s->raw_best = s->smooth_best = -1;
        for (int64_t j = 0; rc == 0 && j < N; j++) {
            int64_t n = s->trial[j];
            if (s->raw_best < 0 || s->value[n] > s->value[s->raw_best]) s->raw_best = n;
            if (s->smooth_best < 0 || s->smooth[n] > s->smooth[s->smooth_best]) s->smooth_best = n;
        }
        free(dims);
        free(ord);
    }
    free(full);
    free(fills);
    free(all);
    return rc;
}

int mm_select_run(const char *path, const mm_select_opts *o, mm_select_result **out, mm_error *err)
{
    if (!path || !out) return mm__errf(err, -EINVAL, "mm_select_run: NULL argument");
    *out = NULL;
    mm_select_opts def;
    if (!o) {
        mm_select_opts_defaults(&def);
        o = &def;
    }
    if (o->stat != MM_SELECT_PNL && o->stat != MM_SELECT_SHARPE)
        return mm__errf(err, MM_EUSAGE, "objective: %d is not pnl or sharpe", o->stat);
    if (o->window < 0 || o->min_train < 0 || o->splits < 0)
        return mm__errf(err, MM_EUSAGE, "window, min_train and splits must be >= 0");
    mm_results_reader *rd = NULL;
    int rc = mm_results_open(path, &rd, err);
    if (rc) return rc;
    mm_select_result *s = calloc(1, sizeof *s);
    if (!s)
        rc = mm__errf(err, -ENOMEM, "out of memory");
    else
        rc = run(rd, path, o, s, err);
    mm_results_close(rd);
    if (rc)
        mm_select_free(s);
    else
        *out = s;
    return rc;
}
