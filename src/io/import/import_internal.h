/* Internals of the importers (src/io/import): a line reader over plain or gzip files, exact decimal
 * conversion, New York local time, a strict JSON scanner and a growable tape. Not part of the
 * public API; the unit tests include this header directly. */
#ifndef MM_IMPORT_INTERNAL_H
#define MM_IMPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#include "mmsim/import.h"

/* ---- lines of a plain or gzip file (import_lines.c) ---- */

typedef struct mm__lines {
    FILE *f;
    const char *path;
    int gz;          /* 1: gzip (the file starts with 1f 8b), 0: plain */
    int z_live;      /* inflateInit2 done */
    int member_done; /* the last gzip member ended at the end of the file */
    int in_eof;      /* fread returned 0 */
    z_stream z;      /* gzip state; for plain files next_in/avail_in hold the first bytes read */
    unsigned char *in;
    int64_t in_off; /* bytes of the file read so far */
    char *buf;
    size_t cap, beg, end; /* unread bytes are buf[beg, end) */
    int eof;
    int64_t lineno; /* number of the line last returned, 1-based */
    int64_t bytes;  /* uncompressed bytes consumed */
} mm__lines;

/* Open `path`: gzip when it starts with the magic bytes 1f 8b, else plain; a name ending in ".gz"
 * must be gzip (MM_EFORMAT "PATH: not a gzip file (...)"). Returns 0 or a negative code with err
 * "PATH: why". */
int mm__lines_open(mm__lines *r, const char *path, mm_error *err);

/* Next line, without its "\n" or "\r\n", NUL-terminated in place (valid until the next call);
 * the first line without a UTF-8 byte order mark (EF BB BF) before it, as spreadsheet programs
 * write one before a CSV header. Returns 1 with *line and *len, 0 at the end, or a negative code
 * with err "PATH:LINE: why" (a truncated or corrupt gzip stream, a read error, a line over 256 MiB)
 * or "PATH: trailing data after the end of the gzip stream ..." (bytes after the last gzip member
 * that are not another member). */
int mm__lines_next(mm__lines *r, char **line, size_t *len, mm_error *err);

void mm__lines_close(mm__lines *r);

/* ---- exact decimals (import_decimal.c) ---- */

/* A positive decimal unit (a tick or lot size): value = mant * 10^-exp. */
typedef struct mm__dec {
    int64_t mant;
    int exp;
} mm__dec;

/* Parse a decimal "[+-]digits[.digits]" of n bytes into mant * 10^-exp (at most 19 significant
 * digits, in int64). Returns 0 or -1 (not a decimal number) or -2 (too many digits). */
int mm__dec_parse(const char *s, size_t n, mm__dec *d);

/* Parse the unit (tick or lot) from a NUL-terminated string; it must be > 0. Returns 0 or -1. */
int mm__dec_unit(const char *s, mm__dec *unit);

/* Convert the decimal string s[0..n) to an integer number of `unit`s, exactly.
 * Returns 0, -1 (not a number), -2 (not a whole multiple of the unit), -3 (out of int64 range). */
int mm__dec_to_units(const char *s, size_t n, const mm__dec *unit, int64_t *out);

/* The unit as a double (for the tick_size / lot_size attributes). */
double mm__dec_double(const mm__dec *unit);

/* Parse an unsigned decimal integer s[0..n) (no sign, no spaces); returns 0 or -1 (empty, not
 * digits, over INT64_MAX). */
int mm__parse_i64(const char *s, size_t n, int64_t *out);

/* ---- dates and New York time (import_nytime.c) ---- */

/* Days since 1970-01-01 of a proleptic Gregorian date. */
int64_t mm__days_from_civil(int y, int m, int d);

/* Parse "YYYY-MM-DD" (a real date, year 1970..2099). Returns 0 or -1. */
int mm__parse_date(const char *s, int *y, int *m, int *d);

/* UTC offset of America/New_York, in seconds (-14400 EDT or -18000 EST), at local time `sec_of_day`
 * (seconds after local midnight) on the local date y-m-d, by the US rules (Energy Policy Act of
 * 2005 from 2007: second Sunday of March 02:00 to first Sunday of November 02:00; 1987-2006: first
 * Sunday of April to last Sunday of October). The skipped hour (02:00-03:00 on the spring day) is
 * read as EST; the repeated hour (01:00-02:00 on the autumn day) as its first occurrence, EDT.
 * Returns 1 on success, 0 for years before 1987 (rules not implemented). */
int mm__ny_utc_offset(int y, int m, int d, int64_t sec_of_day, int *offset_s);

/* UTC ns since the epoch of "ns after local midnight" in New York on y-m-d. Returns 0 or -1 (year).
 */
