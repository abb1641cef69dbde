/* net.c - pz_net: a network described layer by layer, compiled (validated,
 * memory planned, kernels chosen) and run.
 *
 * Memory: one arena, allocated at compile. Every tensor a layer writes gets
 * an offset in it; two tensors share bytes only when their lifetimes do not
 * overlap. A tensor lives from the layer that writes it to the last layer
 * that reads it (to the end for graph outputs); a layer's scratch lives
 * during that layer only. Offsets come from greedy first-fit, largest first,
 * PZ_ALIGN-aligned.
 * Graph inputs are read in place from the caller's buffers (no copy);
 * graph outputs are copied out of the arena at the end of pz_net_run, so a
 * layer never writes into caller memory and an output may feed later layers.
 * Constants are the caller's borrowed buffers.
 *
 * Blocks: each F-Block runs its layers in order, each layer's work split
 * over the block's MP workers by one fork-join (block_run below is the seam
 * where depth-first fused execution will go).
 */
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt/cpu.h"
#include "rt/fuse.h"
#include "rt/kernels/kernels.h"
#include "rt/net.h"

typedef enum { T_INPUT, T_CONST, T_VALUE } tensor_kind;

typedef struct {
    pz_tensor t;            /* shape and type; data: arena, constant, or the caller's input */
    char *name;
    tensor_kind kind;
    int producer;           /* the layer that writes it (values), -1 before one does */
    int last_use;           /* the last layer that reads it (n_layers: a graph output) */
    size_t bytes;           /* in its layout */
    size_t offset;          /* in the arena */
    int cblk;               /* its layout (net.h): 0 plain, else the channel block */
} rt_tensor;

typedef struct {
    int first, count, mp;
    uint64_t ns;            /* profile: last run */
    pz_split_mode split;    /* load balance (pz_net_block_knobs) */
    int strip;              /* rows per tile, 0 = auto */
    pz_fuse_block *fuse;    /* its fused runs (rt/fuse.h), blocks of 2+ layers */
} rt_block;

struct pz_net {
    char *name;
    rt_tensor *tensors;
    int n_tensors, cap_tensors;
    pz_layer *layers;
    int n_layers, cap_layers;
    int *inputs, n_inputs, cap_inputs;
    int *outputs, n_outputs, cap_outputs;
    rt_block *asked;        /* blocks from pz_net_block */
    int n_asked, cap_asked;
    rt_block *blocks;       /* after compile: every layer in exactly one, in order */
    int n_blocks;
    char err[512];          /* the first error of the building calls */
    bool compiled;
    bool compile_tried;     /* compile runs once, failed or not */
    void *arena;
    size_t arena_bytes;
    pz_pool *pool;
    int threads;
    int out_nth;            /* workers that copy the outputs out */
    pz_barrier barrier;     /* of the layer that runs (conversions, then the op) */
    bool profile;
    uint64_t *prof;         /* profile: a ring of PZ_PROFILE_RUNS rows, one per run: */
    int prof_n;             /*   the ns of each layer, each block, then the run */
    bool consts_mapped;     /* constants are a read-only file mapping (pz_net_consts_mapped) */
    uint64_t run_ns;
    pz_run_options opts;    /* pz_net_compile's, kept: layers point to it */
    pz_isa isa;             /* the kernels': the CPU's best capped by opts.isa */
};

/* ---- small helpers ------------------------------------------------------- */

size_t pz_dtype_size(int dt)
{
    switch (dt) {
    case PZ_U8: case PZ_I8: case PZ_BOOL: return 1;
    case PZ_F8E4M3FN: case PZ_F8E4M3FNUZ: case PZ_F8E5M2: case PZ_F8E5M2FNUZ: case PZ_F8E8M0:
    case PZ_U4: case PZ_I4: case PZ_F4E2M1: case PZ_U2: case PZ_I2:
        return 1;   /* one element per byte (see pz_rt.h) */
    case PZ_U16: case PZ_I16: case PZ_F16: case PZ_BF16: return 2;
    case PZ_F32: case PZ_I32: case PZ_U32: return 4;
    case PZ_F64: case PZ_I64: case PZ_U64: return 8;
    default: return 0;
    }
}

