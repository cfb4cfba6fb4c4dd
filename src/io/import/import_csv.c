/* Generic L1 quotes + trades CSV importer with a column mapping (docs/import-csv.md).
 *
 * --map names, for each tick field, the CSV column that holds it: "ts=time,bid=bp,bid_sz=bq,ask=ap,
 * ask_sz=aq,trade_px=px,trade_sz=qty,side=side" (header names, or 1-based column numbers). ts and
 * the four quote fields are required; the three trade fields go together. Each line is one event:
 * the quote after it and the trade it carried. A line whose four quote fields are all empty keeps
 * the previous quote (trade-only lines); a line whose three trade fields are all empty carries no
 * trade. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "import_internal.h"
#include "mm_internal.h"

enum { F_TS, F_BID, F_BID_SZ, F_ASK, F_ASK_SZ, F_TPX, F_TSZ, F_SIDE, F_N };
static const char *const FIELD[F_N] = {"ts",     "bid",      "bid_sz",   "ask",
                                       "ask_sz", "trade_px", "trade_sz", "side"};
enum { T_NS, T_US, T_MS, T_S, T_ISO };

#define CSV_MAX_COLS 256

typedef struct csvmap {
    char name[F_N][64]; /* column as given in --map ("" = not mapped) */
    int col[F_N];       /* 0-based column index, -1 = not mapped */
} csvmap;

/* Parse --map. Returns 0 or MM_EUSAGE. */
static int parse_map(const char *s, csvmap *m, mm_error *err)
{
    memset(m, 0, sizeof *m);
    for (int f = 0; f < F_N; f++)
        m->col[f] = -1;
    if (!s || !*s)
        return mm__errf(err, MM_EUSAGE,
                        "map: required (e.g. ts=time,bid=bid,bid_sz=bsz,ask=ask,ask_sz=asz)");
    const char *p = s;
    while (*p) {
        const char *eq = strchr(p, '='), *end = strchr(p, ',');
        if (!end) end = p + strlen(p);
        if (!eq || eq > end)
            return mm__errf(err, MM_EUSAGE, "map: '%.*s' is not FIELD=COLUMN", (int)(end - p), p);
        int f;
        for (f = 0; f < F_N; f++)
            if ((size_t)(eq - p) == strlen(FIELD[f]) && !memcmp(p, FIELD[f], (size_t)(eq - p)))
                break;
        if (f == F_N)
            return mm__errf(err, MM_EUSAGE,
                            "map: unknown field '%.*s' (ts, bid, bid_sz, ask, ask_sz, trade_px, "
                            "trade_sz, side)",
                            (int)(eq - p), p);
        size_t vl = (size_t)(end - eq - 1);
        if (vl == 0 || vl >= sizeof m->name[f])
            return mm__errf(err, MM_EUSAGE, "map: field %s: empty or too long column name",
                            FIELD[f]);
        if (m->name[f][0]) return mm__errf(err, MM_EUSAGE, "map: field %s given twice", FIELD[f]);
        memcpy(m->name[f], eq + 1, vl);
        m->name[f][vl] = 0;
        p = *end ? end + 1 : end;
    }
    for (int f = 0; f <= F_ASK_SZ; f++)
        if (!m->name[f][0]) return mm__errf(err, MM_EUSAGE, "map: field %s is required", FIELD[f]);
    int nt = !!m->name[F_TPX][0] + !!m->name[F_TSZ][0] + !!m->name[F_SIDE][0];
    if (nt != 0 && nt != 3)
        return mm__errf(err, MM_EUSAGE, "map: trade_px, trade_sz and side go together");
    return 0;
}

/* Split line s[0..n) at delim into fields (double quotes with "" escapes are honoured and removed
 * in place). Returns the number of fields or -1 (unterminated quote), -2 (too many columns). */
static int split(char *s, size_t n, char delim, char **f, size_t *fl)
{
    int nf = 0;
    size_t i = 0;
    for (;;) {
        if (nf == CSV_MAX_COLS) return -2;
        if (i < n && s[i] == '"') {
            size_t w = i, r = i + 1;
            for (;;) {
                if (r >= n) return -1;
                if (s[r] == '"') {
                    if (r + 1 < n && s[r + 1] == '"') {
                        s[w++] = '"';
                        r += 2;
                        continue;
                    }
                    r++;
                    break;
                }
                s[w++] = s[r++];
            }
            f[nf] = s + i;
            fl[nf++] = w - i;
            if (r < n && s[r] != delim) return -1;
            i = r;
        } else {
            size_t b = i;
            char *d = memchr(s + i, delim, n - i);
            i = d ? (size_t)(d - s) : n;
            f[nf] = s + b;
            fl[nf++] = i - b;
        }
        if (i >= n) return nf;
        i++; /* past the delimiter */
    }
}

