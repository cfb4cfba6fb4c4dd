/* Replay of a fuzz target over stored inputs, without libFuzzer (fuzz_replay.c). */
#ifndef MM_FUZZ_REPLAY_DIR_H
#define MM_FUZZ_REPLAY_DIR_H

/* Runs LLVMFuzzerTestOneInput over path: every regular file of a directory (in name order, not
 * recursing, skipping names that start with '.'), or the file itself. *runs counts the inputs run.
 * Returns 0, or 1 after printing "fuzz replay: PATH: why" when path or one of its files cannot be
 * read. */
int mm_fuzz_replay_path(const char *path, long *runs);

#endif
