/* The batched kernel's text (included once per instruction set, by sim_batch.c for the baseline and
 * by sim_batch_avx2.c and sim_batch_avx512.c, each defining MM_ISA_ATTR, the target attribute
 * or nothing; the kernel is the static function skip_advance of that file): the same
 * operations in the same order every time (integers in the skip test; the step's floating point
 * with no contraction), so every version gives the same bits, and the baseline build is the
 * compiler's code for it as a plain function. tests/checkmodel checks each version. */
__attribute__((flatten)) MM_ISA_ATTR static void skip_advance(const mm__tape *tp,
                                                              const mm_derived *d, mm_state *st,
                                                              const mm__guards *g, int64_t m,
                                                              int64_t i0, int64_t i1)
{
    const mm__tape_view *v = &tp->v;
    assert(i0 >= 0 && i0 <= i1 && i1 <= v->n && m >= 0 && m <= g->cap && m <= INT32_MAX);
    /* The combinations ordered by kind (a counting sort into perm): kind k holds positions
     * [beg[k], beg[k + 1]). */
    int64_t beg[MM_KINDS + 1] = {0};
    for (int64_t j = 0; j < m; j++)
        beg[mm__guard_kind(&d[j]) + 1]++;
    for (int k = 1; k <= MM_KINDS; k++)
        beg[k] += beg[k - 1];
    int64_t at[MM_KINDS];
    for (int k = 0; k < MM_KINDS; k++)
        at[k] = beg[k];
    for (int64_t j = 0; j < m; j++)
        g->perm[at[mm__guard_kind(&d[j])]++] = (int32_t)j;
    int32_t *restrict lo = g->lo, *restrict hi = g->hi, *restrict landi = g->landi;
    uint8_t *restrict need = g->need;
    uint8_t *restrict live = g->live;
    int64_t m8 = (m + 7) / 8 * 8;
    memset(need, 0, (size_t)m8);
#ifdef MM_SKIP_SETTLE
    /* Deferred samples (docs/model.md 8): the parked members' samples wait in g->sw and are taken
     * in vectors (sim_lanes_settle.h) when their leader's log is replayed, the list is full or the
     * kernel returns. */
    mm__samp_list *sw = g->sw;
    sw->settle = MM_SKIP_SETTLE;
    sw->n = 0;
#else
    g->sw->settle = NULL; /* the members sample at once (below) */
#endif
    int depth_books = 0; /* combinations with book = l2, l3 (their depth rows, mm__depth_touch) */
    for (int64_t j = 0; j < m; j++)
        depth_books |= d[j].book != MM_BOOK_L1;
    mm_event ev, ev_ns;
    mm__gate gt;
    int64_t steps = 0, shared = 0; /* shared: slots of parked combinations */
    for (int64_t w0 = i0; w0 < i1; w0 += MM_SHARE_WINDOW) {
        int64_t w1 = i1 - w0 < MM_SHARE_WINDOW ? i1 : w0 + MM_SHARE_WINDOW;
        /* Shared states, merged again each window: parked positions (live[q] = 0) never step;
         * their leaders step for them. */
        int64_t parked = share_park(d, st, g, m, w0 == i0, v->ts_ns[w0], w0);
        shared += parked * (w1 - w0);
        for (int k = 0; k < MM_KINDS; k++)
            for (int64_t q = beg[k]; q < beg[k + 1]; q++)
                if (live[q])
                    guard_set(g, q, &st[g->perm[q]], &d[g->perm[q]], k, NULL, v, w0, w1, w0);
        for (int64_t i = w0; i < w1; i++) {
            mm__event(v, i, &ev);
            mm__gate_of(&ev, &gt);
            /* Pass 1: which combinations must run the step (mm__can_skip, on the int32 guards):
             * a whole kind when the event concerns it, else a branch-free test the compiler
             * vectorises. */
            const int32_t tb = (int32_t)gt.tb, ta = (int32_t)gt.ta, ir = (int32_t)(i - w0);
            const int32_t tbi = (int32_t)gt.tbi, tbx = (int32_t)gt.tbx;
            const int32_t tai = (int32_t)gt.tai, tax = (int32_t)gt.tax;
            /* Whether any price lies strictly inside the spread on either side's band: where none
             * does (a one-tick spread), the bands tbi < p < tbx and tax < p < tai are empty and the
             * shorter test is the same test. */
            const int inside = (int64_t)tbi + 1 < tbx || (int64_t)tax + 1 < tai;
            const double fair = gt.fair;
            const double *restrict flo = g->flo, *restrict fhi = g->fhi;
            for (int k = 0; k < MM_KINDS; k++) {
                if (gt.must[k]) {
                    memcpy(need + beg[k], live + beg[k], (size_t)(beg[k + 1] - beg[k]));
                    continue;
                }
                if (k == MM_KIND_BAND) {
                    for (int64_t q = beg[k]; q < beg[k + 1]; q++) {
                        int32_t l = lo[q], h = hi[q];
                        int quiet = ((l < tb) | ((l > tbi) & (l < tbx))) &
                                    ((h > ta) | ((h < tai) & (h > tax))) & (fair >= flo[q]) &
                                    (fair <= fhi[q]);
                        need[q] = (uint8_t)(((quiet ^ 1) | (landi[q] <= ir)) & live[q]);
                    }
                    continue;
                }
                if (!inside) { /* no price inside the spread: the test of section 8 before it */
                    for (int64_t q = beg[k]; q < beg[k + 1]; q++)
                        need[q] =
                            (uint8_t)(((lo[q] >= tb) | (hi[q] <= ta) | (landi[q] <= ir)) & live[q]);
                    continue;
                }
                for (int64_t q = beg[k]; q < beg[k + 1]; q++) {
                    int32_t l = lo[q], h = hi[q];
                    int quiet =
                        ((l < tb) | ((l > tbi) & (l < tbx))) & ((h > ta) | ((h < tai) & (h > tax)));
                    need[q] = (uint8_t)(((quiet ^ 1) | (landi[q] <= ir)) & live[q]);
                }
            }
            /* book = l2, l3: a depth row at a live order's price steps it (mm__depth_touch). */
            if (depth_books && ev.d1 > ev.d0)
                for (int64_t q = 0; q < m; q++) {
                    int32_t j = g->perm[q];
                    if (live[q] && !need[q] && d[j].book != MM_BOOK_L1)
                        need[q] = (uint8_t)mm__depth_touch(&st[j], &ev);
                }
            /* The PnL samples of the combinations that skip (section 2: the step takes them
             * first, from the state before the event, which the skip leaves as it is). */
            if (ev.n_samples)
                for (int k = 0; k < MM_KINDS; k++)
                    for (int64_t q = beg[k]; q < beg[k + 1]; q++)
                        if (live[q] && !need[q]) mm__sample(&st[g->perm[q]], &ev, &d[g->perm[q]]);
#ifdef MM_SKIP_SETTLE
            /* And those of the parked members (from their own position, cash and fees, once they
             * replayed their leaders' logs): listed for later, before any split of this event
             * settles them through it. */
            if (ev.n_samples) {
                if (sw->n == MM_SAMP_LIST) MM_SKIP_SETTLE_ALL(g, d, st, m, i - 1);
                sw->ev[sw->n] = i;
                sw->mid2[sw->n] = ev.prev_mid2;
                sw->ns[sw->n++] = ev.n_samples;
            }
#else
            /* And those of the parked members, at once. */
            if (ev.n_samples && parked)
                for (int64_t q = 0; q < m; q++)
                    if (!live[q]) {
                        share_flush(g, d, st, g->perm[q]);
                        mm__sample(&st[g->perm[q]], &ev, &d[g->perm[q]]);
                    }
#endif
            /* Pass 2: run them, 8 flags at a time. */
            for (int64_t q8 = 0; q8 < m8; q8 += 8) {
                uint64_t w;
                memcpy(&w, need + q8, 8);
                while (w) {
                    int b = __builtin_ctzll(w) / 8;
                    w &= ~(UINT64_C(0xff) << (8 * b));
                    int64_t q = q8 + b, j = g->perm[q];
                    int kq = kind_at(beg, q);
                    int64_t *rest = &g->rest[2 * j];
                    /* One call site of the step (inlined once): a leader keeps its state
                     * before, as its members share the step unless it fills. */
                    const int lead = g->fhead[j] >= 0;
                    mm_state pre;
                    int64_t prest[2] = {rest[0], rest[1]};
                    if (lead) memcpy(&pre, &st[j], sizeof pre);
                    share_step(&st[j], rest, &ev, &d[j], NULL);
                    steps++;
                    if (lead) {
                        if (!share_clean(&pre, &st[j])) {
                            ev_ns = ev;
                            ev_ns.n_samples = 0; /* taken above */
                            int64_t nl = 0;
                            steps += share_split(g, d, st, (int32_t)j, &pre, prest, &ev_ns, g->tmp,
                                                 &nl, &shared, w1 - i, NULL);
                            for (int64_t k = 0; k < nl; k++) {
                                int32_t f = g->tmp[k], p = g->pos[f];
                                guard_set(g, p, &st[f], &d[f], kind_at(beg, p), &ev, v, i + 1, w1,
                                          w0);
                            }
                        }
                    }
                    guard_set(g, q, &st[j], &d[j], kq, &ev, v, i + 1, w1, w0);
                }
            }
        }
    }
#ifdef MM_SKIP_SETTLE
    /* Every member current, for the return (an empty range parked no one: the shared states'
     * lists were never made, share_park). */
    if (i1 > i0) MM_SKIP_SETTLE_ALL(g, d, st, m, i1 - 1);
#endif
    share_unpark_all(d, st, g, m);
    g->count[MM_COUNT_STEPS] += steps;
    g->count[MM_COUNT_SLOTS] += (i1 - i0) * m;
    g->count[MM_COUNT_SHARED] += shared;
}
