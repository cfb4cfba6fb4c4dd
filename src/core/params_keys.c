/* Named access to every field of mm_params: the keys `mmsim run` takes as flags (--inv-limit for
 * inv_limit) and that a sweep grid uses as axes. Values parse strictly: the whole string, in range.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"
#include "mm_rng.h"
#include "mm_state.h"

enum key_type { T_I32, T_I64, T_F64, T_ENUM };

typedef struct key_desc {
    const char *name;
    enum key_type type;
    size_t off;
    const char *const *names; /* T_ENUM: value names by index, NULL-terminated */
    const char *help;
    /* The fast kernels that implement the key (MM_CAP_*, mm_internal.h): for a number, every
     * value but `neutral`, which every kernel implements (when has_neutral; otherwise every
     * value); for an enum, vcaps[v] for value v. 0: the reference alone. */
    unsigned caps;
    const unsigned *vcaps;
    int has_neutral;
    double neutral;
    /* A number's domain (mm_params_check, and what checkmodel draws from): [lo, hi], lo_open /
     * hi_open for ( and ); `range` the message's text after "V must be " ("in [0, 1e6) ticks").
     * strat >= 0: checked only under that strategy (its parameters). hand: the domain's lower
     * bound depends on another key, checked by mm_params_check itself (inv_limit >= size). */
    double lo, hi;
    int lo_open, hi_open, strat, hand;
    const char *range;
} key_desc;

static const char *const STRATS[] = {"fixed", "as", "glft", NULL};
static const char *const QUEUES[] = {"risk-averse", "power", "log", NULL};
static const char *const FAIRS[] = {"mid", "micro", NULL};
static const char *const FILLVOL[] = {"bounded", "unbounded", NULL};
static const char *const CROSS[] = {"join", "reject", NULL};
static const char *const LATDIST[] = {"constant", "exponential", "lognormal", "empirical", NULL};
static const char *const JOIN[] = {"back", "uniform", NULL};
static const char *const CANCELDRAW[] = {"round", "binomial", NULL};
static const char *const BOOKS[] = {"auto", "l1", "l2", "l3", NULL};

/* The capabilities of each enum value, in the order of its names (a value added to the names
 * without one here is the reference's alone: the arrays are sized by the names). A value that
 * draws a random number (docs/model.md 3.3) shares states (its draws are keyed by the family and
 * the event, so a member draws what its leader draws) and is in the lanes kernel (its draws lane by
 * lane, sim_lanes.h; the binomial cancel draw only on a rare lane's reference step). */
enum { ALL = MM_CAP_ALL, NOLANES = MM_CAP_SKIP | MM_CAP_SHARE };
static const unsigned STRATS_CAPS[sizeof STRATS / sizeof *STRATS - 1] = {ALL, ALL, ALL};
static const unsigned QUEUES_CAPS[sizeof QUEUES / sizeof *QUEUES - 1] = {ALL, ALL, ALL};
static const unsigned FAIRS_CAPS[sizeof FAIRS / sizeof *FAIRS - 1] = {ALL, ALL};
static const unsigned FILLVOL_CAPS[sizeof FILLVOL / sizeof *FILLVOL - 1] = {ALL, ALL};
static const unsigned CROSS_CAPS[sizeof CROSS / sizeof *CROSS - 1] = {ALL, ALL};
static const unsigned LATDIST_CAPS[sizeof LATDIST / sizeof *LATDIST - 1] = {ALL, ALL, ALL, ALL};
static const unsigned JOIN_CAPS[sizeof JOIN / sizeof *JOIN - 1] = {ALL, ALL};
static const unsigned CANCELDRAW_CAPS[sizeof CANCELDRAW / sizeof *CANCELDRAW - 1] = {ALL, ALL};
/* book: auto is l1 on a tape without depth, l2 or l3 on one with it; every kernel but CUDA's runs
 * all four (the skip test and the lanes' group test step a combination on every event with a depth
 * row at a live order's price, mm__depth_touch; the lanes read the rows, sim_lanes_depth.h). */
