/* pz_strings.h - string tensors (PZ_STRING) in the runtime.
 *
 * An element is a `const char *` to a NUL-terminated UTF-8 string; NULL
 * reads as "". Who owns the bytes:
 *   - a tensor read from a file or a constant: one block, the pointer array
 *     followed by the bytes (pz_strings_pack), freed by one free();
 *   - what a layer makes: the layer's string store (pz_strstore, in its
 *     state), emptied when the layer runs again and freed with the net. So a
 *     string output of pz_net_run stays valid until the next run or
 *     pz_net_free.
 * Copying elements (Identity, Gather, a graph output copied out) copies the
 * pointers: the bytes are never written after they are made.
 *
 *   pz_strstore *st = pz_strstore_new();
 *   const char *s = pz_strstore_add(st, "abc", 3);   // valid until reset/free
 *   pz_strstore_reset(st);
 *   pz_strstore_free(st);
 */
#ifndef PZ_STRINGS_H
#define PZ_STRINGS_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>

_Static_assert(sizeof(const char *) == 8, "a string element is an 8-byte pointer (pz_dtypes.h)");

/* Element i of a string tensor's data, "" for NULL. */
static inline const char *pz_str_at(const void *data, int64_t i)
{
    const char *s = ((const char *const *)data)[i];
    return s ? s : "";
}

/* One block holding n pointers then the n strings (s[i] of len[i] bytes,
 * NUL added; an embedded NUL ends the string where it is read); the caller
 * frees it with free(). len NULL: strlen. NULL when out of memory. */
void *pz_strings_pack(int64_t n, const char *const *s, const size_t *len);

/* A deep copy of the n strings of data (pz_strings_pack of them). */
void *pz_strings_copy(const void *data, int64_t n);

/* The strings of a blob of NUL-terminated strings one after another (a
 * uint8 constant: pz_op_params.h): their count, and each in out[] when out
 * is not NULL; -1 when the blob does not end in a NUL. */
int64_t pz_strings_index(const uint8_t *blob, int64_t nbytes, const char **out);

/* s split as ONNX StringSplit says: at each delim, or when delim is "" at
 * runs of ASCII whitespace (space, \t, \n, \v, \f, \r), none kept at
 * either end; at most maxsplit splits (< 0: no limit), the rest the last
 * part. "" has no part (ONNX Runtime's count, with a delimiter too). Returns
 * the number of parts; the first max of them go to part[] and len[]
 * (pointers into s). */
int64_t pz_str_split(const char *s, const char *delim, int64_t maxsplit, const char **part,
                     size_t *len, int64_t max);

/* x with its case changed (change: a pz_case_change, pz_op_params.h) into
 * out (4 * strlen(x) + 1 bytes at least): Unicode's simple case maps code
 * point by code point, as loc (C.UTF-8) gives them; bytes that start no
 * well-formed UTF-8 sequence are copied. Returns the bytes written. */
size_t pz_str_case_map(const char *x, int change, locale_t loc, char *out);

typedef struct pz_strstore pz_strstore;
pz_strstore *pz_strstore_new(void);       /* NULL when out of memory */
void pz_strstore_free(pz_strstore *st);   /* NULL is fine */
/* Forgets every string added (keeps its largest chunk for the next run). */
void pz_strstore_reset(pz_strstore *st);
/* len bytes to fill, a NUL after them; NULL when out of memory. */
char *pz_strstore_alloc(pz_strstore *st, size_t len);
/* A copy of s[0, len) with a NUL after it; NULL when out of memory. */
const char *pz_strstore_add(pz_strstore *st, const char *s, size_t len);

#endif
