/* onnx_load.c - ModelProto -> ir_graph: opsets, initializers, inputs with
 * symbolic dims bound, nodes with their attributes, outputs; then sort and
 * shape inference. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ops/op_infer.h"
#include "../ops/op.h"
#include "onnx_internal.h"

static int is_default_domain(const char *d)
{
    return !d || !d[0] || !strcmp(d, "ai.onnx");
}

static int domain_opset(const Onnx__ModelProto *m, const char *domain)
{
    int best = -1;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        int same = is_default_domain(domain) ? is_default_domain(o->domain)
                                             : (o->domain && !strcmp(o->domain, domain));
        if (same && o->has_version && o->version > best) best = (int)(o->version > 1000000 ? 1000000 : o->version);
    }
    return best;
}

static pz_status load_subgraph(const Onnx__ModelProto *m, const Onnx__GraphProto *gp,
                               const char *model_dir, const ir_node *owner, const char *attr,
                               int opset, ir_graph **out, pz_err *err);

static pz_status copy_attr(const Onnx__ModelProto *m, const char *model_dir, int opset,
                           ir_node *n, const Onnx__AttributeProto *ap, ir_attr *a, pz_err *err)
{
    memset(a, 0, sizeof *a);
    a->name = pz_xstrdup(ap->name ? ap->name : "");
    a->type = ap->has_type ? (ir_attr_type)ap->type : IR_ATTR_UNDEFINED;
    if (ap->ref_attr_name && ap->ref_attr_name[0])
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute '%s' refers to a "
                       "function attribute, which is not supported", n->name, n->op_type, a->name);
    switch (a->type) {
    case IR_ATTR_FLOAT: a->f = ap->f; break;
    case IR_ATTR_INT: a->i = ap->i; break;
    case IR_ATTR_STRING:
        a->s = pz_xmalloc(ap->s.len + 1);
        if (ap->s.len) memcpy(a->s, ap->s.data, ap->s.len);
        a->s[ap->s.len] = 0;
        break;
    case IR_ATTR_FLOATS:
        a->n = (int)ap->n_floats;
        a->floats = pz_xmalloc((ap->n_floats ? ap->n_floats : 1) * sizeof(float));
        if (ap->n_floats) memcpy(a->floats, ap->floats, ap->n_floats * sizeof(float));
        break;
    case IR_ATTR_INTS:
        a->n = (int)ap->n_ints;
        a->ints = pz_xmalloc((ap->n_ints ? ap->n_ints : 1) * sizeof(int64_t));
        if (ap->n_ints) memcpy(a->ints, ap->ints, ap->n_ints * sizeof(int64_t));
        break;
    case IR_ATTR_STRINGS:
        a->strings = pz_xcalloc(ap->n_strings ? ap->n_strings : 1, sizeof(char *));
        for (size_t k = 0; k < ap->n_strings; k++) {
            a->strings[k] = pz_xmalloc(ap->strings[k].len + 1);
            if (ap->strings[k].len) memcpy(a->strings[k], ap->strings[k].data, ap->strings[k].len);
            a->strings[k][ap->strings[k].len] = 0;
            a->n = (int)k + 1;
        }
        break;
    case IR_ATTR_TENSOR: {
        if (!ap->t)
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s' is a TENSOR "
                           "without a tensor", n->name, n->op_type, a->name);
        char what[512];
        snprintf(what, sizeof what, "node \"%s\" (%s): attribute '%s'", n->name, n->op_type, a->name);
        a->t = pz_xcalloc(1, sizeof *a->t);
        if (onnx_tensor_from_proto(ap->t, what, NULL, a->t, err)) return err->code;
        break;
    }
    case IR_ATTR_GRAPH:
        if (!ap->g)
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s' is a GRAPH "
                           "without a graph", n->name, n->op_type, a->name);
        return load_subgraph(m, ap->g, model_dir, n, a->name, opset, &a->g, err);
    default:
        /* Lists of graphs, sparse tensors, type protos: kept by name and type
         * only; the ops that would need them are not supported. */
        break;
    }
    return PZ_OK;
}

