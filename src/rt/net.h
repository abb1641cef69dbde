/* net.h - the runtime's internals shared by net.c and the ops in rt/ops/.
 *
 * A layer kind is one pz_rt_op (rt/ops/<op>.c), found through the table
 * pz_rt_ops[] indexed by pz_op_kind:
 *
 *   prepare(l)          compile time: checks the layer's dtypes and shapes,
 *                       chooses a kernel, asks for arena scratch
 *                       (l->scratch_bytes), allocates l->state (tables,
 *                       packed weights; freed with free() by the net, after
 *                       release() if the op has one). May lower l->nth.
 *   run(l, ith, nth)    run time: worker ith of nth does its share. Pure: no
 *                       allocation, no logging; reads l->in[i]->data and
 *                       writes l->out[i]->data, l->scratch.
 *
 * Adding a layer kind: a PZ_OP_* in pz_rt.h, a file in rt/ops/, one line in
 * rt/ops/registry.c.
 */
#ifndef PZ_RT_NET_H
#define PZ_RT_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt/pz_rt.h"

/* Always-on internal invariant (never for user input). */
#define PZ_RT_ASSERT(cond)                                                     \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "paleozoic: internal error: %s:%d: %s\n",         \
                    __FILE__, __LINE__, #cond);                                \
            abort();                                                           \
        }                                                                      \
    } while (0)

#define PZ_RT_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Arena offsets and scratch are aligned to this (a cache line, a ZMM). */
#define PZ_ALIGN 64

typedef struct pz_layer pz_layer;

typedef struct {
    const char *name;            /* "CONV", for messages and profiles */
    size_t params_size;          /* sizeof its params struct; 0 when it takes none */
    int min_in, max_in;          /* input slots (max -1: any number) */
    int min_out, max_out;
    int (*prepare)(pz_layer *l, char *err, size_t errsize);
    void (*run)(const pz_layer *l, int ith, int nth);
    void (*release)(pz_layer *l);   /* optional: frees what l->state points to */
} pz_rt_op;

struct pz_layer {
    char *name;
    pz_op_kind kind;
    const pz_rt_op *op;
    void *params;                /* a copy of the caller's params (NULL when none) */
    int n_in, n_out;
    int *in_id, *out_id;         /* tensor ids, -1 for an omitted optional slot */
    pz_tensor **in, **out;       /* resolved at compile; NULL for an omitted slot */
    int block;                   /* the F-Block it belongs to */
    int mp;                      /* that block's cores */
    int nth;                     /* workers it uses (<= mp); prepare may lower it */
    size_t scratch_bytes;        /* arena scratch prepare asked for */
    void *scratch;               /* PZ_ALIGN-aligned, valid during run */
    void *state;                 /* op-private, from prepare */
    uint64_t ns;                 /* profile: time of the last run */
};

extern const pz_rt_op *const pz_rt_ops[];

/* Writes `layer "NAME" (OP): <message>` into err; returns 1 (for `return`). */
int pz_layer_fail(const pz_layer *l, char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Helpers for prepare. Each returns 0, or 1 with a message in err. */
int pz_layer_want_dtype(const pz_layer *l, char *err, size_t n, const char *what,
                        const pz_tensor *t, int dtype);
int pz_layer_want_same_shape(const pz_layer *l, char *err, size_t n, const char *what,
                             const pz_tensor *a, const pz_tensor *b);
/* "[1,3,224,224]" into buf. */
const char *pz_shape_str(const pz_tensor *t, char *buf, size_t n);

#endif
