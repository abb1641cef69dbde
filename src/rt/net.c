/* net.c - pz_net: a network described layer by layer (the builder API),
 * and the helpers ops use in prepare. Compile (and pz_net_free, which frees
 * what compile made) is compile.c (blocks,
 * kernels, layouts, fusion) with arena.c (memory); run is exec.c; profiles
 * and queries are profile.c. What a net holds: net_state.h.
 */
#include <stdarg.h>
#include <string.h>

#include "rt/net.h"
#include "rt/net_state.h"

/* ---- helpers for prepare --------------------------------------------------- */

const char *pz_op_name(pz_op_kind kind)
{
    if (kind < 0 || kind >= PZ_OP_COUNT_ || !pz_rt_ops[kind]) return "?";
    return pz_rt_ops[kind]->name;
}

int64_t pz_numel(const pz_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->dims[i];
    return n;
}

const char *pz_shape_str(const pz_tensor *t, char *buf, size_t n)
{
    size_t at = 0;
    at += (size_t)snprintf(buf + at, n - at, "[");
    for (int i = 0; i < t->rank && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%lld", i ? "," : "", (long long)t->dims[i]);
    if (at < n) snprintf(buf + at, n - at, "]");
    return buf;
}

int pz_layer_want_clamp_act(const pz_layer *l, char *err, size_t n, const pz_act *act)
{
    if (act->kind == PZ_ACT_NONE || act->kind == PZ_ACT_RELU || act->kind == PZ_ACT_CLIP) return 0;
    return pz_layer_fail(l, err, n, "activation %d is not fused here (none, ReLU or Clip)",
                         (int)act->kind);
}

int pz_layer_fail(const pz_layer *l, char *err, size_t errsize, const char *fmt, ...)
{
    if (!err || !errsize) return 1;
    int at = snprintf(err, errsize, "layer \"%s\" (%s): ", l->name ? l->name : "",
                      l->op ? l->op->name : "?");
    if (at >= 0 && (size_t)at < errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + at, errsize - (size_t)at, fmt, ap);
        va_end(ap);
    }
    return 1;
}

void pz_layer_run_fail(const pz_layer *l, const char *fmt, ...)
{
    if (!l->run_err || l->run_err[0]) return;   /* the first reason stands */
    int at = snprintf(l->run_err, PZ_RUN_ERR_BYTES, "layer \"%s\" (%s): ", l->name ? l->name : "",
                      l->op ? l->op->name : "?");
    if (at >= 0 && at < PZ_RUN_ERR_BYTES) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->run_err + at, (size_t)(PZ_RUN_ERR_BYTES - at), fmt, ap);
        va_end(ap);
    }
}

int pz_layer_want_dtype(const pz_layer *l, char *err, size_t n, const char *what,
                        const pz_tensor *t, int dtype)
{
    if (t->dtype == dtype) return 0;
    return pz_layer_fail(l, err, n, "%s has type %s, expected %s", what, pz_dtype_name(t->dtype),
                         pz_dtype_name(dtype));
}

int pz_layer_prelu_slopes(const pz_layer *l, char *err, size_t n, int64_t count, float **slope)
{
    const pz_tensor *s = l->n_in > 4 ? l->in[4] : NULL;
    if (!s || s->dtype != PZ_F32 || !s->data || pz_numel(s) != count)
        return pz_layer_fail(l, err, n, "PRELU needs input 4: %lld constant float32 slopes",
                             (long long)count);
    size_t bytes = (size_t)count * sizeof(float);
    if (!(*slope = malloc(bytes ? bytes : 1))) return pz_layer_fail(l, err, n, "out of memory");
    memcpy(*slope, s->data, bytes);
    return 0;
}

int pz_layer_want_same_shape(const pz_layer *l, char *err, size_t n, const char *what,
                             const pz_tensor *a, const pz_tensor *b)
{
    bool same = a->rank == b->rank;
    for (int i = 0; same && i < a->rank; i++) same = a->dims[i] == b->dims[i];
    if (same) return 0;
    char ba[96], bb[96];
    return pz_layer_fail(l, err, n, "%s has shape %s, expected %s", what,
                         pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb));
}

