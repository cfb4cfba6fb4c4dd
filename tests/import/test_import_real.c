/* Importers on the real captures in ../shared/data (MMSIM_SHARED_DATA): LOBSTER AMZN (1 level) and
 * GOOG (5 levels) against their own orderbook files row by row, the Binance USD-M capture, and the
 * two Binance spot days alone and as one tape. The program exits 77 (Meson: SKIP) when any of these
 * files is absent, so that a green run never hides real data it did not read. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "mmsim/import.h"
#include "testutil.h"

static const char *const REAL_FILES[] = {
    "lobster/AMZN_2012-06-21_34200000_57600000_message_1.csv.gz",
    "lobster/AMZN_2012-06-21_34200000_57600000_orderbook_1.csv.gz",
    "lobster/GOOG_2012-06-21_34200000_57600000_message_5.csv.gz",
    "lobster/GOOG_2012-06-21_34200000_57600000_orderbook_5.csv.gz",
    "binance/usdm_btcusdt_20240808.gz",
    "binance/spot_btcusdt_20240808.gz",
    "binance/spot_btcusdt_20240809.gz",
};

/* Before Criterion's main: with any file missing, exit 77 at once (Meson counts the test as
 * skipped). A constructor rather than a main of our own: Criterion's workers re-enter main. */
__attribute__((constructor)) static void require_real_data(void)
{
    const char *dir = tu_shared_data();
    if (!dir) {
        printf("SKIP: no shared data directory (MMSIM_SHARED_DATA)\n");
        fflush(stdout);
        _exit(77);
    }
    for (size_t i = 0; i < sizeof REAL_FILES / sizeof *REAL_FILES; i++) {
        char p[1024];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, REAL_FILES[i]);
        if (stat(p, &st)) {
            printf("SKIP: %s not found\n", p);
            fflush(stdout);
            _exit(77);
        }
    }
}

