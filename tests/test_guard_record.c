/* The HDF5 guard's record across processes (src/io/h5guard_record.c; docs/formats.md, "The
 * guard's record"): a file whose forked probe passed in one process skips it in the next, only
 * for the same bytes and the same HDF5; a crashing file is never recorded; a corrupt record reads
 * as empty and is rewritten; the CLI saves only after a command succeeded, under MMSIM_CACHE_DIR,
 * $XDG_CACHE_HOME/mmsim or $HOME/.cache/mmsim, and not at all when MMSIM_CACHE_DIR is empty. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "mm_h5guard.h"
#include "mmsim/mmsim.h"
#include "mmsim/results.h"
#include "testutil.h"

TestSuite(guard_record, .fini = tu_cleanup);

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static void write_tape(const char *p, uint64_t seed)
{
    mm_ticks t = {0};
    tu_small_tape(&t, 500, seed);
    mm_error e = {0};
    unlink(p);
    cr_assert_eq(mm_ticks_write(p, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
}

/* In a fresh process (forked before this one opened any file, so the guard's in-process memory is
 * empty): the record at rec (NULL: off), mm_ticks_list(tape), the record saved. Returns the
 * number of forked probes, or 100 + the list's failure. */
static int probes_in_child(const char *rec, const char *tape)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        mm__h5_guard_record_set(rec);
        int count = 0;
        mm_error e = {0};
        int rc = mm_ticks_list(tape, NULL, 0, &count, &e);
        if (rc != 0) _exit(100);
        if (mm__h5_guard_record_save() != 0) _exit(101);
        _exit((int)mm__h5_guard_probes);
    }
    int ws = 0;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    cr_assert(WIFEXITED(ws), "the child died (signal %d)", WTERMSIG(ws));
    return WEXITSTATUS(ws);
}

Test(guard_record, a_probed_file_skips_the_probe_in_the_next_process)
{
    const char *a = strdup(tu_path("a.h5")), *b = strdup(tu_path("b.h5"));
    write_tape(a, 1);
    write_tape(b, 2);
    const char *rec = strdup(tu_path("x/y/h5guard.v1")); /* two directories to make */
    cr_assert_eq(probes_in_child(rec, a), 1);
    cr_assert_eq(file_size(rec), 48);
    struct stat st;
    cr_assert_eq(stat(tu_path("x/y"), &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0700);
    cr_assert_eq(probes_in_child(rec, a), 0, "the recorded file was probed again");
    cr_assert_eq(file_size(rec), 48, "a recorded file was recorded twice");
    cr_assert_eq(probes_in_child(NULL, a), 1, "with the record off the probe must run");
    cr_assert_eq(probes_in_child(rec, b), 1, "other bytes must be probed");
    cr_assert_eq(file_size(rec), 96);
    /* The same name written again with other bytes is probed again. */
    write_tape(a, 3);
    cr_assert_eq(probes_in_child(rec, a), 1);
    cr_assert_eq(probes_in_child(rec, a), 0);
}

/* A record of another HDF5 version (or guard version) does not count, and is kept; a torn or
 * corrupt record is dropped by the next save, which rewrites the file. */
Test(guard_record, foreign_and_corrupt_records)
{
    const char *a = strdup(tu_path("a.h5"));
    write_tape(a, 1);
    const char *rec = strdup(tu_path("h5guard.v1"));
    cr_assert_eq(probes_in_child(rec, a), 1);
    unsigned char good[48];
    FILE *f = fopen(rec, "rb");
    cr_assert(f && fread(good, 1, 48, f) == 48);
    fclose(f);
    /* The same file's record, but of HDF5 "9.9.9" (a valid check): not this library's verdict. */
    unsigned char foreign[48];
    memcpy(foreign, good, 48);
    uint32_t v = 9u << 20 | 9u << 10 | 9u;
    for (int i = 0; i < 4; i++)
        foreign[8 + i] = (unsigned char)(v >> (8 * i));
    uint64_t c = XXH3_64bits(foreign, 40);
    for (int i = 0; i < 8; i++)
        foreign[40 + i] = (unsigned char)(c >> (8 * i));
    unsigned char bad[48];
    memcpy(bad, good, 48);
    bad[20] ^= 1; /* the size, under the old check */
    f = fopen(rec, "wb");
    cr_assert(f);
    fwrite(foreign, 1, 48, f);
    fwrite(bad, 1, 48, f);
    fwrite(good, 1, 20, f); /* a torn record */
    fclose(f);
    cr_assert_eq(probes_in_child(rec, a), 1, "only a foreign, a corrupt and a torn record");
    size_t n = (size_t)file_size(rec);
    cr_assert_eq(n, 96, "kept: the foreign record and the new one (got %zu bytes)", n);
    unsigned char back[96];
    f = fopen(rec, "rb");
    cr_assert(f && fread(back, 1, 96, f) == 96);
    fclose(f);
    cr_assert(!memcmp(back, foreign, 48));
    cr_assert(!memcmp(back + 48, good, 48));
    cr_assert_eq(probes_in_child(rec, a), 0);
    /* Garbage only, or a directory in its place: no record, no crash, the probe runs. */
    f = fopen(rec, "wb");
    for (int i = 0; i < 1000; i++)
        fputc(i * 37, f);
    fclose(f);
    cr_assert_eq(probes_in_child(rec, a), 1);
    cr_assert_eq(file_size(rec), 48);
    unlink(rec);
    cr_assert_eq(mkdir(rec, 0755), 0);
    cr_assert_eq(probes_in_child(rec, a), 101, "saving over a directory must fail");
}

/* Finding F9's file (HDF5 divides by zero opening a dataset): the probe catches it and nothing is
 * recorded, so every later open probes it again. */
Test(guard_record, a_crashing_file_is_never_recorded)
{
    const char *src = tu_fixture("fuzz/results/regress/hdf5-chunk-dim-zero-fpe-64b00c7d.h5");
    const char *rec = strdup(tu_path("h5guard.v1"));
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            mm__h5_guard_record_set(rec);
            mm_results_reader *r = NULL;
            mm_error e = {0};
            int rc = mm_results_open(src, &r, &e);
            if (rc != MM_EFORMAT || !strstr(e.msg, "HDF5 crashes reading it")) _exit(2);
            if (mm__h5_guard_record_save() != 0) _exit(3);
            _exit(mm__h5_guard_probes == 1 ? 0 : 4);
        }
        int ws = 0;
        cr_assert_eq(waitpid(pid, &ws, 0), pid);
        cr_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "round %d: status %d", round, ws);
        cr_assert_eq(file_size(rec), -1, "a crashing file was recorded");
    }
}

