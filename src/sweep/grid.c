/* The parameter grid: axes, mixed-radix combination ids, per-combination random stream keys. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_grid_int.h"
#include "mm_internal.h"
#include "mm_rng.h"
#include "mmsim/sweep.h"
#include "sim_tape.h"

int mm_grid_new(mm_grid **out, mm_error *err)
{
    if (!out) return mm__errf(err, -EINVAL, "mm_grid_new: NULL argument");
    mm_grid *g = calloc(1, sizeof *g);
    *out = g;
    if (!g) return mm__errf(err, -ENOMEM, "grid: out of memory");
    mm_params_defaults(&g->base);
    return 0;
}

static void axis_free(mm__grid_axis *a)
{
    for (int32_t i = 0; i < a->n; i++)
        free(a->text[i]);
    free(a->text);
    free(a->num);
    free(a->parsed);
    memset(a, 0, sizeof *a);
}

void mm_grid_free(mm_grid *g)
{
    if (!g) return;
    for (int32_t m = 0; m < g->n_axes; m++)
        axis_free(&g->axes[m]);
    free(g->axes);
    free(g);
}

/* Room for one more axis (the array doubles; a grid has at most one axis per key, plus the tape).
 */
static int axes_reserve(mm_grid *g)
{
    if (g->n_axes < g->cap_axes) return 0;
    int32_t cap = g->cap_axes ? 2 * g->cap_axes : 8;
    mm__grid_axis *p = realloc(g->axes, (size_t)cap * sizeof *p);
    if (!p) return -ENOMEM;
    g->axes = p;
    g->cap_axes = cap;
    return 0;
}

static int64_t product(const mm_grid *g)
{
    int64_t n = 1;
    for (int32_t m = 0; m < g->n_axes; m++)
        n *= g->axes[m].n;
    return g->n_axes ? n : 0;
}

/* The arrays of an axis hold cap(n) entries: 8 up to 8 values, then the next power of two, so
 * appending is amortised O(1) (growing by one entry each time was quadratic under ASan: fuzz
 * finding F6). */
static int axis_grow(void **arr, int32_t n, size_t elem)
{
    if (n != 0 && (n < 8 || (n & (n - 1)) != 0)) return 0; /* room left */
    size_t cap = n < 8 ? 8 : 2 * (size_t)n;
    void *p = realloc(*arr, cap * elem);
    if (!p) return -ENOMEM;
    *arr = p;
    return 0;
}

/* Make room for one more value (text, number and, when parsed, its parameter set). */
static int axis_reserve(mm__grid_axis *a, int parsed)
{
    if (axis_grow((void **)&a->text, a->n, sizeof *a->text) ||
        axis_grow((void **)&a->num, a->n, sizeof *a->num) ||
        (parsed && axis_grow((void **)&a->parsed, a->n, sizeof *a->parsed)))
        return -ENOMEM;
    return 0;
}

int mm_grid_set_tapes(mm_grid *g, const char *const *tapes, int32_t n, mm_error *err)
{
    if (g->n_axes != 0) return mm__errf(err, MM_EUSAGE, "tape: the tape axis must come first");
    if (n <= 0) return mm__errf(err, MM_EUSAGE, "tape: no input tick file");
    if (axes_reserve(g)) return mm__errf(err, -ENOMEM, "tape: out of memory");
    mm__grid_axis *a = &g->axes[0];
    memset(a, 0, sizeof *a);
    snprintf(a->key, sizeof a->key, "tape");
    a->kind = MM_KEY_ENUM;
    g->n_axes = 1;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t j = 0; j < i; j++)
            if (!strcmp(tapes[i], tapes[j]))
                return mm__errf(err, MM_EUSAGE, "tape: '%s' is given twice", tapes[i]);
        char *s = strdup(tapes[i]);
        if (!s || axis_reserve(a, 0)) {
            free(s);
            return mm__errf(err, -ENOMEM, "tape: out of memory");
        }
        a->text[a->n] = s;
        a->num[a->n] = i;
        a->n++;
    }
    g->n_combos = product(g);
    return 0;
}

