/* LOBSTER importer: a message file and an orderbook file of one day -> one tick tape
 * (docs/import-lobster.md).
 *
 * Row i of the tape is the book of orderbook row i (its top level; the levels kept are the depth
 * stream's, import_lobster_depth.c) after message i, at the
 * message's time, carrying the trade of message i when it is an execution (types 4, 5) or a cross
 * trade (type 6). The two files are read in lockstep and checked against each other: every message
 * must change the orderbook row exactly as its type, price and size say, wherever the price is
 * inside the levels the file shows. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_lobster_int.h"
#include "mm_internal.h"

/* Next comma-separated field of s[*i..n) as a signed integer. Returns 0 or -1. */
static int field_int(const char *s, size_t n, size_t *i, int64_t *v)
{
    size_t b = *i, e = b;
    while (e < n && s[e] != ',')
        e++;
    int neg = b < e && s[b] == '-';
    int64_t x;
    if (mm__parse_i64(s + b + neg, e - b - (size_t)neg, &x)) return -1;
    *v = neg ? -x : x;
    *i = e < n ? e + 1 : e;
    return 0;
}

/* Seconds after midnight with up to 9 decimals -> ns. */
static int field_time(const char *s, size_t n, size_t *i, int64_t *ns)
{
    size_t b = *i, e = b;
    while (e < n && s[e] != ',')
        e++;
    size_t dot = b;
    while (dot < e && s[dot] != '.')
        dot++;
    int64_t sec, frac = 0;
    if (dot - b > 6 || mm__parse_i64(s + b, dot - b, &sec)) return -1;
    if (dot < e) {
        size_t fl = e - dot - 1;
        if (fl == 0 || fl > 9 || mm__parse_i64(s + dot + 1, fl, &frac)) return -1;
        for (size_t k = fl; k < 9; k++)
            frac *= 10;
    }
    *ns = sec * 1000000000 + frac;
    *i = e < n ? e + 1 : e;
    return 0;
}

static int parse_msg(lob_ctx *c, const char *s, size_t n, lob_msg *m)
{
    size_t i = 0;
    int64_t v[5];
    const char *what = NULL;
    if (n == 0)
        what = "empty line";
    else if (field_time(s, n, &i, &m->ns_of_day))
        what = "field 1 (time): not seconds with at most 9 decimals";
    else if (m->ns_of_day >= INT64_C(86400) * 1000000000) {
        /* Seconds after midnight of --date: 86400 or more would be the next day. */
        size_t e = 0;
        while (e < n && s[e] != ',')
            e++;
        return mm__errf(c->err, MM_EINVALID,
                        "%s:%" PRId64 ": field 1 (time): %.*s s is past the end of the day "
                        "(seconds after midnight must be below 86400)",
                        c->mpath, c->mline, (int)(e < 32 ? e : 32), s);
    } else {
        static const char *const names[5] = {"type", "order id", "size", "price", "direction"};
        for (int k = 0; k < 5 && !what; k++) {
            if (i >= n) {
                return mm__errf(c->err, MM_EFORMAT,
                                "%s:%" PRId64 ": short row: %d fields, expected 6", c->mpath,
                                c->mline, k + 1);
            }
            if (field_int(s, n, &i, &v[k])) {
                return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": field %d (%s): not an integer",
                                c->mpath, c->mline, k + 2, names[k]);
            }
        }
        if (!what && i < n) what = "more than 6 fields";
    }
    if (what) return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": %s", c->mpath, c->mline, what);
    m->type = (int)v[0];
    m->id = v[1];
    m->size = v[2];
    m->price = v[3];
    m->dir = (int)v[4];
    if (v[0] < 1 || v[0] > 7)
        return mm__errf(c->err, MM_EFORMAT,
                        "%s:%" PRId64 ": field 2 (type): %" PRId64 " is not 1..7", c->mpath,
                        c->mline, v[0]);
    if (v[4] != 1 && v[4] != -1)
        return mm__errf(c->err, MM_EFORMAT,
                        "%s:%" PRId64 ": field 6 (direction): %" PRId64 " is not 1 or -1", c->mpath,
                        c->mline, v[4]);
    if (m->size < 0)
        return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": field 4 (size): negative", c->mpath,
                        c->mline);
    if (m->type == 7) {
        if (m->price < -1 || m->price > 1)
            return mm__errf(c->err, MM_EFORMAT,
                            "%s:%" PRId64 ": halt message (type 7) with price %" PRId64
                            ", expected -1 (halt), 0 (quoting) or 1 (resume)",
                            c->mpath, c->mline, m->price);
    } else if (m->size == 0 || m->price <= 0) {
        return mm__errf(c->err, MM_EFORMAT,
                        "%s:%" PRId64 ": type %d message with size %" PRId64 " and price %" PRId64
                        " (both must be > 0)",
                        c->mpath, c->mline, m->type, m->size, m->price);
    }
    return 0;
}

