/* transformer.c - the builder's transformer layers (builder.h): token
 * embeddings, LayerNorm, GELU, multi-head self-attention.
 *
 * Unlike layers.c, no signal statistics are carried: every block reads the
 * output of a LayerNorm (variance 1 per feature), so weights scaled for a
 * unit-variance input keep activations O(1) without them. */
#include <math.h>
#include <string.h>

#include "builder_internal.h"

/* ViT's class token and position embedding: U(-a, a) of standard deviation
 * 0.02, torchvision's init for pos_embedding, so the patches, of variance
 * 1, make the tokens differ and the output follows the input. */
#define VIT_EMB_BOUND (0.02 * 1.7320508075688772)

/* Node op_type named `name` (scoped, unique) reading `in`, writing a value
 * of shape dims; *node, if not NULL, gets the node for its attributes. */
static int op(zoo_builder *b, const char *op_type, const char *name, const char *const *in,
              size_t n_in, int rank, const int64_t *dims, Onnx__NodeProto **node)
{
    zoo_full_name(b, name);
    int y;
    Onnx__NodeProto *n = zoo_node_add(b, op_type, in, n_in, rank, dims, &y);
    if (node) *node = n;
    return y;
}

/* A node reading x (and a second input, if any) that keeps x's shape. */
static int same_shape(zoo_builder *b, const char *op_type, const char *name, int x,
                      const char *second)
{
    const zoo_value *v = zoo_val(b, x);
    const char *in[2] = {v->name, second};
    return op(b, op_type, name, in, second ? 2 : 1, v->rank, v->dims, NULL);
}

static const char *ints1(zoo_builder *b, int64_t v)
{
    return zoo_init_ints(b, 1, 1, &v);
}

/* Reshape x to [1, dims...]; the token dim written as -1, so that a
 * symbolic sequence passes. */
static int reshape(zoo_builder *b, const char *name, int x, int rank, const int64_t *dims,
                   int seq_axis)
{
    int64_t shape[4] = {1};
    for (int i = 0; i < rank; i++) shape[i + 1] = i == seq_axis ? -1 : dims[i];
    const char *in[2] = {zoo_val(b, x)->name, zoo_init_ints(b, 1, rank + 1, shape)};
    return op(b, "Reshape", name, in, 2, rank, dims, NULL);
}

/* Transpose with perm over [1, dims...] (perm[0] = 0: the batch stays). */
static int transpose(zoo_builder *b, const char *name, int x, const int64_t *perm)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t dims[3];
    for (int i = 0; i < v->rank; i++) dims[i] = v->dims[perm[i + 1] - 1];
    Onnx__NodeProto *n;
    int y = op(b, "Transpose", name, (const char *const[]){v->name}, 1, v->rank, dims, &n);
    int rank = zoo_val(b, y)->rank;
    zoo_attr_ints(n, "perm", 0, (size_t)rank + 1);
    Onnx__AttributeProto *a = n->attribute[n->n_attribute - 1];
    for (int i = 0; i <= rank; i++) a->ints[i] = perm[i];
    return y;
}

/* Batched MatMul of [.., M, K] and [.., K, N]. */
static int matmul(zoo_builder *b, const char *name, int x, int w)
{
    const zoo_value *u = zoo_val(b, x), *v = zoo_val(b, w);
    int64_t dims[3];
    memcpy(dims, u->dims, sizeof dims);
    dims[u->rank - 1] = v->dims[v->rank - 1];
    return op(b, "MatMul", name, (const char *const[]){u->name, v->name}, 2, u->rank, dims, NULL);
}

int zoo_tokens(zoo_builder *b, const char *name, int x)
{
    const zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(v->rank == 3);
    int64_t c = v->dims[0], hw = v->dims[1] * v->dims[2];
    zoo_scope_push(b, "%s", name);
    x = reshape(b, "Reshape", x, 2, (const int64_t[]){c, hw}, -1);
    x = transpose(b, "Transpose", x, (const int64_t[]){0, 2, 1});
    zoo_scope_pop(b);
    return x;
}

int zoo_class_token(zoo_builder *b, const char *name, const char *param, int x)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t d = v->dims[1], dims[2] = {v->dims[0] + 1, d};
    zoo_init_uniform(b, param, 3, (const int64_t[]){1, 1, d}, -VIT_EMB_BOUND, VIT_EMB_BOUND);
    Onnx__NodeProto *n;
    int y = op(b, "Concat", name, (const char *const[]){param, zoo_val(b, x)->name}, 2, 2, dims, &n);
    zoo_attr_int(n, "axis", 1);
    return y;
}

int zoo_add_embedding(zoo_builder *b, const char *name, const char *param, int x)
{
    const zoo_value *v = zoo_val(b, x);
    zoo_init_uniform(b, param, 3, (const int64_t[]){1, v->dims[0], v->dims[1]}, -VIT_EMB_BOUND,
                     VIT_EMB_BOUND);
    return same_shape(b, "Add", name, x, param);
}

