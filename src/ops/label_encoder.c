/* label_encoder.c - LabelEncoder (ai.onnx.ml, opsets 2 to 4): Y[i] = the
 * value of the first key equal to X[i], else the default. Keys from one of
 * keys_strings, keys_int64s, keys_floats, keys_tensor (of X's type: string,
 * an integer or a float type); values from one of values_strings,
 * values_int64s, values_floats, values_tensor, which give Y's type; the
 * default from default_tensor or default_<values' type> ("_Unused", -1 for
 * an integer type, -0.0 when absent). Opset 1's classes_strings is refused. Runs as
 * LABEL_ENCODER: keys and values (the default last) as constants
 * (enc_expand): strings as uint8 blobs, integer keys as int64, float keys as
 * float64 (a float X widens exactly). */
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "../rt/pz_strings.h"

/* One side (keys or values) as the attributes give it. */
typedef struct {
    int dtype;                  /* IR_STRING, IR_I64, IR_F32 or the tensor's */
    int64_t n;
    const ir_attr *a;           /* the attribute */
} enc_side;

static pz_status side(const ir_node *n, const char *what, enc_side *s, pz_err *err)
{
    static const char *const suffix[] = {"strings", "int64s", "floats", "tensor"};
    static const int dtype[] = {IR_STRING, IR_I64, IR_F32, 0};
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 4; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s_%s", what, suffix[k]);
        const ir_attr *a = op_attr(n, name);
        if (!a) continue;
        if (s->a)
            return op_err_attr(err, n, name, "is given with %s_%s: give the %s one way only",
                               what, s->a->name + strlen(what) + 1, what);
        static const ir_attr_type want[] = {IR_ATTR_STRINGS, IR_ATTR_INTS, IR_ATTR_FLOATS,
                                            IR_ATTR_TENSOR};
        if (op_attr_expect(n, a, want[k], err)) return err->code;
        s->a = a;
        s->dtype = k < 3 ? dtype[k] : (int)a->t->dtype;
        s->n = k < 3 ? a->n : ir_tensor_numel(a->t);
        if (k == 3 && (a->t->rank != 1 || (!ir_dtype_supported(s->dtype) && s->dtype != IR_STRING)))
            return op_err_attr(err, n, name, "must be a 1-D tensor of a supported type");
    }
    if (!s->a) return op_err(err, n, "none of %s_strings, %s_int64s, %s_floats, %s_tensor is given",
                             what, what, what, what);
    return PZ_OK;
}

static pz_status enc_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    if (op_attr(n, "classes_strings"))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (LabelEncoder): classes_strings "
                       "(LabelEncoder-1) is not supported: give keys_* and values_*", n->name);
    enc_side k, v;
    if (side(n, "keys", &k, err) || side(n, "values", &v, err)) return err->code;
    if (k.n != v.n)
        return op_err(err, n, "%lld keys and %lld values: they must pair up", (long long)k.n,
                      (long long)v.n);
    int x_ok = x->dtype == IR_STRING ? k.dtype == IR_STRING
             : ir_dtype_is_float(x->dtype) ? k.dtype == (int)x->dtype || (k.dtype == IR_F32 && !k.a->t)
             : ir_dtype_is_int(x->dtype) ? k.dtype == (int)x->dtype || (k.dtype == IR_I64 && !k.a->t)
             : 0;
    if (!x_ok || ir_dtype_is_small(x->dtype) || x->dtype == IR_F16 || x->dtype == IR_BF16)
        return op_err(err, n, "input X is %s and the keys %s: they must agree (string, an "
                      "integer or a float type)", ir_dtype_name(x->dtype), ir_dtype_name(k.dtype));
    if (ir_dtype_is_small(v.dtype) || v.dtype == IR_F16 || v.dtype == IR_BF16)
        return op_err(err, n, "values of type %s are not supported", ir_dtype_name(v.dtype));
    const ir_attr *d = op_attr(n, "default_tensor");
    if (d && (op_attr_expect(n, d, IR_ATTR_TENSOR, err) ||
              (ir_tensor_numel(d->t) != 1 || (int)d->t->dtype != v.dtype)))
        return err->code ? err->code
                         : op_err_attr(err, n, "default_tensor", "must be one %s, like the values",
                                       ir_dtype_name(v.dtype));
    op_set_out(g, n, 0, v.dtype, x->rank, x->dims);
    return PZ_OK;
}