static const unsigned BOOKS_CAPS[sizeof BOOKS / sizeof *BOOKS - 1] = {ALL, ALL, ALL, ALL};

/* K: a number every kernel implements, its domain D; KN: a number whose value `neutral` every
 * kernel implements and any other value only the kernels `caps`; KE: an enum, its values'
 * capabilities in vcaps. D(lo, hi, lo_open, hi_open, strat, "range"): a number's domain. */
#define D(lo, hi, lo_open, hi_open, strat, range) lo, hi, lo_open, hi_open, strat, 0, range
#define DH(lo, hi, range) lo, hi, 0, 0, -1, 1, range
#define ANY (-1)
#define K(n, t, f, help, dom)                                                                      \
    {                                                                                              \
        n, t, offsetof(mm_params, f), NULL, help, ALL, NULL, 0, 0, dom                             \
    }
#define KN(n, t, f, help, neutral, caps, dom)                                                      \
    {                                                                                              \
        n, t, offsetof(mm_params, f), NULL, help, caps, NULL, 1, neutral, dom                      \
    }
#define KE(n, f, names, help)                                                                      \
    {                                                                                              \
        n, T_ENUM, offsetof(mm_params, f), names, help, 0, names##_CAPS, 0, 0, 0, 0, 0, 0, ANY, 0, \
            NULL                                                                                   \
    }
