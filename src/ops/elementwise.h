/* elementwise.h - shape inference and constant folding shared by the
 * element-wise ops (unary activations, binary arithmetic with broadcasting).
 *
 *   static const op_binary_fn sub_fn = {sub_f, sub_i};
 *   static pz_status sub_infer(ir_graph *g, ir_node *n, pz_err *err)
 *   {
 *       return op_arith_infer(g, n, 1, &sub_fn, err);
 *   }
 */
#ifndef PZ_OPS_ELEMENTWISE_H
#define PZ_OPS_ELEMENTWISE_H

#include "op.h"

/* Constants up to this many elements are folded at compile time. */
#define OP_FOLD_MAX 65536

/* Output 0 = input 0's type and shape; input must be floating point. */
pz_status op_unary_float_infer(ir_graph *g, ir_node *n, pz_err *err);

/* A FLOAT attribute that must be finite (activation coefficients);
 * absent -> def. Errors name the node, op and attribute. */
pz_status op_attr_finite(const ir_node *n, const char *name, float def, float *out, pz_err *err);

/* Binary op on doubles (floats) and on int64 (integers), for folding. */
typedef struct {
    double (*f)(double a, double b);
    int64_t (*i)(int64_t a, int64_t b);   /* NULL: integers not folded; must be
                                             defined for every a, b (no UB) */
    /* f NULL: floats (and bool) not folded */
} op_binary_fn;

/* Multidirectional broadcast of all inputs (Add..Pow: 2, Max/Min: 1 or more).
 * Types must agree (Pow excepted: `same_type` 0). Folds constants with fn:
 * on int64 when every input is an integer type, else on doubles (stored
 * into the output type with saturation). */
pz_status op_broadcast_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                             pz_err *err);

/* Add, Sub, Mul, Div, Pow: two numeric (not bool) inputs; for opset < 7 also
 * the legacy `broadcast`/`axis` attributes: without broadcast=1 the shapes
 * must be equal, with it B is broadcast into A's shape, its dims matched to
 * A's from `axis` on (default: the trailing dims). */
pz_status op_arith_infer(ir_graph *g, ir_node *n, int same_type, const op_binary_fn *fn,
                         pz_err *err);

/* op_arith_infer without the numeric check (the caller checks the types:
 * Equal takes bool, And only bool): two inputs broadcast the same way
 * (legacy attributes included), output 0 of type out_dtype (-1: input 0's;
 * IR_BOOL for the comparisons, whose fn gives 0 or 1). */
pz_status op_binary_infer(ir_graph *g, ir_node *n, int same_type, int out_dtype,
                          const op_binary_fn *fn, pz_err *err);

/* Softmax, LogSoftmax: `axis` (default 1 before opset 13, -1 from 13),
 * normalised into [0, rank). Before opset 13 the input is viewed as 2-D,
 * [prod(dims[:axis]), prod(dims[axis:])], and the op runs over each row; from
 * 13 it runs along the one axis. The output has the input's shape either way. */
typedef struct {
    int axis;
    int coerce_2d;   /* opset < 13 semantics */
} op_softmax_params;

pz_status op_softmax_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);

/* The UNARY math ops (Neg, Abs, Exp, ..., Shrink): one runtime function with
 * its coefficients, and the element types ONNX gives the op. Their parse
 * fills this (op_unary_math_set), infer and lower are shared:
 *
 *   static pz_status neg_parse(const ir_graph *g, const ir_node *n, void *params,
 *                              pz_err *err)
 *   {
 *       return op_unary_math_set(params, PZ_UN_NEG, OP_TYPES_SIGNED, 0, 0);
 *   }
 *   ... .params_size = sizeof(op_unary_math), .parse = neg_parse,
 *       .infer = op_unary_math_infer, .lower = op_unary_math_lower */
typedef enum {
    OP_TYPES_FLOAT,     /* float16, bfloat16, float, double */
    OP_TYPES_SIGNED,    /* and int8..int64 */
    OP_TYPES_NUMERIC,   /* and uint8..uint64 */
} op_types;

typedef struct {
    pz_unary_params rt;
    op_types types;
} op_unary_math;

pz_status op_unary_math_set(void *params, pz_unary_func func, op_types types, float alpha,
                            float beta);

/* Output 0 = input 0's type and shape, the type one of p->types; a constant
 * input is folded through the runtime's kernel (a folded value equals a run
 * one). SHRINK on integers takes a whole bias only (else PZ_ERR_UNSUPPORTED). */
pz_status op_unary_math_infer(ir_graph *g, ir_node *n, pz_err *err);

/* ---- lowering to the runtime -------------------------------------------- */

/* UNARY with the parsed op_unary_math. */
pz_status op_unary_math_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

/* UNARY with func and its coefficients (see pz_unary_params); X -> Y. */
void op_unary_lower(const ir_node *n, pz_unary_func func, float alpha, float beta, float gamma,
                    op_lowered *out);

/* BINARY A, B -> C for Add..Pow. The runtime broadcasts numpy-style (dims
 * right-aligned); the legacy (opset < 7) broadcast with an `axis` that does
 * not align B's dims to A's trailing ones is refused (PZ_ERR_UNSUPPORTED). */
pz_status op_arith_lower(const ir_graph *g, const ir_node *n, pz_binary_func func,
                         op_lowered *out, pz_err *err);

/* The runtime's part of that rule, for any two-input broadcasting op lowered
 * to a kind that broadcasts numpy-style: PZ_OK, or the refusal above. */
pz_status op_legacy_bcast_check(const ir_graph *g, const ir_node *n, pz_err *err);

/* Max, Min: one input is a COPY, two a BINARY. More inputs never get here:
 * op_variadic_expand splits them first (refused with PZ_ERR_UNSUPPORTED if
 * they do). */
pz_status op_variadic_lower(const ir_graph *g, const ir_node *n, pz_binary_func func,
                            op_lowered *out, pz_err *err);

/* Max, Min with k > 2 inputs (the op_def expand hook): a chain of k - 1
 * two-input nodes of the same op. Node "M" = Max(a, b, c, d) becomes
 *   "M:1" = Max(a, b) -> "M:1" value,  "M:2" = Max(M:1, c),  "M" = Max(M:2, d)
 * The intermediates get the broadcast shape of the inputs so far (infer of
 * the two-input op); broadcasting is associative, so the last shape is the
 * node's. Returns the nodes inserted (k - 2), 0 for k <= 2. */
int op_variadic_expand(ir_graph *g, int i);

/* Softmax (log 0), LogSoftmax (log 1): SOFTMAX with the parsed axis. */
pz_status op_softmax_lower(const ir_graph *g, const ir_node *n, int log, op_lowered *out,
                           pz_err *err);

#endif
