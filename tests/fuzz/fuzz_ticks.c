/* Fuzz target for the tick-file reader (docs/formats.md): the input is the bytes of an HDF5 file,
 * handed to the public API through a scratch file in $TMPDIR (fuzz_mem_file.h). mm_ticks_list, then
 * mm_ticks_load of each listed instrument (at most 4) twice: with every check (format, validation,
 * fingerprint) and with MM_LOAD_NO_VERIFY, so mutated column data reaches the validator. Any input
 * must give 0 or an error whose message is one line starting with the path; a tape that loads must
 * pass mm_ticks_validate again and summarise without a crash. Seeds: fixtures/fuzz/ticks/ (files
 * written by `mmsim gen`, docs/fuzzing.md). */
#include "fuzz_mem_file.h"

#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_one(const char *path, const char *sym, int flags)
{
    mm_ticks t;
    mm_error e = {0};
    int rc = mm_ticks_load(path, sym, flags, &t, &e);
    if (rc) {
        mm_fuzz_check_msg("fuzz_ticks", rc, e.msg, path);
        return;
    }
    mm_error v = {0};
    if (mm_ticks_validate(&t, path, &v)) {
        fprintf(stderr, "fuzz_ticks: %s: a loaded tape fails validation: %s\n", path, v.msg);
        abort();
    }
    if (sym && strcmp(t.inst.symbol, sym)) {
        fprintf(stderr, "fuzz_ticks: %s: asked for %s, loaded %s\n", path, sym, t.inst.symbol);
        abort();
    }
    mm_ticks_stats s;
    mm_ticks_summarize(&t, &s);
    if (s.rows != t.n) abort();
    mm_ticks_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Findings F1 and F4 (HDF5 1.10.8 hangs or crashes on such heaps) are no longer skipped:
     * mmsim's mm__h5_guard reports those files (src/io/h5guard.c), and the regress inputs check
     * that it does. */
    if (size > (1 << 20)) return 0;
    const char *path = mm_fuzz_tmp_file(data, size);
    char syms[4][MM_SYMBOL_MAX];
    int count = 0;
    mm_error e = {0};
    int rc = mm_ticks_list(path, syms, 4, &count, &e);
    if (rc) {
        mm_fuzz_check_msg("fuzz_ticks", rc, e.msg, path);
    } else {
        if (count < 0) abort();
        for (int i = 0; i < count && i < 4; i++) {
            if (!memchr(syms[i], 0, MM_SYMBOL_MAX)) abort(); /* every listed name is terminated */
            load_one(path, syms[i], 0);
            load_one(path, syms[i], MM_LOAD_NO_VERIFY);
        }
        if (count == 1) load_one(path, NULL, MM_LOAD_NO_VERIFY);
    }
    return 0;
}
