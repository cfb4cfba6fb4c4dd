/* Fuzz target for the raw tape reader (docs/formats.md, "Raw tape (.mmtape)"), through the public
 * API mm_ticks_load_raw. Input: byte 0 holds option bits (1: the checksum at offset 248 is
 * recomputed over the mutated columns first, so that they reach the validation rules); the rest is
 * the file, handed over as a memfd path. Checked: a failure is one line starting with the path; a
 * tape that loads passes mm_ticks_validate again, and writing it back with mm_ticks_write_raw gives
 * the input's bytes (with bit 1, after the checksum fix). Seeds: fixtures/fuzz/rawtape/ (raw tapes
 * of `mmsim gen` days: 50 rows, 0 rows, with year_seconds and allow_crossed). */
#include "fuzz_mem_file.h"

#include "mmsim/mmsim.h"
#include "mmsim/ticks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1 << 20)) return 0;
    unsigned bits = data[0];
    data++, size--;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    if ((bits & 1) && size >= 256) { /* FNV-1a 64 of every byte after the header */
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (size_t i = 256; i < size; i++)
            h = (h ^ buf[i]) * UINT64_C(0x100000001b3);
        memcpy(buf + 248, &h, 8);
    }
    char path[64];
    int fd = mm_fuzz_mem_file(buf, size, path, sizeof path);
    mm_ticks t;
    mm_error e = {0};
    int rc = mm_ticks_load_raw(path, &t, &e);
    if (rc) {
        mm_fuzz_check_msg("fuzz_rawtape", rc, e.msg, path);
    } else {
        mm_error v = {0};
        if (mm_ticks_validate(&t, path, &v)) {
            fprintf(stderr, "fuzz_rawtape: %s: a loaded tape fails validation: %s\n", path, v.msg);
            abort();
        }
        /* What loads writes back to the same bytes. */
        char *out = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&out, &n);
        if (!f || mm_ticks_write_raw(f, &t, &v) || fclose(f)) abort();
        if (n != size || memcmp(out, buf, size)) {
            fprintf(stderr, "fuzz_rawtape: %s: written back, %zu bytes differ from the %zu read\n",
                    path, n, size);
            abort();
        }
        free(out);
        mm_ticks_free(&t);
    }
    close(fd);
    free(buf);
    return 0;
}
