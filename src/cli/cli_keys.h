/* Model keys as users write them, and "did you mean" suggestions for mistyped names.
 *
 * No output, no globals, no exit(): sweep_config.c (and its fuzz target) use these. */
#ifndef MM_CLI_KEYS_H
#define MM_CLI_KEYS_H

#include <stddef.h>

/* The canonical spelling of a model key, a [run] key or a metric name as a user wrote it: every '-'
 * becomes '_' (`inv-limit` -> `inv_limit`: flags are hyphenated, keys are not), then an alias is
 * replaced by the key it names (`half_spread` -> `spread`: results files keep the stored name).
 * Into buf (cap bytes, truncated), which it returns. */
const char *cli_key_canon(const char *key, char *buf, size_t cap);

/* The candidate closest to word by edit distance (a swap of neighbours is one edit; with every '-'
 * of both read as '_', so a hyphen or an underscore costs nothing), when it is close enough to be a
 * typo: at most max(1, len / 3) edits for a word of len characters. NULL when none is. cands[0..n)
 * may hold NULL entries (skipped). */
const char *cli_suggest(const char *word, const char *const *cands, int n);

/* The model key closest to word (cli_suggest over every key of mm_params_key_name and the
 * aliases), or NULL. */
const char *cli_suggest_key(const char *word);

/* The strategy (0 fixed, 1 as, 2 glft: mm_params.strategy) a canonical model key applies to, or -1
 * when it applies to every strategy (docs/model.md 1.1: spread and skew are read by fixed only,
 * as_* by as only, glft_* by glft only). */
int cli_key_strategy(const char *key);

/* The name of strategy s ("fixed", "as", "glft"; "?" out of range). */
const char *cli_strategy_name(int s);

/* 1 when smaller is better for the metric column (max_drawdown, fees, rejects, rejects_per_s, held,
 * max_abs_q, mean_abs_q): the direction an objective or a sort takes when none is given. */
int cli_metric_smaller_is_better(const char *metric);

/* An objective as written: "min:NAME", "max:NAME" or "NAME" (then the metric's own direction). The
 * name (every '-' made '_') into name (cap bytes) and *ascending = 1 for min. Returns 0, or -1 for
 * a prefix other than min: and max:. The name is not checked against the metric columns. */
int cli_objective_split(const char *text, char *name, size_t cap, int *ascending);

#endif
