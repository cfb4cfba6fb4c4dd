#include "results_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t rf_mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

void rf_init(rf_table *t, int32_t reps)
{
    memset(t, 0, sizeof *t);
    const double sp[4] = {0.25, 0.5, 1, 2.5};
    const int64_t il[5] = {1, 2, 5, 10, 20};
    memcpy(t->spread, sp, sizeof sp);
    memcpy(t->inv_limit, il, sizeof il);
    t->queue[0] = "risk_averse";
    t->queue[1] = "power";
    t->queue[2] = "log";
    t->tape[0] = "day1.h5#AAA";
    t->tape[1] = "day \"2\",b.h5#BBB"; /* a comma and quotes: CSV must quote it */
    t->rep = malloc((size_t)reps * sizeof *t->rep);
    for (int32_t i = 0; i < reps; i++)
        t->rep[i] = 100 + 3 * i;
    t->axes[0] = (mm_results_axis){.key = "tape", .type = MM_COL_ENUM, .n = 2, .names = t->tape};
    t->axes[1] = (mm_results_axis){.key = "spread", .type = MM_COL_F64, .n = 4, .f64 = t->spread};
    t->axes[2] =
        (mm_results_axis){.key = "inv_limit", .type = MM_COL_I64, .n = 5, .i64 = t->inv_limit};
    t->axes[3] = (mm_results_axis){.key = "queue", .type = MM_COL_ENUM, .n = 3, .names = t->queue};
    t->axes[4] = (mm_results_axis){.key = "rep", .type = MM_COL_I64, .n = reps, .i64 = t->rep};
    t->n_rows = 120 * (int64_t)reps;
    t->markout_ns[0] = 1000000000;
    t->markout_ns[1] = 500000000;
    t->markout_ns[2] = 250000;
    t->input_paths[0] = "day1.h5";
    t->input_paths[1] = "day \"2\",b.h5";
    t->input_symbols[0] = "AAA";
    t->input_symbols[1] = "BBB";
    t->input_fps[0] = UINT64_C(0x0123456789abcdef);
    t->input_fps[1] = UINT64_C(0xfedcba9876543210);
}

void rf_free(rf_table *t)
{
    free(t->rep);
    t->rep = NULL;
}

void rf_row(const rf_table *t, int64_t id, int32_t *axis_idx, mm_metrics *m)
{
    int64_t rest = id;
    for (int a = RF_AXES - 1; a >= 0; a--) {
        axis_idx[a] = (int32_t)(rest % t->axes[a].n);
        rest /= t->axes[a].n;
    }
    uint64_t h = rf_mix((uint64_t)id), g = rf_mix(h), k = rf_mix(g);
    memset(m, 0, sizeof *m);
    m->pnl = id == 5 ? -0.0 : (double)((int64_t)(h % 61) - 30) * 0.5; /* many ties */
    m->fees = (double)(g % 1000) / 7.0;
    m->volume = (int64_t)(h % 5000);
    m->fills_bid = (int64_t)(g % 97);
    m->fills_ask = (int64_t)(k % 89);
    m->orders = (int64_t)(h % 100000);
    m->cancels = (int64_t)(g % 50000);
    m->rejects = (int64_t)(k % 7);
    m->final_q = (int64_t)(k % 41) - 20;
    m->max_abs_q = (int64_t)(h % 21);
    m->mean_abs_q = (double)(k >> 11) * 0x1p-53 * 20;
    m->sharpe = id == 7 ? NAN : (double)((int64_t)(g % 2001) - 1000) / 300.0;
    m->max_drawdown = (double)(h >> 11) * 0x1p-53 * 1e4;
    m->markout[0] = ((double)(g >> 11) * 0x1p-53 - 0.5) * 1e3;
    m->markout[1] = ((double)(k >> 11) * 0x1p-53 - 0.5) * 1e-3;
    m->markout[2] = -(double)(h >> 11) * 0x1p-40;
    m->pnl_close = (double)((int64_t)(k % 61) - 30) * 0.25;
    m->held = k % 13;
    m->orders_per_s = (double)(h % 1000) / 8.0;
    m->cancels_per_s = (double)(g % 1000) / 16.0;
    m->rejects_per_s = (double)(k % 1000) / 32.0;
    m->pnl_spread = (double)((int64_t)(h % 43) - 21) * 0.125;
    m->pnl_inventory = (double)((int64_t)(g % 47) - 23) * 0.0625;
}

void rf_meta(const rf_table *t, const char *objective, mm_results_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    meta->config_text = "[grid]\nspread = 0.25,0.5,1,2.5\ninv_limit = 1,2,5,10,20\n";
    meta->seed = UINT64_C(18446744073709551557); /* above 2^63: stored unsigned */
    meta->engine = "serial";
    meta->workers = 3;
    meta->wall_s = 1.5;
    meta->combos_per_s = (double)t->n_rows / 1.5;
    meta->updates_per_s = 4.25e8;
    meta->n_inputs = 2;
    meta->input_paths = t->input_paths;
    meta->input_symbols = t->input_symbols;
    meta->input_fingerprints = t->input_fps;
    memcpy(meta->markout_ns, t->markout_ns, sizeof meta->markout_ns);
    meta->objective = objective;
}

int rf_write(const char *path, const rf_table *t, int64_t chunk, uint64_t shuffle_seed,
             const char *objective, mm_error *err)
{
    mm_results_writer *w;
    int rc = mm_results_create(path, t->axes, RF_AXES, t->n_rows, t->markout_ns, &w, err);
    if (rc) return rc;
    int64_t n_chunks = (t->n_rows + chunk - 1) / chunk;
    int64_t *order = malloc((size_t)(n_chunks > 0 ? n_chunks : 1) * sizeof *order);
    int32_t *idx = malloc((size_t)chunk * RF_AXES * sizeof *idx);
    mm_metrics *m = malloc((size_t)chunk * sizeof *m);
    for (int64_t i = 0; i < n_chunks; i++)
        order[i] = i;
    for (int64_t i = n_chunks - 1; shuffle_seed && i > 0; i--) {
        int64_t j = (int64_t)(rf_mix(shuffle_seed + (uint64_t)i) % (uint64_t)(i + 1));
        int64_t x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (int64_t c = 0; c < n_chunks && rc == 0; c++) {
        int64_t first = order[c] * chunk, n = t->n_rows - first < chunk ? t->n_rows - first : chunk;
        for (int64_t i = 0; i < n; i++)
            rf_row(t, first + i, idx + i * RF_AXES, &m[i]);
        rc = mm_results_write(w, first, n, idx, m, err);
    }
    free(order);
    free(idx);
    free(m);
    if (rc) {
        mm_results_abort(w);
        return rc;
    }
    mm_results_meta meta;
    rf_meta(t, objective, &meta);
    return mm_results_commit(w, &meta, err);
}
