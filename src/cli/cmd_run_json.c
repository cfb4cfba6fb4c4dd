/* mmsim run --json: the run's instrument, engine, parameters and metrics as one JSON object. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mmsim/results.h"

/* A JSON string (the symbol, a path): quoted, with '"', '\\' and control characters escaped. */
static void json_str(const char *s)
{
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            printf("\\%c", *c);
        else if (*c < 0x20)
            printf("\\u%04x", *c);
        else
            putchar(*c);
    }
    putchar('"');
}

/* A JSON number: the shortest form that reads back exactly; null for NaN and infinities (JSON has
 * none). */
static void json_num(double v)
{
    char b[40];
    if (v != v || v - v != 0)
        fputs("null", stdout);
    else
        fputs(cli_fmt_shortest(v, b, sizeof b), stdout);
}

/* --json: one object with the instrument, the engine, every parameter and every metric, named as
 * in a results file (docs/results.md: markout_1s ...), on one line. */
void cli_run_print_json(const mm_ticks *t, const mm_sim_config *cfg, const mm_params *p,
                        const mm_metrics *m, int batched, const char *trace, const char *curve)
{
    fputs("{\"instrument\":", stdout);
    json_str(t->inst.symbol);
    printf(",\"events\":%" PRId64 ",\"engine\":\"%s\",\"params\":{", t->n,
           batched ? "batched" : "reference");
    for (int i = 0; i < mm_params_key_count(); i++) {
        const char *k = mm_params_key_name(i, NULL);
        char buf[64];
        printf("%s\"%s\":", i ? "," : "", k);
        double v;
        if (mm_params_key_kind(k, NULL) == MM_KEY_ENUM) {
            mm_params_get(p, k, buf, sizeof buf);
            json_str(buf);
        } else if (!mm_params_get_num(p, k, &v)) {
            if (mm_params_key_kind(k, NULL) == MM_KEY_INT) {
                mm_params_get(p, k, buf, sizeof buf); /* exact, also past 2^53 */
                fputs(buf, stdout);
            } else {
                json_num(v);
            }
        }
    }
    fputs("},\"metrics\":{", stdout);
    for (int j = 0; j < MM_RESULTS_METRICS; j++) {
        char name[64];
        double d = 0;
        int64_t n = 0;
        mm_results_metric(j, cfg->markout_ns, name, sizeof name);
        printf("%s\"%s\":", j ? "," : "", name);
        if (mm_results_metric_value(m, j, &d, &n) == MM_COL_I64)
            printf("%" PRId64, n);
        else
            json_num(d);
    }
    printf("},\"sample_ns\":%" PRId64 ",\"year_seconds\":", cfg->sample_ns);
    json_num(mm_sim_year_s(cfg, &t->inst));
    if (trace) {
        fputs(",\"trace\":", stdout);
        json_str(trace);
    }
    if (curve) {
        fputs(",\"curve\":", stdout);
        json_str(curve);
    }
    fputs("}\n", stdout);
}
