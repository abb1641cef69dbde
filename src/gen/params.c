/* params.c - a lowered layer's params struct printed as C: one table of
 * fields per params type (name, offset, type, array length), shared by the
 * designated-initializer form (default emission) and the field-by-field form
 * (--emit raw). A field that is zero is left out: the struct is zeroed first. */
#include <stddef.h>
#include <string.h>

#include "text.h"

typedef enum { F_INT, F_I64, F_F32, F_F64, F_UNS, F_ACT, F_ENUM } ftype;

typedef struct {
    const char *name;
    size_t off;
    ftype type;
    int count;                   /* array length, 1 for a scalar */
    const char *const *names;    /* F_ENUM: the enumerators, in order */
    int n_names;
} field;

static const char *const ACT[] = {"PZ_ACT_NONE", "PZ_ACT_RELU", "PZ_ACT_CLIP", "PZ_ACT_GELU"};
static const char *const ALGO[] = {"PZ_CONV_AUTO", "PZ_CONV_DIRECT", "PZ_CONV_WINOGRAD"};
static const char *const POOL[] = {"PZ_POOL_MAX", "PZ_POOL_AVG"};
static const char *const UNARY[] = {"PZ_UN_RELU", "PZ_UN_LEAKY_RELU", "PZ_UN_CLIP", "PZ_UN_SIGMOID",
                                    "PZ_UN_TANH", "PZ_UN_HARD_SIGMOID", "PZ_UN_HARD_SWISH", "PZ_UN_ELU",
                                    "PZ_UN_SELU", "PZ_UN_SOFTPLUS", "PZ_UN_SWISH", "PZ_UN_SQRT",
                                    "PZ_UN_ERF", "PZ_UN_GELU"};
static const char *const BINARY[] = {"PZ_BIN_ADD", "PZ_BIN_SUB", "PZ_BIN_MUL", "PZ_BIN_DIV",
                                     "PZ_BIN_POW", "PZ_BIN_MAX", "PZ_BIN_MIN", "PZ_BIN_PRELU"};
static const char *const PAD[] = {"PZ_PAD_CONSTANT", "PZ_PAD_REFLECT", "PZ_PAD_EDGE", "PZ_PAD_WRAP"};
static const char *const RMODE[] = {"PZ_RESIZE_NEAREST", "PZ_RESIZE_LINEAR", "PZ_RESIZE_CUBIC"};
static const char *const COORD[] = {"PZ_CT_HALF_PIXEL", "PZ_CT_ASYMMETRIC", "PZ_CT_PYTORCH_HALF_PIXEL",
                                    "PZ_CT_ALIGN_CORNERS", "PZ_CT_TF_CROP_AND_RESIZE",
                                    "PZ_CT_HALF_PIXEL_SYMMETRIC"};
static const char *const NEAREST[] = {"PZ_NEAREST_ROUND_PREFER_FLOOR", "PZ_NEAREST_ROUND_PREFER_CEIL",
                                      "PZ_NEAREST_FLOOR", "PZ_NEAREST_CEIL"};
_Static_assert(PZ_UN_COUNT_ == 14 && PZ_BIN_COUNT_ == 8,
               "pz_rt.h's unary/binary enums changed: update the names in params.c");

#define E(st, f, tab) {#f, offsetof(st, f), F_ENUM, 1, tab, (int)PZ_ARRAY_LEN(tab)}
#define S(st, f, ty) {#f, offsetof(st, f), ty, 1, NULL, 0}
#define A(st, f, ty) {#f, offsetof(st, f), ty, (int)PZ_ARRAY_LEN(((st *)0)->f), NULL, 0}

