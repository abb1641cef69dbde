/* builder.c - builds an Onnx__ModelProto layer by layer (see builder.h).
 *
 * Every string, array and message hanging off the model is allocated with
 * malloc and owned by exactly one message, so the finished model is freed by
 * protobuf-c's own onnx__model_proto__free_unpacked(). Weight buffers are
 * the TensorProtos' raw_data: the one copy of the weights there is.
 *
 * The layers and their signal statistics are in layers.c. */
#include <stdarg.h>
#include <string.h>

#include "builder_internal.h"

/* ---- deterministic weights ------------------------------------------------ */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3ULL;
    return h;
}

static zoo_rng rng_for(const zoo_builder *b, const char *tensor_name)
{
    zoo_rng r = {b->seed ^ fnv1a(tensor_name)};
    splitmix64(&r.s); /* mix once so that nearby seeds give unrelated streams */
    return r;
}

/* U[lo, hi) from the top 24 bits. */
double zoo_rng_uniform(zoo_rng *r, double lo, double hi)
{
    double u = (double)(splitmix64(&r->s) >> 40) * 0x1p-24;
    return lo + (hi - lo) * u;
}
/* ---- names, values, nodes ------------------------------------------------- */

void zoo_scope_push(zoo_builder *b, const char *fmt, ...)
{
    PZ_ASSERT(b->depth < (int)PZ_ARRAY_LEN(b->scope_len));
    size_t len = strlen(b->scope);
    b->scope_len[b->depth++] = len;
    if (len) {
        PZ_ASSERT(len + 1 < sizeof b->scope);
        b->scope[len++] = '.';
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->scope + len, sizeof b->scope - len, fmt, ap);
    va_end(ap);
    PZ_ASSERT(n >= 0 && (size_t)n < sizeof b->scope - len);
}

void zoo_scope_pop(zoo_builder *b)
{
    PZ_ASSERT(b->depth > 0);
    b->scope[b->scope_len[--b->depth]] = 0;
}

static int name_taken(const zoo_builder *b, const char *name)
{
    for (size_t i = 0; i < b->n_nodes; i++)
        if (!strcmp(b->nodes[i]->name, name)) return 1;
    return 0;
}

/* The scoped, unique name of the next node, in b->full. */
const char *zoo_full_name(zoo_builder *b, const char *name)
{
    int n = snprintf(b->full, sizeof b->full, "%s%s%s", b->scope, b->scope[0] ? "." : "", name);
    PZ_ASSERT(n > 0 && (size_t)n < sizeof b->full - 16);
    for (int k = 1; name_taken(b, b->full); k++) snprintf(b->full + n, 16, "_%d", k);
    return b->full;
}

/* A new value of the given shape with zeroed statistics. Invalidates
 * pointers into b->values (not their name, mean and var arrays). */
static int value_new(zoo_builder *b, const char *name, int rank, const int64_t *dims)
{
    if (b->n_values == b->cap_values) {
        b->cap_values = b->cap_values ? 2 * b->cap_values : 64;
        b->values = pz_xrealloc(b->values, (size_t)b->cap_values * sizeof *b->values);
    }
    zoo_value *v = &b->values[b->n_values];
    memset(v, 0, sizeof *v);
    v->name = pz_xstrdup(name);
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->elem = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    size_t c = rank > 0 && dims[0] > 0 ? (size_t)dims[0] : 1; /* statistics per dims[0] */
    v->mean = pz_xcalloc(c, sizeof *v->mean);
    v->var = pz_xcalloc(c, sizeof *v->var);
    v->spread = pz_xcalloc(c, sizeof *v->spread);
    v->pre = v->sum[0] = v->sum[1] = -1;
    v->producer = -1;
    return b->n_values++;
}

zoo_value *zoo_val(const zoo_builder *b, int x)
{
    PZ_ASSERT(x >= 0 && x < b->n_values);
    return &b->values[x];
}

int64_t zoo_channels(const zoo_builder *b, int x)
{
    return zoo_val(b, x)->dims[0];
}

static char **strs_dup(const char *const *s, size_t n)
{
    char **d = pz_xmalloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = pz_xstrdup(s[i]);
    return d;
}

