/* The raw tape (docs/formats.md, "Raw tape (.mmtape)"): one instrument's columns as they are in
 * memory, with a 256-byte header, for machines without HDF5 (the GPU check's checkmodel reads real
 * tapes from it). Little-endian only. Plain stdio: part of the model core, which builds without
 * HDF5 and xxHash. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mm_internal.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the raw tape format is little-endian: this host is not"
#endif

#define RAW_MAGIC "MMTAPE01"  /* a tape without depth: as before depth existed */
#define RAW_MAGIC2 "MMTAPE02" /* a tape with depth: the depth section after the columns */
#define RAW_HEADER 256
#define RAW_ROW 33        /* bytes per row: ts_ns 8, six int32 columns, trade_side 1 */
#define RAW_DEPTH_HEAD 16 /* depth rows uint64, levels int32, ids int32 */
#define RAW_DEPTH_ROW 26  /* bytes per depth row: row 8, join 8, px 4, sz 4, side 1, cause 1 */
#define RAW_SIGNAL 1      /* flags: the signal section (its name, 64 bytes, then n float64) last */

/* The header, in file order (offsets in bytes). */
typedef struct raw_header {
    char magic[8];                /* 0: "MMTAPE01", or "MMTAPE02" with depth */
    uint64_t n;                   /* 8: rows */
    double tick_size, lot_size;   /* 16, 24 */
    double year_s;                /* 32: 0 = not recorded */
    uint64_t fingerprint;         /* 40: the tick file's XXH3-64 fingerprint, as recorded */
    int32_t allow_crossed, flags; /* 48, 52: flags 0, or RAW_SIGNAL */
    char symbol[MM_SYMBOL_MAX];   /* 56: NUL-terminated, NUL-padded */
    char source[MM_SOURCE_MAX];   /* 120: NUL-terminated, NUL-padded */
    uint64_t checksum; /* 248: FNV-1a 64 of every byte after the header (columns, sections) */
} raw_header;
_Static_assert(sizeof(raw_header) == RAW_HEADER, "raw tape header layout");

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

#define FNV0 UINT64_C(0xcbf29ce484222325)

/* The columns in file order: base pointer, element size and count (the 8 tick columns, then the
 * 6 depth columns: 14 in all). */
#define RAW_COLS 14
static void columns(const mm_ticks *t, const void *col[RAW_COLS], size_t size[RAW_COLS],
                    size_t count[RAW_COLS])
{
    const mm_depth *d = &t->depth;
    const void *c[RAW_COLS] = {t->ts_ns,    t->bid_px,   t->ask_px,     t->bid_sz, t->ask_sz,
                               t->trade_px, t->trade_sz, t->trade_side, d->row,    d->join,
                               d->px,       d->sz,       d->side,       d->cause};
    const size_t s[RAW_COLS] = {8, 4, 4, 4, 4, 4, 4, 1, 8, 8, 4, 4, 1, 1};
    memcpy(col, c, sizeof c);
    memcpy(size, s, sizeof s);
    for (int k = 0; k < RAW_COLS; k++)
        count[k] = (size_t)(k < 8 ? t->n : d->n);
}

/* The depth section's header, right after the tick columns (MMTAPE02 only). */
typedef struct raw_depth_head {
    uint64_t n;          /* depth rows */
    int32_t levels, ids; /* mm_depth.levels (>= 1), .ids */
} raw_depth_head;
_Static_assert(sizeof(raw_depth_head) == RAW_DEPTH_HEAD, "raw tape depth header layout");

