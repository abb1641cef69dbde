/* op_common.c - helpers shared by the op files: attributes, shapes, errors. */
#include <stdarg.h>
#include <string.h>

#include "op.h"

static const char *attr_type_name(int t)
{
    static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                  "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                  "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO", "TYPE_PROTOS"};
    return t >= 0 && t < (int)PZ_ARRAY_LEN(names) ? names[t] : "UNKNOWN";
}

pz_status op_err(pz_err *err, const ir_node *n, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): %s", n->name, n->op_type, msg);
}

pz_status op_err_attr(pz_err *err, const ir_node *n, const char *attr, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s': %s", n->name,
                   n->op_type, attr, msg);
}

const ir_attr *op_attr(const ir_node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
    return NULL;
}

pz_status op_attr_expect(const ir_node *n, const ir_attr *a, ir_attr_type t, pz_err *err)
{
    if (a->type == t) return PZ_OK;
    return op_err_attr(err, n, a->name, "expected type %s, got %s", attr_type_name(t),
                       attr_type_name(a->type));
}

pz_status op_attr_int(const ir_node *n, const char *name, int64_t def, int64_t *out, pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *out = def;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_INT, err)) return err->code;
    *out = a->i;
    return PZ_OK;
}

pz_status op_attr_float(const ir_node *n, const char *name, float def, float *out, pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *out = def;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_FLOAT, err)) return err->code;
    *out = a->f;
    return PZ_OK;
}

pz_status op_attr_string(const ir_node *n, const char *name, const char *def, const char **out,
                         pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *out = def;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_STRING, err)) return err->code;
    *out = a->s;
    return PZ_OK;
}

pz_status op_attr_ints(const ir_node *n, const char *name, int64_t *out, int max, int *count,
                       pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *count = -1;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_INTS, err)) return err->code;
    if (a->n > max) return op_err_attr(err, n, name, "has %d entries, at most %d allowed", a->n, max);
    memcpy(out, a->ints, (size_t)a->n * sizeof *out);
    *count = a->n;
    return PZ_OK;
}

pz_status op_attr_floats(const ir_node *n, const char *name, float *out, int max, int *count,
                         pz_err *err)
{
    const ir_attr *a = op_attr(n, name);
    *count = -1;
    if (!a) return PZ_OK;
    if (op_attr_expect(n, a, IR_ATTR_FLOATS, err)) return err->code;
    if (a->n > max) return op_err_attr(err, n, name, "has %d entries, at most %d allowed", a->n, max);
    memcpy(out, a->floats, (size_t)a->n * sizeof *out);
    *count = a->n;
    return PZ_OK;
}

const ir_tensor *op_in(const ir_graph *g, const ir_node *n, int i)
{
    if (i >= n->n_in || n->in[i] < 0) return NULL;
    return &g->values[n->in[i]].t;
}

ir_tensor *op_out(ir_graph *g, const ir_node *n, int i)
{
    if (i >= n->n_out || n->out[i] < 0) return NULL;
    return &g->values[n->out[i]].t;
}

const ir_tensor *op_in_const(const ir_graph *g, const ir_node *n, int i)
{
    const ir_tensor *t = op_in(g, n, i);
    return t && t->data ? t : NULL;
}

pz_status op_need_const(pz_err *err, const ir_graph *g, const ir_node *n, int i, const char *what,
                        const char *why)
{
    const char *v = g->values[n->in[i]].name;
    if (err->code == PZ_OK) snprintf(err->need_const, sizeof err->need_const, "%s", v);
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): input %d (%s, \"%s\") must be a "
                   "constant: %s", n->name, n->op_type, i, what, v, why);
}

pz_status op_const_ints(const ir_graph *g, const ir_node *n, int i, const char *what, int64_t *out,
                        int max, int *count, pz_err *err)
{
    const ir_tensor *t = op_in(g, n, i);
    if (!t) return op_err(err, n, "input %d (%s) is missing", i, what);
    if (!t->data)
        return op_need_const(err, g, n, i, what, g->rt_shapes
                             ? "this op does not read it at run time (the size of its output "
                               "would have no bound at compile time); give its value at "
                               "compile with --input"
                             : "shapes that depend on run-time data are not supported");
    if (t->dtype != IR_I64 && t->dtype != IR_I32)
        return op_err(err, n, "input %d (%s) must be int64 or int32, got %s", i, what,
                      ir_dtype_name(t->dtype));
    if (t->rank > 1) return op_err(err, n, "input %d (%s) must be 1-D, got rank %d", i, what, t->rank);
    int64_t cnt = ir_tensor_numel(t);
    if (cnt > max) return op_err(err, n, "input %d (%s) has %lld entries, at most %d allowed", i,
                                 what, (long long)cnt, max);
    for (int64_t k = 0; k < cnt; k++) out[k] = ir_load_i64(t->data, t->dtype, (size_t)k);
    *count = (int)cnt;
    return PZ_OK;
}

