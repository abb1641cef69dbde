/* op_desc.c - the layer kinds' descriptors (rt/op_desc.h) hold what the
 * compiler needs: every kind has a descriptor, a kind with params names its
 * type and a field table inside the struct (the code generator prints
 * nothing else, so a kind without one would be emitted zeroed), and the
 * enumerator names the tables print match the enums. Also compiles both
 * TEMPLATE files, and prepares and runs the runtime one, so a copy of them
 * starts from code that builds and works. */
#include <math.h>
#include <string.h>

#include "rt/ops/ops.h"
#include "test_check.h"

/* The runtime TEMPLATE (its kind is not in the list: it is a template). */
#include "../../src/rt/ops/TEMPLATE.c"
/* The compiler TEMPLATE lowers to the kind a copy would add to the list. */
#define PZ_OP_TEMPLATE PZ_OP_COUNT_
#include "../../src/ops/TEMPLATE.c"

static size_t field_elem_size(pz_field_type t)
{
    switch (t) {
    case PZ_F_I64: case PZ_F_F64: return 8;
    case PZ_F_ACT: return sizeof(pz_act);
    default: return 4;
    }
}

static void check_desc(const pz_rt_op *op, const char *what)
{
    checkf(op->name && op->prepare && op->run, "%s: name, prepare and run", what);
    int has_params = op->params_size > 0;
    checkf(has_params == (op->params_type != NULL), "%s: a params type iff params", what);
    checkf(has_params == (op->fields != NULL && op->n_fields > 0),
           "%s: a field table iff params (else emitted zeroed)", what);
    checkf(!op->defaults || has_params, "%s: defaults only with params", what);
    for (int i = 0; i < op->n_fields; i++) {
        const pz_param_field *f = &op->fields[i];
        checkf(f->name && f->count >= 1, "%s: field %d named, count >= 1", what, i);
        checkf(f->off + field_elem_size(f->type) * (size_t)f->count <= op->params_size,
               "%s.%s: inside the params struct", what, f->name ? f->name : "?");
        if (f->type == PZ_F_ENUM) {
            checkf(f->names && f->n_names > 0, "%s.%s: enumerator names", what, f->name);
            for (int k = 0; k < f->n_names; k++)
                checkf(f->names && f->names[k] && !strncmp(f->names[k], "PZ_", 3),
                       "%s.%s: name %d", what, f->name, k);
        }
        for (int j = 0; j < i; j++)
            checkf(f->off != op->fields[j].off, "%s.%s: one entry per field", what, f->name);
    }
}

static const pz_param_field *field_named(const pz_rt_op *op, const char *name)
{
    for (int i = 0; i < op->n_fields; i++)
        if (!strcmp(op->fields[i].name, name)) return &op->fields[i];
    return NULL;
}

static void test_kinds(void)
{
    for (int k = 0; k < PZ_OP_COUNT_; k++) {
        const pz_rt_op *op = pz_rt_ops[k];
        checkf(op != NULL, "kind %d has a descriptor", k);
        if (!op) continue;
        check_desc(op, op->name);
        checkf(!strcmp(pz_op_name((pz_op_kind)k), op->name), "pz_op_name(%d) = %s", k, op->name);
    }
    /* the names the emitter prints for the unary functions come from the list */
    const pz_param_field *f = field_named(pz_rt_ops[PZ_OP_UNARY], "func");
    check(f && f->n_names == PZ_UN_COUNT_, "UNARY: one name per pz_unary_func");
    check(f && !strcmp(f->names[PZ_UN_GELU], "PZ_UN_GELU"), "UNARY: names in enum order");
    /* only CONV carries the optimizer's algorithm knob */
    pz_conv_params cp = {0};
    pz_rt_ops[PZ_OP_CONV]->set_algo(&cp, PZ_CONV_WINOGRAD);
    check(cp.algo == PZ_CONV_WINOGRAD, "CONV: set_algo");
    /* the sparse kernels take priority: the algo names the one that runs
     * (generated C): a Winograd layer's the sparse Winograd, any other's
     * the sparse direct conv */
    pz_rt_ops[PZ_OP_CONV]->set_sparsity(&cp, 0.75f);
    check(cp.sparsity == 0.75f && cp.algo == PZ_CONV_SPARSE_WINOGRAD,
          "CONV: set_sparsity on a Winograd layer: the sparse Winograd");
    pz_rt_ops[PZ_OP_CONV]->set_algo(&cp, PZ_CONV_DIRECT);
    pz_rt_ops[PZ_OP_CONV]->set_sparsity(&cp, 0.75f);
    check(cp.algo == PZ_CONV_SPARSE, "CONV: set_sparsity on a direct layer: the sparse direct");
    f = field_named(pz_rt_ops[PZ_OP_CONV], "algo");
    check(f && f->n_names == PZ_CONV_SPARSE_WINOGRAD + 1 &&
              !strcmp(f->names[PZ_CONV_SPARSE], "PZ_CONV_SPARSE") &&
              !strcmp(f->names[PZ_CONV_SPARSE_WINOGRAD], "PZ_CONV_SPARSE_WINOGRAD"),
          "CONV: one name per pz_conv_algo");
}