static int find_axis(const mm_grid *g, const char *key)
{
    for (int32_t m = 0; m < g->n_axes; m++)
        if (!strcmp(g->axes[m].key, key)) return m;
    return -1;
}

#define AXIS_MAX_VALUES 1000000

/* Add one value given as text: checked by mm_params_set; numeric value recorded. sorted: the caller
 * adds non-decreasing values (a range), so a duplicate can only equal the previous value. */
static int add_value(mm__grid_axis *a, const char *key, const char *text, int sorted, mm_error *err)
{
    if (a->n >= AXIS_MAX_VALUES)
        return mm__errf(err, MM_EUSAGE, "%s: more than %d values on the axis", key,
                        AXIS_MAX_VALUES);
    /* A number is decimal and complete, as for mm_params_set from the command line (mm__is_decimal:
     * no blanks, hex, inf or nan; an integer has no '+' and no point or exponent). */
    if (a->kind != MM_KEY_ENUM && !mm__is_decimal(text, a->kind == MM_KEY_INT))
        return mm__errf(err, MM_EUSAGE, "%s: '%s' is not a decimal %s", key, text,
                        a->kind == MM_KEY_INT ? "integer" : "number");
    mm_params p;
    mm_params_defaults(&p);
    int rc = mm_params_set(&p, key, text, err);
    if (rc) return rc;
    double v;
    mm_params_get_num(&p, key, &v);
    for (int32_t i = sorted && a->n ? a->n - 1 : 0; i < a->n; i++)
        if (a->num[i] == v)
            return mm__errf(err, MM_EUSAGE, "%s: value '%s' appears twice on the axis", key, text);
    char *s = strdup(text);
    if (!s || axis_reserve(a, 1)) {
        free(s);
        return mm__errf(err, -ENOMEM, "%s: out of memory", key);
    }
    a->text[a->n] = s;
    a->num[a->n] = v;
    a->parsed[a->n] = p;
    a->n++;
    return 0;
}