static int rt_ints(const ir_graph *g, const ir_node *n, int i, int max, int *count, int dyn)
{
    const ir_tensor *t = op_in(g, n, i);
    if (!g->rt_shapes || !t || t->data || (g->values[n->in[i]].dyn && !dyn) || t->rank > 1 ||
        (t->dtype != IR_I64 && t->dtype != IR_I32) || ir_tensor_numel(t) > max)
        return 0;
    if (count) *count = (int)ir_tensor_numel(t);
    return 1;
}

int op_rt_ints(const ir_graph *g, const ir_node *n, int i, int max, int *count)
{
    return rt_ints(g, n, i, max, count, 0);
}

int op_rt_ints_dyn(const ir_graph *g, const ir_node *n, int i, int max, int *count)
{
    return rt_ints(g, n, i, max, count, 1);
}

void op_set_dyn(ir_graph *g, const ir_node *n, int i)
{
    if (i < n->n_out && n->out[i] >= 0) g->values[n->out[i]].dyn = 1;
}

void op_set_rt_alloc(ir_graph *g, const ir_node *n, int i)
{
    if (i < n->n_out && n->out[i] >= 0) g->values[n->out[i]].dyn = g->values[n->out[i]].rt_alloc = 1;
}

void op_set_out(ir_graph *g, const ir_node *n, int i, int dtype, int rank, const int64_t *dims)
{
    ir_tensor *t = op_out(g, n, i);
    if (!t) return;
    PZ_ASSERT(rank >= 0 && rank <= IR_MAX_RANK);
    t->dtype = (ir_dtype)dtype;
    t->rank = rank;
    for (int k = 0; k < rank; k++) t->dims[k] = dims[k];
}

void op_same_as(ir_graph *g, const ir_node *n, int i, int j)
{
    const ir_tensor *in = op_in(g, n, j);
    PZ_ASSERT(in);
    op_set_out(g, n, i, in->dtype, in->rank, in->dims);
}

pz_status op_axis(const ir_node *n, const char *attr, int64_t axis, int rank, int inclusive,
                  int *out, pz_err *err)
{
    int64_t hi = inclusive ? rank + 1 : rank;
    if (axis < -hi || axis >= hi)
        return op_err_attr(err, n, attr, "axis %lld is out of range for rank %d", (long long)axis,
                           rank);
    *out = (int)(axis < 0 ? axis + hi : axis);
    return PZ_OK;
}

pz_status op_broadcast(const ir_graph *g, const ir_node *n, const ir_tensor *a,
                       const ir_tensor *b, ir_tensor *out, pz_err *err)
{
    /* in a dynamic region a dim may be a bound or a placeholder: the run
     * checks its dims (pz_run_shape_bcast), the larger one bounds the output */
    int loose = 0;
    for (int i = 0; g && i < n->n_in; i++) loose |= n->in[i] >= 0 && g->values[n->in[i]].dyn;
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int k = 0; k < r; k++) {
        int ia = k - (r - a->rank), ib = k - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (loose && da != db && da != 1 && db != 1) {
            out->dims[k] = da > db ? da : db;
            continue;
        }
        if (da != db && da != 1 && db != 1) {
            char sa[128], sb[128];
            return op_err(err, n, "shapes %s and %s cannot be broadcast (dimension %d: %lld vs %lld)",
                          ir_shape_str(a, sa, sizeof sa), ir_shape_str(b, sb, sizeof sb), k,
                          (long long)da, (long long)db);
        }
        out->dims[k] = da == 1 ? db : da;
    }
    out->rank = r;
    return PZ_OK;
}

pz_status op_check_dims(const ir_node *n, int rank, const int64_t *dims, pz_err *err)
{
    uint64_t prod = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0)
            return op_err(err, n, "output dimension %d would be negative (%lld)", k,
                          (long long)dims[k]);
        if (dims[k] && prod > (uint64_t)(INT64_MAX / 16) / (uint64_t)dims[k])
            return op_err(err, n, "output dimensions overflow (dimension %d is %lld)", k,
                          (long long)dims[k]);
        prod *= (uint64_t)dims[k];
    }
    return PZ_OK;
}

/* Whether an input of n has a run-time shape (its planned dims a bound). */
static int op_run_shaped(const ir_graph *g, const ir_node *n)
{
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0 && (g->values[n->in[i]].rt_alloc || g->values[n->in[i]].dyn)) return 1;
    return 0;
}