/* Fills a value's type and shape from a ValueInfoProto; symbolic dims are
 * bound by --input-shape / --batch, or reported. is_input: 1 a graph input,
 * 2 an element of a sequence or optional input (its tensors' own shapes:
 * --batch does not bind them). */
static pz_status value_info_type(const Onnx__ValueInfoProto *vi, const onnx_load_opts *opts,
                                 int is_input, int pos, ir_tensor *t, int *declared_rank,
                                 int64_t *declared, pz_err *err)
{
    const char *name = vi->name ? vi->name : "";
    const char *kind = is_input ? "input" : "output";
    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
        if (!is_input && (!vi->type || vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
                          vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)) {
            *declared_rank = -1;   /* a sequence or an optional: op_seq_outputs flattens it */
            return PZ_OK;
        }
        /* The IR's values are tensors: an optional (maybe-absent) value or a
         * sequence of tensors has no faithful form in it, so it is refused. */
        const char *what = !vi->type ? "untyped"
            : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? "a sequence"
            : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ? "an optional"
            : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE ? "a map"
            : vi->type->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE ? "a sparse tensor"
            : "of an unknown kind";
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph %s \"%s\" is %s: only tensor types are "
                       "supported (sequence, map, optional and sparse types are not)", kind, name,
                       what);
    }
    const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
    t->dtype = tt->has_elem_type ? (ir_dtype)tt->elem_type : IR_UNDEFINED;
    if (is_input && !ir_dtype_supported(t->dtype) && t->dtype != IR_STRING)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph input \"%s\": element type %s (%d) is not "
                       "supported", name, ir_dtype_name(t->dtype), (int)t->dtype);
    if (!tt->shape) {
        *declared_rank = -1;
        if (!is_input) return PZ_OK;
        /* no shape in the model: a binding must give all of it */
        const ir_tensor *given = opts && pos < opts->n_by_position ? &opts->by_position[pos] : NULL;
        for (int i = 0; opts && i < opts->n_shapes; i++)
            if (!strcmp(opts->shapes[i].name, name)) {
                t->rank = opts->shapes[i].rank;
                memcpy(t->dims, opts->shapes[i].dims, sizeof t->dims);
                given = NULL;
                goto bound;
            }
        if (given) {
            t->rank = given->rank;
            memcpy(t->dims, given->dims, sizeof t->dims);
            goto bound;
        }
        return pz_fail(err, PZ_ERR_INPUT, "graph input \"%s\" has no shape: give one with "
                       "--input-shape %s=D0,D1,...", name, name);
    bound:;
        size_t nb;
        char w[512];
        snprintf(w, sizeof w, "graph input \"%s\"", name);
        return ir_tensor_bytes(t, &nb, w, err);
    }
    if (tt->shape->n_dim > IR_MAX_RANK)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph %s \"%s\": rank %zu is above the "
                       "supported %d", kind, name, tt->shape->n_dim, IR_MAX_RANK);
    *declared_rank = (int)tt->shape->n_dim;
    for (size_t d = 0; d < tt->shape->n_dim; d++) {
        const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
        if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (dim->dim_value < 0)
                return pz_fail(err, PZ_ERR_INPUT, "graph %s \"%s\": dimension %zu is negative "
                               "(%lld)", kind, name, d, (long long)dim->dim_value);
            declared[d] = dim->dim_value;
        } else {
            declared[d] = -1;
        }
    }
    if (!is_input) return PZ_OK;
    if (opts && opts->rebatch > 0 && *declared_rank > 0 && declared[0] == 1)
        declared[0] = opts->rebatch;
    t->rank = *declared_rank;
    for (int d = 0; d < t->rank; d++) t->dims[d] = declared[d];
    for (int i = 0; opts && i < opts->n_shapes; i++)
        if (!strcmp(opts->shapes[i].name, name)) {
            if (opts->shapes[i].rank != t->rank)
                return pz_fail(err, PZ_ERR_INPUT, "--input-shape %s: the model's input has rank "
                               "%d, the binding gives %d dims", name, t->rank, opts->shapes[i].rank);
            for (int d = 0; d < t->rank; d++) {
                if (declared[d] >= 0 && declared[d] != opts->shapes[i].dims[d])
                    return pz_fail(err, PZ_ERR_INPUT, "--input-shape %s: dimension %d is fixed "
                                   "at %lld in the model, the binding gives %lld", name, d,
                                   (long long)declared[d], (long long)opts->shapes[i].dims[d]);
                t->dims[d] = opts->shapes[i].dims[d];
            }
        }
    if (opts && pos < opts->n_by_position) {
        const ir_tensor *b = &opts->by_position[pos];
        if (b->rank != t->rank)
            return pz_fail(err, PZ_ERR_INPUT, "input %d (\"%s\"): the model wants rank %d, the "
                           "given tensor has rank %d", pos, name, t->rank, b->rank);
        for (int d = 0; d < t->rank; d++) {
            if (t->dims[d] >= 0 && t->dims[d] != b->dims[d])
                return pz_fail(err, PZ_ERR_INPUT, "input %d (\"%s\"): dimension %d is %lld in "
                               "the model, %lld in the given tensor%s", pos, name, d,
                               (long long)t->dims[d], (long long)b->dims[d],
                               d == 0 && t->dims[0] == 1 && !(opts->batch > 0)
                                   ? " (--batch N runs a model of batch 1 at batch N)" : "");
            /* --batch N (a replan's too): the given tensor must be at N */
            if (d == 0 && t->dims[0] < 0 && is_input == 1 && opts->batch > 0 &&
                b->dims[0] != opts->batch)
                return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: the --input tensor of input "
                               "\"%s\" has the leading dim %lld, not %lld", (long long)opts->batch,
                               name, (long long)b->dims[0], (long long)opts->batch);
            t->dims[d] = b->dims[d];
        }
    }
    for (int d = 0; opts && d < t->rank; d++)
        if (onnx_dim_binding_apply(opts, name, pos, d, tt->shape->dim[d], &t->dims[d], err)) return err->code;
    if (opts && opts->batch > 0 && t->rank > 0 && t->dims[0] < 0) t->dims[0] = opts->batch;
    for (int d = 0; d < t->rank; d++)
        if (t->dims[d] < 0) {
            const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[d];
            const char *param = dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                    ? dim->dim_param : "?";
            return pz_fail(err, PZ_ERR_INPUT, "graph input \"%s\": dimension %d is symbolic "
                           "(\"%s\"): bind it with --input-shape %s=D0,D1,...%s%s%s", name, d,
                           param, name, strcmp(param, "?") ? " (or, to compile, leave it open: "
                           "--max-shape " : "", strcmp(param, "?") ? param : "",
                           strcmp(param, "?") ? "=BOUND)" : "");
        }
    size_t nbytes;
    char what[512];
    snprintf(what, sizeof what, "graph input \"%s\"", name);
    return ir_tensor_bytes(t, &nbytes, what, err);
}

