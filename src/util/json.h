/* json.h - a small, strict JSON reader (RFC 8259) with line:column errors,
 * and a writer. Used by schedule files and target profiles.
 *
 * Reading builds a tree that the caller walks:
 *
 *   json_value *root;
 *   if (json_parse(text, len, "s.json", &root, &err)) ...  // "s.json:3:14: ..."
 *   const json_value *mp = json_get(root, "mp");           // NULL if absent
 *   if (mp && mp->type == JSON_NUMBER && mp->is_int) ... mp->i ...
 *   json_free(root);
 *
 * Strict means: one value, optional surrounding white space (and a leading
 * UTF-8 byte order mark); no comments, no trailing commas, no single quotes,
 * no leading zeros, no NaN/Infinity, no raw control characters in strings,
 * valid UTF-8 only, no duplicate keys in an object, no "\u0000". Nesting is
 * limited to JSON_MAX_DEPTH (the reader recurses once per level), so no
 * input can exhaust the stack; every allocation is bounded by the text's
 * length. Columns count bytes, from 1.
 *
 * Writing: a json_writer prints to a FILE with two-space indentation; a
 * container opened "inline" keeps everything inside it on one line:
 *
 *   json_writer w;
 *   json_w_init(&w, f);
 *   json_w_obj(&w, 0);
 *     json_w_key(&w, "blocks"); json_w_arr(&w, 0);
 *       json_w_obj(&w, 1); json_w_key(&w, "mp"); json_w_int(&w, 2); json_w_end(&w);
 *     json_w_end(&w);
 *   json_w_end(&w);   // also ends the last line
 */
#ifndef PZ_UTIL_JSON_H
#define PZ_UTIL_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "../ir/status.h"

#define JSON_MAX_DEPTH 64

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value json_value;
typedef struct json_member json_member;

struct json_value {
    json_type type;
    int line, col;            /* where the value starts (1-based) */
    int b;                    /* JSON_BOOL */
    double num;               /* JSON_NUMBER */
    int is_int;               /* JSON_NUMBER written without fraction or exponent, fits int64 */
    int64_t i;                /*   ... its value */
    char *str;                /* JSON_STRING: NUL-terminated UTF-8 (no NUL inside) */
    size_t len;               /*   ... its length in bytes */
    json_value *items;        /* JSON_ARRAY: n items */
    json_member *members;     /* JSON_OBJECT: n members, in file order */
    int n;
};

struct json_member {
    char *key;
    int line, col;            /* where the key starts */
    json_value value;
};

/* Parses text[0, len) (need not be NUL-terminated). fname names the text in
 * errors ("FILE:LINE:COL: message"). On success *out owns the tree (free it
 * with json_free); on failure *out is NULL and err says what and where. */
pz_status json_parse(const char *text, size_t len, const char *fname, json_value **out,
                     pz_err *err);
void json_free(json_value *v);

/* The member `key` of object obj, or NULL (also when obj is not an object). */
const json_value *json_get(const json_value *obj, const char *key);
/* "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *json_type_name(json_type t);

/* ---- writer --------------------------------------------------------------- */

typedef struct {
    FILE *f;
    int depth;
    int n_items[JSON_MAX_DEPTH];       /* items written so far in each open container */
    unsigned char inl[JSON_MAX_DEPTH]; /* container is written on one line */
    unsigned char is_obj[JSON_MAX_DEPTH];
    int after_key;                     /* a key was written: the value follows on its line */
} json_writer;

void json_w_init(json_writer *w, FILE *f);
void json_w_obj(json_writer *w, int inline_);     /* { */
void json_w_arr(json_writer *w, int inline_);     /* [ */
void json_w_end(json_writer *w);                  /* } or ] */
void json_w_key(json_writer *w, const char *key); /* "key": (inside an object) */
void json_w_str(json_writer *w, const char *s);   /* escaped; NULL writes null */
void json_w_int(json_writer *w, int64_t v);
void json_w_num(json_writer *w, double v);        /* %.17g; NaN and infinities write null */
void json_w_bool(json_writer *w, int v);
void json_w_null(json_writer *w);
/* Writes s as a JSON string literal to f (escapes quotes, backslashes and
 * control characters). */
void json_write_string(FILE *f, const char *s);

#endif
