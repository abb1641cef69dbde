/* graph.c - the graph of layer nodes and data nodes: building, lookup, order. */
#include "graph.h"

#include <string.h>

#include "../rt/pz_strings.h"

ir_graph *ir_graph_new(void)
{
    ir_graph *g = pz_xcalloc(1, sizeof *g);
    g->name = pz_xstrdup("model");
    g->producer = pz_xstrdup("");
    g->opset = 0;
    return g;
}

void ir_tensor_free_data(ir_tensor *t)
{
    free(t->data);
    t->data = NULL;
    t->nbytes = 0;
}

static void attr_free(ir_attr *a)
{
    free(a->name);
    free(a->s);
    free(a->floats);
    free(a->ints);
    for (int i = 0; i < a->n && a->strings; i++) free(a->strings[i]);
    free(a->strings);
    if (a->t) {
        ir_tensor_free_data(a->t);
        free(a->t);
    }
    ir_graph_free(a->g);
}

static void node_free(ir_node *n)
{
    free(n->name);
    free(n->op_type);
    free(n->domain);
    free(n->in);
    free(n->out);
    for (int i = 0; i < n->n_attrs; i++) attr_free(&n->attrs[i]);
    free(n->attrs);
    free(n->params);
}

void ir_graph_free(ir_graph *g)
{
    if (!g) return;
    for (int i = 0; i < g->n_values; i++) {
        free(g->values[i].name);
        if (g->values[i].owns_data) ir_tensor_free_data(&g->values[i].t);
    }
    for (int i = 0; i < g->n_nodes; i++) node_free(&g->nodes[i]);
    free(g->values);
    free(g->nodes);
    free(g->inputs);
    free(g->input_pos);
    free(g->outputs);
    for (int i = 0; i < g->n_out_groups; i++) free(g->out_groups[i].name);
    free(g->out_groups);
    for (int i = 0; i < g->n_in_groups; i++) free(g->in_groups[i].name);
    free(g->in_groups);
    free(g->hash);
    free(g->name);
    free(g->producer);
    free(g);
}

/* FNV-1a */
static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static void hash_insert(ir_graph *g, int vid)
{
    uint32_t m = (uint32_t)g->hash_cap - 1;
    uint32_t k = hash_str(g->values[vid].name) & m;
    while (g->hash[k] >= 0) k = (k + 1) & m;
    g->hash[k] = vid;
}

static void hash_rebuild(ir_graph *g, int cap)
{
    free(g->hash);
    g->hash_cap = cap;
    g->hash = pz_xmalloc((size_t)cap * sizeof(int));
    for (int i = 0; i < cap; i++) g->hash[i] = -1;
    for (int v = 0; v < g->n_values; v++) hash_insert(g, v);
}

int ir_graph_find(const ir_graph *g, const char *name)
{
    if (!g->hash_cap) return -1;
    uint32_t m = (uint32_t)g->hash_cap - 1;
    for (uint32_t k = hash_str(name) & m; g->hash[k] >= 0; k = (k + 1) & m)
        if (strcmp(g->values[g->hash[k]].name, name) == 0) return g->hash[k];
    return -1;
}

int ir_graph_add_value(ir_graph *g, const char *name)
{
    PZ_ASSERT(ir_graph_find(g, name) < 0);
    if (g->n_values == g->cap_values) {
        g->cap_values = g->cap_values ? 2 * g->cap_values : 64;
        g->values = pz_xrealloc(g->values, (size_t)g->cap_values * sizeof *g->values);
    }
    int vid = g->n_values++;
    ir_value *v = &g->values[vid];
    memset(v, 0, sizeof *v);
    v->name = pz_xstrdup(name);
    v->t.rank = -1;
    v->producer = -1;
    v->decl_rank = -1;
    if (2 * g->n_values > g->hash_cap) hash_rebuild(g, g->hash_cap ? 2 * g->hash_cap : 128);
    else hash_insert(g, vid);
    return vid;
}

int ir_graph_value(ir_graph *g, const char *name)
{
    int vid = ir_graph_find(g, name);
    return vid >= 0 ? vid : ir_graph_add_value(g, name);
}

int ir_graph_add_node(ir_graph *g, const char *name, const char *op_type, const char *domain,
                      int n_in, int n_out)
{
    if (g->n_nodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 64;
        g->nodes = pz_xrealloc(g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes);
    }
    int idx = g->n_nodes++;
    ir_node *n = &g->nodes[idx];
    memset(n, 0, sizeof *n);
    n->name = pz_xstrdup(name);
    n->op_type = pz_xstrdup(op_type);
    n->domain = pz_xstrdup(domain ? domain : "");
    n->n_in = n_in;
    n->n_out = n_out;
    n->in = pz_xmalloc((size_t)(n_in ? n_in : 1) * sizeof(int));
    n->out = pz_xmalloc((size_t)(n_out ? n_out : 1) * sizeof(int));
    for (int i = 0; i < n_in; i++) n->in[i] = -1;
    for (int i = 0; i < n_out; i++) n->out[i] = -1;
    return idx;
}