/* The nodes of graph gp into g, with their attributes (subgraphs loaded
 * recursively); output names defined twice are refused. */
static pz_status load_nodes(const Onnx__ModelProto *m, const Onnx__GraphProto *gp,
                            const char *model_dir, ir_graph *g, pz_err *err)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *np = gp->node[i];
        const char *op_type = np->op_type ? np->op_type : "";
        const char *domain = np->domain ? np->domain : "";
        char gen_name[64];
        const char *name = np->name;
        if (!name || !name[0]) {
            snprintf(gen_name, sizeof gen_name, "%s_%zu", op_type[0] ? op_type : "node", i);
            name = gen_name;
        }
        if (!op_type[0]) return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" has no op_type", name);
        if (is_default_domain(domain) && g->opset < 0)
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s) is in the default ONNX domain, "
                           "which the model does not import", name, op_type);
        const op_def *op = is_default_domain(domain) ? op_find(op_type) : op_find_in(domain, op_type);
        if (!op) {
            int ver = domain_opset(m, domain);
            if (!is_default_domain(domain) && ver < 0)
                return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): domain \"%s\" is not imported "
                               "by the model (unknown opset domain)", name, op_type, domain);
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "unsupported op %s in node \"%s\" (domain "
                           "\"%s\", opset %d)", op_type, name,
                           is_default_domain(domain) ? "ai.onnx" : domain, ver);
        }
        int idx = ir_graph_add_node(g, name, op_type, domain, (int)np->n_input, (int)np->n_output);
        ir_node *n = &g->nodes[idx];
        n->op = op;
        if (n->n_in < op->min_in || n->n_in > op->max_in || n->n_out < op->min_out ||
            n->n_out > op->max_out)
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): has %d inputs and %d outputs; "
                           "the op takes %d to %d inputs and %d to %d outputs", name, op_type,
                           n->n_in, n->n_out, op->min_in, op->max_in, op->min_out, op->max_out);
        for (size_t k = 0; k < np->n_input; k++)
            if (np->input[k] && np->input[k][0]) n->in[k] = ir_graph_value(g, np->input[k]);
        for (size_t k = 0; k < np->n_output; k++)
            if (np->output[k] && np->output[k][0]) {
                if (ir_graph_find(g, np->output[k]) >= 0) {
                    int v = ir_graph_find(g, np->output[k]);
                    /* a name seen before only as some node's input is fine */
                    if (g->values[v].is_input || g->values[v].t.data || g->values[v].producer == -2)
                        return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): output \"%s\" is "
                                       "already defined (duplicate output name)", name, op_type,
                                       np->output[k]);
                }
                n = &g->nodes[idx];
                n->out[k] = ir_graph_value(g, np->output[k]);
                g->values[n->out[k]].producer = -2; /* marks "produced", fixed by the sort */
            }
        n = &g->nodes[idx];
        n->n_attrs = (int)np->n_attribute;
        n->attrs = pz_xcalloc(np->n_attribute ? np->n_attribute : 1, sizeof *n->attrs);
        for (size_t k = 0; k < np->n_attribute; k++)
            if (copy_attr(m, model_dir, g->opset, n, np->attribute[k], &n->attrs[k], err))
                return err->code;
    }

    return PZ_OK;
}