int mm_grid_add_axis(mm_grid *g, const char *key, const char *spec, mm_error *err)
{
    if (g->n_axes == 0) return mm__errf(err, MM_EUSAGE, "%s: set the tapes before the axes", key);
    if (!strcmp(key, "tape"))
        return mm__errf(err, MM_EUSAGE, "tape: the tape axis comes from the input files");
    int kind = mm_params_key_kind(key, NULL);
    if (kind < 0) return mm__errf(err, MM_EUSAGE, "%s: unknown key", key);
    if (find_axis(g, key) >= 0) return mm__errf(err, MM_EUSAGE, "%s: axis given twice", key);
    if (!spec || !*spec) return mm__errf(err, MM_EUSAGE, "%s: empty axis", key);
    mm__grid_axis a;
    memset(&a, 0, sizeof a);
    snprintf(a.key, sizeof a.key, "%s", key);
    a.kind = kind;
    a.key_ix = mm__params_key_index(key);
    int rc = 0;
    const char *c1 = strchr(spec, ':');
    if (c1 && kind != MM_KEY_ENUM) {
        /* a:b:step, inclusive; values a + k step for k = 0 .. floor((b - a) / step + 1e-9); a:b
         * is a:b:1 (integer and real keys alike). Each bound is a complete decimal number, an
         * integer axis's too (an empty bound or step is an error, not 0). The count is computed
         * in binary with that tolerance; each value in decimal from the text (a + k step exactly,
         * then the nearest double: 0.1:0.3:0.1 gives 0.3, not 0.30000000000000004), or in binary
         * when a and step do not fit 18 significant digits over one exponent (docs/sweep.md,
         * "Ranges"). */
        char *b1 = strdup(spec);
        if (!b1) return mm__errf(err, -ENOMEM, "%s: out of memory", key);
        char *b2 = b1 + (c1 - spec) + 1, *b3 = strchr(b2, ':');
        b2[-1] = 0;
        double lo = 0, hi = 0, step = 0;
        mm__decimal_range dr;
        int exact = 0, ok = !b3 || !strchr(b3 + 1, ':');
        if (b3)
            *b3++ = 0;
        else
            b3 = "1";
        ok = ok && mm__is_decimal(b1, 0) && mm__is_decimal(b2, 0) && mm__is_decimal(b3, 0);
        if (ok) {
            lo = strtod(b1, NULL);
            hi = strtod(b2, NULL);
            step = strtod(b3, NULL);
            ok = step > 0 && hi >= lo && isfinite(lo) && isfinite(hi) && isfinite(step);
            exact = ok && mm__decimal_range_init(b1, b3, &dr) == 0;
        }
        free(b1);
        if (!ok) {
            axis_free(&a);
            return mm__errf(
                err, MM_EUSAGE,
                "%s: '%s' is not a range a:b[:step] of decimal numbers with step > 0 and b >= a",
                key, spec);
        }
        double count = floor((hi - lo) / step + 1e-9) + 1;
        if (count > AXIS_MAX_VALUES) {
            axis_free(&a);
            return mm__errf(err, MM_EUSAGE, "%s: '%s' has more than %d values", key, spec,
                            AXIS_MAX_VALUES);
        }
        for (int64_t k = 0; k < (int64_t)count && rc == 0; k++) {
            double v;
            if (!exact || mm__decimal_range_value(&dr, k, &v)) v = lo + (double)k * step;
            char buf[64];
            if (kind == MM_KEY_INT) {
                if (v != floor(v)) {
                    axis_free(&a);
                    return mm__errf(err, MM_EUSAGE, "%s: '%s' gives the non-integer value %g", key,
                                    spec, v);
                }
                snprintf(buf, sizeof buf, "%.0f", v);
            } else {
                mm__fmt_shortest(v, buf, sizeof buf);
            }
            rc = add_value(&a, key, buf, 1, err);
        }
    } else {
        /* v1,v2,...: blanks around each value are dropped; an empty value is an error. */
        char *copy = strdup(spec);
        if (!copy) return mm__errf(err, -ENOMEM, "%s: out of memory", key);
        for (char *tok = copy, *next; tok && rc == 0; tok = next) {
            next = strchr(tok, ',');
            if (next) *next++ = 0;
            while (*tok == ' ' || *tok == '\t')
                tok++;
            char *e = tok + strlen(tok);
            while (e > tok && (e[-1] == ' ' || e[-1] == '\t'))
                *--e = 0;
            if (!*tok)
                rc = mm__errf(err, MM_EUSAGE, "%s: '%s' has an empty value", key, spec);
            else
                rc = add_value(&a, key, tok, 0, err);
        }
        free(copy);
        if (rc == 0 && a.n == 0) rc = mm__errf(err, MM_EUSAGE, "%s: empty axis", key);
    }
    if (rc) {
        axis_free(&a);
        return rc;
    }
    int64_t total = product(g) * a.n;
    if (total / a.n != product(g) || total > (INT64_C(1) << 40)) {
        axis_free(&a);
        return mm__errf(err, MM_EUSAGE, "%s: the grid would exceed 2^40 combinations", key);
    }
    if (axes_reserve(g)) {
        axis_free(&a);
        return mm__errf(err, -ENOMEM, "%s: out of memory", key);
    }
    g->axes[g->n_axes++] = a;
    g->n_combos = total;
    return 0;
}

int mm_grid_set(mm_grid *g, const char *key, const char *value, mm_error *err)
{
    if (find_axis(g, key) >= 0)
        return mm__errf(err, MM_EUSAGE, "%s: both a fixed value and an axis", key);
    return mm_params_set(&g->base, key, value, err);
}

