/* op_train.h - what the training ops (Adagrad, Momentum, Adam; domain
 * ai.onnx.preview.training) share: each unfolds at compile time (op_inline.h)
 * into the element-wise nodes of its update rule, which then infer and run
 * as any others. A small builder appends those nodes. */
#ifndef PZ_OPS_OP_TRAIN_H
#define PZ_OPS_OP_TRAIN_H

#include "op.h"

typedef struct {
    ir_graph *g;
    char *name;   /* the training node's name: the new nodes are "<name>/k" */
    int k;
} op_train_builder;

/* Appends op_type(a) or op_type(a, b) (b < 0: unary) and returns its output. */
int op_train_node(op_train_builder *b, const char *op_type, int a, int c);
/* A float32 scalar constant. */
int op_train_scalar(op_train_builder *b, float v);
/* Cast(v) to float32. */
int op_train_float(op_train_builder *b, int v);
/* Where(T > 0, yes, no): T the int64 iteration count. */
int op_train_if_t_positive(op_train_builder *b, int t, int yes, int no);

/* The shared checks: R a float32 scalar, T an int64 scalar, and n_in = 2 +
 * groups * n, n_out = outs * n; *n the tensors updated. */
pz_status op_train_check(const ir_graph *g, const ir_node *n, int groups, int outs, int *cnt,
                         pz_err *err);

/* A copy of n's input ids (malloc'd): n moves as nodes are appended. */
int *op_train_inputs(const ir_node *n);

/* Rewrites node i into the nodes appended from `start`, its outputs src. */
void op_train_finish(op_train_builder *b, int i, int start, const int *src);

#endif
