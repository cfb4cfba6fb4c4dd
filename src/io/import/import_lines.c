/* Lines of a plain or gzip-compressed file through zlib's gzread (which passes plain files
 * through). A gzip stream that ends early (a truncated download) is an error, not a short file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mm_internal.h"
#include "import_internal.h"

#define LINES_CHUNK (1u << 20)
#define LINES_MAX ((size_t)256 << 20)

int mm__lines_open(mm__lines *r, const char *path, mm_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    errno = 0;
    r->gz = gzopen(path, "rb");
    if (!r->gz) {
        int e = errno ? errno : ENOMEM;
        return mm__errf(err, -e, "%s: %s", path, strerror(e));
    }
    gzbuffer(r->gz, 256 * 1024);
    r->cap = 2 * (size_t)LINES_CHUNK;
    r->buf = malloc(r->cap + 1);
    if (!r->buf) {
        gzclose(r->gz);
        r->gz = NULL;
        return mm__errf(err, -ENOMEM, "%s: out of memory", path);
    }
    return 0;
}

/* Read more bytes after buf[end]. Returns 0, or a negative code (err set). */
static int fill(mm__lines *r, mm_error *err)
{
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->beg = 0;
    }
    if (r->cap - r->end < LINES_CHUNK) {
        if (r->cap >= LINES_MAX)
            return mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": line longer than %zu bytes", r->path,
                            r->lineno + 1, LINES_MAX);
        char *nb = realloc(r->buf, 2 * r->cap + 1);
        if (!nb) return mm__errf(err, -ENOMEM, "%s: out of memory", r->path);
        r->buf = nb;
        r->cap *= 2;
    }
    int got = gzread(r->gz, r->buf + r->end, (unsigned)(r->cap - r->end));
    int zerr = Z_OK;
    const char *zmsg = gzerror(r->gz, &zerr);
    if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END)) {
        if (zerr == Z_ERRNO)
            return mm__errf(err, -EIO, "%s:%" PRId64 ": read error: %s", r->path, r->lineno + 1,
                            strerror(errno));
        return mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": gzip: %s (truncated or corrupt file)",
                        r->path, r->lineno + 1, zmsg && *zmsg ? zmsg : "error");
    }
    if (got == 0) r->eof = 1;
    r->end += (size_t)got;
    return 0;
}

int mm__lines_next(mm__lines *r, char **line, size_t *len, mm_error *err)
{
    for (;;) {
        char *s = r->buf + r->beg;
        char *nl = memchr(s, '\n', r->end - r->beg);
        size_t n;
        if (nl) {
            n = (size_t)(nl - s);
            r->beg += n + 1;
        } else if (r->eof) {
            if (r->beg == r->end) return 0;
            n = r->end - r->beg; /* a last line without a newline */
            r->beg = r->end;
        } else {
            int rc = fill(r, err);
            if (rc) return rc;
            continue;
        }
        r->bytes += (int64_t)n + (nl ? 1 : 0);
        if (n && s[n - 1] == '\r') n--;
        s[n] = 0;
        r->lineno++;
        *line = s;
        *len = n;
        return 1;
    }
}

void mm__lines_close(mm__lines *r)
{
    if (r->gz) gzclose(r->gz);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
