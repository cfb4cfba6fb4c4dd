/* Model keys as users write them (cli_keys.h): one canonical spelling, aliases, suggestions. */
#include <stdio.h>
#include <string.h>

#include "cli_keys.h"
#include "mmsim/mmsim.h"

/* Aliases: a name users may write for a key whose stored name stays (results files, configs
 * recorded in them, the journal's run identity all keep `spread`). */
static const char *const ALIASES[][2] = {
    {"half_spread", "spread"}, /* spread is a half-spread: fair to each quote */
};
#define N_ALIASES ((int)(sizeof ALIASES / sizeof ALIASES[0]))

const char *cli_key_canon(const char *key, char *buf, size_t cap)
{
    if (!cap) return buf;
    snprintf(buf, cap, "%s", key);
    for (char *c = buf; *c; c++)
        if (*c == '-') *c = '_';
    for (int i = 0; i < N_ALIASES; i++)
        if (!strcmp(buf, ALIASES[i][0])) snprintf(buf, cap, "%s", ALIASES[i][1]);
    return buf;
}

/* Edit distance of a and b with a swap of two neighbours as one edit (optimal string alignment:
 * "sohw" is one edit from "show"); at most 63 characters of each are compared. */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63) la = 63;
    if (lb > 63) lb = 63;
    int d[64][64]; /* d[i][j]: a[0..i) against b[0..j) */
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* word with every '-' made '_' into buf (no alias: a typo of an alias is near the alias). */
static const char *dashes(const char *word, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", word);
    for (char *c = buf; *c; c++)
        if (*c == '-') *c = '_';
    return buf;
}

const char *cli_suggest(const char *word, const char *const *cands, int n)
{
    char w[64], c[64];
    dashes(word, w, sizeof w);
    int len = (int)strlen(w), limit = len / 3 > 1 ? len / 3 : 1;
    const char *best = NULL;
    int best_d = limit + 1;
    for (int i = 0; i < n; i++) {
        if (!cands[i]) continue;
        int d = edit_distance(w, dashes(cands[i], c, sizeof c));
        if (d < best_d) best_d = d, best = cands[i];
    }
    return best;
}

const char *cli_suggest_key(const char *word)
{
    enum { MAX_KEYS = 128 };
    const char *cands[MAX_KEYS + N_ALIASES];
    int n = 0;
    for (int i = 0; i < mm_params_key_count() && n < MAX_KEYS; i++)
        cands[n++] = mm_params_key_name(i, NULL);
    for (int i = 0; i < N_ALIASES; i++)
        cands[n++] = ALIASES[i][0];
    return cli_suggest(word, cands, n);
}

int cli_key_strategy(const char *key)
{
    if (!strcmp(key, "spread") || !strcmp(key, "skew")) return 0;
    if (!strncmp(key, "as_", 3)) return 1;
    if (!strncmp(key, "glft_", 5)) return 2;
    return -1;
}

const char *cli_strategy_name(int s)
{
    const char *const *names = NULL; /* the key table's, so a strategy added there is named */
    if (mm_params_key_kind("strategy", &names) != MM_KEY_ENUM || s < 0) return "?";
    for (int i = 0; names[i]; i++)
        if (i == s) return names[i];
    return "?";
}

int cli_metric_smaller_is_better(const char *metric)
{
    static const char *const MIN[] = {"max_drawdown", "fees",      "rejects",   "rejects_per_s",
                                      "held",         "max_abs_q", "mean_abs_q"};
    /* Monte Carlo summaries: a spread (std) and a probability of loss rank smallest first; a
     * location (mean, percentile, CVaR) as its metric does. */
    static const char *const SUFFIX[] = {"_mean", "_p5", "_p50", "_p95", "_cvar5"};
    size_t n = strlen(metric);
    if ((n > 4 && !strcmp(metric + n - 4, "_std")) || !strncmp(metric, "p_loss", 6)) return 1;
    for (size_t s = 0; s < sizeof SUFFIX / sizeof SUFFIX[0]; s++) {
        size_t k = strlen(SUFFIX[s]);
        if (n > k && n - k < 64 && !strcmp(metric + n - k, SUFFIX[s])) {
            char base[64];
            memcpy(base, metric, n - k);
            base[n - k] = 0;
            return cli_metric_smaller_is_better(base);
        }
    }
    for (size_t i = 0; i < sizeof MIN / sizeof MIN[0]; i++)
        if (!strcmp(metric, MIN[i])) return 1;
    return 0;
}

int cli_objective_split(const char *text, char *name, size_t cap, int *ascending)
{
    const char *colon = strchr(text, ':');
    const char *base = colon ? colon + 1 : text;
    dashes(base, name, cap);
    if (!colon) {
        *ascending = cli_metric_smaller_is_better(name);
        return 0;
    }
    size_t n = (size_t)(colon - text);
    if (n == 3 && !strncmp(text, "min", 3)) {
        *ascending = 1;
        return 0;
    }
    if (n == 3 && !strncmp(text, "max", 3)) {
        *ascending = 0;
        return 0;
    }
    return -1;
}
