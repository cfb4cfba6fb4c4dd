/* Synthetic markets in a sweep (docs/montecarlo.md, section 10): each path of a synthetic tape is a
 * fresh `mmsim gen` day, seeded from (master seed, tape, path), with the combination's stress_vol
 * and stress_liquidity applied; every combination of a path runs on the same day (common random
 * numbers), so differences between rows are the parameters', not the markets'. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_engine.h"
#include "mm_grid_int.h"
#include "mm_rng.h"
#include "mmsim/results.h"

/* The generator's parameters of path `path` of synthetic tape `tape` under the stresses
 * (docs/model.md 3.4) into *out: 0, or MM_EUSAGE when a move of J x stress_vol ticks would pass
 * 1000 ticks (the generator's largest move). */
static int day_params(const mm_gen_params *market, uint64_t seed, int32_t tape, int32_t path,
                      double stress_vol, double stress_liquidity, mm_gen_params *out, mm_error *err)
{
    mm_gen_params g = *market;
    uint64_t key = mm_stream_key(seed, tape, path);
    mm_u32x4 w = mm_stream4(key, MM_RNG_DAY, 0, 0);
    g.seed = (uint64_t)w.v[0] | (uint64_t)w.v[1] << 32;
    if (stress_vol != 1) {
        int32_t j = market->move_ticks ? market->move_ticks : 1;
        double js = (double)j * stress_vol; /* the stressed move, ticks */
        if (!(js <= 1000))
            return mm__errf(err, MM_EUSAGE,
                            "stress_vol: %g x move_ticks %d is a move of %g ticks, more than 1000",
                            stress_vol, (int)j, js);
        if (js >= 1 && js == floor(js)) {
            /* Whole: every move, random or informed, is J' = J x stress_vol ticks instead of J,
             * and vol scales by J' / J, so the move probability vol^2 / (rate J^2) is unchanged:
             * the fair price's variance over any horizon is stress_vol^2 times the market's. */
            g.move_ticks = (int32_t)js;
            g.vol_ticks = market->vol_ticks * (double)g.move_ticks / (double)j;
        } else {
            /* Fractional (or below 1 tick, or 0): moves of J' = ceil(J x stress_vol) ticks (at
             * least 1), made rarer so that each kind's variance per second is stress_vol^2 times
             * the market's. Random moves: vol' = vol x stress_vol, so rate x p_move' x J'^2 =
             * vol'^2. Informed moves: their variance per second is lam J^2 (inf + g inf^2), g = 2
             * b / (1 - b) (b = trade_persist: a run's informed moves go the same way;
             * docs/synthetic.md step 2b), so inf' solves J'^2 (inf' + g inf'^2) = stress_vol^2
             * J^2 (inf + g inf^2): inf' = 2 C / (1 + sqrt(1 + 4 g C)), C = (J stress_vol /
             * J')^2 (inf + g inf^2). J' >= J stress_vol keeps both probabilities at most the
             * market's. */
            double jp = ceil(js) < 1 ? 1 : ceil(js);
            double y = js / jp, b = market->trade_persist, inf = market->informed;
            double gg = 2 * b / (1 - b), cc = y * y * (inf + gg * inf * inf);
            g.move_ticks = (int32_t)jp;
            g.vol_ticks = market->vol_ticks * stress_vol;
            g.informed = 2 * cc / (1 + sqrt(1 + 4 * gg * cc));
        }
    }
    double q = floor((double)market->mean_queue / stress_liquidity + 0.5);
    g.mean_queue = q < 1 ? 1 : q > 1000000 ? 1000000 : (int32_t)q;
    *out = g;
    return 0;
}

int mm_sweep_synthetic_day(const mm_gen_params *market, uint64_t seed, int32_t tape, int32_t path,
                           double stress_vol, double stress_liquidity, mm_ticks *out, mm_error *err)
{
    if (!market || !out || tape < 0 || path < 0)
        return mm__errf(err, -EINVAL, "mm_sweep_synthetic_day: bad argument");
    mm_gen_params g;
    int rc = day_params(market, seed, tape, path, stress_vol, stress_liquidity, &g, err);
    if (rc == 0) rc = mm_gen_ticks(&g, out, err);
    if (rc == 0) out->inst.fingerprint = mm_ticks_fingerprint(out);
    return rc;
}

/* The distinct (stress_vol, stress_liquidity) pairs of the grid (base and axis values): 0 or
 * -ENOMEM. */
