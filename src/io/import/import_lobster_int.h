/* Internals of the LOBSTER importer (docs/import-lobster.md), shared by import_lobster.c (the two
 * files read in lockstep, parsed and cross-checked into tape rows) and import_lobster_depth.c (the
 * depth stream: every kept level of the orderbook file, with the order ids of the message file). */
#ifndef MM_IMPORT_LOBSTER_INT_H
#define MM_IMPORT_LOBSTER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "import_internal.h"

#define LOB_MAX_LEVELS 200
#define LOB_EMPTY 9999999999LL /* price of an unoccupied level: -this for bids, +this for asks */

typedef struct lob_msg {
    int64_t ns_of_day;
    int type;
    int64_t id, size, price;
    int dir;
} lob_msg;

/* One side of an orderbook row, best level first; n occupied levels. */
typedef struct lob_side {
    int n;
    int64_t px[LOB_MAX_LEVELS], sz[LOB_MAX_LEVELS];
} lob_side;

typedef struct lob_book {
    lob_side ask, bid;
} lob_book;

typedef struct lob_ctx {
    const char *mpath, *opath;
    int64_t mline, oline;
    int levels;
    mm_error *err;
} lob_ctx;

/* The depth stream of an import (import_lobster_depth.c): the levels kept, the units, and the
 * order ids seen (id -> the tape row of its type-1 message) in an open-addressing table. */
typedef struct lob_order {
    int64_t id, row; /* row INT64_MIN: an empty slot */
    int64_t left;    /* shares not yet removed */
} lob_order;

typedef struct lob_depth {
    int K;       /* levels per side kept (at most the file's, fixed at the first row); 0: none */
    int started; /* the first row was seen */
    int64_t tick_units, lot_shares;
    lob_order *slot; /* id -> the row of its add; a power of two, at most half full */
    size_t cap, used;
    mm__imp_depth *out;
} lob_depth;

/* Set up d for K levels (0: none; more than the file has: all of them) into out (its levels and
 * ids are set at the first row). Returns 0 or -ENOMEM. */
int mm__lob_depth_init(lob_depth *d, int K, int64_t tick_units, int64_t lot_shares,
                       mm__imp_depth *out);
void mm__lob_depth_free(lob_depth *d);

/* The depth rows of tape row `row`: the kept levels from `before` (NULL: the first row, nothing
 * shown yet) to `after`; m is the row's message, `checked` 1 when the cross-check tied after to
 * before and m (then the change at m's price is an add, cancel or trade; otherwise every change is
 * a hide and a show). Records m's order id. Returns 0, -ENOMEM, or MM_EINVALID (a kept level's
 * price or size is not whole ticks or lots) with c->err naming the orderbook line. */
int mm__lob_depth_row(lob_depth *d, lob_ctx *c, const lob_book *before, const lob_book *after,
                      const lob_msg *m, int checked, int64_t row);

#endif
