/* json.c - strict JSON reader and writer (see json.h). */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* ---- reader ------------------------------------------------------------- */

typedef struct {
    const char *s;
    size_t len, pos;
    int line;
    size_t line_start;     /* pos of the first byte of the current line */
    const char *fname;
    pz_err *err;
} parser;

static int col_of(const parser *p, size_t pos)
{
    size_t c = pos - p->line_start + 1;
    return c > 1000000000 ? 1000000000 : (int)c;
}

/* "FILE:LINE:COL: msg" at byte pos (on the current line). */
static pz_status fail_at(parser *p, size_t pos, const char *fmt, const char *arg)
{
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    return pz_fail(p->err, PZ_ERR_INPUT, "%s:%d:%d: %s", p->fname, p->line, col_of(p, pos), msg);
}

/* A readable name for the byte at pos: 'x', "end of file", byte 0x01. */
static const char *what_at(const parser *p, size_t pos, char *buf, size_t size)
{
    if (pos >= p->len) snprintf(buf, size, "the end of the file");
    else {
        unsigned char c = (unsigned char)p->s[pos];
        if (c >= 0x20 && c < 0x7f) snprintf(buf, size, "'%c'", c);
        else if (c == '\n') snprintf(buf, size, "a line break");
        else snprintf(buf, size, "byte 0x%02x", c);
    }
    return buf;
}