static void push_id(int **arr, int *n, int id)
{
    *arr = pz_xrealloc(*arr, (size_t)(*n + 1) * sizeof(int));
    (*arr)[(*n)++] = id;
}

void ir_graph_add_input_at(ir_graph *g, int vid, int pos)
{
    int n = g->n_inputs;
    g->values[vid].is_input = 1;
    push_id(&g->input_pos, &n, pos);
    push_id(&g->inputs, &g->n_inputs, vid);
}

void ir_graph_add_input(ir_graph *g, int vid)
{
    ir_graph_add_input_at(g, vid, g->n_inputs);
}

void ir_graph_add_in_group(ir_graph *g, const char *name, int kind, int inner, int first, int n)
{
    g->in_groups = pz_xrealloc(g->in_groups, (size_t)(g->n_in_groups + 1) * sizeof *g->in_groups);
    g->in_groups[g->n_in_groups++] = (ir_out_group){pz_xstrdup(name), kind, inner, first, n};
}

void ir_graph_add_output(ir_graph *g, int vid)
{
    g->values[vid].is_output = 1;
    push_id(&g->outputs, &g->n_outputs, vid);
}

/* Kahn's algorithm over value producers. Ready nodes are taken in model
 * order, so an already-sorted graph keeps its order exactly. */
pz_status ir_graph_sort(ir_graph *g, pz_err *err)
{
    int nn = g->n_nodes, nv = g->n_values;
    pz_status st = PZ_OK;
    int *producer = pz_xmalloc((size_t)(nv ? nv : 1) * sizeof(int));
    int *missing = pz_xcalloc((size_t)(nn ? nn : 1), sizeof(int));  /* unproduced inputs */
    int *order = pz_xmalloc((size_t)(nn ? nn : 1) * sizeof(int));
    unsigned char *done = pz_xcalloc((size_t)(nn ? nn : 1), 1);
    /* users[v] as a CSR list */
    int *ucount = pz_xcalloc((size_t)nv + 1, sizeof(int));
    int *ulist = NULL;

    for (int v = 0; v < nv; v++) producer[v] = -1;
    for (int i = 0; i < nn; i++)
        for (int j = 0; j < g->nodes[i].n_out; j++) {
            int v = g->nodes[i].out[j];
            if (v < 0) continue;
            if (producer[v] >= 0 || g->values[v].is_input || g->values[v].t.data) {
                st = pz_fail(err, PZ_ERR_INPUT,
                             "node \"%s\" (%s): output \"%s\" is already %s",
                             g->nodes[i].name, g->nodes[i].op_type, g->values[v].name,
                             producer[v] >= 0 ? "produced by another node"
                                              : "a graph input or initializer");
                goto out;
            }
            producer[v] = i;
        }
    for (int i = 0; i < nn; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++) {
            int v = g->nodes[i].in[j];
            if (v < 0) continue;
            if (producer[v] < 0 && !g->values[v].is_input && !g->values[v].t.data) {
                st = pz_fail(err, PZ_ERR_INPUT,
                             "node \"%s\" (%s): input %d \"%s\" is not a graph input, an "
                             "initializer or the output of any node (missing initializer?)",
                             g->nodes[i].name, g->nodes[i].op_type, j, g->values[v].name);
                goto out;
            }
            if (producer[v] >= 0) {
                missing[i]++;
                ucount[v + 1]++;
            }
        }
    for (int v = 0; v < nv; v++) ucount[v + 1] += ucount[v];
    ulist = pz_xmalloc((size_t)(ucount[nv] ? ucount[nv] : 1) * sizeof(int));
    {
        int *fill = pz_xcalloc((size_t)(nv ? nv : 1), sizeof(int));
        for (int i = 0; i < nn; i++)
            for (int j = 0; j < g->nodes[i].n_in; j++) {
                int v = g->nodes[i].in[j];
                if (v >= 0 && producer[v] >= 0) ulist[ucount[v] + fill[v]++] = i;
            }
        free(fill);
    }
    /* Repeated scans from the lowest ready index keep model order; a min-heap
     * would be O(n log n) but models have at most thousands of nodes. */
    {
        int n_done = 0, start = 0;
        while (n_done < nn) {
            int pick = -1;
            for (int i = start; i < nn; i++)
                if (!done[i] && missing[i] == 0) { pick = i; break; }
            if (pick < 0) {
                int bad = 0;
                while (bad < nn && done[bad]) bad++;
                st = pz_fail(err, PZ_ERR_INPUT,
                             "the graph has a cycle: node \"%s\" (%s) depends on its own output",
                             g->nodes[bad].name, g->nodes[bad].op_type);
                goto out;
            }
            done[pick] = 1;
            order[n_done++] = pick;
            int lowest = nn;
            for (int j = 0; j < g->nodes[pick].n_out; j++) {
                int v = g->nodes[pick].out[j];
                if (v < 0) continue;
                for (int u = ucount[v]; u < ucount[v + 1]; u++) {
                    int c = ulist[u];
                    if (--missing[c] == 0 && c < lowest) lowest = c;
                }
            }
            while (start < nn && done[start]) start++;
            if (lowest < start) start = lowest;
        }
    }
    {
        ir_node *sorted = pz_xmalloc((size_t)(nn ? nn : 1) * sizeof *sorted);
        for (int i = 0; i < nn; i++) sorted[i] = g->nodes[order[i]];
        if (nn > 0) memcpy(g->nodes, sorted, (size_t)nn * sizeof *sorted);
        free(sorted);
        for (int v = 0; v < nv; v++) g->values[v].producer = -1;
        for (int i = 0; i < nn; i++)
            for (int j = 0; j < g->nodes[i].n_out; j++)
                if (g->nodes[i].out[j] >= 0) g->values[g->nodes[i].out[j]].producer = i;
    }
out:
    free(producer);
    free(missing);
    free(order);
    free(done);
    free(ucount);
    free(ulist);
    return st;
}

