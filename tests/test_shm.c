/* Shared memory: sealed tapes are read-only in children; segment names never linger. The one-copy memory
 * check (PSS with 1, 4, 8 children) is tests/check_shm_pss.c: it forks several children, which does not
 * mix with Criterion's multi-threaded test runner. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    /* A plain build dies of SIGSEGV; under AddressSanitizer the sanitizer reports the SEGV and exits 1. */
    cr_assert(WIFSIGNALED(st) ? WTERMSIG(st) == SIGSEGV : WEXITSTATUS(st) != 0, "a write to the sealed tape did not fault");
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
