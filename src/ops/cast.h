/* cast.h - what Cast (cast.c) shares with CastLike (castlike.c). */
#ifndef PZ_OPS_CAST_H
#define PZ_OPS_CAST_H

#include "op.h"

typedef struct {
    int to;               /* the target element type */
    pz_cast_params rt;    /* saturate, round_mode as the runtime takes them */
} cast_params;

/* Parses `saturate` and `round_mode` into p->rt. */
pz_status cast_parse_rounding(const ir_node *n, const char *op, cast_params *p, pz_err *err);
/* PZ_ERR_UNSUPPORTED for a target type Paleozoic does not hold (string, complex). */
pz_status cast_check_target(const ir_node *n, const char *op, const char *what, int to, pz_err *err);
/* Output 0: input 0's shape in type p->to, folded when input 0 is constant. */
pz_status cast_infer_to(ir_graph *g, ir_node *n, const cast_params *p, pz_err *err);
/* The CAST layer. */
pz_status cast_lower_with(const ir_node *n, const cast_params *p, op_lowered *out);

#endif