int zoo_select_token(zoo_builder *b, const char *name, int x, int64_t i)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t d = v->dims[1];
    Onnx__NodeProto *n;
    int y = op(b, "Gather", name, (const char *const[]){v->name, zoo_init_ints(b, 0, 1, &i)}, 2, 1,
               &d, &n);
    zoo_attr_int(n, "axis", 1);
    zoo_value *yo = zoo_val(b, y);
    for (int64_t k = 0; k < d; k++) yo->var[k] = 1.0;
    return y;
}

int zoo_embedding(zoo_builder *b, const char *name, int ids, int64_t vocab, int64_t dim)
{
    const char *id_name = zoo_val(b, ids)->name;
    zoo_full_name(b, name);
    char wname[ZOO_MAX_SCOPE + 80];
    zoo_param_uniform(b, "weight", 2, (const int64_t[]){vocab, dim}, -sqrt(3.0), sqrt(3.0), wname,
                      sizeof wname);
    int64_t dims[2] = {zoo_val(b, ids)->dims[0], dim};
    return op(b, "Gather", name, (const char *const[]){wname, id_name}, 2, 2, dims, NULL);
}

int zoo_position_embedding(zoo_builder *b, const char *name, int x, int ids, int64_t max_pos)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t d = v->dims[1];
    zoo_full_name(b, name);
    char wname[ZOO_MAX_SCOPE + 80];
    zoo_param_uniform(b, "weight", 2, (const int64_t[]){max_pos, d}, -sqrt(3.0), sqrt(3.0), wname,
                      sizeof wname);
    zoo_scope_push(b, "%s", name);
    const char *zero = ints1(b, 0), *one = ints1(b, 1);
    int64_t two = 2;
    int shape = op(b, "Shape", "Shape", (const char *const[]){zoo_val(b, ids)->name}, 1, 1, &two,
                   NULL);
    int64_t n1 = 1; /* [S] of the shape [1, S] */
    int len = op(b, "Slice", "Slice",
                 (const char *const[]){zoo_val(b, shape)->name, one, ints1(b, 2), zero}, 4, 1, &n1,
                 NULL);
    int64_t dims[2] = {zoo_val(b, x)->dims[0], d};
    int pos = op(b, "Slice", "Slice", (const char *const[]){wname, zero, zoo_val(b, len)->name, zero},
                 4, 2, dims, NULL);
    int y = same_shape(b, "Add", "Add", x, zoo_val(b, pos)->name);
    zoo_scope_pop(b);
    return y;
}

int zoo_attention_mask(zoo_builder *b, const char *name, int mask)
{
    const zoo_value *v = zoo_val(b, mask);
    int64_t dims[3] = {1, 1, v->dims[0]};
    zoo_scope_push(b, "%s", name);
    int m = op(b, "Unsqueeze", "Unsqueeze",
               (const char *const[]){v->name, zoo_init_ints(b, 1, 2, (const int64_t[]){1, 2})}, 2,
               3, dims, NULL);
    Onnx__NodeProto *n;
    m = op(b, "Cast", "Cast", (const char *const[]){zoo_val(b, m)->name}, 1, 3, dims, &n);
    zoo_attr_int(n, "to", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
    m = op(b, "Sub", "Sub",
           (const char *const[]){zoo_init_scalar(b, "const_1", 1.0f), zoo_val(b, m)->name}, 2, 3,
           dims, NULL);
    m = same_shape(b, "Mul", "Mul", m, zoo_init_scalar(b, "const_m10000", -10000.0f));
    zoo_scope_pop(b);
    return m;
}

int zoo_dense(zoo_builder *b, const char *name, int x, int64_t n_out)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t k = v->dims[v->rank - 1], dims[3];
    memcpy(dims, v->dims, sizeof dims);
    dims[v->rank - 1] = n_out;
    const char *in_name = v->name;
    zoo_full_name(b, name);
    char wname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80];
    double a = sqrt(3.0 / (double)k); /* Var(w) = a^2/3 -> output variance 1 */
    zoo_param_uniform(b, "weight", 2, (const int64_t[]){k, n_out}, -a, a, wname, sizeof wname);
    zoo_param_uniform(b, "bias", 1, &n_out, -0.1, 0.1, bname, sizeof bname);
    int64_t rows = 1;
    for (int i = 0; i < v->rank - 1; i++) rows *= dims[i] > 0 ? dims[i] : 1;
    b->macs += rows * k * n_out; /* per token at a symbolic sequence */
    int y = op(b, "MatMul", name, (const char *const[]){in_name, wname}, 2, v->rank, dims, NULL);
    return same_shape(b, "Add", name, y, bname);
}

