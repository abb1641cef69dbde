/* concat.c - the CONCAT and SPLIT layers: along one axis, any element type
 * (and in whole NCHW16c blocks along channels).
 * Both see the whole as `outer` rows, each the parts' chunks in order. */
#include "rt/ops/ops.h"

typedef struct {
    int64_t outer;
    size_t row;          /* bytes of one row of the whole */
    size_t *chunk;       /* bytes of one row of each part */
    pz_chg_state *chg;   /* Concat on NCHW16c of parts not block-aligned: the gather */
    int64_t *sizes;      /* Split's constant sizes in a dynamic region (the planned parts') */
} concat_state;

/* Checks the parts against the whole (shapes equal but on the axis, whose
 * sizes add up) and fills the state. */
static int concat_plan(pz_layer *l, char *err, size_t n, const pz_tensor *whole,
                       pz_tensor *const *parts, int nparts, const char *part_name)
{
    const pz_axis_params *p = l->params;
    char bw[96], bp[96];
    if (whole->rank < 1 || p->axis < 0 || p->axis >= whole->rank)
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, whole->rank);
    concat_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->chunk = calloc((size_t)nparts, sizeof *st->chunk);
    if (!st->chunk) return pz_layer_fail(l, err, n, "out of memory");
    size_t es = pz_dtype_size(whole->dtype);
    int64_t inner = pz_prod(whole->dims + p->axis + 1, whole->rank - p->axis - 1), sum = 0;
    st->outer = pz_prod(whole->dims, p->axis);
    for (int i = 0; i < nparts; i++) {
        const pz_tensor *t = parts[i];
        if (!t) continue;
        bool ok = t->dtype == whole->dtype && t->rank == whole->rank;
        /* sizes allocated at run time, or bounds (a dynamic region): the
         * planned dims stand in, run_shape checks */
        for (int a = 0; ok && !l->rt_alloc && !l->dyn && a < t->rank; a++)
            if (a != p->axis && t->dims[a] != whole->dims[a]) ok = false;
        if (!ok)
            return pz_layer_fail(l, err, n, "%s %d %s %s does not fit %s along axis %d",
                                 part_name, i, pz_dtype_name(t->dtype),
                                 pz_shape_str(t, bp, sizeof bp), pz_shape_str(whole, bw, sizeof bw),
                                 p->axis);
        sum += t->dims[p->axis];
        st->chunk[i] = (size_t)(t->dims[p->axis] * inner) * es;
    }
    if (sum != whole->dims[p->axis] && !l->rt_alloc)
        return pz_layer_fail(l, err, n, "the %ss add up to %lld along axis %d, expected %lld",
                             part_name, (long long)sum, p->axis,
                             (long long)whole->dims[p->axis]);
    st->row = (size_t)(whole->dims[p->axis] * inner) * es;
    return 0;
}

static void concat_release(pz_layer *l)
{
    concat_state *st = l->state;
    if (!st) return;
    free(st->chunk);
    free(st->sizes);
    pz_chg_release(st->chg);
    free(st->chg);
}

/* Blocked: a float concat of rank-4 tensors along channels whose parts but
 * the last fill whole 16-channel blocks, one part at least arriving blocked.
 * Each image's NCHW16c output is then its parts' blocks one after the other
 * (the last part's padded lanes are zero, so are the output's): the same
 * chunked copy, in bytes of blocks. Inception, SqueezeNet and DenseNet
 * concatenate conv outputs whose readers are convs and pools: they stay
 * blocked instead of going to plain and back. */
static bool concat_blocked(const pz_layer *l, const pz_tensor *y)
{
    const pz_axis_params *p = l->params;
    bool any = false;
    if (y->rank != 4 || p->axis != 1 || y->dtype != PZ_F32) return false;
    for (int i = 0; i < l->n_in; i++) any |= l->in_have[i] == 16;
    return any;
}

/* Whether every part but the last fills whole 16-channel blocks (then the
 * blocked concat is a chunked copy; else a channel gather). */