int mm_grid_combo(const mm_grid *g, int64_t id, mm_params *p, int32_t *idx)
{
    if (id < 0 || id >= g->n_combos) return -EINVAL;
    *p = g->base;
    int64_t rest = id;
    for (int32_t m = g->n_axes - 1; m >= 0; m--) {
        const mm__grid_axis *a = &g->axes[m];
        int32_t i = (int32_t)(rest % a->n);
        rest /= a->n;
        if (idx) idx[m] = i;
        if (m > 0)
            mm__params_copy_key(p, &a->parsed[i], a->key_ix); /* parsed when the axis was added */
    }
    return 0;
}

/* Every combination's parameters, before anything runs. Parameters do not depend on the tape, so
 * this walks the distinct parameter sets (the grid without the tape axis) in id order, changing one
 * axis value per step (an odometer: no table of combinations is built), and stops at the first
 * invalid one. A cross-parameter rule (inv_limit >= quote_size, ...) can fail on any combination,
 * so every one is checked: about 10 ns each, a small fraction of simulating it. */
int mm__grid_check_combos(const mm_grid *g, const mm_sim_config *cfg, mm_error *err)
{
    int32_t na = g->n_axes, *idx = calloc((size_t)na, sizeof *idx);
    if (!idx) return mm__errf(err, -ENOMEM, "out of memory");
    mm_params p = g->base;
    for (int32_t m = 1; m < na; m++)
        mm__params_copy_key(&p, &g->axes[m].parsed[0], g->axes[m].key_ix);
    int64_t count = g->n_combos / g->axes[0].n;
    for (int64_t c = 0; c < count; c++) {
        if (c > 0) {
            int32_t m = na - 1;
            while (++idx[m] == g->axes[m].n) {
                idx[m] = 0;
                mm__params_copy_key(&p, &g->axes[m].parsed[0], g->axes[m].key_ix);
                m--;
            }
            mm__params_copy_key(&p, &g->axes[m].parsed[idx[m]], g->axes[m].key_ix);
        }
        mm_error e = {0};
        int rc = mm_sim_check_params(&p, cfg, &e);
        if (rc == 0) continue;
        char at[400] = "";
        size_t len = 0;
        for (int32_t m = 1; m < na && len < sizeof at; m++)
            len += (size_t)snprintf(at + len, sizeof at - len, "%s%s=%s", m > 1 ? " " : "",
                                    g->axes[m].key, g->axes[m].text[idx[m]]);
        free(idx);
        return mm__errf(err, rc, "grid: combination %s: %s", at, e.msg);
    }
    free(idx);
    return 0;
}

/* Ladders (docs/model.md 6.2) keep their rungs beside the state, which the cuda engine's device
 * does not have: levels > 1 (the base's or a value of its axis) is refused before anything runs. */
static int grid_check_cuda_levels(const mm_grid *g, mm_error *err)
{
    int lk = mm__params_key_index("levels");
    int32_t lv = g->base.levels;
    for (int32_t m = 1; m < g->n_axes; m++)
        if (g->axes[m].key_ix == lk)
            for (int32_t k = 0; k < g->axes[m].n; k++)
                if (g->axes[m].parsed[k].levels > lv) lv = g->axes[m].parsed[k].levels;
    if (lv > 1)
        return mm__errf(err, MM_EUSAGE,
                        "levels: ladders (levels > 1, here %d) run on the CPU engines only "
                        "(levels = 1 on the cuda engine, or another engine)",
                        (int)lv);
    return 0;
}