void ir_graph_compact(ir_graph *g, const unsigned char *dead)
{
    int k = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        if (dead && dead[i]) node_free(&g->nodes[i]);
        else g->nodes[k++] = g->nodes[i];
    }
    g->n_nodes = k;
    for (int v = 0; v < g->n_values; v++) g->values[v].producer = -1;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0) g->values[g->nodes[i].out[j]].producer = i;
}

int64_t ir_tensor_numel(const ir_tensor *t)
{
    /* Saturates at INT64_MAX (a malformed model's dims may overflow the
       product; callers treat it as too large), but a zero dim wins. */
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] == 0) return 0;
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        if (__builtin_mul_overflow(n, t->dims[i], &n)) return INT64_MAX;
    return n;
}

pz_status ir_tensor_bytes(const ir_tensor *t, size_t *out, const char *what, pz_err *err)
{
    size_t es = ir_dtype_size(t->dtype);
    if (!es)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: element type %s (%d) is not supported",
                       what, ir_dtype_name(t->dtype), (int)t->dtype);
    uint64_t n = es;
    for (int i = 0; i < t->rank; i++) {
        if (t->dims[i] < 0)
            return pz_fail(err, PZ_ERR_INPUT, "%s: dimension %d is negative (%lld)", what, i,
                           (long long)t->dims[i]);
        if (t->dims[i] && n > (uint64_t)INT64_MAX / (uint64_t)t->dims[i])
            return pz_fail(err, PZ_ERR_INPUT,
                           "%s: the product of its dimensions overflows (dimension %d is %lld)",
                           what, i, (long long)t->dims[i]);
        n *= (uint64_t)t->dims[i];
    }
    if (n > SIZE_MAX)
        return pz_fail(err, PZ_ERR_INPUT, "%s: %llu bytes do not fit in memory", what,
                       (unsigned long long)n);
    *out = (size_t)n;
    return PZ_OK;
}

char *ir_shape_str(const ir_tensor *t, char *buf, size_t size)
{
    if (t->rank < 0) {
        snprintf(buf, size, "?");
        return buf;
    }
    size_t k = 0;
    buf[0] = 0;
    if (t->rank == 0) snprintf(buf, size, "scalar");
    for (int i = 0; i < t->rank && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, i ? "x%lld" : "%lld", (long long)t->dims[i]);
    return buf;
}

void ir_value_set_data(ir_graph *g, int vid, const void *data, size_t nbytes)
{
    ir_value *v = &g->values[vid];
    if (v->owns_data) ir_tensor_free_data(&v->t);
    if (v->t.dtype == IR_STRING) {
        /* the pointers and the bytes they point to (rt/pz_strings.h) */
        v->t.data = pz_xcheck(pz_strings_copy(data, (int64_t)(nbytes / sizeof(char *))), nbytes);
    } else {
        v->t.data = pz_xmalloc(nbytes);
        if (nbytes) memcpy(v->t.data, data, nbytes);
    }
    v->t.nbytes = nbytes;
    v->owns_data = 1;
}