static int check_pair(const mm_gen_params *market, int32_t tape, double sv, double sl,
                      mm_error *err)
{
    mm_gen_params g;
    mm_error e = {0};
    mm_ticks t = {0};
    int rc = day_params(market, 1, tape, 0, sv, sl, &g, &e);
    g.events = 0; /* the parameters are checked before any event is drawn */
    if (rc == 0) rc = mm_gen_ticks(&g, &t, &e);
    mm_ticks_free(&t);
    if (rc)
        return mm__errf(err, MM_EUSAGE,
                        "synthetic market %d with stress_vol %g, stress_liquidity %g: %s",
                        (int)tape, sv, sl, e.msg);
    return 0;
}

int mm__synthetic_check(const mm_grid *g, const mm_sweep_opts *o, mm_error *err)
{
    int32_t nt = g->axes[0].n, n_syn = 0;
    for (int32_t t = 0; o->synthetic && t < nt; t++)
        n_syn += o->synthetic[t] != NULL;
    /* The stress values: the base's and every value of a stress axis. */
    double sv[2] = {g->base.stress_vol, g->base.stress_vol},
           sl[2] = {g->base.stress_liquidity, g->base.stress_liquidity};
    int stressed = g->base.stress_vol != 1 || g->base.stress_liquidity != 1;
    for (int32_t m = 1; m < g->n_axes; m++) {
        int isv = !strcmp(g->axes[m].key, "stress_vol"),
            isl = !strcmp(g->axes[m].key, "stress_liquidity");
        for (int32_t i = 0; (isv || isl) && i < g->axes[m].n; i++) {
            double v =
                isv ? g->axes[m].parsed[i].stress_vol : g->axes[m].parsed[i].stress_liquidity;
            stressed |= v != 1;
            double *lo = isv ? &sv[0] : &sl[0], *hi = isv ? &sv[1] : &sl[1];
            if (v < *lo) *lo = v;
            if (v > *hi) *hi = v;
        }
    }
    if (stressed && n_syn < nt)
        return mm__errf(err, MM_EUSAGE,
                        "stress_vol, stress_liquidity: stress synthetic markets generated per "
                        "path; %d of the %d tapes are recorded files",
                        (int)(nt - n_syn), (int)nt);
    /* The generator's own checks at the extremes (its vol bound grows with vol, and nothing else
     * it checks depends on the stresses). */
    for (int32_t t = 0; t < nt && n_syn; t++) {
        if (!o->synthetic[t]) continue;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                int rc = check_pair(o->synthetic[t], t, sv[a], sl[b], err);
                if (rc) return rc;
            }
    }
    return 0;
}

int mm__synthetic_compute(const mm__run *r, const mm__chunk *c, const mm_params *params,
                          mm_metrics *m, mm_error *err)
{
    const int64_t np = r->paths;
    const mm_gen_params *market = r->o->synthetic[c->tape];
    mm_sim_config sim = r->sim;
    sim.synthetic = 1;
    mm_metrics *one = malloc((size_t)c->count * sizeof *one);
    char *todo = malloc((size_t)c->count);
    int rc = one && todo ? 0 : mm__errf(err, -ENOMEM, "out of memory");
    for (int32_t p = 0; rc == 0 && p < np; p++) {
        memset(todo, 1, (size_t)c->count);
        /* One day per distinct stress pair of the chunk, each run over its contiguous runs of
         * combinations (an id range keys the random streams). */
        for (int32_t k0 = 0; rc == 0 && k0 < c->count; k0++) {
            if (!todo[k0]) continue;
            double sv = params[k0].stress_vol, sl = params[k0].stress_liquidity;
            mm_ticks day = {0};
            mm__tape tp = {0};
            if ((rc = mm_sweep_synthetic_day(market, r->o->seed, c->tape, p, sv, sl, &day, err)))
                break;
            if ((rc = mm__tape_init(&tp, &day, &sim))) {
                mm__errf(err, rc, "cannot allocate the tape tables");
                mm_ticks_free(&day);
                break;
            }
            for (int32_t a = k0; rc == 0 && a < c->count;) {
                if (!todo[a] || params[a].stress_vol != sv || params[a].stress_liquidity != sl) {
                    a++;
                    continue;
                }
                int32_t b = a;
                while (b < c->count && todo[b] && params[b].stress_vol == sv &&
                       params[b].stress_liquidity == sl)
                    b++;
                rc = mm__run_batch(r, &tp, &sim, params + a, b - a, c->first + a, p, 1, one, err);
                for (int32_t k = a; rc == 0 && k < b; k++) {
                    m[(size_t)k * (size_t)np + (size_t)p] = one[k - a];
                    todo[k] = 0;
                }
                a = b;
            }
            mm__tape_free(&tp);
            mm_ticks_free(&day);
        }
    }
    free(todo);
    free(one);
    return rc;
}