/* A subgraph (If's branches, Loop's and Scan's body): its initializers,
 * formal inputs (with their declared shapes in decl_rank/decl_dims), nodes
 * and outputs. It is neither sorted nor inferred here: the op that owns it
 * inlines it into the enclosing graph (src/ops/op_inline.c), where names it
 * does not define resolve to the enclosing graphs' values. */
static pz_status load_subgraph(const Onnx__ModelProto *m, const Onnx__GraphProto *gp,
                               const char *model_dir, const ir_node *owner, const char *attr,
                               int opset, ir_graph **out, pz_err *err)
{
    ir_graph *g = ir_graph_new();
    *out = g;
    g->opset = opset;
    free(g->name);
    g->name = pz_xstrdup(gp->name && gp->name[0] ? gp->name : attr);
    if (gp->n_sparse_initializer)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute '%s': sparse "
                       "initializers are not supported", owner->name, owner->op_type, attr);
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        const char *name = tp->name ? tp->name : "";
        char what[512];
        snprintf(what, sizeof what, "node \"%s\" (%s): attribute '%s': initializer \"%s\"",
                 owner->name, owner->op_type, attr, name);
        if (!name[0] || ir_graph_find(g, name) >= 0)
            return pz_fail(err, PZ_ERR_INPUT, "%s: no name, or defined twice", what);
        int vid = ir_graph_add_value(g, name);
        if (onnx_tensor_from_proto(tp, what, model_dir, &g->values[vid].t, err)) return err->code;
        g->values[vid].is_initializer = 1;
        g->values[vid].owns_data = 1;
    }
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const char *name = vi->name ? vi->name : "";
        if (!name[0] || ir_graph_find(g, name) >= 0)
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s': input %zu has "
                           "no name or is listed twice", owner->name, owner->op_type, attr, i);
        int vid = ir_graph_add_value(g, name);
        ir_value *v = &g->values[vid];
        const Onnx__TypeProto *ty = vi->type;
        if (ty && ty->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
            v->decl_dtype = ty->tensor_type->has_elem_type ? (ir_dtype)ty->tensor_type->elem_type
                                                           : IR_UNDEFINED;
            const Onnx__TensorShapeProto *sh = ty->tensor_type->shape;
            if (sh && sh->n_dim <= IR_MAX_RANK) {
                v->decl_rank = (int)sh->n_dim;
                for (size_t d = 0; d < sh->n_dim; d++)
                    v->decl_dims[d] = sh->dim[d]->value_case ==
                                              ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                                          ? sh->dim[d]->dim_value
                                          : -1;
            }
        } else if (ty && ty->value_case != ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE &&
                   ty->value_case != ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE) {
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s): attribute '%s': input "
                           "\"%s\" is a map or a sparse tensor (tensors, sequences and optionals "
                           "are supported)", owner->name, owner->op_type, attr, name);
        }
        ir_graph_add_input(g, vid);
    }
    g->n_model_inputs = g->n_inputs;
    if (load_nodes(m, gp, model_dir, g, err)) return err->code;
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name ? gp->output[i]->name : "";
        if (!name[0])
            return pz_fail(err, PZ_ERR_INPUT, "node \"%s\" (%s): attribute '%s': output %zu has "
                           "no name", owner->name, owner->op_type, attr, i);
        /* an output may be a value of an enclosing graph, passed through */
        ir_graph_add_output(g, ir_graph_value(g, name));
    }
    return PZ_OK;
}

