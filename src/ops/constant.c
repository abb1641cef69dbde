/* constant.c - Constant: a tensor given in an attribute.
 *   () -> output, from exactly one of: value (a tensor), value_float (scalar),
 *   value_floats (1-D), value_int (int64 scalar), value_ints (1-D int64);
 *   the value_* forms exist from opset 12 (accepted in any opset).
 *   sparse_value and value_string(s) are not supported. */
#include <string.h>

#include "fold.h"

static pz_status constant_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_attr *a = NULL;
    for (int i = 0; i < n->n_attrs; i++) {
        const char *name = n->attrs[i].name;
        if (strcmp(name, "value") && strncmp(name, "value_", 6) && strcmp(name, "sparse_value"))
            continue;
        if (a)
            return op_err_attr(err, n, name, "and '%s' are both given; a Constant has one value",
                               a->name);
        a = &n->attrs[i];
    }
    if (!a) return op_err(err, n, "has no value attribute (value, value_float(s), value_int(s))");
    const char *name = a->name;
    ir_attr_type want;
    if (!strcmp(name, "value")) want = IR_ATTR_TENSOR;
    else if (!strcmp(name, "value_float")) want = IR_ATTR_FLOAT;
    else if (!strcmp(name, "value_floats")) want = IR_ATTR_FLOATS;
    else if (!strcmp(name, "value_int")) want = IR_ATTR_INT;
    else if (!strcmp(name, "value_ints")) want = IR_ATTR_INTS;
    else if (!strcmp(name, "sparse_value") || !strcmp(name, "value_string") ||
             !strcmp(name, "value_strings"))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Constant): attribute '%s': %s "
                       "constants are not supported", n->name, name,
                       name[0] == 's' ? "sparse" : "string");
    else return op_err_attr(err, n, name, "is not an attribute of Constant");
    if (op_attr_expect(n, a, want, err)) return err->code;

    int64_t len = a->n;
    switch (want) {
    case IR_ATTR_TENSOR:
        op_set_out(g, n, 0, a->t->dtype, a->t->rank, a->t->dims);
        if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], a->t->data, a->t->nbytes);
        break;
    case IR_ATTR_FLOAT:
        op_set_out(g, n, 0, IR_F32, 0, NULL);
        if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], &a->f, sizeof a->f);
        break;
    case IR_ATTR_FLOATS:
        op_set_out(g, n, 0, IR_F32, 1, &len);
        if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], a->floats, (size_t)len * sizeof(float));
        break;
    case IR_ATTR_INT:
        op_set_out(g, n, 0, IR_I64, 0, NULL);
        if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], &a->i, sizeof a->i);
        break;
    default:
        op_set_out(g, n, 0, IR_I64, 1, &len);
        if (n->out[0] >= 0) ir_value_set_data(g, n->out[0], a->ints, (size_t)len * sizeof(int64_t));
        break;
    }
    return PZ_OK;
}

const op_def op_constant = {
    .name = "Constant",
    .min_in = 0, .max_in = 0, .min_out = 1, .max_out = 1,
    .params_size = 0,
    .parse = NULL,
    .infer = constant_infer,
    .cost = NULL,
};