/* ISO-8601 "YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}](Z|+HH:MM|-HH:MM)" -> ns since the epoch. */
static int parse_iso(const char *s, size_t n, int64_t *ns)
{
    char date[11];
    if (n < 20 || (s[10] != 'T' && s[10] != ' ')) return -1;
    memcpy(date, s, 10);
    date[10] = 0;
    int y, mo, d;
    if (mm__parse_date(date, &y, &mo, &d)) return -1;
    int64_t hh, mi, ss, frac = 0;
    if (s[13] != ':' || s[16] != ':' || mm__parse_i64(s + 11, 2, &hh) ||
        mm__parse_i64(s + 14, 2, &mi) || mm__parse_i64(s + 17, 2, &ss) || hh > 23 || mi > 59 ||
        ss > 59)
        return -1;
    size_t i = 19;
    if (i < n && s[i] == '.') {
        size_t b = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == b || i - b > 9 || mm__parse_i64(s + b, i - b, &frac)) return -1;
        for (size_t k = i - b; k < 9; k++)
            frac *= 10;
    }
    int64_t off = 0;
    if (i < n && s[i] == 'Z')
        i++;
    else if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        int64_t oh, om;
        if (mm__parse_i64(s + i + 1, 2, &oh) || mm__parse_i64(s + i + 4, 2, &om) || oh > 23 ||
            om > 59)
            return -1;
        off = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
        i += 6;
    } else {
        return -1;
    }
    if (i != n) return -1;
    *ns = ((mm__days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 + ss) - off) *
              INT64_C(1000000000) +
          frac;
    return 0;
}

static int parse_side(const char *s, size_t n, int8_t *side)
{
    static const char *const buy[] = {"1", "+1", "b", "buy"}, *const sell[] = {"-1", "s", "sell"};
    for (size_t k = 0; k < 4; k++)
        if (n == strlen(buy[k]) && !strncasecmp(s, buy[k], n)) return *side = 1, 0;
    for (size_t k = 0; k < 3; k++)
        if (n == strlen(sell[k]) && !strncasecmp(s, sell[k], n)) return *side = -1, 0;
    return -1;
}

typedef struct cx {
    const char *path;
    int64_t line;
    mm_error *err;
} cx;

static int ferr(cx *c, int code, int f, const char *what, const char *s, size_t n)
{
    return mm__errf(c->err, code, "%s:%" PRId64 ": field %s: '%.*s' %s", c->path, c->line, FIELD[f],
                    (int)(n < 40 ? n : 40), s, what);
}

static int units32(cx *c, int f, const char *s, size_t n, const mm__dec *unit, int32_t *out)
{
    int64_t v;
    int rc = mm__dec_to_units(s, n, unit, &v);
    if (rc == -1) return ferr(c, MM_EFORMAT, f, "is not a decimal number", s, n);
    if (rc == -2)
        return ferr(c, MM_EINVALID, f,
                    f == F_BID || f == F_ASK || f == F_TPX ? "is not a multiple of the tick"
                                                           : "is not a multiple of the lot",
                    s, n);
    if (rc || v < 0 || v > INT32_MAX - 1)
        return ferr(c, MM_EINVALID, f, "is negative or out of int32 range in ticks/lots", s, n);
    *out = (int32_t)v;
    return 0;
}