/* A graph input that is a sequence or an optional: the tensors given for it
 * (opts->given_len) become run-time inputs "NAME/0", "NAME/1", ..., and a
 * SequenceConstruct (an Optional) node reading them makes the value NAME:
 * the sequence ops then unfold on a list known at compile time (op_seq.h). */
static pz_status load_container_input(ir_graph *g, const Onnx__ValueInfoProto *vi,
                                       const onnx_load_opts *opts, int pos, int *flat,
                                       pz_err *err)
{
    const char *name = vi->name;
    const Onnx__TypeProto *ty = vi->type;
    int is_seq = ty->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    const char *what = is_seq ? "a sequence" : "an optional";
    if (!opts || !opts->given_len || pos >= opts->n_given_len)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph input \"%s\" is %s: its elements are "
                       "planned at compile time, so give its value with --input FILE.pb (a "
                       "SequenceProto or OptionalProto; to `compile`/`build`, an example that "
                       "fixes its length)", name, what);
    int given = opts->given_len[pos];
    const Onnx__TypeProto *elem = is_seq ? ty->sequence_type->elem_type
                                         : ty->optional_type->elem_type;
    int holds_seq = !is_seq && elem && elem->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    if (holds_seq) elem = elem->sequence_type->elem_type;
    if (!elem || elem->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "graph input \"%s\" is %s of a type other than "
                       "tensors: not supported", name, what);
    if ((is_seq || holds_seq) ? given == -1 : given >= 0)
        return pz_fail(err, PZ_ERR_INPUT, "graph input \"%s\" is %s%s: the value given for it "
                       "is %s", name, what, holds_seq ? " of a sequence" : "",
                       given == -1 ? "a tensor" : "a sequence");
    int n = given == -2 ? 0 : given == -1 ? 1 : given;
    ir_graph_add_in_group(g, name, is_seq ? IR_KIND_SEQ : IR_KIND_OPT,   /* empty: no inner */
                          holds_seq && given >= 0 ? IR_KIND_SEQ : IR_KIND_TENSOR, *flat, n);
    int *ids = pz_xmalloc((size_t)(n ? n : 1) * sizeof(int));
    Onnx__ValueInfoProto evi = *vi;
    evi.type = (Onnx__TypeProto *)elem;
    size_t len = strlen(name) + 24;
    char *buf = pz_xmalloc(len);
    for (int k = 0; k < n; k++) {
        snprintf(buf, len, "%s/%d", name, k);
        evi.name = buf;
        ids[k] = ir_graph_add_value_unique(g, buf);
        int64_t declared[IR_MAX_RANK];
        int declared_rank;
        if (value_info_type(&evi, opts, 2, *flat, &g->values[ids[k]].t, &declared_rank, declared,
                            err)) {
            free(buf);
            free(ids);
            return err->code;
        }
        ir_graph_add_input_at(g, ids[k], (*flat)++);
    }
    ir_dtype dt = elem->tensor_type->has_elem_type ? (ir_dtype)elem->tensor_type->elem_type : IR_F32;
    int x = -1;
    if (is_seq || (holds_seq && given >= 0)) {
        snprintf(buf, len, "%s%s", name, is_seq ? "" : "/seq");
        x = ir_graph_add_value_unique(g, buf);
        int k = ir_graph_add_node(g, buf, "SequenceConstruct", "", n, 1);
        g->nodes[k].op = op_find("SequenceConstruct");
        memcpy(g->nodes[k].in, ids, (size_t)n * sizeof(int));
        g->nodes[k].out[0] = x;
        g->values[x].producer = k;
        g->values[x].t.dtype = dt;
    } else if (n) {
        x = ids[0];
    }
    if (!is_seq) {
        int v = ir_graph_add_value(g, name);
        int k = ir_graph_add_node(g, name, "Optional", "", 1, 1);
        g->nodes[k].op = op_find("Optional");
        g->nodes[k].in[0] = x;
        g->nodes[k].out[0] = v;
        g->values[v].producer = k;
    }
    free(buf);
    free(ids);
    return PZ_OK;
}