const char *pz_dtype_name(int dt)
{
    switch (dt) {
    case PZ_F32: return "float32";
    case PZ_U8: return "uint8";
    case PZ_I8: return "int8";
    case PZ_U16: return "uint16";
    case PZ_I16: return "int16";
    case PZ_I32: return "int32";
    case PZ_I64: return "int64";
    case PZ_BOOL: return "bool";
    case PZ_F16: return "float16";
    case PZ_F64: return "float64";
    case PZ_U32: return "uint32";
    case PZ_U64: return "uint64";
    case PZ_BF16: return "bfloat16";
    case PZ_F8E4M3FN: return "float8e4m3fn";
    case PZ_F8E4M3FNUZ: return "float8e4m3fnuz";
    case PZ_F8E5M2: return "float8e5m2";
    case PZ_F8E5M2FNUZ: return "float8e5m2fnuz";
    case PZ_U4: return "uint4";
    case PZ_I4: return "int4";
    case PZ_F4E2M1: return "float4e2m1";
    case PZ_F8E8M0: return "float8e8m0";
    case PZ_U2: return "uint2";
    case PZ_I2: return "int2";
    default: return "unsupported type";
    }
}

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

int pz_layer_want_dtype(const pz_layer *l, char *err, size_t n, const char *what,
                        const pz_tensor *t, int dtype)
{
    if (t->dtype == dtype) return 0;
    return pz_layer_fail(l, err, n, "%s has type %s, expected %s", what, pz_dtype_name(t->dtype),
                         pz_dtype_name(dtype));
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

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

void pz_net_free(pz_net *net)
{
    if (!net) return;
    pz_pool_free(net->pool);
    for (int i = 0; i < net->n_layers; i++) {
        pz_layer *l = &net->layers[i];
        if (l->op && l->op->release && l->state) l->op->release(l);
        free(l->state);
        free(l->params);
        free(l->name);
        free(l->in_id);
        free(l->out_id);
        free(l->in);
        free(l->out);
        free(l->in_have);
        free(l->in_cblk);
        free(l->out_cblk);
        free(l->convs);
    }
    for (int i = 0; i < net->n_tensors; i++) free(net->tensors[i].name);
    free(net->tensors);
    free(net->layers);
    free(net->inputs);
    free(net->outputs);
    free(net->asked);
    for (int b = 0; b < net->n_blocks; b++) pz_fuse_free(net->blocks[b].fuse);
    free(net->blocks);
    free(net->arena);
    free(net->prof);
    free(net->name);
    free(net);
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
    /* CAST's params are all defaults when zero (saturate, round up), and
     * MATMUL's (no activation): a caller may leave them out */
    static const pz_cast_params cast_defaults;
    static const pz_matmul_params matmul_defaults;
    if (kind == PZ_OP_CAST && !params && params_size == 0) {
        params = &cast_defaults;
        params_size = sizeof cast_defaults;
    }
    if (kind == PZ_OP_MATMUL && !params && params_size == 0) {
        params = &matmul_defaults;
        params_size = sizeof matmul_defaults;
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
                     : t->kind == T_CONST ? "a constant" : "already written by another layer");
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
    net->asked[net->n_asked++] = (rt_block){first, count, mp, 0, PZ_SPLIT_AUTO, 0, NULL};
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

/* The runs a profile keeps (the last ones): the printed times are their
 * medians. */
#define PZ_PROFILE_RUNS 512

static size_t prof_row(const pz_net *net)
{
    return (size_t)net->n_layers + (size_t)net->n_blocks + 1;
}

/* The ring of runs, allocated here (pz_net_run does not allocate); after
 * compile, as it needs the blocks. */
static void prof_alloc(pz_net *net)
{
    free(net->prof);
    net->prof = NULL;
    net->prof_n = 0;
    if (net->profile && net->compiled)
        net->prof = calloc((size_t)PZ_PROFILE_RUNS * prof_row(net), sizeof *net->prof);
}

void pz_net_profile(pz_net *net, int enable)
{
    net->profile = enable != 0;
    prof_alloc(net);
}

/* ---- compile ------------------------------------------------------------- */

static int cmp_block(const void *a, const void *b)
{
    const rt_block *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Every layer in exactly one block, in order: the asked blocks, and a block
 * of MP 1 for each layer outside them. MP is clamped to the pool. */
static int plan_blocks(pz_net *net, char *err, size_t n)
{
    if (net->n_asked > 1) qsort(net->asked, (size_t)net->n_asked, sizeof(rt_block), cmp_block);
    net->blocks = calloc((size_t)(net->n_layers + 1), sizeof(rt_block));
    if (!net->blocks) return snprintf(err, n, "out of memory"), 1;
    int at = 0;   /* the first layer not yet in a block */
    for (int b = 0; b < net->n_asked; b++) {
        rt_block a = net->asked[b];
        if (a.count < 1 || a.first < at || a.first + a.count > net->n_layers || a.mp < 1) {
            snprintf(err, n, "block of layers [%d, %d) with MP %d: %s", a.first, a.first + a.count,
                     a.mp, a.mp < 1 ? "MP must be at least 1"
                     : a.first < at ? "overlaps another block" : "outside the net's layers");
            return 1;
        }
        for (; at < a.first; at++) net->blocks[net->n_blocks++] = (rt_block){at, 1, 1, 0, PZ_SPLIT_AUTO, 0, NULL};
        if (a.mp > net->threads) a.mp = net->threads;
        net->blocks[net->n_blocks++] = a;
        at = a.first + a.count;
    }
    for (; at < net->n_layers; at++) net->blocks[net->n_blocks++] = (rt_block){at, 1, 1, 0, PZ_SPLIT_AUTO, 0, NULL};
    for (int b = 0; b < net->n_blocks; b++)
        for (int i = 0; i < net->blocks[b].count; i++) {
            pz_layer *l = &net->layers[net->blocks[b].first + i];
            l->block = b;
            l->mp = l->nth = net->blocks[b].mp;
        }
    return 0;
}

/* Each layer reads only inputs, constants and tensors written by an earlier
 * layer; sets the tensors' lifetimes and the layers' tensor pointers. */
static int check_dataflow(pz_net *net, char *err, size_t n)
{
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        for (int i = 0; i < l->n_in; i++) {
            if (l->in_id[i] < 0) continue;
            rt_tensor *t = &net->tensors[l->in_id[i]];
            if (t->kind == T_VALUE && (t->producer < 0 || t->producer >= li))
                return pz_layer_fail(l, err, n, "input %d, tensor \"%s\", is %s", i, t->name,
                                     t->producer < 0 ? "never written by any layer"
                                     : "written by a later layer");
            if (t->kind == T_VALUE && li > t->last_use) t->last_use = li;
            l->in[i] = &t->t;
        }
        for (int i = 0; i < l->n_out; i++) {
            if (l->out_id[i] < 0) continue;
            rt_tensor *t = &net->tensors[l->out_id[i]];
            if (li > t->last_use) t->last_use = li;
            l->out[i] = &t->t;
        }
    }
    for (int i = 0; i < net->n_outputs; i++) {
        rt_tensor *t = &net->tensors[net->outputs[i]];
        if (t->kind == T_VALUE && t->producer < 0)
            return snprintf(err, n, "output tensor \"%s\" is never written by any layer",
                            t->name), 1;
        t->last_use = net->n_layers;
    }
    return 0;
}

typedef struct {
    size_t bytes;
    int first, last;     /* lifetime, in layers, inclusive */
    size_t offset;
    int id;              /* an order for ties: tensors, then scratch, then conversions */
    void **ptr;          /* where its address goes */
    size_t *off;         /* where its offset goes (tensors), or NULL */
} alloc_item;

static int cmp_item(const void *a, const void *b)
{
    const alloc_item *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;   /* largest first */
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_offset(const void *a, const void *b)
{
    const alloc_item *const *x = a, *const *y = b;
    return ((*x)->offset > (*y)->offset) - ((*x)->offset < (*y)->offset);
}

static size_t align_up(size_t v)
{
    return (v + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
}

/* Whether layer li's output lives only in row windows of its block's fused
 * run (rt/fuse.h). */
static bool windowed(const pz_net *net, int li)
{
    for (int b = 0; b < net->n_blocks; b++) {
        const rt_block *bl = &net->blocks[b];
        if (li >= bl->first && li < bl->first + bl->count)
            return pz_fuse_windowed(bl->fuse, li) != 0;
    }
    return false;
}

/* Greedy first-fit over offsets, largest item first: an item goes at the
 * lowest offset where it overlaps no placed item whose lifetime meets its. */
static int plan_arena(pz_net *net, char *err, size_t n)
{
    int cap = net->n_tensors + net->n_layers, ni = 0;
    for (int li = 0; li < net->n_layers; li++) cap += net->layers[li].n_convs;
    alloc_item *items = calloc((size_t)(cap ? cap : 1), sizeof *items);
    const alloc_item **live = calloc((size_t)(cap ? cap : 1), sizeof *live);
    if (!items || !live) {
        free(items);
        free(live);
        return snprintf(err, n, "out of memory"), 1;
    }
    for (int i = 0; i < net->n_tensors; i++) {
        rt_tensor *t = &net->tensors[i];
        if (t->kind != T_VALUE || t->producer < 0 || t->bytes == 0) continue;
        /* rows in windows only (rt/fuse.h): no full-size buffer; data stays
         * NULL, so a stray access faults instead of reading another tensor */
        if (windowed(net, t->producer)) continue;
        items[ni++] = (alloc_item){align_up(t->bytes), t->producer, t->last_use, 0, i,
                                   &t->t.data, &t->offset};
    }
    int id = net->n_tensors;
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        if (l->scratch_bytes)
            items[ni++] = (alloc_item){align_up(l->scratch_bytes), li, li, 0, id, &l->scratch,
                                       NULL};
        id++;
    }
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        for (int c = 0; c < l->n_convs; c++) {
            pz_layout_conv *cv = &l->convs[c];
            size_t s = pz_layout_bytes(&cv->view, cv->to);
            if (s) items[ni++] = (alloc_item){align_up(s), li, li, 0, id, &cv->view.data, NULL};
            id++;
        }
    }
    /* the layers of a fused run run interleaved: whatever one of them
     * touches lives over the whole run */
    for (int i = 0; i < ni; i++)
        for (int b = 0; b < net->n_blocks; b++)
            pz_fuse_widen(net->blocks[b].fuse, &items[i].first, &items[i].last);
    qsort(items, (size_t)ni, sizeof *items, cmp_item);

    size_t total = 0;
    for (int i = 0; i < ni; i++) {
        int nl = 0;
        for (int j = 0; j < i; j++)
            if (items[j].first <= items[i].last && items[i].first <= items[j].last)
                live[nl++] = &items[j];
        qsort(live, (size_t)nl, sizeof *live, cmp_offset);
        size_t off = 0;
        for (int j = 0; j < nl; j++) {
            if (live[j]->offset >= off + items[i].bytes) break;   /* fits in the gap before */
            size_t end = live[j]->offset + live[j]->bytes;
            if (end > off) off = end;
        }
        items[i].offset = off;
        if (off + items[i].bytes > total) total = off + items[i].bytes;
    }

    net->arena_bytes = total;
    net->arena = pz_alloc_big(total, net->opts.hugepages);
    if (!net->arena) {
        free(items);
        free(live);
        return snprintf(err, n, "out of memory: an arena of %zu bytes", total), 1;
    }
    for (int i = 0; i < ni; i++) {
        *items[i].ptr = (char *)net->arena + items[i].offset;
        if (items[i].off) *items[i].off = items[i].offset;
    }
    /* empty tensors still get a valid pointer */
    for (int i = 0; i < net->n_tensors; i++)
        if (net->tensors[i].kind == T_VALUE && !net->tensors[i].t.data &&
            !(net->tensors[i].producer >= 0 && windowed(net, net->tensors[i].producer)))
            net->tensors[i].t.data = net->arena;
    free(items);
    free(live);
    return 0;
}

/* After layer l's prepare: records the layouts of its outputs (and their
 * sizes), and plans a conversion for each input it reads in another layout
 * than its producer's. */
static int plan_layouts(pz_net *net, pz_layer *l, char *err, size_t n)
{
    for (int j = 0; j < l->n_out; j++) {
        if (l->out_id[j] < 0) continue;
        rt_tensor *t = &net->tensors[l->out_id[j]];
        int cb = l->out_cblk[j];
        if (cb && (cb < 0 || cb > 16 || t->t.rank != 4 || t->t.dtype != PZ_F32))
            return pz_layer_fail(l, err, n, "internal: output %d in layout %d", j, cb);
        t->cblk = cb;
        t->bytes = pz_layout_bytes(&t->t, cb);
    }
    int nc = 0;
    for (int i = 0; i < l->n_in; i++)
        if (l->in[i] && l->in_cblk[i] != l->in_have[i]) nc++;
    if (!nc) return 0;
    l->convs = calloc((size_t)nc, sizeof *l->convs);
    if (!l->convs) return snprintf(err, n, "out of memory"), 1;
    for (int i = 0; i < l->n_in; i++) {
        if (!l->in[i] || l->in_cblk[i] == l->in_have[i]) continue;
        int from = l->in_have[i], to = l->in_cblk[i];
        const pz_tensor *src = l->in[i];
        if ((from && to) || to < 0 || to > 16 || src->rank != 4 || src->dtype != PZ_F32)
            return pz_layer_fail(l, err, n, "internal: input %d from layout %d to %d", i, from,
                                 to);
        pz_layout_conv *cv = &l->convs[l->n_convs++];
        cv->slot = i;
        cv->from = from;
        cv->to = to;
        cv->isa = l->isa;
        cv->src = src;
        cv->view = *src;
        cv->view.data = NULL;   /* arena scratch, planned with the tensors */
        l->in[i] = &cv->view;
    }
    return 0;
}

/* The fused runs of every block of two or more layers (rt/fuse.h). */
static int plan_fusion(pz_net *net, char *err, size_t n)
{
    int *last_use = calloc((size_t)(net->n_tensors ? net->n_tensors : 1), sizeof *last_use);
    if (!last_use) return snprintf(err, n, "out of memory"), 1;
    for (int i = 0; i < net->n_tensors; i++) last_use[i] = net->tensors[i].last_use;
    for (int b = 0; b < net->n_blocks; b++) {
        rt_block *bl = &net->blocks[b];
        if (bl->count < 2) continue;
        bl->fuse = pz_fuse_plan(net->layers, net->n_layers, last_use, bl->first, bl->count,
                                bl->mp, bl->split, bl->strip, err, n);
        if (!bl->fuse) {
            free(last_use);
            return 1;
        }
    }
    free(last_use);
    return 0;
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* A layer's prepare packed some constant inputs (l->packed_in) and will not
 * read them again. When the constants are a read-only private file mapping
 * (the generated program's NAME.weights), their whole pages are dropped
 * (MADV_DONTNEED): the kernel rereads them from the file if anything touches
 * them later, so nothing can go wrong, and the packed copy no longer doubles
 * the peak memory. Never done on ordinary memory, where it would zero it. */
static void drop_packed_consts(pz_net *net, const pz_layer *l)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    for (int i = 0; i < l->n_in && i < 32; i++) {
        if (!(l->packed_in & (1u << i)) || l->in_id[i] < 0) continue;
        const rt_tensor *t = &net->tensors[l->in_id[i]];
        if (t->kind != T_CONST || !t->t.data) continue;
        uintptr_t a = (uintptr_t)t->t.data, e = a + pz_numel(&t->t) * pz_dtype_size(t->t.dtype);
        uintptr_t lo = (a + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
        uintptr_t hi = e / (uintptr_t)page * (uintptr_t)page;
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
}

void pz_net_consts_mapped(pz_net *net, int on)
{
    if (net) net->consts_mapped = on != 0;
}

int pz_net_compile(pz_net *net, int threads, const pz_run_options *opts, char *errbuf,
                   size_t errsize)
{
    char local[512];
    char *err = errbuf && errsize ? errbuf : local;
    size_t n = errbuf && errsize ? errsize : sizeof local;
    err[0] = 0;
    if (net->compile_tried)
        return snprintf(err, n, "net \"%s\": pz_net_compile runs once", net->name), 1;
    net->compile_tried = true;
    if (net->err[0]) return snprintf(err, n, "%s", net->err), 1;
    net->threads = threads > 0 ? threads : cpu_count();
    net->opts = opts ? *opts : (pz_run_options)PZ_RUN_OPTIONS_DEFAULT;
    net->isa = pz_isa_capped(net->opts.isa);

    if (check_dataflow(net, err, n) || plan_blocks(net, err, n)) return 1;
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        l->opts = &net->opts;
        l->isa = net->isa;
        for (int i = 0; i < l->n_in; i++) {
            l->in_have[i] = l->in_id[i] >= 0 ? net->tensors[l->in_id[i]].cblk : 0;
            l->in_cblk[i] = 0;
        }
        for (int j = 0; j < l->n_out; j++) l->out_cblk[j] = 0;
        if (l->op->prepare(l, err, n)) return 1;
        if (net->consts_mapped) drop_packed_consts(net, l);
        if (l->nth < 1 || l->nth > l->mp) l->nth = l->mp;
        if (plan_layouts(net, l, err, n)) return 1;
    }
    if (plan_fusion(net, err, n) || plan_arena(net, err, n)) return 1;
    int maxmp = 1;
    for (int b = 0; b < net->n_blocks; b++)
        if (net->blocks[b].mp > maxmp) maxmp = net->blocks[b].mp;
    net->pool = pz_pool_start(maxmp, net->opts.spin_us, net->opts.pin);
    if (!net->pool) return snprintf(err, n, "cannot start %d worker threads", maxmp), 1;
    /* outputs: big ones (a feature map) on every worker, small ones inline */
    size_t out_bytes = 0;
    for (int i = 0; i < net->n_outputs; i++) out_bytes += net->tensors[net->outputs[i]].bytes;
    net->out_nth = out_bytes >= (64u << 10) ? maxmp : 1;
    net->compiled = true;
    prof_alloc(net);
    return 0;
}

size_t pz_net_arena_bytes(const pz_net *net)
{
    return net->arena_bytes;
}

/* ---- run ----------------------------------------------------------------- */

typedef struct {
    const pz_layer *l;
    pz_barrier *barrier;
} layer_job;

/* One worker's share of a layer: its inputs' layout conversions, a barrier
 * (the op may read rows another worker converted), then the op. */
static void layer_task(void *ctx, int ith, int nth)
{
    const layer_job *job = ctx;
    const pz_layer *l = job->l;
    if (l->n_convs) {
        for (int c = 0; c < l->n_convs; c++) {
            const pz_layout_conv *cv = &l->convs[c];
            pz_layout_convert(cv->isa, cv->src->dims, cv->from, cv->to, cv->src->data,
                              cv->view.data, ith, nth);
        }
        pz_barrier_wait(job->barrier, nth);
    }
    l->op->run(l, ith, nth);
}

static void layer_run(pz_net *net, pz_layer *l)
{
    uint64_t t0 = net->profile ? now_ns() : 0;
    layer_job job = {l, &net->barrier};
    if (l->nth <= 1) layer_task(&job, 0, 1);
    else pz_pool_run(net->pool, l->nth, layer_task, &job);
    if (net->profile) l->ns = now_ns() - t0;
}

typedef struct {
    pz_net *net;
    void *const *outputs;
} output_job;

/* Copies the graph outputs out, converting blocked ones back to plain. */
static void output_task(void *ctx, int ith, int nth)
{
    const output_job *job = ctx;
    const pz_net *net = job->net;
    for (int i = 0; i < net->n_outputs; i++) {
        const rt_tensor *t = &net->tensors[net->outputs[i]];
        if (t->cblk) {
            /* blocked -> plain: no kernel of an ISA */
            pz_layout_convert(PZ_ISA_SCALAR, t->t.dims, t->cblk, 0, t->t.data, job->outputs[i],
                              ith, nth);
        } else if (t->bytes && job->outputs[i] != t->t.data) {
            int64_t lo, hi;   /* a share of the bytes */
            pz_split((int64_t)t->bytes, ith, nth, &lo, &hi);
            memcpy((char *)job->outputs[i] + lo, (const char *)t->t.data + lo, (size_t)(hi - lo));
        }
    }
}

/* Runs one F-Block. Today: its layers in order, each split over the block's
 * workers by its own fork-join. The seam for depth-first fusion: a block
 * whose layers all offer a tiled entry point will run here as one fork-join,
 * each worker carrying its tile through every layer while it is in cache. */
static void single_layer(void *ctx, int layer)
{
    pz_net *net = ctx;
    layer_run(net, &net->layers[layer]);
}

static void block_run(pz_net *net, rt_block *b)
{
    uint64_t t0 = net->profile ? now_ns() : 0;
    if (b->fuse)
        pz_fuse_block_run(b->fuse, net->layers, net->pool, &net->barrier, single_layer, net,
                          net->profile);
    else
        for (int i = b->first; i < b->first + b->count; i++) layer_run(net, &net->layers[i]);
    if (net->profile) b->ns = now_ns() - t0;
}

void pz_net_run(pz_net *net, const void *const *inputs, void *const *outputs)
{
    PZ_RT_ASSERT(net->compiled);
    uint64_t t0 = net->profile ? now_ns() : 0;
    for (int i = 0; i < net->n_inputs; i++) net->tensors[net->inputs[i]].t.data = (void *)inputs[i];
    for (int b = 0; b < net->n_blocks; b++) block_run(net, &net->blocks[b]);
    output_job job = {net, outputs};
    pz_pool_run(net->pool, net->out_nth, output_task, &job);
    if (net->profile) {
        net->run_ns = now_ns() - t0;
        if (net->prof) {
            uint64_t *row = net->prof + (size_t)(net->prof_n % PZ_PROFILE_RUNS) * prof_row(net);
            for (int i = 0; i < net->n_layers; i++) row[i] = net->layers[i].ns;
            for (int b = 0; b < net->n_blocks; b++) row[net->n_layers + b] = net->blocks[b].ns;
            row[net->n_layers + net->n_blocks] = net->run_ns;
            net->prof_n++;
        }
    }
}

/* ---- profile ------------------------------------------------------------- */

uint64_t pz_net_layer_ns(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].ns : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Column k of the kept runs: its median in ms (the last run's value when
 * none is kept, or the scratch is missing). */
static double prof_ms(const pz_net *net, size_t k, uint64_t last, uint64_t *tmp, int runs)
{
    if (!tmp || runs < 1) return (double)last / 1e6;
    for (int r = 0; r < runs; r++) tmp[r] = net->prof[(size_t)r * prof_row(net) + k];
    qsort(tmp, (size_t)runs, sizeof *tmp, cmp_u64);
    return (double)(runs % 2 ? tmp[runs / 2] : (tmp[runs / 2 - 1] + tmp[runs / 2]) / 2) / 1e6;
}

void pz_net_print_profile(const pz_net *net, FILE *f)
{
    int runs = net->prof ? (net->prof_n < PZ_PROFILE_RUNS ? net->prof_n : PZ_PROFILE_RUNS) : 0;
    uint64_t *tmp = runs ? malloc((size_t)runs * sizeof *tmp) : NULL;
    const size_t nl = (size_t)net->n_layers;
    double total = prof_ms(net, nl + (size_t)net->n_blocks, net->run_ns, tmp, runs);
    fprintf(f, "profile of \"%s\": %.3f ms, %d layers in %d blocks, arena %.1f KiB", net->name,
            total, net->n_layers, net->n_blocks, (double)net->arena_bytes / 1024);
    if (tmp && runs > 1) fprintf(f, "; medians of the last %d runs", runs);
    fprintf(f, "\n");
    fprintf(f, "%5s %-14s %-32s %5s %3s %10s %6s  %s\n", "layer", "op", "name", "block", "mp", "ms",
            "%", "kernel");
    for (int i = 0; i < net->n_layers; i++) {
        const pz_layer *l = &net->layers[i];
        double ms = prof_ms(net, (size_t)i, l->ns, tmp, runs);
        fprintf(f, "%5d %-14s %-32s %5d %3d %10.3f %6.1f  %s\n", i, l->op->name, l->name, l->block,
                l->nth, ms, total > 0 ? 100 * ms / total : 0, l->kernel ? l->kernel : "-");
    }
    fprintf(f, "%5s %-14s %5s %3s %10s %6s  %s\n", "block", "layers", "", "mp", "ms", "%",
            "fused (layer ms: the time spent on each layer's rows, fused runs included)");
    for (int b = 0; b < net->n_blocks; b++) {
        const rt_block *bl = &net->blocks[b];
        char range[32];
        snprintf(range, sizeof range, "%d..%d", bl->first, bl->first + bl->count - 1);
        double ms = prof_ms(net, nl + (size_t)b, bl->ns, tmp, runs);
        pz_fuse_info fi;
        pz_fuse_get_info(bl->fuse, &fi);
        char fz[160] = "";
        if (fi.runs)
            snprintf(fz, sizeof fz, "%d layers in %d runs, %s, strip %d, redundant MACs %lld "
                     "(%.2f%%)", fi.fused_layers, fi.runs,
                     fi.split == PZ_SPLIT_BANDS ? "bands" : "channels", fi.strip,
                     (long long)fi.redundant_macs,
                     fi.macs ? 100.0 * (double)fi.redundant_macs / (double)fi.macs : 0.0);
        fprintf(f, "%5d %-14s %5s %3d %10.3f %6.1f  %s\n", b, range, "", bl->mp, ms,
                total > 0 ? 100 * ms / total : 0, fz);
    }
    free(tmp);
}

int pz_net_n_layers(const pz_net *net)
{
    return net->n_layers;
}

const char *pz_net_layer_name(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].name : "";
}

pz_op_kind pz_net_layer_kind(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].kind : PZ_OP_COUNT_;
}

int pz_net_layer_block(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].block : -1;
}

int pz_net_layer_out_layout(const pz_net *net, int layer, int slot)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return -1;
    const pz_layer *l = &net->layers[layer];
    return slot >= 0 && slot < l->n_out && l->out_id[slot] >= 0 ? l->out_cblk[slot] : -1;
}