static bool concat_aligned(const pz_layer *l)
{
    for (int i = 0; i + 1 < l->n_in; i++)
        if (l->in[i]->dims[1] % 16) return false;
    return true;
}

/* The channel gather of a concat whose parts are not block-aligned
 * (ShuffleNetV2's 58 + 58 channels): output channel c is channel c - off
 * of the part it falls in. 1 when out of memory. */
static int concat_gather(pz_layer *l, concat_state *st, const pz_tensor *y)
{
    int64_t c = y->dims[1];
    int *src_in = malloc((size_t)c * sizeof *src_in);
    int64_t *src_ch = malloc((size_t)c * sizeof *src_ch);
    if (!src_in || !src_ch) {
        free(src_in);
        free(src_ch);
        return 1;
    }
    for (int i = 0, k = 0; i < l->n_in; i++)
        for (int64_t j = 0; j < l->in[i]->dims[1]; j++, k++) {
            src_in[k] = i;
            src_ch[k] = j;
        }
    st->chg = pz_chg_plan_layer(l, l->n_in, src_in, src_ch);
    free(src_in);
    free(src_ch);
    return 0;
}

static int concat_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *y = pz_out(l, 0);
    if (!y) return pz_layer_fail(l, err, n, "needs Y");
    for (int i = 0; i < l->n_in; i++)
        if (!l->in[i]) return pz_layer_fail(l, err, n, "input %d is omitted", i);
    if (concat_plan(l, err, n, y, l->in, l->n_in, "input")) return 1;
    if (l->isa == PZ_ISA_REF || l->dyn || !concat_blocked(l, y)) return 0;
    concat_state *st = l->state;
    if (!concat_aligned(l))
        return concat_gather(l, st, y) ? pz_layer_fail(l, err, n, "out of memory") : 0;
    size_t plane = (size_t)(y->dims[2] * y->dims[3]) * 16 * sizeof(float);
    st->row = 0;
    for (int i = 0; i < l->n_in; i++) {
        st->chunk[i] = (size_t)((l->in[i]->dims[1] + 15) / 16) * plane;
        st->row += st->chunk[i];
        l->in_cblk[i] = 16;
    }
    l->out_cblk[0] = 16;
    return 0;
}

static void concat_run(const pz_layer *l, int ith, int nth)
{
    const concat_state *st = l->state;
    if (st->chg) {
        pz_chg_run(st->chg, l, ith, nth);
        return;
    }
    pz_any_concat__ref(l->n_in, st->outer, st->chunk, st->row, (const pz_tensor *const *)l->in,
                       l->out[0]->data, ith, nth);
}

/* A dynamic region: Y is input 0's dims, the parts' sizes added along
 * axis; the plain path's rows and chunks are recomputed from the run's dims
 * (the state is the layer's own: run_shape runs alone, before run). Parts
 * that differ off the axis fail the run (pz_layer_run_fail), Y empty: run
 * must not read past a part. */
static void concat_run_shape(const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    concat_state *st = l->state;
    pz_tensor *y = l->out[0];
    const pz_tensor *x0 = l->in[0];
    size_t es = pz_dtype_size(y->dtype);
    int64_t inner = pz_prod(x0->dims + p->axis + 1, x0->rank - p->axis - 1), sum = 0;
    int bad = -1;
    for (int i = 0; i < l->n_in; i++) {
        st->chunk[i] = (size_t)(l->in[i]->dims[p->axis] * inner) * es;
        sum += l->in[i]->dims[p->axis];
        for (int a = 0; a < x0->rank; a++)
            if (bad < 0 && a != p->axis && l->in[i]->dims[a] != x0->dims[a]) bad = i;
    }
    const bool fit = bad < 0;
    if (!fit) {
        char s0[96], si[96];
        sum = 0;
        pz_layer_run_fail(l, "the parts differ off axis %d: part 0 is %s, part %d %s", p->axis,
                          pz_shape_str(x0, s0, sizeof s0), bad,
                          pz_shape_str(l->in[bad], si, sizeof si));
    }
    y->rank = x0->rank;
    for (int a = 0; a < x0->rank; a++) y->dims[a] = a == p->axis ? sum : x0->dims[a];
    st->outer = fit ? pz_prod(x0->dims, p->axis) : 0;
    st->row = (size_t)(sum * inner) * es;
}