void ir_value_take_data(ir_graph *g, int vid, void *data, size_t nbytes)
{
    ir_value *v = &g->values[vid];
    if (v->owns_data) ir_tensor_free_data(&v->t);
    v->t.data = data;
    v->t.nbytes = nbytes;
    v->owns_data = 1;
}

int ir_graph_add_value_unique(ir_graph *g, const char *base)
{
    if (ir_graph_find(g, base) < 0) return ir_graph_add_value(g, base);
    size_t len = strlen(base) + 24;
    char *name = pz_xmalloc(len);
    for (long k = 1;; k++) {
        snprintf(name, len, "%s:%ld", base, k);
        if (ir_graph_find(g, name) < 0) break;
    }
    int vid = ir_graph_add_value(g, name);
    free(name);
    return vid;
}

int ir_graph_count_uses(const ir_graph *g, int vid)
{
    int uses = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++) uses += g->nodes[i].in[k] == vid;
    return uses;
}

void ir_graph_replace_uses(ir_graph *g, int from, int to)
{
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_in; k++)
            if (g->nodes[i].in[k] == from) g->nodes[i].in[k] = to;
}

int ir_graph_insert_node(ir_graph *g, int at, const char *name, const char *op_type,
                         const char *domain, int n_in, int n_out)
{
    PZ_ASSERT(at >= 0 && at <= g->n_nodes);
    int last = ir_graph_add_node(g, name, op_type, domain, n_in, n_out);
    ir_node fresh = g->nodes[last];
    memmove(&g->nodes[at + 1], &g->nodes[at], (size_t)(last - at) * sizeof *g->nodes);
    g->nodes[at] = fresh;
    /* producers: every node from `at` on moved */
    for (int i = at; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0) g->values[g->nodes[i].out[j]].producer = i;
    return at;
}

void ir_node_clear_attrs(ir_node *n)
{
    for (int i = 0; i < n->n_attrs; i++) attr_free(&n->attrs[i]);
    free(n->attrs);
    n->attrs = NULL;
    n->n_attrs = 0;
}

void ir_node_add_attr_int(ir_node *n, const char *name, int64_t v)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    n->attrs[n->n_attrs++] = (ir_attr){.name = pz_xstrdup(name), .type = IR_ATTR_INT, .i = v};
}

void ir_node_add_attr_float(ir_node *n, const char *name, float v)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    n->attrs[n->n_attrs++] = (ir_attr){.name = pz_xstrdup(name), .type = IR_ATTR_FLOAT, .f = v};
}

void ir_node_set_n_in(ir_node *n, int n_in)
{
    n->in = pz_xrealloc(n->in, (size_t)(n_in ? n_in : 1) * sizeof(int));
    for (int i = n->n_in; i < n_in; i++) n->in[i] = -1;
    n->n_in = n_in;
}

/* ---- deep copies (subgraphs) --------------------------------------------- */

static void tensor_copy(ir_tensor *dst, const ir_tensor *src)
{
    *dst = *src;
    if (src->data && src->dtype == IR_STRING)   /* the bytes too (rt/pz_strings.h) */
        dst->data = pz_xcheck(pz_strings_copy(src->data, (int64_t)(src->nbytes / sizeof(char *))),
                              src->nbytes);
    else if (src->data) {
        dst->data = pz_xmalloc(src->nbytes ? src->nbytes : 1);
        memcpy(dst->data, src->data, src->nbytes);
    }
}

void ir_attr_copy(ir_attr *dst, const ir_attr *src)
{
    *dst = *src;
    dst->name = pz_xstrdup(src->name);
    dst->s = src->s ? pz_xstrdup(src->s) : NULL;
    if (src->floats) {
        dst->floats = pz_xmalloc((size_t)(src->n ? src->n : 1) * sizeof(float));
        memcpy(dst->floats, src->floats, (size_t)src->n * sizeof(float));
    }
    if (src->ints) {
        dst->ints = pz_xmalloc((size_t)(src->n ? src->n : 1) * sizeof(int64_t));
        memcpy(dst->ints, src->ints, (size_t)src->n * sizeof(int64_t));
    }
    if (src->strings) {
        dst->strings = pz_xcalloc((size_t)(src->n ? src->n : 1), sizeof(char *));
        for (int i = 0; i < src->n; i++) dst->strings[i] = pz_xstrdup(src->strings[i]);
    }
    if (src->t) {
        dst->t = pz_xmalloc(sizeof *dst->t);
        tensor_copy(dst->t, src->t);
    }
    dst->g = src->g ? ir_graph_clone(src->g) : NULL;
}

