/* Options and report helpers shared by the importers. */
#include <stdio.h>
#include <string.h>

#include "import_internal.h"
#include "mm_internal.h"

void mm_import_opts_init(mm_import_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->csv_delim = ',';
    o->csv_time = "ns";
    o->depth_levels = -1;
}

int mm__import_setup(const mm_import_opts *o, const char *def_tick, const char *def_lot,
                     double def_year_s, mm__dec *tick, mm__dec *lot, mm_instrument *inst,
                     mm_error *err)
{
    memset(inst, 0, sizeof *inst);
    if (o && !(o->year_s == 0 || (o->year_s > 0 && o->year_s <= 1e12)))
        return mm__errf(err, MM_EUSAGE, "year_s: %g must be in (0, 1e12] s", o->year_s);
    inst->year_s = o && o->year_s > 0 ? o->year_s : def_year_s;
    if (!o || !o->symbol || !o->symbol[0]) return mm__errf(err, MM_EUSAGE, "symbol: required");
    size_t n = strlen(o->symbol);
    if (n >= MM_SYMBOL_MAX) return mm__errf(err, MM_EUSAGE, "symbol: '%s' is too long", o->symbol);
    for (size_t i = 0; i < n; i++) {
        char c = o->symbol[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return mm__errf(err, MM_EUSAGE, "symbol: '%s' has characters outside [A-Za-z0-9._-]",
                            o->symbol);
    }
    memcpy(inst->symbol, o->symbol, n + 1);
    const char *ts = o->tick ? o->tick : def_tick, *ls = o->lot ? o->lot : def_lot;
    if (!ts) return mm__errf(err, MM_EUSAGE, "tick: required");
    if (!ls) return mm__errf(err, MM_EUSAGE, "lot: required");
    if (mm__dec_unit(ts, tick))
        return mm__errf(err, MM_EUSAGE, "tick: '%s' is not a positive decimal", ts);
    if (mm__dec_unit(ls, lot))
        return mm__errf(err, MM_EUSAGE, "lot: '%s' is not a positive decimal", ls);
    inst->tick_size = mm__dec_double(tick);
    inst->lot_size = mm__dec_double(lot);
    return 0;
}

void mm__import_skip(mm_import_report *rep, const mm_error *e)
{
    if (rep->skipped++ == 0) {
        size_t n = strnlen(e->msg, sizeof rep->first_skipped - 1);
        memcpy(rep->first_skipped, e->msg, n);
        rep->first_skipped[n] = 0;
    }
}

int mm__import_depth_levels(const mm_import_opts *o, int def, mm_error *err)
{
    int v = o->depth_levels;
    if (v == -1) return def;
    if (v < 0 || v > MM_DEPTH_MAX_LEVELS)
        return mm__errf(err, MM_EUSAGE, "depth-levels: %d is not in 0..%d (0: no depth stream)", v,
                        MM_DEPTH_MAX_LEVELS);
    return v;
}

void mm__import_totals(mm_import_report *rep, const mm_ticks *t)
{
    rep->rows = t->n;
    rep->depth_levels = t->depth.levels;
    rep->depth_rows = t->depth.n;
    rep->trades = 0;
    rep->trade_volume_lots = 0;
    for (int64_t i = 0; i < t->n; i++) {
        rep->trades += t->trade_sz[i] > 0;
        rep->trade_volume_lots += t->trade_sz[i];
    }
}
