/* op_desc.h - pz_rt_op, the descriptor of one runtime layer kind.
 *
 * A layer kind is one pz_rt_op (rt/ops/<op>.c), found through the table
 * pz_rt_ops[] indexed by pz_op_kind (rt/ops/registry.c). Kept apart from
 * net.h so the compiler side can read descriptors without the net's
 * internals.
 */
#ifndef PZ_RT_OP_DESC_H
#define PZ_RT_OP_DESC_H

#include <stddef.h>
#include <stdint.h>

typedef struct pz_layer pz_layer;

/* A row window of an NCHW16c tensor: a buffer holding rows [base, base +
 * rows) (axis 2) of every (image, channel block) plane, planes rows * W * 16
 * floats apart. The whole tensor is {0, H}. */
typedef struct {
    int64_t base, rows;
} pz_rowwin;

typedef struct {
    const char *name;            /* "CONV", for messages and profiles */
    size_t params_size;          /* sizeof its params struct; 0 when it takes none */
    int min_in, max_in;          /* input slots (max -1: any number) */
    int min_out, max_out;
    int (*prepare)(pz_layer *l, char *err, size_t errsize);
    void (*run)(const pz_layer *l, int ith, int nth);
    void (*release)(pz_layer *l);   /* optional: frees what l->state points to */
    /* Optional, for depth-first fused F-Blocks (rt/fuse.c). rows(l), after
     * prepare: 0 when the kernel prepare chose cannot compute a range of
     * output rows; else the row granularity g (a range starts at a multiple
     * of g and ends at one or at the last row). run_rows(l, in, out, r0, r1,
     * ith, nth): output rows [r0, r1) (axis 2) of every image of output 0,
     * NCHW16c, reading input i from in[i] and writing out (each the size and
     * layout of l->in[i], l->out[0]: the net's buffers or a worker's private
     * copies); the same bits as run() gives those rows. */
    int (*rows)(const pz_layer *l);
    void (*run_rows)(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                     int64_t r1, int ith, int nth);
    /* Optional: run_rows with input 0 held in row window xw and output 0 (and
     * a residual laid out like it) in yw (pz_rowwin below). xw holds every
     * input row [r0, r1) reads and ends at or before the input's last row; yw
     * holds [r0, r1), at least 2 rows when the output has. Fused runs keep an
     * intermediate in windows only between layers that have this (rt/fuse.c). */
    void (*run_window)(const pz_layer *l, const void *const *in, pz_rowwin xw, void *out,
                       pz_rowwin yw, int64_t r0, int64_t r1, int ith, int nth);
} pz_rt_op;

extern const pz_rt_op *const pz_rt_ops[];

#endif