static void test_templates(void)
{
    check_desc(&pz_rt_op_template, "TEMPLATE");
    check(op_template.lower && op_template.parse && op_template.infer, "ops/TEMPLATE.c: complete");

    /* prepare and run the runtime TEMPLATE on 5 elements, 2 workers */
    float xs[5] = {1, -2, 3, 0.5f, 4}, ys[5] = {0};
    pz_tensor x = {PZ_F32, 1, {5}, xs}, y = {PZ_F32, 1, {5}, ys};
    pz_tensor *in[1] = {&x}, *out[1] = {&y};
    pz_template_params p = {.alpha = 2.5f};
    pz_layer l;
    memset(&l, 0, sizeof l);
    l.name = "t";
    l.op = &pz_rt_op_template;
    l.params = &p;
    l.n_in = l.n_out = 1;
    l.in = in;
    l.out = out;
    char err[256] = "";
    check(pz_rt_op_template.prepare(&l, err, sizeof err) == 0, err);
    for (int ith = 0; ith < 2; ith++) pz_rt_op_template.run(&l, ith, 2);
    int ok = 1;
    for (int i = 0; i < 5; i++) ok &= ys[i] == 2.5f * xs[i];
    check(ok, "TEMPLATE: Y = alpha * X");
    x.dtype = PZ_I32;
    check(pz_rt_op_template.prepare(&l, err, sizeof err) == 1 && strstr(err, "expected float32"),
          "TEMPLATE: refuses int32 with a message");
}

/* WHERE through the net API: condition [2, 1, 3] (bool), X [4, 3] (int64),
 * Y [1] broadcast to [2, 4, 3], at 1 and 3 workers, against the rule
 * written out. The ONNX node tests cover equal shapes. */
static void test_where(void)
{
    uint8_t c[6] = {1, 0, 1, 0, 0, 1};
    int64_t x[12], z[1] = {-7}, y[24], want[24];
    for (int i = 0; i < 12; i++) x[i] = 100 + i;
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++) want[(b * 4 + i) * 3 + j] = c[b * 3 + j] ? x[i * 3 + j] : z[0];
    for (int threads = 1; threads <= 3; threads += 2) {
        pz_net *net = pz_net_new("where");
        int tc = pz_net_input(net, "c", PZ_BOOL, 3, (int64_t[]){2, 1, 3});
        int tx = pz_net_input(net, "x", PZ_I64, 2, (int64_t[]){4, 3});
        int tz = pz_net_input(net, "z", PZ_I64, 1, (int64_t[]){1});
        int ty = pz_net_tensor(net, "y", PZ_I64, 3, (int64_t[]){2, 4, 3});
        pz_net_layer(net, "w", PZ_OP_WHERE, NULL, 0, (int[]){tc, tx, tz}, 3, &ty, 1);
        pz_net_output(net, ty);
        pz_net_block(net, 0, 1, threads);
        char err[256] = "";
        int rc = pz_net_compile(net, threads, NULL, err, sizeof err);
        checkf(rc == 0, "WHERE compiles (%d threads): %s", threads, err);
        if (rc == 0) {
            memset(y, 0, sizeof y);
            pz_net_run(net, (const void *const[]){c, x, z}, (void *const[]){y});
            checkf(!memcmp(y, want, sizeof y), "WHERE broadcast, %d threads", threads);
        }
        pz_net_free(net);
    }
}

int main(void)
{
    test_kinds();
    test_templates();
    test_where();
    return test_summary("op_desc");
}
