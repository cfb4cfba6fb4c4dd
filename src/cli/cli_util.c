#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

void cli_err(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (char *p = buf; *p; p++)
        if (*p == '\n') *p = ' ';
    fprintf(stderr, "mmsim: %s\n", buf);
}

int cli_fail(const mm_error *e)
{
    cli_err("%s", e->msg[0] ? e->msg : mm_strerror(e->code));
    return e->code == MM_EUSAGE ? MM_EXIT_USAGE : MM_EXIT_RUNTIME;
}

int cli_i64(const char *cmd, const char *flag, const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno) {
        cli_err("%s: %s: '%s' is not an integer", cmd, flag, s);
        return -1;
    }
    if (v < lo || v > hi) {
        cli_err("%s: %s: %lld is out of range [%" PRId64 ", %" PRId64 "]", cmd, flag, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_u64(const char *cmd, const char *flag, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-') {
        cli_err("%s: %s: '%s' must not be negative", cmd, flag, s);
        return -1;
    }
    unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || errno) {
        cli_err("%s: %s: '%s' is not an unsigned integer", cmd, flag, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_f64(const char *cmd, const char *flag, const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v)) {
        cli_err("%s: %s: '%s' is not a number", cmd, flag, s);
        return -1;
    }
    if (v < lo || v > hi) {
        cli_err("%s: %s: %g is out of range [%g, %g]", cmd, flag, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

void cli_fmt_time(int64_t ns, char *buf, int cap)
{
    int64_t sec = ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000);
    int64_t frac = ns - sec * 1000000000;
    time_t tt = (time_t)sec;
    struct tm tm;
    gmtime_r(&tt, &tm);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, (size_t)cap, "%s.%09" PRId64 "Z", date, frac);
}
