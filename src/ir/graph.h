/* graph.h - the high-level IR: a graph of layer nodes and data nodes.
 *
 * This is the graph of Song et al.: data nodes (ir_value, a tensor with a
 * name, a type and a shape, possibly with constant contents) and layer nodes
 * (ir_node, one ONNX operator applied to data nodes). Nodes are kept in
 * topological order once ir_graph_sort() has run; every later stage (shape
 * inference, cost, passes, lowering to F-Blocks) walks them in that order.
 *
 * Ownership: the graph owns every string, array and constant payload it
 * points to; ir_graph_free() releases all of it.
 *
 *   ir_graph *g = ir_graph_new();
 *   int x = ir_graph_add_value(g, "x");
 *   ...
 *   ir_graph_free(g);
 */
#ifndef PZ_IR_GRAPH_H
#define PZ_IR_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "dtype.h"

#define IR_MAX_RANK 8

/* A tensor's type, shape and (for constants) contents. rank < 0: unknown. */
typedef struct {
    ir_dtype dtype;
    int rank;
    int64_t dims[IR_MAX_RANK];
    void *data;      /* little-endian packed elements, or NULL if not constant */
    size_t nbytes;   /* bytes at data */
} ir_tensor;

/* Data node. */
typedef struct {
    char *name;
    ir_tensor t;
    unsigned is_input : 1;        /* a runtime graph input */
    unsigned is_output : 1;       /* a graph output */
    unsigned is_initializer : 1;  /* weights from the model file */
    unsigned owns_data : 1;       /* t.data is ours to free */
    /* IR_KIND_SEQ, IR_KIND_OPT: a sequence or an optional, known at compile
     * time: its producer (SequenceConstruct, Optional) reads its elements (an
     * optional: none or one), t is the elements' type with rank 0. */
    unsigned kind : 2;
    /* 1: a run-time shape (NonZero, Unique, Compress, NonMaxSuppression): t's
     * dims are a bound the arena is planned for; the layer sets the actual
     * dims when it runs. Only a graph output may be one (op_infer.c). */
    unsigned dyn : 1;
    /* 1 (with dyn): no compile-time bound (Expand of a shape read at run
     * time, Range, ..., and what follows from it in the region): t's dims are
     * a placeholder (the run-time values taken as no change) and the net
     * allocates the value when it runs (rt/exec.c). */
    unsigned rt_alloc : 1;
    int producer;                 /* node index, -1 for inputs and constants */
    /* What the model declares for a graph output (value_info); rank -1: nothing,
     * a dim of -1: symbolic. Checked against the inferred shape. */
    ir_dtype decl_dtype;
    int decl_rank;
    int64_t decl_dims[IR_MAX_RANK];
} ir_value;

enum { IR_KIND_TENSOR = 0, IR_KIND_SEQ = 1, IR_KIND_OPT = 2 };

/* A graph output that is a sequence or an optional (ir_graph.out_groups):
 * kept as its elements, outputs[first .. first + n), one tensor each. The
 * same form describes such a graph input (ir_graph.in_groups): its elements
 * are the given tensors first .. first + n - 1 (input_pos values). */
typedef struct {
    char *name;                 /* the model's output name */
    int kind;                   /* IR_KIND_TENSOR (n = 1), IR_KIND_SEQ, IR_KIND_OPT (n 0 or 1,
                                 * or an optional holding a sequence: inner IR_KIND_SEQ) */
    int inner;                  /* IR_KIND_OPT: what it holds (IR_KIND_TENSOR or IR_KIND_SEQ;
                                 * an empty one holds nothing: IR_KIND_TENSOR with n = 0) */
    int first, n;
} ir_out_group;

/* Attribute types: the numbering of onnx.AttributeProto.AttributeType. */
typedef enum {
    IR_ATTR_UNDEFINED = 0,
    IR_ATTR_FLOAT = 1,
    IR_ATTR_INT = 2,
    IR_ATTR_STRING = 3,
    IR_ATTR_TENSOR = 4,
    IR_ATTR_GRAPH = 5,
    IR_ATTR_FLOATS = 6,
    IR_ATTR_INTS = 7,
    IR_ATTR_STRINGS = 8,
    IR_ATTR_TENSORS = 9,
    IR_ATTR_GRAPHS = 10,
    IR_ATTR_SPARSE_TENSOR = 11,
    IR_ATTR_SPARSE_TENSORS = 12,
    IR_ATTR_TYPE_PROTO = 13,
    IR_ATTR_TYPE_PROTOS = 14,
} ir_attr_type;

typedef struct {
    char *name;
    ir_attr_type type;
    float f;
    int64_t i;
    char *s;           /* NUL-terminated copy of a STRING */
    int n;             /* element count of FLOATS / INTS / STRINGS */
    float *floats;
    int64_t *ints;
    char **strings;
    ir_tensor *t;      /* TENSOR (owned, data owned) */
    struct ir_graph *g; /* GRAPH (owned): a subgraph of If, Loop, Scan; its values
                         * that nothing in it defines are read from the enclosing
                         * graphs, by name */
} ir_attr;

