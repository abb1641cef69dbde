/* regex_full_match.c - RegexFullMatch (opset 20): X string -> Y bool, 1
 * where the whole string matches `pattern`. ONNX gives the pattern in RE2
 * syntax; the runtime matches with POSIX extended regexes (glibc's
 * <regex.h>, its GNU \w \W \s \S \b \B included), so the pattern is
 * translated here and checked at compile:
 *   - \d \D -> [0-9] [^0-9]; \A \z -> ^ $; \n \t \r \f \v -> the byte;
 *     an escaped punctuation mark -> that mark (escaped where ERE needs it);
 *   - one character is one UTF-8 code point, as in RE2: . \D \W \S and a
 *     negated bracket match an ASCII byte of their set or a whole multibyte
 *     sequence (glibc matches bytes in the C locale the layer uses);
 *     . leaves out the newline (RE2's dot does, POSIX's would not);
 *   - \w \s -> [0-9A-Za-z_] [\t\n\f\r ]: RE2's are ASCII, GNU's follow
 *     the locale;
 *   - (?:...), (?P<name>...), (?<name>...) -> (...): groups only group here;
 *   - lazy quantifiers *? +? ?? {n,m}? -> greedy ones: a full match is the
 *     same either way;
 *   - in a bracket: \d \w \s -> 0-9 0-9A-Za-z_ and RE2's four spaces,
 *     escaped marks placed where POSIX reads them literally (] first, -
 *     last).
 * Refused, exit 2 naming the feature: flags (?i) and the like, \p \P
 * (Unicode classes), \Q...\E, \x \0 \C and other escapes, \D \W \S inside a
 * bracket, a non-ASCII character inside a bracket (a byte set cannot hold
 * a multibyte one).
 * Runs as REGEX_MATCH, the translated pattern a uint8 constant. */
#include <ctype.h>
#include <locale.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

typedef struct {
    char *buf;
    size_t len, cap;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = 2 * (b->len + n + 1);
        b->buf = pz_xrealloc(b->buf, b->cap);
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = 0;
}
static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }
static void putc_(sbuf *b, char c) { put(b, &c, 1); }

/* The UTF-8 sequences of 2, 3 and 4 bytes: the alternatives a negated set
 * takes beside its ASCII bytes, so that it consumes whole code points. */
#define PZ_RX_MULTIBYTE "[\xc0-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf][\x80-\xbf]|" \
                        "[\xf0-\xf7][\x80-\xbf][\x80-\xbf][\x80-\xbf]"

/* One code point outside the ASCII set `set` (bracket contents). */
static void put_negated(sbuf *b, const char *set)
{
    puts_(b, "([^");
    puts_(b, set);
    puts_(b, "\x80-\xff]|" PZ_RX_MULTIBYTE ")");
}

static char control_escape(char c)
{
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    default: return 0;
    }
}

/* A bracket from p (just past '[') to its ']'; *end past it. NULL, or what
 * is refused. */
static const char *bracket(const char *p, const char **end, sbuf *out)
{
    sbuf lit = {0}, rest = {0};   /* single characters; ranges and classes */
    int neg = *p == '^', first = 1, close = 0, dash = 0, caret = 0;
    const char *why = NULL;
    if (neg) p++;
    for (; *p; first = 0) {
        if (*p == ']' && !first) {
            p++;
            close = 1;
            break;
        }
        if (p[0] == '[' && p[1] == ':') {
            const char *e = strstr(p + 2, ":]");
            if (!e) { why = "an unclosed [: class"; break; }
            put(&rest, p, (size_t)(e + 2 - p));
            p = e + 2;
            continue;
        }
        char c = *p;
        if ((unsigned char)c >= 0x80) { why = "a non-ASCII character inside a bracket"; break; }
        if (c == '\\') {
            char e = p[1];
            if (!e) { why = "a trailing backslash"; break; }
            p += 2;
            if (e == 'd') { puts_(&rest, "0-9"); continue; }
            if (e == 'w') { puts_(&rest, "0-9A-Za-z_"); continue; }
            if (e == 's') { puts_(&rest, " \t\n\f\r"); continue; }
            if (e == 'D' || e == 'W' || e == 'S') { why = "\\D, \\W or \\S inside a bracket"; break; }
            if (control_escape(e)) c = control_escape(e);
            else if (ispunct((unsigned char)e)) c = e;
            else { why = "this escape inside a bracket"; break; }
        } else {
            p++;
        }
        if (p[0] == '-' && p[1] && p[1] != ']') {
            char d = p[1];
            if (d == '\\' || c == ']' || c == '-' || c == '^' || d == '[' || c == '[') {
                why = "a range with an escaped or special end";
                break;
            }
            char r[3] = {c, '-', d};
            put(&rest, r, 3);
            p += 2;
            continue;
        }
        if (c == '-') dash = 1;          /* placed last below */
        else if (c == '^') caret = 1;    /* placed after something */
        else putc_(&lit, c);             /* a ']' among them goes first */
    }
    if (!why && !close) why = "an unclosed bracket";
    if (!why) {
        /* ] first (as a literal), then the rest, ^ not first, - last */
        int has_close = lit.buf && strchr(lit.buf, ']');
        if (!neg && !rest.len && !dash && caret && !lit.len) {   /* [\^] alone */
            puts_(out, "\\^");
        } else {
            puts_(out, neg ? "([^" : "[");
            if (has_close) putc_(out, ']');
            for (size_t i = 0; i < lit.len; i++)
                if (lit.buf[i] != ']') putc_(out, lit.buf[i]);
            if (rest.len) put(out, rest.buf, rest.len);
            if (caret) putc_(out, '^');
            if (neg) puts_(out, "\x80-\xff");   /* non-ASCII: whole sequences below */
            if (dash) putc_(out, '-');
            puts_(out, neg ? "]|" PZ_RX_MULTIBYTE ")" : "]");
        }
    }
    free(lit.buf);
    free(rest.buf);
    *end = p;
    return why;
}

