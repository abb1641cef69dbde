/* features.c - what each layer of a lowered model is and costs, as the
 * strategies (built-in and plug-in) see it: pz_layer_features. */
#include <string.h>

#include "../ops/op.h"
#include "opt_internal.h"

static int is_conv_fc(const char *op)
{
    return !strcmp(op, "Conv") || !strcmp(op, "ConvTranspose") || !strcmp(op, "Gemm") ||
           !strcmp(op, "MatMul");
}

pz_layer_features *opt_features(const ir_model *m)
{
    const ir_graph *g = m->g;
    pz_layer_features *f = pz_xcalloc((size_t)(m->n_layers ? m->n_layers : 1), sizeof *f);
    for (int i = 0; i < m->n_layers; i++) {
        const ir_node *n = &g->nodes[m->layers[i].node];
        pz_layer_features *x = &f[i];
        x->index = i;
        x->name = n->name;
        x->op_type = n->op ? n->op->name : n->op_type;
        x->is_conv_fc = is_conv_fc(x->op_type);
        x->macs = n->cost.macs;
        x->ops = 2.0 * (double)n->cost.macs;
        x->params = n->cost.params;
        x->bytes_in = n->cost.bytes_in;
        x->bytes_out = n->cost.bytes_out;
        x->c_in = n->cost.c_in;
        x->c_out = n->cost.c_out;
        x->group = 1;
        /* Conv: the kernel from the weight's shape [M, C/group, kh, kw]. */
        if (!strcmp(x->op_type, "Conv") || !strcmp(x->op_type, "ConvTranspose")) {
            if (n->n_in > 1 && n->in[1] >= 0) {
                const ir_tensor *w = &g->values[n->in[1]].t;
                if (w->rank >= 3) x->kernel_h = (int)w->dims[2];
                x->kernel_w = w->rank >= 4 ? (int)w->dims[3] : (w->rank >= 3 ? 1 : 0);
            }
            const ir_attr *a = op_attr(n, "group");
            if (a && a->type == IR_ATTR_INT && a->i > 0) x->group = (int)a->i;
        }
        if (n->n_out > 0 && n->out[0] >= 0) {
            const ir_tensor *o = &g->values[n->out[0]].t;
            if (o->rank == 4) x->out_h = o->dims[2], x->out_w = o->dims[3];
        }
    }
    return f;
}
