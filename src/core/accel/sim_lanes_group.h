/* The lanes kernel's drivers (sim_lanes.h includes this text at its end, with its macros): a
 * combination stepped by mm_step_c (step1), one group of lanes through a window (group), and the
 * kernel over a block (lanes_advance): windows of MM_LANES_WINDOW events, the live combinations in
 * groups of MM_W, then the leaders that splits made during the window in groups of their own. */

/* One event of combination j by mm_step_c, for a leader of shared states also its members'
 * (share_split when the step was not clean, the new leaders appended to loose; the members'
 * samples wait for lanes_settle). */
static void lanes_step1(const mm__guards *g, const mm_derived *d, mm_state *st, int32_t j,
                        const mm_event *ev, int32_t *loose, int64_t *nloose, int64_t *shared,
                        int64_t left)
{
    int64_t *rest = &g->rest[2 * (int64_t)j];
    if (g->fhead[j] < 0) {
        share_step_out(&st[j], rest, ev, &d[j], NULL);
        return;
    }
    mm_state pre;
    int64_t prest[2] = {rest[0], rest[1]};
    memcpy(&pre, &st[j], sizeof pre);
    /* The step records its fills for the members (the trace reads the state, never writes it). */
    mm__share_fills fl;
    fl.n = fl.over = 0;
    mm_trace_sink sink = {share_record, &fl, 1};
    share_step_out(&st[j], rest, ev, &d[j], &sink);
    if (share_clean(&pre, &st[j])) return;
    mm_event ev_ns = *ev;
    ev_ns.n_samples = 0;
    share_split(g, d, st, j, &pre, prest, &ev_ns, loose, nloose, shared, left, &fl);
}

/* What the groups of one window share: the window [w0, w1) (its events g->evs, their gates
 * g->gates), the leaders that splits made during it (loose[0..nloose), each joining the vectors at
 * event w0 + at[k]) and the counts of the kernel. */
typedef struct lanes_run {
    const mm__guards *g;
    const mm_derived *d;
    mm_state *st;
    int64_t w0, w1;
    int32_t *loose, *at;
    int64_t nloose, skipped, scalar, shared;
} lanes_run;

/* step1 at event i; the leaders its split makes step from the next event on (they stepped i). */
LANES_INLINE void lanes_step1_at(lanes_run *r, int32_t j, const mm_event *ev, int64_t i)
{
    int64_t n0 = r->nloose;
    lanes_step1(r->g, r->d, r->st, j, ev, r->loose, &r->nloose, &r->shared, r->w1 - i);
    for (int64_t k = n0; k < r->nloose; k++)
        r->at[k] = (int32_t)(i + 1 - r->w0);
}

/* One group: the nl <= MM_W combinations cj[], lane l from event w0 + at[l] (at NULL: all from w0;
 * a lane is neither tested nor stepped before) to the window's end. */
