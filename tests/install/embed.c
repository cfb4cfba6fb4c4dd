/* A program that embeds libmmsim the way a user's program would: only the installed headers,
 * compiled and linked with `pkg-config --cflags --libs mmsim` (or `--static`) against an installed
 * copy of the library (tests/install/check_install.sh). It writes a synthetic tape through HDF5,
 * lists and loads it back, and prints the library's version and the tape's fingerprint: the shared
 * library works, HDF5 included. Usage: embed DIR. Exit 0 on success, 1 with one line on stderr on
 * failure. */
#include <inttypes.h>
#include <stdio.h>

#include <mmsim/mmsim.h>
#include <mmsim/ticks.h>

static int fail(const char *what, int rc, const mm_error *err)
{
    fprintf(stderr, "embed: %s: %s (%s)\n", what, err->msg[0] ? err->msg : "-", mm_strerror(rc));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: embed DIR\n");
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/embed_ticks.h5", argv[1]);
    mm_error err = {0};
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = 7;
    p.events = 1000;
    snprintf(p.symbol, sizeof p.symbol, "EMB");
    mm_ticks t = {0}, back = {0};
    int rc = mm_gen_ticks(&p, &t, &err);
    if (rc) return fail("gen", rc, &err);
    mm_write_opts o = {0};
    if ((rc = mm_ticks_write(path, &t, &o, &err)) != 0) return fail("write", rc, &err);
    char syms[4][MM_SYMBOL_MAX];
    int count = 0;
    if ((rc = mm_ticks_list(path, syms, 4, &count, &err)) != 0) return fail("list", rc, &err);
    if ((rc = mm_ticks_load(path, NULL, 0, &back, &err)) != 0) return fail("load", rc, &err);
    int same = count == 1 && back.n == t.n && back.inst.fingerprint == t.inst.fingerprint;
    printf("mmsim %s: %d instrument %s, %" PRId64 " rows, fingerprint %016" PRIx64 "%s\n",
           mm_version(), count, syms[0], back.n, back.inst.fingerprint, same ? "" : " (DIFFERS)");
    mm_ticks_free(&t);
    mm_ticks_free(&back);
    return same ? 0 : 1;
}
