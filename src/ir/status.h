/* status.h - errors a user can act on.
 *
 * Every library function that can fail on user input returns a pz_status and
 * fills a pz_err with a sentence naming the node, the op and the attribute.
 * The CLI prints it as "paleozoic: error: <msg>" and exits with pz_exit_code().
 *
 *   pz_err err = {0};
 *   if (onnx_load_file(path, &opts, &g, &err) != PZ_OK) { puts(err.msg); ... }
 */
#ifndef PZ_STATUS_H
#define PZ_STATUS_H

#include <stdio.h>
#include <stdlib.h>

typedef enum {
    PZ_OK = 0,
    PZ_ERR_INPUT,        /* bad model, bad file, bad usage: exit 2 */
    PZ_ERR_UNSUPPORTED,  /* valid ONNX we do not support: exit 2 */
    PZ_ERR_INTERNAL,     /* our bug or the OS failed us: exit 1 */
} pz_status;

typedef struct {
    pz_status code;
    char msg[1024];
    /* The value a node needed as a constant and got at run time (set with
     * the first error only, by op_need_const): a loader that knows that
     * value's inputs at compile time binds them and tries again. */
    char need_const[256];
} pz_err;

/* Records the first error only: later ones are usually consequences.
 * Returns code so that callers can write `return pz_fail(err, ...)`. */
pz_status pz_fail(pz_err *err, pz_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int pz_exit_code(pz_status s);

/* Always-on internal invariant (never for user input). */
#define PZ_ASSERT(cond)                                                        \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "paleozoic: internal error: %s:%d: %s\n",         \
                    __FILE__, __LINE__, #cond);                                \
            abort();                                                           \
        }                                                                      \
    } while (0)

#define PZ_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation that cannot fail silently: an out-of-memory is reported and the
 * process exits with 1 (internal failure), never a NULL dereference. */
void *pz_xmalloc(size_t n);
/* p, or the out-of-memory exit when p is NULL (n: the bytes asked for). */
void *pz_xcheck(void *p, size_t n);
void *pz_xcalloc(size_t n, size_t size);
void *pz_xrealloc(void *p, size_t n);
char *pz_xstrdup(const char *s);

#endif
