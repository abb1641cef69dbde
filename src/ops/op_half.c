/* op_half.c - float16 and bfloat16 models computed in float32.
 *
 * The runtime's kernels compute in float32. A node that reads or writes
 * float16 or bfloat16 values (other than a Cast, which converts them itself)
 * is wrapped at lowering: each half input goes through a Cast to float32,
 * the node computes in float32, and each half output comes back through a
 * Cast to its type. An inserted Cast to half read by a Cast back to float32
 * (two wrapped nodes in a row, or a model's Cast to float32 at its output)
 * is then skipped, so a chain of wrapped nodes computes in float32 and
 * rounds at its ends: ONNX Runtime's CPU provider does the same (it inserts
 * casts around the ops it has no half kernel for and removes the pairs
 * between them). A Cast to half the model wrote itself stays.
 */
#include "op_lower.h"

#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "op_infer.h"

static int is_half(int dt)
{
    return dt == IR_F16 || dt == IR_BF16;
}

static int wraps(const ir_graph *g, const ir_node *n)
{
    if (!n->op || !strcmp(n->op_type, "Cast") || !strcmp(n->op_type, "CastLike")) return 0;
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0 && is_half(g->values[n->in[i]].t.dtype)) return 1;
    for (int i = 0; i < n->n_out; i++)
        if (n->out[i] >= 0 && is_half(g->values[n->out[i]].t.dtype)) return 1;
    return 0;
}

/* Inserts at `at` the node `name` = Cast(src, to) writing value dst (a new
 * value when dst < 0); returns dst. Parse and infer of a Cast between float
 * types cannot fail. */
static int insert_cast(ir_graph *g, int at, const char *name, int src, int to, int dst)
{
    ir_graph_insert_node(g, at, name, "Cast", "", 1, 1);
    ir_node *c = &g->nodes[at];
    c->op = op_find("Cast");
    ir_node_add_attr_int(c, "to", to);
    c->in[0] = src;
    c->out[0] = dst >= 0 ? dst : ir_graph_add_value_unique(g, name);
    g->values[c->out[0]].producer = at;
    c->params = pz_xcalloc(1, c->op->params_size);
    pz_err err = {0};
    PZ_ASSERT(c->op->parse(g, c, c->params, &err) == PZ_OK && c->op->infer(g, c, &err) == PZ_OK);
    ir_cost_node(g, c);
    return c->out[0];
}

/* A new constant: half constant v in float32 (exact). */
static int const_f32(ir_graph *g, const char *name, int v)
{
    int w = ir_graph_add_value_unique(g, name);
    const ir_tensor *t = &g->values[v].t;
    int64_t n = ir_tensor_numel(t);
    float *f = pz_xmalloc((size_t)(n ? n : 1) * sizeof *f);
    for (int64_t e = 0; e < n; e++) f[e] = (float)ir_load_f64(t->data, t->dtype, (size_t)e);
    ir_tensor *y = &g->values[w].t;
    *y = *t;
    y->data = NULL;
    y->dtype = IR_F32;
    g->values[w].is_initializer = 1;
    ir_value_set_data(g, w, f, (size_t)n * sizeof *f);
    free(f);
    return w;
}

/* Wraps node i; returns the nodes inserted before it (it is then at i +
 * that), the casts after it excluded. A node whose op refuses its float32
 * form keeps its half types (the runtime then refuses it, naming the type). */