static const key_desc KEYS[] = {
    KE("strategy", strategy, STRATS, "fixed | as | glft"),
    K("spread", T_F64, spread_ticks, "fixed: distance from fair to each quote, ticks",
      D(0, 1e6, 0, 1, ANY, "in [0, 1e6) ticks")),
    K("skew", T_F64, skew_ticks, "fixed: quote shift per lot of inventory, ticks/lot",
      D(0, 1e6, 0, 1, ANY, "in [0, 1e6) ticks/lot")),
    KE("fair", fair_micro, FAIRS, "fair price: mid | micro (microprice)"),
    K("size", T_I32, quote_size, "quote size, lots", D(1, 1e8, 0, 0, ANY, "in [1, 1e8] lots")),
    K("inv_limit", T_I32, inv_limit, "inventory limit |q|, lots",
      DH(1, 1e9, "in [size, 1e9] lots")),
    K("requote", T_I32, requote_ticks, "requote threshold, ticks",
      D(1, 2147483647.0, 0, 0, ANY, "in [1, 2147483647] ticks")),
    KE("queue", queue_rule, QUEUES, "cancel split rule: risk-averse | power | log"),
    K("queue_n", T_F64, queue_n, "exponent of the power rule", D(0, 100, 1, 0, ANY, "in (0, 100]")),
    K("trade_through_only", T_I32, trade_through_only, "1: fill only on trades through our price",
      D(0, 1, 0, 0, ANY, "0 or 1")),
    K("post_only", T_I32, post_only, "1: reject orders that would cross on arrival; 0: take",
      D(0, 1, 0, 0, ANY, "0 or 1")),
    KE("fill_volume", fill_volume, FILLVOL,
       "trade-through and cross fills: bounded (by the market's size) | unbounded"),
    KE("cross_rule", cross_rule, CROSS,
       "a quote that would cross: join (best price on its side) | reject (send as is)"),
    K("reject_backoff_ns", T_I64, reject_backoff_ns,
      "after a reject, no new order on that side for this long, ns",
      D(0, 3600000000000.0, 0, 0, ANY, "in [0, 1 h] ns")),
    KN("max_orders_per_s", T_I32, max_orders_per_s, "new orders per second, 0: no limit", 0,
       NOLANES, D(0, 1e6, 0, 0, ANY, "in [0, 1e6]")),
    K("close_penalty_ticks", T_I32, close_penalty_ticks,
      "pnl_close: ticks beyond the touch for the part past the displayed size",
      D(0, 1e6, 0, 0, ANY, "in [0, 1e6] ticks")),
    K("latency_ns", T_I64, latency_ns, "order-entry latency, ns",
      D(0, 3600000000000.0, 0, 0, ANY, "in [0, 1 h] ns")),
    K("feed_latency_ns", T_I64, feed_latency_ns, "market-data latency, ns",
      D(0, 3600000000000.0, 0, 0, ANY, "in [0, 1 h] ns")),
    K("response_ns", T_I64, response_ns,
      "exchange-to-strategy latency of order responses and fill reports, ns",
      D(0, 3600000000000.0, 0, 0, ANY, "in [0, 1 h] ns")),
    KE("latency_dist", latency_dist, LATDIST,
       "entry and response latencies drawn per order / message: constant | exponential (mean) | "
       "lognormal (median) | empirical (a measured sample + the latency)"),
    K("latency_sigma", T_F64, latency_sigma, "lognormal latency: sigma of its logarithm",
      D(0, 5, 0, 0, ANY, "in [0, 5]")),
    KE("queue_join", queue_join, JOIN,
       "a new order at the best joins: back (behind all shown) | uniform (a random place)"),
    KE("cancel_draw", cancel_draw, CANCELDRAW,
       "cancels ahead of us: round (dec x share, rounded) | binomial (each lot with prob. share)"),
    KE("book", book, BOOKS,
       "queue: auto (the deepest the tape has) | l1 (best level only) | l2 (every shown level) | "
       "l3 (exact FIFO from order ids)"),
    KN("trade_reach", T_F64, trade_reach,
       "probability that a trade at our price reaches our queue (else hidden liquidity took it)", 1,
       ALL, D(0, 1, 0, 0, ANY, "in [0, 1]")),
    KN("levels", T_I32, levels,
       "quotes per side (a ladder), 1..8; rung r rests r x level_step ticks behind rung 0", 1, 0,
       D(1, 8, 0, 0, ANY, "in [1, 8]")),
    K("level_step", T_I32, level_step, "ladder: ticks between adjacent rungs",
      D(1, 1e6, 0, 0, ANY, "in [1, 1e6] ticks")),
    K("level_size", T_F64, level_size,
      "ladder: rung r's size is size x level_size^r, rounded half-even, at least 1 lot",
      D(0.1, 10, 0, 0, ANY, "in [0.1, 10]")),
    K("stress_latency", T_I32, stress_latency,
      "stress: latency_ns, feed_latency_ns and response_ns multiplied by this, 1..1000",
      D(1, 1000, 0, 0, ANY, "in [1, 1000]")),
    K("stress_vol", T_F64, stress_vol,
      "stress: a synthetic day's fair-price volatility multiplied by this (synthetic markets "
      "only)",
      D(0, 100, 0, 0, ANY, "in [0, 100]")),
    K("stress_liquidity", T_F64, stress_liquidity,
      "stress: a synthetic day's queue sizes divided by this (synthetic markets only)",
      D(0.01, 100, 0, 0, ANY, "in [0.01, 100]")),
    K("maker_fee_bps", T_F64, maker_fee_bps, "maker fee, bps of notional (negative: rebate)",
      D(-1e4, 1e4, 1, 1, ANY, "within +-1e4 bps")),
    K("taker_fee_bps", T_F64, taker_fee_bps, "taker fee, bps of notional",
      D(-1e4, 1e4, 1, 1, ANY, "within +-1e4 bps")),
    K("as_gamma", T_F64, as_gamma, "Avellaneda-Stoikov risk aversion",
      D(1e-6, 1e6, 0, 1, MM_STRAT_AS, "in [1e-6, 1e6)")),
    K("as_k", T_F64, as_k, "Avellaneda-Stoikov arrival decay k, 1/ticks",
      D(1e-6, 1e6, 0, 1, MM_STRAT_AS, "in [1e-6, 1e6)")),
    K("as_sigma", T_F64, as_sigma, "Avellaneda-Stoikov volatility, ticks/sqrt(s)",
      D(0, 1e6, 0, 1, MM_STRAT_AS, "in [0, 1e6)")),
    K("as_horizon", T_F64, as_horizon_s,
      "Avellaneda-Stoikov horizon tau, s (0: until the tape ends)",
      D(0, 1e9, 0, 1, MM_STRAT_AS, "in [0, 1e9) s")),
    K("glft_gamma", T_F64, glft_gamma, "GLFT risk aversion",
      D(1e-6, 1e6, 0, 1, MM_STRAT_GLFT, "in [1e-6, 1e6)")),
    K("glft_k", T_F64, glft_k, "GLFT arrival decay k, 1/ticks",
      D(1e-6, 1e6, 0, 1, MM_STRAT_GLFT, "in [1e-6, 1e6)")),
    K("glft_A", T_F64, glft_A, "GLFT arrival intensity A, 1/s",
      D(1e-6, 1e9, 0, 1, MM_STRAT_GLFT, "in [1e-6, 1e9)")),
    K("glft_sigma", T_F64, glft_sigma, "GLFT volatility, ticks/sqrt(s)",
      D(0, 1e6, 0, 1, MM_STRAT_GLFT, "in [0, 1e6)")),
    K("glft_Q", T_I32, glft_Q, "GLFT inventory bound, in quote sizes",
      D(1, 2147483647.0, 0, 0, MM_STRAT_GLFT, "in [1, 2147483647]")),
    /* The reference alone for a value other than 0 (no fast kernel reads the signal yet). */
    KN("signal_skew", T_F64, signal_skew,
       "fair price moves by the tape's signal x this, ticks per signal unit (0: none)", 0, 0,
       D(-1e6, 1e6, 1, 1, ANY, "within +-1e6 ticks per signal unit")),
};
#define NKEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