/* Parse and check one orderbook row. Sets c->levels from the first row. */
static int parse_book(lob_ctx *c, const char *s, size_t n, lob_book *b)
{
    size_t i = 0;
    int nf = 0;
    int64_t v[4 * LOB_MAX_LEVELS];
    while (i < n) {
        if (nf == 4 * LOB_MAX_LEVELS)
            return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": more than %d levels", c->opath,
                            c->oline, LOB_MAX_LEVELS);
        if (field_int(s, n, &i, &v[nf]))
            return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": field %d: not an integer",
                            c->opath, c->oline, nf + 1);
        nf++;
    }
    if (n && s[n - 1] == ',')
        return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": field %d: empty", c->opath, c->oline,
                        nf + 1);
    if (c->levels == 0) {
        if (nf == 0 || nf % 4)
            return mm__errf(c->err, MM_EFORMAT, "%s:%" PRId64 ": %d fields, expected 4 per level",
                            c->opath, c->oline, nf);
        c->levels = nf / 4;
    } else if (nf != 4 * c->levels) {
        return mm__errf(c->err, MM_EFORMAT,
                        "%s:%" PRId64 ": short row: %d fields, expected %d (%d levels)", c->opath,
                        c->oline, nf, 4 * c->levels, c->levels);
    }
    b->ask.n = b->bid.n = 0;
    for (int side = 0; side < 2; side++) {
        lob_side *sd = side ? &b->bid : &b->ask;
        const char *name = side ? "bid" : "ask";
        int64_t empty = side ? -LOB_EMPTY : LOB_EMPTY;
        for (int l = 0; l < c->levels; l++) {
            int64_t px = v[4 * l + 2 * side], sz = v[4 * l + 2 * side + 1];
            if (px == empty) {
                if (sz != 0)
                    return mm__errf(c->err, MM_EINVALID,
                                    "%s:%" PRId64 ": %s level %d is empty but has size %" PRId64,
                                    c->opath, c->oline, name, l + 1, sz);
                continue;
            }
            if (sz <= 0 || px <= 0)
                return mm__errf(c->err, MM_EINVALID,
                                "%s:%" PRId64 ": %s level %d: price %" PRId64 " size %" PRId64
                                " (both must be > 0)",
                                c->opath, c->oline, name, l + 1, px, sz);
            if (sd->n != l)
                return mm__errf(c->err, MM_EINVALID,
                                "%s:%" PRId64 ": %s level %d is occupied after an empty level",
                                c->opath, c->oline, name, l + 1);
            if (l > 0 && (side ? px >= sd->px[l - 1] : px <= sd->px[l - 1]))
                return mm__errf(c->err, MM_EINVALID,
                                "%s:%" PRId64 ": %s level %d price %" PRId64
                                " is not worse than level %d",
                                c->opath, c->oline, name, l + 1, px, l);
            sd->px[l] = px;
            sd->sz[l] = sz;
            sd->n++;
        }
    }
    return 0;
}

static int side_equal(const lob_side *a, const lob_side *b)
{
    if (a->n != b->n) return 0;
    for (int k = 0; k < a->n; k++)
        if (a->px[k] != b->px[k] || a->sz[k] != b->sz[k]) return 0;
    return 1;
}

/* Check that orderbook row `after` follows from row `before` and message m. Returns 0 or
 * MM_EINVALID. */
