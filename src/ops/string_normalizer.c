/* string_normalizer.c - StringNormalizer (opset 10): X string [C] or [1, C]
 * -> Y: X without the `stopwords` (compared as `is_case_sensitive` says,
 * default 0: both lowered), case changed as `case_change_action` says
 * (LOWER, UPPER, NONE: Unicode's simple case maps); [1] (or [1, 1]) ""
 * when none is left. With stopwords the strings decide Y's length: X must
 * be known at compile time (`paleozoic run` binds a graph input's value for
 * it). `locale`: the maps are the same for every locale we take ("", C,
 * en_US and their UTF-8 forms); another (Turkish's dotted i) is refused.
 * Runs as STR_NORMALIZE, the stopwords a uint8 constant (norm_expand). */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "../rt/pz_strings.h"

typedef struct {
    int case_change;      /* pz_case_change */
    int case_sensitive;
} norm_params;

static pz_status norm_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    (void)g;
    norm_params *p = params;
    const char *action, *locale;
    int64_t sens;
    if (op_attr_string(n, "case_change_action", "NONE", &action, err) ||
        op_attr_int(n, "is_case_sensitive", 0, &sens, err) ||
        op_attr_string(n, "locale", "", &locale, err))
        return err->code;
    if (!strcmp(action, "NONE")) p->case_change = PZ_CASE_NONE;
    else if (!strcmp(action, "LOWER")) p->case_change = PZ_CASE_LOWER;
    else if (!strcmp(action, "UPPER")) p->case_change = PZ_CASE_UPPER;
    else
        return op_err_attr(err, n, "case_change_action", "is \"%s\", expected LOWER, UPPER or "
                           "NONE", action);
    if (sens != 0 && sens != 1)
        return op_err_attr(err, n, "is_case_sensitive", "is %lld, expected 0 or 1",
                           (long long)sens);
    p->case_sensitive = (int)sens;
    static const char *const known[] = {"", "C", "C.UTF-8", "C.utf8", "POSIX", "en_US",
                                        "en_US.UTF-8", "en_US.utf8"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(locale, known[i])) return PZ_OK;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (StringNormalizer): attribute "
                   "'locale': \"%s\" is not supported (the case maps are Unicode's default "
                   "ones: \"\", C, en_US and their UTF-8 forms)", n->name, locale);
}

/* Whether x is one of the stopwords, compared as the layer compares
 * (lowered by pz_str_case_map when not case sensitive): the count decides
 * Y's length, so the two must agree. */
static int is_stop(const ir_attr *sw, int sensitive, locale_t loc, const char *x)
{
    char *a = pz_xmalloc(4 * strlen(x) + 1);
    if (sensitive) strcpy(a, x);
    else pz_str_case_map(x, PZ_CASE_LOWER, loc, a);
    int hit = 0;
    for (int i = 0; sw && i < sw->n && !hit; i++) {
        char *b = pz_xmalloc(4 * strlen(sw->strings[i]) + 1);
        if (sensitive) strcpy(b, sw->strings[i]);
        else pz_str_case_map(sw->strings[i], PZ_CASE_LOWER, loc, b);
        hit = !strcmp(a, b);
        free(b);
    }
    free(a);
    return hit;
}

static pz_status norm_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const norm_params *p = n->params;
    const ir_tensor *x = op_in(g, n, 0);
    if (x->dtype != IR_STRING)
        return op_err(err, n, "input X is %s, expected string", ir_dtype_name(x->dtype));
    if (x->rank != 1 && !(x->rank == 2 && x->dims[0] == 1))
        return op_err(err, n, "input X has shape %s, expected [C] or [1, C]",
                      ir_shape_str(x, (char[128]){0}, 128));
    const ir_attr *sw = op_attr(n, "stopwords");
    if (sw && op_attr_expect(n, sw, IR_ATTR_STRINGS, err)) return err->code;
    int64_t c = x->dims[x->rank - 1], k = c;
    if (sw && sw->n > 0) {
        if (!x->data)
            return op_need_const(err, g, n, 0, "X", "with stopwords, its strings decide the "
                                 "shape of output Y");
        locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
        if (!loc)
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (StringNormalizer): the "
                           "C.UTF-8 locale (its case maps) is missing on this system", n->name);
        k = 0;
        for (int64_t i = 0; i < c; i++)
            k += !is_stop(sw, p->case_sensitive, loc, pz_str_at(x->data, i));
        freelocale(loc);
    }
    int64_t dims[2] = {1, k ? k : 1};
    if (x->rank == 1) dims[0] = dims[1];
    op_set_out(g, n, 0, IR_STRING, x->rank, dims);
    return PZ_OK;
}

static int norm_expand(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    if (n->n_in != 1) return 0;   /* done already */
    const ir_attr *sw = op_attr(n, "stopwords");
    int v = op_add_strings_const(g, i, "stopwords", sw ? sw->n : 0,
                                 sw ? (const char *const *)sw->strings : NULL);
    n = &g->nodes[i];
    ir_node_set_n_in(n, 2);
    n->in[1] = v;
    return 0;
}

static pz_status norm_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    (void)g;
    const norm_params *p = n->params;
    if (n->n_in != 2)   /* norm_expand did not run (a caller that skips ir_model_lower) */
        return pz_fail(err, PZ_ERR_INTERNAL, "node \"%s\" (StringNormalizer): its stopwords "
                       "were not prepared for the runtime", n->name);
    pz_str_norm_params np = {.case_change = p->case_change, .case_sensitive = p->case_sensitive};
    op_lowered_init(out, n, PZ_OP_STR_NORMALIZE, &np, sizeof np);
    return PZ_OK;
}

const op_def op_string_normalizer = {
    .name = "StringNormalizer",
    .min_in = 1, .max_in = 1, .min_out = 1, .max_out = 1,
    .params_size = sizeof(norm_params),
    .parse = norm_parse,
    .infer = norm_infer,
    .expand = norm_expand,
    .lower = norm_lower,
    .takes_string = 1,
};