static pz_status unexpected(parser *p, const char *expected)
{
    char w[32], msg[200];
    snprintf(msg, sizeof msg, "expected %s, found %s", expected, what_at(p, p->pos, w, sizeof w));
    return fail_at(p, p->pos, "%s", msg);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = ++p->pos;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            p->pos++;
        } else {
            break;
        }
    }
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* Length of the valid UTF-8 sequence at s[0, n), or 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t k;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) k = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        return 0;
    }
    if (n < k) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    return k;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) out[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*n)++] = (char)(0xc0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xe0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        out[(*n)++] = (char)(0xf0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* Four hex digits at pos; -1 if not. */
static long hex4(const parser *p, size_t pos)
{
    if (pos + 4 > p->len) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p->s[pos + i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string literal at p->pos (which is '"'): decoded into a new buffer. The
 * output is never longer than the input, so the buffer is sized by the
 * distance to the end of the text, capped at the literal's raw length. */
static pz_status parse_string(parser *p, char **out, size_t *out_len)
{
    size_t start = p->pos++;
    size_t end = p->pos;   /* find the closing quote to size the buffer */
    while (end < p->len && p->s[end] != '"') end += p->s[end] == '\\' ? 2 : 1;
    if (end > p->len) end = p->len;
    char *buf = pz_xmalloc(end - p->pos + 1);
    size_t n = 0;
    for (;;) {
        if (p->pos >= p->len) {
            free(buf);
            return fail_at(p, start, "%s", "string not closed before the end of the file");
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            free(buf);
            return fail_at(p, p->pos, "%s", c == '\n' ? "line break inside a string (write \\n)"
                                                      : "control character inside a string");
        }
        if (c == '\\') {
            size_t at = p->pos;
            int e = p->pos + 1 < p->len ? p->s[p->pos + 1] : -1;
            p->pos += 2;
            const char *simple = "\"\\/bfnrt", *value = "\"\\/\b\f\n\r\t";
            const char *k = e > 0 ? strchr(simple, e) : NULL;
            if (k && e) {
                buf[n++] = value[k - simple];
                continue;
            }
            if (e != 'u') {
                free(buf);
                return fail_at(p, at, "%s", "invalid escape (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
            }
            long cp = hex4(p, p->pos);
            if (cp < 0) {
                free(buf);
                return fail_at(p, at, "%s", "\\u needs four hex digits");
            }
            p->pos += 4;
            if (cp >= 0xd800 && cp <= 0xdbff) {   /* high surrogate: a low one must follow */
                long lo = p->pos + 1 < p->len && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u'
                              ? hex4(p, p->pos + 2) : -1;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    free(buf);
                    return fail_at(p, at, "%s", "\\u escape of a lone high surrogate");
                }
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                free(buf);
                return fail_at(p, at, "%s", "\\u escape of a lone low surrogate");
            } else if (cp == 0) {
                free(buf);
                return fail_at(p, at, "%s", "\\u0000 is not allowed in strings here");
            }
            put_utf8(buf, &n, (unsigned)cp);   /* at most as long as the escape */
            continue;
        }
        size_t k = utf8_len((const unsigned char *)p->s + p->pos, p->len - p->pos);
        if (!k) {
            free(buf);
            return fail_at(p, p->pos, "%s", "invalid UTF-8 inside a string");
        }
        memcpy(buf + n, p->s + p->pos, k);
        n += k;
        p->pos += k;
    }
    buf[n] = 0;
    *out = buf;
    *out_len = n;
    return PZ_OK;
}

static pz_status parse_number(parser *p, json_value *v)
{
    size_t start = p->pos, i = p->pos;
    int integral = 1;
    if (i < p->len && p->s[i] == '-') i++;
    if (i < p->len && p->s[i] == '0') {
        i++;
        if (i < p->len && p->s[i] >= '0' && p->s[i] <= '9')
            return fail_at(p, start, "%s", "numbers cannot have leading zeros");
    } else if (i < p->len && p->s[i] >= '1' && p->s[i] <= '9') {
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    } else {
        p->pos = i;
        return unexpected(p, "a digit");
    }
    if (i < p->len && p->s[i] == '.') {
        integral = 0;
        i++;
        if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
            p->pos = i;
            return unexpected(p, "a digit after the decimal point");
        }
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        integral = 0;
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        if (i >= p->len || p->s[i] < '0' || p->s[i] > '9') {
            p->pos = i;
            return unexpected(p, "a digit in the exponent");
        }
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    }
    char *copy = pz_xmalloc(i - start + 1);
    memcpy(copy, p->s + start, i - start);
    copy[i - start] = 0;
    v->type = JSON_NUMBER;
    v->num = strtod(copy, NULL);
    if (integral) {
        errno = 0;
        long long ll = strtoll(copy, NULL, 10);
        if (errno == 0) {
            v->is_int = 1;
            v->i = ll;
        }
    }
    free(copy);
    if (!isfinite(v->num)) return fail_at(p, start, "%s", "number too large");
    p->pos = i;
    return PZ_OK;
}

static pz_status parse_value(parser *p, json_value *v, int depth);

static pz_status parse_array(parser *p, json_value *v, int depth)
{
    int cap = 0;
    v->type = JSON_ARRAY;
    p->pos++;   /* [ */
    skip_ws(p);
    if (peek(p) == ']') {
        p->pos++;
        return PZ_OK;
    }
    for (;;) {
        if (v->n == cap) {
            cap = cap ? cap * 2 : 4;
            v->items = pz_xrealloc(v->items, (size_t)cap * sizeof *v->items);
        }
        json_value *it = &v->items[v->n++];
        memset(it, 0, sizeof *it);
        if (parse_value(p, it, depth + 1)) return p->err->code;
        skip_ws(p);
        int c = peek(p);
        if (c == ']') {
            p->pos++;
            return PZ_OK;
        }
        if (c != ',') return unexpected(p, "',' or ']' after an array item");
        p->pos++;
        skip_ws(p);
        if (peek(p) == ']') return fail_at(p, p->pos, "%s", "trailing comma before ']'");
    }
}

/* a comes before b in the file */
static int before(const json_member *a, const json_member *b)
{
    return a->line < b->line || (a->line == b->line && a->col < b->col);
}

static int cmp_member(const void *pa, const void *pb)
{
    const json_member *a = *(const json_member *const *)pa, *b = *(const json_member *const *)pb;
    int c = strcmp(a->key, b->key);
    return c ? c : before(b, a) - before(a, b);
}

/* No key twice in object v. Sorted by key, then by place, so that an object
 * of many keys costs n log n, not n^2; the error points at the earliest
 * second occurrence. */
static pz_status check_duplicates(parser *p, const json_value *v)
{
    if (v->n < 2) return PZ_OK;
    const json_member **by_key = pz_xmalloc((size_t)v->n * sizeof *by_key);
    for (int i = 0; i < v->n; i++) by_key[i] = &v->members[i];
    qsort(by_key, (size_t)v->n, sizeof *by_key, cmp_member);
    const json_member *first = NULL, *second = NULL;
    for (int i = 1, group = 0; i < v->n; i++) {
        if (strcmp(by_key[group]->key, by_key[i]->key)) {
            group = i;
            continue;
        }
        if (i == group + 1 && (!second || before(by_key[i], second))) {
            first = by_key[group];
            second = by_key[i];
        }
    }
    free(by_key);
    if (!second) return PZ_OK;
    return pz_fail(p->err, PZ_ERR_INPUT, "%s:%d:%d: duplicate key \"%.120s\" (first at line %d)",
                   p->fname, second->line, second->col, second->key, first->line);
}

static pz_status parse_object(parser *p, json_value *v, int depth)
{
    int cap = 0;
    v->type = JSON_OBJECT;
    p->pos++;   /* { */
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return PZ_OK;
    }
    for (;;) {
        if (peek(p) != '"') return unexpected(p, "a key in double quotes");
        if (v->n == cap) {
            cap = cap ? cap * 2 : 4;
            v->members = pz_xrealloc(v->members, (size_t)cap * sizeof *v->members);
        }
        json_member *m = &v->members[v->n++];
        memset(m, 0, sizeof *m);
        m->line = p->line;
        m->col = col_of(p, p->pos);
        size_t key_len;
        if (parse_string(p, &m->key, &key_len)) return p->err->code;
        skip_ws(p);
        if (peek(p) != ':') return unexpected(p, "':' after the key");
        p->pos++;
        if (parse_value(p, &m->value, depth + 1)) return p->err->code;
        skip_ws(p);
        int c = peek(p);
        if (c == '}') {
            p->pos++;
            return check_duplicates(p, v);
        }
        if (c != ',') return unexpected(p, "',' or '}' after an object member");
        p->pos++;
        skip_ws(p);
        if (peek(p) == '}') return fail_at(p, p->pos, "%s", "trailing comma before '}'");
    }
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n)) return 0;
    p->pos += n;
    return 1;
}