static int cross_check(lob_ctx *c, const lob_msg *m, const lob_book *before, const lob_book *after)
{
    int64_t delta = 0;
    if (m->type == 1)
        delta = m->size;
    else if (m->type >= 2 && m->type <= 4)
        delta = -m->size;
    int bid = m->dir == 1;
    const lob_side *sb = bid ? &before->bid : &before->ask, *sa = bid ? &after->bid : &after->ask;
    const lob_side *ob = bid ? &before->ask : &before->bid, *oa = bid ? &after->ask : &after->bid;
    const char *sname = bid ? "bid" : "ask";
    char what[200];
    if (!side_equal(ob, oa)) {
        snprintf(what, sizeof what, "the %s side changed", bid ? "ask" : "bid");
        goto fail;
    }
    if (delta == 0) {
        if (!side_equal(sb, sa)) {
            snprintf(what, sizeof what, "the %s side changed", sname);
            goto fail;
        }
        return 0;
    }
    /* Expected side: before, with the message's size change applied at its price. */
    lob_side e;
    e.n = 0;
    int L = c->levels, inserted = 0, k = 0, visible;
    int64_t p = m->price;
    visible = sb->n < L || (bid ? p >= sb->px[sb->n - 1] : p <= sb->px[sb->n - 1]);
    if (!visible) {
        if (!side_equal(sb, sa)) {
            snprintf(what, sizeof what,
                     "price %" PRId64 " is outside the %d shown %s levels, yet they changed", p, L,
                     sname);
            goto fail;
        }
        return 0;
    }
    for (k = 0; k <= sb->n; k++) {
        int at_end = k == sb->n;
        if (!inserted && (at_end || (bid ? p > sb->px[k] : p < sb->px[k]))) {
            if (delta < 0) {
                snprintf(what, sizeof what,
                         "removes %" PRId64 " at %s %" PRId64 " where no level is shown", -delta,
                         sname, p);
                goto fail;
            }
            e.px[e.n] = p, e.sz[e.n++] = delta;
            inserted = 1;
        }
        if (at_end) break;
        if (sb->px[k] == p) {
            int64_t nsz = sb->sz[k] + delta;
            inserted = 1;
            if (nsz < 0) {
                snprintf(what, sizeof what,
                         "removes %" PRId64 " at %s %" PRId64 " where only %" PRId64 " is shown",
                         -delta, sname, p, sb->sz[k]);
                goto fail;
            }
            if (nsz > 0) e.px[e.n] = p, e.sz[e.n++] = nsz;
            continue;
        }
        e.px[e.n] = sb->px[k], e.sz[e.n++] = sb->sz[k];
    }
    if (e.n > L) e.n = L;
    /* When a level disappears from a full window, one level from beyond the window may come into
     * view. */
    int reveal = sb->n == L && e.n < L;
    int ok = sa->n == e.n || (reveal && sa->n == e.n + 1);
    for (k = 0; ok && k < e.n; k++)
        ok = sa->px[k] == e.px[k] && sa->sz[k] == e.sz[k];
    if (ok && sa->n == e.n + 1 && e.n > 0)
        ok = bid ? sa->px[e.n] < e.px[e.n - 1] : sa->px[e.n] > e.px[e.n - 1];
    if (ok && sa->n == e.n + 1) ok = bid ? sa->px[e.n] < p : sa->px[e.n] > p;
    if (ok) return 0;
    for (k = 0; k < L; k++) {
        int64_t ep = k < e.n ? e.px[k] : 0, es = k < e.n ? e.sz[k] : 0;
        int64_t ap = k < sa->n ? sa->px[k] : 0, as = k < sa->n ? sa->sz[k] : 0;
        if (ep != ap || es != as) {
            snprintf(what, sizeof what,
                     "%s level %d is %" PRId64 " x %" PRId64 ", expected %" PRId64 " x %" PRId64,
                     sname, k + 1, ap, as, ep, es);
            break;
        }
    }
    if (k == L) snprintf(what, sizeof what, "%s levels do not follow", sname);
fail:
    return mm__errf(c->err, MM_EINVALID,
                    "%s:%" PRId64 ": message (type %d, size %" PRId64 ", price %" PRId64
                    ", direction %d) does not match orderbook row %s:%" PRId64 ": %s",
                    c->mpath, c->mline, m->type, m->size, m->price, m->dir, c->opath, c->oline,
                    what);
}

/* LOBSTER price units -> ticks, exactly, for a book price. */
static int book_ticks(lob_ctx *c, int64_t px, int64_t tick_units, int32_t *out, const char *what)
{
    if (px % tick_units || px / tick_units > INT32_MAX - 1)
        return mm__errf(c->err, MM_EINVALID,
                        "%s:%" PRId64 ": %s price %" PRId64 " is not a whole number of ticks "
                        "(%" PRId64 " units) in int32 range",
                        c->opath, c->oline, what, px, tick_units);
    *out = (int32_t)(px / tick_units);
    return 0;
}