/* pz_axis_params as the code generator prints it (CONCAT, SPLIT, GATHER). */
const pz_param_field pz_axis_fields[PZ_AXIS_N_FIELDS] = {PZ_FIELD(pz_axis_params, axis, PZ_F_INT)};

/* CONCAT, SPLIT: row-local unless they join or cut along the rows. */
static int concat_row_rule(const pz_row_layer *l, pz_row_map *m)
{
    if (((const pz_axis_params *)l->params)->axis == 2) {
        m->why = "works along the row axis";
        return 0;
    }
    return 1;
}

const pz_rt_op pz_rt_op_concat = {
    .name = "CONCAT", PZ_OP_PARAMS(pz_axis_params, pz_axis_fields),
    .min_in = 1, .max_in = -1, .min_out = 1, .max_out = 1,
    .prepare = concat_prepare, .run = concat_run, .release = concat_release,
    .row_rule = concat_row_rule, .run_shape = concat_run_shape,
};

/* The sizes read at run time (input 1): each part planned at X's dims,
 * the bound; run_shape cuts them (the state's chunks, the run's). Or, in a
 * dynamic region, constant sizes (no input 1): the planned parts' along
 * the axis, X's other dims the run's. */
static int split_rt_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = l->in[0], *s = pz_in(l, 1);
    const pz_axis_params *p = l->params;
    if (l->n_in > 1 && (!s || s->rank != 1 || (s->dtype != PZ_I64 && s->dtype != PZ_I32) ||
        s->dims[0] != l->n_out))
        return pz_layer_fail(l, err, n, "input 1 (split) must be an int32 or int64 vector of "
                             "%d sizes", l->n_out);
    if (x->rank < 1 || p->axis < 0 || p->axis >= x->rank)
        return pz_layer_fail(l, err, n, "axis %d out of range for rank %d", p->axis, x->rank);
    concat_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    st->chunk = calloc((size_t)l->n_out, sizeof *st->chunk);
    if (!st->chunk) return pz_layer_fail(l, err, n, "out of memory");
    if (l->n_in > 1) return 0;
    if (!(st->sizes = calloc((size_t)l->n_out, sizeof *st->sizes)))
        return pz_layer_fail(l, err, n, "out of memory");
    for (int i = 0; i < l->n_out; i++) {
        if (l->out[i]->rank != x->rank)
            return pz_layer_fail(l, err, n, "output %d has rank %d, X %d", i, l->out[i]->rank,
                                 x->rank);
        st->sizes[i] = l->out[i]->dims[p->axis];
    }
    return 0;
}

/* Split size i of the run (input 1's, or the constant one). */
static int64_t split_size(const pz_layer *l, int i)
{
    const pz_tensor *s = l->n_in > 1 ? l->in[1] : NULL;
    if (!s) return ((const concat_state *)l->state)->sizes[i];
    return s->dtype == PZ_I64 ? ((const int64_t *)s->data)[i] : ((const int32_t *)s->data)[i];
}

/* A dynamic region (the sizes read at run time, or X's shape the run's):
 * each part X's dims with its size along axis. Sizes that are negative or
 * do not add up to X's axis fail the run (pz_layer_run_fail), the parts
 * empty. */