/* bind: positions of by_position (bit p) bound to their values */
static pz_status load_model(Onnx__ModelProto *m, const char *model_dir, const onnx_load_opts *opts,
                            uint64_t bind, ir_graph *g, pz_err *err)
{
    const Onnx__GraphProto *gp = m->graph;
    if (!gp) return pz_fail(err, PZ_ERR_INPUT, "not an ONNX model: it has no graph");
    g->ir_version = m->ir_version;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = m->opset_import[i];
        if (o->has_version && o->version < 0)
            return pz_fail(err, PZ_ERR_INPUT, "the model imports opset %lld of domain \"%s\": "
                           "opset versions are positive", (long long)o->version,
                           is_default_domain(o->domain) ? "ai.onnx" : o->domain);
    }
    g->opset = domain_opset(m, "");
    /* IR version 1-2 models without an opset import mean opset 1; a model that
     * imports only other domains has no default-domain opset (-1). */
    if (g->opset < 0 && m->n_opset_import == 0) g->opset = 1;
    if (g->opset == 0 || g->opset > PZ_MAX_OPSET)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "the model uses opset %d of the default domain; "
                       "supported are 1 to %d", g->opset, PZ_MAX_OPSET);
    free(g->name);
    g->name = pz_xstrdup(gp->name && gp->name[0] ? gp->name : "model");
    free(g->producer);
    {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%s%s", m->producer_name ? m->producer_name : "",
                 m->producer_version && m->producer_version[0] ? " " : "",
                 m->producer_version ? m->producer_version : "");
        g->producer = pz_xstrdup(buf);
    }
    if (gp->n_sparse_initializer)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "sparse initializers are not supported");

    /* initializers */
    for (size_t i = 0; i < gp->n_initializer; i++) {
        Onnx__TensorProto *tp = gp->initializer[i];
        const char *name = tp->name ? tp->name : "";
        char what[512];
        snprintf(what, sizeof what, "initializer \"%s\"", name);
        if (!name[0]) return pz_fail(err, PZ_ERR_INPUT, "initializer %zu has no name", i);
        if (ir_graph_find(g, name) >= 0)
            return pz_fail(err, PZ_ERR_INPUT, "initializer \"%s\" is defined twice", name);
        int vid = ir_graph_add_value(g, name);
        ir_value *v = &g->values[vid];
        if (onnx_tensor_from_proto(tp, what, model_dir, &v->t, err)) return err->code;
        v->is_initializer = 1;
        v->owns_data = 1;
    }

    /* runtime inputs (graph inputs that are also initializers stay constants) */
    int pos = 0;   /* position among the non-initializer inputs */
    int flat = 0;  /* among the given tensors (onnx_load_opts.given_len) */
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const char *name = vi->name ? vi->name : "";
        if (!name[0]) return pz_fail(err, PZ_ERR_INPUT, "graph input %zu has no name", i);
        int vid = ir_graph_find(g, name);
        if (vid >= 0) {
            if (g->values[vid].is_initializer) continue;
            return pz_fail(err, PZ_ERR_INPUT, "graph input \"%s\" is listed twice", name);
        }
        const Onnx__TypeProto *vt = vi->type;
        if (vt && (vt->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
                   vt->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)) {
            if (load_container_input(g, vi, opts, pos++, &flat, err)) return err->code;
            continue;
        }
        int this_flat = flat++;
        const ir_tensor *bound = NULL;
        for (int k = 0; opts && k < opts->n_values; k++)
            if (!strcmp(opts->values[k].name, name)) bound = opts->values[k].value;
        if (pos < 64 && (bind >> pos & 1)) bound = &opts->by_position[this_flat];
        vid = ir_graph_add_value(g, name);
        ir_value *v = &g->values[vid];
        int this_pos = pos++;
        int64_t declared[IR_MAX_RANK];
        int declared_rank;
        if (bound) {
            const Onnx__TypeProto *ty = vi->type;
            if (ty && ty->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                ty->tensor_type->has_elem_type && ty->tensor_type->elem_type != (int)bound->dtype)
                return pz_fail(err, PZ_ERR_INPUT, "input %d (\"%s\"): the model wants %s, the "
                               "given tensor is %s", this_pos, name,
                               ir_dtype_name((ir_dtype)ty->tensor_type->elem_type),
                               ir_dtype_name(bound->dtype));
            v->t = *bound;
            v->t.data = NULL;
            ir_value_set_data(g, vid, bound->data, bound->nbytes);
            continue;
        }
        if (value_info_type(vi, opts, 1, this_flat, &v->t, &declared_rank, declared, err))
            return err->code;
        ir_graph_add_input_at(g, vid, this_flat);
    }
    g->n_model_inputs = flat;

    if (load_nodes(m, gp, model_dir, g, err)) return err->code;

    /* outputs */
    for (size_t i = 0; i < gp->n_output; i++) {
        const Onnx__ValueInfoProto *vi = gp->output[i];
        const char *name = vi->name ? vi->name : "";
        int vid = ir_graph_find(g, name);
        if (vid < 0)
            return pz_fail(err, PZ_ERR_INPUT, "graph output \"%s\" is not produced by any node "
                           "(dangling output)", name);
        ir_value *v = &g->values[vid];
        if (v->is_output)
            return pz_fail(err, PZ_ERR_INPUT, "graph output \"%s\" is listed twice", name);
        ir_tensor ignored = {0};
        if (value_info_type(vi, opts, 0, 0, &ignored, &v->decl_rank, v->decl_dims, err))
            return err->code;
        v->decl_dtype = ignored.dtype;
        ir_graph_add_output(g, vid);
    }
    if (!g->n_outputs) return pz_fail(err, PZ_ERR_INPUT, "the graph has no outputs");

    /* A graph without nodes (outputs that are inputs or initializers) is
     * valid ONNX and has nothing to sort. */
    if (g->n_nodes && ir_graph_sort(g, err)) return err->code;
    if (opts && opts->before_infer && opts->before_infer(g, opts->before_infer_ctx, err))
        return err->code;
    return ir_infer(g, err);
}

