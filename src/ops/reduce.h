/* reduce.h - what the reductions share (ReduceMean, ReduceSum, ReduceMax,
 * ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
 * ReduceSumSquare): attributes, shape inference, folding and lowering to the
 * runtime's reduction (REDUCE_MEAN, its func). Each op's file is one line:
 *
 *   OP_REDUCE_DEF(reduce_sum, "ReduceSum", PZ_RED_SUM, 13)
 *
 * axes: an attribute before `axes_opset` (13 for ReduceSum, 18 for the
 * others), the optional constant input 1 from it on, with
 * noop_with_empty_axes. No axes means all of them; with noop_with_empty_axes
 * no axis, each element its own set (ReduceSumSquare squares, as ONNX's
 * reference does). Axes may be negative; repeats are errors. keepdims (1 by
 * default) keeps each reduced dim as 1. Floats and integers; bool for Max
 * and Min. */
#ifndef PZ_OPS_REDUCE_H
#define PZ_OPS_REDUCE_H

#include "op.h"

typedef struct {
    unsigned char reduce[IR_MAX_RANK];  /* 1: dim d is reduced */
    int64_t keepdims;
    /* > 0: input axes holds this many entries, read at run time (op_rt_ints):
     * Y is planned at a bound with a run-time shape, reduce[] unused */
    int rt_axes;
} op_reduce_params;

pz_status op_reduce_parse(const ir_graph *g, const ir_node *n, op_reduce_params *p,
                          int axes_opset, pz_err *err);
/* Y's type and shape; folds when X is constant (the runtime's kernel). */
pz_status op_reduce_infer(ir_graph *g, ir_node *n, pz_reduce_func f, pz_err *err);
/* REDUCE_MEAN with func f and the axes as a mask; the axes input dropped. */
pz_status op_reduce_lower(const ir_graph *g, const ir_node *n, pz_reduce_func f,
                          op_lowered *out, pz_err *err);

/* PZ_ERR_UNSUPPORTED naming node, op and input `what` unless t's type is a
 * float, or an integer (ints), or bool (boolean). */
pz_status op_want_numeric(const ir_node *n, const ir_tensor *t, const char *what, int ints,
                          int boolean, pz_err *err);

/* Folding through a runtime kernel: a zeroed buffer for output `out` (its
 * type and shape set) when src, and every other input the kernel reads, is
 * constant and the output small (else NULL); fill it with the kernel (ith 0
 * of 1), then op_fold_finish makes it the output's value and frees it. */
void *op_fold_start(ir_graph *g, const ir_node *n, int out, const ir_tensor *src);
void op_fold_finish(ir_graph *g, const ir_node *n, int out, void *buf);

/* ArgMax, ArgMin (arg_max.c, arg_min.c): axis (default 0), keepdims,
 * select_last_index; Y int64. */
pz_status op_arg_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
pz_status op_arg_infer(ir_graph *g, ir_node *n, pz_arg_func f, pz_err *err);
pz_status op_arg_lower(const ir_graph *g, const ir_node *n, pz_arg_func f, op_lowered *out,
                       pz_err *err);
typedef struct {
    int axis;                         /* normalised */
    int64_t keepdims, select_last;
} op_arg_params;

/* CumSum, CumProd (cum_sum.c, cum_prod.c): input 1 the axis (a scalar),
 * exclusive, reverse. An axis not constant at compile time is read at run
 * time (the layer keeps input 1). */
typedef struct {
    int axis;                         /* normalised; -1: from input 1 at run time */
    int64_t exclusive, reverse;
} op_cum_params;
pz_status op_cum_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
pz_status op_cum_infer(ir_graph *g, ir_node *n, pz_cum_func f, pz_err *err);
pz_status op_cum_lower(const ir_graph *g, const ir_node *n, pz_cum_func f, op_lowered *out,
                       pz_err *err);

/* The op_def op_<sym> of a reduction: ONNX name, func, the opset where axes
 * becomes an input. */
#define OP_REDUCE_DEF(sym, onnx_name, func, axes_opset)                                    \
    static pz_status sym##_parse(const ir_graph *g, const ir_node *n, void *params,         \
                                 pz_err *err)                                              \
    {                                                                                      \
        return op_reduce_parse(g, n, params, axes_opset, err);                             \
    }                                                                                      \
    static pz_status sym##_infer(ir_graph *g, ir_node *n, pz_err *err)                     \
    {                                                                                      \
        return op_reduce_infer(g, n, func, err);                                           \
    }                                                                                      \
    static pz_status sym##_lower(const ir_graph *g, const ir_node *n, op_lowered *out,      \
                                 pz_err *err)                                              \
    {                                                                                      \
        return op_reduce_lower(g, n, func, out, err);                                      \
    }                                                                                      \
    const op_def op_##sym = {                                                              \
        .name = onnx_name,                                                                 \
        .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,                              \
        .params_size = sizeof(op_reduce_params),                                           \
        .parse = sym##_parse, .infer = sym##_infer, .lower = sym##_lower,                  \
    };

#endif
