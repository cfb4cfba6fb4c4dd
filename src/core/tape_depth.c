/* The depth stream's index of a tape (book = l2, l3; docs/model.md 4.5), built by mm__tape_init. */
#include <errno.h>
#include <stdlib.h>

#include "mm_depthq.h"
#include "sim_tape.h"

/* Section 4.5: the depth stream's index for book = l2 (mm__depth_view): each event's rows (dbeg)
 * and the rows of each level, (side, price) ascending, each level's rows in row order. One sort of
 * (key, row index) pairs, 16 bytes a depth row while it runs; the index keeps 8 bytes a depth row,
 * 16 a level and 8 an event. */
typedef struct depth_pair {
    int64_t key, j;
} depth_pair;

static int depth_pair_cmp(const void *x, const void *y)
{
    const depth_pair *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

int mm__tape_depth(mm__tape *tp)
{
    const mm_depth *dp = &tp->t->depth;
    int64_t n = tp->t->n, nd = dp->n;
    size_t nd1 = (size_t)(nd > 0 ? nd : 1);
    depth_pair *pr = malloc(nd1 * sizeof *pr);
    tp->dbeg = malloc(((size_t)n + 1) * sizeof(int64_t));
    tp->lv_idx = malloc(nd1 * sizeof(int64_t));
    tp->lv_key = malloc(nd1 * sizeof(int64_t));
    tp->lv_beg = malloc((nd1 + 1) * sizeof(int64_t));
    if (!pr || !tp->dbeg || !tp->lv_idx || !tp->lv_key || !tp->lv_beg) {
        free(pr);
        return -ENOMEM;
    }
    for (int64_t i = 0, j = 0; i <= n; i++) { /* rows are non-decreasing (validated on load) */
        while (j < nd && dp->row[j] < i)
            j++;
        tp->dbeg[i] = j;
    }
    for (int64_t j = 0; j < nd; j++) {
        pr[j].key = mm__level_key(dp->side[j] > 0 ? 0 : 1, dp->px[j]);
        pr[j].j = j;
    }
    qsort(pr, (size_t)nd, sizeof *pr, depth_pair_cmp);
    int64_t nlv = 0;
    for (int64_t j = 0; j < nd; j++) {
        if (j == 0 || pr[j].key != pr[j - 1].key) {
            tp->lv_key[nlv] = pr[j].key;
            tp->lv_beg[nlv++] = j;
        }
        tp->lv_idx[j] = pr[j].j;
    }
    tp->lv_beg[nlv] = nd;
    free(pr);
    mm__depth_view *dv = &tp->dv;
    dv->n = nd;
    dv->nlv = nlv;
    dv->row = dp->row;
    dv->join = dp->join;
    dv->px = dp->px;
    dv->sz = dp->sz;
    dv->side = dp->side;
    dv->cause = dp->cause;
    dv->dbeg = tp->dbeg;
    dv->lv_key = tp->lv_key;
    dv->lv_beg = tp->lv_beg;
    dv->lv_idx = tp->lv_idx;
    tp->v.dv = dv;
    return 0;
}
