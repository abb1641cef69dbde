/* passes_internal.h - what the passes share: one function per pass, and
 * the question every fusion asks (who reads this value?). */
#ifndef PZ_PASSES_INTERNAL_H
#define PZ_PASSES_INTERNAL_H

#include "../ops/op.h"
#include "passes.h"

/* The one node that reads vid, and in which input slot; -1 if no node or
 * more than one reads it (a node reading it twice counts twice), or vid is
 * a graph output. */
int pass_sole_reader(const ir_graph *g, int vid, int *slot);

/* The live node that writes value vid (as its output 0), or -1. */
int pass_writer(const ir_graph *g, int vid, const unsigned char *dead);

/* The live node that alone reads node n's output 0 (slot in *slot), when
 * it is of op kind k; else -1. */
int pass_reader_of(const ir_graph *g, const ir_node *n, op_kind k, const unsigned char *dead,
                   int *slot);

/* Marks node i dead and detaches it: it reads and writes nothing, so that
 * reader counts see only the live nodes. */
void pass_kill(ir_graph *g, int i, unsigned char *dead);

/* Turns node n into an op of kind k, its parameters parsed again from its
 * attributes; 0 (n unchanged) when they do not parse. */
int pass_become(ir_graph *g, ir_node *n, op_kind k);

/* Whether node n is of op kind k. */
int pass_is(const ir_node *n, op_kind k);

/* Whether node n is plain: it carries no state an earlier pass fused into
 * it (no act; no inputs beyond its op's own, like a Conv's Z or a MatMul's
 * bias), and no output but output 0 is read or a graph output (outputs
 * infer folded into constants excepted: they stay as constants). A pass
 * kills or rewrites only plain nodes, so that it cannot drop what they
 * carry; the one node a fusion keeps may carry state where the fusion
 * says so (an epilogue's producer). */
int pass_plain(const ir_graph *g, const ir_node *n);

/* Clip node n's bounds if they are known now: attributes before opset 11,
 * constant scalar inputs from 11; omitted = unbounded. 0 if not known or
 * lo > hi. */
int pass_clip_bounds(const ir_graph *g, const ir_node *n, float *lo, float *hi);

/* Whether every output of node n is a constant (folded by infer: Shape
 * and its arithmetic); such nodes never run and go after the passes. */
int pass_folded(const ir_graph *g, const ir_node *n);

/* Whether a and b have the same element type and the same known shape. */
int pass_same_shape(const ir_tensor *a, const ir_tensor *b);

/* Each pass walks the sorted nodes once and marks the nodes it removes in
 * dead[] (their work now done by another node); passes.c compacts. */
void pass_eliminate(ir_graph *g, unsigned char *dead, passes_stats *st);
/* Walks again until a walk merges nothing (cse.c). */
void pass_cse(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_pad_fold(ir_graph *g, unsigned char *dead, passes_stats *st);
pz_status pass_fold_bn(ir_graph *g, unsigned char *dead, passes_stats *st, pz_err *err);
void pass_epilogues(ir_graph *g, unsigned char *dead, passes_stats *st);
/* Where(Cmp(y, c), A, B) (or Mul(Cast(Cmp(y, c)), y)) after node i, a Conv,
 * Gemm or linear MatMul writing y, into its act (select.c); 1 if it did. */
int pass_fuse_select(ir_graph *g, int i, unsigned char *dead, passes_stats *st);
/* Cmp(y, c) [-> Not] read as bool after node i: node i writes the bool
 * (its act SELECT carrying the comparison, c per channel its input 4;
 * select.c); 1 if it did. */
int pass_fuse_mask(ir_graph *g, int i, unsigned char *dead, passes_stats *st);
void pass_gates(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_shuffles(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_norms(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_attention(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_qkv_slices(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_qdq(ir_graph *g, unsigned char *dead, passes_stats *st);
void pass_qdyn(ir_graph *g, unsigned char *dead, passes_stats *st);
/* Inserts nodes (a Split per group): *dead grows with the graph. */
pz_status pass_concat(ir_graph *g, unsigned char **dead, passes_stats *st);

#endif
