/* The sort of the shared states' keys (sim_share.h includes it): share_merge's runs of equal
 * states, the lanes kernel's groups by half spread and its loose leaders by first event. */
#ifndef MM_SIM_SHARE_SORT_H
#define MM_SIM_SHARE_SORT_H

#include <stdint.h>

#include "mm_accel.h"

/* The keys' order: by h, then the larger limit first, then by j (a total order: j differs). */
static inline int share_key_less(const mm__share_key *x, const mm__share_key *y)
{
    if (x->h != y->h) return x->h < y->h;
    if (x->limit != y->limit) return x->limit > y->limit;
    return x->j < y->j;
}

/* Sorts a[0 .. n) in share_key_less's order: quicksort (median of three, the smaller side first, so
 * at most log2 n ranges wait), insertion sort below 16 keys. (glibc's qsort, a merge sort calling
 * the comparison through a pointer, was 3% of a BTC sweep's instructions; the order is the same.)
 */
static void share_sort(mm__share_key *a, int64_t n)
{
    int64_t wait[128], nw = 0, lo = 0, hi = n - 1;
    mm__share_key t;
#define MM_KEY_SWAP(x, y) (t = a[x], a[x] = a[y], a[y] = t)
    for (;;) {
        while (hi - lo >= 16) {
            int64_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
            if (share_key_less(&a[mid], &a[lo])) MM_KEY_SWAP(mid, lo);
            if (share_key_less(&a[hi], &a[mid])) {
                MM_KEY_SWAP(hi, mid);
                if (share_key_less(&a[mid], &a[lo])) MM_KEY_SWAP(mid, lo);
            }
            mm__share_key p = a[mid];
            while (i <= j) {
                while (share_key_less(&a[i], &p))
                    i++;
                while (share_key_less(&p, &a[j]))
                    j--;
                if (i <= j) {
                    MM_KEY_SWAP(i, j);
                    i++;
                    j--;
                }
            }
            if (j - lo < hi - i) { /* [lo, j] now, [i, hi] later */
                wait[nw++] = i;
                wait[nw++] = hi;
                hi = j;
            } else {
                wait[nw++] = lo;
                wait[nw++] = j;
                lo = i;
            }
        }
        for (int64_t i = lo + 1; i <= hi; i++) {
            int64_t k = i;
            t = a[i];
            for (; k > lo && share_key_less(&t, &a[k - 1]); k--)
                a[k] = a[k - 1];
            a[k] = t;
        }
        if (!nw) break;
        hi = wait[--nw];
        lo = wait[--nw];
    }
#undef MM_KEY_SWAP
}

#endif
