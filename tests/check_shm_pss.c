/* Check: forked children share one copy of a shared-memory tape.
 *
 * Loads a generated tape into POSIX shared memory, forks k = 1, 4, 8 children that each checksum
 * every column (touching every page) and compare with the parent's checksum, and, while all of them
 * map it, sums Pss_Shmem (from /proc/self/smaps_rollup) over the children and the parent. One copy
 * means the total stays at the segment size whatever k (private copies would be k times it). Prints
 * the figures; exits 1 on any mismatch, 77 (skip) where the kernel has no Pss_Shmem. A plain
 * program so that it can also be run by hand with a larger tape: check_shm_pss [rows]. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmsim/mmsim.h"

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "check_shm_pss: " __VA_ARGS__);                                        \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Pss_Shmem of this process in kB, or -1; open/read only (safe in a forked child). */
static long pss_shmem_kb(void)
{
    char buf[4096];
    int fd = open("/proc/self/smaps_rollup", O_RDONLY);
    if (fd < 0) return -1;
    ssize_t len = 0, r;
    while (len < (ssize_t)sizeof buf - 1 &&
           (r = read(fd, buf + len, sizeof buf - 1 - (size_t)len)) > 0)
        len += r;
    close(fd);
    buf[len] = 0;
    char *p = strstr(buf, "Pss_Shmem:");
    if (!p) return -1;
    return strtol(p + 10, NULL, 10);
}

static uint64_t checksum(const mm_ticks *t)
{
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < t->n; i++) {
        h = (h ^ (uint64_t)t->ts_ns[i]) * 1099511628211ull;
        h = (h ^ (uint32_t)t->bid_px[i] ^ ((uint64_t)(uint32_t)t->ask_px[i] << 32)) *
            1099511628211ull;
        h = (h ^ (uint32_t)t->bid_sz[i] ^ ((uint64_t)(uint32_t)t->ask_sz[i] << 32)) *
            1099511628211ull;
        h = (h ^ (uint32_t)t->trade_px[i] ^ ((uint64_t)(uint32_t)t->trade_sz[i] << 32)) *
            1099511628211ull;
        h = (h ^ (uint8_t)t->trade_side[i]) * 1099511628211ull;
    }
    return h;
}

/* Children wait on two barriers, each released by the parent closing a pipe's write end (every
 * child's read then returns 0 at once; a byte per child would let a fast child eat another's byte).
 */
static long total_pss(const mm_ticks *t, int k, uint64_t expect)
{
    int up[2], go1[2], go2[2];
    CHECK(pipe(up) == 0 && pipe(go1) == 0 && pipe(go2) == 0, "pipe");
    pid_t pids[16];
    for (int c = 0; c < k; c++) {
        pids[c] = fork();
        CHECK(pids[c] >= 0, "fork");
        if (pids[c] == 0) {
            close(up[0]);
            close(go1[1]);
            close(go2[1]);
            char ok = checksum(t) == expect ? 'y' : 'n', b;
            if (write(up[1], &ok, 1) != 1) _exit(3);
            if (read(go1[0], &b, 1) != 0) _exit(3); /* every child has touched every page */
            long pss = pss_shmem_kb();
            if (write(up[1], &pss, sizeof pss) != sizeof pss) _exit(3);
            if (read(go2[0], &b, 1) != 0) _exit(3); /* the parent has read its own figure */
            _exit(0);
        }
    }
    close(up[1]);
    close(go1[0]);
    close(go2[0]);
    for (int c = 0; c < k; c++) {
        char ok = 0;
        CHECK(read(up[0], &ok, 1) == 1 && ok == 'y', "child %d: checksum differs from the parent's",
              c);
    }
    close(go1[1]);
    long total = 0;
    for (int c = 0; c < k; c++) {
        long pss;
        CHECK(read(up[0], &pss, sizeof pss) == (ssize_t)sizeof pss, "child %d: no PSS report", c);
        total += pss;
    }
    total += pss_shmem_kb();
    close(go2[1]);
    for (int c = 0; c < k; c++) {
        int st;
        waitpid(pids[c], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d failed", c);
    }
    close(up[0]);
    return total;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 2000000;
    if (pss_shmem_kb() < 0) {
        printf("check_shm_pss: no Pss_Shmem in /proc/self/smaps_rollup: skipped\n");
        return 77;
    }
    char path[256];
    snprintf(path, sizeof path, "/tmp/mmsim-pss-%ld.h5", (long)getpid());
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.events = rows;
    mm_ticks g = {0};
    mm_error e = {0};
    CHECK(mm_gen_ticks(&p, &g, &e) == 0, "%s", e.msg);
    CHECK(mm_ticks_write(path, &g, NULL, &e) == 0, "%s", e.msg);
    uint64_t expect = checksum(&g);
    mm_ticks_free(&g);
    mm_ticks t = {0};
    int rc = mm_ticks_load(path, NULL, MM_LOAD_SHM, &t, &e);
    unlink(path);
    CHECK(rc == 0, "%s", e.msg);
    long seg_kb = (long)(t.mem_bytes / 1024);
    int ks[3] = {1, 4, 8};
    int fail = 0;
    for (int i = 0; i < 3; i++) {
        long tot = total_pss(&t, ks[i], expect);
        int ok = tot >= seg_kb * 95 / 100 && tot <= seg_kb * 105 / 100 + 64;
        printf("children %d: total Pss_Shmem %ld kB for a %ld kB segment (%.3fx) %s\n", ks[i], tot,
               seg_kb, (double)tot / (double)seg_kb, ok ? "ok" : "FAIL");
        fail |= !ok;
    }
    mm_ticks_free(&t);
    printf("%d passed, %d failed\n", fail ? 0 : 1, fail ? 1 : 0);
    return fail;
}
