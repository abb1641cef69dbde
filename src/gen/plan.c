/* plan.c - the walk shared by net_build.c and the C emitters (see plan.h). */
#include "plan.h"

#include <string.h>

#include "../rt/op_desc.h"

typedef struct {
    gen_plan *p;
    const ir_graph *g;
    int *tid;                    /* value id -> tensor id, -1 if not yet declared */
    int cap_t;
} walker;

static int add_tensor(walker *w, gen_tensor_kind kind, const char *name, const ir_tensor *t)
{
    gen_plan *p = w->p;
    if (p->n_t == w->cap_t) {
        w->cap_t = w->cap_t ? 2 * w->cap_t : 64;
        p->t = pz_xrealloc(p->t, (size_t)w->cap_t * sizeof *p->t);
    }
    gen_tensor *x = &p->t[p->n_t];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->name = name;
    x->dtype = (int)t->dtype;
    x->rank = t->rank < 0 ? 0 : t->rank;
    for (int i = 0; i < x->rank && i < PZ_MAX_RANK; i++) x->dims[i] = t->dims[i];
    size_t es = pz_dtype_size(x->dtype);
    x->nbytes = es;
    for (int i = 0; i < x->rank; i++) x->nbytes *= (size_t)x->dims[i];
    if (kind == GEN_CONST) x->data = t->data;
    return p->n_t++;
}

/* The tensor of value vid, declared as a constant or an intermediate on
 * first use. */
static int tensor_of(walker *w, int vid)
{
    if (vid < 0) return -1;
    if (w->tid[vid] < 0) {
        const ir_value *v = &w->g->values[vid];
        const int *vs = w->p->m->view_src;
        if (vs && vs[vid] >= 0) {   /* a view: its source first */
            int src = tensor_of(w, vs[vid]);
            w->tid[vid] = add_tensor(w, GEN_VIEW, v->name, &v->t);
            w->p->t[w->tid[vid]].src = src;
            return w->tid[vid];
        }
        w->tid[vid] = add_tensor(w, v->t.data ? GEN_CONST : GEN_VALUE, v->name, &v->t);
    }
    return w->tid[vid];
}

static const char *own(gen_plan *p, char *s)
{
    p->names = pz_xrealloc(p->names, (size_t)(p->n_names + 1) * sizeof *p->names);
    p->names[p->n_names++] = s;
    return s;
}

static gen_layer *add_layer(gen_plan *p, int *cap)
{
    if (p->n_l == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        p->l = pz_xrealloc(p->l, (size_t)*cap * sizeof *p->l);
    }
    gen_layer *l = &p->l[p->n_l++];
    memset(l, 0, sizeof *l);
    l->prec = -1;   /* its block's */
    return l;
}

/* A graph output needs a copy layer when no layer writes it (a constant, a
 * graph input, an output repeated); a view is copied out of its root. */
static int output_needs_copy(const ir_model *m, int i, const int *tid)
{
    const ir_graph *g = m->g;
    int vid = g->outputs[i];
    const ir_value *v = &g->values[vid];
    int view = m->view_src && m->view_src[vid] >= 0;
    int needs = v->t.data || v->is_input || (tid[vid] < 0 && !view);
    for (int j = 0; j < i; j++) needs |= g->outputs[j] == vid;
    return needs;
}