int mm__grid_check_tape(const mm_grid *g, const mm_ticks *t, int cuda, mm_error *err)
{
    if (cuda) {
        int rc = grid_check_cuda_levels(g, err);
        if (rc) return rc;
    }
    /* The book values the combinations take: the base's, or those of the book axis. */
    int bk = mm__params_key_index("book");
    const mm_params *vals = &g->base;
    int32_t nv = 1;
    for (int32_t m = 1; m < g->n_axes; m++)
        if (g->axes[m].key_ix == bk) {
            vals = g->axes[m].parsed;
            nv = g->axes[m].n;
        }
    /* signal_skew: the base's, or the values of its axis (a value other than 0 needs the tape's
     * signal, mm__params_tape_check; the cuda engine leaves the signal on the host). */
    int sk = mm__params_key_index("signal_skew");
    for (int32_t m = 0; m < g->n_axes; m++) {
        const mm__grid_axis *a = &g->axes[m];
        int axis = m > 0 && a->key_ix == sk;
        if (m > 0 && !axis) continue;
        for (int32_t k = 0; k < (axis ? a->n : 1); k++) {
            double s = axis ? a->parsed[k].signal_skew : g->base.signal_skew;
            if (s == 0) continue;
            mm_params p = g->base;
            p.signal_skew = s;
            int rc = mm__params_tape_check(&p, t, err);
            if (rc) return rc;
            if (cuda)
                return mm__errf(err, MM_EUSAGE,
                                "signal_skew: %s runs on the CPU engines only (the cuda engine "
                                "takes signal_skew = 0, or another engine)",
                                MM__G(s));
        }
    }
    for (int32_t k = 0; k < nv; k++) {
        int rc = mm__params_tape_check(&vals[k], t, err);
        if (rc) return rc;
        if (cuda && t->depth.levels > 0 && vals[k].book != MM_BOOK_L1)
            return mm__errf(
                err, MM_EUSAGE,
                "book: l2 and l3 run on the CPU engines only: tape %s has a depth stream, "
                "which book = %s uses (book = l1 on the cuda engine, or another "
                "engine)",
                t->inst.symbol,
                vals[k].book == MM_BOOK_L2   ? "l2"
                : vals[k].book == MM_BOOK_L3 ? "l3"
                                             : "auto");
    }
    return 0;
}

int32_t mm_grid_axis_count(const mm_grid *g)
{
    return g->n_axes;
}

int64_t mm_grid_combo_count(const mm_grid *g)
{
    return g->n_combos;
}

static const mm__grid_axis *axis_at(const mm_grid *g, int32_t m)
{
    return m >= 0 && m < g->n_axes ? &g->axes[m] : NULL;
}

const char *mm_grid_axis_key(const mm_grid *g, int32_t m)
{
    const mm__grid_axis *a = axis_at(g, m);
    return a ? a->key : NULL;
}

int mm_grid_axis_kind(const mm_grid *g, int32_t m)
{
    const mm__grid_axis *a = axis_at(g, m);
    return a ? a->kind : -1;
}

int32_t mm_grid_axis_size(const mm_grid *g, int32_t m)
{
    const mm__grid_axis *a = axis_at(g, m);
    return a ? a->n : 0;
}

const char *mm_grid_axis_text(const mm_grid *g, int32_t m, int32_t i)
{
    const mm__grid_axis *a = axis_at(g, m);
    return a && i >= 0 && i < a->n ? a->text[i] : NULL;
}

const mm_params *mm_grid_base(const mm_grid *g)
{
    return &g->base;
}

uint64_t mm_sweep_combo_seed(uint64_t master_seed, int64_t id)
{
    mm_u32x4 r = mm_rng4(master_seed, (uint32_t)id, (uint32_t)((uint64_t)id >> 32), 0x5eed, 0);
    return ((uint64_t)r.v[1] << 32) | r.v[0];
}

/* 1 when p draws random numbers (docs/model.md 3.3): any execution randomness off its default. */
static int params_draw(const mm_params *p)
{
    return p->latency_dist != MM_LAT_CONSTANT || p->queue_join != MM_JOIN_BACK ||
           p->trade_reach < 1.0 || p->cancel_draw != MM_CANCEL_ROUND;
}

int mm__grid_draws(const mm_grid *g)
{
    if (params_draw(&g->base)) return 1;
    for (int32_t m = 1; m < g->n_axes; m++)
        for (int32_t i = 0; i < g->axes[m].n; i++) {
            mm_params p = g->base;
            mm__params_copy_key(&p, &g->axes[m].parsed[i], g->axes[m].key_ix);
            if (params_draw(&p)) return 1;
        }
    return 0;
}