static const char *real(const char *rel)
{
    static char p[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", tu_shared_data(), rel);
    return p[k];
}

TestSuite(lobster_real, .fini = tu_cleanup);
TestSuite(binance_real, .fini = tu_cleanup);

static void check_real(const char *sym, int levels)
{
    const char *dir = tu_shared_data(); /* main() checked that every file is there */
    char mp[512], op[512];
    snprintf(mp, sizeof mp, "%s/lobster/%s_2012-06-21_34200000_57600000_message_%d.csv.gz", dir,
             sym, levels);
    snprintf(op, sizeof op, "%s/lobster/%s_2012-06-21_34200000_57600000_orderbook_%d.csv.gz", dir,
             sym, levels);
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = sym;
    o.date = "2012-06-21";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_lobster(mp, op, &o, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_eq(rep.levels, levels);
    cr_assert_eq(mm_ticks_validate(&t, sym, &e), 0, "%s", e.msg);
    /* Independent reading of both files. */
    gzFile mg = gzopen(mp, "rb"), og = gzopen(op, "rb");
    cr_assert(mg && og);
    char ml[512], ol[4096];
    int64_t i = 0, by_type[8] = {0}, trades_by_type[8] = {0};
    const int64_t day_utc_ns =
        (INT64_C(15512) * 86400 + 4 * 3600) * INT64_C(1000000000); /* 2012-06-21 EDT */
    while (gzgets(mg, ml, sizeof ml)) {
        cr_assert(gzgets(og, ol, sizeof ol), "orderbook shorter at row %ld", (long)i);
        cr_assert_lt(i, t.n);
        long long sec, frac, id, size, px, dirn, apx, asz, bpx, bsz;
        int type;
        char fs[16];
        cr_assert_eq(sscanf(ml, "%lld.%9[0-9],%d,%lld,%lld,%lld,%lld", &sec, fs, &type, &id, &size,
                            &px, &dirn),
                     7);
        frac = atoll(fs);
        for (size_t k = strlen(fs); k < 9; k++)
            frac *= 10;
        cr_assert_eq(sscanf(ol, "%lld,%lld,%lld,%lld", &apx, &asz, &bpx, &bsz), 4);
        cr_assert_eq(t.ts_ns[i], day_utc_ns + sec * 1000000000 + frac, "row %ld time", (long)i);
        if (asz)
            cr_assert_eq((long long)t.ask_px[i] * 100, apx, "row %ld ask", (long)i);
        else
            cr_assert_eq(t.ask_px[i], MM_PX_NONE_ASK);
        if (bsz)
            cr_assert_eq((long long)t.bid_px[i] * 100, bpx, "row %ld bid", (long)i);
        else
            cr_assert_eq(t.bid_px[i], MM_PX_NONE_BID);
        cr_assert_eq(t.ask_sz[i], asz, "row %ld ask size", (long)i);
        cr_assert_eq(t.bid_sz[i], bsz, "row %ld bid size", (long)i);
        by_type[type]++;
        if (type >= 4 && type <= 6) {
            trades_by_type[type] += t.trade_sz[i] > 0;
            cr_assert_eq(t.trade_sz[i], size, "row %ld trade size", (long)i);
            cr_assert_eq(t.trade_side[i], -dirn, "row %ld: execution of a direction %lld order",
                         (long)i, dirn);
            long long tp = (long long)t.trade_px[i] * 100;
            if (px % 100 == 0)
                cr_assert_eq(tp, px, "row %ld trade price", (long)i);
            else
                cr_assert_eq(tp, dirn == -1 ? px / 100 * 100 : px / 100 * 100 + 100,
                             "row %ld sub-tick", (long)i);
        } else {
            cr_assert_eq(t.trade_sz[i], 0, "row %ld (type %d) carries no trade", (long)i, type);
        }
        i++;
    }
    cr_assert(!gzgets(og, ol, sizeof ol), "orderbook longer than the message file");
    gzclose(mg);
    gzclose(og);
    cr_assert_eq(i, t.n);
    for (int k = 1; k <= 7; k++)
        cr_assert_eq(rep.msg_by_type[k], by_type[k], "type %d", k);
    for (int k = 4; k <= 6; k++)
        cr_assert_eq(trades_by_type[k], by_type[k], "trades of type %d", k);
    cr_assert_eq(rep.trades, by_type[4] + by_type[5] + by_type[6]);
    cr_assert_eq(rep.crossed_rows, 0);
    cr_assert_eq(t.inst.allow_crossed, 0);
    /* The CLI writes the same tape. */
    const char *h5 = tu_path("real.h5");
    const char *argv[] = {"mmsim",       "import", "lobster", "--message",  mp,
                          "--orderbook", op,       "--date",  "2012-06-21", "--symbol",
                          sym,           "-o",     h5,        NULL};
    char *out, *err;
    int rc = tu_run(argv, &out, &err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert(strstr(out, "imported"), "%s", out);
    mm_ticks l;
    cr_assert_eq(mm_ticks_load(h5, sym, 0, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(l.inst.fingerprint, mm_ticks_fingerprint(&t));
    free(out);
    free(err);
    mm_ticks_free(&l);
    mm_ticks_free(&t);
}

Test(lobster_real, amzn_level1_top_of_book_equals_orderbook_file, .timeout = 120)
{
    check_real("AMZN", 1);
}

Test(lobster_real, goog_level5_top_of_book_equals_orderbook_file, .timeout = 120)
{
    check_real("GOOG", 5);
}

/* Independent field extraction for the real-data check: the value after "key": (quoted or not). */
static int field(const char *line, const char *key, char *out, size_t cap)
{
    char pat[32];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    if (!p) return -1;
    p += strlen(pat);
    if (*p == '"') p++;
    size_t n = strcspn(p, "\",}");
    if (n >= cap) return -1;
    memcpy(out, p, n);
    out[n] = 0;
    return 0;
}

static long long fnum(const char *line, const char *key, double scale)
{
    char v[64];
    cr_assert_eq(field(line, key, v, sizeof v), 0, "no %s in %s", key, line);
    return scale == 1 ? atoll(v) : llround(strtod(v, NULL) * scale);
}

typedef struct bt {
    long long u, t_ms, b, bq, a, aq;
} bt;

static int cmp_bt(const void *x, const void *y)
{
    const bt *a = x, *b = y;
    return (a->u > b->u) - (a->u < b->u);
}

static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

Test(binance_real, btcusdt_capture_book_trades_and_bookticker_agree, .timeout = 120)
{
    const char *path = real("binance/usdm_btcusdt_20240808.gz");
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "BTCUSDT";
    o.tick = "0.1";
    o.lot = "0.001";
    mm_ticks t;
    mm_import_report rep;
    mm_error e = {0};
    cr_assert_eq(mm_import_binance(path, &o, &t, &rep, &e), 0, "%s", e.msg);
    cr_assert_str_eq(rep.market, "usdm", "detected from the messages' shape");
    cr_assert_eq(t.n, 93321, "docs/import-binance.md");
    cr_assert_eq(mm_ticks_validate(&t, "BTCUSDT", &e), 0, "%s", e.msg);
    cr_assert_eq(t.inst.allow_crossed, 0);
    for (int64_t i = 0; i < t.n; i++) {
        cr_assert(t.bid_sz[i] > 0 && t.ask_sz[i] > 0, "row %ld has an empty side", (long)i);
        cr_assert_lt(t.bid_px[i], t.ask_px[i], "row %ld crossed", (long)i);
    }
    /* Read the capture independently. */
    gzFile g = gzopen(path, "rb");
    cr_assert(g);
    static char line[1 << 20];
    long long snap_id = -1, snap_t = -1, ntr = 0, vol = 0;
    size_t nbt = 0, cbt = 1 << 17, ndu = 0;
    bt *b = malloc(cbt * sizeof *b);
    long long *du = malloc((1 << 16) * sizeof *du);
    long long *tr_t = malloc((1 << 16) * sizeof *tr_t), *tr_q = malloc((1 << 16) * sizeof *tr_q);
    while (gzgets(g, line, sizeof line)) {
        if (strstr(line, "\"lastUpdateId\"")) {
            snap_id = fnum(line, "lastUpdateId", 1);
            snap_t = fnum(line, "T", 1);
        } else if (strstr(line, "\"e\":\"trade\"")) {
            tr_t[ntr] = fnum(line, "T", 1);
            tr_q[ntr++] = fnum(line, "q", 1000);
        } else if (strstr(line, "\"e\":\"bookTicker\"")) {
            cr_assert_lt(nbt, cbt);
            b[nbt++] = (bt){fnum(line, "u", 1),    fnum(line, "T", 1),  fnum(line, "b", 10),
                            fnum(line, "B", 1000), fnum(line, "a", 10), fnum(line, "A", 1000)};
        } else if (strstr(line, "\"e\":\"depthUpdate\"")) {
            du[ndu++] = fnum(line, "u", 1);
        }
    }
    gzclose(g);
    cr_assert_gt(snap_id, 0);
    /* Trades: all of them, except any before the first book state (the first bookTicker or the
     * snapshot); the sample has none, so count and volume equal the capture's. */
    long long first_book_t = snap_t, used = 0;
    for (size_t k = 0; k < nbt; k++)
        if (b[k].t_ms < first_book_t) first_book_t = b[k].t_ms;
    for (long long k = 0; k < ntr; k++) {
        used += tr_t[k] >= first_book_t;
        vol += tr_q[k];
    }
    cr_assert_eq(used, ntr, "the sample has no trade before the first bookTicker");
    cr_assert_eq(rep.trades, ntr);
    cr_assert_eq(rep.trade_msgs, ntr);
    cr_assert_eq(rep.trade_volume_lots, vol);
    long long tape_trades = 0, tape_vol = 0;
    for (int64_t i = 0; i < t.n; i++)
        tape_trades += t.trade_sz[i] > 0, tape_vol += t.trade_sz[i];
    cr_assert_eq(tape_trades, ntr);
    cr_assert_eq(tape_vol, vol);
    /* Every bookTicker is in the tape at its time with its exact top of book: either as its own
     * row, or as the depth book's (or the snapshot's) row at the same update id. */
    qsort(b, nbt, sizeof *b, cmp_bt);
    qsort(du, ndu, sizeof *du, cmp_ll);
    long long shared = 0, checked = 0;
    int64_t r0 = 0;
    for (size_t k = 0; k < nbt; k++) {
        if (b[k].u == snap_id ||
            (b[k].u > snap_id && bsearch(&b[k].u, du, ndu, sizeof *du, cmp_ll)))
            shared++;
        int64_t ts = b[k].t_ms * 1000000;
        while (r0 < t.n && t.ts_ns[r0] < ts)
            r0++;
        int found = 0;
        for (int64_t i = r0; i < t.n && t.ts_ns[i] == ts && !found; i++)
            found = t.trade_sz[i] == 0 && t.bid_px[i] == b[k].b && t.bid_sz[i] == b[k].bq &&
                    t.ask_px[i] == b[k].a && t.ask_sz[i] == b[k].aq;
        cr_assert(found, "bookTicker u=%lld (T %lld) not in the tape", b[k].u, b[k].t_ms);
        checked++;
    }
    cr_assert_gt(shared, 100);
    cr_assert_eq(rep.ticker_checks, shared,
                 "depth book compared with bookTicker at every shared update id");
    cr_assert_eq(rep.book_tickers + rep.ticker_checks, checked);
    cr_assert_eq(rep.gaps, 0);
    free(b);
    free(du);
    free(tr_t);
    free(tr_q);
    mm_ticks_free(&t);
}

/* ---- Binance spot: two consecutive days ---- */

typedef struct sq {
    long long u, b, bq, a, aq;
} sq;

static int cmp_sq(const void *x, const void *y)
{
    const sq *a = x, *b = y;
    long long ka[4] = {a->b, a->bq, a->a, a->aq}, kb[4] = {b->b, b->bq, b->a, b->aq};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

/* What a spot capture holds, read independently of the importer (tick 0.01, lot 0.000001). */
typedef struct spot_cap {
    long long snap_id, ntr, vol, ndep, first_u, last_u; /* first_u: the lowest U */
    long long *du;
    sq *bt;
    size_t nbt;
} spot_cap;

static void read_spot(const char *path, spot_cap *c)
{
    gzFile g = gzopen(path, "rb");
    cr_assert(g);
    static char line[1 << 20];
    size_t cbt = 1 << 17;
    c->bt = realloc(c->bt, cbt * sizeof *c->bt);
    c->du = realloc(c->du, (1 << 16) * sizeof *c->du);
    while (gzgets(g, line, sizeof line)) {
        if (strstr(line, "\"lastUpdateId\"")) {
            c->snap_id = fnum(line, "lastUpdateId", 1);
            cr_assert_null(strstr(line, "\"T\""), "the spot snapshot has no T");
        } else if (strstr(line, "\"e\":\"trade\"")) {
            c->ntr++;
            c->vol += fnum(line, "q", 1e6);
        } else if (strstr(line, "\"e\":\"depthUpdate\"")) {
            cr_assert_null(strstr(line, "\"pu\""), "spot diffs have no pu");
            long long u = fnum(line, "u", 1), U = fnum(line, "U", 1);
            if (!c->ndep || U < c->first_u) c->first_u = U;
            if (u > c->last_u) c->last_u = u;
            c->du[c->ndep++] = u;
        } else if (strstr(line, "@bookTicker")) {
            cr_assert_null(strstr(line, "\"e\""), "spot bookTickers have no e");
            cr_assert_lt(c->nbt, cbt);
            c->bt[c->nbt++] = (sq){fnum(line, "u", 1), fnum(line, "b", 100), fnum(line, "B", 1e6),
                                   fnum(line, "a", 100), fnum(line, "A", 1e6)};
        }
    }
    gzclose(g);
}

static int import_spot(const char *const *files, int n, int no_snapshot, mm_ticks *t,
                       mm_import_report *rep)
{
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "BTCUSDT.20240808";
    o.tick = "0.01";
    o.lot = "0.000001";
    o.no_snapshot = no_snapshot;
    mm_error e = {0};
    int rc = mm_import_binance_files(files, n, &o, t, rep, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_validate(t, "BTCUSDT.20240808", &e), 0, "%s", e.msg);
    cr_assert_str_eq(rep->market, "spot");
    cr_assert_eq(rep->gaps, 0);
    return rc;
}

/* Every bookTicker's top of book is a non-trade row of the tape (as its own row, or as the depth
 * book's row at the same update id): multiset inclusion. */
static void tickers_in_tape(const spot_cap *c, const mm_ticks *t)
{
    sq *rows = malloc((size_t)t->n * sizeof *rows);
    size_t nr = 0;
    for (int64_t i = 0; i < t->n; i++)
        if (!t->trade_sz[i])
            rows[nr++] = (sq){0, t->bid_px[i], t->bid_sz[i], t->ask_px[i], t->ask_sz[i]};
    sq *bt = malloc(c->nbt * sizeof *bt);
    memcpy(bt, c->bt, c->nbt * sizeof *bt);
    qsort(rows, nr, sizeof *rows, cmp_sq);
    qsort(bt, c->nbt, sizeof *bt, cmp_sq);
    size_t r = 0;
    for (size_t k = 0; k < c->nbt; k++) {
        while (r < nr && cmp_sq(&rows[r], &bt[k]) < 0)
            r++;
        cr_assert(r < nr && !cmp_sq(&rows[r], &bt[k]), "bookTicker u=%lld not in the tape",
                  bt[k].u);
        r++;
    }
    free(rows);
    free(bt);
}

Test(binance_real, spot_days_alone_and_as_one_tape, .timeout = 120)
{
    const char *d1 = real("binance/spot_btcusdt_20240808.gz"),
               *d2 = real("binance/spot_btcusdt_20240809.gz");
    spot_cap c1 = {0}, c2 = {0};
    read_spot(d1, &c1);
    read_spot(d2, &c2);
    cr_assert_gt(c1.snap_id, 0);
    cr_assert_eq(c2.snap_id, 0, "the second day has no snapshot");
    cr_assert_eq(c2.first_u, c1.last_u + 1, "day 2 continues day 1's update ids");
    mm_ticks t1, t2, tb;
    mm_import_report r1, r2, rb;
    const char *one[1] = {d1}, *two[1] = {d2}, *both[2] = {d1, d2};
    /* Day 1 alone: every trade after the first book message, all its diffs from the snapshot on. */
    import_spot(one, 1, 0, &t1, &r1);
    cr_assert_eq(t1.n, 40682, "docs/import-binance.md");
    cr_assert_eq(r1.trades, 9756);
    cr_assert_eq(r1.trade_msgs + r1.dropped_before_sync, c1.ntr + 2,
                 "one trade and 2 diffs precede");
    cr_assert_eq(r1.depth_updates + 2, c1.ndep);
    cr_assert_eq(r1.book_tickers + r1.ticker_checks, (int64_t)c1.nbt);
    cr_assert_gt(r1.ticker_checks, 500, "depth book equals bookTicker at every shared id");
    tickers_in_tape(&c1, &t1);
    /* Day 2 alone has no snapshot: refused, or with --no-snapshot the bookTicker L1 alone. */
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "BTCUSDT";
    o.tick = "0.01";
    o.lot = "0.000001";
    mm_error e = {0};
    cr_assert_eq(mm_import_binance(d2, &o, &t2, &r2, &e), MM_EINVALID);
    cr_assert(strstr(e.msg, "no REST depth snapshot"), "%s", e.msg);
    import_spot(two, 1, 1, &t2, &r2);
    cr_assert_eq(t2.n, (int64_t)c2.nbt + c2.ntr, "every bookTicker and every trade");
    cr_assert_eq(r2.trades, c2.ntr);
    cr_assert_eq(r2.depth_updates, 0);
    tickers_in_tape(&c2, &t2);
    /* Both days as one tape: the book carried over, every message of day 2 used. */
    import_spot(both, 2, 0, &tb, &rb);
    cr_assert_eq(tb.n, 98499, "docs/import-binance.md");
    cr_assert_eq(rb.files, 2);
    cr_assert_eq(rb.trades, r1.trades + c2.ntr);
    cr_assert_eq(rb.trade_volume_lots, r1.trade_volume_lots + c2.vol);
    cr_assert_eq(rb.depth_updates, r1.depth_updates + c2.ndep);
    cr_assert_eq(rb.book_tickers + rb.ticker_checks, (int64_t)(c1.nbt + c2.nbt));
    cr_assert_gt(rb.ticker_checks, r1.ticker_checks + 400);
    cr_assert_eq(rb.dropped_before_sync, r1.dropped_before_sync);
    for (int64_t i = 0; i < tb.n; i++)
        cr_assert(tb.bid_px[i] < tb.ask_px[i] && tb.bid_sz[i] > 0 && tb.ask_sz[i] > 0, "row %ld",
                  (long)i);
    cr_assert_gt(llabs(rb.clock_offset_ns), 1000000000, "this capture's clock is 1.27 s behind");
    tickers_in_tape(&c1, &tb);
    tickers_in_tape(&c2, &tb);
    /* The CLI: two -i and a dated symbol give the same tape. */
    const char *h5 = tu_path("both.h5");
    const char *argv[] = {
        "mmsim",  "import", "binance", "-i",       d1,   "-i", d2,  "--symbol", "BTCUSDT.20240808",
        "--tick", "0.01",   "--lot",   "0.000001", "-o", h5,   NULL};
    char *out, *err;
    cr_assert_eq(tu_run(argv, &out, &err), 0, "%s", err);
    cr_assert(strstr(out, "binance spot: 2 files"), "%s", out);
    mm_ticks l;
    cr_assert_eq(mm_ticks_load(h5, "BTCUSDT.20240808", 0, &l, &e), 0, "%s", e.msg);
    cr_assert_eq(l.inst.fingerprint, mm_ticks_fingerprint(&tb));
    cr_assert(strstr(l.inst.source, "binance-spot capture spot_btcusdt_20240808.gz + "
                                    "spot_btcusdt_20240809.gz"),
              "%s", l.inst.source);
    free(out);
    free(err);
    mm_ticks_free(&l);
    mm_ticks_free(&t1);
    mm_ticks_free(&t2);
    mm_ticks_free(&tb);
    free(c1.du);
    free(c1.bt);
    free(c2.du);
    free(c2.bt);
}
