/* Benchmark: import throughput in MB/s of uncompressed input, one core.
 *
 * Generates, in a temporary directory, a self-consistent LOBSTER-style day (message + level-1
 * orderbook CSV, plain text) and a generic quotes + trades CSV, imports each several times, checks
 * the result (row count, validation, the same fingerprint every run) and prints best and median
 * MB/s. When the shared real data is present (MMSIM_SHARED_DATA) it also times the real LOBSTER and
 * Binance files (gzip: the MB/s count uncompressed bytes and include decompression). Usage:
 * bench_import [rows] [repeats] [dir] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/import.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A LOBSTER day whose level-1 orderbook follows from its messages (the importer cross-checks it).
 */
static void gen_lobster(const char *mp, const char *op, int64_t rows)
{
    FILE *m = fopen(mp, "w"), *o = fopen(op, "w");
    if (!m || !o) {
        perror("bench_import");
        exit(1);
    }
    enum { DEPTH = 4096 };
    static int64_t bpx[DEPTH], bsz[DEPTH], apx[DEPTH], asz[DEPTH]; /* stacks, best level last */
    int nb = 1, na = 1;
    bpx[0] = 1000000, bsz[0] = 500, apx[0] = 1000100, asz[0] = 500;
    int64_t t_ns = INT64_C(34200) * 1000000000, id = 1;
    for (int64_t i = 0; i < rows; i++) {
        t_ns += (int64_t)(rnd() % 400000);
        int bid = rnd() & 1, r = (int)(rnd() % 100);
        int64_t *px = bid ? bpx : apx, *sz = bid ? bsz : asz;
        int *n = bid ? &nb : &na;
        int64_t top = px[*n - 1], q = 1 + (int64_t)(rnd() % 300),
                other = bid ? apx[na - 1] : bpx[nb - 1];
        int type, dir = bid ? 1 : -1;
        int64_t price = top, size = q;
        if (r < 40) {
            type = 1;
            sz[*n - 1] += q;
        } else if (r < 60 && sz[*n - 1] > q) {
            type = 2;
            sz[*n - 1] -= q;
        } else if (r < 70 && sz[*n - 1] > q) {
            type = 4;
            sz[*n - 1] -= q;
        } else if (r < 85 && *n < DEPTH && (bid ? top + 100 < other : top - 100 > other)) {
            type = 1;
            price = bid ? top + 100 : top - 100;
            px[*n] = price, sz[*n] = q;
            (*n)++;
        } else if (r < 95 && *n > 1) {
            type = 3;
            size = sz[*n - 1];
            (*n)--;
        } else {
            type = 5;
            price = (bpx[nb - 1] + apx[na - 1]) / 2;
        }
        fprintf(m, "%" PRId64 ".%09" PRId64 ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%d\n",
                t_ns / 1000000000, t_ns % 1000000000, type, type == 5 ? 0 : id++, size, price, dir);
        fprintf(o, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", apx[na - 1], asz[na - 1],
                bpx[nb - 1], bsz[nb - 1]);
    }
    fclose(m);
    fclose(o);
}