MM_ISA_ATTR static void lanes_group(lanes_run *r, const int32_t *cj, const int32_t *at, int nl)
{
    const mm__guards *g = r->g;
    const mm_derived *d = r->d;
    mm_state *st = r->st;
    lanes_st x;
    lanes_cst c;
    memset(&x, 0, sizeof x);
    memset(&c, 0, offsetof(lanes_cst, dr)); /* the draws' fields when a lane draws (below) */
    int draws = 0;
    mm__vi vec = mm__vi_b(0);                     /* lanes the vectors step */
    mm__vi kind1 = vec, kind2 = vec, other = vec; /* their kinds (mm__guard_kind) */
    int sca[MM_W] = {0}; /* lanes mm_step_c steps on every event (2: from their first event) */
    int32_t from[MM_W];  /* each lane's first event, relative to w0 */
    int32_t first = INT32_MAX, next = INT32_MAX; /* the group's first event; the next to join */
    for (int l = 0; l < nl; l++) {
        from[l] = at ? at[l] : 0;
        if (from[l] < first) first = from[l];
    }
    for (int l = 0; l < nl; l++) {
        const mm_derived *dl = &d[cj[l]];
        const mm_state *sl = &st[cj[l]];
        if (!mm__lanes_ok(dl) || sl->ovf_event || sl->hold[0] || sl->hold[1]) {
            sca[l] = 1;
            continue;
        }
        vec[l] = -1;
        /* Kind 3 (MM_KIND_BAND) takes kind 2's test: with the book as it was, so its microprice,
         * its targets are its last decision's (section 8, "Lanes"). */
        int kind = mm__guard_kind(dl), k2 = kind == 2 || kind == MM_KIND_BAND;
        kind1[l] = kind == 1 ? -1 : 0;
        kind2[l] = k2 ? -1 : 0;
        other[l] = kind != 1 && !k2 ? -1 : 0;
        if (from[l] == first)
            lanes_get(&x, l, sl, &r->g->rest[2 * (int64_t)cj[l]]); /* the others when they join */
        c.hs0[l] = dl->hs0;
        c.hs1[l] = dl->hs1;
        c.sk0[l] = dl->sk0;
        c.sk1[l] = dl->sk1;
        c.money[l] = dl->money;
        c.tv[l] = dl->time_varying ? -1 : 0;
        c.micro[l] = dl->fair_micro ? -1 : 0;
        c.tto[l] = dl->tto ? -1 : 0;
        c.cj[l] = dl->cross_join ? -1 : 0;
        c.ra[l] = dl->queue_rule == MM_QUEUE_RISK_AVERSE ? -1 : 0;
        c.limit[l] = dl->limit;
        c.size[l] = dl->size;
        c.requote[l] = dl->requote;
        c.delay[l] = dl->feed_ns + dl->entry_ns;
        c.resp[l] = dl->resp_ns;
        c.dp[l] = dl->book != MM_BOOK_L1 ? -1 : 0;
        c.l3[l] = dl->book == MM_BOOK_L3 ? -1 : 0;
        if (!dl->draws) continue;
        if (!draws) memset(&c.dr, 0, sizeof c - offsetof(lanes_cst, dr));
        draws = 1;
        c.dr[l] = dl->lat_dist != MM_LAT_CONSTANT ? -1 : 0;
        c.ju[l] = dl->join_uniform ? -1 : 0;
        c.rc[l] = dl->reach32 <= UINT32_MAX ? -1 : 0;
        c.dl[l] = dl;
        c.key[l] = sl->key;
        c.ln[l] = dl->lat_dist == MM_LAT_LOGNORMAL ? -1 : 0;
        c.ex[l] = dl->lat_dist == MM_LAT_EXPONENTIAL ? -1 : 0;
        c.em[l] = dl->lat_dist == MM_LAT_EMPIRICAL ? -1 : 0;
        c.sigma[l] = dl->lat_sigma;
        c.ebase[l] = (double)dl->entry_ns;
        c.rbase[l] = (double)dl->resp_ns;
        uint32_t k0 = (uint32_t)sl->key, k1 = (uint32_t)(sl->key >> 32);
        for (int r = 0; r < 10; r++, k0 += 0x9E3779B9u, k1 += 0xBB67AE85u) {
            c.rk0[r][l] = k0;
            c.rk1[r][l] = k1;
        }
    }
    /* (Over every lane, joined or not: a flag only chooses a branch that masks per lane.) */
    c.any_tv = MM_LANES_ANY(c.tv & vec);
    c.any_micro = MM_LANES_ANY(c.micro & vec);
    c.any_tto = MM_LANES_ANY(c.tto & vec);
    c.any_cj = MM_LANES_ANY(c.cj & vec);
    c.all_ra = !MM_LANES_ANY(~c.ra & vec);
    c.any_dp = MM_LANES_ANY(c.dp & vec);
    if (draws) {
        c.any_dr = MM_LANES_ANY(c.dr & vec);
        c.any_ln = MM_LANES_ANY(c.ln & vec);
        c.any_ex = MM_LANES_ANY(c.ex & vec);
        c.any_em = MM_LANES_ANY(c.em & vec);
        c.any_ju = MM_LANES_ANY(c.ju & vec);
        c.any_rc = MM_LANES_ANY(c.rc & vec);
    }
    mm__vi later = vec; /* vector lanes still to join */
    int nsca = 0;
    for (int l = 0; l < nl; l++) {
        if (from[l] > first) {
            if (from[l] < next) next = from[l];
            if (sca[l]) sca[l] = 2;
            vec[l] = 0;
        } else {
            later[l] = 0;
            nsca += sca[l];
        }
    }
    int64_t nvec = 0; /* lanes in vec */
    for (int l = 0; l < nl; l++)
        nvec += vec[l] != 0;
    mm__vi lo = vec, hi = vec, land = vec; /* the skip test's, while fresh */
    int fresh = 0;
    for (int64_t i = r->w0 + first; i < r->w1; i++) {
        const mm_event *ev = &g->evs[i - r->w0];
        const mm__gate *gt = &g->gates[i - r->w0];
        if (i - r->w0 == next) { /* lanes join */
            next = INT32_MAX;
            for (int l = 0; l < nl; l++) {
                if (from[l] > i - r->w0) {
                    if (from[l] < next) next = from[l];
                    continue;
                }
                if (later[l]) { /* (the vectors stepped its lane with the others: read it now) */
                    lanes_get(&x, l, &st[cj[l]], &r->g->rest[2 * (int64_t)cj[l]]);
                    later[l] = 0;
                    vec[l] = -1;
                    nvec++;
                    fresh = 0;
                } else if (sca[l] == 2) {
                    sca[l] = 1;
                    nsca++;
                }
            }
        }
        for (int l = 0; nsca && l < nl; l++)
            if (sca[l] == 1) lanes_step1_at(r, cj[l], ev, i);
        if (!nvec) continue;
        /* The skip test of section 8 for the whole group (kinds 1, 2 and 3 only): when every lane
         * may skip, only the samples are taken. */
        mm__vi must =
            other | (gt->must[1] ? kind1 : mm__vi_b(0)) | (gt->must[2] ? kind2 : mm__vi_b(0));
        if (!MM_LANES_ANY(must & vec)) {
            if (!fresh) { /* the lanes' quotes and next action, until a step moves them */
                lo = mm__vi_sel(x.qty[0] > 0, x.px[0], mm__vi_b(INT64_MIN));
                hi = mm__vi_sel(x.qty[1] > 0, x.px[1], mm__vi_b(INT64_MAX));
                land = mm__vi_sel(x.land[0] < x.land[1], x.land[0], x.land[1]);
                land = mm__vi_sel(land < x.wake, land, x.wake);
                fresh = 1;
            }
            mm__vi quiet = (land > gt->ts) & ((lo < gt->tb) | ((lo > gt->tbi) & (lo < gt->tbx))) &
                           ((hi > gt->ta) | ((hi < gt->tai) & (hi > gt->tax)));
            /* book = l2, l3: a depth row at a live order's price steps it (mm__depth_touch). */
            if (c.any_dp && ev->d1 > ev->d0) {
                mm__vi m = vec & c.dp & quiet;
                if (MM_LANES_ANY(m)) quiet &= ~lanes_depth_touch(ev, &m, x.px, x.qty);
            }
            if (!MM_LANES_ANY(vec & ~quiet)) {
                if (ev->n_samples) lanes_sample(&x, &c, ev, &vec);
                r->skipped += nvec;
                continue;
            }
        }
        mm__vi rare;
        if (draws && c.any_dp)
            lanes_step(&x, &c, ev, &vec, &rare, 1, 1);
        else if (draws)
            lanes_step(&x, &c, ev, &vec, &rare, 1, 0);
        else if (c.any_dp)
            lanes_step(&x, &c, ev, &vec, &rare, 0, 1);
        else
            lanes_step(&x, &c, ev, &vec, &rare, 0, 0);
        fresh = 0; /* a step may move the quotes */
        if (!MM_LANES_ANY(rare)) continue;
        for (int l = 0; l < nl; l++) {
            if (!rare[l]) continue;
            mm_state *s = &st[cj[l]];
            int64_t *rest = &r->g->rest[2 * (int64_t)cj[l]];
            lanes_put(&x, l, s, rest);
            lanes_step1_at(r, cj[l], ev, i);
            lanes_get(&x, l, s, rest);
            r->scalar++;
            if (s->ovf_event) { /* from now on, mm_step_c alone */
                vec[l] = 0;
                nvec--;
                sca[l] = 1;
                nsca++;
            }
        }
    }
    for (int l = 0; l < nl; l++)
        if (vec[l]) lanes_put(&x, l, &st[cj[l]], &r->g->rest[2 * (int64_t)cj[l]]);
}