/* Appends node `op_type` named b->full reading `in`, writing a new value of
 * the given shape (statistics zero, for the caller to fill); returns the
 * node (for attributes) and the value in *y. */
Onnx__NodeProto *zoo_node_add(zoo_builder *b, const char *op_type, const char *const *in,
                                 size_t n_in, int rank, const int64_t *dims, int *y)
{
    int64_t d[3];
    memcpy(d, dims, (size_t)rank * sizeof *d); /* dims may point into b->values */
    Onnx__NodeProto *n = pz_xmalloc(sizeof *n);
    onnx__node_proto__init(n);
    n->name = pz_xstrdup(b->full);
    n->op_type = pz_xstrdup(op_type);
    n->n_input = n_in;
    n->input = strs_dup(in, n_in);
    n->n_output = 1;
    n->output = strs_dup((const char *const[]){b->full}, 1);
    if (b->n_nodes == b->cap_nodes) {
        b->cap_nodes = b->cap_nodes ? 2 * b->cap_nodes : 64;
        b->nodes = pz_xrealloc(b->nodes, b->cap_nodes * sizeof *b->nodes);
    }
    *y = value_new(b, b->full, rank, d);
    b->values[*y].producer = (int)b->n_nodes;
    b->nodes[b->n_nodes++] = n;
    return n;
}

static Onnx__AttributeProto *attr_add(Onnx__NodeProto *n, const char *name,
                                      Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = pz_xmalloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = pz_xstrdup(name);
    a->has_type = 1;
    a->type = type;
    n->attribute = pz_xrealloc(n->attribute, (n->n_attribute + 1) * sizeof *n->attribute);
    n->attribute[n->n_attribute++] = a;
    return a;
}

void zoo_attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

void zoo_attr_float(Onnx__NodeProto *n, const char *name, float v)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    a->has_f = 1;
    a->f = v;
}

