/* The results table of a sweep, built from its journal (every record verified again) and committed
 * with its provenance (docs/results.md). Called by mm_sweep_run (sweep_run.c) once every chunk is
 * journaled. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_engine.h"
#include "mm_grid_int.h"
#include "mmsim/results.h"
#include "results_int.h"

/* ---- results from the journal ---- */

typedef struct build_ctx {
    const mm__run *r;
    mm_results_writer *w;
    int32_t *idx;
    int64_t idx_cap;
    mm_error *err;
    double *sum;       /* Monte Carlo: the record's summaries, [cap][MM_RESULTS_SUMMARY_METRICS] */
    mm_metrics *paths; /* and its kept paths, [cap][paths] */
    uint32_t cap;
} build_ctx;

static int build_cb(int64_t first, uint32_t count, const unsigned char *rec, void *user)
{
    build_ctx *b = user;
    const mm__run *r = b->r;
    const mm_grid *g = r->g;
    int32_t na = g->n_axes;
    if (mm__run_cancelled(r)) return mm__errf(b->err, MM_EINTERRUPTED, "interrupted");
    if ((int64_t)count * na > b->idx_cap) {
        free(b->idx);
        b->idx_cap = (int64_t)count * na;
        b->idx = malloc((size_t)b->idx_cap * sizeof *b->idx);
        if (!b->idx) {
            b->idx_cap = 0;
            return mm__errf(b->err, -ENOMEM, "out of memory");
        }
    }
    mm_params p;
    for (uint32_t k = 0; k < count; k++)
        mm_grid_combo(g, first + k, &p, b->idx + (size_t)k * na);
    if (r->paths == 1 && r->n_blocks == 0)
        return mm_results_write(b->w, first, count, b->idx, (const mm_metrics *)rec, b->err);
    if (r->paths == 1) { /* a record holds the metrics then the blocks (mm_blocks.h) */
        size_t nb = (size_t)r->n_blocks;
        mm_metrics *m = malloc(count * sizeof *m);
        mm_results_block *bl = malloc(count * nb * sizeof *bl);
        int rc = m && bl ? 0 : mm__errf(b->err, -ENOMEM, "out of memory");
        for (uint32_t k = 0; rc == 0 && k < count; k++) {
            memcpy(&m[k], rec + k * r->rec_bytes, sizeof *m);
            memcpy(&bl[k * nb], rec + k * r->rec_bytes + sizeof *m, nb * sizeof *bl);
        }
        if (rc == 0) rc = mm_results_write(b->w, first, count, b->idx, m, b->err);
        if (rc == 0) rc = mm_results_write_blocks(b->w, first, count, bl, b->err);
        free(bl);
        free(m);
        return rc;
    }
    /* A record holds, per combination, its summary then (kept) its paths: split them. */
    const size_t sb = MM_RESULTS_SUMMARY_METRICS * sizeof(double), pb = r->rec_bytes - sb;
    if (count > b->cap) {
        free(b->sum);
        free(b->paths);
        b->cap = count;
        b->sum = malloc(count * sb);
        b->paths = pb ? malloc(count * pb) : NULL;
        if (!b->sum || (pb && !b->paths)) {
            b->cap = 0;
            return mm__errf(b->err, -ENOMEM, "out of memory");
        }
    }
    for (uint32_t k = 0; k < count; k++) {
        memcpy((unsigned char *)b->sum + k * sb, rec + k * r->rec_bytes, sb);
        if (pb) memcpy((unsigned char *)b->paths + k * pb, rec + k * r->rec_bytes + sb, pb);
    }
    return mm_results_write_mc(b->w, first, count, b->idx, b->sum, b->paths, b->err);
}