pz_status op_check_span(const ir_graph *g, const ir_node *n, const ir_tensor *t,
                        const char *what, int64_t lo, int64_t hi, pz_err *err)
{
    if (!t || !t->data || op_run_shaped(g, n)) return PZ_OK;
    const int64_t cnt = ir_tensor_numel(t);
    for (int64_t e = 0; e < cnt; e++) {
        const int64_t v = ir_load_i64(t->data, t->dtype, (size_t)e);
        if (v < lo || v > hi)
            return op_err(err, n, "input %s: value %lld (entry %lld) is outside [%lld, %lld]",
                          what, (long long)v, (long long)e, (long long)lo, (long long)hi);
    }
    return PZ_OK;
}

pz_status op_check_indices(const ir_graph *g, const ir_node *n, const ir_tensor *idx, int k,
                           const int64_t *dims, int axis0, pz_err *err)
{
    if (!idx->data || op_run_shaped(g, n)) return PZ_OK;
    const int64_t cnt = ir_tensor_numel(idx);
    for (int64_t e = 0; e < cnt; e++) {
        const int64_t i = ir_load_i64(idx->data, idx->dtype, (size_t)e);
        const int64_t d = dims[k > 1 ? e % k : 0];
        if (i < -d || i >= d)
            return op_err(err, n, "index %lld (entry %lld of indices) is out of range for axis "
                          "%d of size %lld", (long long)i, (long long)e,
                          axis0 + (k > 1 ? (int)(e % k) : 0), (long long)d);
    }
    return PZ_OK;
}

pz_act op_act(const ir_node *n)
{
    /* the kinds in the same order (graph.h) */
    _Static_assert((int)IR_ACT_COUNT_ == (int)PZ_ACT_COUNT_ && (int)IR_ACT_TANH == (int)PZ_ACT_TANH &&
                       (int)IR_ACT_SELECT == (int)PZ_ACT_SELECT &&
                       (int)IR_ACT_MISH == (int)PZ_ACT_MISH,
                   "ir_act_kind and pz_act_kind differ");
    pz_act a = {.kind = PZ_ACT_NONE};
    if (n->act.kind <= IR_ACT_NONE || n->act.kind >= IR_ACT_COUNT_) return a;
    a.kind = (pz_act_kind)n->act.kind;
    if (n->act.kind != IR_ACT_RELU) {   /* GELU: lo 1 the tanh form */
        a.lo = n->act.lo;
        a.hi = n->act.hi;
    }
    if (n->act.kind == IR_ACT_SELECT) {
        a.t = n->act.t;
        a.cmp = n->act.cmp;
        a.sel = n->act.sel;
    }
    return a;
}

void op_lowered_init(op_lowered *out, const ir_node *n, pz_op_kind kind, const void *params,
                     size_t params_size)
{
    memset(out, 0, sizeof *out);
    out->kind = kind;
    PZ_ASSERT(params_size <= sizeof out->p);
    if (params_size) memcpy(&out->p, params, params_size);
    out->params_size = params_size;
    out->n_in = n->n_in < PZ_MAX_IO ? n->n_in : PZ_MAX_IO;
    out->n_out = n->n_out < PZ_MAX_IO ? n->n_out : PZ_MAX_IO;
    for (int i = 0; i < out->n_in; i++) out->in[i] = n->in[i];
    for (int i = 0; i < out->n_out; i++) out->out[i] = n->out[i];
}

int op_add_const(ir_graph *g, int node, const char *what, int dtype, int64_t count,
                 const void *data)
{
    size_t len = strlen(g->nodes[node].name) + strlen(what) + 2;
    char *name = pz_xmalloc(len);
    snprintf(name, len, "%s:%s", g->nodes[node].name, what);
    int v = ir_graph_add_value_unique(g, name);
    free(name);
    ir_tensor *t = &g->values[v].t;
    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->rank = 1;
    t->dims[0] = count;
    ir_value_set_data(g, v, data, (size_t)count * ir_dtype_size(dtype));
    g->values[v].is_initializer = 1;
    return v;
}

int op_add_strings_const(ir_graph *g, int node, const char *what, int count,
                         const char *const *s)
{
    size_t bytes = 0;
    for (int i = 0; i < count; i++) bytes += strlen(s[i]) + 1;
    char *blob = pz_xmalloc(bytes + 1), *p = blob;
    for (int i = 0; i < count; i++) {
        size_t l = strlen(s[i]) + 1;
        memcpy(p, s[i], l);
        p += l;
    }
    int v = op_add_const(g, node, what, IR_U8, (int64_t)bytes, blob);
    free(blob);
    return v;
}
