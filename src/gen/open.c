/* open.c - open dims (--max-shape): one generated program for every value
 * of a symbolic dim up to a bound (plan.h's gen_open).
 *
 * The model is planned at a few values of the open dims. The plans must
 * agree on everything but the dims of the tensors layers write (same
 * layers, params, constants, tensor ids), and each such dim must be a sum of
 * monomials of the open dims: with n open dims, the 2^n plans at D[k] in
 * {1, 2} give the coefficients exactly (a Moebius inversion over the
 * subsets), and the other plans (at the bounds) check them. The int fields
 * of the layers' params that change (a Slice start counted from the end of
 * an open axis) must be of the same form. A dim or field that is not (a
 * conv's output length over an open sequence: a floor division) is refused
 * by name rather than emitted wrong. */
#include <string.h>

#include "emit.h"

#include "../rt/op_desc.h"

typedef int64_t coef_row[1 << GEN_MAX_OPEN];

/* sum over S of c[S] * prod_{k in S} v[k] */
static int64_t eval(const int64_t *c, int n, const int64_t *v)
{
    int64_t y = 0;
    for (int s = 0; s < 1 << n; s++) {
        int64_t term = c[s];
        for (int k = 0; k < n && term; k++)
            if (s >> k & 1) term *= v[k];
        y += term;
    }
    return y;
}

/* "batch=2, sequence=1" */
static void values_str(char *dst, size_t size, int n, const char *const *names, const int64_t *v)
{
    size_t k = 0;
    dst[0] = 0;
    for (int i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(dst + k, size - k, "%s%s=%lld", i ? ", " : "", names[i],
                              (long long)v[i]);
}

/* The layer that writes tensor id in plan p, or -1. */
static int writer(const gen_plan *p, int id)
{
    for (int li = 0; li < p->n_l; li++)
        for (int k = 0; k < p->l[li].low.n_out; k++)
            if (p->l[li].low.out[k] == id) return li;
    return -1;
}

/* Plans a and b (at values va, vb) have the same layers, params, constants
 * and tensors but for the dims of the non-constant tensors. */
static pz_status same_structure(const gen_plan *a, const gen_plan *b, const char *va,
                                const char *vb, pz_err *err)
{
    if (a->n_t != b->n_t || a->n_l != b->n_l || a->n_inputs != b->n_inputs ||
        a->n_consts != b->n_consts || a->n_outputs != b->n_outputs)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: the model lowers to other layers "
                       "at %s than at %s (%d layers and %d tensors against %d and %d): a graph "
                       "pass or a fold depends on the open dims; not supported", vb, va, b->n_l,
                       b->n_t, a->n_l, a->n_t);
    for (int li = 0; li < a->n_l; li++) {
        const op_lowered *x = &a->l[li].low, *y = &b->l[li].low;
        int same = x->kind == y->kind && x->n_in == y->n_in && x->n_out == y->n_out &&
                   x->params_size == y->params_size &&
                   !memcmp(x->in, y->in, sizeof(int) * (size_t)x->n_in) &&
                   !memcmp(x->out, y->out, sizeof(int) * (size_t)x->n_out);
        if (!same)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: layer \"%s\" (%s) is another "
                           "layer at %s than at %s; not supported", a->l[li].name,
                           pz_op_name(x->kind), vb, va);
    }
    for (int i = 0; i < a->n_outputs; i++)
        if (a->outputs[i] != b->outputs[i])
            return pz_fail(err, PZ_ERR_INTERNAL, "--max-shape: the outputs differ at %s", vb);
    for (int i = 0; i < a->n_t; i++) {
        const gen_tensor *x = &a->t[i], *y = &b->t[i];
        int same = x->kind == y->kind && x->dtype == y->dtype && x->rank == y->rank &&
                   x->src == y->src;
        if (!same)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: %s \"%s\" differs at %s from "
                           "%s (its type or rank): it depends on the open dims; not supported",
                           x->kind == GEN_CONST ? "the constant" : "value", x->name, vb, va);
    }
    return PZ_OK;
}

/* Constant i is the same in every plan (0), or each plan's bytes are a
 * prefix of the last plan's (1: an open constant), else refused (-1). */