/* What a layer costs: DLFusion Eq. 1 and 2, generalised. */
typedef struct {
    int64_t macs;       /* multiply-accumulates (Conv, ConvTranspose, Gemm, MatMul) */
    int64_t params;     /* elements of constant inputs (weights, biases) */
    int64_t bytes_in;   /* activation bytes read (non-constant inputs) */
    int64_t bytes_out;  /* activation bytes written */
    int64_t c_in;       /* input channels (dim 1 of the first input), 0 if n/a */
    int64_t c_out;      /* output channels (dim 1 of the first output), 0 if n/a */
} ir_cost;

struct op_def;

/* An activation fused into the node that produces its input (graph passes):
 * applied to output 0 last, after bias and residual. */
/* GELU (lo 1: the tanh form) and the kinds from LEAKY_RELU to TANH: Conv, Gemm, MatMul
 * only (the unary functions of the same names; pz_act_kind's order); PRELU:
 * Conv, Gemm, MatMul, its slopes (one per output channel of a Conv, per
 * column of a Gemm or MatMul) the node's input 4;
 * SELECT: Conv, Gemm, MatMul only (pz_act's Where, select.c); ELU, SELU,
 * SOFTPLUS, MISH: Conv, Gemm, MatMul only (pz_act's). */
typedef enum {
    IR_ACT_NONE, IR_ACT_RELU, IR_ACT_CLIP, IR_ACT_GELU, IR_ACT_LEAKY_RELU, IR_ACT_SIGMOID,
    IR_ACT_SWISH, IR_ACT_HARD_SIGMOID, IR_ACT_HARD_SWISH, IR_ACT_TANH, IR_ACT_PRELU,
    IR_ACT_SELECT, IR_ACT_ELU, IR_ACT_SELU, IR_ACT_SOFTPLUS, IR_ACT_MISH, IR_ACT_COUNT_
} ir_act_kind;
typedef struct {
    ir_act_kind kind;
    float lo, hi;               /* CLIP bounds, lo <= hi; LEAKY_RELU, SWISH alpha = lo;
                                 * HARD_SIGMOID alpha, beta = lo, hi; ELU alpha = lo;
                                 * GELU lo 1: the tanh form;
                                 * SELU alpha, gamma = lo, hi; SELECT: pz_act's */
    float t;                    /* SELECT: the threshold */
    int cmp, sel;               /* SELECT: pz_act's (a pz_compare_func; the constant branches) */
} ir_act;

/* Layer node: one operator applied to data nodes. */
typedef struct {
    char *name;                 /* ONNX node name, or a generated one */
    char *op_type;              /* as written in the model */
    char *domain;               /* "" for the default domain */
    const struct op_def *op;    /* NULL until resolved */
    int n_in, n_out;
    int *in;                    /* value ids; -1 for an omitted optional input */
    int *out;                   /* value ids; -1 for an omitted optional output */
    int n_attrs;
    ir_attr *attrs;
    void *params;               /* op-specific parsed attributes (owned) */
    ir_cost cost;
    ir_act act;                 /* epilogue fused by the passes (Conv, Gemm, Add) */
    /* Control flow's progress while it is unfolded (op_inline.h): 0 on the
     * first visit; what it counts is the op's (Loop: iterations done). Kept
     * out of the attributes, which the model writes. */
    int64_t unfold_k;
    /* 1 + the value id of the condition of the If whose branches were both
     * inlined (its condition unknown at compile time) that this node comes
     * from, the outermost one; 0 for none. A branch that does not infer then
     * asks for that condition to be bound. */
    int branch_of;
} ir_node;

typedef struct ir_graph {
    char *name;
    char *producer;             /* producer_name and version, for the generated header */
    int64_t ir_version;
    int opset;                  /* version of the default ("" / "ai.onnx") domain */
    /* 1: an input that shapes an output (Slice's starts, Reshape's shape, a
     * reduction's axes) and is not a constant is read at run time
     * (op_rt_ints); 0: it must be a constant (op_need_const asks the loader,
     * which binds it from the given inputs, and sets this when it cannot). */
    int rt_shapes;
    ir_value *values;
    int n_values, cap_values;
    ir_node *nodes;
    int n_nodes, cap_nodes;
    int *inputs;                /* runtime inputs (not initializers), in model order */
    int n_inputs;
    /* input_pos[i]: inputs[i]'s position among the model's non-initializer
     * inputs (the order of `--input` files). It differs from i when an
     * earlier input was bound to a value at load time (onnx_load_opts). */
    int *input_pos;
    int n_model_inputs;         /* the model's non-initializer inputs, bound ones too */
    int *outputs;
    int n_outputs;
    /* NULL, or the model's outputs when one is a sequence or an optional
     * (n_out_groups of them; outputs then holds their elements in order) */
    ir_out_group *out_groups;
    int n_out_groups;
    /* The model's inputs that are sequences or optionals, in model order
     * (NULL without one): the generated program's interface groups their
     * element inputs back (gen_emit_io_tables) */
    ir_out_group *in_groups;
    int n_in_groups;
    /* name -> value id, open addressing */
    int *hash;
    int hash_cap;
} ir_graph;