/* pattern (RE2) into out (POSIX ERE); NULL, or what is refused. */
static const char *translate(const char *p, sbuf *out)
{
    puts_(out, "");   /* an empty pattern gives "" */
    while (*p) {
        char c = *p;
        if (c == '[') {
            const char *why = bracket(p + 1, &p, out);
            if (why) return why;
            continue;
        }
        if (c == '(' && p[1] == '?') {
            if (p[2] == ':') p += 3;
            else if (p[2] == 'P' && p[3] == '<') p = strchr(p, '>') ? strchr(p, '>') + 1 : p + 4;
            else if (p[2] == '<') p = strchr(p, '>') ? strchr(p, '>') + 1 : p + 3;
            else return "flags or another (? group";
            putc_(out, '(');
            continue;
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && p[1] == '?') {
            putc_(out, c);   /* lazy: the same full match */
            p += 2;
            continue;
        }
        if (c == '.') {
            put_negated(out, "\n");
            p++;
            continue;
        }
        if (c != '\\') {
            putc_(out, c);
            p++;
            continue;
        }
        char e = p[1];
        if (!e) return "a trailing backslash";
        p += 2;
        if (e == 'd') puts_(out, "[0-9]");
        else if (e == 'D') put_negated(out, "0-9");
        else if (e == 'w') puts_(out, "[0-9A-Za-z_]");
        else if (e == 'W') put_negated(out, "0-9A-Za-z_");
        else if (e == 's') puts_(out, "[ \t\n\f\r]");
        else if (e == 'S') put_negated(out, " \t\n\f\r");
        else if (e == 'b' || e == 'B') { putc_(out, '\\'); putc_(out, e); }
        else if (e == 'A') putc_(out, '^');
        else if (e == 'z') putc_(out, '$');
        else if (control_escape(e)) putc_(out, control_escape(e));
        else if (strchr(".[]{}()*+?|^$\\", e)) { putc_(out, '\\'); putc_(out, e); }
        else if (ispunct((unsigned char)e)) putc_(out, e);
        else if (e == 'p' || e == 'P') return "\\p and \\P (Unicode classes)";
        else if (e == 'Q') return "\\Q...\\E";
        else return "this escape (\\x, \\C, an octal or another)";
    }
    return NULL;
}

/* The translated pattern, checked by compiling it as the layer will; the
 * caller frees it. NULL with the error in err. */
static char *pattern_for(const ir_node *n, pz_err *err)
{
    const char *pat;
    if (op_attr_string(n, "pattern", NULL, &pat, err)) return NULL;
    if (!pat) {
        op_err_attr(err, n, "pattern", "is required");
        return NULL;
    }
    sbuf out = {0};
    const char *why = translate(pat, &out);
    if (why) {
        free(out.buf);
        pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (RegexFullMatch): attribute 'pattern' "
                "\"%s\": %s is not supported (RE2 is translated to POSIX extended regexes)",
                n->name, pat, why);
        return NULL;
    }
    size_t len = out.len + 8;
    char *full = pz_xmalloc(len);
    snprintf(full, len, "^(%s)$", out.buf);
    regex_t re;
    locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0), old = c ? uselocale(c) : (locale_t)0;
    int rc = regcomp(&re, full, REG_EXTENDED | REG_NOSUB);   /* as the layer: C locale */
    if (c) {
        uselocale(old);
        freelocale(c);
    }
    free(full);
    if (rc) {
        char msg[128];
        regerror(rc, &re, msg, sizeof msg);
        free(out.buf);
        op_err_attr(err, n, "pattern", "\"%s\" is not a valid regex: %s", pat, msg);
        return NULL;
    }
    regfree(&re);
    return out.buf;
}

static pz_status regex_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    (void)g;
    (void)params;
    char *t = pattern_for(n, err);
    free(t);
    return t ? PZ_OK : err->code;
}

static pz_status regex_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype != IR_STRING)
        return op_err(err, n, "input X is %s, expected string", ir_dtype_name(x->dtype));
    op_set_out(g, n, 0, IR_BOOL, x->rank, x->dims);
    return PZ_OK;
}

static int regex_expand(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    if (n->n_in != 1) return 0;   /* done already */
    pz_err err = {0};
    char *t = pattern_for(n, &err);   /* parse checked it */
    if (!t) return 0;
    const char *one[1] = {t};
    int v = op_add_strings_const(g, i, "pattern", 1, one);
    free(t);
    n = &g->nodes[i];
    ir_node_set_n_in(n, 2);
    n->in[1] = v;
    return 0;
}

static pz_status regex_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    if (n->n_in != 2)   /* regex_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (RegexFullMatch): its pattern was not "
                       "prepared for the runtime", n->name);
    op_lowered_init(out, n, PZ_OP_REGEX_MATCH, NULL, 0);
    return PZ_OK;
}

const op_def op_regex_full_match = {
    .name = "RegexFullMatch",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .parse = regex_parse,
    .infer = regex_infer,
    .expand = regex_expand,
    .lower = regex_lower,
    .takes_string = 1,
};