static void split_run_shape(const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    concat_state *st = l->state;
    const pz_tensor *x = l->in[0];
    const int64_t d = x->dims[p->axis];
    size_t es = pz_dtype_size(x->dtype);
    int64_t inner = pz_prod(x->dims + p->axis + 1, x->rank - p->axis - 1), sum = 0;
    int ok = 1;
    /* the sizes, checked before any part is cut */
    for (int i = 0; ok && i < l->n_out; i++) {
        int64_t v = split_size(l, i);
        if (v < 0)
            pz_layer_run_fail(l, "split[%d] is %lld, negative", i, (long long)v), ok = 0;
        else if (v > d - sum)
            pz_layer_run_fail(l, "the split sizes add up to more than axis %d's %lld", p->axis,
                              (long long)d), ok = 0;
        else
            sum += v;
    }
    if (ok && sum != d)
        pz_layer_run_fail(l, "the split sizes add up to %lld, axis %d has %lld", (long long)sum,
                          p->axis, (long long)d), ok = 0;
    for (int i = 0; i < l->n_out; i++) {
        pz_tensor *y = l->out[i];
        int64_t v = ok ? split_size(l, i) : 0;
        y->rank = x->rank;
        for (int a = 0; a < x->rank; a++) y->dims[a] = a == p->axis ? v : x->dims[a];
        st->chunk[i] = (size_t)(v * inner) * es;
    }
    st->outer = ok ? pz_prod(x->dims, p->axis) : 0;
    st->row = (size_t)(sum * inner) * es;
}

static int split_dyn_self(const pz_layer *l)
{
    return l->n_in > 1;
}

static int split_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *x = pz_in(l, 0);
    if (!x) return pz_layer_fail(l, err, n, "needs X");
    /* an omitted output still takes its share of the axis: the compiler
     * knows its size only through a tensor, so every output is required */
    for (int i = 0; i < l->n_out; i++)
        if (!l->out[i]) return pz_layer_fail(l, err, n, "output %d is omitted", i);
    if (l->n_in > 1 || l->dyn) return split_rt_prepare(l, err, n);
    if (concat_plan(l, err, n, x, l->out, l->n_out, "output")) return 1;
    /* Blocked, the mirror of Concat's: a float X along channels arriving in
     * NCHW16c whose parts but the last fill whole blocks (the Split the
     * concatenation pass puts after a merged conv) is cut in whole blocks,
     * and its readers (convs, pools, a Concat) take the parts blocked. */
    const pz_axis_params *p = l->params;
    if (l->isa == PZ_ISA_REF || x->rank != 4 || p->axis != 1 || x->dtype != PZ_F32 ||
        l->in_have[0] != 16)
        return 0;
    for (int i = 0; i + 1 < l->n_out; i++)
        if (l->out[i]->dims[1] % 16) return 0;
    concat_state *st = l->state;
    size_t plane = (size_t)(x->dims[2] * x->dims[3]) * 16 * sizeof(float);
    st->row = 0;
    for (int i = 0; i < l->n_out; i++) {
        st->chunk[i] = (size_t)((l->out[i]->dims[1] + 15) / 16) * plane;
        st->row += st->chunk[i];
        l->out_cblk[i] = 16;
    }
    l->in_cblk[0] = 16;
    return 0;
}

static void split_run(const pz_layer *l, int ith, int nth)
{
    const concat_state *st = l->state;
    if (l->out_inplace) {
        /* some parts are slices of X (rt/inplace.c: one outer row): copy
         * the others, each cut over the workers */
        size_t at = 0;
        for (int i = 0; i < l->n_out; i++) {
            size_t c = st->chunk[i], a = c * (size_t)ith / (size_t)nth,
                   b = c * (size_t)(ith + 1) / (size_t)nth;
            if (!(l->out_inplace >> i & 1) && b > a)
                memcpy((char *)l->out[i]->data + a, (const char *)l->in[0]->data + at + a, b - a);
            at += c;
        }
        return;
    }
    pz_any_split__ref(l->n_out, st->outer, st->chunk, st->row, l->in[0]->data,
                      (const pz_tensor *const *)l->out, ith, nth);
}

const pz_rt_op pz_rt_op_split = {
    .name = "SPLIT", PZ_OP_PARAMS(pz_axis_params, pz_axis_fields),
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = -1,
    .prepare = split_prepare, .run = split_run, .release = concat_release,
    .row_rule = concat_row_rule, .run_shape = split_run_shape, .dyn_self = split_dyn_self,
};
