/* Named access to every field of mm_params: the keys `mmsim run` takes as flags (--inv-limit for
 * inv_limit) and that a sweep grid uses as axes. Values parse strictly: the whole string, in range.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_internal.h"

enum { T_I32, T_I64, T_F64, T_ENUM };

typedef struct key_desc {
    const char *name;
    int type;
    size_t off;
    const char *const *names; /* T_ENUM: value names by index, NULL-terminated */
    const char *help;
} key_desc;

static const char *const STRATS[] = {"fixed", "as", "glft", NULL};
static const char *const QUEUES[] = {"risk-averse", "power", "log", NULL};
static const char *const FAIRS[] = {"mid", "micro", NULL};
static const char *const FILLVOL[] = {"bounded", "unbounded", NULL};
static const char *const CROSS[] = {"join", "reject", NULL};
static const char *const LATDIST[] = {"constant", "exponential", "lognormal", "empirical", NULL};
static const char *const JOIN[] = {"back", "uniform", NULL};
static const char *const CANCELDRAW[] = {"round", "binomial", NULL};

#define K(n, t, f, names, help)                                                                    \
    {                                                                                              \
        n, t, offsetof(mm_params, f), names, help                                                  \
    }
static const key_desc KEYS[] = {
    K("strategy", T_ENUM, strategy, STRATS, "fixed | as | glft"),
    K("spread", T_F64, spread_ticks, NULL, "fixed: distance from fair to each quote, ticks"),
    K("skew", T_F64, skew_ticks, NULL, "fixed: quote shift per lot of inventory, ticks/lot"),
    K("fair", T_ENUM, fair_micro, FAIRS, "fair price: mid | micro (microprice)"),
    K("size", T_I32, quote_size, NULL, "quote size, lots"),
    K("inv_limit", T_I32, inv_limit, NULL, "inventory limit |q|, lots"),
    K("requote", T_I32, requote_ticks, NULL, "requote threshold, ticks"),
    K("queue", T_ENUM, queue_rule, QUEUES, "cancel split rule: risk-averse | power | log"),
    K("queue_n", T_F64, queue_n, NULL, "exponent of the power rule"),
    K("trade_through_only", T_I32, trade_through_only, NULL,
      "1: fill only on trades through our price"),
    K("post_only", T_I32, post_only, NULL, "1: reject orders that would cross on arrival; 0: take"),
    K("fill_volume", T_ENUM, fill_volume, FILLVOL,
      "trade-through and cross fills: bounded (by the market's size) | unbounded"),
    K("cross_rule", T_ENUM, cross_rule, CROSS,
      "a quote that would cross: join (best price on its side) | reject (send as is)"),
    K("reject_backoff_ns", T_I64, reject_backoff_ns, NULL,
      "after a reject, no new order on that side for this long, ns"),
    K("max_orders_per_s", T_I32, max_orders_per_s, NULL, "new orders per second, 0: no limit"),
    K("close_penalty_ticks", T_I32, close_penalty_ticks, NULL,
      "pnl_close: ticks beyond the touch for the part past the displayed size"),
    K("latency_ns", T_I64, latency_ns, NULL, "order-entry latency, ns"),
    K("feed_latency_ns", T_I64, feed_latency_ns, NULL, "market-data latency, ns"),
    K("response_ns", T_I64, response_ns, NULL,
      "exchange-to-strategy latency of order responses and fill reports, ns"),
    K("latency_dist", T_ENUM, latency_dist, LATDIST,
      "entry and response latencies drawn per order / message: constant | exponential (mean) | "
      "lognormal (median) | empirical (a measured sample + the latency)"),
    K("latency_sigma", T_F64, latency_sigma, NULL, "lognormal latency: sigma of its logarithm"),
    K("queue_join", T_ENUM, queue_join, JOIN,
      "a new order at the best joins: back (behind all shown) | uniform (a random place)"),
    K("cancel_draw", T_ENUM, cancel_draw, CANCELDRAW,
      "cancels ahead of us: round (dec x share, rounded) | binomial (each lot with prob. share)"),
    K("trade_reach", T_F64, trade_reach, NULL,
      "probability that a trade at our price reaches our queue (else hidden liquidity took it)"),
    K("stress_latency", T_I32, stress_latency, NULL,
      "stress: latency_ns, feed_latency_ns and response_ns multiplied by this, 1..1000"),
    K("stress_vol", T_F64, stress_vol, NULL,
      "stress: a synthetic day's fair-price volatility multiplied by this (synthetic markets "
      "only)"),
    K("stress_liquidity", T_F64, stress_liquidity, NULL,
      "stress: a synthetic day's queue sizes divided by this (synthetic markets only)"),
    K("maker_fee_bps", T_F64, maker_fee_bps, NULL, "maker fee, bps of notional (negative: rebate)"),
    K("taker_fee_bps", T_F64, taker_fee_bps, NULL, "taker fee, bps of notional"),
    K("as_gamma", T_F64, as_gamma, NULL, "Avellaneda-Stoikov risk aversion"),
    K("as_k", T_F64, as_k, NULL, "Avellaneda-Stoikov arrival decay k, 1/ticks"),
    K("as_sigma", T_F64, as_sigma, NULL, "Avellaneda-Stoikov volatility, ticks/sqrt(s)"),
    K("as_horizon", T_F64, as_horizon_s, NULL,
      "Avellaneda-Stoikov horizon tau, s (0: until the tape ends)"),
    K("glft_gamma", T_F64, glft_gamma, NULL, "GLFT risk aversion"),
    K("glft_k", T_F64, glft_k, NULL, "GLFT arrival decay k, 1/ticks"),
    K("glft_A", T_F64, glft_A, NULL, "GLFT arrival intensity A, 1/s"),
    K("glft_sigma", T_F64, glft_sigma, NULL, "GLFT volatility, ticks/sqrt(s)"),
    K("glft_Q", T_I32, glft_Q, NULL, "GLFT inventory bound, in quote sizes"),
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
        default:
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
        default:
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
    default: {
        if (!is_decimal(value, 0))
            return mm__errf(err, MM_EUSAGE, "%s: '%s' is not a decimal number", key, value);
        double v = strtod(value, &end);
        if (errno == ERANGE) return mm__errf(err, MM_EUSAGE, "%s: %s is out of range", key, value);
        *(double *)base = v;
        return 0;
    }
    }
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
        default:
            snprintf(buf, cap, "%.17g", *(const double *)base);
            break;
        }
        return 0;
    }
    return MM_EUSAGE;
}