int mm__ny_to_utc_ns(int y, int m, int d, int64_t ns_of_day, int64_t *utc_ns);

/* ---- strict JSON scanner (import_json.c) ---- */

enum mm__jtype { MM_J_OBJ = 1, MM_J_ARR, MM_J_STR, MM_J_NUM, MM_J_TRUE, MM_J_FALSE, MM_J_NULL };

/* One token. Strings: [start, start+len) is the raw content between the quotes (escapes kept as
 * written). Objects alternate key (string) and value tokens among their children. `next` is the
 * index of the token after this one's whole subtree. */
typedef struct mm__jtok {
    uint8_t type;
    uint32_t start, len;
    int32_t count; /* children (objects: keys + values) */
    int32_t next;
} mm__jtok;

typedef struct mm__json {
    mm__jtok *tok;
    int32_t n, cap;
    const char *src;
} mm__json;

/* Parse exactly one JSON value (RFC 8259; surrounding whitespace allowed) from s[0..n). Strict: no
 * trailing commas, no comments, no NaN, no control characters in strings, valid escapes and UTF-8,
 * nesting at most 64 deep. Returns 0, -ENOMEM, or -1 with `why` = "column C: what". */
int mm__json_parse(mm__json *j, const char *s, size_t n, char *why, size_t whycap);

/* Value token of `key` in object token `obj` (raw, unescaped comparison), or -1. */
int32_t mm__json_get(const mm__json *j, int32_t obj, const char *key);

/* First child of a container (or -1 when empty) and the next sibling of a child inside `parent` (or
 * -1). */
int32_t mm__json_child(const mm__json *j, int32_t parent);
int32_t mm__json_sibling(const mm__json *j, int32_t parent, int32_t child);

/* A number token that is an integer (no fraction, no exponent, no sign) as int64. Returns 0 or -1.
 */
int mm__json_u64(const mm__json *j, int32_t t, int64_t *out);

void mm__json_free(mm__json *j);

/* ---- growable tape (import_tape.c) ---- */

typedef struct mm__imp_row {
    int64_t ts_ns;
    int32_t bid_px, ask_px, bid_sz, ask_sz, trade_px, trade_sz;
    int8_t trade_side;
} mm__imp_row;

/* Growable depth rows (mm_depth's columns); levels 0: the tape has no depth stream. */
typedef struct mm__imp_depth {
    int64_t n, cap;
    int32_t levels, ids;
    int64_t *row, *join;
    int32_t *px, *sz;
    int8_t *side, *cause;
} mm__imp_depth;

typedef struct mm__imp_tape {
    int64_t n, cap;
    int64_t *ts_ns;
    int32_t *bid_px, *ask_px, *bid_sz, *ask_sz, *trade_px, *trade_sz;
    int8_t *trade_side;
    mm__imp_depth depth; /* moved into the tape's mm_depth by mm__imp_tape_finish */
} mm__imp_tape;

/* Append one row. Returns 0 or -ENOMEM. */
int mm__imp_tape_push(mm__imp_tape *t, const mm__imp_row *r);

/* Append one depth row: tape row `row`, side +1 bid / -1 ask, price px ticks, size after sz lots,
 * cause (enum mm_depth_cause), join (-1 or the joining row). Returns 0 or -ENOMEM. */
int mm__imp_depth_push(mm__imp_depth *d, int64_t row, int side, int32_t px, int32_t sz, int cause,
                       int64_t join);

/* Move the rows (and the depth rows, with t->depth.levels and .ids) into a heap mm_ticks (64-byte
 * aligned columns) with the given instrument; frees t. */
int mm__imp_tape_finish(mm__imp_tape *t, const mm_instrument *inst, mm_ticks *out, mm_error *err);

void mm__imp_tape_free(mm__imp_tape *t);

/* ---- shared helpers (import_common.c) ---- */

/* Check opts->symbol and copy it; fill tick/lot units from the options or the defaults (NULL:
 * required). Returns 0 or MM_EUSAGE with err naming the option. */
int mm__import_setup(const mm_import_opts *o, const char *def_tick, const char *def_lot,
                     double def_year_s, mm__dec *tick, mm__dec *lot, mm_instrument *inst,
                     mm_error *err);

/* The depth levels an import keeps: o->depth_levels, or def for -1 (the format's default).
 * Returns the levels (0: none) or MM_EUSAGE "depth-levels: ..." for a value outside
 * -1..MM_DEPTH_MAX_LEVELS. */
int mm__import_depth_levels(const mm_import_opts *o, int def, mm_error *err);

/* Record a skipped line in the report (first message kept). */
void mm__import_skip(mm_import_report *rep, const mm_error *e);

/* Fill the trade and row totals of the report from a finished tape. */
void mm__import_totals(mm_import_report *rep, const mm_ticks *t);

#endif
