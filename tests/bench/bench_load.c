/* Benchmark: HDF5 tick file -> POSIX shared memory, page cache warm.
 *
 * Writes a generated tape (default 8M rows, about 264 MB of columns) uncompressed and
 * gzip-compressed, checks that a load returns the same fingerprint, then times
 * mm_ticks_load(MM_LOAD_SHM) several times and prints GB/s of column bytes for: the raw read (no
 * validation, no fingerprint), and the full load (validation + XXH3 fingerprint verification), and
 * the compressed file. Also prints peak RSS. Usage: bench_load [rows] [repeats] [dir] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/mmsim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const char *label, const char *path, int flags, int reps, uint64_t fp,
                  double bytes)
{
    double t[64];
    for (int r = 0; r < reps; r++) {
        mm_ticks l = {0};
        mm_error e = {0};
        double t0 = now();
        if (mm_ticks_load(path, NULL, flags, &l, &e)) {
            fprintf(stderr, "bench_load: %s\n", e.msg);
            exit(1);
        }
        t[r] = now() - t0;
        if (mm_ticks_fingerprint(&l) != fp) {
            fprintf(stderr, "bench_load: loaded content differs from the generated tape\n");
            exit(1);
        }
        mm_ticks_free(&l);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_d);
    printf("%-44s best %6.2f GB/s  median %6.2f GB/s  (%.1f ms median)\n", label,
           bytes / t[0] * 1e-9, bytes / t[reps / 2] * 1e-9, t[reps / 2] * 1e3);
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 8000000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    const char *dir = argc > 3 ? argv[3] : "/tmp";
    if (rows <= 0 || reps <= 0 || reps > 64) {
        fprintf(stderr, "usage: bench_load [rows] [repeats<=64] [dir]\n");
        return 2;
    }
    char up[512], cp[512];
    snprintf(up, sizeof up, "%s/mmsim-bench-%ld-u.h5", dir, (long)getpid());
    snprintf(cp, sizeof cp, "%s/mmsim-bench-%ld-c.h5", dir, (long)getpid());
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.events = rows;
    mm_ticks t = {0};
    mm_error e = {0};
    if (mm_gen_ticks(&p, &t, &e)) {
        fprintf(stderr, "bench_load: %s\n", e.msg);
        return 1;
    }
    mm_write_opts wu = {0}, wc = {.compress_level = 1};
    if (mm_ticks_write(up, &t, &wu, &e) || mm_ticks_write(cp, &t, &wc, &e)) {
        fprintf(stderr, "bench_load: %s\n", e.msg);
        return 1;
    }
    double bytes = (double)rows * (8 + 6 * 4 + 1);
    uint64_t fp = t.inst.fingerprint;
    mm_ticks_free(&t);
    printf("bench_load: %" PRId64 " rows, %.1f MB of columns, %d repeats, page cache warm\n", rows,
           bytes * 1e-6, reps);
    bench("hdf5 -> shm, raw read (no checks)", up,
          MM_LOAD_SHM | MM_LOAD_NO_VERIFY | MM_LOAD_NO_VALIDATE, reps, fp, bytes);
    bench("hdf5 -> shm, validate + verify fingerprint", up, MM_LOAD_SHM, reps, fp, bytes);
    bench("hdf5 -> heap, validate + verify fingerprint", up, 0, reps, fp, bytes);
    bench("hdf5 (gzip 1 + shuffle) -> shm, full checks", cp, MM_LOAD_SHM, reps < 3 ? reps : 3, fp,
          bytes);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB (generation buffer + one loaded copy)\n",
           (double)ru.ru_maxrss / 1024.0);
    unlink(up);
    unlink(cp);
    return 0;
}