int mm_ticks_write_raw(FILE *f, const mm_ticks *t, mm_error *err)
{
    if (!f || !t || t->n < 0) return mm__errf(err, -EINVAL, "mm_ticks_write_raw: bad argument");
    raw_header h;
    memset(&h, 0, sizeof h);
    int depth = t->depth.levels > 0;
    memcpy(h.magic, depth ? RAW_MAGIC2 : RAW_MAGIC, 8);
    h.n = (uint64_t)t->n;
    h.tick_size = t->inst.tick_size;
    h.lot_size = t->inst.lot_size;
    h.year_s = t->inst.year_s;
    h.fingerprint = t->inst.fingerprint;
    h.allow_crossed = t->inst.allow_crossed;
    h.flags = t->signal ? RAW_SIGNAL : 0;
    char sname[MM_SYMBOL_MAX];
    memset(sname, 0, sizeof sname);
    memcpy(sname, t->signal_name, strnlen(t->signal_name, MM_SYMBOL_MAX - 1));
    size_t rows = (size_t)t->n;
    memcpy(h.symbol, t->inst.symbol, strnlen(t->inst.symbol, MM_SYMBOL_MAX - 1));
    memcpy(h.source, t->inst.source, strnlen(t->inst.source, MM_SOURCE_MAX - 1));
    const void *col[RAW_COLS];
    size_t size[RAW_COLS], count[RAW_COLS];
    columns(t, col, size, count);
    raw_depth_head dh = {(uint64_t)t->depth.n, t->depth.levels, t->depth.ids};
    int ncols = depth ? RAW_COLS : 8;
    uint64_t sum = FNV0;
    for (int k = 0; k < ncols; k++) {
        if (k == 8) sum = fnv(sum, &dh, sizeof dh);
        sum = fnv(sum, col[k], size[k] * count[k]);
    }
    if (t->signal) {
        sum = fnv(sum, sname, sizeof sname);
        sum = fnv(sum, t->signal, rows * 8);
    }
    h.checksum = sum;
    if (fwrite(&h, sizeof h, 1, f) != 1) goto io;
    for (int k = 0; k < ncols; k++) {
        if (k == 8 && fwrite(&dh, sizeof dh, 1, f) != 1) goto io;
        if (count[k] > 0 && fwrite(col[k], size[k], count[k], f) != count[k]) goto io;
    }
    if (t->signal && (fwrite(sname, sizeof sname, 1, f) != 1 ||
                      (rows > 0 && fwrite(t->signal, 8, rows, f) != rows)))
        goto io;
    return 0;
io:
    return mm__errf(err, errno ? -errno : -EIO, "writing the raw tape: %s",
                    strerror(errno ? errno : EIO));
}

/* A NUL-terminated field of at most len - 1 characters, NUL-padded (zero after the first NUL: a
 * file reads back to the bytes it was written as). */
static int field_ok(const char *s, size_t len)
{
    const char *z = memchr(s, 0, len);
    if (!z) return 0;
    for (const char *c = z; c < s + len; c++)
        if (*c) return 0;
    return 1;
}