MM_ISA_ATTR static void lanes_advance(const mm__tape *tp, const mm_derived *d, mm_state *st,
                                      const mm__guards *g, int64_t m, int64_t i0, int64_t i1)
{
    const mm__tape_view *v = &tp->v;
    assert(i0 >= 0 && i0 <= i1 && i1 <= v->n && m >= 0 && m <= g->cap);
    /* Shared states (section 8), as in the skip kernel, merged again each window: parked members
     * (live[j] = 0; positions are combinations here, perm the identity) are in no group; their
     * leaders take their samples and, when a step is not clean, split them. act[] (in tmp) lists
     * the live combinations of a window, loose[] (in landi, unused by this kernel; their first
     * events in hi) the leaders a split made during the window: once the window's groups are done,
     * they step in groups of their own, in the order of their first event (in key), from there to
     * the window's end; then they join the groups. */
    for (int64_t j = 0; j < m; j++)
        g->perm[j] = (int32_t)j;
    g->sw->settle = lanes_settle;
    g->sw->n = 0;
    int32_t *act = g->tmp, *order = g->lo;
    lanes_run r = {g, d, st, 0, 0, g->landi, g->hi, 0, 0, 0, 0};
    /* Groups of combinations that quote alike: the live ones in the order of their half spread
     * (then their own), so that a group's lanes are often quiet at the same events. */
    for (int64_t j = 0; j < m; j++) {
        uint64_t b;
        memcpy(&b, &d[j].hs0, 8);
        b = b >> 63 ? ~b : b | (UINT64_C(1) << 63); /* the doubles' order as unsigned integers */
        g->key[j] = (mm__share_key){b, INT32_MAX, (int32_t)j};
    }
    share_sort(g->key, m);
    for (int64_t j = 0; j < m; j++)
        order[j] = g->key[j].j;
    /* The merge (share_park) at a window's start, backed off: after a merge that parked no one
     * new, the next window has none (at most MM_LANES_MERGE_GAP windows apart); one that parks
     * anyone brings it back to every window. Sharing changes no bit (section 8), only the work:
     * on the peer grid the merge and its sort were about 9% of the BTCUSDT spot day's CPU, most
     * of them finding nothing (docs/perf.md, "Session 24"). */
    int64_t gap = 1, merge_at = i0, parked = 0;
    for (int64_t w0 = i0; w0 < i1; w0 += MM_LANES_WINDOW) {
        int64_t w1 = i1 - w0 < MM_LANES_WINDOW ? i1 : w0 + MM_LANES_WINDOW;
        if (w0 > i0) { /* the members still parked (splits unpark some) */
            parked = 0;
            for (int64_t j = 0; j < m; j++)
                parked += g->lead[j] >= 0;
        }
        if (w0 >= merge_at) {
            int64_t before = parked;
            parked = share_park(d, st, g, m, w0 == i0, v->ts_ns[w0], w0);
            gap = parked > before || w0 == i0 ? 1 : MM_LANES_MERGE_GAP;
            merge_at = w0 + gap * MM_LANES_WINDOW;
        }
        r.shared += parked * (w1 - w0);
        r.w0 = w0;
        r.w1 = w1;
        /* The window's events with samples join the list (when it is full, every member takes
         * its samples first). */
        mm__samp_list *sw = g->sw;
        if (sw->n > MM_SAMP_LIST - MM_LANES_WINDOW) lanes_settle_all(g, d, st, m, w0 - 1);
        for (int64_t i = w0; i < w1; i++) {
            mm_event *ev = &g->evs[i - w0];
            mm__event(v, i, ev);
            mm__gate_of(ev, &g->gates[i - w0]);
            if (ev->n_samples) {
                sw->ev[sw->n] = i;
                sw->mid2[sw->n] = ev->prev_mid2;
                sw->ns[sw->n++] = ev->n_samples;
            }
        }
        int64_t nact = 0;
        for (int64_t k = 0; k < m; k++)
            if (g->live[order[k]]) act[nact++] = order[k];
        for (int64_t j0 = 0; j0 < nact; j0 += MM_W)
            lanes_group(&r, act + j0, NULL, nact - j0 < MM_W ? (int)(nact - j0) : MM_W);
        while (r.nloose) { /* (the groups of loose leaders may split again) */
            int64_t nb = 0;
            for (int64_t k = 0; k < r.nloose; k++)
                if (r.at[k] < w1 - w0)
                    g->key[nb++] = (mm__share_key){(uint64_t)r.at[k], 0, r.loose[k]};
            r.nloose = 0;
            share_sort(g->key, nb);
            for (int64_t b0 = 0; b0 < nb; b0 += MM_W) {
                int32_t cj[MM_W], at[MM_W];
                int nl = nb - b0 < MM_W ? (int)(nb - b0) : MM_W;
                for (int l = 0; l < nl; l++) {
                    cj[l] = g->key[b0 + l].j;
                    at[l] = (int32_t)g->key[b0 + l].h;
                }
                lanes_group(&r, cj, at, nl);
            }
        }
    }
    if (i1 > i0) lanes_settle_all(g, d, st, m, i1 - 1); /* every member current, for the return */
    share_unpark_all(d, st, g, m);
    g->count[MM_COUNT_STEPS] += (i1 - i0) * m - r.skipped - r.shared;
    g->count[MM_COUNT_SLOTS] += (i1 - i0) * m;
    g->count[MM_COUNT_SHARED] += r.shared;
    g->count[MM_COUNT_LANES] += (i1 - i0) * m;
    g->count[MM_COUNT_RARE] += r.scalar;
}