static int const_kind(gen_plan *const *s, int n_s, int i, char *va, size_t size, int n,
                      const char *const *names, const int64_t (*at)[GEN_MAX_OPEN], pz_err *err)
{
    const gen_tensor *z = &s[n_s - 1]->t[i];
    int same = 1;
    for (int j = 0; j < n_s; j++) {
        const gen_tensor *x = &s[j]->t[i];
        int eq = x->nbytes == z->nbytes && !memcmp(x->dims, z->dims, sizeof(int64_t) * (size_t)x->rank);
        same &= eq && (!x->nbytes || !memcmp(x->data, z->data, x->nbytes));
        if (x->nbytes > z->nbytes || (x->nbytes && memcmp(x->data, z->data, x->nbytes))) {
            values_str(va, size, n, names, at[j]);
            pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: the constant \"%s\" (folded from the "
                    "model) at %s is not the start of its value at the bounds: it depends on "
                    "the open dims in a way the program cannot follow; not supported", x->name, va);
            return -1;
        }
    }
    return !same;
}

/* The coefficients m[] (plan.h's gen_open) of the values y[j] taken at
 * at[j]: from the corners, a Moebius inversion; c[T] = sum over U in T of
 * (-1)^|T \ U| y(U) are the coefficients in the (D[k] - 1), m[S] = sum over
 * T containing S of (-1)^|T \ S| c[T] those in the D[k]. Returns the first
 * sample they miss, or -1. */
static int fit(const int64_t *y, const int64_t (*at)[GEN_MAX_OPEN], int n_s, int n, int64_t *m)
{
    int corners = 1 << n;
    int64_t c[1 << GEN_MAX_OPEN];
    for (int T = 0; T < corners; T++) {
        c[T] = 0;
        for (int U = T;; U = (U - 1) & T) {
            c[T] += (__builtin_popcount((unsigned)(T & ~U)) & 1) ? -y[U] : y[U];
            if (!U) break;
        }
    }
    for (int S = 0; S < corners; S++) {
        m[S] = 0;
        for (int T = 0; T < corners; T++)
            if ((T & S) == S) m[S] += (__builtin_popcount((unsigned)(T & ~S)) & 1) ? -c[T] : c[T];
    }
    for (int j = 0; j < n_s; j++)
        if (eval(m, n, at[j]) != y[j]) return j;
    return -1;
}

static int64_t read_int(const unsigned char *p, pz_field_type t)
{
    if (t == PZ_F_I64) {
        int64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    int v;
    memcpy(&v, p, 4);
    return v;
}

/* The params fields that change with the open dims: each an int or int64_t
 * element whose values fit (a Slice start counted from the end of an open
 * axis); any other change is refused naming the layer and the field. */
static pz_status fit_params(gen_plan *const *s, const int64_t (*at)[GEN_MAX_OPEN], int n_s,
                            int n, const char *const *names, gen_open *o, pz_err *err)
{
    const gen_plan *p = s[n_s - 1];
    for (int li = 0; li < p->n_l; li++) {
        const pz_rt_op *op = pz_rt_ops[p->l[li].low.kind];
        for (int fi = 0; p->l[li].low.params_size && fi < op->n_fields; fi++) {
            const pz_param_field *f = &op->fields[fi];
            size_t es = f->type == PZ_F_I64 || f->type == PZ_F_F64 ? 8
                      : f->type == PZ_F_ACT ? sizeof(pz_act) : 4;
            for (int k = 0; k < f->count; k++) {
                size_t off = f->off + (size_t)k * es;
                int differs = 0;
                for (int j = 0; j < n_s; j++)
                    differs |= memcmp(s[j]->l[li].low.p.any + off, p->l[li].low.p.any + off, es) != 0;
                if (!differs) continue;
                int64_t y[(1 << GEN_MAX_OPEN) + GEN_MAX_OPEN + 1], m[1 << GEN_MAX_OPEN];
                int miss = n_s - 1;   /* another type: refused */
                if (f->type == PZ_F_INT || f->type == PZ_F_I64) {
                    for (int j = 0; j < n_s; j++) y[j] = read_int(s[j]->l[li].low.p.any + off, f->type);
                    miss = fit(y, at, n_s, n, m);
                }
                if (miss >= 0) {
                    char va[200], vb[200];
                    values_str(va, sizeof va, n, names, at[0]);
                    values_str(vb, sizeof vb, n, names, at[miss]);
                    return pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: layer \"%s\" (%s): its "
                                   "param %s[%d] at %s is not the one at %s as a sum of products "
                                   "of the open dims: the layer cannot take the actual size; not "
                                   "supported", p->l[li].name, pz_op_name(p->l[li].low.kind),
                                   f->name, k, vb, va);
                }
                o->params = pz_xrealloc(o->params, (size_t)(o->n_params + 1) * sizeof *o->params);
                gen_open_param *q = &o->params[o->n_params++];
                q->layer = li;
                q->off = off;
                memcpy(q->coef, m, sizeof q->coef);
            }
        }
    }
    return PZ_OK;
}