static void gen_csv(const char *p, int64_t rows)
{
    FILE *f = fopen(p, "w");
    fprintf(f, "ts_ns,bid,bid_size,ask,ask_size,price,qty,side\n");
    int64_t t = INT64_C(1723161256493000000), b = 618002;
    for (int64_t i = 0; i < rows; i++) {
        t += (int64_t)(rnd() % 2000000);
        b += (int64_t)(rnd() % 3) - 1;
        int64_t a = b + 1 + (int64_t)(rnd() % 3);
        fprintf(f, "%" PRId64 ",%" PRId64 ".%" PRId64 ",%d.%03d,%" PRId64 ".%" PRId64 ",%d.%03d,",
                t, b / 10, b % 10, (int)(rnd() % 20), 1 + (int)(rnd() % 999), a / 10, a % 10,
                (int)(rnd() % 20), 1 + (int)(rnd() % 999));
        if (rnd() % 4 == 0)
            fprintf(f, "%" PRId64 ".%" PRId64 ",0.%03d,%s\n", a / 10, a % 10,
                    1 + (int)(rnd() % 999), rnd() & 1 ? "buy" : "sell");
        else
            fprintf(f, ",,\n");
    }
    fclose(f);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { LOB, BIN, CSV };

static void bench(const char *label, int kind, const char *p1, const char *p2,
                  const mm_import_opts *o, int reps, int64_t want_rows)
{
    double t[32];
    uint64_t fp0 = 0;
    double mb = 0;
    for (int r = 0; r < reps; r++) {
        mm_ticks tk;
        mm_import_report rep;
        mm_error e = {0};
        double t0 = now();
        int rc = kind == LOB   ? mm_import_lobster(p1, p2, o, &tk, &rep, &e)
                 : kind == BIN ? mm_import_binance(p1, o, &tk, &rep, &e)
                               : mm_import_csv(p1, o, &tk, &rep, &e);
        t[r] = now() - t0;
        if (rc) {
            fprintf(stderr, "bench_import: %s: %s\n", label, e.msg);
            exit(1);
        }
        uint64_t fp = mm_ticks_fingerprint(&tk);
        if ((want_rows >= 0 && tk.n != want_rows) || mm_ticks_validate(&tk, label, &e) ||
            (r && fp != fp0)) {
            fprintf(stderr, "bench_import: %s: wrong result (%" PRId64 " rows) %s\n", label, tk.n,
                    e.msg);
            exit(1);
        }
        fp0 = fp;
        mb = (double)rep.bytes * 1e-6;
        mm_ticks_free(&tk);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    printf("%-40s %8.1f MB  best %7.1f MB/s  median %7.1f MB/s  (%.0f ms median)\n", label, mb,
           mb / t[0], mb / t[reps / 2], t[reps / 2] * 1e3);
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 2000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    if (rows <= 0 || reps <= 0 || reps > 32) {
        fprintf(stderr, "usage: bench_import [rows] [repeats<=32] [dir]\n");
        return 2;
    }
    char mp[512], op[512], cp[512];
    snprintf(mp, sizeof mp, "%s/mmsim-bench-imp-%ld-message_1.csv", dir, (long)getpid());
    snprintf(op, sizeof op, "%s/mmsim-bench-imp-%ld-orderbook_1.csv", dir, (long)getpid());
    snprintf(cp, sizeof cp, "%s/mmsim-bench-imp-%ld.csv", dir, (long)getpid());
    gen_lobster(mp, op, rows);
    gen_csv(cp, rows);
    mm_import_opts o;
    mm_import_opts_init(&o);
    o.symbol = "BENCH";
    o.date = "2012-06-21";
    bench("lobster generated, plain CSV, level 1", LOB, mp, op, &o, reps, rows);
    mm_import_opts c;
    mm_import_opts_init(&c);
    c.symbol = "BENCH";
    c.tick = "0.1";
    c.lot = "0.001";
    c.csv_map = "ts=ts_ns,bid=bid,bid_sz=bid_size,ask=ask,ask_sz=ask_size,trade_px=price,trade_sz="
                "qty,side=side";
    bench("generic csv generated, plain", CSV, cp, NULL, &c, reps, rows);
    unlink(mp);
    unlink(op);
    unlink(cp);
    const char *sd = getenv("MMSIM_SHARED_DATA");
    struct stat st;
    if (sd && !stat(sd, &st)) {
        char a[512], b[512];
        const char *syms[2] = {"AMZN", "GOOG"};
        const int lv[2] = {1, 5};
        for (int k = 0; k < 2; k++) {
            snprintf(a, sizeof a, "%s/lobster/%s_2012-06-21_34200000_57600000_message_%d.csv.gz",
                     sd, syms[k], lv[k]);
            snprintf(b, sizeof b, "%s/lobster/%s_2012-06-21_34200000_57600000_orderbook_%d.csv.gz",
                     sd, syms[k], lv[k]);
            if (stat(a, &st) || stat(b, &st)) continue;
            char label[64];
            snprintf(label, sizeof label, "lobster %s level %d, gzip (real)", syms[k], lv[k]);
            o.symbol = syms[k];
            bench(label, LOB, a, b, &o, reps, -1);
        }
        snprintf(a, sizeof a, "%s/binance/usdm_btcusdt_20240808.gz", sd);
        if (!stat(a, &st)) {
            mm_import_opts bo;
            mm_import_opts_init(&bo);
            bo.symbol = "BTCUSDT";
            bo.tick = "0.1";
            bo.lot = "0.001";
            bench("binance BTCUSDT capture, gzip JSON (real)", BIN, a, NULL, &bo, reps, -1);
        }
    }
    return 0;
}
