/* Shared pieces of the mmsim command-line tool: exit codes, messages, strict number parsing. */
#ifndef MM_CLI_H
#define MM_CLI_H

#include <stdint.h>

#include "mmsim/mmsim.h"

/* Exit codes (documented in docs/mmsim.1.md). */
enum { MM_EXIT_OK = 0, MM_EXIT_RUNTIME = 1, MM_EXIT_USAGE = 2 };

/* Print "mmsim: <message>" on one line to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Report a library error (its one-line message) and return MM_EXIT_USAGE for MM_EUSAGE, else 1. */
int cli_fail(const mm_error *e);

/* Strict parsers: the whole string must be a number in range. Return 0 or -1 after printing
 * "mmsim <cmd>: --flag: 'text' is not ..." */
int cli_i64(const char *cmd, const char *flag, const char *s, int64_t lo, int64_t hi, int64_t *out);
int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t *out);
int cli_f64(const char *cmd, const char *flag, const char *s, double lo, double hi, double *out);

/* Format ns since the epoch as ISO-8601 UTC with nanoseconds. */
void cli_fmt_time(int64_t ns, char *buf, int cap);

int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

#endif
