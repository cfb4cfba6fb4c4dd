/* The HTML output of mmsim report and mmsim run --curve: a temporary file renamed when complete,
 * escaping, the page frame with its CSS and its one script, colour maps and numbers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_stale_tmp.h"
#include "report.h"

int rep_open(rep_out *o, const char *path)
{
    size_t n = strlen(path) + 32;
    o->path = path;
    o->f = NULL;
    o->tmp = malloc(n);
    if (!o->tmp) return ENOMEM;
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    mm__remove_stale_tmps(path); /* of writers killed during their final write */
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        int e = errno ? errno : EIO;
        free(o->tmp);
        o->tmp = NULL;
        return e;
    }
    return 0;
}

int rep_commit(rep_out *o)
{
    int e = 0;
    errno = 0;
    if (fflush(o->f) != 0) e = errno ? errno : EIO;
    if (!e && ferror(o->f)) e = EIO;
    if (!e && fsync(fileno(o->f)) != 0) e = errno ? errno : EIO;
    if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
    o->f = NULL;
    if (!e && rename(o->tmp, o->path) != 0) e = errno ? errno : EIO;
    if (e) unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return e;
}

void rep_abort(rep_out *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    o->f = NULL;
    o->tmp = NULL;
}

void rep_printf(rep_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->f, fmt, ap); /* errors stay in the stream's indicator, checked by rep_commit */
    va_end(ap);
}

void rep_esc(rep_out *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", o->f);
            break;
        case '<':
            fputs("&lt;", o->f);
            break;
        case '>':
            fputs("&gt;", o->f);
            break;
        case '"':
            fputs("&quot;", o->f);
            break;
        case '\'':
            fputs("&#39;", o->f);
            break;
        default:
            /* Control characters other than tab, newline and carriage return are not allowed
             * in XML 1.0. */
            if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
                fputc('?', o->f);
            else
                fputc(*s, o->f);
        }
    }
}

