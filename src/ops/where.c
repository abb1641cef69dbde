/* where.c - Where: Y = condition ? X : Y element by element.
 *   condition (bool), X, Y (one type) -> output of that type, the shape of
 *   the three broadcast together (numpy, multidirectional). No MACs.
 * Runs as the runtime's WHERE layer (rt/ops/where.c). */
#include <stdlib.h>
#include <string.h>

#include "fold.h"

/* Element strides of t read in the output's shape y (right-aligned), 0
 * where t is broadcast. */
static void bcast_strides(const ir_tensor *t, const ir_tensor *y, int64_t *s)
{
    int64_t acc = 1;
    for (int i = y->rank - 1; i >= 0; i--) {
        int it = i - (y->rank - t->rank);
        int64_t nt = it >= 0 ? t->dims[it] : 1;
        s[i] = nt == 1 ? 0 : acc;
        acc *= nt;
    }
}

/* Constant inputs (shape arithmetic of exported graphs: a GQA head count
 * chosen by Where): the output's values, as the runtime computes them. */
static void fold(ir_graph *g, const ir_node *n, const ir_tensor *c, const ir_tensor *x,
                 const ir_tensor *y)
{
    const ir_tensor *o = op_out(g, n, 0);
    if (!op_fold_ready(g, n, 0, x)) return;
    int64_t sc[IR_MAX_RANK], sx[IR_MAX_RANK], sy[IR_MAX_RANK], coord[IR_MAX_RANK] = {0};
    bcast_strides(c, o, sc);
    bcast_strides(x, o, sx);
    bcast_strides(y, o, sy);
    size_t es = ir_dtype_size(o->dtype);
    int64_t numel = ir_tensor_numel(o);
    char *buf = pz_xcalloc((size_t)(numel ? numel : 1), es);
    for (int64_t e = 0; e < numel; e++) {
        int64_t ic = 0, ix = 0, iy = 0;
        for (int k = 0; k < o->rank; k++) {
            ic += coord[k] * sc[k];
            ix += coord[k] * sx[k];
            iy += coord[k] * sy[k];
        }
        int take = ((const uint8_t *)c->data)[ic] != 0;
        memcpy(buf + (size_t)e * es, take ? (const char *)x->data + (size_t)ix * es
                                          : (const char *)y->data + (size_t)iy * es, es);
        for (int k = o->rank - 1; k >= 0; k--) {
            if (++coord[k] < o->dims[k]) break;
            coord[k] = 0;
        }
    }
    ir_value_set_data(g, n->out[0], buf, (size_t)numel * es);
    free(buf);
}

static pz_status where_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *c = op_in(g, n, 0), *x = op_in(g, n, 1), *y = op_in(g, n, 2);
    if (!c || !x || !y) return op_err(err, n, "needs the inputs condition, X and Y");
    if (c->dtype != IR_BOOL)
        return op_err(err, n, "input condition has type %s, expected bool",
                      ir_dtype_name(c->dtype));
    if (x->dtype != y->dtype)
        return op_err(err, n, "inputs X (%s) and Y (%s) must have one type",
                      ir_dtype_name(x->dtype), ir_dtype_name(y->dtype));
    ir_tensor cx, out;
    memset(&cx, 0, sizeof cx);
    memset(&out, 0, sizeof out);
    if (op_broadcast(g, n, c, x, &cx, err) || op_broadcast(g, n, &cx, y, &out, err)) return err->code;
    op_set_out(g, n, 0, x->dtype, out.rank, out.dims);
    if (c->data && x->data && y->data) fold(g, n, c, x, y);
    return PZ_OK;
}

static pz_status where_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    op_lowered_init(out, n, PZ_OP_WHERE, NULL, 0);
    return PZ_OK;
}

const op_def op_where = {
    .name = "Where",
    .min_in = 3, .max_in = 3, .min_out = 1, .max_out = 1,
    .infer = where_infer,
    .lower = where_lower,
};
