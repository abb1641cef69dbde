/* op_seq.h - sequences and optionals, known at compile time.
 *
 * A sequence is a list of tensors whose length the compiler knows once its
 * producer is unfolded; an optional is "empty or one value". In the IR such a
 * value (ir_value.kind IR_KIND_SEQ or IR_KIND_OPT) is the output of a node
 * whose inputs are its elements: SequenceConstruct or SequenceEmpty, and
 * Optional (none or one input). The other sequence ops unfold (op.h's
 * unfold) into the tensor ops they stand for: SequenceAt -> Identity of one
 * element, ConcatFromSequence -> Concat, SplitToSequence -> Slices,
 * SequenceInsert/Erase -> a new SequenceConstruct, SequenceLength and
 * OptionalHasElement -> constants, SequenceMap -> its body per element. The
 * container nodes do nothing at run time: when inference is done, graph
 * outputs that are containers become their elements (ir_graph.out_groups)
 * and the container nodes go (op_seq_outputs, op_seq_drop). */
#ifndef PZ_OPS_OP_SEQ_H
#define PZ_OPS_OP_SEQ_H

#include "op.h"

/* The elements of input i of n, which must be a sequence (*elems points into
 * its producer's inputs: copy it before editing the graph); fails naming the
 * node and the input otherwise. */
pz_status op_seq_elems(const ir_graph *g, const ir_node *n, int i, const int **elems, int *count,
                       pz_err *err);

/* The SplitToSequence node whose run-time-length sequence (split_to_
 * sequence.c: no split over an axis of a run-time length, or a scalar
 * split read at run time) is input i of n, or NULL when input i is no
 * such sequence. Its readers read X instead. */
const ir_node *op_seq_split_rt(const ir_graph *g, const ir_node *n, int i);

/* Such a node's X, its axis (normalized), keepdims (1 with a split) and
 * its split (-1 without). */
pz_status op_seq_split_args(const ir_graph *g, const ir_node *sp, int *x, int *ax, int *keep,
                            int *split, pz_err *err);

/* Of a scalar split read at run time (op_seq_split.c), appended to g:
 * step: [s] (1-D int64) after a check named "<sp_name>/split_must_be_
 * positive" that fails the run for s <= 0; count: [ceil(X.dims[ax] / s)];
 * at: the piece at position pos (a scalar), Slice(X, p s, p s + s) along
 * ax, after a check named "<name>/position_must_be_in_the_sequence" (-count
 * <= pos < count); vec1: v as a 1-D int64 [1]. Each returns its value. */
int op_seq_split_step(ir_graph *g, const char *sp_name, int split);
int op_seq_split_count(ir_graph *g, const char *name, int x, int ax, int s);
int op_seq_split_at(ir_graph *g, const char *name, int x, int ax, int s, int pos);
int op_seq_i64_vec1(ir_graph *g, const char *name, int v);

/* The position of input i of n (a constant int32/int64 scalar, or `def`
 * when omitted) in a sequence of `count` elements: in [-count, count - 1],
 * or [-count, count] if `inclusive` (an insertion point); negative counts
 * from the end. Fails naming the node when out of range. */
pz_status op_seq_pos(const ir_graph *g, const ir_node *n, int i, int64_t def, int count,
                     int inclusive, int64_t *pos, pz_err *err);

/* Copies count ids (count may be 0) into a new array (pz_xmalloc). */
int *op_ids_dup(const int *ids, int count);

/* Node i becomes SequenceConstruct(elems) of element type dt (ir_infer
 * then infers it). */
void op_seq_rewrite(ir_graph *g, int i, const int *elems, int count, ir_dtype dt);

/* Output 0 of n becomes a container of `kind` whose elements are dt. */
void op_set_container(ir_graph *g, const ir_node *n, int kind, ir_dtype dt);

/* ir_infer's check of node i's inputs before it infers it: a sequence or an
 * optional read by an op that takes only tensors is an error naming the
 * node, except Identity, which becomes a copy of the container's producer
 * (*again = 1: walk node i again). */
pz_status op_seq_reads(ir_graph *g, int i, int *again, pz_err *err);

/* Graph outputs that are containers become their elements, each written by
 * an Identity appended to g (ir_infer infers them), and g->out_groups says
 * how they group. Nothing to do (out_groups stays NULL) without one. */
pz_status op_seq_outputs(ir_graph *g, pz_err *err);

/* Removes the container nodes (nothing reads them once the outputs are
 * flattened and every sequence op is unfolded). */
void op_seq_drop(ir_graph *g);

#endif