int mm_params_key_count(void)
{
    return NKEYS;
}

const char *mm_params_key_name(int i, const char **help)
{
    if (i < 0 || i >= NKEYS) return NULL;
    if (help) *help = KEYS[i].help;
    return KEYS[i].name;
}

int mm_params_key_kind(const char *key, const char *const **enum_names)
{
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(KEYS[i].name, key)) continue;
        if (enum_names) *enum_names = KEYS[i].names;
        switch (KEYS[i].type) {
        case T_ENUM:
            return MM_KEY_ENUM;
        case T_I32:
        case T_I64:
            return MM_KEY_INT;
        case T_F64:
            return MM_KEY_REAL;
        }
    }
    return MM_EUSAGE;
}

int mm_params_get_num(const mm_params *p, const char *key, double *out)
{
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(KEYS[i].name, key)) continue;
        const char *base = (const char *)p + KEYS[i].off;
        switch (KEYS[i].type) {
        case T_ENUM:
        case T_I32:
            *out = *(const int32_t *)base;
            break;
        case T_I64:
            *out = (double)*(const int64_t *)base;
            break;
        case T_F64:
            *out = *(const double *)base;
            break;
        }
        return 0;
    }
    return MM_EUSAGE;
}

int mm__params_key_index(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(KEYS[i].name, key)) return i;
    return -1;
}

void mm__params_copy_key(mm_params *dst, const mm_params *src, int key_index)
{
    const key_desc *k = &KEYS[key_index];
    size_t n = k->type == T_I64 || k->type == T_F64 ? 8 : 4;
    memcpy((char *)dst + k->off, (const char *)src + k->off, n);
}

/* A complete decimal number: [+-] digits [. digits] [(e|E) [+-] digits] with digits on at least one
 * side of the point (integer: [+-] digits only). No blanks, hex, inf or nan: strtod/strtoll alone
 * would take " -1", "0x10" and "inf". */
static int is_decimal(const char *s, int integer)
{
    int digits = 0;
    if (*s == '+' || *s == '-') s++;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (integer) return digits > 0 && !*s;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9')
            s++, digits++;
    }
    if (!digits) return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (*s < '0' || *s > '9') return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return !*s;
}

int mm__is_decimal(const char *s, int integer)
{
    return integer ? *s != '+' && is_decimal(s, 1) : is_decimal(s, 0);
}

