/* compare.h - what the comparison, logic and bitwise ops share: the element
 * types each accepts, lowering to COMPARE, unary folding.
 *
 *   static pz_status less_infer(ir_graph *g, ir_node *n, pz_err *err)
 *   {
 *       return op_compare_infer(g, n, OP_TY_NUMERIC, &less_fn, err);
 *   }
 */
#ifndef PZ_OPS_COMPARE_H
#define PZ_OPS_COMPARE_H

#include "elementwise.h"

/* Classes of element types, or-ed into the set an op accepts. */
enum {
    OP_TY_BOOL = 1, OP_TY_SIGNED = 2, OP_TY_UNSIGNED = 4, OP_TY_FLOAT = 8,
    OP_TY_INT = OP_TY_SIGNED | OP_TY_UNSIGNED,
    OP_TY_NUMERIC = OP_TY_INT | OP_TY_FLOAT,
};

/* Every present input's type is in `allowed` (float: float16, bfloat16,
 * float32, float64). The 8-, 4- and 2-bit types and strings, which the spec
 * allows some of these ops and the runtime does not compute on, are refused
 * with PZ_ERR_UNSUPPORTED; any other type is an error in the model. */
pz_status op_want_types(const ir_graph *g, const ir_node *n, unsigned allowed, pz_err *err);

/* Two inputs of one type in `allowed`, broadcast; output bool; folds with fn
 * (which returns 0 or 1). */
pz_status op_compare_infer(ir_graph *g, ir_node *n, unsigned allowed, const op_binary_fn *fn,
                           pz_err *err);

/* COMPARE with func, A, B -> Y. */
pz_status op_compare_lower(const ir_graph *g, const ir_node *n, pz_compare_func func,
                           op_lowered *out, pz_err *err);

/* Output 0: input 0's shape, of type out_dtype (-1: input 0's); when input 0
 * is constant and small, its values y = fi(x) for integer and bool inputs,
 * ff(x) for floats (either NULL: not folded). */
typedef struct {
    double (*ff)(double x);
    int64_t (*fi)(int64_t x);
} op_unary_fn;
void op_unary_infer_fold(ir_graph *g, ir_node *n, int out_dtype, const op_unary_fn *fn);

/* LOGIC_UNARY with func; X -> Y. */
void op_logic_unary_lower(const ir_node *n, pz_logic_unary_func func, int detect_pos,
                          int detect_neg, op_lowered *out);

/* Sum (mean 0), Mean (1): one input a COPY, 2 to PZ_MAX_IO a SUM layer;
 * more are refused (PZ_ERR_UNSUPPORTED). */
pz_status op_sum_lower(const ir_node *n, int mean, op_lowered *out, pz_err *err);

#endif
