/* Benchmark of the sweep machinery (docs/perf.md, "Sweep").
 *
 *   bench_sweep MMSIM_BIN [events] [big_combos]
 *
 * 1. The bare batched kernel (mm_sim_run_batch, one thread) on a generated tape and the canonical
 * grid (spread 1..32 x inv_limit 1..64 = 2048 combinations): event x combination updates per
 * second.
 * 2. `mmsim sweep` on the same tape and grid with the serial engine, and with the process engine
 * and 1 and 2 workers: wall time of the whole command (load, run, journal, results table), updates
 * per second, the overhead of the serial sweep over the bare kernel, the 2-worker speed-up, and the
 * peak of the summed PSS (and Pss_Shmem) over the sweep's process tree, sampled every 100 ms.
 * 3. A 1,000,000-combination sweep (spread 0..99 x inv_limit 1..100 x requote 1..100) on a short
 * tape: wall time and peak summed PSS. `bench_sweep --bare TAPE` only runs step 1 on an existing
 * tape file (to pair with `mmsim sweep` in farm-bench). Each sweep's table is checked: the serial
 * and process tables must have the same content hash. */
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "mmsim/results.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Pss and Pss_Shmem (kB) of one process; 0 if gone. */
static void pss_of(pid_t pid, long *pss, long *shm)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    FILE *f = fopen(path, "r");
    *pss = *shm = 0;
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "Pss: %ld kB", pss);
        sscanf(line, "Pss_Shmem: %ld kB", shm);
    }
    fclose(f);
}

/* Sum over pid and its direct children. */
static void tree_pss(pid_t root, long *pss, long *shm)
{
    pss_of(root, pss, shm);
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        int p = atoi(de->d_name);
        if (p <= 0) continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", p);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int ppid = 0;
        if (fgets(buf, sizeof buf, f)) {
            char *rp = strrchr(buf, ')');
            if (rp) sscanf(rp + 2, "%*c %d", &ppid);
        }
        fclose(f);
        if (ppid == root) {
            long a, b;
            pss_of(p, &a, &b);
            *pss += a;
            *shm += b;
        }
    }
    if (d) closedir(d);
}

typedef struct run_result {
    double wall, run_s; /* whole command; the sweep's own "in X s" (chunks only, after loading) */
    long peak_pss, peak_shm;
} run_result;

static run_result run_cmd(char *const argv[], const char *dir)
{
    run_result r = {0};
    char outf[300];
    snprintf(outf, sizeof outf, "%s/stdout.txt", dir);
    double t0 = now();
    fflush(stdout); /* or the child's copy of the buffer is printed again */
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(outf, "w", stdout);
        (void)o;
        execv(argv[0], argv);
        _exit(127);
    }
    for (;;) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "bench_sweep: %s %s failed\n", argv[0], argv[1]);
                exit(1);
            }
            break;
        }
        long p, s;
        tree_pss(pid, &p, &s);
        if (p > r.peak_pss) r.peak_pss = p;
        if (s > r.peak_shm) r.peak_shm = s;
        struct timespec ts = {
            0, 100000000}; /* 100 ms: sampling smaps_rollup takes the workers' mmap lock */
        nanosleep(&ts, NULL);
    }
    r.wall = now() - t0;
    FILE *f = fopen(outf, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *in = strstr(line, " in ");
        if (!strncmp(line, "sweep:", 6) && in) r.run_s = atof(in + 4);
    }
    if (f) fclose(f);
    return r;
}

static uint64_t hash_of(const char *p)
{
    uint64_t h;
    mm_error e = {0};
    if (mm_results_hash(p, &h, &e)) {
        fprintf(stderr, "bench_sweep: %s\n", e.msg);
        exit(1);
    }
    return h;
}

/* The canonical grid of this benchmark: spread 1..32 x inventory limit 1..64, default parameters
 * otherwise. Runs the batched kernel on it once (one thread) and returns the seconds taken. */