int mm_params_set(mm_params *p, const char *key, const char *value, mm_error *err)
{
    const key_desc *k = NULL;
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(KEYS[i].name, key)) k = &KEYS[i];
    if (!k) return mm__errf(err, MM_EUSAGE, "%s: unknown parameter", key);
    char *base = (char *)p + k->off, *end;
    errno = 0;
    switch (k->type) {
    case T_ENUM:
        for (int i = 0; k->names[i]; i++)
            if (!strcmp(k->names[i], value)) {
                *(int32_t *)base = i;
                return 0;
            }
        {
            char list[128] = "";
            for (int i = 0; k->names[i]; i++) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", k->names[i]);
            }
            return mm__errf(err, MM_EUSAGE, "%s: '%s' is not one of %s", key, value, list);
        }
    case T_I32:
    case T_I64: {
        if (!is_decimal(value, 1))
            return mm__errf(err, MM_EUSAGE, "%s: '%s' is not a decimal integer", key, value);
        long long v = strtoll(value, &end, 10);
        if (errno) return mm__errf(err, MM_EUSAGE, "%s: %s is out of range", key, value);
        if (k->type == T_I32) {
            if (v < INT32_MIN || v > INT32_MAX)
                return mm__errf(err, MM_EUSAGE, "%s: %s is out of range", key, value);
            *(int32_t *)base = (int32_t)v;
        } else {
            *(int64_t *)base = v;
        }
        return 0;
    }
    case T_F64: {
        if (!is_decimal(value, 0))
            return mm__errf(err, MM_EUSAGE, "%s: '%s' is not a decimal number", key, value);
        double v = strtod(value, &end);
        if (errno == ERANGE) return mm__errf(err, MM_EUSAGE, "%s: %s is out of range", key, value);
        *(double *)base = v;
        return 0;
    }
    }
    return MM_EUSAGE; /* not reached: every type is a case above */
}

int mm_params_get(const mm_params *p, const char *key, char *buf, size_t cap)
{
    for (int i = 0; i < NKEYS; i++) {
        if (strcmp(KEYS[i].name, key)) continue;
        const char *base = (const char *)p + KEYS[i].off;
        switch (KEYS[i].type) {
        case T_ENUM: {
            int32_t v = *(const int32_t *)base, nn = 0;
            while (KEYS[i].names[nn])
                nn++;
            snprintf(buf, cap, "%s", v >= 0 && v < nn ? KEYS[i].names[v] : "?");
            break;
        }
        case T_I32:
            snprintf(buf, cap, "%d", *(const int32_t *)base);
            break;
        case T_I64:
            snprintf(buf, cap, "%lld", (long long)*(const int64_t *)base);
            break;
        case T_F64: { /* the shortest text that reads back as the same double */
            char t[32];
            snprintf(buf, cap, "%s", mm__fmt_shortest(*(const double *)base, t, sizeof t));
            break;
        }
        }
        return 0;
    }
    return MM_EUSAGE;
}

/* ---- kernel capabilities (mm_internal.h) ---- */

static double key_value(const key_desc *k, const mm_params *p)
{
    const char *base = (const char *)p + k->off;
    switch (k->type) {
    case T_ENUM:
    case T_I32:
        return *(const int32_t *)base;
    case T_I64:
        return (double)*(const int64_t *)base;
    case T_F64:
        return *(const double *)base;
    }
    return 0; /* not reached */
}

static unsigned caps_of(const key_desc *k, double v)
{
    if (k->type == T_ENUM) {
        int n = 0;
        while (k->names[n])
            n++;
        return v >= 0 && v < n && v == (int)v ? k->vcaps[(int)v] : 0;
    }
    return k->has_neutral && v == k->neutral ? MM_CAP_ALL : k->caps;
}

unsigned mm__params_key_caps(int key_index, double v)
{
    if (key_index < 0 || key_index >= NKEYS) return 0;
    return caps_of(&KEYS[key_index], v);
}

unsigned mm__params_caps(const mm_params *p)
{
    unsigned c = MM_CAP_ALL;
    for (int i = 0; i < NKEYS; i++)
        c &= caps_of(&KEYS[i], key_value(&KEYS[i], p));
    /* The lanes kernel and the shared states run inside the skip kernel: without it, neither. */
    return c & MM_CAP_SKIP ? c : 0;
}

