/* The objective index (docs/results.md, "/index"): row numbers sorted by the objective, best
 * (largest) first, ties by ascending row number, NaN last.
 *
 * Each value becomes a 64-bit key whose ascending unsigned order is the wanted order, and the (key,
 * row) pairs, built in row order, go through a stable LSD radix sort: stability gives the
 * ascending-row tie-break for free. */
#include <math.h>
#include <string.h>

#include "results_int.h"

uint64_t mm__index_key_f64(double v)
{
    if (isnan(v)) return UINT64_MAX; /* after everything, whatever its sign bit */
    if (v == 0) v = 0.0;             /* -0 and +0 tie */
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    /* Ascending total order of the bit patterns: negative numbers flip all bits, positive ones the
     * sign. */
    u = (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
    /* Descending value = ascending complement. Only NaN bit patterns map to 0 or UINT64_MAX here.
     */
    return ~u;
}

uint64_t mm__index_key_i64(int64_t v)
{
    return ~((uint64_t)v ^ (UINT64_C(1) << 63));
}

void mm__index_sort(mm__ipair *p, mm__ipair *tmp, int64_t n)
{
    size_t cnt[256];
    mm__ipair *src = p, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        memset(cnt, 0, sizeof cnt);
        for (int64_t i = 0; i < n; i++)
            cnt[(src[i].key >> shift) & 0xff]++;
        /* A pass where every key has the same digit changes nothing: skip it. */
        if (n == 0 || cnt[(src[0].key >> shift) & 0xff] == (size_t)n) continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++)
            dst[cnt[(src[i].key >> shift) & 0xff]++] = src[i];
        mm__ipair *t = src;
        src = dst;
        dst = t;
    }
    if (src != p) memcpy(p, src, (size_t)n * sizeof *p);
    /* Compact the row numbers to the front, in place: rows[i] is written at or before pair i. */
    int64_t *rows = (int64_t *)p;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = p[i].row;
        rows[i] = r;
    }
}

int mm__index_block(const unsigned char *rows, int64_t first, int64_t n, void *user)
{
    mm__index_ctx *c = user;
    for (int64_t i = 0; i < n; i++) {
        const unsigned char *p = rows + (size_t)i * c->row_bytes + c->col_off;
        mm__ipair *d = &c->pairs[first + i];
        d->row = first + i;
        if (c->type == MM_COL_F64) {
            double v;
            memcpy(&v, p, 8);
            d->key = mm__index_key_f64(v);
        } else {
            int64_t v;
            memcpy(&v, p, 8);
            d->key = mm__index_key_i64(v);
        }
    }
    return 0;
}
