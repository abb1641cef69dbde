/* op_desc.h - pz_rt_op, the descriptor of one runtime layer kind.
 *
 * A layer kind is one pz_rt_op (rt/ops/<op>.c), found through the table
 * pz_rt_ops[] indexed by pz_op_kind (rt/ops/registry.c, from the list in
 * pz_op_kinds.h). It says all the runtime and the compiler need to know of a
 * kind: how to prepare and run it, its params as C (for the code
 * generator), and its row rule (for the optimizer). Kept apart from net.h so
 * the compiler side reads descriptors without the net's internals.
 */
#ifndef PZ_RT_OP_DESC_H
#define PZ_RT_OP_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "rt/pz_rt.h"

typedef struct pz_layer pz_layer;

/* ---- params as the code generator prints them -------------------------
 * A kind with params names its C type and lists its fields; the emitter
 * prints a layer's params from that table only, so a field left out of it
 * would silently stay zero in generated programs. */
typedef enum {
    PZ_F_INT, PZ_F_I64, PZ_F_F32, PZ_F_F64, PZ_F_UNS,
    PZ_F_ACT,    /* a pz_act */
    PZ_F_ENUM,   /* an int printed by the name of its enumerator */
} pz_field_type;

typedef struct {
    const char *name;
    size_t off;
    pz_field_type type;
    int count;                   /* array length, 1 for a scalar */
    const char *const *names;    /* PZ_F_ENUM: the enumerators, in order */
    int n_names;
} pz_param_field;

#define PZ_FIELD(st, f, ty) {#f, offsetof(st, f), ty, 1, NULL, 0}
#define PZ_FIELD_ARRAY(st, f, ty)                                              \
    {#f, offsetof(st, f), ty, (int)(sizeof(((st *)0)->f) / sizeof(((st *)0)->f[0])), NULL, 0}
#define PZ_FIELD_ENUM(st, f, tab)                                              \
    {#f, offsetof(st, f), PZ_F_ENUM, 1, tab, (int)(sizeof(tab) / sizeof((tab)[0]))}

/* In a descriptor: the params type, its size and its field table, given
 * together so that a kind with params cannot leave its table out. */
#define PZ_OP_PARAMS(type, table)                                              \
    .params_type = #type, .params_size = sizeof(type), .fields = (table),      \
    .n_fields = (int)(sizeof(table) / sizeof((table)[0]))

/* ---- row rule: what the optimizer's halo accounting needs ---------------
 * A layer is row-local when output rows [lo, hi) (axis 2) depend only on a
 * range of rows of each input: a block of such layers may be split in bands
 * of rows (opt/halo.c). The compiler asks before any net exists, so the rule
 * sees params and shapes, not a pz_layer. */
typedef struct {
    int rank;
    const int64_t *dims;
    int is_const;                /* a constant (or an omitted slot) */
    int made_by_layer;           /* written by a layer: a fast kernel may have blocked it */
    int is_bool;                 /* elements of type bool (a CONV's fused comparison) */
} pz_row_tensor;

typedef struct {
    const void *params;          /* the kind's params (with the optimizer's algo) */
    int n_in, n_out;
    const pz_row_tensor *in, *out;
    int isa;                     /* the pz_isa the run will use */
} pz_row_layer;

typedef enum {
    PZ_ROWS_SAME,     /* element-wise: row r (or row 0 of a one-row broadcast operand) */
    PZ_ROWS_NONE,     /* independent of the output rows (weights, bias) */
    PZ_ROWS_AFFINE,   /* row start + r*step */
    PZ_ROWS_WINDOW,   /* a conv/pool window */
} pz_rows_kind;

typedef struct {
    pz_rows_kind kind;
    int64_t start, step;                      /* AFFINE */
    int64_t kernel, stride, pad, dilation;    /* WINDOW */
} pz_row_input;

typedef struct {
    const char *why;             /* not row-local: why, said after the op's name */
    int64_t gran;                /* rows the kernel computes together (0, 1: any range) */
    int64_t macs_row;            /* multiply-adds per output row, for the count of
                                  * redundant MACs (0: the kind does not count them) */
    pz_row_input in[PZ_MAX_IO];  /* zeroed: PZ_ROWS_SAME */
} pz_row_map;

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
     * intermediate in windows only between layers that have this (rt/fuse.c).
     * scratch: nth slices of l->row_scratch_bytes, slice ith for worker ith
     * (NULL when that is 0). */
    void (*run_window)(const pz_layer *l, const void *const *in, pz_rowwin xw, void *out,
                       pz_rowwin yw, int64_t r0, int64_t r1, void *scratch, int ith, int nth);

    /* For the compiler (PZ_OP_PARAMS sets the first four): */
    const char *params_type;     /* "pz_conv_params"; NULL when it takes none */
    const pz_param_field *fields;
    int n_fields;
    const void *defaults;        /* optional: the params a caller may leave out (NULL, 0) */
    /* Optional: row_rule(l, m) returns 1 when the layer is row-local and
     * fills m (zeroed by the caller), else 0 with m->why; NULL: never. */
    int (*row_rule)(const pz_row_layer *l, pz_row_map *m);
    /* Optional: sets the optimizer's per-layer algorithm knob in params. */
    void (*set_algo)(void *params, int algo);
    /* Optional: sets the sparsity knob (0 dense; the kind has a sparse kernel). */
    void (*set_sparsity)(void *params, float ratio);

    /* Run-time shapes. dyn_out 1: run sets the actual dims of its outputs,
     * planned at a bound (NONZERO, UNIQUE, COMPRESS, NMS). run_shape: the
     * layer may read such a tensor (it is then in a dynamic region, l->dyn):
     * before each run the net calls run_shape, which sets the outputs' dims
     * from the inputs' actual ones, and prepare picks a kernel that takes
     * the size at run time. A layer reading a run-time shape without it is
     * refused at compile. */
    int dyn_out;
    void (*run_shape)(const pz_layer *l);
    /* Optional: 1 when the params make this layer's output shapes the run's
     * (TOPK whose k is read at run time): it is in a dynamic region. */
    int (*dyn_self)(const pz_layer *l);
    /* Optional: 1 when the layer reads the values that size its outputs at
     * run time and they have no compile-time bound (Expand's shape, Range's
     * limits): it is in a dynamic region, and the net allocates its outputs,
     * and those of the layers after it in the region, when they run. */
    int (*dyn_alloc)(const pz_layer *l);
    /* 1: its outputs keep their planned shapes even in a dynamic region (SHAPE:
     * the values are the run's, the shape [rank] is not): the region ends. */
    int dyn_stops;
    /* Optional: the layer's error of the last run, naming its node (NULL:
     * none), for a layer that can fail on its input's values (IMAGE_DECODER
     * on bytes that are not an image); pz_net_run_error asks each. */
    const char *(*run_error)(const pz_layer *l);
} pz_rt_op;

/* run_shape of a layer whose output 0 has input 0's shape. */
void pz_run_shape_same(const pz_layer *l);
/* run_shape of a layer whose output 0 is its inputs broadcast (numpy): a
 * dim not 1 wins; run checks that the others are 1 or the same. */
void pz_run_shape_bcast(const pz_layer *l);

extern const pz_rt_op *const pz_rt_ops[];

#endif