int zoo_layernorm(zoo_builder *b, const char *name, int x, float eps)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t d = v->dims[v->rank - 1], mdims[3];
    memcpy(mdims, v->dims, sizeof mdims);
    mdims[v->rank - 1] = 1;
    zoo_full_name(b, name);
    char gname[ZOO_MAX_SCOPE + 80], bname[ZOO_MAX_SCOPE + 80], ename[32];
    zoo_param_uniform(b, "weight", 1, &d, 0.5, 1.5, gname, sizeof gname);
    zoo_param_uniform(b, "bias", 1, &d, -0.1, 0.1, bname, sizeof bname);
    snprintf(ename, sizeof ename, "const_eps_%g", (double)eps);
    zoo_scope_push(b, "%s", name);
    Onnx__NodeProto *n;
    int m = op(b, "ReduceMean", "ReduceMean", (const char *const[]){zoo_val(b, x)->name}, 1,
               zoo_val(b, x)->rank, mdims, &n);
    zoo_attr_ints(n, "axes", -1, 1);
    int c = same_shape(b, "Sub", "Sub", x, zoo_val(b, m)->name);
    int sq = same_shape(b, "Pow", "Pow", c, zoo_init_scalar(b, "const_2", 2.0f));
    int var = op(b, "ReduceMean", "ReduceMean", (const char *const[]){zoo_val(b, sq)->name}, 1,
                 zoo_val(b, sq)->rank, mdims, &n);
    zoo_attr_ints(n, "axes", -1, 1);
    var = same_shape(b, "Add", "Add", var, zoo_init_scalar(b, ename, eps));
    int sd = same_shape(b, "Sqrt", "Sqrt", var, NULL);
    int y = same_shape(b, "Div", "Div", c, zoo_val(b, sd)->name);
    y = same_shape(b, "Mul", "Mul", y, gname);
    y = same_shape(b, "Add", "Add", y, bname);
    zoo_scope_pop(b);
    return y;
}

int zoo_gelu(zoo_builder *b, const char *name, int x)
{
    zoo_scope_push(b, "%s", name);
    int t = same_shape(b, "Div", "Div", x, zoo_init_scalar(b, "const_sqrt2", (float)sqrt(2.0)));
    t = same_shape(b, "Erf", "Erf", t, NULL);
    t = same_shape(b, "Add", "Add", t, zoo_init_scalar(b, "const_1", 1.0f));
    t = same_shape(b, "Mul", "Mul", x, zoo_val(b, t)->name);
    t = same_shape(b, "Mul", "Mul", t, zoo_init_scalar(b, "const_0.5", 0.5f));
    zoo_scope_pop(b);
    return t;
}

/* Q, K or V (part i of the packed projection) as [H, S, Dh], K as
 * [H, Dh, S] (PyTorch's k.transpose(-2, -1) folded into the head split). */
static int head_split(zoo_builder *b, int qkv, int i, int heads, int transposed)
{
    const zoo_value *v = zoo_val(b, qkv);
    int64_t s = v->dims[0], d = v->dims[1] / 3, dh = d / heads;
    int64_t sl[2] = {s, d};
    int x = op(b, "Slice", "Slice",
               (const char *const[]){v->name, ints1(b, i * d), ints1(b, (i + 1) * d), ints1(b, -1)},
               4, 2, sl, NULL);
    x = reshape(b, "Reshape", x, 3, (const int64_t[]){s, heads, dh}, 0);
    return transpose(b, "Transpose", x,
                     transposed ? (const int64_t[]){0, 2, 3, 1} : (const int64_t[]){0, 2, 1, 3});
}

int zoo_self_attention(zoo_builder *b, const char *name, int x, int heads, int mask)
{
    const zoo_value *v = zoo_val(b, x);
    int64_t s = v->dims[0], d = v->dims[1], dh = d / heads;
    char scale[48];
    snprintf(scale, sizeof scale, "const_inv_sqrt%lld", (long long)dh);
    zoo_scope_push(b, "%s", name);
    int qkv = zoo_dense(b, "in_proj", x, 3 * d);
    int q = head_split(b, qkv, 0, heads, 0), k = head_split(b, qkv, 1, heads, 1),
        val = head_split(b, qkv, 2, heads, 0);
    int a = matmul(b, "MatMul", q, k);
    a = same_shape(b, "Mul", "Mul", a, zoo_init_scalar(b, scale, (float)(1.0 / sqrt((double)dh))));
    if (mask >= 0) a = same_shape(b, "Add", "Add", a, zoo_val(b, mask)->name);
    Onnx__NodeProto *n;
    a = op(b, "Softmax", "Softmax", (const char *const[]){zoo_val(b, a)->name}, 1, 3,
           zoo_val(b, a)->dims, &n);
    zoo_attr_int(n, "axis", -1);
    a = matmul(b, "MatMul", a, val);
    a = transpose(b, "Transpose", a, (const int64_t[]){0, 2, 1, 3});
    a = reshape(b, "Reshape", a, 2, (const int64_t[]){s, d}, 0);
    a = zoo_dense(b, "out_proj", a, d);
    zoo_scope_pop(b);
    return a;
}
