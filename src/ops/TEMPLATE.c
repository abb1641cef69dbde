/* TEMPLATE.c - start a new operator here (this file is not built;
 * tests/unit/op_templates.c compiles it).
 *   1. Copy to src/ops/<name>.c and rename `template` throughout.
 *   2. Add OP(OnnxName, <name>) to op_list.h.
 *   3. Describe the op in a comment: inputs, outputs, shapes, MACs.
 *   4. If no runtime layer kind computes it yet, add one: src/rt/ops/TEMPLATE.c
 *      (it defines PZ_OP_TEMPLATE's descriptor and pz_template_params).
 * parse: attributes -> params, with errors naming node, op and attribute.
 * infer: output dtype and shape; fold when inputs are constant and cheap.
 * cost:  MACs (leave NULL if the op does no multiply-accumulates).
 * lower: the runtime layer that computes the node and its final params
 *        (NULL: the op only ever folds to constants). */
#include "op.h"

typedef struct {
    float alpha;
} template_params;

static pz_status template_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    template_params *p = params;
    return op_attr_float(n, "alpha", 1.0f, &p->alpha, err);
}

static pz_status template_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (x && x->dtype != IR_F32)
        return op_err(err, n, "input X has type %s, expected float32", ir_dtype_name(x->dtype));
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

static void template_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    /* one multiply per element, no accumulation: no MACs */
}

static pz_status template_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const template_params *p = n->params;
    pz_template_params tp = {.alpha = p->alpha};
    op_lowered_init(out, n, PZ_OP_TEMPLATE, &tp, sizeof tp);
    return PZ_OK;
}

const op_def op_template = {
    .name = "Template",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(template_params),
    .parse = template_parse,
    .infer = template_infer,
    .cost = template_cost,
    .lower = template_lower,
};