ir_graph *ir_graph_new(void);
void ir_graph_free(ir_graph *g);

/* Finds a value by name; -1 if absent. */
int ir_graph_find(const ir_graph *g, const char *name);
/* Adds a data node with the given name (must be new); returns its id. */
int ir_graph_add_value(ir_graph *g, const char *name);
/* Finds or adds. */
int ir_graph_value(ir_graph *g, const char *name);
/* Appends a layer node with n_in/n_out slots set to -1; returns its index. */
int ir_graph_add_node(ir_graph *g, const char *name, const char *op_type,
                      const char *domain, int n_in, int n_out);
void ir_graph_add_input(ir_graph *g, int vid);   /* at position n_inputs */
void ir_graph_add_input_at(ir_graph *g, int vid, int pos);
void ir_graph_add_output(ir_graph *g, int vid);
/* Appends to g->in_groups: the input `name` is a container of `kind` whose
 * elements are the given tensors first .. first + n - 1. */
void ir_graph_add_in_group(ir_graph *g, const char *name, int kind, int inner, int first, int n);

/* Orders nodes topologically (stable: model order where free). Fails, naming
 * a node on the cycle, if the graph has a cycle; fails naming the node and
 * the input if a node reads a value that nothing produces. */
pz_status ir_graph_sort(ir_graph *g, pz_err *err);

/* Removes nodes in `dead` (1 = remove) and values nothing refers to. */
void ir_graph_compact(ir_graph *g, const unsigned char *dead);

/* ---- editing (graph passes, lowering) ------------------------------------ */

/* Adds a data node named `base`, or `base:1`, `base:2`, ... if that name is
 * taken; returns its id. */
int ir_graph_add_value_unique(ir_graph *g, const char *base);
/* How many node inputs read value vid (a node reading it twice counts 2). */
int ir_graph_count_uses(const ir_graph *g, int vid);
/* Every node input that reads `from` reads `to` instead. */
void ir_graph_replace_uses(ir_graph *g, int from, int to);
/* Inserts a layer node at index `at` (0..n_nodes; the nodes from `at` on move
 * up by one, and value producers are renumbered); slots set to -1 as in
 * ir_graph_add_node. Pointers into g->nodes are invalid afterwards. */
int ir_graph_insert_node(ir_graph *g, int at, const char *name, const char *op_type,
                         const char *domain, int n_in, int n_out);
/* A deep copy of g: rt_shapes, values (constants' data too), nodes with
 * their attributes (nested subgraphs too), acts, unfold progress and If
 * branches, inputs, outputs. Params and costs are not copied: ir_infer
 * makes them. */
ir_graph *ir_graph_clone(const ir_graph *g);
/* Gives value vid a new name (not used in g). */
void ir_graph_rename_value(ir_graph *g, int vid, const char *name);
/* A deep copy of attribute src (subgraphs too) into dst. */
void ir_attr_copy(ir_attr *dst, const ir_attr *src);
/* Removes node i (its outputs lose their producer); the nodes after it
 * move down. Pointers into g->nodes are invalid afterwards. */
void ir_graph_remove_node(ir_graph *g, int i);
/* Moves the nodes from index `first` to the end (just appended) to index
 * `at` (<= first), in one pass; the nodes from `at` on move up, and value
 * producers are renumbered. Pointers into g->nodes are invalid afterwards. */
void ir_graph_move_tail(ir_graph *g, int first, int at);
/* Drops node n's attributes; adds an INT attribute to node n. */
void ir_node_clear_attrs(ir_node *n);
void ir_node_add_attr_int(ir_node *n, const char *name, int64_t v);
void ir_node_add_attr_float(ir_node *n, const char *name, float v);
/* Grows or shrinks node n's input slots to n_in (new slots are -1). */
void ir_node_set_n_in(ir_node *n, int n_in);

/* Tensor helpers. */
int64_t ir_tensor_numel(const ir_tensor *t);
/* numel * element size, checked for overflow; fails naming `what`. */
pz_status ir_tensor_bytes(const ir_tensor *t, size_t *out, const char *what, pz_err *err);
/* "1x3x224x224", or "?" for unknown; returns buf. */
char *ir_shape_str(const ir_tensor *t, char *buf, size_t size);
void ir_tensor_free_data(ir_tensor *t);

/* Makes `vid` a constant holding a copy of `data` (nbytes must match its shape). */
void ir_value_set_data(ir_graph *g, int vid, const void *data, size_t nbytes);
/* The same without a copy: the value takes data (from pz_xmalloc) over. */
void ir_value_take_data(ir_graph *g, int vid, void *data, size_t nbytes);

#endif
