/* quant.h - what QuantizeLinear and DequantizeLinear share: the attributes
 * axis, block_size (and saturate, output_dtype, precision), the scale and
 * zero point checks, the QUANT layer (rt/ops/quant.c). */
#ifndef PZ_OPS_QUANT_H
#define PZ_OPS_QUANT_H

#include "op.h"

typedef struct {
    pz_quant_params q;
    int64_t output_dtype;             /* 0: the default */
    int axis_ok;                      /* axis within x's rank */
} op_quant_params;

pz_status op_quant_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
/* scale (input 1) float and per tensor, per axis or blocked for X (input
 * 0); zero point (input 2, optional) of type tq and the scale's shape. */
pz_status op_quant_check(const ir_graph *g, const ir_node *n, int tq, pz_err *err);
/* Non-zero for the quantised types the QUANT layer computes. */
int op_quant_type_ok(int dt);
pz_status op_quant_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