int mm_ticks_load_raw(const char *path, mm_ticks *out, mm_error *err)
{
    if (!path || !out) return mm__errf(err, -EINVAL, "mm_ticks_load_raw: bad argument");
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return mm__errf(err, -errno, "%s: %s", path, strerror(errno));
    struct stat sb;
    raw_header h;
    int rc = 0;
    if (fstat(fileno(f), &sb) != 0) {
        rc = mm__errf(err, -errno, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: not a regular file", path);
        goto done;
    }
    if (sb.st_size < RAW_HEADER || fread(&h, sizeof h, 1, f) != 1 ||
        (memcmp(h.magic, RAW_MAGIC, 8) != 0 && memcmp(h.magic, RAW_MAGIC2, 8) != 0)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: not a raw tape (no MMTAPE01 or MMTAPE02 header)", path);
        goto done;
    }
    int depth = memcmp(h.magic, RAW_MAGIC2, 8) == 0;
    if (h.n > (uint64_t)((INT64_MAX - RAW_HEADER - RAW_DEPTH_HEAD) / RAW_ROW)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: header: %" PRIu64 " rows: not a raw tape", path, h.n);
        goto done;
    }
    uint64_t want = RAW_HEADER + h.n * RAW_ROW;
    raw_depth_head dh = {0, 0, 0};
    if (depth) {
        /* The depth header sits right after the tick columns; read it to learn the size. */
        if ((uint64_t)sb.st_size < want + RAW_DEPTH_HEAD || fseeko(f, (off_t)want, SEEK_SET) != 0 ||
            fread(&dh, sizeof dh, 1, f) != 1 || fseeko(f, RAW_HEADER, SEEK_SET) != 0) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: header: %" PRIu64 " rows and a depth section need at least %" PRIu64
                          " bytes; the file has %lld (truncated or not a raw tape)",
                          path, h.n, want + RAW_DEPTH_HEAD, (long long)sb.st_size);
            goto done;
        }
        if (dh.n > (uint64_t)(INT64_MAX - want - RAW_DEPTH_HEAD) / RAW_DEPTH_ROW) {
            rc = mm__errf(err, MM_EFORMAT, "%s: depth header: %" PRIu64 " rows: not a raw tape",
                          path, dh.n);
            goto done;
        }
        if (dh.levels < 1 || dh.levels > MM_DEPTH_MAX_LEVELS || (dh.ids != 0 && dh.ids != 1)) {
            rc = mm__errf(err, MM_EFORMAT,
                          "%s: depth header: levels %" PRId32 " (1..%d), ids %" PRId32
                          " (0 or 1): corrupt",
                          path, dh.levels, MM_DEPTH_MAX_LEVELS, dh.ids);
            goto done;
        }
        want += RAW_DEPTH_HEAD + dh.n * RAW_DEPTH_ROW;
    }
    int sig = h.flags == RAW_SIGNAL;
    if (sig) want += MM_SYMBOL_MAX + h.n * 8;
    if ((uint64_t)sb.st_size != want) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: header: %" PRIu64 " rows%s%s need %" PRIu64
                      " bytes; the file has %lld (truncated or not a raw tape)",
                      path, h.n, depth ? " and their depth rows" : "", sig ? " and a signal" : "",
                      want, (long long)sb.st_size);
        goto done;
    }
    if (!field_ok(h.symbol, sizeof h.symbol) || !mm__valid_symbol(h.symbol)) {
        rc = mm__errf(err, MM_EFORMAT,
                      "%s: header: symbol: not a valid symbol ([A-Za-z0-9._-]+, at most %d "
                      "characters)",
                      path, MM_SYMBOL_MAX - 1);
        goto done;
    }
    if (!field_ok(h.source, sizeof h.source) || (h.flags != 0 && h.flags != RAW_SIGNAL) ||
        (h.allow_crossed != 0 && h.allow_crossed != 1)) {
        rc = mm__errf(err, MM_EFORMAT, "%s: header: corrupt (source, flags)", path);
        goto done;
    }
    if (!(h.year_s == 0 || (h.year_s > 0 && h.year_s <= 1e12))) {
        rc = mm__errf(err, MM_EFORMAT, "%s: header: year_seconds: %g is not 0 or in (0, 1e12]",
                      path, h.year_s);
        goto done;
    }
    if ((rc = mm__ticks_alloc_heap_depth(out, (int64_t)h.n, (int64_t)dh.n, sig))) {
        rc = mm__errf(err, rc, "%s: cannot allocate %" PRIu64 " rows", path, h.n);
        goto done;
    }
    out->depth.levels = dh.levels;
    out->depth.ids = dh.ids;
    const void *col[RAW_COLS];
    size_t size[RAW_COLS], count[RAW_COLS];
    columns(out, col, size, count);
    uint64_t sum = FNV0;
    for (int k = 0; k < (depth ? RAW_COLS : 8) && rc == 0; k++) {
        raw_depth_head again;
        if (k == 8) {
            if (fread(&again, sizeof again, 1, f) != 1) {
                rc = mm__errf(err, MM_EFORMAT, "%s: short read (truncated)", path);
                break;
            }
            sum = fnv(sum, &again, sizeof again);
        }
        if (count[k] > 0 && fread((void *)col[k], size[k], count[k], f) != count[k])
            rc = mm__errf(err, MM_EFORMAT, "%s: short read (truncated)", path);
        else
            sum = fnv(sum, col[k], size[k] * count[k]);
    }
    if (rc == 0 && sig) {
        if (fread(out->signal_name, MM_SYMBOL_MAX, 1, f) != 1 ||
            (h.n > 0 && fread(out->signal, 8, (size_t)h.n, f) != (size_t)h.n)) {
            rc = mm__errf(err, MM_EFORMAT, "%s: short read (truncated)", path);
        } else {
            sum = fnv(sum, out->signal_name, MM_SYMBOL_MAX);
            sum = fnv(sum, out->signal, (size_t)h.n * 8);
            if (!field_ok(out->signal_name, MM_SYMBOL_MAX)) out->signal_name[0] = 0;
        }
    }
    if (rc == 0 && sum != h.checksum)
        rc = mm__errf(err, MM_ECHECKSUM,
                      "%s: the columns do not match the header's checksum (corrupt file)", path);
    if (rc == 0) {
        memcpy(out->inst.symbol, h.symbol, sizeof h.symbol);
        memcpy(out->inst.source, h.source, sizeof h.source);
        out->inst.tick_size = h.tick_size;
        out->inst.lot_size = h.lot_size;
        out->inst.year_s = h.year_s;
        out->inst.fingerprint = h.fingerprint;
        out->inst.allow_crossed = h.allow_crossed;
        rc = mm_ticks_validate(out, path, err);
    }
    if (rc && out->mem_base) { /* heap (core does not link the io layer's mm_ticks_free) */
        free(out->mem_base);
        memset(out, 0, sizeof *out);
    }
done:
    fclose(f);
    return rc;
}
