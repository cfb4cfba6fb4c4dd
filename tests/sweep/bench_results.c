/* Results writer throughput (docs/perf.md): bench_results [ROWS] [CHUNK] [DIR]. Writes ROWS rows
 * (default 1,000,000, rounded up to the fixture's 120-row grid) in chunks of CHUNK rows (default
 * 4096) in shuffled order, as parallel workers would hand them over, commits, checks the stored
 * content hash against a recomputation and the index order, then prints rows/s of each phase and
 * the peak RSS. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "results_fixture.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check(int ok, const char *what)
{
    if (!ok) fprintf(stderr, "bench_results: check failed: %s\n", what);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int64_t want = argc > 1 ? atoll(argv[1]) : 1000000, chunk = argc > 2 ? atoll(argv[2]) : 4096;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_results_%ld.h5", dir, (long)getpid());
    rf_table t;
    rf_init(&t, (int32_t)((want + 119) / 120));
    int64_t n = t.n_rows, n_chunks = (n + chunk - 1) / chunk;
    mm_error e = {0};
    mm_results_writer *w;
    double t0 = now_s();
    if (mm_results_create(path, t.axes, RF_AXES, n, t.markout_ns, &w, &e)) {
        fprintf(stderr, "bench_results: %s\n", e.msg);
        return 1;
    }
    int64_t *order = malloc((size_t)n_chunks * sizeof *order);
    int32_t *idx = malloc((size_t)chunk * RF_AXES * sizeof *idx);
    mm_metrics *m = malloc((size_t)chunk * sizeof *m);
    for (int64_t i = 0; i < n_chunks; i++)
        order[i] = i;
    for (int64_t i = n_chunks - 1; i > 0; i--) {
        int64_t j = (int64_t)(rf_mix((uint64_t)i) % (uint64_t)(i + 1)), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    double t_write = 0;
    for (int64_t c = 0; c < n_chunks; c++) {
        int64_t first = order[c] * chunk, k = n - first < chunk ? n - first : chunk;
        for (int64_t i = 0; i < k; i++)
            rf_row(&t, first + i, idx + i * RF_AXES, &m[i]);
        double a = now_s();
        if (mm_results_write(w, first, k, idx, m, &e)) {
            fprintf(stderr, "bench_results: %s\n", e.msg);
            return 1;
        }
        t_write += now_s() - a;
    }
    mm_results_meta meta;
    rf_meta(&t, NULL, &meta);
    double a = now_s();
    if (mm_results_commit(w, &meta, &e)) {
        fprintf(stderr, "bench_results: %s\n", e.msg);
        return 1;
    }
    double t_commit = now_s() - a, t_total = now_s() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long peak_kb = ru.ru_maxrss;

    /* Check before reporting: recomputed hash, index order on the first and last entries, a row. */
    int bad = 0;
    uint64_t h;
    mm_results_reader *r;
    a = now_s();
    bad |= check(mm_results_hash(path, &h, &e) == 0, e.msg);
    double t_hash = now_s() - a;
    bad |= check(mm_results_open(path, &r, &e) == 0, e.msg);
    if (!bad) {
        bad |= check(h == mm_results_describe(r)->content_hash, "stored content hash");
        int64_t rows[1000];
        mm_metrics got[1000];
        bad |= check(mm_results_read_index(r, "pnl", 0, 1000, rows, &e) == 0, e.msg);
        for (int i = 0; i < 1000 && !bad; i++) {
            bad |= check(mm_results_read(r, rows[i], 1, NULL, &got[i], &e) == 0, e.msg);
            if (i > 0)
                bad |= check(got[i].pnl < got[i - 1].pnl ||
                                 (got[i].pnl == got[i - 1].pnl && rows[i] > rows[i - 1]),
                             "index order");
        }
        int32_t want_idx[RF_AXES], got_idx[RF_AXES];
        mm_metrics wm, gm;
        rf_row(&t, n / 2, want_idx, &wm);
        bad |= check(mm_results_read(r, n / 2, 1, got_idx, &gm, &e) == 0, e.msg);
        bad |= check(!memcmp(want_idx, got_idx, sizeof want_idx) && gm.volume == wm.volume &&
                         gm.pnl == wm.pnl && gm.markout[2] == wm.markout[2],
                     "row read back");
        mm_results_close(r);
    }
    struct stat st;
    stat(path, &st);
    unlink(path);
    if (bad) return 1;
    printf("results writer: %" PRId64 " rows of %d axes, %" PRId64
           "-row chunks in shuffled order, file %.1f MB\n",
           n, RF_AXES, chunk, (double)st.st_size / 1e6);
    printf("  mm_results_write   %.3f s  %.3g rows/s\n", t_write, (double)n / t_write);
    printf("  mm_results_commit  %.3f s  %.3g rows/s (index sort + content hash + attributes + "
           "fsync)\n",
           t_commit, (double)n / t_commit);
    printf("  create..commit     %.3f s  %.3g rows/s (row generation included)\n", t_total,
           (double)n / t_total);
    printf("  mm_results_hash    %.3f s  %.3g rows/s\n", t_hash, (double)n / t_hash);
    printf("  peak RSS           %.1f MB\n", (double)peak_kb / 1024);
    printf("  content hash       %016" PRIx64 " (verified)\n", h);
    free(order);
    free(idx);
    free(m);
    rf_free(&t);
    return 0;
}