static const field CONV[] = {
    S(pz_conv_params, nsp, F_INT), S(pz_conv_params, group, F_I64),
    A(pz_conv_params, kernel, F_I64), A(pz_conv_params, stride, F_I64),
    A(pz_conv_params, dilation, F_I64), A(pz_conv_params, pad_begin, F_I64),
    A(pz_conv_params, pad_end, F_I64), S(pz_conv_params, act, F_ACT),
    E(pz_conv_params, algo, ALGO),
};
static const field POOLF[] = {
    E(pz_pool_params, kind, POOL), S(pz_pool_params, nsp, F_INT),
    A(pz_pool_params, kernel, F_I64), A(pz_pool_params, stride, F_I64),
    A(pz_pool_params, dilation, F_I64), A(pz_pool_params, pad_begin, F_I64),
    A(pz_pool_params, pad_end, F_I64), S(pz_pool_params, count_include_pad, F_INT),
    S(pz_pool_params, storage_order, F_INT),
};
static const field BN[] = {
    S(pz_bn_params, epsilon, F_F32), S(pz_bn_params, training, F_INT),
    S(pz_bn_params, momentum, F_F32), S(pz_bn_params, act, F_ACT),
};
static const char *const ROUND[] = {"PZ_ROUND_UP", "PZ_ROUND_DOWN", "PZ_ROUND_NEAREST"};
static const field CASTF[] = {S(pz_cast_params, nosat, F_INT), E(pz_cast_params, round, ROUND)};
static const field UNARYF[] = {
    E(pz_unary_params, func, UNARY), S(pz_unary_params, alpha, F_F32),
    S(pz_unary_params, beta, F_F32), S(pz_unary_params, gamma, F_F32),
};
static const field BINARYF[] = {E(pz_binary_params, func, BINARY), S(pz_binary_params, act, F_ACT)};
static const field GEMM[] = {
    S(pz_gemm_params, trans_a, F_INT), S(pz_gemm_params, trans_b, F_INT),
    S(pz_gemm_params, alpha, F_F32), S(pz_gemm_params, beta, F_F32), S(pz_gemm_params, act, F_ACT),
};
static const field MATMULF[] = {S(pz_matmul_params, act, F_ACT)};
static const field SOFTMAX[] = {
    S(pz_softmax_params, axis, F_INT), S(pz_softmax_params, log, F_INT),
    S(pz_softmax_params, coerce_2d, F_INT),
};
static const field LRN[] = {
    S(pz_lrn_params, size, F_I64), S(pz_lrn_params, alpha, F_F32), S(pz_lrn_params, beta, F_F32),
    S(pz_lrn_params, bias, F_F32),
};
static const field REDUCE[] = {S(pz_reduce_params, axes_mask, F_UNS)};
static const field TRANSPOSE[] = {A(pz_transpose_params, perm, F_INT)};
static const field AXIS[] = {S(pz_axis_params, axis, F_INT)};
static const field SLICE[] = {A(pz_slice_params, start, F_I64), A(pz_slice_params, step, F_I64)};
static const field PADF[] = {
    E(pz_pad_params, mode, PAD), A(pz_pad_params, begin, F_I64), S(pz_pad_params, value, F_F64),
};
static const field RESIZE[] = {
    E(pz_resize_params, mode, RMODE), E(pz_resize_params, coord, COORD),
    E(pz_resize_params, nearest, NEAREST), S(pz_resize_params, cubic_coeff_a, F_F32),
    S(pz_resize_params, exclude_outside, F_INT), S(pz_resize_params, extrapolation_value, F_F32),
    A(pz_resize_params, scale, F_F32), A(pz_resize_params, roi_start, F_F32),
    A(pz_resize_params, roi_end, F_F32), S(pz_resize_params, antialias, F_INT),
};

static const field LAYERNORMF[] = {
    S(pz_layernorm_params, axis, F_INT), S(pz_layernorm_params, epsilon, F_F32),
};

static const field *fields_of(pz_op_kind kind, int *n)
{
#define T(tab) (*n = (int)PZ_ARRAY_LEN(tab), tab)
    switch (kind) {
    case PZ_OP_CONV: case PZ_OP_CONV_TRANSPOSE: return T(CONV);
    case PZ_OP_POOL: return T(POOLF);
    case PZ_OP_BATCHNORM: return T(BN);
    case PZ_OP_UNARY: return T(UNARYF);
    case PZ_OP_BINARY: return T(BINARYF);
    case PZ_OP_GEMM: return T(GEMM);
    case PZ_OP_MATMUL: return T(MATMULF);
    case PZ_OP_SOFTMAX: return T(SOFTMAX);
    case PZ_OP_LRN: return T(LRN);
    case PZ_OP_REDUCE_MEAN: return T(REDUCE);
    case PZ_OP_TRANSPOSE: return T(TRANSPOSE);
    case PZ_OP_CONCAT: case PZ_OP_SPLIT: case PZ_OP_GATHER: return T(AXIS);
    case PZ_OP_SLICE: return T(SLICE);
    case PZ_OP_PAD: return T(PADF);
    case PZ_OP_RESIZE: return T(RESIZE);
    case PZ_OP_LAYERNORM: return T(LAYERNORMF);
    case PZ_OP_CAST: return T(CASTF);
    default: *n = 0; return NULL;
    }
#undef T
}

