/* Shared memory: sealed tapes are read-only in children; segment names never linger. The one-copy
 * memory check (PSS with 1, 4, 8 children) is tests/check_shm_pss.c: it forks several children,
 * which does not mix with Criterion's multi-threaded test runner. */
#define _GNU_SOURCE 1 /* unshare */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmsim/mmsim.h"
#include "testutil.h"

TestSuite(shm, .fini = tu_cleanup);

Test(shm, children_cannot_write_the_tape, .signal = 0)
{
    mm_ticks g = {0};
    tu_small_tape(&g, 1000, 4);
    mm_error e = {0};
    const char *p = tu_path("ro.h5");
    cr_assert_eq(mm_ticks_write(p, &g, NULL, &e), 0);
    mm_ticks_free(&g);
    mm_ticks t = {0};
    cr_assert_eq(mm_ticks_load(p, NULL, MM_LOAD_SHM, &t, &e), 0, "%s", e.msg);
    int32_t before = t.bid_px[5];
    pid_t pid = fork();
    if (pid == 0) {
        ((volatile int32_t *)t.bid_px)[5] = before + 1; /* must fault */
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    /* A plain build dies of SIGSEGV; under AddressSanitizer the sanitizer reports the SEGV and
     * exits 1. */
    cr_assert(WIFSIGNALED(st) ? WTERMSIG(st) == SIGSEGV : WEXITSTATUS(st) != 0,
              "a write to the sealed tape did not fault");
    cr_assert_eq(t.bid_px[5], before, "the shared tape was modified");
    mm_ticks_free(&t);
}

Test(shm, nothing_left_in_dev_shm)
{
    mm_ticks t = {0};
    cr_assert_eq(mm_ticks_alloc(&t, 1000, MM_MEM_SHM), 0);
    char name[64];
    snprintf(name, sizeof name, "/dev/shm/mmsim.%ld.0", (long)getpid());
    cr_assert_neq(access(name, F_OK), 0, "segment name still linked");
    t.bid_px[999] = 7; /* writable before sealing */
    cr_assert_eq(mm_ticks_seal(&t), 0);
    cr_assert_eq(t.bid_px[999], 7);
    mm_ticks_free(&t);
}

/* /dev/shm too small for a tape: the load fails with ENOSPC. Before, ftruncate made a sparse
 * segment and the first touch of a page tmpfs could not supply killed the process with SIGBUS (a
 * sweep died so, exit 135). Runs in a child with its own mount namespace and a 1 MiB tmpfs on
 * /dev/shm (root only; skipped otherwise). */
Test(shm, dev_shm_too_small_is_enospc_not_sigbus)
{
    mm_ticks g = {0};
    tu_small_tape(&g, 200000, 4); /* 6.6 MB of columns */
    mm_error e = {0};
    const char *p = tu_path("big.h5");
    cr_assert_eq(mm_ticks_write(p, &g, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&g);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("tmpfs", "/dev/shm", "tmpfs", 0, "size=1m") != 0)
            _exit(77);
        mm_ticks t = {0};
        int rc = mm_ticks_alloc(&t, 200000, MM_MEM_SHM);
        if (rc != -ENOSPC) _exit(10);
        mm_error le = {0};
        rc = mm_ticks_load(p, NULL, MM_LOAD_SHM, &t, &le);
        if (rc != -ENOSPC || !strstr(le.msg, "shared memory (/dev/shm)") ||
            !strstr(le.msg, "No space left on device"))
            _exit(11);
        /* A tape that fits still loads. */
        mm_ticks s = {0};
        if (mm_ticks_alloc(&s, 1000, MM_MEM_SHM) != 0) _exit(12);
        s.bid_px[999] = 1;
        mm_ticks_free(&s);
        _exit(0);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
        cr_skip("cannot mount a private tmpfs on /dev/shm (needs root)");
    cr_assert(WIFEXITED(st), "the child died of signal %d (SIGBUS is %d)",
              WIFSIGNALED(st) ? WTERMSIG(st) : 0, SIGBUS);
    cr_assert_eq(WEXITSTATUS(st), 0, "step %d failed", WEXITSTATUS(st));
    /* The command: exit 1 and one line, no crash. */
    char cmd[1024];
    snprintf(
        cmd, sizeof cmd,
        "unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=1m tmpfs /dev/shm && "
        "exec \"$MMSIM_BIN\" sweep %s --grid spread=1,2 -o %s --quiet' 2>&1",
        p, tu_path("r.h5"));
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    char line[1024] = "";
    char *got = fgets(line, sizeof line, f);
    int rc = pclose(f);
    cr_assert(got && strstr(line, "cannot allocate 6600512 bytes of shared memory (/dev/shm) for "
                                  "200000 rows: No space left on device"),
              "%s", line);
    cr_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "status %d: %s", rc, line);
}
