/* TEMPLATE.c - start a new operator here (this file is not built).
 *   1. Copy to src/ops/<name>.c and rename `template` throughout.
 *   2. Add OP(OnnxName, <name>) to op_list.h.
 *   3. Describe the op in a comment: inputs, outputs, shapes, MACs.
 * parse: attributes -> params, with errors naming node, op and attribute.
 * infer: output dtype and shape; fold when inputs are constant and cheap.
 * cost:  MACs (leave NULL if the op does no multiply-accumulates). */
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
    op_same_as(g, n, 0, 0);
    return PZ_OK;
}

const op_def op_template = {
    .name = "Template",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(template_params),
    .parse = template_parse,
    .infer = template_infer,
    .cost = NULL,
};