static int wrap(ir_graph *g, int i, int *after)
{
    char name[512];
    int n_in = g->nodes[i].n_in, n_out = g->nodes[i].n_out, added = 0;
    int *old_in = pz_xmalloc((size_t)(n_in + n_out + 1) * sizeof(int)), *old_out = old_in + n_in;
    memcpy(old_in, g->nodes[i].in, (size_t)n_in * sizeof(int));
    memcpy(old_out, g->nodes[i].out, (size_t)n_out * sizeof(int));
    for (int k = 0; k < n_in; k++) {
        int v = old_in[k];
        if (v < 0 || !is_half(g->values[v].t.dtype)) continue;
        snprintf(name, sizeof name, "%s:in%d:f32", g->nodes[i + added].name, k);
        if (g->values[v].t.data) {
            /* a weight: converted now, once, rather than by a layer at each run */
            g->nodes[i + added].in[k] = const_f32(g, name, v);
            continue;
        }
        int w = insert_cast(g, i + added, name, v, IR_F32, -1);
        added++;
        g->nodes[i + added].in[k] = w;
    }
    ir_node *n = &g->nodes[i + added];
    int half_out[64] = {0};
    for (int k = 0; k < n_out && k < 64; k++) {
        int v = old_out[k];
        if (v < 0 || !is_half(g->values[v].t.dtype)) continue;
        snprintf(name, sizeof name, "%s:out%d:f32", n->name, k);
        n->out[k] = ir_graph_add_value_unique(g, name);
        g->values[n->out[k]].producer = i + added;
        half_out[k] = g->values[v].t.dtype;
    }
    pz_err err = {0};
    int ok = (!n->op->parse || n->op->parse(g, n, n->params, &err) == PZ_OK) &&
             n->op->infer(g, n, &err) == PZ_OK;
    for (int k = 0; ok && k < n_out && k < 64; k++)
        if (half_out[k] && g->values[n->out[k]].t.dtype != IR_F32) ok = 0;
    if (!ok) {
        /* keep the node as it was; the input casts stay, unread */
        memcpy(n->in, old_in, (size_t)n_in * sizeof(int));
        memcpy(n->out, old_out, (size_t)n_out * sizeof(int));
        for (int k = 0; k < n_out; k++)
            if (old_out[k] >= 0) g->values[old_out[k]].producer = i + added;
        memset(&err, 0, sizeof err);
        if (n->op->parse) n->op->parse(g, n, n->params, &err);
        free(old_in);
        *after = 0;
        return added;
    }
    ir_cost_node(g, n);
    int at = i + added + 1, outs = 0;
    for (int k = 0; k < n_out && k < 64; k++) {
        if (!half_out[k]) continue;
        snprintf(name, sizeof name, "%s:out%d:half", g->nodes[i + added].name, k);
        insert_cast(g, at++, name, g->nodes[i + added].out[k], half_out[k], old_out[k]);
        outs++;
    }
    free(old_in);
    *after = outs;
    return added;
}

/* A Cast this file inserted after a node (named "NODE:outK:half"): a Cast
 * to half that the model wrote itself rounds on purpose and stays. */
static int inserted(const ir_node *c)
{
    size_t n = strlen(c->name);
    return n > 5 && !strcmp(c->name + n - 5, ":half");
}

/* A Cast float32 -> half that this file inserted, read by Casts half -> float32: their readers read
 * its float32 input instead and those Casts go; it goes too when nothing
 * else reads it. */
static void skip_pairs(ir_graph *g)
{
    unsigned char *dead = pz_xcalloc((size_t)g->n_nodes + 1, 1);
    for (int i = 0; i < g->n_nodes; i++) {
        ir_node *c = &g->nodes[i];
        if (!c->op || strcmp(c->op_type, "Cast") || !inserted(c) || c->in[0] < 0 || c->out[0] < 0)
            continue;
        const ir_value *src = &g->values[c->in[0]], *mid = &g->values[c->out[0]];
        if (src->t.dtype != IR_F32 || !is_half(mid->t.dtype) || mid->t.data) continue;
        for (int j = i + 1; j < g->n_nodes; j++) {
            ir_node *r = &g->nodes[j];
            if (!r->op || strcmp(r->op_type, "Cast") || r->in[0] != c->out[0] || r->out[0] < 0 ||
                g->values[r->out[0]].t.dtype != IR_F32)
                continue;
            if (g->values[r->out[0]].is_output) {
                r->in[0] = c->in[0];   /* a graph output: a float32 copy writes it */
                continue;
            }
            ir_graph_replace_uses(g, r->out[0], c->in[0]);
            r->in[0] = -1;
            dead[j] = 1;
        }
        if (!ir_graph_count_uses(g, c->out[0]) && !mid->is_output) dead[i] = 1;
    }
    ir_graph_compact(g, dead);
    free(dead);
}

void op_widen_half(ir_graph *g)
{
    int any = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        int runs = 0;
        for (int k = 0; k < n->n_out; k++)
            runs |= n->out[k] >= 0 && !g->values[n->out[k]].t.data;
        if (!runs || !wraps(g, n)) continue;
        int after = 0;
        i += wrap(g, i, &after);
        i += after;
        any = 1;
    }
    if (any) skip_pairs(g);
}