/* Element i of a side as a string / int64 / double. */
static const char *side_str(const enc_side *s, int64_t i)
{
    return s->a->t ? pz_str_at(s->a->t->data, i) : s->a->strings[i];
}
static double side_f64(const enc_side *s, int64_t i)
{
    return s->a->t ? ir_load_f64(s->a->t->data, s->dtype, (size_t)i) : s->a->floats[i];
}
static int64_t side_i64(const enc_side *s, int64_t i)
{
    return s->a->t ? ir_load_i64(s->a->t->data, s->dtype, (size_t)i) : s->a->ints[i];
}

static int enc_expand(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    if (n->n_in != 1) return 0;   /* done already */
    enc_side k, v;
    pz_err err = {0};
    if (side(n, "keys", &k, &err) || side(n, "values", &v, &err)) return 0;   /* infer said */
    int xdt = g->values[n->in[0]].t.dtype, in_k, in_v;
    const int64_t nk = k.n;
    if (xdt == IR_STRING) {
        const char **s = pz_xcalloc((size_t)nk + 1, sizeof *s);
        for (int64_t j = 0; j < nk; j++) s[j] = side_str(&k, j);
        in_k = op_add_strings_const(g, i, "keys", (int)nk, s);
        free(s);
    } else {
        int f = ir_dtype_is_float(xdt);
        void *buf = pz_xcalloc((size_t)nk + 1, 8);
        for (int64_t j = 0; j < nk; j++)
            if (f) ((double *)buf)[j] = side_f64(&k, j);
            else ((int64_t *)buf)[j] = side_i64(&k, j);
        in_k = op_add_const(g, i, "keys", f ? IR_F64 : IR_I64, nk, buf);
        free(buf);
    }
    n = &g->nodes[i];
    const ir_attr *d = op_attr(n, "default_tensor");
    if (v.dtype == IR_STRING) {
        const char *def;
        if (op_attr_string(n, "default_string", "_Unused", &def, &err)) def = "_Unused";
        if (d) def = pz_str_at(d->t->data, 0);
        const char **s = pz_xcalloc((size_t)nk + 1, sizeof *s);
        for (int64_t j = 0; j < nk; j++) s[j] = side_str(&v, j);
        s[nk] = def;
        in_v = op_add_strings_const(g, i, "values", (int)nk + 1, s);
        free(s);
    } else {
        size_t es = ir_dtype_size(v.dtype);
        void *buf = pz_xcalloc((size_t)nk + 1, es);
        for (int64_t j = 0; j < nk; j++) {
            if (v.a->t) memcpy((char *)buf + (size_t)j * es, (char *)v.a->t->data + (size_t)j * es, es);
            else if (v.dtype == IR_F32) ((float *)buf)[j] = v.a->floats[j];
            else ((int64_t *)buf)[j] = v.a->ints[j];
        }
        if (d) {
            memcpy((char *)buf + (size_t)nk * es, d->t->data, es);
        } else if (ir_dtype_is_int(v.dtype)) {   /* ONNX: -1 for an integer type */
            int64_t def;
            if (op_attr_int(n, "default_int64", -1, &def, &err)) def = -1;
            ir_store_i64(buf, v.dtype, (size_t)nk, def);
        } else {
            /* float values (and bool, where ONNX says nothing): -0.0, ONNX's default_float */
            float def;
            if (op_attr_float(n, "default_float", -0.0f, &def, &err)) def = -0.0f;
            ir_store_f64(buf, v.dtype, (size_t)nk, (double)def);
        }
        in_v = op_add_const(g, i, "values", v.dtype, nk + 1, buf);
        free(buf);
    }
    n = &g->nodes[i];
    ir_node_set_n_in(n, 3);
    n->in[1] = in_k;
    n->in[2] = in_v;
    return 0;
}

static pz_status enc_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    if (n->n_in != 3)   /* enc_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (LabelEncoder): its keys were not "
                       "prepared for the runtime", n->name);
    op_lowered_init(out, n, PZ_OP_LABEL_ENCODER, NULL, 0);
    return PZ_OK;
}

const op_def op_label_encoder = {
    .name = "LabelEncoder",
    .domain = "ai.onnx.ml",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .infer = enc_infer,
    .expand = enc_expand,
    .lower = enc_lower,
    .takes_string = 1,
};
