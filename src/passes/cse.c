/* cse.c - common subexpressions: two nodes that apply the same op, with the
 * same attributes, to the same inputs compute the same values; the later
 * one goes and its readers read the earlier one's outputs.
 *
 *   m -> Reshape(m, s1) -> Cast -> Where(., a1, b1)      (encoder block 1)
 *   m -> Reshape(m, s2) -> Cast -> Where(., a2, b2)      (block 2: the same)
 *
 * becomes one chain read by both blocks (PyTorch's nn.TransformerEncoder
 * recomputes its attention mask in every block). Two inputs are the same
 * when they are one value, or two constants of one type, shape and bytes
 * (each block has its own copy of the shape constant). The nodes are
 * walked in topological order, so a chain merges link by link; the walk
 * repeats until a walk merges nothing.
 *
 * Merged only when all of this holds, else kept: both nodes run (a node
 * whose outputs infer folded into constants goes anyway); both plain
 * (pass_plain: no act, nothing fused); the op deterministic (not op->random:
 * RandomUniform, Bernoulli, a training Dropout's unfolded random layer,
 * LoopBegin's per-iteration values) and of the same op_type and domain; no
 * subgraph, sparse tensor or type attribute (not compared: kept apart);
 * every attribute equal by name, type and value; the same input count and
 * the same inputs slot by slot (an omitted input only against an omitted
 * one); the same outputs present, each tensor-kind (not a sequence or an
 * optional) of one type and shape, neither run-time shaped; and no output
 * of the later node a graph output (its value keeps its name and buffer). */
#include <string.h>

#include "passes_internal.h"

/* Whether values a and b hold the same bytes every run: one value, or two
 * constants of one type, shape and contents. */
static int same_input(const ir_graph *g, int a, int b)
{
    if (a == b) return 1;
    if (a < 0 || b < 0) return 0;
    const ir_value *x = &g->values[a], *y = &g->values[b];
    if (!x->t.data || !y->t.data || x->kind != IR_KIND_TENSOR || y->kind != IR_KIND_TENSOR)
        return 0;
    if (x->t.dtype != y->t.dtype || x->t.rank != y->t.rank || x->t.nbytes != y->t.nbytes)
        return 0;
    for (int d = 0; d < x->t.rank; d++)
        if (x->t.dims[d] != y->t.dims[d]) return 0;
    return !memcmp(x->t.data, y->t.data, x->t.nbytes);
}

static int same_tensor_attr(const ir_tensor *a, const ir_tensor *b)
{
    if (!a || !b) return a == b;
    if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes) return 0;
    if (memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)(a->rank > 0 ? a->rank : 0)))
        return 0;
    return a->nbytes == 0 || (a->data && b->data && !memcmp(a->data, b->data, a->nbytes));
}

/* Whether attributes a and b (of one name) are equal; 0 for the kinds not
 * compared (subgraphs, sparse tensors, type protos). */
static int same_attr(const ir_attr *a, const ir_attr *b)
{
    if (a->type != b->type) return 0;
    switch (a->type) {
    case IR_ATTR_FLOAT: return !memcmp(&a->f, &b->f, sizeof a->f);   /* bits: NaN equal */
    case IR_ATTR_INT: return a->i == b->i;
    case IR_ATTR_STRING: return a->s && b->s && !strcmp(a->s, b->s);
    case IR_ATTR_TENSOR: return same_tensor_attr(a->t, b->t);
    case IR_ATTR_FLOATS:
        return a->n == b->n && (!a->n || !memcmp(a->floats, b->floats, sizeof(float) * (size_t)a->n));
    case IR_ATTR_INTS:
        return a->n == b->n && (!a->n || !memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)a->n));
    case IR_ATTR_STRINGS:
        if (a->n != b->n) return 0;
        for (int k = 0; k < a->n; k++)
            if (strcmp(a->strings[k], b->strings[k])) return 0;
        return 1;
    default: return 0;
    }
}

static int same_attrs(const ir_node *a, const ir_node *b)
{
    if (a->n_attrs != b->n_attrs) return 0;
    for (int k = 0; k < a->n_attrs; k++) {
        const ir_attr *x = &a->attrs[k], *y = NULL;
        for (int j = 0; j < b->n_attrs && !y; j++)
            if (!strcmp(b->attrs[j].name, x->name)) y = &b->attrs[j];
        if (!y || !same_attr(x, y)) return 0;
    }
    return 1;
}