pz_status gen_open_fit(gen_plan *const *s, const int64_t (*at)[GEN_MAX_OPEN], int n_s,
                       int n_open, const char *const *names, const int64_t *max, pz_err *err)
{
    int corners = 1 << n_open;
    PZ_ASSERT(n_open >= 1 && n_open <= GEN_MAX_OPEN && n_s >= corners);
    char va[200], vb[200];
    values_str(va, sizeof va, n_open, names, at[0]);
    for (int i = 1; i < n_s; i++) {
        values_str(vb, sizeof vb, n_open, names, at[i]);
        if (same_structure(s[0], s[i], va, vb, err)) return err->code;
    }
    gen_plan *out = s[n_s - 1];
    gen_open *o = pz_xcalloc(1, sizeof *o);
    o->n = n_open;
    for (int k = 0; k < n_open; k++) o->name[k] = names[k], o->max[k] = max[k];
    o->coef = pz_xcalloc((size_t)(out->n_t ? out->n_t : 1), sizeof *o->coef);
    o->open_const = pz_xcalloc((size_t)(out->n_t ? out->n_t : 1), 1);
    for (int i = 0; i < out->n_t; i++) {
        if (out->t[i].kind == GEN_CONST) {
            int k = const_kind(s, n_s, i, vb, sizeof vb, n_open, names, at, err);
            if (k < 0) goto fail;
            if (!k) continue;
            o->open_const[i] = 1;
        }
        for (int d = 0; d < out->t[i].rank; d++) {
            int64_t y[(1 << GEN_MAX_OPEN) + GEN_MAX_OPEN + 1];
            for (int j = 0; j < n_s; j++) y[j] = s[j]->t[i].dims[d];
            int j = fit(y, at, n_s, n_open, o->coef[i][d]);
            if (j >= 0) {
                int li = writer(out, i);
                values_str(vb, sizeof vb, n_open, names, at[j]);
                pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape: %s%s%s%s\"%s\": its dim %d is "
                        "%lld at %s, not a sum of products of the open dims as at %s (%lld): "
                        "a layer that cannot take the actual size (e.g. a strided window over "
                        "an open dim); not supported", li >= 0 ? "layer \"" : "",
                        li >= 0 ? out->l[li].name : "", li >= 0 ? "\" writes " : "value ",
                        li >= 0 ? "value " : "", out->t[i].name, d,
                        (long long)s[j]->t[i].dims[d], vb, va, (long long)s[0]->t[i].dims[d]);
                goto fail;
            }
        }
    }
    if (fit_params(s, at, n_s, n_open, names, o, err)) goto fail;
    /* the printed plan's dims: at the bounds (the I/O tables, the banner);
     * a constant keeps its own (NAME.weights holds its value there) */
    for (int i = 0; i < out->n_t; i++) {
        gen_tensor *x = &out->t[i];
        if (x->kind == GEN_CONST) continue;
        x->nbytes = pz_dtype_size(x->dtype);
        for (int d = 0; d < x->rank; d++) {
            x->dims[d] = eval(o->coef[i][d], n_open, max);
            x->nbytes *= (size_t)x->dims[d];
        }
    }
    out->open = o;
    return PZ_OK;
fail:
    free(o->params);
    free(o->open_const);
    free(o->coef);
    free(o);
    return err->code;
}

void gen_open_dim_expr(gen_text *t, const gen_plan *p, int id, int d)
{
    if (!p->open || (p->t[id].kind == GEN_CONST && !p->open->open_const[id]))
        gt_printf(t, "%lld", (long long)p->t[id].dims[d]);
    else gt_open_expr(t, p->open->coef[id][d], p->open->n);
}

void gt_open_expr(gen_text *t, const int64_t *m, int n)
{
    int terms = 0;
    for (int S = (1 << n) - 1; S >= 0; S--) {   /* the products first, the constant last */
        if (!m[S]) continue;
        int64_t c = m[S];
        if (terms) gt_puts(t, c < 0 ? " - " : " + ");
        else if (c < 0) gt_puts(t, "-");
        if (c < 0) c = -c;
        int factors = 0;
        if (c != 1 || !S) gt_printf(t, "%lld", (long long)c), factors++;
        for (int k = 0; k < n; k++)
            if (S >> k & 1) gt_printf(t, "%sD[%d]", factors++ ? " * " : "", k);
        terms++;
    }
    if (!terms) gt_puts(t, "0");
}