#define GRID_N 2048
static double bare_kernel(const mm_ticks *t)
{
    mm_params *p = calloc(GRID_N, sizeof *p);
    mm_metrics *m = calloc(GRID_N, sizeof *m);
    if (!p || !m) exit(1);
    for (int j = 0; j < GRID_N; j++) {
        mm_params_defaults(&p[j]);
        p[j].spread_ticks = 1 + j / 64;
        p[j].inv_limit = 1 + j % 64;
    }
    mm_sim_config c;
    mm_sim_config_defaults(&c);
    mm_error e = {0};
    double t0 = now();
    if (mm_sim_run_batch(t, &c, p, GRID_N, m, &e)) {
        fprintf(stderr, "bench_sweep: %s\n", e.msg);
        exit(1);
    }
    double s = now() - t0;
    free(p);
    free(m);
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_sweep MMSIM_BIN [events] [big_combos 0|1]\n");
        return 2;
    }
    if (!strcmp(argv[1], "--bare") && argc > 2) {
        /* The bare kernel on an existing tape, same grid: a yardstick for the whole `mmsim sweep`
         * command. */
        mm_ticks t = {0};
        mm_error e = {0};
        if (mm_ticks_load(argv[2], NULL, 0, &t, &e)) {
            fprintf(stderr, "bench_sweep: %s\n", e.msg);
            return 1;
        }
        double s = bare_kernel(&t);
        printf("bare kernel: %.3f s, %.3e updates/s\n", s, (double)t.n * GRID_N / s);
        mm_ticks_free(&t);
        return 0;
    }
    char *bin = argv[1];
    int64_t events = argc > 2 ? atoll(argv[2]) : 1000000;
    int big = argc > 3 ? atoi(argv[3]) : 1;
    char dir[] = "/tmp/mmsim-bench-sweep-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char tape[256], out[256], small[256];
    snprintf(tape, sizeof tape, "%s/ticks.h5", dir);
    snprintf(small, sizeof small, "%s/short.h5", dir);

    /* 1. Bare kernel. */
    mm_gen_params gp;
    mm_gen_defaults(&gp);
    gp.seed = 7;
    gp.events = events;
    mm_ticks t = {0};
    mm_error e = {0};
    if (mm_gen_ticks(&gp, &t, &e) || mm_ticks_write(tape, &t, NULL, &e)) {
        fprintf(stderr, "bench_sweep: %s\n", e.msg);
        return 1;
    }
    double bare = bare_kernel(&t);
    double updates = (double)events * GRID_N;
    printf("bench_sweep: %" PRId64
           "-event tape, 2048 combinations (spread 1..32 x inv_limit 1..64)\n",
           events);
    printf("  bare batched kernel, 1 thread        %7.3f s  %.3e updates/s\n", bare,
           updates / bare);
    mm_ticks_free(&t);

    /* 2. Sweeps. */
    struct {
        const char *label, *engine, *workers;
    } runs[3] = {{"sweep serial", "serial", "1"},
                 {"sweep process, 1 worker", "process", "1"},
                 {"sweep process, 2 workers", "process", "2"}};
    run_result rr[3];
    uint64_t hashes[3];
    for (int k = 0; k < 3; k++) {
        snprintf(out, sizeof out, "%s/r%d.h5", dir, k);
        char *av[] = {bin,
                      "sweep",
                      tape,
                      "--grid",
                      "spread=1:32:1",
                      "--grid",
                      "inv_limit=1:64:1",
                      "--engine",
                      (char *)runs[k].engine,
                      "--workers",
                      (char *)runs[k].workers,
                      "--quiet",
                      "-o",
                      out,
                      NULL};
        rr[k] = run_cmd(av, dir);
        hashes[k] = hash_of(out);
        printf("  %-28s %6.3f s (chunks %6.3f s)  %.3e updates/s  peak PSS %6.1f MB (shared memory "
               "%5.1f MB)\n",
               runs[k].label, rr[k].wall, rr[k].run_s, updates / rr[k].wall,
               rr[k].peak_pss / 1024.0, rr[k].peak_shm / 1024.0);
    }
    if (hashes[0] != hashes[1] || hashes[0] != hashes[2]) {
        fprintf(stderr, "bench_sweep: engines disagree\n");
        return 1;
    }
    printf("  sweep overhead over the bare kernel (serial, whole command): %+.1f%%\n",
           (rr[0].wall / bare - 1) * 100);
    printf("  2 workers vs 1: %.2fx for the whole command, %.2fx for the chunks\n",
           rr[1].wall / rr[2].wall, rr[1].run_s / rr[2].run_s);
    printf("  tape size %.1f MB: counted once in PSS with 1 and 2 workers if the shared-memory "
           "figures match\n",
           (double)events * 33 / 1e6);

    /* 3. One million combinations. */
    if (big) {
        mm_gen_defaults(&gp);
        gp.seed = 8;
        gp.events = 2000;
        if (mm_gen_ticks(&gp, &t, &e) || mm_ticks_write(small, &t, NULL, &e)) return 1;
        mm_ticks_free(&t);
        snprintf(out, sizeof out, "%s/big.h5", dir);
        char *av[] = {bin,
                      "sweep",
                      small,
                      "--grid",
                      "spread=0:99:1",
                      "--grid",
                      "inv_limit=1:100:1",
                      "--grid",
                      "requote=1:100:1",
                      "--chunk",
                      "4096",
                      "--quiet",
                      "-o",
                      out,
                      NULL};
        run_result b = run_cmd(av, dir);
        printf("  1,000,000 combinations x 2,000 events, process engine, all cores: %.2f s, peak "
               "PSS %.1f MB\n",
               b.wall, b.peak_pss / 1024.0);
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return 0;
}