static size_t elem_size(ftype t)
{
    switch (t) {
    case F_I64: case F_F64: return 8;
    case F_ACT: return sizeof(pz_act);
    default: return 4;
    }
}

static int is_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

/* One element of a field. */
static void print_elem(gen_text *t, const field *f, const void *p)
{
    int iv;
    switch (f->type) {
    case F_INT: memcpy(&iv, p, 4); gt_printf(t, "%d", iv); break;
    case F_UNS: { unsigned u; memcpy(&u, p, 4); gt_printf(t, "0x%xu", u); break; }
    case F_I64: { int64_t v; memcpy(&v, p, 8); gt_printf(t, "%lld", (long long)v); break; }
    case F_F32: { float v; memcpy(&v, p, 4); gt_float(t, v); break; }
    case F_F64: { double v; memcpy(&v, p, 8); gt_double(t, v); break; }
    case F_ENUM:
        memcpy(&iv, p, sizeof iv);
        if (iv >= 0 && iv < f->n_names) gt_puts(t, f->names[iv]);
        else gt_printf(t, "%d", iv);
        break;
    case F_ACT: {
        pz_act a;
        memcpy(&a, p, sizeof a);
        gt_printf(t, "{.kind = %s", (unsigned)a.kind < PZ_ARRAY_LEN(ACT) ? ACT[a.kind] : "PZ_ACT_NONE");
        if (a.lo != 0) gt_puts(t, ", .lo = "), gt_float(t, a.lo);
        if (a.hi != 0) gt_puts(t, ", .hi = "), gt_float(t, a.hi);
        gt_puts(t, "}");
        break;
    }
    }
}

/* The value of a field: a scalar, or "{a, b, c}" up to the last non-zero element. */
static void print_value(gen_text *t, const field *f, const unsigned char *base)
{
    size_t es = elem_size(f->type);
    if (f->count == 1) {
        print_elem(t, f, base + f->off);
        return;
    }
    int last = 0;
    for (int i = 0; i < f->count; i++)
        if (!is_zero(base + f->off + (size_t)i * es, es)) last = i;
    gt_puts(t, "{");
    for (int i = 0; i <= last; i++) {
        if (i) gt_puts(t, ", ");
        print_elem(t, f, base + f->off + (size_t)i * es);
    }
    gt_puts(t, "}");
}

void gen_params_fields(gen_text *t, const op_lowered *low)
{
    int n, printed = 0;
    const field *fs = fields_of(low->kind, &n);
    const unsigned char *base = (const unsigned char *)&low->p;
    for (int i = 0; i < n; i++) {
        const field *f = &fs[i];
        /* the first field is always printed: "{}" is not C99 */
        if (printed && is_zero(base + f->off, elem_size(f->type) * (size_t)f->count)) continue;
        gt_printf(t, "%s.%s = ", printed ? ", " : "", f->name);
        print_value(t, f, base);
        printed++;
    }
}

void gen_params_assign(gen_text *t, const op_lowered *low, const char *var, const char *indent)
{
    int n;
    const field *fs = fields_of(low->kind, &n);
    const unsigned char *base = (const unsigned char *)&low->p;
    size_t es;
    for (int i = 0; i < n; i++) {
        const field *f = &fs[i];
        es = elem_size(f->type);
        /* zero fields are left to the memset, except the first (the kind, often) */
        if (i > 0 && is_zero(base + f->off, es * (size_t)f->count)) continue;
        if (f->count == 1 && f->type == F_ACT) {
            pz_act a;
            memcpy(&a, base + f->off, sizeof a);
            gt_printf(t, "%s%s.%s.kind = %s;\n", indent, var, f->name,
                      (unsigned)a.kind < PZ_ARRAY_LEN(ACT) ? ACT[a.kind] : "PZ_ACT_NONE");
            if (a.lo != 0) gt_printf(t, "%s%s.%s.lo = ", indent, var, f->name), gt_float(t, a.lo), gt_puts(t, ";\n");
            if (a.hi != 0) gt_printf(t, "%s%s.%s.hi = ", indent, var, f->name), gt_float(t, a.hi), gt_puts(t, ";\n");
            continue;
        }
        for (int k = 0; k < f->count; k++) {
            const void *p = base + f->off + (size_t)k * es;
            if ((i > 0 || k > 0) && is_zero(p, es)) continue;
            if (f->count == 1) gt_printf(t, "%s%s.%s = ", indent, var, f->name);
            else gt_printf(t, "%s%s.%s[%d] = ", indent, var, f->name, k);
            print_elem(t, f, p);
            gt_puts(t, ";\n");
        }
    }
}