static pz_status parse_value(parser *p, json_value *v, int depth)
{
    skip_ws(p);
    v->line = p->line;
    v->col = col_of(p, p->pos);
    if (depth > JSON_MAX_DEPTH)
        return fail_at(p, p->pos, "nesting deeper than %s levels", "64");
    int c = peek(p);
    if (c == '{') return parse_object(p, v, depth);
    if (c == '[') return parse_array(p, v, depth);
    if (c == '"') {
        v->type = JSON_STRING;
        return parse_string(p, &v->str, &v->len);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number(p, v);
    if (literal(p, "true")) {
        v->type = JSON_BOOL;
        v->b = 1;
        return PZ_OK;
    }
    if (literal(p, "false")) {
        v->type = JSON_BOOL;
        return PZ_OK;
    }
    if (literal(p, "null")) {
        v->type = JSON_NULL;
        return PZ_OK;
    }
    if (c == '/') return fail_at(p, p->pos, "%s", "comments are not allowed in JSON");
    if (c == '\'') return fail_at(p, p->pos, "%s", "strings take double quotes, not single");
    return unexpected(p, "a value (object, array, string, number, true, false or null)");
}

static void free_contents(json_value *v)
{
    if (v->type == JSON_STRING) free(v->str);
    if (v->type == JSON_ARRAY) {
        for (int i = 0; i < v->n; i++) free_contents(&v->items[i]);
        free(v->items);
    }
    if (v->type == JSON_OBJECT) {
        for (int i = 0; i < v->n; i++) {
            free(v->members[i].key);
            free_contents(&v->members[i].value);
        }
        free(v->members);
    }
}

void json_free(json_value *v)
{
    if (!v) return;
    free_contents(v);
    free(v);
}

pz_status json_parse(const char *text, size_t len, const char *fname, json_value **out,
                     pz_err *err)
{
    parser p = {text, len, 0, 1, 0, fname ? fname : "<json>", err};
    *out = NULL;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) p.pos = p.line_start = 3;   /* BOM */
    json_value *root = pz_xcalloc(1, sizeof *root);
    skip_ws(&p);
    if (p.pos >= p.len) {
        json_free(root);
        return fail_at(&p, p.pos, "%s", "the file is empty (expected a JSON value)");
    }
    if (parse_value(&p, root, 1)) {
        json_free(root);
        return err->code;
    }
    skip_ws(&p);
    if (p.pos < p.len) {
        json_free(root);
        char w[32], msg[120];
        snprintf(msg, sizeof msg, "unexpected %s after the end of the JSON value",
                 what_at(&p, p.pos, w, sizeof w));
        return fail_at(&p, p.pos, "%s", msg);
    }
    *out = root;
    return PZ_OK;
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT) return NULL;
    for (int i = 0; i < obj->n; i++)
        if (!strcmp(obj->members[i].key, key)) return &obj->members[i].value;
    return NULL;
}