/* Commit the table with its provenance (paths without the "#symbol" of the tape axis). */
static int commit_results(mm__run *r, mm_results_writer *w, mm_sweep_report *rep, mm_error *err)
{
    const mm_grid *g = r->g;
    int32_t nt = r->n_tapes;
    const char **paths = calloc((size_t)nt, sizeof *paths),
               **syms = calloc((size_t)nt, sizeof *syms);
    uint64_t *fps = calloc((size_t)nt, sizeof *fps);
    int64_t *spans = calloc((size_t)nt, sizeof *spans);
    char **pathbuf = calloc((size_t)nt, sizeof *pathbuf);
    int rc = paths && syms && fps && spans && pathbuf ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int32_t t = 0; t < nt && rc == 0; t++) {
        if (!(pathbuf[t] = strdup(g->axes[0].text[t]))) {
            rc = mm__errf(err, -ENOMEM, "out of memory");
            break;
        }
        char *hash = strrchr(pathbuf[t], '#');
        if (hash) *hash = 0;
        paths[t] = pathbuf[t];
        syms[t] = r->ticks[t].inst.symbol;
        fps[t] = r->ticks[t].inst.fingerprint;
        spans[t] = r->tapes[t].t_end - r->tapes[t].t0;
    }
    if (rc) {
        mm_results_abort(w);
    } else {
        mm_results_meta meta = {0};
        meta.config_text = r->o->config_text ? r->o->config_text : "";
        meta.seed = r->o->seed;
        meta.engine = mm_sweep_engine_name(r->o->engine);
        meta.workers = rep->workers;
        meta.stalls = r->stalls;
        meta.wall_s = rep->wall_s;
        meta.combos_per_s = rep->combos_per_s;
        meta.updates_per_s = rep->updates_per_s;
        meta.n_inputs = nt;
        meta.input_paths = paths;
        meta.input_symbols = syms;
        meta.input_fingerprints = fps;
        meta.input_span_ns = spans;
        memcpy(meta.markout_ns, r->o->sim.markout_ns, sizeof meta.markout_ns);
        meta.objective = r->o->objective ? r->o->objective : "pnl";
        meta.n_side = r->o->n_side;
        meta.side_roles = r->o->side_roles;
        meta.side_paths = r->o->side_paths;
        meta.side_xxh3 = r->o->side_xxh3;
        rc = mm__results_commit_hash(w, &meta, &rep->content_hash, err);
    }
    for (int32_t t = 0; t < nt && pathbuf; t++)
        free(pathbuf[t]);
    free(pathbuf);
    free(paths);
    free(syms);
    free(fps);
    free(spans);
    return rc;
}

/* Build the table from the journal (every record verified again) and commit it. */
int mm__run_write_results(mm__run *r, const char *out, const char *jpath, mm_sweep_report *rep,
                          mm_error *err)
{
    const mm_grid *g = r->g;
    mm_results_axis *ax = calloc((size_t)g->n_axes, sizeof *ax);
    int64_t **i64s = calloc((size_t)g->n_axes, sizeof *i64s);
    int rc = ax && i64s ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int32_t m = 0; m < g->n_axes && rc == 0; m++) {
        const mm__grid_axis *a = &g->axes[m];
        ax[m] = (mm_results_axis){0};
        ax[m].key = a->key;
        ax[m].n = a->n;
        if (a->kind == MM_KEY_ENUM) {
            ax[m].type = MM_COL_ENUM;
            ax[m].names = (const char *const *)a->text;
        } else if (a->kind == MM_KEY_INT) {
            ax[m].type = MM_COL_I64;
            if (!(i64s[m] = malloc((size_t)a->n * sizeof(int64_t)))) {
                rc = mm__errf(err, -ENOMEM, "out of memory");
                break;
            }
            for (int32_t i = 0; i < a->n; i++)
                i64s[m][i] = strtoll(a->text[i], NULL, 10);
            ax[m].i64 = i64s[m];
        } else {
            ax[m].type = MM_COL_F64;
            ax[m].f64 = a->num;
        }
    }
    mm_results_writer *w = NULL;
    if (rc == 0)
        rc =
            r->paths > 1
                ? mm_results_create_mc(out, ax, g->n_axes, g->n_combos, r->o->sim.markout_ns,
                                       r->paths, r->keep_paths, &w, err)
                : mm_results_create(out, ax, g->n_axes, g->n_combos, r->o->sim.markout_ns, &w, err);
    if (rc == 0 && r->n_blocks > 0 &&
        (rc = mm_results_add_blocks(w, r->n_blocks, r->o->block_ns, r->n_tapes, r->block_end_ns,
                                    err)) != 0)
        mm_results_abort(w);
    if (rc == 0) {
        build_ctx b = {r, w, NULL, 0, err, NULL, NULL, 0};
        rc = mm__journal_scan(&r->j, jpath, build_cb, &b, err);
        free(b.idx);
        free(b.sum);
        free(b.paths);
        if (rc)
            mm_results_abort(w);
        else
            rc = commit_results(r, w, rep, err);
    }
    for (int32_t m = 0; m < g->n_axes && i64s; m++)
        free(i64s[m]);
    free(i64s);
    free(ax);
    return rc;
}
