/* Replays a fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput over every regular file of
 * each directory given (not recursing; a missing directory is an error) and over each file given by
 * name. Linked with one target's source into `fuzz_<target>_replay`, a Meson test of the normal
 * build (gcc or clang, under ASan/UBSan in the sanitizer build), over fixtures/fuzz/<target>/ (the
 * seeds) and fixtures/fuzz/<target>/regress/ (inputs that once crashed or misbehaved;
 * docs/fuzzing.md). Usage: fuzz_<target>_replay DIR_OR_FILE... ; exit 0 when every input ran (the
 * target aborts otherwise), 1 when a path cannot be read or no input was found. Compiled with
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
    free(data);
    (*runs)++;
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
    int bad = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        bad |= mm_fuzz_replay_path(argv[i], &runs);
    printf("%s: %ld inputs replayed, no crash\n", argv[0], runs);
    if (!runs) fprintf(stderr, "fuzz replay: no input found\n");
    return bad || !runs;
}
#endif