const char *json_type_name(json_type t)
{
    static const char *names[] = {"null", "a boolean", "a number", "a string", "an array",
                                  "an object"};
    return (unsigned)t < PZ_ARRAY_LEN(names) ? names[t] : "?";
}

/* ---- writer ------------------------------------------------------------- */

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void json_w_init(json_writer *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

/* Separator and indentation before a value or key at the current level. */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0) return;
    int d = w->depth - 1;
    if (w->n_items[d]++) fputc(',', w->f);
    if (w->inl[d]) {
        if (w->n_items[d] > 1) fputc(' ', w->f);
    } else {
        fputc('\n', w->f);
        for (int i = 0; i < w->depth; i++) fputs("  ", w->f);
    }
}

static void w_open(json_writer *w, char c, int inline_, int is_obj)
{
    before_item(w);
    fputc(c, w->f);
    PZ_ASSERT(w->depth < JSON_MAX_DEPTH);
    int parent_inline = w->depth > 0 && w->inl[w->depth - 1];
    w->inl[w->depth] = (unsigned char)(inline_ || parent_inline);
    w->is_obj[w->depth] = (unsigned char)is_obj;
    w->n_items[w->depth] = 0;
    w->depth++;
}

void json_w_obj(json_writer *w, int inline_)
{
    w_open(w, '{', inline_, 1);
}

void json_w_arr(json_writer *w, int inline_)
{
    w_open(w, '[', inline_, 0);
}

void json_w_end(json_writer *w)
{
    PZ_ASSERT(w->depth > 0 && !w->after_key);
    int d = --w->depth;
    if (!w->inl[d] && w->n_items[d]) {
        fputc('\n', w->f);
        for (int i = 0; i < d; i++) fputs("  ", w->f);
    }
    fputc(w->is_obj[d] ? '}' : ']', w->f);
    if (d == 0) fputc('\n', w->f);
}

void json_w_key(json_writer *w, const char *key)
{
    PZ_ASSERT(w->depth > 0 && w->is_obj[w->depth - 1] && !w->after_key);
    before_item(w);
    json_write_string(w->f, key);
    fputs(": ", w->f);
    w->after_key = 1;
}

void json_w_str(json_writer *w, const char *s)
{
    before_item(w);
    if (s) json_write_string(w->f, s);
    else fputs("null", w->f);
}

void json_w_int(json_writer *w, int64_t v)
{
    before_item(w);
    fprintf(w->f, "%lld", (long long)v);
}

void json_w_num(json_writer *w, double v)
{
    before_item(w);
    if (isfinite(v)) fprintf(w->f, "%.17g", v);
    else fputs("null", w->f);
}

void json_w_bool(json_writer *w, int v)
{
    before_item(w);
    fputs(v ? "true" : "false", w->f);
}

void json_w_null(json_writer *w)
{
    before_item(w);
    fputs("null", w->f);
}
