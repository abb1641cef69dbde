/* op_inline.h - control flow by rewriting the graph at compile time.
 *
 * If, Loop and Scan carry subgraphs. Shape inference (ir_infer) reaches such
 * a node with everything before it inferred and folded, and calls the op's
 * unfold hook, which replaces the node by the nodes of its subgraph(s):
 *   - If with a condition known at compile time: the taken branch; otherwise
 *     both branches and a Where per output (both are computed: they are pure);
 *   - Loop: one iteration of the body per unfold, while the trip count and
 *     the condition are known at compile time; one read at run time (a
 *     graph input nothing binds) keeps the loop: its body inlined once
 *     between a LoopBegin and a LoopEnd, which the runtime runs per
 *     iteration (loop.c, rt/ops/loop.c);
 *   - Scan: the body once per element of the scanned axis.
 * Other ops unfold the same way into the nodes of their definition (the
 * training ops, Bernoulli, Dropout in training, FlexAttention with graph
 * attributes); op_def.unfolds says which of an op's nodes do.
 * The result is a static graph that the passes, the fusion strategies and the
 * code generator handle like any other. Unrolling has a bound
 * (OP_UNROLL_MAX_NODES); beyond it the node is refused by name. */
#ifndef PZ_OPS_OP_INLINE_H
#define PZ_OPS_OP_INLINE_H

#include "op.h"

/* The graph may grow to this many nodes by unrolling. */
#define OP_UNROLL_MAX_NODES 200000
/* A Loop or Scan may be unrolled this many times (bodies may be empty). */
#define OP_UNROLL_MAX_ITERS 65536

/* The GRAPH attribute `name` of n; fails naming node, op and attribute. */
pz_status op_attr_graph(const ir_node *n, const char *name, const ir_graph **out, pz_err *err);

/* Appends the nodes of `sub` to g (ir_graph_move_tail puts them in place):
 * sub's formal input k reads args[k] (a value of g; n_args must equal sub's
 * input count), its constants become constants of g, the values it defines
 * get fresh names "<prefix>/<name>", and the names it reads without defining
 * resolve to g's values of that name (the enclosing scope; nested subgraphs
 * are renamed to match). outs[k] receives the value of g that sub's output k
 * is. The owner node and attribute name the errors. */
pz_status op_inline(ir_graph *g, const ir_node *owner, const char *attr, const ir_graph *sub,
                    const char *prefix, const int *args, int n_args, int *outs, pz_err *err);

/* A new constant of g named `base` (made unique): dtype, shape and data. */
int op_new_const(ir_graph *g, const char *base, ir_dtype dtype, int rank, const int64_t *dims,
                 const void *data);

/* Appends a node (op_type of the default domain) reading ins and writing
 * outs (values of g; -1 for omitted); returns its index. */
int op_append_node(ir_graph *g, const char *name, const char *op_type, const int *ins, int n_in,
                   const int *outs, int n_out);

/* Appends Unsqueeze(x, axis) (axes an attribute or an input, by opset) and
 * returns its output value. */
int op_append_unsqueeze(ir_graph *g, const char *name, int x, int64_t axis);

/* Appends Unsqueeze(parts[t], axis) for t < n and their Concat along axis
 * (names "<name>/<t>" and name); returns the stacked value. */
int op_append_stack(ir_graph *g, const char *name, const int *parts, int64_t n, int64_t axis);

/* The infer hook of the ops that unfold: never called (ir_infer calls
 * unfold instead); fails as an internal error if it is. */
pz_status op_unfold_only(ir_graph *g, ir_node *n, pz_err *err);

/* Node i becomes op_type reading ins, keeping only its output `keep` (its
 * name stays; attributes and params go). */
void op_node_rewrite(ir_graph *g, int i, const char *op_type, const int *ins, int n_in, int keep);

/* The nodes appended since index `start` go before node i, and node i then
 * gives its outputs src[k] (op_become_identities). */
void op_replace_by_tail(ir_graph *g, int i, int start, const int *src);

/* Node i gives each of its outputs k the value src[k]: it becomes
 * Identity(src[0]) and Identity nodes are inserted after it for the others
 * (omitted outputs are skipped; with none left, node i is removed). Returns
 * how many were inserted after i. */
int op_become_identities(ir_graph *g, int i, const int *src);

#endif
