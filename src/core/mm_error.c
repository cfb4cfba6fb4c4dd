/* Error codes, their text, and the one-line error context. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_config.h"
#include "mm_internal.h"

const char *mm_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
    case MM_EFORMAT:
        return "bad file format";
    case MM_EINVALID:
        return "invalid data";
    case MM_ECHECKSUM:
        return "fingerprint mismatch";
    case MM_ENOTFOUND:
        return "not found";
    case MM_EHDF5:
        return "HDF5 error";
    case MM_EUSAGE:
        return "invalid parameter";
    case MM_EINTERRUPTED:
        return "interrupted";
    case MM_ELOCKED:
        return "being written by another process";
    default:
        break;
    }
    if (code < 0 && code > -4096) return strerror(-code);
    return "unknown error";
}

const char *mm_version(void)
{
    return MM_VERSION_STRING;
}

int mm__errf(mm_error *err, int code, const char *fmt, ...)
{
    if (!err) return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    err->code = code;
    return code;
}

const char *mm__fmt_g(double v, char buf[MM__G_LEN])
{
    for (int p = 6; p < 17; p++) {
        snprintf(buf, MM__G_LEN, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return buf;
    }
    snprintf(buf, MM__G_LEN, "%.17g", v); /* 17 digits read back as v; NaN never compares equal */
    return buf;
}

int mm__valid_symbol(const char *s)
{
    if (!s || !s[0] || strlen(s) >= MM_SYMBOL_MAX) return 0;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-'))
            return 0;
    return 1;
}
