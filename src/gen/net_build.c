/* net_build.c - ir_model -> pz_net through the middle-layer API. */
#include "net_build.h"

#include <string.h>

#include "../ops/op.h"

typedef struct {
    const ir_graph *g;
    pz_net *net;
    int *tensor;   /* value id -> net tensor id, -1 if not yet declared */
} builder;

static int tensor_of(builder *b, int vid)
{
    if (vid < 0) return -1;
    if (b->tensor[vid] >= 0) return b->tensor[vid];
    const ir_value *v = &b->g->values[vid];
    int id = v->t.data ? pz_net_const(b->net, v->name, v->t.dtype, v->t.rank, v->t.dims, v->t.data)
                       : pz_net_tensor(b->net, v->name, v->t.dtype, v->t.rank, v->t.dims);
    b->tensor[vid] = id;
    return id;
}

/* A graph output that no layer writes (a constant, or an input passed
 * through) gets a copy layer, so the runtime has something to run. */
static int output_copy(builder *b, int vid)
{
    const ir_value *v = &b->g->values[vid];
    char name[512];
    snprintf(name, sizeof name, "%s:copy", v->name);
    int src = tensor_of(b, vid);
    int dst = pz_net_tensor(b->net, name, v->t.dtype, v->t.rank, v->t.dims);
    pz_net_layer(b->net, name, PZ_OP_COPY, NULL, 0, &src, 1, &dst, 1);
    return dst;
}

pz_status gen_net_build(const ir_model *m, int threads, gen_net *out, pz_err *err)
{
    const ir_graph *g = m->g;
    builder b = {g, pz_net_new(g->name), pz_xmalloc((size_t)(g->n_values ? g->n_values : 1) * sizeof(int))};
    memset(out, 0, sizeof *out);
    for (int v = 0; v < g->n_values; v++) b.tensor[v] = -1;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        b.tensor[g->inputs[i]] = pz_net_input(b.net, v->name, v->t.dtype, v->t.rank, v->t.dims);
    }
    for (int l = 0; l < m->n_layers; l++) {
        const ir_node *n = &g->nodes[m->layers[l].node];
        op_lowered low;
        if (!n->op->lower) {
            pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): the runtime cannot execute this "
                    "op on non-constant inputs", n->name, n->op_type);
            goto fail;
        }
        if (n->n_in > PZ_MAX_IO || n->n_out > PZ_MAX_IO) {
            pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): more than %d inputs or outputs",
                    n->name, n->op_type, PZ_MAX_IO);
            goto fail;
        }
        if (n->op->lower(g, n, &low, err)) goto fail;
        int in[PZ_MAX_IO], outs[PZ_MAX_IO];
        for (int k = 0; k < low.n_in; k++) in[k] = tensor_of(&b, low.in[k]);
        for (int k = 0; k < low.n_out; k++) outs[k] = tensor_of(&b, low.out[k]);
        pz_net_layer(b.net, n->name, low.kind, low.params_size ? &low.p : NULL, low.params_size,
                     in, low.n_in, outs, low.n_out);
    }
    /* Blocks of the schedule; copy layers for pass-through outputs come after. */
    for (int i = 0; i < m->n_blocks; i++) {
        const ir_fblock *fb = &m->blocks[i];
        pz_net_block(b.net, fb->first, fb->count, fb->mp);
        if (fb->split != IR_SPLIT_AUTO || fb->strip)
            pz_net_block_knobs(b.net, fb->first, (pz_split_mode)fb->split, fb->strip);
    }
    for (int i = 0; i < g->n_outputs; i++) {
        int vid = g->outputs[i];
        const ir_value *v = &g->values[vid];
        int needs_copy = v->t.data || v->is_input || b.tensor[vid] < 0;
        for (int j = 0; j < i; j++) needs_copy |= g->outputs[j] == vid;
        pz_net_output(b.net, needs_copy ? output_copy(&b, vid) : b.tensor[vid]);
    }
    char msg[512];
    if (pz_net_compile(b.net, threads, msg, sizeof msg)) {
        pz_fail(err, PZ_ERR_INTERNAL, "runtime compile failed: %s", msg);
        goto fail;
    }
    free(b.tensor);
    out->net = b.net;
    out->n_inputs = g->n_inputs;
    out->n_outputs = g->n_outputs;
    return PZ_OK;
fail:
    free(b.tensor);
    pz_net_free(b.net);
    return err->code;
}

void gen_net_free(gen_net *gn)
{
    pz_net_free(gn->net);
    gn->net = NULL;
}
