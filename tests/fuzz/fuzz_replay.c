/* Replays a fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput over every regular file of
 * each directory given (not recursing; a missing directory is an error) and over each file given by
 * name. Linked with one target's source into `fuzz_<target>_replay`, a Meson test of the normal
 * build (gcc or clang, under ASan/UBSan in the sanitizer build), over fixtures/fuzz/<target>/ (the
 * seeds) and fixtures/fuzz/<target>/regress/ (inputs that once crashed or misbehaved;
 * docs/fuzzing.md). Usage: fuzz_<target>_replay [--mutations N] DIR_OR_FILE... ; exit 0 when every
 * input ran (the target aborts otherwise), 1 when a path cannot be read or no input was found.
 * --mutations N: after each input, N seeded mutations of it (1 to 4 edits each: a byte set to a
 * delimiter, digit or 0x00/0xff, a bit flipped, a byte deleted or inserted, the tail cut), the same
 * on every machine (a fixed xorshift seed; the inputs in name order): a small deterministic fuzz
 * smoke of every target in the sanitizer build (docs/fuzzing.md, "In CI"). Compiled with
 * -DMM_FUZZ_REPLAY_NO_MAIN it only provides mm_fuzz_replay_path (fuzz_replay_dir.h) to the older
 * replay programs that also mutate seeds. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_replay_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole file into a fresh buffer (*size bytes; never NULL on success). Returns 0 or
 * -errno. */
static int slurp(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -errno;
    size_t cap = 4096, n = 0;
    uint8_t *b = malloc(cap);
    int rc = 0;
    while (b) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    if (!b)
        rc = -ENOMEM;
    else if (ferror(f))
        rc = -EIO;
    fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    *data = b;
    *size = n;
    return 0;
}

static long g_mutations; /* --mutations: mutated copies run after each input */
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* 1 to 4 edits of b[0, n) in place (cap >= n + 4 bytes); returns the new length. */
static size_t mutate(uint8_t *b, size_t n)
{
    static const char interesting[] = ",.-0123456789\n\"{}[]:= e\0\xff";
    int edits = 1 + (int)(rnd() % 4);
    for (int k = 0; k < edits && n > 1; k++) {
        size_t at = (size_t)(rnd() % n);
        switch (rnd() % 5) {
        case 0:
            b[at] = (uint8_t)interesting[rnd() % (sizeof interesting - 1)];
            break;
        case 1:
            b[at] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 2:
            memmove(b + at, b + at + 1, n - at - 1);
            n--;
            break;
        case 3:
            memmove(b + at + 1, b + at, n - at);
            b[at] = (uint8_t)interesting[rnd() % (sizeof interesting - 1)];
            n++;
            break;
        default:
            n = at + 1; /* cut the tail */
            break;
        }
    }
    return n;
}

static int run_file(const char *path, long *runs)
{
    uint8_t *data = NULL;
    size_t size = 0;
    int rc = slurp(path, &data, &size);
    if (rc) {
        fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(-rc));
        return 1;
    }
    LLVMFuzzerTestOneInput(data, size);
    (*runs)++;
    if (g_mutations > 0 && size > 1) {
        uint8_t *m = malloc(size + 4);
        if (!m) {
            fprintf(stderr, "fuzz replay: out of memory\n");
            exit(1);
        }
        for (long i = 0; i < g_mutations; i++) {
            memcpy(m, data, size);
            LLVMFuzzerTestOneInput(m, mutate(m, size));
        }
        free(m);
        *runs += g_mutations;
    }
    free(data);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order (the same order on every machine). */
static int run_dir(const char *dir, long *runs)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int bad = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        char *p = malloc(len);
        if (!p ||
            (n == cap && !(names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names)))) {
            fprintf(stderr, "fuzz replay: out of memory\n");
            exit(1);
        }
        snprintf(p, len, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        names[n++] = p;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        bad |= run_file(names[i], runs);
        free(names[i]);
    }
    free(names);
    return bad;
}

int mm_fuzz_replay_path(const char *path, long *runs)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return S_ISDIR(st.st_mode) ? run_dir(path, runs) : run_file(path, runs);
}

#ifndef MM_FUZZ_REPLAY_NO_MAIN
int main(int argc, char **argv)
{
    long runs = 0;
    int bad = 0, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--mutations")) {
        char *end;
        g_mutations = strtol(argv[2], &end, 10);
        if (*end || g_mutations < 0) {
            fprintf(stderr, "%s: --mutations %s: want a count >= 0\n", argv[0], argv[2]);
            return 2;
        }
        first = 3;
    }
    if (argc <= first) {
        fprintf(stderr, "usage: %s [--mutations N] DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = first; i < argc; i++)
        bad |= mm_fuzz_replay_path(argv[i], &runs);
    printf("%s: %ld inputs replayed (%ld mutations of each file), no crash\n", argv[0], runs,
           g_mutations);
    if (!runs) fprintf(stderr, "fuzz replay: no input found\n");
    return bad || !runs;
}
#endif
