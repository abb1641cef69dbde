/* gen_open.c - the fit of open dims (src/gen/open.c, --max-shape) on plans
 * made by hand: dims and int params that are sums of products of the open
 * dims are found exactly and printed as C; a floor division and a clamped
 * param are refused. */
#include <string.h>

#include "gen/emit.h"
#include "rt/op_desc.h"

#include "test_check.h"

typedef int64_t (*dim_fn)(const int64_t *v);

/* A plan of one SLICE layer x -> y, y [f(v), 16], start[1] = g(v), step[0] = 1. */
static void make(gen_plan *p, const int64_t *v, dim_fn f, dim_fn g)
{
    memset(p, 0, sizeof *p);
    p->n_t = 2;
    p->n_inputs = 1;
    p->t = pz_xcalloc(2, sizeof *p->t);
    for (int i = 0; i < 2; i++) {
        p->t[i].kind = i ? GEN_VALUE : GEN_INPUT;
        p->t[i].name = i ? "y" : "x";
        p->t[i].dtype = PZ_F32;
        p->t[i].rank = 2;
        p->t[i].dims[0] = i ? f(v) : v[0];
        p->t[i].dims[1] = 16;
    }
    p->n_l = p->n_model_layers = 1;
    p->l = pz_xcalloc(1, sizeof *p->l);
    p->l[0].name = "slice";
    p->l[0].op_type = "Slice";
    op_lowered *low = &p->l[0].low;
    low->kind = PZ_OP_SLICE;
    low->n_in = low->n_out = 1;
    low->in[0] = 0;
    low->out[0] = 1;
    pz_slice_params sp = {.start = {0, g(v)}, .step = {1, 1}};
    memcpy(low->p.any, &sp, sizeof sp);
    low->params_size = sizeof sp;
    p->outputs = pz_xcalloc(1, sizeof(int));
    p->outputs[0] = 1;
    p->n_outputs = 1;
}

static int64_t prod3(const int64_t *v) { return 3 * v[0] * v[1] + 5; }
static int64_t halfup(const int64_t *v) { return (v[0] + 1) / 2; }
static int64_t last1(const int64_t *v) { return v[1] - 1; }
static int64_t twice(const int64_t *v) { return 2 * v[0]; }
static int64_t zero(const int64_t *v) { (void)v; return 0; }

/* Fits n open dims (bounds 8, 6) of f, g; returns the status, and (a fit)
 * the printed dim 0 of y and the slice layer's params as C; msg: the error. */
static pz_status run_fit(int n, dim_fn f, dim_fn g, char *dim, char *layer, char *msg)
{
    static const char *const names[] = {"batch", "sequence"};
    const int64_t max[] = {8, 6};
    int64_t at[8][GEN_MAX_OPEN];
    int ns = 0;
    for (int m = 0; m < 1 << n; m++, ns++)
        for (int k = 0; k < n; k++) at[ns][k] = m >> k & 1 ? 2 : 1;
    for (int j = 0; j < n && n > 1; j++, ns++)
        for (int k = 0; k < n; k++) at[ns][k] = k == j ? max[k] : 1;
    for (int k = 0; k < n; k++) at[ns][k] = max[k];
    ns++;
    gen_plan ps[8], *s[8];
    for (int i = 0; i < ns; i++) {
        int64_t v[2] = {at[i][0], n > 1 ? at[i][1] : 1};
        make(&ps[i], v, f, g);
        s[i] = &ps[i];
    }
    pz_err err = {0};
    pz_status st = gen_open_fit(s, (const int64_t (*)[GEN_MAX_OPEN])at, ns, n, names, max, &err);
    snprintf(msg, 400, "%.390s", err.msg);
    dim[0] = layer[0] = 0;
    if (!st) {
        gen_text t = {0}, u = {0};
        gen_open_dim_expr(&t, s[ns - 1], 1, 0);
        gen_params_fields(&u, &s[ns - 1]->l[0].low, s[ns - 1]->open, 0);
        snprintf(dim, 200, "%.190s", t.s);
        snprintf(layer, 400, "%.390s", u.s);
        gt_free(&t);
        gt_free(&u);
        checkf(s[ns - 1]->t[1].dims[0] == f((const int64_t[]){max[0], n > 1 ? max[1] : 1}),
               "the printed plan's dims are at the bounds");
    }
    for (int i = 0; i < ns; i++) gen_plan_free(&ps[i]);
    return st;
}

int main(void)
{
    char dim[200], layer[400], msg[400];
    /* two open dims: a product and a constant; a start counted from the end */
    pz_status st = run_fit(2, prod3, last1, dim, layer, msg);
    checkf(st == PZ_OK, "3 * B * S + 5 fits: %s", msg);
    checkf(!strcmp(dim, "3 * D[0] * D[1] + 5"), "its C: \"%s\"", dim);
    checkf(strstr(layer, ".start = {0, (D[1] - 1)}") != NULL, "the start's C: \"%s\"", layer);
    /* one open dim */
    st = run_fit(1, twice, zero, dim, layer, msg);
    checkf(st == PZ_OK && !strcmp(dim, "2 * D[0]"), "2 * B: \"%s\" (%s)", dim, msg);
    checkf(strstr(layer, "D[") == NULL, "a constant start stays a number: \"%s\"", layer);
    /* a floor division is not of that form: refused, naming the layer and value */
    st = run_fit(1, halfup, zero, dim, layer, msg);
    checkf(st == PZ_ERR_UNSUPPORTED && strstr(msg, "layer \"slice\" writes value \"y\""),
           "(B + 1) / 2 refused: %s", msg);
    st = run_fit(2, halfup, zero, dim, layer, msg);
    checkf(st == PZ_ERR_UNSUPPORTED, "(B + 1) / 2 with two open dims refused: %s", msg);
    /* a start that is not a product (clamped) is refused naming the param */
    st = run_fit(1, twice, halfup, dim, layer, msg);
    checkf(st == PZ_ERR_UNSUPPORTED && strstr(msg, "param start[1]"), "a clamped start refused: %s", msg);
    return test_summary("gen_open");
}