static char *dup_str(const char *s)
{
    if (!s) s = "";
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Records the first error of a building call (reported by compile). */
static void net_fail(pz_net *net, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void net_fail(pz_net *net, const char *fmt, ...)
{
    if (net->err[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(net->err, sizeof net->err, fmt, ap);
    va_end(ap);
}

/* Grows *arr (of *cap elements of size es) to hold n; false when out of memory. */
static bool grow(void **arr, int *cap, int n, size_t es)
{
    if (n <= *cap) return true;
    int nc = *cap ? *cap * 2 : 16;
    while (nc < n) nc *= 2;
    void *p = realloc(*arr, (size_t)nc * es);
    if (!p) return false;
    memset((char *)p + (size_t)*cap * es, 0, (size_t)(nc - *cap) * es);
    *arr = p;
    *cap = nc;
    return true;
}

/* ---- building ------------------------------------------------------------ */

pz_net *pz_net_new(const char *name)
{
    pz_net *net = calloc(1, sizeof *net);
    if (!net) return NULL;
    net->name = dup_str(name);
    if (!net->name) {
        free(net);
        return NULL;
    }
    return net;
}

static int add_tensor(pz_net *net, const char *name, tensor_kind kind, int dtype, int rank,
                      const int64_t *dims, const void *data)
{
    if (net->compile_tried) {
        net_fail(net, "tensor \"%s\" added after pz_net_compile", name ? name : "");
        return -1;
    }
    if (pz_dtype_size(dtype) == 0) {
        net_fail(net, "tensor \"%s\": unsupported element type %d", name ? name : "", dtype);
        return -1;
    }
    if (rank < 0 || rank > PZ_MAX_RANK || (rank > 0 && !dims)) {
        net_fail(net, "tensor \"%s\": rank %d, expected 0 to %d", name ? name : "", rank,
                 PZ_MAX_RANK);
        return -1;
    }
    for (int i = 0; i < rank; i++)
        if (dims[i] < 0) {
            net_fail(net, "tensor \"%s\": dim %d is %lld", name ? name : "", i,
                     (long long)dims[i]);
            return -1;
        }
    if (!grow((void **)&net->tensors, &net->cap_tensors, net->n_tensors + 1, sizeof(rt_tensor))) {
        net_fail(net, "out of memory");
        return -1;
    }
    rt_tensor *t = &net->tensors[net->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = dup_str(name);
    if (!t->name) {
        net_fail(net, "out of memory");
        return -1;
    }
    t->kind = kind;
    t->t.dtype = dtype;
    t->t.rank = rank;
    for (int i = 0; i < rank; i++) t->t.dims[i] = dims[i];
    t->t.data = (void *)data;
    t->producer = -1;
    t->last_use = -1;
    t->host = -1;
    t->bytes = (size_t)pz_numel(&t->t) * pz_dtype_size(dtype);
    return net->n_tensors++;
}

int pz_net_input(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims)
{
    int id = add_tensor(net, name, T_INPUT, dtype, rank, dims, NULL);
    if (id < 0) return -1;
    if (!grow((void **)&net->inputs, &net->cap_inputs, net->n_inputs + 1, sizeof(int))) {
        net_fail(net, "out of memory");
        return -1;
    }
    net->inputs[net->n_inputs++] = id;
    return id;
}

int pz_net_const(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims,
                 const void *data)
{
    int id = add_tensor(net, name, T_CONST, dtype, rank, dims, data);
    if (id >= 0 && !data && net->tensors[id].bytes > 0) {
        net_fail(net, "constant \"%s\" has no data", name ? name : "");
        return -1;
    }
    return id;
}

int pz_net_tensor(pz_net *net, const char *name, int dtype, int rank, const int64_t *dims)
{
    return add_tensor(net, name, T_VALUE, dtype, rank, dims, NULL);
}

int pz_net_view(pz_net *net, const char *name, int src, int rank, const int64_t *dims)
{
    if (src < 0 || src >= net->n_tensors) {
        net_fail(net, "view \"%s\": no tensor %d", name ? name : "", src);
        return -1;
    }
    const rt_tensor *s = &net->tensors[src];
    if (s->kind == T_CONST) {
        net_fail(net, "view \"%s\": tensor \"%s\" is a constant (a view is of a tensor a "
                 "layer writes or of a graph input; copy it)", name ? name : "", s->name);
        return -1;
    }
    int root = s->kind == T_VIEW ? s->root : src, dtype = s->t.dtype;
    int64_t numel = pz_numel(&s->t);
    int id = add_tensor(net, name, T_VIEW, dtype, rank, dims, NULL);
    if (id < 0) return -1;
    rt_tensor *t = &net->tensors[id];
    t->root = root;
    if (pz_numel(&t->t) != numel) {
        char a[96], b[96];
        net_fail(net, "view \"%s\" %s of tensor \"%s\" %s: the element counts differ",
                 t->name, pz_shape_str(&t->t, a, sizeof a), net->tensors[src].name,
                 pz_shape_str(&net->tensors[src].t, b, sizeof b));
        return -1;
    }
    return id;
}

void pz_net_output(pz_net *net, int tensor)
{
    if (net->compile_tried) {
        net_fail(net, "output added after pz_net_compile");
        return;
    }
    if (tensor < 0 || tensor >= net->n_tensors) {
        net_fail(net, "output: no tensor %d", tensor);
        return;
    }
    if (!grow((void **)&net->outputs, &net->cap_outputs, net->n_outputs + 1, sizeof(int))) {
        net_fail(net, "out of memory");
        return;
    }
    net->outputs[net->n_outputs++] = tensor;
}

int pz_net_layer(pz_net *net, const char *name, pz_op_kind kind, const void *params,
                 size_t params_size, const int *in, int n_in, const int *out, int n_out)
{
    const char *nm = name ? name : "";
    if (net->compile_tried) {
        net_fail(net, "layer \"%s\" added after pz_net_compile", nm);
        return -1;
    }
    if (kind < 0 || kind >= PZ_OP_COUNT_ || !pz_rt_ops[kind]) {
        net_fail(net, "layer \"%s\": unknown layer kind %d", nm, (int)kind);
        return -1;
    }
    const pz_rt_op *op = pz_rt_ops[kind];
    /* a kind whose descriptor has defaults (CAST, MATMUL) may be given none */
    if (op->defaults && !params && params_size == 0) {
        params = op->defaults;
        params_size = op->params_size;
    }
    if (params_size != op->params_size || (op->params_size && !params)) {
        net_fail(net, "layer \"%s\" (%s): params of %zu bytes, expected %zu", nm, op->name,
                 params ? params_size : 0, op->params_size);
        return -1;
    }
    if (n_in < op->min_in || (op->max_in >= 0 && n_in > op->max_in) || n_out < op->min_out ||
        (op->max_out >= 0 && n_out > op->max_out) || (n_in && !in) || (n_out && !out)) {
        net_fail(net, "layer \"%s\" (%s): %d inputs and %d outputs", nm, op->name, n_in, n_out);
        return -1;
    }
    int li = net->n_layers;
    for (int i = 0; i < n_in; i++)
        if (in[i] < -1 || in[i] >= net->n_tensors) {
            net_fail(net, "layer \"%s\" (%s): input %d is tensor %d, which does not exist", nm,
                     op->name, i, in[i]);
            return -1;
        }
    for (int i = 0; i < n_out; i++) {
        if (out[i] < -1 || out[i] >= net->n_tensors) {
            net_fail(net, "layer \"%s\" (%s): output %d is tensor %d, which does not exist", nm,
                     op->name, i, out[i]);
            return -1;
        }
        if (out[i] < 0) continue;
        rt_tensor *t = &net->tensors[out[i]];
        if (t->kind != T_VALUE || t->producer >= 0) {
            net_fail(net, "layer \"%s\" (%s): output %d, tensor \"%s\", is %s", nm, op->name, i,
                     t->name, t->kind == T_INPUT ? "a graph input"
                     : t->kind == T_CONST ? "a constant" : t->kind == T_VIEW ? "a view"
                     : "already written by another layer");
            return -1;
        }
    }
    if (!grow((void **)&net->layers, &net->cap_layers, li + 1, sizeof(pz_layer))) {
        net_fail(net, "out of memory");
        return -1;
    }
    pz_layer *l = &net->layers[li];
    memset(l, 0, sizeof *l);
    l->name = dup_str(nm);
    l->kind = kind;
    l->op = op;
    l->n_in = n_in;
    l->n_out = n_out;
    l->in_id = malloc(sizeof(int) * (size_t)(n_in ? n_in : 1));
    l->out_id = malloc(sizeof(int) * (size_t)(n_out ? n_out : 1));
    l->in = calloc((size_t)(n_in ? n_in : 1), sizeof(pz_tensor *));
    l->out = calloc((size_t)(n_out ? n_out : 1), sizeof(pz_tensor *));
    l->in_have = calloc((size_t)(n_in ? n_in : 1), sizeof(int));
    l->in_cblk = calloc((size_t)(n_in ? n_in : 1), sizeof(int));
    l->out_cblk = calloc((size_t)(n_out ? n_out : 1), sizeof(int));
    if (op->params_size) l->params = malloc(op->params_size);
    net->n_layers++;   /* owned by the net from here on, freed with it */
    if (!l->name || !l->in_id || !l->out_id || !l->in || !l->out || !l->in_have ||
        !l->in_cblk || !l->out_cblk ||
        (op->params_size && !l->params)) {
        net_fail(net, "out of memory");
        return -1;
    }
    if (op->params_size) memcpy(l->params, params, op->params_size);
    for (int i = 0; i < n_in; i++) l->in_id[i] = in[i];
    for (int i = 0; i < n_out; i++) {
        l->out_id[i] = out[i];
        if (out[i] >= 0) net->tensors[out[i]].producer = li;
    }
    return li;
}

void pz_net_block(pz_net *net, int first, int count, int mp)
{
    if (net->compile_tried) {
        net_fail(net, "block added after pz_net_compile");
        return;
    }
    if (!grow((void **)&net->asked, &net->cap_asked, net->n_asked + 1, sizeof(rt_block))) {
        net_fail(net, "out of memory");
        return;
    }
    net->asked[net->n_asked++] = (rt_block){first, count, mp, 0, PZ_SPLIT_AUTO, 0, PZ_PREC_FP32, NULL};
}

void pz_net_block_knobs(pz_net *net, int first, pz_split_mode split, int strip)
{
    if (net->compile_tried) {
        net_fail(net, "block knobs set after pz_net_compile");
        return;
    }
    if (split < PZ_SPLIT_AUTO || split > PZ_SPLIT_CHANNELS || strip < 0) {
        net_fail(net, "block at layer %d: split %d and strip %d (split 0 to 2, strip >= 0)",
                 first, (int)split, strip);
        return;
    }
    for (int b = 0; b < net->n_asked; b++)
        if (net->asked[b].first == first) {
            net->asked[b].split = split;
            net->asked[b].strip = strip;
            return;
        }
    net_fail(net, "block knobs: no block starts at layer %d", first);
}

static bool prec_known(pz_precision prec)
{
    return prec == PZ_PREC_FP32 || prec == PZ_PREC_BF16 || prec == PZ_PREC_F16W ||
           prec == PZ_PREC_I8DYN;
}

void pz_net_block_precision(pz_net *net, int first, pz_precision prec)
{
    if (net->compile_tried) {
        net_fail(net, "block precision set after pz_net_compile");
        return;
    }
    if (!prec_known(prec)) {
        net_fail(net, "block at layer %d: precision %d (0 fp32, 1 bf16, 2 fp32 with fp16 "
                 "weights, 3 int8 with activations quantized at run time)", first, (int)prec);
        return;
    }
    for (int b = 0; b < net->n_asked; b++)
        if (net->asked[b].first == first) {
            net->asked[b].prec = prec;
            return;
        }
    net_fail(net, "block precision: no block starts at layer %d", first);
}

void pz_net_layer_precision(pz_net *net, int layer, pz_precision prec)
{
    if (net->compile_tried) {
        net_fail(net, "layer precision set after pz_net_compile");
        return;
    }
    if (layer < 0 || layer >= net->n_layers || !prec_known(prec)) {
        net_fail(net, "layer %d: precision %d (layers 0 to %d; precision 0 fp32, 1 bf16, 2 fp32 "
                 "with fp16 weights, 3 int8 with activations quantized at run time)", layer,
                 (int)prec, net->n_layers - 1);
        return;
    }
    net->layers[layer].prec_set = (int)prec + 1;
}