/* Whether node n may take part at all (either side of a merge). */
static int cse_candidate(const ir_graph *g, const ir_node *n)
{
    if (!n->op || n->op->random || n->n_out < 1 || !pass_plain(g, n) || pass_folded(g, n))
        return 0;
    for (int k = 0; k < n->n_out; k++) {
        int v = n->out[k];
        if (v < 0) continue;
        const ir_value *y = &g->values[v];
        if (y->kind != IR_KIND_TENSOR || y->dyn || y->rt_alloc) return 0;
    }
    return 1;
}

/* Whether node b (later) computes what node a computes, and may go. */
static int same_node(const ir_graph *g, const ir_node *a, const ir_node *b)
{
    if (a->op != b->op || strcmp(a->op_type, b->op_type) || strcmp(a->domain, b->domain))
        return 0;
    if (a->n_in != b->n_in || a->n_out != b->n_out || !same_attrs(a, b)) return 0;
    for (int k = 0; k < a->n_in; k++)
        if (!same_input(g, a->in[k], b->in[k])) return 0;
    for (int k = 0; k < a->n_out; k++) {
        int x = a->out[k], y = b->out[k];
        if ((x < 0) != (y < 0)) return 0;
        if (y < 0) continue;
        if (g->values[y].is_output) return 0;
        const ir_tensor *tx = &g->values[x].t, *ty = &g->values[y].t;
        if (tx->dtype != ty->dtype || tx->rank != ty->rank) return 0;
        for (int d = 0; d < tx->rank; d++)
            if (tx->dims[d] != ty->dims[d]) return 0;
    }
    return 1;
}

/* FNV-1a over what same_node compares first: the op and the inputs (a
 * constant by its type, size and first and last bytes). */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

static uint64_t node_hash(const ir_graph *g, const ir_node *n)
{
    uint64_t h = mix(14695981039346656037ull, &n->op, sizeof n->op);
    h = mix(h, &n->n_in, sizeof n->n_in);
    for (int k = 0; k < n->n_in; k++) {
        int v = n->in[k];
        const ir_tensor *t = v >= 0 ? &g->values[v].t : NULL;
        if (!t || !t->data) {
            h = mix(h, &v, sizeof v);
            continue;
        }
        size_t m = t->nbytes < 32 ? t->nbytes : 32;
        h = mix(h, &t->dtype, sizeof t->dtype);
        h = mix(h, &t->nbytes, sizeof t->nbytes);
        h = mix(h, t->data, m);
        h = mix(h, (const char *)t->data + t->nbytes - m, m);
    }
    return h;
}

/* One walk: merges each node into an earlier equal one; the merge count. */
static int cse_walk(ir_graph *g, unsigned char *dead)
{
    int n = g->n_nodes, cap = 16, merged = 0;
    while (cap < 2 * n) cap *= 2;
    int *head = pz_xmalloc((size_t)cap * sizeof *head);   /* bucket -> node, chained */
    int *next = pz_xmalloc((size_t)(n ? n : 1) * sizeof *next);
    uint64_t *hash = pz_xmalloc((size_t)(n ? n : 1) * sizeof *hash);
    for (int b = 0; b < cap; b++) head[b] = -1;
    for (int i = 0; i < n; i++) {
        ir_node *b = &g->nodes[i];
        if (dead[i] || !cse_candidate(g, b)) continue;
        hash[i] = node_hash(g, b);
        int bucket = (int)(hash[i] & (uint64_t)(cap - 1)), j = head[bucket];
        while (j >= 0 && !(hash[j] == hash[i] && same_node(g, &g->nodes[j], b))) j = next[j];
        if (j < 0) {
            next[i] = head[bucket];
            head[bucket] = i;
            continue;
        }
        for (int k = 0; k < b->n_out; k++)
            if (b->out[k] >= 0) ir_graph_replace_uses(g, b->out[k], g->nodes[j].out[k]);
        pass_kill(g, i, dead);
        merged++;
    }
    free(head);
    free(next);
    free(hash);
    return merged;
}

void pass_cse(ir_graph *g, unsigned char *dead, passes_stats *st)
{
    int k;
    while ((k = cse_walk(g, dead)) > 0) st->cse += k;
}
