/* net_build.c - ir_model -> pz_net through the middle-layer API, in-process.
 *
 * It makes, in the same order, exactly the calls that the generated NAME.c
 * makes: both follow gen_plan (plan.h), this file as calls, emit_c.c as text. */
#include "net_build.h"

#include <string.h>

#include "plan.h"
#include "../rt/cpu.h"

static pz_run_options run_options = PZ_RUN_OPTIONS_DEFAULT;

void gen_set_run_options(const pz_run_options *o)
{
    run_options = *o;
}

const pz_run_options *gen_run_options(void)
{
    return &run_options;
}

int gen_run_isa(void)
{
    return (int)pz_isa_capped(run_options.isa);
}

/* A value or a view (pz_net_view), as the generated C declares it. */
static void declare(pz_net *net, const gen_tensor *t)
{
    if (t->kind == GEN_VIEW) pz_net_view(net, t->name, t->src, t->rank, t->dims);
    else pz_net_tensor(net, t->name, t->dtype, t->rank, t->dims);
}

pz_status gen_net_build(const ir_model *m, int threads, gen_net *out, pz_err *err)
{
    memset(out, 0, sizeof *out);
    gen_plan p;
    if (gen_plan_make(m, &p, err)) return err->code;
    pz_net *net = pz_net_new(m->g->name);
    /* 1. tensors: inputs, constants (NAME.weights), then each layer's outputs before it */
    int next = 0;
    for (; next < p.n_inputs + p.n_consts; next++) {
        const gen_tensor *t = &p.t[next];
        if (t->kind == GEN_INPUT) pz_net_input(net, t->name, t->dtype, t->rank, t->dims);
        else pz_net_const(net, t->name, t->dtype, t->rank, t->dims, t->data);
    }
    /* 2. layers, in order */
    for (int li = 0; li < p.n_l; li++) {
        const op_lowered *low = &p.l[li].low;
        for (int k = 0; k < low->n_out; k++)
            for (; next <= low->out[k]; next++) declare(net, &p.t[next]);
        for (int k = 0; k < low->n_in; k++)   /* a view, or a value read before anything wrote it */
            for (; next <= low->in[k]; next++) declare(net, &p.t[next]);
        pz_net_layer(net, p.l[li].name, low->kind, low->params_size ? &low->p : NULL,
                     low->params_size, low->in, low->n_in, low->out, low->n_out);
    }
    for (; next < p.n_t; next++) declare(net, &p.t[next]);   /* views only graph outputs read */
    for (int i = 0; i < p.n_outputs; i++) pz_net_output(net, p.outputs[i]);
    /* 3. F-Blocks and their knobs */
    for (int i = 0; i < p.n_b; i++) {
        const gen_block *b = &p.b[i];
        pz_net_block(net, b->first, b->count, b->mp);
        pz_net_block_knobs(net, b->first, (pz_split_mode)b->split, b->strip);
        pz_net_block_precision(net, b->first, (pz_precision)gen_block_prec(b));
    }
    for (int li = 0; li < p.n_model_layers; li++)   /* a layer's own, over its block's */
        if (p.l[li].prec >= 0) pz_net_layer_precision(net, li, (pz_precision)p.l[li].prec);
    /* 4. compile */
    char msg[512];
    if (pz_net_compile(net, threads, &run_options, msg, sizeof msg)) {
        /* shape inference accepted the model but the runtime cannot run this
         * layer (the message names it and its op): bad input, not a crash */
        pz_fail(err, PZ_ERR_UNSUPPORTED, "the runtime cannot run this model: %s", msg);
        gen_plan_free(&p);
        pz_net_free(net);
        return err->code;
    }
    out->net = net;
    out->n_inputs = m->g->n_inputs;
    out->n_outputs = m->g->n_outputs;
    gen_plan_free(&p);
    return PZ_OK;
}

void gen_net_free(gen_net *gn)
{
    pz_net_free(gn->net);
    gn->net = NULL;
}
