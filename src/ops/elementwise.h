/* elementwise.h - shape inference and constant folding shared by the
 * element-wise ops (unary activations, binary arithmetic with broadcasting). */
#ifndef PZ_OPS_ELEMENTWISE_H
#define PZ_OPS_ELEMENTWISE_H

#include "op.h"

/* Constants up to this many elements are folded at compile time. */
#define OP_FOLD_MAX 65536

/* Output 0 = input 0's type and shape; input must be floating point. */
pz_status op_unary_float_infer(ir_graph *g, ir_node *n, pz_err *err);

/* Binary op on doubles (floats) and on int64 (integers), for folding. */
typedef struct {
    double (*f)(double a, double b);
    int64_t (*i)(int64_t a, int64_t b);   /* NULL: integers not folded */
} op_binary_fn;

/* Multidirectional broadcast of all inputs (Add..Pow: 2, Max/Min: 1 or more).
 * Types must agree (Pow excepted: `same_type` 0). Folds constants with fn. */
pz_status op_broadcast_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                             pz_err *err);

#endif