int mm_import_csv(const char *path, const mm_import_opts *o, mm_ticks *out, mm_import_report *rep,
                  mm_error *err)
{
    mm_import_report lrep;
    if (!rep) rep = &lrep;
    memset(rep, 0, sizeof *rep);
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return mm__errf(err, -EINVAL, "import csv: missing argument");
    mm__dec tick, lot;
    mm_instrument inst;
    int rc = mm__import_setup(o, NULL, NULL, 0, &tick, &lot, &inst, err);
    if (rc) return rc;
    csvmap map;
    if ((rc = parse_map(o->csv_map, &map, err))) return rc;
    static const char *const tnames[] = {"ns", "us", "ms", "s", "iso"};
    int tf = -1;
    for (int k = 0; k < 5; k++)
        if (o->csv_time && !strcmp(o->csv_time, tnames[k])) tf = k;
    if (tf < 0)
        return mm__errf(err, MM_EUSAGE, "time: '%s' is not one of ns, us, ms, s, iso",
                        o->csv_time ? o->csv_time : "");
    static const mm__dec tunit[4] = {
        {1, 0}, {1, 3}, {1, 6}, {1, 9}}; /* one ns in the file's unit */
    char delim = o->csv_delim ? o->csv_delim : ',';
    if (delim == '"' || delim == '\n' || delim == '\r')
        return mm__errf(err, MM_EUSAGE, "delim: not allowed");
    const char *base = strrchr(path, '/');
    snprintf(inst.source, sizeof inst.source, "csv %s", base ? base + 1 : path);
    inst.allow_crossed = 0;

    mm__lines lr;
    mm__imp_tape tape = {0};
    if ((rc = mm__lines_open(&lr, path, err))) return rc;
    cx c = {path, 0, err};
    mm_error lerr = {0};
    char *f[CSV_MAX_COLS];
    size_t fl[CSV_MAX_COLS];
    int ncols = -1;
    mm__imp_row top = {0};
    top.bid_px = MM_PX_NONE_BID;
    top.ask_px = MM_PX_NONE_ASK;
    int64_t last_ns = INT64_MIN;
    for (;;) {
        char *s;
        size_t n;
        int r = mm__lines_next(&lr, &s, &n, err);
        if (r < 0) {
            rc = r;
            goto done;
        }
        if (!r) break;
        c.line = lr.lineno;
        int nf = split(s, n, delim, f, fl);
        if (ncols < 0) {
            /* First line: the header (or, without one, the column count). Resolve the mapping. */
            if (nf < 0) {
                rc = mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": %s", path, c.line,
                              nf == -1 ? "unterminated quote" : "more than 256 columns");
                goto done;
            }
            ncols = nf;
            for (int k = 0; k < F_N; k++) {
                if (!map.name[k][0]) continue;
                int64_t idx;
                const char *nm = map.name[k];
                if (!mm__parse_i64(nm, strlen(nm), &idx)) {
                    if (idx < 1 || idx > nf) {
                        rc = mm__errf(err, MM_EUSAGE, "map: %s=%s: the file has %d columns",
                                      FIELD[k], nm, nf);
                        goto done;
                    }
                    map.col[k] = (int)idx - 1;
                } else if (o->csv_no_header) {
                    rc =
                        mm__errf(err, MM_EUSAGE,
                                 "map: %s=%s: without a header, columns are numbers", FIELD[k], nm);
                    goto done;
                } else {
                    for (int h = 0; h < nf; h++)
                        if (fl[h] == strlen(nm) && !memcmp(f[h], nm, fl[h])) map.col[k] = h;
                    if (map.col[k] < 0) {
                        rc = mm__errf(err, MM_EUSAGE,
                                      "map: %s=%s: no such column in the header of %s", FIELD[k],
                                      nm, path);
                        goto done;
                    }
                }
            }
            if (!o->csv_no_header) continue;
        }
        c.err = o->skip_bad ? &lerr : err;
        mm__imp_row row = top;
        row.trade_px = row.trade_sz = 0;
        row.trade_side = 0;
        if (nf < 0) {
            rc = mm__errf(c.err, MM_EFORMAT, "%s:%" PRId64 ": %s", path, c.line,
                          nf == -1 ? "unterminated quote" : "more than 256 columns");
            goto bad;
        }
        if (nf != ncols) {
            rc = mm__errf(c.err, MM_EFORMAT, "%s:%" PRId64 ": %s row: %d fields, expected %d", path,
                          c.line, nf < ncols ? "short" : "long", nf, ncols);
            goto bad;
        }
        /* time */
        {
            int k = map.col[F_TS];
            if (tf == T_ISO)
                rc = parse_iso(f[k], fl[k], &row.ts_ns)
                         ? ferr(&c, MM_EFORMAT, F_TS, "is not an ISO-8601 time with Z or an offset",
                                f[k], fl[k])
                         : 0;
            else {
                int dr = mm__dec_to_units(f[k], fl[k], &tunit[tf], &row.ts_ns);
                rc = dr == -1 ? ferr(&c, MM_EFORMAT, F_TS, "is not a number", f[k], fl[k])
                     : dr == -2
                         ? ferr(&c, MM_EINVALID, F_TS, "has digits below a nanosecond", f[k], fl[k])
                     : dr ? ferr(&c, MM_EINVALID, F_TS, "is out of range", f[k], fl[k])
                          : 0;
            }
            if (rc) goto bad;
        }
        /* quote */
        {
            int empty = 0;
            for (int q = F_BID; q <= F_ASK_SZ; q++)
                empty += fl[map.col[q]] == 0;
            if (empty == 4) {
                /* trade-only line: the previous quote stands */
            } else if (empty) {
                rc = mm__errf(c.err, MM_EFORMAT,
                              "%s:%" PRId64 ": some quote fields are empty (all four or none)",
                              path, c.line);
                goto bad;
            } else {
                int32_t v[4];
                for (int q = F_BID; q <= F_ASK_SZ; q++)
                    if ((rc = units32(&c, q, f[map.col[q]], fl[map.col[q]],
                                      q == F_BID || q == F_ASK ? &tick : &lot, &v[q - 1])))
                        goto bad;
                row.bid_px = v[1] ? v[0] : MM_PX_NONE_BID;
                row.bid_sz = v[1];
                row.ask_px = v[3] ? v[2] : MM_PX_NONE_ASK;
                row.ask_sz = v[3];
                if (row.bid_sz && row.ask_sz && row.bid_px >= row.ask_px) {
                    if (!o->csv_allow_crossed) {
                        rc = mm__errf(c.err, MM_EINVALID,
                                      "%s:%" PRId64
                                      ": crossed or locked quote (bid %.*s >= ask %.*s;"
                                      " mm_import_opts.csv_allow_crossed keeps them)",
                                      path, c.line, (int)fl[map.col[F_BID]], f[map.col[F_BID]],
                                      (int)fl[map.col[F_ASK]], f[map.col[F_ASK]]);
                        goto bad;
                    }
                    rep->crossed_rows++;
                    inst.allow_crossed = 1;
                }
            }
        }
        /* trade */
        if (map.col[F_TPX] >= 0) {
            int a = map.col[F_TPX], z = map.col[F_TSZ], sd = map.col[F_SIDE];
            int empty = (fl[a] == 0) + (fl[z] == 0) + (fl[sd] == 0);
            if (empty == 3) {
                /* no trade */
            } else if (empty) {
                rc = mm__errf(c.err, MM_EFORMAT,
                              "%s:%" PRId64 ": some trade fields are empty (all three or none)",
                              path, c.line);
                goto bad;
            } else {
                if ((rc = units32(&c, F_TPX, f[a], fl[a], &tick, &row.trade_px)) ||
                    (rc = units32(&c, F_TSZ, f[z], fl[z], &lot, &row.trade_sz)))
                    goto bad;
                if (row.trade_sz == 0 || row.trade_px == 0) {
                    rc = mm__errf(c.err, MM_EINVALID,
                                  "%s:%" PRId64 ": trade with zero price or size", path, c.line);
                    goto bad;
                }
                if (parse_side(f[sd], fl[sd], &row.trade_side)) {
                    rc =
                        ferr(&c, MM_EFORMAT, F_SIDE, "is not 1/-1, B/S or buy/sell", f[sd], fl[sd]);
                    goto bad;
                }
            }
        }
        if (row.ts_ns < last_ns) {
            rc = mm__errf(c.err, MM_EINVALID,
                          "%s:%" PRId64 ": time %" PRId64
                          " ns is before the previous line's %" PRId64
                          " ns (times must not decrease)",
                          path, c.line, row.ts_ns, last_ns);
            goto bad;
        }
        c.err = err;
        if (mm__imp_tape_push(&tape, &row)) {
            rc = mm__errf(err, -ENOMEM, "%s: out of memory", path);
            goto done;
        }
        last_ns = row.ts_ns;
        top = row;
        continue;
    bad:
        c.err = err;
        if (!o->skip_bad) goto done;
        mm__import_skip(rep, &lerr);
        rc = 0;
    }
    if (ncols < 0 && !o->csv_no_header) {
        rc = mm__errf(err, MM_EFORMAT, "%s:1: empty file (no header line)", path);
        goto done;
    }
    if (tape.n == 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": no data line%s", path, lr.lineno + 1,
                      rep->skipped ? " left after skipping bad lines" : "s");
        goto done;
    }
    rep->lines = lr.lineno;
    rep->bytes = lr.bytes;
    rc = mm__imp_tape_finish(&tape, &inst, out, err);
    if (!rc) mm__import_totals(rep, out);
done:
    mm__imp_tape_free(&tape);
    mm__lines_close(&lr);
    return rc;
}