/* --- memory-frugal decoding ------------------------------------------------
 * The file is mapped read-only and protobuf-c copies each weight out of it.
 * Weights are copied in file order, so when a large block is requested, every
 * byte before (sum of earlier large blocks) has been consumed: those pages of
 * the mapping are dropped. Dropping pages of a private, unwritten file mapping
 * only costs a re-read if they are touched again, so this is always safe, and
 * it keeps peak memory near one copy of the weights rather than two. */
typedef struct {
    uint8_t *base;
    size_t size;
    size_t consumed;   /* bytes of large blocks handed out so far */
} map_state;

static void *map_alloc(void *ud, size_t size)
{
    map_state *ms = ud;
    if (size >= ((size_t)1 << 20) && ms->base) {
        size_t drop = ms->consumed & ~(size_t)4095;
        if (drop > ms->size) drop = ms->size & ~(size_t)4095;
        if (drop) madvise(ms->base, drop, MADV_DONTNEED);
        ms->consumed += size;
    }
    return malloc(size ? size : 1);
}

static void map_free(void *ud, void *p)
{
    (void)ud;
    free(p);
}

static pz_status load_with_allocator(const uint8_t *buf, size_t len, map_state *ms,
                                     const char *model_dir, const onnx_load_opts *opts,
                                     ir_graph **out, pz_err *err)
{
    ProtobufCAllocator alloc = {map_alloc, map_free, ms};
    *out = NULL;
    if (onnx_check_nesting(buf, len, &onnx__model_proto__descriptor, "not a valid ONNX model", err))
        return err->code;
    Onnx__ModelProto *m = onnx__model_proto__unpack(&alloc, len, buf);
    if (!m)
        return pz_fail(err, PZ_ERR_INPUT, "not a valid ONNX model: protobuf decoding failed "
                       "(truncated or not an ONNX file)");
    uint64_t bind = 0;
    ir_graph *g;
    pz_status s;
    int rt_shapes = 0;
    for (;;) {
        g = ir_graph_new();
        g->rt_shapes = rt_shapes;
        s = load_model(m, model_dir, opts, bind, g, err);
        if (!s) break;
        ir_graph_free(g);
        g = NULL;
        /* a value needed at compile time: bind the given inputs it comes from;
         * when none is given, once more with such values read at run time */
        int asked = s == PZ_ERR_UNSUPPORTED && err->need_const[0];
        uint64_t more = asked && opts && opts->bind_needed
                            ? onnx_needed_inputs(m->graph, err->need_const, opts) & ~bind : 0;
        if (!more && (!asked || rt_shapes)) break;
        if (more) bind |= more;
        else rt_shapes = 1;
        memset(err, 0, sizeof *err);
        /* the load took the weights' buffers out of m (onnx_tensor_from_proto
         * does not copy them): decode the model again */
        onnx__model_proto__free_unpacked(m, &alloc);
        ms->consumed = 0;
        m = onnx__model_proto__unpack(&alloc, len, buf);
        if (!m)
            return pz_fail(err, PZ_ERR_INPUT, "not a valid ONNX model: protobuf decoding failed "
                           "(truncated or not an ONNX file)");
    }
    onnx__model_proto__free_unpacked(m, &alloc);
    *out = g;
    return s;
}