int mm_import_lobster(const char *message, const char *orderbook, const mm_import_opts *o,
                      mm_ticks *out, mm_import_report *rep, mm_error *err)
{
    mm_import_report lrep;
    if (!rep) rep = &lrep;
    memset(rep, 0, sizeof *rep);
    if (out) memset(out, 0, sizeof *out);
    if (!message || !orderbook || !out)
        return mm__errf(err, -EINVAL, "import lobster: missing argument");
    mm__dec tick, lot;
    mm_instrument inst;
    int rc = mm__import_setup(o, "0.01", "1", 252.0 * 6.5 * 3600, &tick, &lot, &inst, err);
    if (rc) return rc;
    int y, mo, d;
    if (!o->date || mm__parse_date(o->date, &y, &mo, &d))
        return mm__errf(err, MM_EUSAGE, "date: '%s' is not a date YYYY-MM-DD",
                        o->date ? o->date : "");
    int off;
    if (!mm__ny_utc_offset(y, mo, d, 0, &off))
        return mm__errf(err, MM_EUSAGE,
                        "date: %s: New York time rules before 1987 are not implemented", o->date);
    /* tick in LOBSTER price units (1/10000 dollar) and lot in shares must be whole numbers. */
    static const mm__dec ten_thousandth = {1, 4}, one = {1, 0};
    int64_t tick_units, lot_shares;
    const char *ts = o->tick ? o->tick : "0.01", *ls = o->lot ? o->lot : "1";
    if (mm__dec_to_units(ts, strlen(ts), &ten_thousandth, &tick_units) || tick_units <= 0)
        return mm__errf(err, MM_EUSAGE,
                        "tick: '%s' must be a multiple of 0.0001 (LOBSTER's price unit)", ts);
    if (mm__dec_to_units(ls, strlen(ls), &one, &lot_shares) || lot_shares <= 0)
        return mm__errf(err, MM_EUSAGE, "lot: '%s' must be a whole number of shares", ls);
    const char *base = strrchr(message, '/');
    snprintf(inst.source, sizeof inst.source, "lobster %s", base ? base + 1 : message);
    int K = mm__import_depth_levels(o, LOB_MAX_LEVELS, err);
    if (K < 0) return K;

    mm__lines ml, ol;
    mm__imp_tape tape = {0};
    lob_depth depth;
    lob_book *books = malloc(2 * sizeof *books);
    if (!books || mm__lob_depth_init(&depth, K, tick_units, lot_shares, &tape.depth)) {
        free(books);
        mm__lob_depth_free(&depth);
        return mm__errf(err, -ENOMEM, "import lobster: out of memory");
    }
    rc = mm__lines_open(&ml, message, err);
    if (rc) {
        free(books);
        mm__lob_depth_free(&depth);
        return rc;
    }
    rc = mm__lines_open(&ol, orderbook, err);
    if (rc) {
        mm__lines_close(&ml);
        free(books);
        mm__lob_depth_free(&depth);
        return rc;
    }
    lob_ctx c = {message, orderbook, 0, 0, 0, err};
    mm_error lerr = {0};
    int have_prev = 0, have_book = 0, cur = 0;
    int64_t last_ns = INT64_MIN;
    for (;;) {
        char *ms, *os;
        size_t mn, on;
        int mr = mm__lines_next(&ml, &ms, &mn, err);
        if (mr < 0) {
            rc = mr;
            goto done;
        }
        int orr = mm__lines_next(&ol, &os, &on, err);
        if (orr < 0) {
            rc = orr;
            goto done;
        }
        c.mline = ml.lineno;
        c.oline = ol.lineno;
        if (!mr && !orr) break;
        if (!orr) {
            rc = mm__errf(err, MM_EINVALID,
                          "%s:%" PRId64 ": orderbook file ends after %" PRId64
                          " rows but the message file goes on (%s:%" PRId64 ")",
                          orderbook, ol.lineno + 1, ol.lineno, message, ml.lineno);
            goto done;
        }
        if (!mr) {
            rc = mm__errf(err, MM_EINVALID,
                          "%s:%" PRId64
                          ": orderbook file has more rows than the message file (%" PRId64 ")",
                          orderbook, ol.lineno, ml.lineno);
            goto done;
        }
        lob_msg m = {0};
        lob_book *b = &books[cur];
        c.err = o->skip_bad ? &lerr : err;
        rc = parse_msg(&c, ms, mn, &m);
        if (!rc) rc = parse_book(&c, os, on, b);
        if (!rc && m.ns_of_day < last_ns)
            rc = mm__errf(c.err, MM_EINVALID,
                          "%s:%" PRId64 ": time %.9f is before the previous message's %.9f "
                          "(times must not decrease)",
                          message, c.mline, m.ns_of_day * 1e-9, last_ns * 1e-9);
        c.err = err;
        if (rc) {
            if (!o->skip_bad || rc == -ENOMEM) goto done;
            mm__import_skip(rep, &lerr);
            have_prev = 0; /* the next row cannot be checked against a skipped one */
            rc = 0;
            continue;
        }
        rep->msg_by_type[m.type]++;
        if (have_prev && (rc = cross_check(&c, &m, &books[cur ^ 1], b))) goto done;
        /* The depth rows of this row (none without a depth stream). */
        if ((rc = mm__lob_depth_row(&depth, &c, have_book ? &books[cur ^ 1] : NULL, b, &m,
                                    have_prev, tape.n))) {
            if (rc == -ENOMEM) mm__errf(err, rc, "import lobster: out of memory");
            goto done;
        }
        /* One tape row. */
        mm__imp_row r = {0};
        if (mm__ny_to_utc_ns(y, mo, d, m.ns_of_day, &r.ts_ns)) {
            rc = mm__errf(err, MM_EUSAGE, "date: unsupported");
            goto done;
        }
        if (b->bid.n) {
            if ((rc = book_ticks(&c, b->bid.px[0], tick_units, &r.bid_px, "bid"))) goto done;
            if (b->bid.sz[0] % lot_shares || b->bid.sz[0] / lot_shares > INT32_MAX) goto badlot;
            r.bid_sz = (int32_t)(b->bid.sz[0] / lot_shares);
        } else {
            r.bid_px = MM_PX_NONE_BID;
        }
        if (b->ask.n) {
            if ((rc = book_ticks(&c, b->ask.px[0], tick_units, &r.ask_px, "ask"))) goto done;
            if (b->ask.sz[0] % lot_shares || b->ask.sz[0] / lot_shares > INT32_MAX) goto badlot;
            r.ask_sz = (int32_t)(b->ask.sz[0] / lot_shares);
        } else {
            r.ask_px = MM_PX_NONE_ASK;
        }
        if (b->bid.n && b->ask.n && r.bid_px >= r.ask_px) {
            rep->crossed_rows++;
            inst.allow_crossed = 1;
        }
        if (m.type >= 4 && m.type <= 6) {
            /* An execution of a sell order (direction -1) is a buyer-initiated trade, and vice
             * versa. */
            r.trade_side = (int8_t)-m.dir;
            if (m.size % lot_shares || m.size / lot_shares > INT32_MAX) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": trade size %" PRId64 " is not a whole number of lots"
                              " (%" PRId64 " shares)",
                              message, c.mline, m.size, lot_shares);
                goto done;
            }
            r.trade_sz = (int32_t)(m.size / lot_shares);
            int64_t q = m.price / tick_units, rem = m.price % tick_units;
            if (rem) {
                if (m.type == 4 || o->subtick_reject) {
                    rc = mm__errf(err, MM_EINVALID,
                                  "%s:%" PRId64 ": type %d trade price %" PRId64 " is between ticks"
                                  " (tick %" PRId64 " units)%s",
                                  message, c.mline, m.type, m.price, tick_units,
                                  m.type == 4 ? " (visible executions are at book prices)"
                                              : " (rejected by mm_import_opts.subtick_reject)");
                    goto done;
                }
                /* Conservative rounding: a buy print rounds down, a sell print up, so the rounded
                 * print never reaches a resting order that the true print would not have reached.
                 */
                if (r.trade_side < 0) q++;
                rep->subtick_rounded++;
            }
            if (q <= 0 || q > INT32_MAX - 1) {
                rc = mm__errf(err, MM_EINVALID,
                              "%s:%" PRId64 ": trade price %" PRId64 " out of range", message,
                              c.mline, m.price);
                goto done;
            }
            r.trade_px = (int32_t)q;
        }
        if (m.type == 7) {
            rep->halts++;
        }
        if ((rc = mm__imp_tape_push(&tape, &r))) {
            rc = mm__errf(err, rc, "import lobster: out of memory");
            goto done;
        }
        last_ns = m.ns_of_day;
        have_prev = have_book = 1;
        cur ^= 1;
        continue;
    badlot:
        rc = mm__errf(err, MM_EINVALID,
                      "%s:%" PRId64 ": top-of-book size is not a whole number of lots (%" PRId64
                      " shares)",
                      orderbook, c.oline, lot_shares);
        goto done;
    }
    if (tape.n == 0) {
        rc = mm__errf(err, MM_EFORMAT, "%s:%" PRId64 ": no message%s", message, ml.lineno + 1,
                      rep->skipped ? " left after skipping bad lines" : "s (empty file)");
        goto done;
    }
    rep->levels = c.levels;
    rep->lines = ml.lineno + ol.lineno;
    rep->bytes = ml.bytes + ol.bytes;
    rc = mm__imp_tape_finish(&tape, &inst, out, err);
    if (!rc) mm__import_totals(rep, out);
done:
    if (rc) rep->lines = ml.lineno + ol.lineno;
    mm__imp_tape_free(&tape);
    mm__lines_close(&ml);
    mm__lines_close(&ol);
    free(books);
    mm__lob_depth_free(&depth);
    return rc;
}
