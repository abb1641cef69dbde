/* params.c - a lowered layer's params struct printed as C from the field
 * table of its kind's descriptor (rt/op_desc.h: name, offset, type, array
 * length; the tables live with the ops in rt/ops/), shared by the
 * designated-initializer form (default emission) and the field-by-field form
 * (--emit raw). A field that is zero is left out: the struct is zeroed first. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "text.h"

#include "../rt/op_desc.h"

typedef pz_param_field field;

static const char *const ACT[] = {"PZ_ACT_NONE",         "PZ_ACT_RELU",       "PZ_ACT_CLIP",
                                  "PZ_ACT_GELU",         "PZ_ACT_LEAKY_RELU", "PZ_ACT_SIGMOID",
                                  "PZ_ACT_SWISH",        "PZ_ACT_HARD_SIGMOID",
                                  "PZ_ACT_HARD_SWISH",   "PZ_ACT_TANH",       "PZ_ACT_PRELU",
                                  "PZ_ACT_SELECT",       "PZ_ACT_ELU",        "PZ_ACT_SELU",
                                  "PZ_ACT_SOFTPLUS",     "PZ_ACT_MISH"};
_Static_assert(PZ_ARRAY_LEN(ACT) == PZ_ACT_COUNT_, "one name per pz_act_kind");
/* SELECT's comparisons (pz_act.cmp), EQ to GE */
static const char *const ACT_CMP[] = {"PZ_CMP_EQ", "PZ_CMP_LT", "PZ_CMP_LE", "PZ_CMP_GT", "PZ_CMP_GE"};

/* SELECT's fields of act a (none for the other kinds), each as
 * "<pre>name = value<post>": the initializer's and the assignments' form. */
static void print_select(gen_text *t, const pz_act *a, const char *pre, const char *post)
{
    if (a->kind != PZ_ACT_SELECT) return;
    if (a->t != 0) gt_printf(t, "%st = ", pre), gt_float(t, a->t), gt_puts(t, post);
    if (a->cmp > 0 && (unsigned)a->cmp < PZ_ARRAY_LEN(ACT_CMP))
        gt_printf(t, "%scmp = %s%s", pre, ACT_CMP[a->cmp], post);
    if (a->sel) gt_printf(t, "%ssel = %d%s", pre, a->sel, post);
}

/* The field table of a kind's descriptor. A kind whose layers carry params
 * but whose descriptor lists no fields would be printed as zeros: an
 * internal error, never emitted. */
static const field *fields_of(const op_lowered *low, int *n)
{
    PZ_ASSERT(low->kind >= 0 && low->kind < PZ_OP_COUNT_);
    const pz_rt_op *op = pz_rt_ops[low->kind];
    PZ_ASSERT(!low->params_size || (op->fields && op->n_fields > 0));
    *n = op->n_fields;
    return op->fields;
}

static size_t elem_size(pz_field_type t)
{
    switch (t) {
    case PZ_F_I64: case PZ_F_F64: return 8;
    case PZ_F_ACT: return sizeof(pz_act);
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
    case PZ_F_INT: memcpy(&iv, p, 4); gt_printf(t, "%d", iv); break;
    case PZ_F_UNS: { unsigned u; memcpy(&u, p, 4); gt_printf(t, "0x%xu", u); break; }
    case PZ_F_I64: { int64_t v; memcpy(&v, p, 8); gt_printf(t, "%lld", (long long)v); break; }
    case PZ_F_F32: { float v; memcpy(&v, p, 4); gt_float(t, v); break; }
    case PZ_F_F64: { double v; memcpy(&v, p, 8); gt_double(t, v); break; }
    case PZ_F_ENUM:
        memcpy(&iv, p, sizeof iv);
        if (iv >= 0 && iv < f->n_names) gt_puts(t, f->names[iv]);
        else gt_printf(t, "%d", iv);
        break;
    case PZ_F_ACT: {
        pz_act a;
        memcpy(&a, p, sizeof a);
        gt_printf(t, "{.kind = %s", (unsigned)a.kind < PZ_ARRAY_LEN(ACT) ? ACT[a.kind] : "PZ_ACT_NONE");
        if (a.lo != 0 || signbit(a.lo)) gt_puts(t, ", .lo = "), gt_float(t, a.lo);
        if (a.hi != 0 || signbit(a.hi)) gt_puts(t, ", .hi = "), gt_float(t, a.hi);
        print_select(t, &a, ", .", "");
        gt_puts(t, "}");
        break;
    }
    }
}

