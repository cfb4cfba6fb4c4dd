#define _XOPEN_SOURCE 700
#include "testutil.h"

#include "mmsim/sweep.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_tmp[256];

const char *tu_tmpdir(void)
{
    if (!g_tmp[0]) {
        snprintf(g_tmp, sizeof g_tmp, "/tmp/mmsim-test-XXXXXX");
        cr_assert(mkdtemp(g_tmp) != NULL);
    }
    return g_tmp;
}

const char *tu_path(const char *name)
{
    static char buf[8][512];
    static int slot;
    char *b = buf[slot++ & 7];
    snprintf(b, 512, "%s/%s", tu_tmpdir(), name);
    return b;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void tu_cleanup(void)
{
    if (g_tmp[0]) nftw(g_tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    g_tmp[0] = 0;
}

static char *slurp_fd(int fd)
{
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (len + 1 >= cap) b = realloc(b, cap *= 2);
        ssize_t r = read(fd, b + len, cap - len - 1);
        if (r <= 0) break;
        len += (size_t)r;
    }
    b[len] = 0;
    return b;
}

int tu_run(const char *const *argv, char **out, char **err)
{
    const char *bin = getenv("MMSIM_BIN");
    cr_assert(bin, "MMSIM_BIN is not set (run the tests through meson test)");
    char of[] = "/tmp/mmsim-out-XXXXXX", ef[] = "/tmp/mmsim-err-XXXXXX";
    int ofd = mkstemp(of), efd = mkstemp(ef);
    cr_assert(ofd >= 0 && efd >= 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    lseek(ofd, 0, SEEK_SET);
    lseek(efd, 0, SEEK_SET);
    char *o = slurp_fd(ofd), *e = slurp_fd(efd);
    close(ofd);
    close(efd);
    unlink(of);
    unlink(ef);
    if (out)
        *out = o;
    else
        free(o);
    if (err)
        *err = e;
    else
        free(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int tu_lines(const char *s)
{
    int n = 0;
    for (const char *p = s; *p; p++)
        if (*p == '\n') n++;
    if (*s && s[strlen(s) - 1] != '\n') n++;
    return n;
}

const char *tu_shared_data(void)
{
    const char *d = getenv("MMSIM_SHARED_DATA");
    struct stat st;
    if (d && stat(d, &st) == 0 && S_ISDIR(st.st_mode)) return d;
    return NULL;
}

void tu_assert_same_ticks(const mm_ticks *a, const mm_ticks *b)
{
    cr_assert_eq(a->n, b->n);
    for (int64_t i = 0; i < a->n; i++) {
        cr_assert_eq(a->ts_ns[i], b->ts_ns[i], "row %ld", (long)i);
        cr_assert_eq(a->bid_px[i], b->bid_px[i]);
        cr_assert_eq(a->ask_px[i], b->ask_px[i]);
        cr_assert_eq(a->bid_sz[i], b->bid_sz[i]);
        cr_assert_eq(a->ask_sz[i], b->ask_sz[i]);
        cr_assert_eq(a->trade_px[i], b->trade_px[i]);
        cr_assert_eq(a->trade_sz[i], b->trade_sz[i]);
        cr_assert_eq(a->trade_side[i], b->trade_side[i]);
    }
    cr_assert_eq(a->depth.levels, b->depth.levels);
    cr_assert_eq(a->depth.ids, b->depth.ids);
    cr_assert_eq(a->depth.n, b->depth.n);
    for (int64_t k = 0; k < a->depth.n; k++) {
        cr_assert_eq(a->depth.row[k], b->depth.row[k], "depth row %ld", (long)k);
        cr_assert_eq(a->depth.join[k], b->depth.join[k]);
        cr_assert_eq(a->depth.px[k], b->depth.px[k]);
        cr_assert_eq(a->depth.sz[k], b->depth.sz[k]);
        cr_assert_eq(a->depth.side[k], b->depth.side[k]);
        cr_assert_eq(a->depth.cause[k], b->depth.cause[k]);
    }
    cr_assert_eq(a->inst.fingerprint, b->inst.fingerprint);
    cr_assert_str_eq(a->inst.symbol, b->inst.symbol);
    cr_assert_eq(a->inst.tick_size, b->inst.tick_size);
    cr_assert_eq(a->inst.lot_size, b->inst.lot_size);
}

mm_ticks tu_rows_tape(const tu_row *r, int n, const char *symbol, double tick, double lot)
{
    mm_ticks t = {0};
    cr_assert_eq(mm_ticks_alloc(&t, n, MM_MEM_HEAP), 0);
    snprintf(t.inst.symbol, sizeof t.inst.symbol, "%s", symbol);
    t.inst.tick_size = tick;
    t.inst.lot_size = lot;
    for (int i = 0; i < n; i++) {
        t.ts_ns[i] = INT64_C(1000000000000) + (int64_t)(r[i].ms * 1e6);
        t.bid_px[i] = r[i].bs ? r[i].b : MM_PX_NONE_BID;
        t.bid_sz[i] = r[i].bs;
        t.ask_px[i] = r[i].as ? r[i].a : MM_PX_NONE_ASK;
        t.ask_sz[i] = r[i].as;
        t.trade_px[i] = r[i].tpx;
        t.trade_sz[i] = r[i].tsz;
        t.trade_side[i] = (int8_t)r[i].tside;
    }
    t.inst.allow_crossed = 1;
    return t;
}

mm_ticks tu_rows_depth_tape(const tu_row *r, int n, const tu_drow *d, int nd, int levels, int ids,
                            const char *symbol, double tick, double lot)
{
    mm_ticks a = tu_rows_tape(r, n, symbol, tick, lot), t = {0};
    cr_assert_eq(mm_ticks_alloc_depth(&t, n, nd, MM_MEM_HEAP), 0);
    t.inst = a.inst;
    for (int i = 0; i < n; i++) {
        t.ts_ns[i] = a.ts_ns[i];
        t.bid_px[i] = a.bid_px[i];
        t.bid_sz[i] = a.bid_sz[i];
        t.ask_px[i] = a.ask_px[i];
        t.ask_sz[i] = a.ask_sz[i];
        t.trade_px[i] = a.trade_px[i];
        t.trade_sz[i] = a.trade_sz[i];
        t.trade_side[i] = a.trade_side[i];
    }
    mm_ticks_free(&a);
    t.depth.levels = levels;
    t.depth.ids = ids;
    for (int k = 0; k < nd; k++) {
        t.depth.row[k] = d[k].row;
        t.depth.join[k] = ids ? d[k].join : -1;
        t.depth.side[k] = (int8_t)d[k].side;
        t.depth.px[k] = d[k].px;
        t.depth.sz[k] = d[k].sz;
        t.depth.cause[k] = (int8_t)d[k].cause;
    }
    return t;
}

void tu_small_tape(mm_ticks *t, int64_t n, uint64_t seed)
{
    mm_gen_params p;
    mm_gen_defaults(&p);
    p.seed = seed;
    p.events = n;
    strcpy(p.symbol, "TST");
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(&p, t, &e), 0, "%s", e.msg);
}

static void raw_col(hid_t g, const char *name, hid_t ftype, hid_t mtype, const void *data,
                    int64_t n)
{
    hsize_t d = (hsize_t)n;
    hid_t sp = H5Screate_simple(1, &d, NULL);
    hid_t ds = H5Dcreate2(g, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(ds >= 0);
    if (n > 0) cr_assert(H5Dwrite(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(ds);
    H5Sclose(sp);
}

static void raw_attr_d(hid_t g, const char *name, double v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
    H5Aclose(a);
    H5Sclose(sp);
}

void tu_write_raw(const char *path, const mm_ticks *t, const char *skip_col,
                  const char *override_col, int64_t override_type, int64_t override_len)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert(f >= 0);
    hid_t tg = H5Gcreate2(f, "ticks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(tg, t->inst.symbol, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    raw_attr_d(g, "tick_size", t->inst.tick_size);
    raw_attr_d(g, "lot_size", t->inst.lot_size);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(g, "fingerprint", H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_UINT64, &t->inst.fingerprint);
    H5Aclose(a);
    int8_t cr = (int8_t)t->inst.allow_crossed;
    a = H5Acreate2(g, "allow_crossed", H5T_STD_I8LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT8, &cr);
    H5Aclose(a);
    H5Sclose(sp);
    struct {
        const char *name;
        hid_t ft, mt;
        const void *p;
    } cols[8] = {
        {"ts_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, t->ts_ns},
        {"bid_px", H5T_STD_I32LE, H5T_NATIVE_INT32, t->bid_px},
        {"ask_px", H5T_STD_I32LE, H5T_NATIVE_INT32, t->ask_px},
        {"bid_sz", H5T_STD_I32LE, H5T_NATIVE_INT32, t->bid_sz},
        {"ask_sz", H5T_STD_I32LE, H5T_NATIVE_INT32, t->ask_sz},
        {"trade_px", H5T_STD_I32LE, H5T_NATIVE_INT32, t->trade_px},
        {"trade_sz", H5T_STD_I32LE, H5T_NATIVE_INT32, t->trade_sz},
        {"trade_side", H5T_STD_I8LE, H5T_NATIVE_INT8, t->trade_side},
    };
    for (int i = 0; i < 8; i++) {
        if (skip_col && !strcmp(skip_col, cols[i].name)) continue;
        if (override_col && !strcmp(override_col, cols[i].name)) {
            int64_t n = override_len >= 0 ? override_len : t->n;
            hid_t ft = (hid_t)override_type;
            /* Convert the column's values to the requested file type through a double buffer. */
            double *buf = calloc((size_t)n + 1, sizeof(double));
            for (int64_t r = 0; r < n && r < t->n; r++) {
                switch (i) {
                case 0:
                    buf[r] = (double)t->ts_ns[r];
                    break;
                case 7:
                    buf[r] = t->trade_side[r];
                    break;
                default:
                    buf[r] = ((const int32_t *)cols[i].p)[r];
                    break;
                }
            }
            raw_col(g, cols[i].name, ft, H5T_NATIVE_DOUBLE, buf, n);
            free(buf);
            continue;
        }
        raw_col(g, cols[i].name, cols[i].ft, cols[i].mt, cols[i].p, t->n);
    }
    H5Gclose(g);
    H5Gclose(tg);
    H5Fclose(f);
}

int tu_engine_runs(int e)
{
    char buf[1200];
    return e != MM_ENGINE_CUDA || mm_sweep_cuda_describe(buf, sizeof buf) > 0;
}

void tu_gen_write(const char *path, const mm_gen_params *gp)
{
    mm_ticks t = {0};
    mm_error e = {0};
    cr_assert_eq(mm_gen_ticks(gp, &t, &e), 0, "%s", e.msg);
    cr_assert_eq(mm_ticks_write(path, &t, NULL, &e), 0, "%s", e.msg);
    mm_ticks_free(&t);
}

const char *tu_fixture(const char *rel)
{
    static char buf[4][1024];
    static int k;
    char *p = buf[k++ & 3];
    const char *dir = getenv("MMSIM_FIXTURES");
    cr_assert(dir, "MMSIM_FIXTURES is not set (run the tests through meson test)");
    snprintf(p, 1024, "%s/%s", dir, rel);
    return p;
}