static int run_info(const char *tape, const char *symbol)
{
    const char *argv[] = {"mmsim", "info", tape, "--symbol", symbol, NULL};
    char *out = NULL, *err = NULL;
    int rc = tu_run(argv, &out, &err);
    free(out);
    free(err);
    return rc;
}

Test(guard_record, the_command_line_saves_only_after_success_and_where_told)
{
    const char *a = strdup(tu_path("a.h5"));
    write_tape(a, 1);
    mm_ticks t = {0};
    tu_small_tape(&t, 10, 1);
    const char *sym = strdup(t.inst.symbol);
    mm_ticks_free(&t);
    const char *dir = strdup(tu_path("cache"));
    setenv("MMSIM_CACHE_DIR", dir, 1);
    /* A command that fails after the guard passed (no such instrument): nothing written. */
    cr_assert_neq(run_info(a, "NOPE"), 0);
    cr_assert_eq(file_size(dir), -1, "a failed command made the record's directory");
    cr_assert_eq(run_info(a, sym), 0);
    cr_assert_eq(file_size(tu_path("cache/h5guard.v1")), 48);
    cr_assert_eq(run_info(a, sym), 0);
    cr_assert_eq(file_size(tu_path("cache/h5guard.v1")), 48);
    /* Empty: off, and neither XDG_CACHE_HOME nor HOME is used. */
    const char *home = strdup(tu_path("home"));
    cr_assert_eq(mkdir(home, 0755), 0);
    setenv("HOME", home, 1);
    setenv("XDG_CACHE_HOME", tu_path("xdg"), 1);
    setenv("MMSIM_CACHE_DIR", "", 1);
    cr_assert_eq(run_info(a, sym), 0);
    cr_assert_eq(file_size(tu_path("xdg")), -1);
    cr_assert_eq(file_size(tu_path("home/.cache")), -1);
    /* Unset: $XDG_CACHE_HOME/mmsim; a relative XDG_CACHE_HOME is ignored for $HOME/.cache. */
    unsetenv("MMSIM_CACHE_DIR");
    cr_assert_eq(run_info(a, sym), 0);
    cr_assert_eq(file_size(tu_path("xdg/mmsim/h5guard.v1")), 48);
    setenv("XDG_CACHE_HOME", "relative/dir", 1);
    cr_assert_eq(run_info(a, sym), 0);
    cr_assert_eq(file_size(tu_path("home/.cache/mmsim/h5guard.v1")), 48);
}