static const char CSS[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222;"
    "max-width:1400px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid "
    "#ddd;padding-bottom:4px}\n"
    ".sub{color:#555;margin:0 0 12px}\n"
    "svg{display:block;max-width:100%;height:auto}svg text{font:12px sans-serif;fill:#222}\n"
    "svg text.lbl{font-size:13px;font-weight:600}svg text.v{font-size:10px}\n"
    "svg text.bst{font-weight:700}svg text.unit{font-size:11px;fill:#555}\n"
    "rect.cell:hover{stroke:#000;stroke-width:1.5}\n"
    "table{border-collapse:collapse;font-size:13px}th,td{padding:3px 8px;border-bottom:1px solid "
    "#eee;text-align:right;white-space:nowrap}\n"
    "th{background:#f4f4f4;cursor:pointer;user-select:none;position:sticky;top:0}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' "
    "\\25BC'}\n"
    "td.s,th.s{text-align:left}tr:hover td{background:#f6f9ff}\n"
    "dl{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:0}dt{color:#555}"
    "dd{margin:0;font-family:monospace}\n"
    "pre{background:#f7f7f7;padding:8px;overflow:auto;max-height:320px;font-size:12px}\n"
    ".note{color:#666;font-size:12px}.wide{overflow-x:auto;max-height:640px}\n";

void rep_page_begin(rep_out *o, const char *title)
{
    rep_printf(o, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
                  "<head>\n<meta charset=\"utf-8\"/>\n<title>");
    rep_esc(o, title);
    rep_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", CSS);
}

/* Sorting of every table.sortable by a click on a header (numbers for th.n, text otherwise; NaN
 * last; equal values keep the rank order), then the flags the browser test reads. Written between
 * the //<![CDATA[ and //]]> comments so that the page is also well-formed XML. */
static const char SCRIPT[] =
    "<script>//<![CDATA[\n"
    "(function(){\n"
    "function key(c,num){var t=c.textContent;if(!num)return t;var v=parseFloat(t);"
    "return isNaN(v)?null:v;}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " var hs=t.tHead.rows[0].cells;\n"
    " Array.prototype.forEach.call(hs,function(h,i){h.addEventListener('click',function(){\n"
    "  var asc=h.getAttribute('aria-sort')!=='ascending',num=h.classList.contains('n');\n"
    "  Array.prototype.forEach.call(hs,function(x){x.removeAttribute('aria-sort');});\n"
    "  h.setAttribute('aria-sort',asc?'ascending':'descending');\n"
    "  var b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);\n"
    "  rs.sort(function(p,q){var x=key(p.cells[i],num),y=key(q.cells[i],num),c=0;\n"
    "   if(x===null||y===null)c=(x===null)-(y===null);\n"
    "   else{c=num?x-y:x.localeCompare(y);if(!asc)c=-c;}\n"
    "   return c||(p.getAttribute('data-rank')-q.getAttribute('data-rank'));});\n"
    "  rs.forEach(function(r){b.appendChild(r);});});});\n"
    "});\n"
    "document.body.setAttribute('data-cells',document.querySelectorAll('svg rect.cell').length);\n"
    "document.body.setAttribute('data-ready','1');\n"
    "})();\n"
    "//]]></script>\n";

void rep_page_end(rep_out *o)
{
    rep_printf(o, "%s</body>\n</html>\n", SCRIPT);
}

/* Colour stops, equally spaced: viridis at 0, 0.25, 0.5, 0.75, 1; RdBu, ColorBrewer's 9-class
 * diverging scheme (marked colour-blind safe there: red and blue stay apart for the common
 * red-green deficiencies), from -1 (dark red, losses) through near-white at 0 to 1 (dark blue,
 * profits). */
static const unsigned char VIRIDIS[5][3] = {
    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
static const unsigned char RDBU[9][3] = {{178, 24, 43},   {214, 96, 77},   {244, 165, 130},
                                         {253, 219, 199}, {247, 247, 247}, {209, 229, 240},
                                         {146, 197, 222}, {67, 147, 195},  {33, 102, 172}};

void rep_color(double t, int diverging, char out[8])
{
    const unsigned char(*s)[3] = diverging ? RDBU : VIRIDIS;
    int n = diverging ? 9 : 5;
    double u = diverging ? (t + 1) * 0.5 : t; /* [0, 1] */
    if (!(u >= 0)) u = 0;                     /* NaN too */
    if (u > 1) u = 1;
    double p = u * (n - 1);
    int k = (int)p;
    if (k > n - 2) k = n - 2;
    double f = p - k;
    int c[3];
    for (int j = 0; j < 3; j++)
        c[j] = (int)lround(s[k][j] + (s[k + 1][j] - s[k][j]) * f);
    snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The base column of a Monte Carlo summary ("pnl" for "pnl_p5", "sharpe" for "sharpe_mean"): the
 * length of name without its summary suffix; *std set for "_std". */
static size_t base_len(const char *name, int *std)
{
    static const char *const SUF[] = {"_mean", "_std", "_p50", "_p95", "_p5", "_cvar5"};
    size_t n = strlen(name);
    *std = 0;
    for (size_t i = 0; i < sizeof SUF / sizeof SUF[0]; i++) {
        size_t k = strlen(SUF[i]);
        if (n > k && !strcmp(name + n - k, SUF[i])) {
            *std = i == 1;
            return n - k;
        }
    }
    return n;
}

static int base_is(const char *name, size_t n, const char *base)
{
    return strlen(base) == n && !strncmp(name, base, n);
}

int rep_metric_signed(const char *name)
{
    int std;
    size_t n = base_len(name, &std);
    return !std &&
           (base_is(name, n, "pnl") || base_is(name, n, "pnl_close") || base_is(name, n, "fees") ||
            base_is(name, n, "pnl_spread") || base_is(name, n, "pnl_inventory") ||
            base_is(name, n, "sharpe") || !strncmp(name, "markout_", 8));
}

const char *rep_metric_unit(const char *name)
{
    int std;
    size_t n = base_len(name, &std);
    if (!strcmp(name, "p_loss")) return "share of paths";
    if (base_is(name, n, "pnl") || base_is(name, n, "pnl_close") || base_is(name, n, "fees") ||
        base_is(name, n, "pnl_spread") || base_is(name, n, "pnl_inventory") ||
        base_is(name, n, "max_drawdown") || !strncmp(name, "markout_", 8))
        return "money: price units of the tape";
    if (base_is(name, n, "sharpe")) return "annualised";
    if (base_is(name, n, "volume") || base_is(name, n, "final_q") ||
        base_is(name, n, "max_abs_q") || base_is(name, n, "mean_abs_q"))
        return "lots";
    if (n > 6 && !strncmp(name + n - 6, "_per_s", 6)) return "per second";
    return "count";
}

int rep_color_light(const char *rgb)
{
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(rgb, "#%2x%2x%2x", &r, &g, &b) != 3) return 1;
    return 0.299 * r + 0.587 * g + 0.114 * b > 140;
}

void rep_num(double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (isinf(v))
        snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, cap, "%.6g", v == 0 ? 0.0 : v); /* no "-0" */
}

double rep_nice_step(double span, int n)
{
    if (!(span > 0) || !isfinite(span)) return 1;
    double raw = span / n, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}