/* Section 3.3: the family's stream id of p, the sum (mod 2^64) over every key but inv_limit,
 * maker_fee_bps and taker_fee_bps whose value differs from its default (mm_params_defaults) of
 * mm_stream_key(FNV-1a-64 of the key's name, the value's word, 0); the word of a value is the IEEE
 * bits of the value as a double (an enum: its index; 0 as +0). A sum over the keys that differ
 * from their defaults: a key added later, at its default, changes no family. */
uint64_t mm__params_family(const mm_params *p)
{
    mm_params def;
    mm_params_defaults(&def);
    uint64_t fam = 0;
    for (int i = 0; i < NKEYS; i++) {
        const key_desc *k = &KEYS[i];
        if (!strcmp(k->name, "inv_limit") || !strcmp(k->name, "maker_fee_bps") ||
            !strcmp(k->name, "taker_fee_bps"))
            continue;
        double v = key_value(k, p), v0 = key_value(k, &def);
        if (v == 0) v = 0.0; /* -0 as +0 */
        if (v0 == 0) v0 = 0.0;
        uint64_t w, w0;
        memcpy(&w, &v, sizeof w);
        memcpy(&w0, &v0, sizeof w0);
        if (w == w0) continue;
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (const char *c = k->name; *c; c++)
            h = (h ^ (unsigned char)*c) * UINT64_C(0x100000001b3);
        fam += mm_stream_key(h, (int64_t)w, 0);
    }
    return fam;
}

int mm__params_check_enums(const mm_params *p, mm_error *err)
{
    for (int i = 0; i < NKEYS; i++) {
        const key_desc *k = &KEYS[i];
        if (k->type != T_ENUM) continue;
        int32_t v = *(const int32_t *)((const char *)p + k->off), n = 0;
        while (k->names[n])
            n++;
        if (v >= 0 && v < n) continue;
        char list[256] = "";
        for (int32_t j = 0; j < n; j++) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%s%s (%d)",
                     j == 0      ? ""
                     : j + 1 < n ? ", "
                                 : " or ",
                     k->names[j], (int)j);
        }
        return mm__errf(err, MM_EUSAGE, "%s: %d is not %s", k->name, (int)v, list);
    }
    return 0;
}

/* ---- the numbers' domains (mm_params_check) ---- */

int mm__params_check_ranges(const mm_params *p, mm_error *err)
{
    for (int i = 0; i < NKEYS; i++) {
        const key_desc *k = &KEYS[i];
        if (k->type == T_ENUM || k->hand || (k->strat >= 0 && p->strategy != k->strat)) continue;
        const char *base = (const char *)p + k->off;
        /* An int64 compared as an integer: the bounds are exact doubles, the value may not be. */
        int64_t x = k->type == T_I64 ? *(const int64_t *)base : 0;
        double v = key_value(k, p);
        int ok = k->type == T_I64 ? x >= (int64_t)k->lo && x <= (int64_t)k->hi
                                  : (k->lo_open ? v > k->lo : v >= k->lo) &&
                                        (k->hi_open ? v < k->hi : v <= k->hi);
        if (ok) continue;
        char vt[48]; /* the value as given */
        if (k->type == T_I64)
            snprintf(vt, sizeof vt, "%lld", (long long)x);
        else if (k->type == T_F64)
            snprintf(vt, sizeof vt, "%s", MM__G(v));
        else
            snprintf(vt, sizeof vt, "%d", (int)v);
        return mm__errf(err, MM_EUSAGE, "%s: %s must be %s", k->name, vt, k->range);
    }
    return 0;
}

int mm__params_key_domain(int key_index, double *lo, double *hi, int *lo_open, int *hi_open,
                          int *integer)
{
    if (key_index < 0 || key_index >= NKEYS || KEYS[key_index].type == T_ENUM) return -1;
    const key_desc *k = &KEYS[key_index];
    *lo = k->lo;
    *hi = k->hi;
    *lo_open = k->lo_open;
    *hi_open = k->hi_open;
    *integer = k->type != T_F64;
    return 0;
}
