/* The files a command reads and writes (cli.h, "Inputs and outputs"): one list of inputs that
 * every output is checked against, the checks of an output before any work (never an input, never
 * a file of another kind), the temporaries removed when a signal ends the command, and the XXH3 of
 * a whole file (the side inputs a results file records). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Header-only (as src/io/fingerprint.c): the streaming state lives on the stack. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <hdf5.h>

#include "cli.h"
#include "mm_h5util.h"

/* ---- inputs ---- */

/* Every file this process has read or will read, by device and inode (so a link or another
 * spelling of the path is the same file), with the name to print. A command reads a few dozen
 * files at most (tapes, configs, a results file and what it records); past CLI_INPUTS_MAX the
 * command is refused rather than left unchecked. */
#define CLI_INPUTS_MAX 4096
typedef struct cli_input_rec {
    dev_t dev;
    ino_t ino;
    char *name;   /* the path as given (malloc'd; NULL when out of memory: "an input") */
    char *origin; /* how it was reached ("recorded in r.h5"), or NULL */
} cli_input_rec;
static cli_input_rec inputs[CLI_INPUTS_MAX];
static int n_inputs, inputs_full;

void cli_input(const char *path, const char *origin)
{
    struct stat st;
    if (!path || !*path || stat(path, &st) != 0) return; /* absent: nothing to protect */
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return;
    if (n_inputs == CLI_INPUTS_MAX) {
        inputs_full = 1;
        return;
    }
    cli_input_rec *r = &inputs[n_inputs++];
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    r->name = strdup(path);
    r->origin = origin ? strdup(origin) : NULL;
}

/* The input out is (same device and inode), or NULL. */
static const cli_input_rec *input_of(const char *out)
{
    struct stat st;
    if (stat(out, &st) != 0) return NULL;
    for (int i = 0; i < n_inputs; i++)
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return &inputs[i];
    return NULL;
}

int cli_check_inputs(const char *cmd, const char *flag, const char *out)
{
    if (inputs_full) {
        cli_err("%s: %s %s: more than %d input files; cannot check that the output is none of "
                "them",
                cmd, flag, out, CLI_INPUTS_MAX);
        return -1;
    }
    const cli_input_rec *r = input_of(out);
    if (!r) return 0;
    const char *name = r->name ? r->name : "(an input)";
    if (!strcmp(out, name) && !r->origin)
        cli_err("%s: %s %s: the output is also an input; choose another output file", cmd, flag,
                out);
    else if (!strcmp(out, name))
        cli_err("%s: %s %s: the output is also an input (%s); choose another output file", cmd,
                flag, out, r->origin);
    else if (r->origin)
        cli_err("%s: %s %s: the output is the same file as the input %s (%s); choose another "
                "output file",
                cmd, flag, out, name, r->origin);
    else
        cli_err("%s: %s %s: the output is the same file as the input %s; choose another output "
                "file",
                cmd, flag, out, name);
    return -1;
}

/* ---- outputs: never an input, never a file of another kind ---- */