pz_status gen_plan_make(const ir_model *m, gen_plan *p, pz_err *err)
{
    const ir_graph *g = m->g;
    memset(p, 0, sizeof *p);
    p->m = m;
    walker w = {p, g, pz_xmalloc((size_t)(g->n_values ? g->n_values : 1) * sizeof(int)), 0};
    for (int v = 0; v < g->n_values; v++) w.tid[v] = -1;
    int cap_l = 0;

    /* 1. lower every layer (value ids for now) */
    for (int li = 0; li < m->n_layers; li++) {
        const ir_node *n = &g->nodes[m->layers[li].node];
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
        gen_layer *l = add_layer(p, &cap_l);
        l->name = n->name;
        l->op_type = n->op_type;
        if (n->op->lower(g, n, &l->low, err)) goto fail;
        if (n->act.kind != IR_ACT_NONE && !n->op->takes_act) {
            pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (%s): an activation was fused into an op "
                    "whose runtime layer does not apply one (a graph pass broke its precondition)",
                    n->name, n->op_type);
            goto fail;
        }
        /* the optimizer's per-layer algorithm knob, where the kind has one */
        const pz_rt_op *op = pz_rt_ops[l->low.kind];
        if (op->set_algo) op->set_algo(&l->low.p, m->layers[li].algo);
        if (op->set_sparsity && m->layers[li].sparsity != 0)
            op->set_sparsity(&l->low.p, m->layers[li].sparsity);
    }
    p->n_model_layers = p->n_l;

    /* 2. tensor ids: inputs, constants in order of first use, then values */
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        w.tid[g->inputs[i]] = add_tensor(&w, GEN_INPUT, v->name, &v->t);
    }
    p->n_inputs = p->n_t;
    for (int li = 0; li < p->n_l; li++)
        for (int k = 0; k < p->l[li].low.n_in; k++) {
            int vid = p->l[li].low.in[k];
            if (vid >= 0 && g->values[vid].t.data) tensor_of(&w, vid);
        }
    for (int i = 0; i < g->n_outputs; i++)
        if (g->values[g->outputs[i]].t.data) tensor_of(&w, g->outputs[i]);
    p->n_consts = p->n_t - p->n_inputs;
    for (int li = 0; li < p->n_l; li++) {
        op_lowered *low = &p->l[li].low;
        for (int k = 0; k < low->n_in; k++) low->in[k] = tensor_of(&w, low->in[k]);
        for (int k = 0; k < low->n_out; k++) low->out[k] = tensor_of(&w, low->out[k]);
    }

    /* 3. the schedule's blocks; a layer's own precision where it is not its block's */
    p->b = pz_xcalloc((size_t)(m->n_blocks ? m->n_blocks : 1), sizeof *p->b);
    p->n_b = m->n_blocks;
    for (int i = 0; i < m->n_blocks; i++) {
        const ir_fblock *fb = &m->blocks[i];
        p->b[i] = (gen_block){fb->first, fb->count, fb->mp, (int)fb->split, fb->strip,
                              fb->precision, fb->weights, 0};
        for (int li = fb->first; li < fb->first + fb->count && li < p->n_l; li++)
            p->l[li].prec = m->layers[li].precision == fb->precision ? -1
                          : gen_prec_of(m->layers[li].precision, fb->weights);
    }

    /* 4. outputs; a copy layer for each that no layer writes */
    p->outputs = pz_xcalloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof(int));
    p->n_outputs = g->n_outputs;
    for (int i = 0; i < g->n_outputs; i++) {
        int vid = g->outputs[i];
        if (!output_needs_copy(m, i, w.tid)) {
            p->outputs[i] = tensor_of(&w, vid);
            continue;
        }
        const ir_value *v = &g->values[vid];
        size_t len = strlen(v->name) + 8;
        char *name = pz_xmalloc(len);
        snprintf(name, len, "%s:copy", v->name);
        own(p, name);
        int src = tensor_of(&w, vid);
        int dst = add_tensor(&w, GEN_VALUE, name, &v->t);
        gen_layer *l = add_layer(p, &cap_l);
        l->name = name;
        l->op_type = "Identity";
        l->low.kind = PZ_OP_COPY;
        l->low.n_in = l->low.n_out = 1;
        l->low.in[0] = src;
        l->low.out[0] = dst;
        p->outputs[i] = dst;
    }
    free(w.tid);
    return PZ_OK;
fail:
    free(w.tid);
    gen_plan_free(p);
    return err->code;
}

void gen_plan_free(gen_plan *p)
{
    for (int i = 0; i < p->n_names; i++) free(p->names[i]);
    free(p->names);
    free(p->t);
    free(p->l);
    free(p->b);
    free(p->outputs);
    if (p->open) free(p->open->coef), free(p->open->params), free(p->open->open_const);
    free(p->open);
    memset(p, 0, sizeof *p);
}

int gen_layer_concat(const gen_plan *p, int li)
{
    if (li < 0 || li + 1 >= p->n_model_layers) return 0;
    const char *a = p->l[li].name, *s = p->l[li + 1].name;
    const char *plus = a ? strchr(a, '+') : NULL;
    size_t n = plus ? (size_t)(plus - a) : 0;
    if (plus && s && p->l[li + 1].low.kind == PZ_OP_SPLIT && !strncmp(s, a, n) &&
        !strcmp(s + n, ":split"))
        return p->l[li + 1].low.n_out;
    /* no Split: a Q/K/V GEMM whose parts an attention layer reads in place */
    for (int j = li + 1; plus && j < p->n_model_layers; j++) {
        const op_lowered *r = &p->l[j].low;
        if (r->kind == PZ_OP_ATTENTION && r->n_in > 0 && r->in[0] == p->l[li].low.out[0] &&
            ((const pz_attention_params *)&r->p)->qkv_w > 0)
            return 3;
    }
    return 0;
}

int gen_prec_of(ir_precision p, ir_weights w)
{
    if (p == IR_PREC_BF16) return PZ_PREC_BF16;
    if (p == IR_PREC_INT8) return PZ_PREC_I8DYN;
    return w == IR_WEIGHTS_FP16 ? PZ_PREC_F16W : PZ_PREC_FP32;
}

int gen_block_prec(const gen_block *b)
{
    return gen_prec_of(b->precision, b->weights);
}

const char *gen_params_type(pz_op_kind kind)
{
    PZ_ASSERT(kind >= 0 && kind < PZ_OP_COUNT_);
    return pz_rt_ops[kind]->params_type;
}

pz_status gen_plan_check_program(const gen_plan *p, pz_err *err)
{
    const ir_graph *g = p->m->g;
    for (int v = 0; v < g->n_values; v++) {
        const ir_value *x = &g->values[v];
        if (x->t.dtype != IR_STRING) continue;
        int out = 0;
        for (int j = 0; j < g->n_outputs; j++) out |= g->outputs[j] == v;
        const char *what = x->is_input ? "graph input" : out ? "graph output"
                         : x->t.data ? "constant" : NULL;
        if (what)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s \"%s\" is a string tensor: generated "
                           "programs do not take string inputs, outputs or constants (`paleozoic "
                           "run` does)", what, x->name);
    }
    return PZ_OK;
}