const char *pz_net_layer_kernel(const pz_net *net, int layer)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return NULL;
    return net->layers[layer].kernel;
}

const pz_layer *pz_net_layer_at(const pz_net *net, int layer)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return NULL;
    return &net->layers[layer];
}

const pz_tensor *pz_net_tensor_held(const pz_net *net, int id, int *cblk)
{
    if (id < 0 || id >= net->n_tensors) return NULL;
    if (cblk) *cblk = net->tensors[id].cblk;
    return &net->tensors[id].t;
}

int pz_net_n_blocks(const pz_net *net)
{
    return net->n_blocks;
}

uint64_t pz_net_block_info(const pz_net *net, int b, int *first, int *count, int *mp)
{
    if (b < 0 || b >= net->n_blocks) return 0;
    const rt_block *bl = &net->blocks[b];
    if (first) *first = bl->first;
    if (count) *count = bl->count;
    if (mp) *mp = bl->mp;
    return bl->ns;
}

void pz_net_block_fuse_info(const pz_net *net, int b, pz_fuse_info *info)
{
    pz_fuse_get_info(b >= 0 && b < net->n_blocks ? net->blocks[b].fuse : NULL, info);
}

uint64_t pz_net_run_ns(const pz_net *net)
{
    return net->run_ns;
}
