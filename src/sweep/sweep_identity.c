/* The identity of a sweep (for --resume): everything that changes the results table's content, as
 * text. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "mm_engine.h"
#include "mm_grid_int.h"
#include "mm_sbuf.h"

/* ---- identity of a run (for --resume) ---- */

/* Everything that changes the table's content, one "name<TAB>value" line each, in an order where an
 * earlier difference explains the later ones (the tapes, then which axes, then each axis, then the
 * fixed parameters and the settings). The journal stores this text; its XXH3 is the run id. An axis
 * is described by its first values and count; a separate line holds the hash of all its values. */
char *mm__run_identity(const mm__run *r)
{
    const mm_grid *g = r->g;
    mm__sbuf b = {0};
    mm__sb_printf(&b, "tapes\t%d\n", (int)r->n_tapes);
    for (int32_t t = 0; t < r->n_tapes; t++)
        mm__sb_printf(&b, "tape %d\t%s (fingerprint %016" PRIx64 ", year %.17g s)\n", (int)t,
                      g->axes[0].text[t], r->ticks[t].inst.fingerprint,
                      mm_sim_year_s(&r->o->sim, &r->ticks[t].inst));
    mm__sb_printf(&b, "axes\t");
    for (int32_t m = 1; m < g->n_axes; m++)
        mm__sb_printf(&b, "%s%s", m > 1 ? "," : "", g->axes[m].key);
    mm__sb_printf(&b, "\n");
    for (int32_t m = 1; m < g->n_axes; m++) {
        const mm__grid_axis *a = &g->axes[m];
        mm__sb_printf(&b, "axis %s\t", a->key);
        for (int32_t i = 0; i < a->n && i < 6; i++)
            mm__sb_printf(&b, "%s%s", i ? "," : "", a->text[i]);
        if (a->n > 6) mm__sb_printf(&b, ",...,%s (%d values)", a->text[a->n - 1], (int)a->n);
        uint64_t h = 0;
        for (int32_t i = 0; i < a->n; i++)
            h = XXH3_64bits_withSeed(a->text[i], strlen(a->text[i]) + 1, h);
        mm__sb_printf(&b, "\naxis-values %s\t%016" PRIx64 "\n", a->key, h);
    }
    for (int k = 0; k < mm_params_key_count(); k++) {
        const char *key = mm_params_key_name(k, NULL);
        int on_axis = 0;
        for (int32_t m = 1; m < g->n_axes; m++)
            on_axis |= !strcmp(g->axes[m].key, key);
        if (on_axis) continue;
        char buf[64] = "";
        mm_params_get(&g->base, key, buf, sizeof buf);
        mm__sb_printf(&b, "set %s\t%s\n", key, buf);
    }
    mm__sb_printf(&b, "seed\t%" PRIu64 "\n", r->o->seed);
    mm__sb_printf(&b, "objective\t%s\n", r->o->objective ? r->o->objective : "pnl");
    mm__sb_printf(&b, "sample_ns\t%" PRId64 "\n", r->o->sim.sample_ns);
    mm__sb_printf(&b, "year_seconds\t%.17g\n", r->o->sim.year_s);
    mm__sb_printf(&b, "markout_ns\t%" PRId64 ",%" PRId64 ",%" PRId64 "\n", r->o->sim.markout_ns[0],
                  r->o->sim.markout_ns[1], r->o->sim.markout_ns[2]);
    const mm_latency_samples *sm = r->o->sim.latency_samples;
    if (sm && sm->n > 0) { /* (only when given: a run without them keeps its identity) */
        uint64_t h = XXH3_64bits(sm->entry_ns, (size_t)sm->n * sizeof(int64_t));
        h = XXH3_64bits_withSeed(sm->response_ns, (size_t)sm->n * sizeof(int64_t), h);
        mm__sb_printf(&b, "latency_samples\t%" PRId64 " pairs, xxh3 %016" PRIx64 "\n", sm->n, h);
    }
    const mm_latency_series *ls = r->o->sim.latency;
    if (ls && ls->n > 0) { /* (a run without a series keeps the identity it always had) */
        uint64_t h = XXH3_64bits(ls->ts_ns, (size_t)ls->n * sizeof(int64_t));
        h = XXH3_64bits_withSeed(ls->entry_ns, (size_t)ls->n * sizeof(int64_t), h);
        h = XXH3_64bits_withSeed(ls->response_ns, (size_t)ls->n * sizeof(int64_t), h);
        mm__sb_printf(&b, "latency_series\t%" PRId64 " points, xxh3 %016" PRIx64 "\n", ls->n, h);
    }
    if (r->n_blocks > 0) { /* (a run without blocks keeps the identity it always had) */
        size_t ne = (size_t)r->n_tapes * (size_t)r->n_blocks * sizeof(int64_t);
        mm__sb_printf(&b, "blocks\t%" PRId32 ", block_ns %" PRId64 ", ends xxh3 %016" PRIx64 "\n",
                      r->n_blocks, r->o->block_ns, XXH3_64bits(r->block_end_ns, ne));
    }
    if (r->paths > 1) /* (one path keeps the identity it always had) */
        mm__sb_printf(&b, "paths\t%" PRId64 "%s\n", r->paths, r->keep_paths ? ", kept" : "");
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
