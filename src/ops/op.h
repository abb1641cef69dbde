/* op.h - what the compiler knows about one ONNX operator.
 *
 * Each operator lives in one file, src/ops/<name>.c, which defines a
 * `const op_def op_<name>` with:
 *   - parse: reads the node's attributes into a params struct (checked, with
 *            errors naming the node, the op and the attribute);
 *   - infer: computes the output types and shapes from the inputs; when all
 *            inputs are constant and the op is cheap (shape arithmetic), it
 *            may also compute the output values (constant folding), which is
 *            how Reshape(Shape(x)...) chains get static shapes;
 *   - cost:  MACs and channels (bytes and params are filled generically).
 * Adding an operator: copy TEMPLATE.c, add one line to op_list.h.
 */
#ifndef PZ_OPS_OP_H
#define PZ_OPS_OP_H

#include "../ir/graph.h"
#include "../ir/status.h"
#include "../rt/pz_rt.h"

/* A node as the runtime sees it: one runtime operator with final params, and
 * the values it reads and writes (constant shape inputs dropped). */
typedef struct {
    pz_op_kind kind;
    union {
        pz_conv_params conv;
        pz_pool_params pool;
        pz_bn_params bn;
        pz_unary_params unary;
        pz_binary_params binary;
        pz_gemm_params gemm;
        pz_softmax_params softmax;
        pz_lrn_params lrn;
        pz_reduce_params reduce;
        pz_transpose_params transpose;
        pz_axis_params axis;
        pz_slice_params slice;
        pz_pad_params pad;
        pz_resize_params resize;
        pz_cast_params cast;
        pz_layernorm_params layernorm;
        /* any other kind's params (op_lowered_init copies them in): a new
         * kind needs no member here */
        _Alignas(8) unsigned char any[256];
    } p;
    size_t params_size;               /* bytes of p that matter, 0 for none */
    int n_in, n_out;
    int in[PZ_MAX_IO], out[PZ_MAX_IO];
} op_lowered;