/* An INTS attribute of `count` copies of v. */
void zoo_attr_ints(Onnx__NodeProto *n, const char *name, int64_t v, size_t count)
{
    Onnx__AttributeProto *a = attr_add(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = count;
    a->ints = pz_xmalloc(count * sizeof *a->ints);
    for (size_t i = 0; i < count; i++) a->ints[i] = v;
}

/* kernel_shape, strides, pads of a square 2-D window. */
void zoo_attr_window(Onnx__NodeProto *n, int k, int s, int p)
{
    zoo_attr_ints(n, "kernel_shape", k, 2);
    zoo_attr_ints(n, "strides", s, 2);
    zoo_attr_ints(n, "pads", p, 4);
}

/* A float32 initializer `name` of the given shape; returns its (zeroed) data. */
float *zoo_init_add(zoo_builder *b, const char *name, int rank, const int64_t *dims)
{
    Onnx__TensorProto *t = pz_xmalloc(sizeof *t);
    onnx__tensor_proto__init(t);
    int64_t numel = 1;
    t->n_dims = (size_t)rank;
    t->dims = rank ? pz_xmalloc((size_t)rank * sizeof *t->dims) : NULL;
    for (int i = 0; i < rank; i++) numel *= (t->dims[i] = dims[i]);
    t->has_data_type = 1;
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    t->name = pz_xstrdup(name);
    t->has_raw_data = 1;
    t->raw_data.len = (size_t)numel * sizeof(float);
    t->raw_data.data = pz_xcalloc((size_t)numel, sizeof(float));
    if (b->n_inits == b->cap_inits) {
        b->cap_inits = b->cap_inits ? 2 * b->cap_inits : 64;
        b->inits = pz_xrealloc(b->inits, b->cap_inits * sizeof *b->inits);
    }
    b->inits[b->n_inits++] = t;
    b->params += numel;
    return (float *)t->raw_data.data;
}

static const Onnx__TensorProto *init_find(const zoo_builder *b, const char *name)
{
    for (size_t i = 0; i < b->n_inits; i++)
        if (!strcmp(b->inits[i]->name, name)) return b->inits[i];
    return NULL;
}

const char *zoo_init_ints(zoo_builder *b, int rank, int n, const int64_t *v)
{
    PZ_ASSERT(rank == 1 || (rank == 0 && n == 1));
    char name[256];
    int k = snprintf(name, sizeof name, rank ? "ints" : "int");
    for (int i = 0; i < n && k < (int)sizeof name; i++)
        k += snprintf(name + k, sizeof name - (size_t)k, v[i] < 0 ? "_m%lld" : "_%lld",
                      (long long)(v[i] < 0 ? -v[i] : v[i]));
    PZ_ASSERT(k < (int)sizeof name);
    const Onnx__TensorProto *old = init_find(b, name);
    if (old) return old->name;
    int64_t dim = n;
    zoo_init_add(b, name, rank, &dim);
    b->params -= n; /* shapes and indices, not weights */
    Onnx__TensorProto *t = b->inits[b->n_inits - 1];
    t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    free(t->raw_data.data);
    t->raw_data.len = (size_t)n * sizeof *v;
    t->raw_data.data = pz_xmalloc(t->raw_data.len);
    memcpy(t->raw_data.data, v, t->raw_data.len); /* little-endian hosts only, as the loader */
    return t->name;
}

const char *zoo_init_scalar(zoo_builder *b, const char *name, float v)
{
    if (!init_find(b, name)) {
        zoo_init_add(b, name, 0, NULL)[0] = v;
        b->params--;
    }
    return name;
}

/* Initializer "<node>.<param>" (its name into out) of the given shape; if
 * rng is not NULL it is set to the tensor's random stream. */
float *zoo_param_add(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                        zoo_rng *rng, char *out, size_t size)
{
    int len = snprintf(out, size, "%s.%s", b->full, param);
    PZ_ASSERT(len > 0 && (size_t)len < size);
    if (rng) *rng = rng_for(b, out);
    return zoo_init_add(b, out, rank, dims);
}

float *zoo_init_uniform(zoo_builder *b, const char *name, int rank, const int64_t *dims, double lo,
                        double hi)
{
    zoo_rng r = rng_for(b, name);
    float *d = zoo_init_add(b, name, rank, dims);
    int64_t numel = 1;
    for (int i = 0; i < rank; i++) numel *= dims[i];
    for (int64_t i = 0; i < numel; i++) d[i] = (float)zoo_rng_uniform(&r, lo, hi);
    return d;
}

/* Initializer "<node>.<param>" filled with U[lo, hi). */
float *zoo_param_uniform(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                            double lo, double hi, char *out, size_t size)
{
    int len = snprintf(out, size, "%s.%s", b->full, param);
    PZ_ASSERT(len > 0 && (size_t)len < size);
    return zoo_init_uniform(b, out, rank, dims, lo, hi);
}
/* ---- public API ----------------------------------------------------------- */

zoo_builder *zoo_builder_new(const char *graph_name, uint64_t seed)
{
    zoo_builder *b = pz_xcalloc(1, sizeof *b);
    b->seed = seed;
    b->graph_name = pz_xstrdup(graph_name);
    b->output = -1;
    return b;
}

void zoo_builder_free(zoo_builder *b)
{
    if (!b) return;
    for (size_t i = 0; i < b->n_nodes; i++) onnx__node_proto__free_unpacked(b->nodes[i], NULL);
    for (size_t i = 0; i < b->n_inits; i++) onnx__tensor_proto__free_unpacked(b->inits[i], NULL);
    for (int i = 0; i < b->n_values; i++) {
        free(b->values[i].name);
        free(b->values[i].mean);
        free(b->values[i].var);
        free(b->values[i].spread);
        free(b->values[i].cov);
    }
    free(b->nodes);
    free(b->inits);
    free(b->values);
    free(b->graph_name);
    free(b);
}

int zoo_input_tensor(zoo_builder *b, const char *name, int elem, int rank, const int64_t *dims)
{
    PZ_ASSERT(b->n_inputs < ZOO_MAX_INPUTS && rank >= 0 && rank <= 3);
    int x = value_new(b, name, rank, dims);
    zoo_val(b, x)->elem = elem;
    return b->inputs[b->n_inputs++] = x;
}

int zoo_input(zoo_builder *b, const char *name, int64_t c, int64_t h, int64_t w)
{
    int x = zoo_input_tensor(b, name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 3,
                             (const int64_t[]){c, h, w});
    zoo_value *v = zoo_val(b, x);
    for (int64_t i = 0; i < c; i++) v->var[i] = 1.0;
    return x;
}

void zoo_output(zoo_builder *b, int x, const char *name)
{
    zoo_value *v = zoo_val(b, x);
    PZ_ASSERT(b->output < 0 && v->producer >= 0);
    free(v->name);
    v->name = pz_xstrdup(name);
    Onnx__NodeProto *n = b->nodes[v->producer];
    free(n->output[0]);
    n->output[0] = pz_xstrdup(name);
    b->output = x;
}

int64_t zoo_builder_params(const zoo_builder *b) { return b->params; }
int64_t zoo_builder_macs(const zoo_builder *b) { return b->macs; }
int64_t zoo_builder_nodes(const zoo_builder *b) { return (int64_t)b->n_nodes; }

/* Tensor value info of shape [1, dims...], ZOO_DIM_SEQ as "sequence". */
static Onnx__ValueInfoProto *value_info(const zoo_value *v)
{
    Onnx__TensorShapeProto *shape = pz_xmalloc(sizeof *shape);
    onnx__tensor_shape_proto__init(shape);
    shape->n_dim = (size_t)v->rank + 1;
    shape->dim = pz_xmalloc(shape->n_dim * sizeof *shape->dim);
    for (size_t i = 0; i < shape->n_dim; i++) {
        Onnx__TensorShapeProto__Dimension *d = pz_xmalloc(sizeof *d);
        onnx__tensor_shape_proto__dimension__init(d);
        if (i && v->dims[i - 1] == ZOO_DIM_SEQ) {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = pz_xstrdup("sequence");
        } else {
            d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = i ? v->dims[i - 1] : 1;
        }
        shape->dim[i] = d;
    }
    Onnx__TypeProto__Tensor *tt = pz_xmalloc(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = v->elem;
    tt->shape = shape;
    Onnx__TypeProto *type = pz_xmalloc(sizeof *type);
    onnx__type_proto__init(type);
    type->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type->tensor_type = tt;
    Onnx__ValueInfoProto *vi = pz_xmalloc(sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = pz_xstrdup(v->name);
    vi->type = type;
    return vi;
}

Onnx__ModelProto *zoo_builder_finish(zoo_builder *b)
{
    PZ_ASSERT(b->n_inputs > 0 && b->output >= 0 && b->depth == 0);
    Onnx__GraphProto *g = pz_xmalloc(sizeof *g);
    onnx__graph_proto__init(g);
    g->name = pz_xstrdup(b->graph_name);
    g->n_node = b->n_nodes;
    g->node = b->nodes;
    g->n_initializer = b->n_inits;
    g->initializer = b->inits;
    g->n_input = (size_t)b->n_inputs;
    g->input = pz_xmalloc(g->n_input * sizeof *g->input);
    for (int i = 0; i < b->n_inputs; i++) g->input[i] = value_info(zoo_val(b, b->inputs[i]));
    g->n_output = 1;
    g->output = pz_xmalloc(sizeof *g->output);
    g->output[0] = value_info(zoo_val(b, b->output));
    b->nodes = NULL;
    b->inits = NULL;
    b->n_nodes = b->n_inits = b->cap_nodes = b->cap_inits = 0;

    Onnx__OperatorSetIdProto *opset = pz_xmalloc(sizeof *opset);
    onnx__operator_set_id_proto__init(opset);
    opset->domain = pz_xstrdup("");
    opset->has_version = 1;
    opset->version = 13;

    Onnx__ModelProto *m = pz_xmalloc(sizeof *m);
    onnx__model_proto__init(m);
    m->has_ir_version = 1;
    m->ir_version = 7;
    m->n_opset_import = 1;
    m->opset_import = pz_xmalloc(sizeof *m->opset_import);
    m->opset_import[0] = opset;
    m->producer_name = pz_xstrdup("paleozoic-zoo");
    m->producer_version = pz_xstrdup("0.1");
    m->graph = g;
    return m;
}