/* The open-dims form of the params element at byte off of layer li, or NULL. */
static const gen_open_param *open_param(const gen_open *o, int li, size_t off)
{
    for (int i = 0; o && i < o->n_params; i++)
        if (o->params[i].layer == li && o->params[i].off == off) return &o->params[i];
    return NULL;
}

/* One element, or its expression of the open dims. */
static void print_elem_open(gen_text *t, const field *f, const unsigned char *base, size_t off,
                            const gen_open *o, int li)
{
    const gen_open_param *q = open_param(o, li, off);
    if (!q) {
        print_elem(t, f, base + off);
        return;
    }
    gt_puts(t, f->type == PZ_F_INT ? "(int)(" : "(");
    gt_open_expr(t, q->coef, o->n);
    gt_puts(t, ")");
}

/* The value of a field: a scalar, or "{a, b, c}" up to the last non-zero
 * (or open) element. */
static void print_value(gen_text *t, const field *f, const unsigned char *base,
                        const gen_open *o, int li)
{
    size_t es = elem_size(f->type);
    if (f->count == 1) {
        print_elem_open(t, f, base, f->off, o, li);
        return;
    }
    int last = 0;
    for (int i = 0; i < f->count; i++) {
        size_t off = f->off + (size_t)i * es;
        if (!is_zero(base + off, es) || open_param(o, li, off)) last = i;
    }
    gt_puts(t, "{");
    for (int i = 0; i <= last; i++) {
        if (i) gt_puts(t, ", ");
        print_elem_open(t, f, base, f->off + (size_t)i * es, o, li);
    }
    gt_puts(t, "}");
}

/* Some element of field f of layer li is open. */
static int field_open(const gen_open *o, int li, const field *f)
{
    for (int k = 0; k < f->count; k++)
        if (open_param(o, li, f->off + (size_t)k * elem_size(f->type))) return 1;
    return 0;
}

void gen_params_fields(gen_text *t, const op_lowered *low, const gen_open *o, int li)
{
    int n, printed = 0;
    const field *fs = fields_of(low, &n);
    const unsigned char *base = (const unsigned char *)&low->p;
    for (int i = 0; i < n; i++) {
        const field *f = &fs[i];
        /* the first field is always printed: "{}" is not C99 */
        if (printed && is_zero(base + f->off, elem_size(f->type) * (size_t)f->count) &&
            !field_open(o, li, f))
            continue;
        gt_printf(t, "%s.%s = ", printed ? ", " : "", f->name);
        print_value(t, f, base, o, li);
        printed++;
    }
}

void gen_params_assign(gen_text *t, const op_lowered *low, const char *var, const char *indent)
{
    int n;
    const field *fs = fields_of(low, &n);
    const unsigned char *base = (const unsigned char *)&low->p;
    size_t es;
    for (int i = 0; i < n; i++) {
        const field *f = &fs[i];
        es = elem_size(f->type);
        /* zero fields are left to the memset, except the first (the kind, often) */
        if (i > 0 && is_zero(base + f->off, es * (size_t)f->count)) continue;
        if (f->count == 1 && f->type == PZ_F_ACT) {
            pz_act a;
            memcpy(&a, base + f->off, sizeof a);
            gt_printf(t, "%s%s.%s.kind = %s;\n", indent, var, f->name,
                      (unsigned)a.kind < PZ_ARRAY_LEN(ACT) ? ACT[a.kind] : "PZ_ACT_NONE");
            if (a.lo != 0 || signbit(a.lo)) gt_printf(t, "%s%s.%s.lo = ", indent, var, f->name), gt_float(t, a.lo), gt_puts(t, ";\n");
            if (a.hi != 0 || signbit(a.hi)) gt_printf(t, "%s%s.%s.hi = ", indent, var, f->name), gt_float(t, a.hi), gt_puts(t, ";\n");
            char pre[160];
            snprintf(pre, sizeof pre, "%s%s.%s.", indent, var, f->name);
            print_select(t, &a, pre, ";\n");
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