typedef struct op_def {
    const char *name;                 /* ONNX op_type */
    const char *domain;               /* NULL: the default domain; else "ai.onnx.ml", ... */
    int min_in, max_in;               /* input count range (optional inputs included) */
    int min_out, max_out;
    size_t params_size;               /* bytes of the params struct, 0 if none */
    pz_status (*parse)(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
    pz_status (*infer)(ir_graph *g, ir_node *n, pz_err *err);
    void (*cost)(const ir_graph *g, const ir_node *n, ir_cost *c);   /* may be NULL */
    /* How the node runs: the runtime operator and its params. NULL: the op
     * only ever folds to constants (Shape, Constant, ...). */
    pz_status (*lower)(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);
    /* Optional: rewrites node i, which the runtime cannot run as one layer,
     * into runtime-sized nodes (ir_model_lower calls it on every run-time
     * node). New nodes go before i, and node i keeps its name and outputs;
     * returns how many it inserted (node i is then at i + that). NULL, or 0
     * returned: nothing to do. */
    int (*expand)(ir_graph *g, int i);
    /* Optional, for control flow (If, Loop, Scan): ir_infer calls it in place
     * of parse and infer once the node's inputs are inferred; it rewrites
     * node i into other nodes from index i on (op_inline.h), which ir_infer
     * then walks from i. It must make progress (the rewrite is bounded). */
    pz_status (*unfold)(ir_graph *g, int i, pz_err *err);
    /* Optional, with unfold: 0 when node n runs as it is (its parse and
     * infer are then called); NULL: every node of the op unfolds. */
    int (*unfolds)(const ir_graph *g, const ir_node *n);
    /* 1: lower applies the activation the passes fused into the node
     * (n->act, through op_act). Lowering refuses an act on any other op:
     * dropping it would be a silent wrong answer. */
    int takes_act;
    /* 1: the op reads sequences and optionals (op_seq.h); any other op
     * given one is refused by name (Identity copies it). */
    int takes_seq;
    /* 1: the op reads string tensors (rt/pz_strings.h); any other op given
     * one is refused by name. */
    int takes_string;
    /* 1: output 0 is input 0's bytes under another shape (Reshape, Flatten,
     * Squeeze, Unsqueeze, Identity, Dropout): lowering makes it a view of
     * its input, no layer, where the plan allows (op_lower.c). */
    int view;
    /* Or, for an op that is a view only for some nodes: 1 when node n's
     * output 0 is input 0's bytes (a Transpose that moves only dims of 1). */
    int (*view_if)(const ir_graph *g, const ir_node *n);
    /* 1: its outputs are random (RandomUniform, ...), or change per
     * iteration of a loop run at run time (LoopBegin): never folded into
     * constants at compile time, so each run computes them afresh. */
    int random;
} op_def;

/* The runtime form of the epilogue the passes fused into n (n->act). */
pz_act op_act(const ir_node *n);

/* Fills out with kind, params and the node's inputs/outputs as they are;
 * a helper for lower functions. */
void op_lowered_init(op_lowered *out, const ir_node *n, pz_op_kind kind, const void *params,
                     size_t params_size);

/* The op enum and table: one line per op in op_list.h. */
typedef enum {
#define OP(name, sym) OP_##sym,
#include "op_list.h"
#undef OP
    OP_COUNT
} op_kind;

extern const op_def *const OPS[];   /* [OP_COUNT], one per line of op_list.h */

/* The op definition for an ONNX op_type in the default domain; NULL if unsupported. */
const op_def *op_find(const char *op_type);
/* The same in another domain ("ai.onnx.ml"); NULL if unsupported. */
const op_def *op_find_in(const char *domain, const char *op_type);
op_kind op_kind_of(const op_def *op);

/* ---- helpers for op files ---------------------------------------------- */

/* Checks a's type; the error names node, op, attribute, expected and actual type. */
pz_status op_attr_expect(const ir_node *n, const ir_attr *a, ir_attr_type t, pz_err *err);
/* Attribute lookup; NULL if absent. */
const ir_attr *op_attr(const ir_node *n, const char *name);
/* Typed getters: absent -> default and PZ_OK; wrong type -> error naming node/op/attr. */
pz_status op_attr_int(const ir_node *n, const char *name, int64_t def, int64_t *out, pz_err *err);
pz_status op_attr_float(const ir_node *n, const char *name, float def, float *out, pz_err *err);
pz_status op_attr_string(const ir_node *n, const char *name, const char *def, const char **out, pz_err *err);
/* INTS into out[max]; *count = -1 when absent. Too many -> error. */
pz_status op_attr_ints(const ir_node *n, const char *name, int64_t *out, int max, int *count, pz_err *err);
pz_status op_attr_floats(const ir_node *n, const char *name, float *out, int max, int *count, pz_err *err);

/* The tensor of input i, or NULL if omitted. */
const ir_tensor *op_in(const ir_graph *g, const ir_node *n, int i);
ir_tensor *op_out(ir_graph *g, const ir_node *n, int i);
/* Adds a 1-D constant "NODE:what" of count elements of dtype (data copied)
 * for node `node` (an expand hook giving the runtime a table); its id. */
int op_add_const(ir_graph *g, int node, const char *what, int dtype, int64_t count,
                 const void *data);
/* The same for count strings: a uint8 constant of them NUL-terminated one
 * after another (the form string layers read, rt/pz_op_params.h). */
int op_add_strings_const(ir_graph *g, int node, const char *what, int count,
                         const char *const *s);
/* A Pad node of mode constant: its begin and end pads per dim of X (rank
 * entries each) and its fill value; fails naming the node when another mode,
 * or the pads or value are not constants (the graph passes fold it). */
pz_status op_pad_constant(const ir_graph *g, const ir_node *n, int64_t *begin, int64_t *end,
                          double *value, pz_err *err);
/* Input i if present and constant (data known), else NULL. */
const ir_tensor *op_in_const(const ir_graph *g, const ir_node *n, int i);

/* The error for input i of n that must be a constant (a shape, axes, a
 * bound) but is computed at run time: PZ_ERR_UNSUPPORTED, naming node, op,
 * input and value, `why` said after; records the value in err->need_const. */
pz_status op_need_const(pz_err *err, const ir_graph *g, const ir_node *n, int i, const char *what,
                        const char *why);

/* Reads a constant integer tensor (int32/int64, rank <= 1) into out[max];
 * fails naming the node, op and `what` if it is not constant or too long. */
pz_status op_const_ints(const ir_graph *g, const ir_node *n, int i, const char *what,
                        int64_t *out, int max, int *count, pz_err *err);

/* Whether input i, which shapes an output, is read at run time: present,
 * not a constant, g->rt_shapes, an integer vector of a compile-time length
 * (at most max entries: *count). 0: op_const_ints applies (and asks). */
int op_rt_ints(const ir_graph *g, const ir_node *n, int i, int max, int *count);

/* op_rt_ints, also for a value of a run-time shape (ir_value.dyn: computed
 * in a loop's body, say), its planned length taken as the run's: only for
 * a layer that checks the length it reads (VIEW: Expand, Tile). */
int op_rt_ints_dyn(const ir_graph *g, const ir_node *n, int i, int max, int *count);

/* An upper bound of element k of integer vector value v that the run
 * computes (a shape), traced through what exporters build shapes from: a
 * Concat of pieces, Unsqueeze, Squeeze, Cast, Identity, Gather of constant
 * indices, Shape of a value (its planned dims are its bounds), constants;
 * -1 when not known. */
int64_t op_rt_int_bound(const ir_graph *g, int v, int64_t k);

/* Element k of integer vector value v when the run always computes the
 * same (op_rt_int_bound's trace, Shape giving op_dim_fixed); OP_INT_UNKNOWN
 * when not known. */
#define OP_INT_UNKNOWN INT64_MIN
int64_t op_rt_int_known(const ir_graph *g, int v, int64_t k);

/* Dim d of value v when the same at every run (any dim of a value without
 * a run-time shape; of one with, traced through its producers: a
 * NonZero's rank rows, a Gather's constant indices, ...); else -1. */
int64_t op_dim_fixed(const ir_graph *g, int v, int d);

/* Outputs of node i that are small integer vectors whose every entry is
 * known (op_rt_int_known) become constants: a test of a dim fixed at every
 * run folds, and the If it drives. */
void op_fold_known(ir_graph *g, int i);

/* Sets output i's dtype and shape. */
void op_set_out(ir_graph *g, const ir_node *n, int i, int dtype, int rank, const int64_t *dims);
/* Output i has a run-time shape (ir_value.dyn): its dims are the bound. */
void op_set_dyn(ir_graph *g, const ir_node *n, int i);
/* Output i has no compile-time bound (ir_value.rt_alloc): its dims are a
 * placeholder, the net allocates it at run time. */
void op_set_rt_alloc(ir_graph *g, const ir_node *n, int i);
/* Output i gets input j's dtype and shape. */
void op_same_as(ir_graph *g, const ir_node *n, int i, int j);

/* Normalises axis in [-rank, rank) (or [-rank-1, rank] if `inclusive`); error names node/op/attr. */
pz_status op_axis(const ir_node *n, const char *attr, int64_t axis, int rank, int inclusive,
                  int *out, pz_err *err);

/* Multidirectional (numpy) broadcast of a and b into out; error on mismatch,
 * except in a dynamic region (g given, an input of n has ir_value.dyn): the
 * larger dim, the run checks the actual ones. */
pz_status op_broadcast(const ir_graph *g, const ir_node *n, const ir_tensor *a,
                       const ir_tensor *b, ir_tensor *out, pz_err *err);

/* Checks that dims are non-negative and their product fits; names node/op. */
pz_status op_check_dims(const ir_node *n, int rank, const int64_t *dims, pz_err *err);

/* Constant indices idx of n (a Gather, a Scatter) in [-d, d) of their
 * axis: entry e for axis axis0 + e % k of size dims[e % k] (k = 1: all for
 * axis0, of size dims[0]); else an error naming node, entry and axis. Data
 * (input 0) of a run-time shape, or idx not constant: the run checks them. */
pz_status op_check_indices(const ir_graph *g, const ir_node *n, const ir_tensor *idx, int k,
                           const int64_t *dims, int axis0, pz_err *err);
/* The same for constant values t (input `what` of n) that must lie in
 * [lo, hi]: RoiAlign's batch_indices, ReverseSequence's lengths, ... An
 * input of n of a run-time shape, or t not constant: the run checks them. */
pz_status op_check_span(const ir_graph *g, const ir_node *n, const ir_tensor *t,
                        const char *what, int64_t lo, int64_t hi, pz_err *err);

/* Standard errors. */
/* "node "X" (Conv): attribute 'pads': <msg>"  -> PZ_ERR_INPUT */
pz_status op_err_attr(pz_err *err, const ir_node *n, const char *attr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "node "X" (Conv): <msg>"  -> PZ_ERR_INPUT */
pz_status op_err(pz_err *err, const ir_node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
