/* Lines of a plain or gzip-compressed file. The format is decided by the first two bytes (the gzip
 * magic 1f 8b), not by the name; but a file whose name ends in ".gz" must be gzip, so that a plain
 * or damaged file behind a .gz name is reported as such instead of being parsed as text.
 *
 * gzip streams are inflated here with zlib's inflate() rather than gzread(): gzread silently stops
 * at bytes that follow a gzip member when they are not another member, and this reader must refuse
 * them (a download with garbage appended, two files glued together badly). Several complete members
 * one after the other (what `cat a.gz b.gz` gives) are one stream, as gzip(1) reads them. A stream
 * that ends early (a truncated download) is an error, not a short file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "mm_internal.h"

#define LINES_CHUNK (1u << 20)
#define LINES_MAX ((size_t)256 << 20)
#define LINES_IN (256u * 1024)

/* 1 when the name ends in ".gz" (any case). */
static int gz_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && path[n - 3] == '.' && (path[n - 2] | 0x20) == 'g' &&
           (path[n - 1] | 0x20) == 'z';
}

/* Read more compressed input after what is left in in[]. Returns 0 or -errno (err set). */
static int read_in(mm__lines *r, mm_error *err)
{
    if (r->z.avail_in > 0 && r->z.next_in != r->in) memmove(r->in, r->z.next_in, r->z.avail_in);
    r->z.next_in = r->in;
    size_t got = fread(r->in + r->z.avail_in, 1, LINES_IN - r->z.avail_in, r->f);
    if (got == 0 && ferror(r->f)) {
        int e = errno ? errno : EIO;
        return mm__errf(err, -e, "%s:%" PRId64 ": read error: %s", r->path, r->lineno + 1,
                        strerror(e));
    }
    if (got == 0 || feof(r->f)) r->in_eof = 1;
    r->z.avail_in += (uInt)got;
    r->in_off += (int64_t)got;
    return 0;
}

int mm__lines_open(mm__lines *r, const char *path, mm_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    errno = 0;
    r->f = fopen(path, "rb");
    if (!r->f) {
        int e = errno ? errno : ENOMEM;
        return mm__errf(err, -e, "%s: %s", path, strerror(e));
    }
    r->cap = 2 * (size_t)LINES_CHUNK;
    r->buf = malloc(r->cap + 1);
    r->in = malloc(LINES_IN);
    int rc;
    if (!r->buf || !r->in) {
        rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    if ((rc = read_in(r, err))) goto fail;
    while (r->z.avail_in < 2 && !r->in_eof)
        if ((rc = read_in(r, err))) goto fail;
    r->gz = r->z.avail_in >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
    if (!r->gz && gz_name(path)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: not a gzip file (%s; the name ends in .gz)", path,
                      r->z.avail_in == 0 ? "it is empty"
                                         : "it does not start with the gzip magic bytes 1f 8b");
        goto fail;
    }
    if (r->gz) {
        if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
            rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
            goto fail;
        }
        r->z_live = 1;
    }
    return 0;
fail:
    mm__lines_close(r);
    r->path = path;
    return rc;
}

/* After the end of a gzip member: the end of the file (returns 0), or another member's magic
 * bytes (returns 1, inflate reset for it); anything else is trailing data (an error). */
static int next_member(mm__lines *r, mm_error *err)
{
    while (r->z.avail_in < 2 && !r->in_eof) {
        int rc = read_in(r, err);
        if (rc) return rc;
    }
    if (r->z.avail_in == 0) return 0;
    if (r->z.avail_in < 2 || r->z.next_in[0] != 0x1f || r->z.next_in[1] != 0x8b)
        return mm__errf(err, MM_EFORMAT,
                        "%s: trailing data after the end of the gzip stream (at byte %" PRId64
                        " of the file; the file is corrupt or two files were joined)",
                        r->path, r->in_off - (int64_t)r->z.avail_in);
    if (inflateReset(&r->z) != Z_OK)
        return mm__errf(err, MM_EFORMAT, "%s: gzip: cannot restart", r->path);
    return 1;
}

/* gzip: inflate into buf[end, cap). Returns the number of bytes produced (0 only at the end of the
 * stream) or a negative code (err set). What follows a member is checked as soon as the member
 * ends, so trailing data is reported before the lines are parsed. */
static int64_t inflate_some(mm__lines *r, mm_error *err)
{
    if (r->member_done) return 0; /* the last member ended at the end of the file */
    r->z.next_out = (Bytef *)r->buf + r->end;
    r->z.avail_out = (uInt)(r->cap - r->end);
    int64_t total = 0;
    for (;;) {
        if (r->z.avail_in == 0 && !r->in_eof) {
            int rc = read_in(r, err);
            if (rc) return rc;
        }
        uInt before = r->z.avail_out;
        int zr = inflate(&r->z, Z_NO_FLUSH);
        int64_t got = (int64_t)(before - r->z.avail_out);
        total += got;
        if (zr == Z_STREAM_END) {
            int m = next_member(r, err);
            if (m < 0) return m;
            if (m == 0) {
                r->member_done = 1;
                return total;
            }
            if (r->z.avail_out == 0) return total;
            continue;
        }
        if (zr == Z_MEM_ERROR) return mm__errf(err, -ENOMEM, "%s: out of memory", r->path);
        if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
            return mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": gzip: %s (truncated or corrupt file)",
                            r->path, r->lineno + 1, r->z.msg ? r->z.msg : "invalid data");
        /* Output room left, no input left and not at the end of a member: the stream is cut
         * short. Reported now, before the lines decoded so far are parsed. */
        if (r->z.avail_out > 0 && r->z.avail_in == 0 && r->in_eof)
            return mm__errf(err, MM_EFORMAT,
                            "%s:%" PRId64
                            ": gzip: unexpected end of file (truncated or corrupt file)",
                            r->path, r->lineno + 1);
        if (total > 0) return total;
    }
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
    int64_t got;
    if (r->gz) {
        got = inflate_some(r, err);
        if (got < 0) return (int)got;
    } else {
        /* Plain: what read_in() already holds first, then the file. */
        size_t room = r->cap - r->end;
        if (r->z.avail_in > 0) {
            size_t k = r->z.avail_in < room ? r->z.avail_in : room;
            memcpy(r->buf + r->end, r->z.next_in, k);
            r->z.next_in += k;
            r->z.avail_in -= (uInt)k;
            got = (int64_t)k;
        } else {
            got = (int64_t)fread(r->buf + r->end, 1, room, r->f);
            if (got == 0 && ferror(r->f)) {
                int e = errno ? errno : EIO;
                return mm__errf(err, -e, "%s:%" PRId64 ": read error: %s", r->path, r->lineno + 1,
                                strerror(e));
            }
        }
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
        if (r->lineno == 0 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3, n -= 3;
        r->lineno++;
        *line = s;
        *len = n;
        return 1;
    }
}

void mm__lines_close(mm__lines *r)
{
    if (r->z_live) inflateEnd(&r->z);
    if (r->f) fclose(r->f);
    free(r->buf);
    free(r->in);
    memset(r, 0, sizeof *r);
}
