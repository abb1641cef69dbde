/* signal.h - what the window generators (HannWindow, HammingWindow,
 * BlackmanWindow) and MelWeightMatrix share: the output_datatype attribute
 * and writing a constant output. They only fold: their inputs are sizes the
 * compiler reads (op_const_ints), their outputs are cheap constants. */
#ifndef PZ_OPS_SIGNAL_H
#define PZ_OPS_SIGNAL_H

#include "op.h"

/* w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size when
 * periodic, else size - 1 (the generalised cosine window). */
typedef struct {
    double a0, a1, a2;
} op_cosine_window;

typedef struct {
    int64_t output_datatype;
    int64_t periodic;
} op_signal_params;

/* Reads output_datatype (default float32) and periodic (default 1). */
pz_status op_signal_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
/* The window of size input 0 (constant) as output 0, a constant. */
pz_status op_cosine_window_infer(ir_graph *g, ir_node *n, const op_cosine_window *cw,
                                 pz_err *err);
/* Checks output_datatype: a float or integer type Paleozoic holds. */
pz_status op_signal_dtype(const ir_node *n, int64_t dt, pz_err *err);
/* Output 0 of type dt and shape [rank: dims] made constant from v (doubles). */
pz_status op_signal_set(ir_graph *g, const ir_node *n, int dt, int rank, const int64_t *dims,
                        const double *v, pz_err *err);

#endif
