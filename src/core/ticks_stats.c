/* Summary statistics of a tape, for `mmsim info`. */
#include <stdint.h>

#include "mm_internal.h"

void mm_ticks_summarize(const mm_ticks *t, mm_ticks_stats *s)
{
    *s = (mm_ticks_stats){0};
    s->rows = t->n;
    mm__depth_summarize(t, s);
    if (t->n == 0) return;
    s->t_first_ns = t->ts_ns[0];
    s->t_last_ns = t->ts_ns[t->n - 1];
    s->spread_min = INT32_MAX;
    s->spread_max = INT32_MIN;
    s->mid2_min = INT64_MAX;
    s->mid2_max = INT64_MIN;
    int64_t spread_sum = 0, quoted = 0;
    s->ts_resolution_ns = 1000000000;
    for (int64_t i = 0; i < t->n; i++) {
        while (s->ts_resolution_ns > 1 && t->ts_ns[i] % s->ts_resolution_ns != 0)
            s->ts_resolution_ns /= 10;
        if (i > 0 && t->ts_ns[i] == t->ts_ns[i - 1]) s->same_ts_rows++;
        if (t->trade_sz[i] > 0) {
            s->trades++;
            s->trade_volume_lots += t->trade_sz[i];
            if (t->trade_side[i] > 0)
                s->buy_trades++;
            else
                s->sell_trades++;
        }
        if (t->bid_sz[i] == 0 || t->ask_sz[i] == 0) {
            s->empty_side_rows++;
            continue;
        }
        int64_t spread = (int64_t)t->ask_px[i] - t->bid_px[i];
        int64_t mid2 = (int64_t)t->ask_px[i] + t->bid_px[i];
        if (spread <= 0) s->crossed_rows++;
        if (spread < s->spread_min) s->spread_min = (int32_t)spread;
        if (spread > s->spread_max) s->spread_max = (int32_t)spread;
        if (mid2 < s->mid2_min) s->mid2_min = mid2;
        if (mid2 > s->mid2_max) s->mid2_max = mid2;
        spread_sum += spread;
        quoted++;
    }
    if (quoted)
        s->spread_mean = (double)spread_sum / (double)quoted;
    else
        s->spread_min = s->spread_max = s->mid2_min = s->mid2_max = 0;
}
