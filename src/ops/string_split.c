/* string_split.c - StringSplit (opset 20): X string -> Y string [..X, K]
 * the parts of each string, padded with "", and Z int64 [..X] their
 * counts. `delimiter` absent or "": split at runs of whitespace (Python's
 * str.split()); else at each occurrence; `maxsplit`: at most that many
 * splits, the rest in the last part. K is the largest count, so the
 * strings decide Y's shape: X must be known at compile time (`paleozoic
 * run` binds a graph input's value for it). Runs as STR_SPLIT, the
 * delimiter a uint8 constant (added by split_expand). */
#include <stdlib.h>

#include "op.h"
#include "../rt/pz_strings.h"

typedef struct {
    int64_t maxsplit;   /* -1: no limit */
    int64_t width;      /* K, from infer */
    const char *delim;  /* the attribute's (the node owns it) */
} split_params;

static pz_status split_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    (void)g;
    split_params *p = params;
    if (op_attr_string(n, "delimiter", "", &p->delim, err) ||
        op_attr_int(n, "maxsplit", -1, &p->maxsplit, err))
        return err->code;
    if (op_attr(n, "maxsplit") && p->maxsplit < 0)
        return op_err_attr(err, n, "maxsplit", "is %lld, expected 0 or more",
                           (long long)p->maxsplit);
    return PZ_OK;
}

static pz_status split_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    split_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype != IR_STRING)
        return op_err(err, n, "input X is %s, expected string", ir_dtype_name(x->dtype));
    if (x->rank + 1 > IR_MAX_RANK)
        return op_err(err, n, "input X has rank %d: Y's rank %d is above the supported %d",
                      x->rank, x->rank + 1, IR_MAX_RANK);
    if (!x->data)
        return op_need_const(err, g, n, 0, "X", "its strings decide the shape of output Y");
    p->width = 0;
    for (int64_t i = 0; i < ir_tensor_numel(x); i++) {
        int64_t k = pz_str_split(pz_str_at(x->data, i), p->delim, p->maxsplit, NULL, NULL, 0);
        if (k > p->width) p->width = k;
    }
    int64_t dims[IR_MAX_RANK];
    for (int i = 0; i < x->rank; i++) dims[i] = x->dims[i];
    dims[x->rank] = p->width;
    op_set_out(g, n, 0, IR_STRING, x->rank + 1, dims);
    if (n->n_out > 1) op_set_out(g, n, 1, IR_I64, x->rank, x->dims);
    return PZ_OK;
}

static int split_expand(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    const split_params *p = n->params;
    if (!p || n->n_in != 1) return 0;   /* done already */
    int d = op_add_strings_const(g, i, "delimiter", 1, &p->delim);
    n = &g->nodes[i];
    ir_node_set_n_in(n, 2);
    n->in[1] = d;
    return 0;
}

static pz_status split_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    const split_params *p = n->params;
    if (n->n_in != 2)   /* split_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (StringSplit): its delimiter was not "
                       "prepared for the runtime", n->name);
    if (n->n_out < 2 || n->out[1] < 0)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (StringSplit): output Z (the "
                       "counts) is omitted: not supported", n->name);
    pz_str_split_params sp = {.maxsplit = p->maxsplit, .width = p->width};
    op_lowered_init(out, n, PZ_OP_STR_SPLIT, &sp, sizeof sp);
    return PZ_OK;
}

const op_def op_string_split = {
    .name = "StringSplit",
    .min_in = 1, .max_in = 1, .min_out = 2, .max_out = 2,
    .params_size = sizeof(split_params),
    .parse = split_parse,
    .infer = split_infer,
    .expand = split_expand,
    .lower = split_lower,
    .takes_string = 1,
};
