/* A small, strict JSON scanner (RFC 8259) written for the capture importer: one pass over a line
 * builds a flat array of tokens (objects, arrays, strings, numbers, literals) with subtree links,
 * so lookups walk children without re-parsing. Strings are not decoded: tokens point at the raw
 * text between the quotes, which is what the importer needs (keys and decimal strings never contain
 * escapes in the formats read; a key written with escapes simply does not match). Everything RFC
 * 8259 forbids is rejected with the column where it was found. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

#define JSON_MAX_DEPTH 64

typedef struct jp {
    mm__json *j;
    const char *s;
    size_t n, i;
    char *why;
    size_t whycap;
    int nomem;
} jp;

static int fail(jp *p, const char *what)
{
    snprintf(p->why, p->whycap, "column %zu: %s", p->i + 1, what);
    return -1;
}

static void ws(jp *p)
{
    while (p->i < p->n) {
        char c = p->s[p->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->i++;
    }
}

static int32_t new_tok(jp *p, int type, size_t start)
{
    mm__json *j = p->j;
    if (j->n == j->cap) {
        int32_t cap = j->cap ? 2 * j->cap : 256;
        mm__jtok *t = realloc(j->tok, (size_t)cap * sizeof *t);
        if (!t) {
            p->nomem = 1;
            return -1;
        }
        j->tok = t;
        j->cap = cap;
    }
    mm__jtok *t = &j->tok[j->n];
    t->type = (uint8_t)type;
    t->start = (uint32_t)start;
    t->len = 0;
    t->count = 0;
    t->next = j->n + 1;
    return j->n++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Length of the valid UTF-8 sequence at s[0..n) (lead byte >= 0x80), or 0 if invalid. Rejects
 * overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned cp;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (n < len) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

static int string(jp *p)
{
    size_t open = p->i++;
    int32_t t = new_tok(p, MM_J_STR, open + 1);
    if (t < 0) return -1;
    while (p->i < p->n) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') {
            p->j->tok[t].len = (uint32_t)(p->i - open - 1);
            p->i++;
            return 0;
        }
        if (c < 0x20) return fail(p, "control character in a string");
        if (c == '\\') {
            if (p->i + 1 >= p->n) break;
            char e = p->s[p->i + 1];
            if (e == 'u') {
                if (p->i + 6 > p->n) return fail(p, "short \\u escape");
                for (int k = 2; k < 6; k++)
                    if (hexval(p->s[p->i + (size_t)k]) < 0) return fail(p, "bad \\u escape");
                p->i += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || !e) return fail(p, "bad escape in a string");
            p->i += 2;
            continue;
        }
        if (c >= 0x80) {
            size_t l = utf8_len((const unsigned char *)p->s + p->i, p->n - p->i);
            if (!l) return fail(p, "invalid UTF-8 in a string");
            p->i += l;
            continue;
        }
        p->i++;
    }
    p->i = open;
    return fail(p, "unterminated string");
}

static int digits(jp *p)
{
    size_t s = p->i;
    while (p->i < p->n && (unsigned char)(p->s[p->i] - '0') <= 9)
        p->i++;
    return p->i > s;
}

static int number(jp *p)
{
    size_t start = p->i;
    if (p->s[p->i] == '-') p->i++;
    if (p->i < p->n && p->s[p->i] == '0') {
        p->i++;
        if (p->i < p->n && (unsigned char)(p->s[p->i] - '0') <= 9)
            return fail(p, "leading zero in a number");
    } else if (!digits(p)) {
        return fail(p, "bad number");
    }
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!digits(p)) return fail(p, "bad fraction in a number");
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (!digits(p)) return fail(p, "bad exponent in a number");
    }
    int32_t t = new_tok(p, MM_J_NUM, start);
    if (t < 0) return -1;
    p->j->tok[t].len = (uint32_t)(p->i - start);
    return 0;
}

static int value(jp *p, int depth);

static int container(jp *p, int depth, int is_obj)
{
    if (depth >= JSON_MAX_DEPTH) return fail(p, "nesting deeper than 64");
    int32_t t = new_tok(p, is_obj ? MM_J_OBJ : MM_J_ARR, p->i);
    if (t < 0) return -1;
    char close = is_obj ? '}' : ']';
    p->i++;
    ws(p);
    int32_t count = 0;
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
    } else {
        for (;;) {
            if (is_obj) {
                ws(p);
                if (p->i >= p->n || p->s[p->i] != '"') return fail(p, "expected a string key");
                if (string(p)) return -1;
                count++;
                ws(p);
                if (p->i >= p->n || p->s[p->i] != ':') return fail(p, "expected ':'");
                p->i++;
            }
            if (value(p, depth + 1)) return -1;
            count++;
            ws(p);
            if (p->i >= p->n) return fail(p, is_obj ? "unterminated object" : "unterminated array");
            if (p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->s[p->i] == close) {
                p->i++;
                break;
            }
            return fail(p, is_obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    mm__jtok *tk = &p->j->tok[t];
    tk->count = count;
    tk->next = p->j->n;
    return 0;
}

static int literal(jp *p, const char *word, int type)
{
    size_t l = strlen(word);
    if (p->n - p->i < l || memcmp(p->s + p->i, word, l)) return fail(p, "unexpected character");
    if (new_tok(p, type, p->i) < 0) return -1;
    p->j->tok[p->j->n - 1].len = (uint32_t)l;
    p->i += l;
    return 0;
}

static int value(jp *p, int depth)
{
    ws(p);
    if (p->i >= p->n) return fail(p, "unexpected end of input");
    char c = p->s[p->i];
    switch (c) {
    case '{':
        return container(p, depth, 1);
    case '[':
        return container(p, depth, 0);
    case '"':
        return string(p);
    case 't':
        return literal(p, "true", MM_J_TRUE);
    case 'f':
        return literal(p, "false", MM_J_FALSE);
    case 'n':
        return literal(p, "null", MM_J_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return number(p);
        return fail(p, "unexpected character");
    }
}

int mm__json_parse(mm__json *j, const char *s, size_t n, char *why, size_t whycap)
{
    jp p = {j, s, n, 0, why, whycap, 0};
    j->n = 0;
    j->src = s;
    if (n > UINT32_MAX) return fail(&p, "input longer than 4 GiB");
    int rc = value(&p, 0);
    if (p.nomem) return -ENOMEM;
    if (rc) return -1;
    ws(&p);
    if (p.i != n) return fail(&p, "trailing characters after the value");
    return 0;
}

int32_t mm__json_child(const mm__json *j, int32_t parent)
{
    if (parent < 0 || j->tok[parent].count == 0) return -1;
    return parent + 1;
}

int32_t mm__json_sibling(const mm__json *j, int32_t parent, int32_t child)
{
    int32_t nx = j->tok[child].next;
    return nx < j->tok[parent].next ? nx : -1;
}

int32_t mm__json_get(const mm__json *j, int32_t obj, const char *key)
{
    if (obj < 0 || j->tok[obj].type != MM_J_OBJ) return -1;
    size_t kl = strlen(key);
    for (int32_t k = mm__json_child(j, obj); k >= 0;) {
        int32_t v = j->tok[k].next;
        const mm__jtok *kt = &j->tok[k];
        if (kt->len == kl && !memcmp(j->src + kt->start, key, kl)) return v;
        k = mm__json_sibling(j, obj, v);
    }
    return -1;
}

int mm__json_u64(const mm__json *j, int32_t t, int64_t *out)
{
    if (t < 0 || j->tok[t].type != MM_J_NUM) return -1;
    return mm__parse_i64(j->src + j->tok[t].start, j->tok[t].len, out);
}

void mm__json_free(mm__json *j)
{
    free(j->tok);
    memset(j, 0, sizeof *j);
}