pz_status onnx_load_buffer(const void *buf, size_t len, const char *model_dir,
                           const onnx_load_opts *opts, ir_graph **out, pz_err *err)
{
    map_state ms = {0};
    return load_with_allocator(buf, len, &ms, model_dir, opts, out, err);
}

pz_status onnx_load_file(const char *path, const onnx_load_opts *opts, ir_graph **out, pz_err *err)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pz_fail(err, PZ_ERR_INPUT, "cannot open \"%s\": %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pz_fail(err, PZ_ERR_INPUT, "\"%s\" is not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return pz_fail(err, PZ_ERR_INPUT, "\"%s\" is empty: not an ONNX model", path);
    }
    size_t len = (size_t)st.st_size;
    uint8_t *base = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED)
        return pz_fail(err, PZ_ERR_INTERNAL, "cannot map \"%s\": %s", path, strerror(errno));
    madvise(base, len, MADV_SEQUENTIAL);

    char *dir = pz_xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else strcpy(dir, ".");
    if (!dir[0]) strcpy(dir, "/");

    map_state ms = {base, len, 0};
    pz_status s = load_with_allocator(base, len, &ms, dir, opts, out, err);
    munmap(base, len);
    free(dir);
    if (s && err->code == PZ_OK) s = pz_fail(err, s, "loading \"%s\" failed", path);
    return s;
}

int onnx_parse_dims(const char *s, int64_t *dims, int max)
{
    int rank = 0;
    if (!*s) return 0;
    for (;;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v < 0 || rank >= max) return -1;
        dims[rank++] = v;
        if (*end == 0) return rank;
        if (*end != ',' && *end != 'x') return -1;
        s = end + 1;
    }
}