ir_graph *ir_graph_clone(const ir_graph *g)
{
    ir_graph *c = ir_graph_new();
    free(c->name);
    free(c->producer);
    c->name = pz_xstrdup(g->name);
    c->producer = pz_xstrdup(g->producer);
    c->ir_version = g->ir_version;
    c->opset = g->opset;
    c->rt_shapes = g->rt_shapes;
    for (int v = 0; v < g->n_values; v++) {
        int id = ir_graph_add_value(c, g->values[v].name);
        ir_value *cv = &c->values[id];
        char *name = cv->name;
        *cv = g->values[v];
        cv->name = name;
        if (g->values[v].t.data) {
            tensor_copy(&cv->t, &g->values[v].t);
            cv->owns_data = 1;
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        int k = ir_graph_add_node(c, n->name, n->op_type, n->domain, n->n_in, n->n_out);
        ir_node *cn = &c->nodes[k];
        cn->op = n->op;
        memcpy(cn->in, n->in, (size_t)n->n_in * sizeof(int));
        memcpy(cn->out, n->out, (size_t)n->n_out * sizeof(int));
        cn->n_attrs = n->n_attrs;
        cn->attrs = pz_xcalloc((size_t)(n->n_attrs ? n->n_attrs : 1), sizeof *cn->attrs);
        for (int a = 0; a < n->n_attrs; a++) ir_attr_copy(&cn->attrs[a], &n->attrs[a]);
        cn->act = n->act;
        cn->unfold_k = n->unfold_k;
        cn->branch_of = n->branch_of;
    }
    for (int i = 0; i < g->n_inputs; i++) ir_graph_add_input_at(c, g->inputs[i], g->input_pos[i]);
    c->n_model_inputs = g->n_model_inputs;
    for (int i = 0; i < g->n_outputs; i++) ir_graph_add_output(c, g->outputs[i]);
    if (g->n_out_groups) {
        c->out_groups = pz_xmalloc((size_t)g->n_out_groups * sizeof *c->out_groups);
        for (int i = 0; i < g->n_out_groups; i++) {
            c->out_groups[i] = g->out_groups[i];
            c->out_groups[i].name = pz_xstrdup(g->out_groups[i].name);
        }
        c->n_out_groups = g->n_out_groups;
    }
    for (int i = 0; i < g->n_in_groups; i++) {
        const ir_out_group *x = &g->in_groups[i];
        ir_graph_add_in_group(c, x->name, x->kind, x->inner, x->first, x->n);
    }
    return c;
}

void ir_graph_rename_value(ir_graph *g, int vid, const char *name)
{
    PZ_ASSERT(ir_graph_find(g, name) < 0);
    free(g->values[vid].name);
    g->values[vid].name = pz_xstrdup(name);
    hash_rebuild(g, g->hash_cap);
}

void ir_graph_remove_node(ir_graph *g, int i)
{
    PZ_ASSERT(i >= 0 && i < g->n_nodes);
    for (int j = 0; j < g->nodes[i].n_out; j++)
        if (g->nodes[i].out[j] >= 0) g->values[g->nodes[i].out[j]].producer = -1;
    node_free(&g->nodes[i]);
    memmove(&g->nodes[i], &g->nodes[i + 1], (size_t)(g->n_nodes - i - 1) * sizeof *g->nodes);
    g->n_nodes--;
    for (int k = i; k < g->n_nodes; k++)
        for (int j = 0; j < g->nodes[k].n_out; j++)
            if (g->nodes[k].out[j] >= 0) g->values[g->nodes[k].out[j]].producer = k;
}

void ir_graph_move_tail(ir_graph *g, int first, int at)
{
    PZ_ASSERT(at >= 0 && at <= first && first <= g->n_nodes);
    int k = g->n_nodes - first;
    if (k == 0 || at == first) return;
    ir_node *tmp = pz_xmalloc((size_t)k * sizeof *tmp);
    memcpy(tmp, &g->nodes[first], (size_t)k * sizeof *tmp);
    memmove(&g->nodes[at + k], &g->nodes[at], (size_t)(first - at) * sizeof *g->nodes);
    memcpy(&g->nodes[at], tmp, (size_t)k * sizeof *tmp);
    free(tmp);
    for (int i = at; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_out; j++)
            if (g->nodes[i].out[j] >= 0) g->values[g->nodes[i].out[j]].producer = i;
}
