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
 *                       Chooses layouts (below): reads l->in_have[i], sets
 *                       l->in_cblk[i] and l->out_cblk[j].
 *   run(l, ith, nth)    run time: worker ith of nth does its share. Pure: no
 *                       allocation, no logging; reads l->in[i]->data and
 *                       writes l->out[i]->data, l->scratch.
 *
 * Adding a layer kind: a file in rt/ops/ (start from rt/ops/TEMPLATE.c) and
 * one line in the list PZ_OP_KINDS (pz_op_kinds.h).
 *
 * Layouts. Inside a net a float32 rank-4 tensor may be kept blocked: its
 * layout is its channel block `cblk`, 0 for plain NCHW, 16 for NCHW16c
 * ([N][ceil(C/16)][H][W][16], lanes of channels >= C zero), or 1..16 for
 * NCHWxc (rt/kernels/fast.h); a rank-4 uint8 or int8 tensor (the int8
 * layers') plain or NCHW16c, lanes >= C of any value. The net decides at compile, layer by layer in
 * order: before a layer's prepare it sets in_have[i] to the layout the
 * producer of input i writes (graph inputs and constants: plain) and
 * in_cblk[i] = out_cblk[j] = 0. Prepare says what its kernel reads
 * (in_cblk[i]) and writes (out_cblk[j]); an op that knows nothing of layouts
 * leaves the zeros and sees plain NCHW only. Where in_cblk[i] differs from
 * in_have[i] the net converts the input into arena scratch at the start of
 * the layer's run (inside its fork-join, then a barrier), and l->in[i] then
 * points to that converted copy. Graph outputs are converted back to plain
 * when copied out. Callers of the API see plain NCHW only.
 */
#ifndef PZ_RT_NET_H
#define PZ_RT_NET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt/kernels/kernels.h"
#include "rt/layout.h"
#include "rt/mem.h"
#include "rt/pool.h"
#include "rt/rt_assert.h"
#include "rt/op_desc.h"
#include "rt/pz_rt.h"

#define PZ_RT_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Arena offsets and scratch are aligned to this (a cache line, a ZMM). */
#define PZ_ALIGN 64

/* Conditions a layer's run may wait on (nested Ifs; deeper ones are dropped,
 * and the layer then runs more often than it must, never less). */
#define PZ_GUARD_MAX 4

/* pz_layer is typedef'd in rt/op_desc.h, with pz_rt_op. */

struct pz_layer {
    char *name;
    pz_op_kind kind;
    const pz_rt_op *op;
    const pz_run_options *opts;  /* the net's run options (pz_net_compile), for prepare */
    pz_isa isa;                  /* the kernels' instruction set: the CPU's best, capped by opts */
    void *params;                /* a copy of the caller's params (NULL when none) */
    int n_in, n_out;
    int *in_id, *out_id;         /* tensor ids, -1 for an omitted optional slot */
    pz_tensor **in, **out;       /* resolved at compile; NULL for an omitted slot */
    int block;                   /* the F-Block it belongs to */
    int mp;                      /* that block's cores */
    pz_precision prec;           /* its precision (prepare picks kernels by it): its
                                  * block's, or prec_set - 1 */
    int prec_set;                /* pz_net_layer_precision: the layer's own precision + 1
                                  * (0: the block's) */
    int nth;                     /* workers it uses (<= mp); prepare may lower it */
    int dyn;                     /* 1: an input has a run-time shape (op_desc.h's run_shape) */
    int rt_alloc;                /* 1: its outputs have no compile-time bound (op_desc.h's
                                  * dyn_alloc, or it reads such a tensor): the net allocates
                                  * them after run_shape, before run (exec.c) */
    char *run_err;               /* dyn: the shapes of this run did not fit ("": they
                                  * did), pz_layer_run_fail; pz_net_run_error reports it */
    size_t scratch_bytes;        /* arena scratch prepare asked for */
    int scratch_run_only;        /* 1: only run() uses the scratch, not run_rows() (a
                                  * fused run may still take the layer: rt/fuse.c) */
    size_t row_scratch_bytes;    /* scratch one worker of run_window needs (a fused run
                                  * allocates it per worker: rt/fuse.c); 0: none */
    size_t row_scratch_row;      /* bytes of it one output row fills (strip sizes) */
    size_t row_weight_bytes;     /* packed weights each row range reads whole again
                                  * (Winograd's U; strip sizes), 0: not counted */
    unsigned packed_in;          /* inputs (bit i: slot i) prepare packed and never reads again */
    const char *kernel;          /* the kernel prepare chose, for profiles ("winograd"; NULL: the op's one) */
    void *scratch;               /* PZ_ALIGN-aligned, valid during run */
    void *state;                 /* op-private, from prepare */
    size_t state_cap;            /* LOOP: bytes at state (exec.c's carry) */
    uint64_t ns;                 /* profile: time of the last run */
    /* layouts (see above): the producer's, what the op reads, what it writes */
    int *in_have, *in_cblk, *out_cblk;
    /* input conversions the net planned (in_cblk[i] != in_have[i]) */
    struct pz_layout_conv *convs;
    int n_convs;
    /* views (pz_net_view): compile points in_id[i] at the view's root, the
     * tensor a layer writes, so that dataflow (fusion, lifetimes) sees the
     * real producer; in[i] keeps the view's shape. in_view[i] is the view's
     * id (-1: not a view); bit i of in_reshaped: its shape is not the
     * root's. */
    int *in_view;
    unsigned in_reshaped;
    /* 1: a CONCAT whose producers wrote its parts in place, or a SPLIT
     * whose parts are all slices of its input (inplace.c): it does not run
     * and the profile leaves it out */
    int in_place;
    /* 1: a CONCAT (or a channel GATHER) whose readers, channel gathers,
     * read its parts (its sources) instead, or a channel GATHER whose one
     * reader, a conv, gathers its input itself (inplace.c): it does not run
     * and the profile leaves it out */
    int read_through;
    /* CONV: the channel GATHER (read_through) whose output is its input 0:
     * each worker gathers it into its scratch, then convolves (conv.c);
     * NULL: none */
    const struct pz_layer *x_gather;
    /* SPLIT: bit i, output i is a slice of the input (inplace.c) and the
     * run copies only the others */
    unsigned out_inplace;
    /* Loops run at run time (rt/ops/loop.c): a body layer has loop_of = 1 +
     * its LOOP layer's index (the normal walk skips it); a LOOP layer lists
     * its body's layers, in order, and its LOOP_BEGIN (compile.c) */
    int loop_of;
    int *body, n_body, loop_head;
    /* The branch of an If taken at run time (rt/guard.c): the layer runs
     * only when each one-bool tensor guard_t[k] holds guard_v[k] (0: none,
     * it always runs); skipped: 1 when the last run's last visit of it
     * did not run it (0 when the run did not reach it: exec.c) */
    int n_guard;
    int guard_t[PZ_GUARD_MAX];
    unsigned char guard_v[PZ_GUARD_MAX];
    int skipped;
};

/* One input converted at the start of a layer's run: src (as its producer
 * wrote it, layout `from`) into view.data (arena scratch, layout `to`);
 * l->in[slot] points to view. A view of a blocked tensor under a shape that
 * breaks the blocks is unblocked from its root (src: the root's shape, view:
 * the view's), then blocked again if the layer reads it blocked: `sync`
 * puts a barrier between the two (the second reads rows of the first). */
typedef struct pz_layout_conv {
    int slot;
    int from, to;
    int sync;
    pz_isa isa;              /* the kernels' (the layer's isa) */
    const pz_tensor *src;
    pz_tensor view;
} pz_layout_conv;

/* The layout (0 plain, else the channel block) compile chose for output
 * `slot` of `layer`, or -1 when there is none: for tests and profiles. */
int pz_net_layer_out_layout(const pz_net *net, int layer, int slot);
/* The kernel compile chose for a layer when its op says ("winograd"), else
 * NULL (also for a bad index or a net not compiled). */
const char *pz_net_layer_kernel(const pz_net *net, int layer);

/* Layer `layer` as compile prepared it, the one account `run --profile` and
 * `inspect` print: its op ("CONV"), the kernel prepare chose ("winograd";
 * "-": the op's one kernel), the workers it uses, and run_time_shapes 1 in a
 * dynamic region (the kernel takes the run's sizes; a path inside it, as a
 * broadcast's, may follow each run's shapes). 1 for a bad index or a net
 * not compiled (op "?", kernel "-"). */
typedef struct {
    const char *op, *kernel;
    int threads, run_time_shapes;
} pz_layer_show;
int pz_net_layer_show(const pz_net *net, int layer, pz_layer_show *s);

/* Layer `layer` of a compiled net, as prepare left it (its state, kernel
 * and layouts), or NULL for a bad index or a net not compiled: for tests
 * that call an op's run_rows directly, as rt/fuse.c does. */
const pz_layer *pz_net_layer_at(const pz_net *net, int layer);

/* Tensor `id` as the net holds it (data in the arena after a run: graph
 * outputs keep theirs to the end) and its layout in *cblk; NULL for a bad
 * id. For tests that look at padded lanes. */
const pz_tensor *pz_net_tensor_held(const pz_net *net, int id, int *cblk);

/* Writes `layer "NAME" (OP): <message>` into err; returns 1 (for `return`). */
int pz_layer_fail(const pz_layer *l, char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* In a dynamic region's run_shape: the run's shapes do not fit (inputs
 * that do not broadcast, a k above the axis): `layer "NAME" (OP): <message>`
 * into l->run_err, which pz_net_run_error reports after the run (the run
 * goes on with the outputs empty). */
#define PZ_RUN_ERR_BYTES 256
/* A LOOP layer's carried values and scan outputs (rt/ops/loop.c); 1 when
 * its slots do not make a loop. */
int pz_loop_counts(const pz_layer *l, int *n_carried, int *n_scan);
void pz_layer_run_fail(const pz_layer *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether WHERE layer l (rt/ops/where.c) reads one side only: a one-bool
 * condition and no run-time shape, so X when it holds, else Y (an If's
 * choice made at run time: rt/guard.c). */
int pz_where_reads_one(const pz_layer *l);

/* Helpers for prepare. Each returns 0, or 1 with a message in err. */
/* The activations of layers whose fast kernels clamp (all but GEMM and
 * MATMUL): none, ReLU or Clip. */
int pz_layer_want_clamp_act(const pz_layer *l, char *err, size_t n, const pz_act *act);
int pz_layer_want_dtype(const pz_layer *l, char *err, size_t n, const char *what,
                        const pz_tensor *t, int dtype);
/* PRELU's slopes of a GEMM or MATMUL layer (input 4: count constant float32,
 * one per output column): a copy into *slope, the layer's to free. */
int pz_layer_prelu_slopes(const pz_layer *l, char *err, size_t n, int64_t count, float **slope);
int pz_layer_want_same_shape(const pz_layer *l, char *err, size_t n, const char *what,
                             const pz_tensor *a, const pz_tensor *b);
/* "[1,3,224,224]" into buf. */
const char *pz_shape_str(const pz_tensor *t, char *buf, size_t n);

#endif