int cli_check_output(const char *cmd, const char *flag, const char *out, const char *const *inputs,
                     int n_inputs)
{
    if (!out || !*out) {
        cli_err("%s: %s: empty path", cmd, flag);
        return -1;
    }
    for (int i = 0; i < n_inputs; i++)
        cli_input(inputs[i], NULL);
    if (cli_check_inputs(cmd, flag, out)) return -1;
    struct stat st;
    if (stat(out, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_err("%s: %s %s: is a directory", cmd, flag, out);
            return -1;
        }
        /* Outputs are written to a temporary file and renamed over the path: that would replace a
         * device
         * (/dev/full), a pipe or a socket by a plain file. */
        if (!S_ISREG(st.st_mode)) {
            cli_err("%s: %s %s: is not a regular file (a device, pipe or socket); refusing to "
                    "replace it",
                    cmd, flag, out);
            return -1;
        }
        if (access(out, W_OK) != 0) {
            cli_err("%s: %s %s: %s", cmd, flag, out, strerror(errno));
            return -1;
        }
    }
    /* The directory must exist and be writable: outputs are written to a temporary file beside
     * them. */
    size_t n = strlen(out);
    char dir[PATH_MAX]; /* on the stack: this check cannot fail for lack of memory */
    if (n >= sizeof dir) {
        cli_err("%s: %s %s: %s", cmd, flag, out, strerror(ENAMETOOLONG));
        return -1;
    }
    memcpy(dir, out, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_err("%s: %s %s: directory %s does not exist", cmd, flag, out, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_err("%s: %s %s: directory %s: %s", cmd, flag, out, dir, strerror(errno));
        return -1;
    }
    cli_output_tmp(out);
    return 0;
}

int cli_check_h5_kind(const char *cmd, const char *flag, const char *out, const char *want_prefix,
                      const char *what)
{
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode)) return 0; /* absent: nothing to protect */
    char tag[128] = "";
    /* A file mmsim wrote says what it is in its user block: no HDF5 open (nor the guard's probe)
     * when that is what we want. Any other answer is checked through HDF5, which words it. */
    if (mm__h5_userblock_tag(out, tag, sizeof tag) &&
        !strncmp(tag, want_prefix, strlen(want_prefix)))
        return 0;
    tag[0] = 0;
    int is_h5 = 0;
    if (st.st_size > 0) {
        mm__h5quiet q;
        mm__h5quiet_begin(&q);
        hid_t f = -1;
        mm_error gerr = {0};
        int rc = mm__h5_open_ro(out, &f, &gerr);
        mm__h5quiet_end(&q);
        if (rc < 0) {
            char buf[1024];
            cli_err("%s: %s %s: cannot tell what it holds: %s", cmd, flag, out,
                    cli_libmsg(gerr.msg, buf, sizeof buf));
            return -1;
        }
        is_h5 = rc != MM__H5_NOT_HDF5; /* one HDF5 cannot open has no tag to read */
        if (f >= 0) {
            mm__h5quiet_begin(&q);
            mm__attr_get_strbuf(f, "mmsim_format", tag,
                                sizeof tag); /* "" when missing or not a string */
            H5Fclose(f);
            mm__h5quiet_end(&q);
        }
    }
    if (!strncmp(tag, want_prefix, strlen(want_prefix))) return 0;
    if (is_h5 && tag[0])
        cli_err("%s: %s %s: is a %s file, not a %s; refusing to write into it", cmd, flag, out, tag,
                what);
    else if (is_h5)
        cli_err("%s: %s %s: is an HDF5 file that is not a %s; refusing to write into it", cmd, flag,
                out, what);
    else
        cli_err("%s: %s %s: exists and is not a %s (not HDF5); refusing to overwrite it", cmd, flag,
                out, what);
    return -1;
}

int cli_check_not_h5(const char *cmd, const char *flag, const char *out, const char *what)
{
    struct stat st;
    if (stat(out, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return 0;
    mm__h5quiet q;
    mm__h5quiet_begin(&q);
    int is_h5 = MM_H5_IS_HDF5(out) > 0;
    mm__h5quiet_end(&q);
    if (!is_h5) return 0;
    cli_err("%s: %s %s: is an HDF5 file; refusing to overwrite it with %s", cmd, flag, out, what);
    return -1;
}

/* ---- temporaries removed on SIGINT, SIGTERM, SIGHUP ---- */

/* "<output>.tmp.<pid>" of every output checked by cli_check_output: every writer of mmsim puts its
 * output there first and renames it into place (mm_stale_tmp.h). The handler unlinks them
 * (async-signal-safe: the strings are built before the handler can see them; n_tmps is published
 * after its entry is complete) and ends the process by the same signal. The sweep installs its own
 * handler while it runs (it stops cleanly and keeps its journal) and puts this one back after. */
#define CLI_TMPS_MAX 16
static char *tmps[CLI_TMPS_MAX];
static volatile sig_atomic_t n_tmps;

static void on_fatal_signal(int sig)
{
    for (sig_atomic_t i = 0; i < n_tmps; i++)
        if (tmps[i]) unlink(tmps[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_signals_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal ignored by whoever started us (nohup's SIGHUP) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void cli_output_tmp(const char *out)
{
    if (!out || n_tmps == CLI_TMPS_MAX) return;
    size_t n = strlen(out) + 32;
    char *t = malloc(n);
    if (!t) return; /* the stale-temporary sweep of the next writer removes it (mm_stale_tmp.h) */
    snprintf(t, n, "%s.tmp.%ld", out, (long)getpid());
    for (sig_atomic_t i = 0; i < n_tmps; i++)
        if (!strcmp(tmps[i], t)) {
            free(t);
            return;
        }
    tmps[n_tmps] = t;
    n_tmps = n_tmps + 1;
}

void cli_files_free(void)
{
    sig_atomic_t n = n_tmps;
    n_tmps = 0; /* the handler sees none from here on */
    for (sig_atomic_t i = 0; i < n; i++) {
        free(tmps[i]);
        tmps[i] = NULL;
    }
    for (int i = 0; i < n_inputs; i++) {
        free(inputs[i].name);
        free(inputs[i].origin);
    }
    n_inputs = 0;
    inputs_full = 0;
}

/* ---- the XXH3 of a file ---- */

int cli_file_xxh3(const char *path, uint64_t *hash)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    XXH3_state_t st;
    XXH3_INITSTATE(&st);
    XXH3_64bits_reset(&st);
    char buf[1 << 14];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0) break;
        XXH3_64bits_update(&st, buf, (size_t)n);
    }
    close(fd);
    if (!rc) *hash = XXH3_64bits_digest(&st);
    return rc;
}
