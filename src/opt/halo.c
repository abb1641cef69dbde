/* halo.c - rows per core of a block split in bands, and its redundant MACs
 * (see halo.h). */
#include "halo.h"

#include <string.h>

#include "../ops/op.h"
#include "../rt/kernels/kernels.h"   /* pz_cpu_isa */
#include "../rt/rows.h"

/* ---- row arithmetic ----------------------------------------------------- */

void halo_band(int64_t rows, int ith, int nth, int64_t *lo, int64_t *hi)
{
    pz_rows_band(rows, 1, ith, nth, lo, hi);
}

static void clamp_range(int64_t a, int64_t b, int64_t rows, int64_t *lo, int64_t *hi)
{
    if (a < 0) a = 0;
    if (b > rows) b = rows;
    if (a >= b) a = b = 0;
    *lo = a;
    *hi = b;
}

void halo_window_rows(int64_t lo, int64_t hi, int64_t kernel, int64_t stride, int64_t pad_begin,
                      int64_t dilation, int64_t in_rows, int64_t *in_lo, int64_t *in_hi)
{
    pz_rows_window(lo, hi, kernel, stride, pad_begin, dilation, in_rows, in_lo, in_hi);
}

void halo_affine_rows(int64_t lo, int64_t hi, int64_t start, int64_t step, int64_t in_rows,
                      int64_t *in_lo, int64_t *in_hi)
{
    if (lo >= hi) {
        *in_lo = *in_hi = 0;
        return;
    }
    clamp_range(start + lo * step, start + (hi - 1) * step + 1, in_rows, in_lo, in_hi);
}

/* ---- per layer: how output rows map to input rows ----------------------- */

typedef enum {
    MAP_NONE,     /* the input does not depend on the output rows (weights, bias, ...) */
    MAP_AFFINE,   /* input row start + r*step */
    MAP_WINDOW,   /* a conv/pool window */
    MAP_ROW0,     /* a broadcast operand with one row: row 0 */
} map_kind;

typedef struct {
    map_kind kind;
    int64_t start, step;                      /* MAP_AFFINE */
    int64_t kernel, stride, pad, dilation;    /* MAP_WINDOW */
    int64_t in_rows;
} row_map;

typedef struct {
    int row_local;
    char why[200];
    int64_t out_rows;
    int64_t gran;             /* row granularity of the runtime's kernel (below) */
    op_lowered low;
    row_map in[PZ_MAX_IO];
} layer_map;

static const ir_tensor *val(const ir_model *m, int v)
{
    return v >= 0 ? &m->g->values[v].t : NULL;
}

static int is_const(const ir_model *m, int v)
{
    return v < 0 || m->g->values[v].t.data != NULL;
}

static int64_t rows_of(const ir_tensor *t)
{
    return t && t->rank >= 3 ? t->dims[2] : -1;
}

/* Fills lm for model layer l; returns lm->row_local. */
static int map_layer(const ir_model *m, int l, layer_map *lm)
{
    const ir_node *n = &m->g->nodes[m->layers[l].node];
    pz_err err = {0};
    memset(lm, 0, sizeof *lm);
#define NOT_ROW_LOCAL(...)                                                      \
    do {                                                                        \
        snprintf(lm->why, sizeof lm->why, __VA_ARGS__);                         \
        return lm->row_local = 0;                                               \
    } while (0)
    if (!n->op->lower || n->op->lower(m->g, n, &lm->low, &err))
        NOT_ROW_LOCAL("%s cannot run at run time here", n->op_type);
    const op_lowered *low = &lm->low;
    const ir_tensor *y = low->n_out ? val(m, low->out[0]) : NULL;
    lm->out_rows = rows_of(y);
    if (lm->out_rows < 0)
        NOT_ROW_LOCAL("%s makes a tensor of rank %d, with no row axis", n->op_type, y ? y->rank : 0);
    for (int k = 1; k < low->n_out; k++)
        if (low->out[k] >= 0 && rows_of(val(m, low->out[k])) != lm->out_rows)
            NOT_ROW_LOCAL("%s's outputs have different rows", n->op_type);

    /* Default: every non-constant input maps 1:1 (element-wise). */
    int window_input = -1;   /* input read through a window (conv, pool) */
    lm->gran = 1;
    switch (low->kind) {
    case PZ_OP_CONV: {
        window_input = 0;
        /* the rows the runtime's kernel computes together (rt/rows.h: two-row
         * tiles of the direct conv on AVX-512): its ranges of rows start and
         * end at multiples of them (or the last row). Asked with the algo
         * knob the generated program passes, on the ISA the run will use. */
        const ir_tensor *x = val(m, low->in[0]);
        if (!x) break;
        pz_conv_params cp = low->p.conv;
        cp.algo = (pz_conv_algo)m->layers[l].algo;
        int w_const = is_const(m, low->in[1]) && (low->n_in < 3 || is_const(m, low->in[2]));
        /* an input made by a layer arrives blocked from a fast kernel */
        int x_blocked = !is_const(m, low->in[0]) && !m->g->values[low->in[0]].is_input;
        pz_conv_query q;
        pz_conv_query_make(&cp, x->rank, x->dims, y->dims, x_blocked, w_const, pz_cpu_isa(), &q);
        if (q.row_step > 1) lm->gran = q.row_step;
        break;
    }
    case PZ_OP_POOL: {
        const pz_pool_params *pp = &low->p.pool;
        int64_t in_rows = rows_of(val(m, low->in[0]));
        if (lm->out_rows == 1 && pp->kernel[0] >= in_rows + pp->pad_begin[0] + pp->pad_end[0] &&
            in_rows > 1)
            NOT_ROW_LOCAL("%s pools over all rows (global pooling)", n->op_type);
        window_input = 0;
        break;
    }
    case PZ_OP_BATCHNORM:
        /* training mode normalises with statistics over every row */
        if (low->p.bn.training)
            NOT_ROW_LOCAL("%s in training mode uses the mean and variance of all rows", n->op_type);
        break;
    case PZ_OP_UNARY: case PZ_OP_BINARY: case PZ_OP_LRN: case PZ_OP_CAST:
    case PZ_OP_SLICE: case PZ_OP_PAD:
        break;
    case PZ_OP_COPY: {
        const ir_tensor *x = val(m, low->in[0]);
        if (!x || x->rank != y->rank || memcmp(x->dims, y->dims, (size_t)y->rank * sizeof(int64_t)))
            NOT_ROW_LOCAL("%s changes the shape (a reshape is not row-local)", n->op_type);
        break;
    }
    case PZ_OP_CONCAT: case PZ_OP_SPLIT:
        if (low->p.axis.axis == 2) NOT_ROW_LOCAL("%s works along the row axis", n->op_type);
        break;
    case PZ_OP_TRANSPOSE:
        if (low->p.transpose.perm[2] != 2) NOT_ROW_LOCAL("%s moves the row axis", n->op_type);
        break;
    case PZ_OP_SOFTMAX: {
        const pz_softmax_params *sp = &low->p.softmax;
        /* over one axis: row-local unless that axis is the rows; opset < 13
         * flattens [outer, inner] at axis: row-local when the rows are outer */
        if (sp->coerce_2d ? sp->axis <= 2 : sp->axis == 2)
            NOT_ROW_LOCAL("%s normalises over the rows", n->op_type);
        break;
    }
    case PZ_OP_REDUCE_MEAN: {
        const ir_tensor *x = val(m, low->in[0]);
        if ((low->p.reduce.axes_mask & 4u) || !x || x->rank != y->rank)
            NOT_ROW_LOCAL("%s reduces over the rows or drops axes", n->op_type);
        break;
    }
    case PZ_OP_RESIZE:
        if (low->p.resize.scale[2] != 1.0f) NOT_ROW_LOCAL("%s rescales the rows", n->op_type);
        break;
    default:
        NOT_ROW_LOCAL("%s is not row-local (each output row reads every input row)", n->op_type);
    }

    for (int k = 0; k < low->n_in; k++) {
        row_map *rm = &lm->in[k];
        int v = low->in[k];
        if (is_const(m, v) || (low->kind == PZ_OP_CONV && (k == 1 || k == 2))) {
            rm->kind = MAP_NONE;   /* weights and bias; constants */
            continue;
        }
        const ir_tensor *x = val(m, v);
        /* the operand's row axis, aligned from the right as broadcasting does */
        int axis = 2 - (y->rank - x->rank);
        rm->in_rows = axis >= 0 && axis < x->rank ? x->dims[axis] : -1;
        if (axis != 2 || rm->in_rows < 0)
            NOT_ROW_LOCAL("%s: input %d (rank %d) has no row axis aligned with the output's",
                          n->op_type, k, x->rank);
        if (k == window_input) {
            const int64_t *ker = low->kind == PZ_OP_CONV ? low->p.conv.kernel : low->p.pool.kernel;
            const int64_t *str = low->kind == PZ_OP_CONV ? low->p.conv.stride : low->p.pool.stride;
            const int64_t *pad = low->kind == PZ_OP_CONV ? low->p.conv.pad_begin : low->p.pool.pad_begin;
            const int64_t *dil = low->kind == PZ_OP_CONV ? low->p.conv.dilation : low->p.pool.dilation;
            rm->kind = MAP_WINDOW;
            rm->kernel = ker[0];
            rm->stride = str[0] > 0 ? str[0] : 1;
            rm->pad = pad[0];
            rm->dilation = dil[0] > 0 ? dil[0] : 1;
            continue;
        }
        rm->kind = MAP_AFFINE;
        rm->start = 0;
        rm->step = 1;
        if (low->kind == PZ_OP_SLICE && k == 0) {
            rm->start = low->p.slice.start[2];
            rm->step = low->p.slice.step[2];
            if (rm->step < 1) NOT_ROW_LOCAL("%s walks the rows backwards", n->op_type);
            continue;
        }
        if (low->kind == PZ_OP_PAD && k == 0) {
            if (low->p.pad.mode != PZ_PAD_CONSTANT &&
                (low->p.pad.begin[2] != 0 || rm->in_rows != lm->out_rows))
                NOT_ROW_LOCAL("%s pads the rows by reflection/edge/wrap", n->op_type);
            rm->start = -low->p.pad.begin[2];
            continue;
        }
        if (rm->in_rows == 1 && lm->out_rows != 1) {
            rm->kind = MAP_ROW0;   /* broadcast along the rows */
            continue;
        }
        if (rm->in_rows != lm->out_rows)
            NOT_ROW_LOCAL("%s: input %d has %lld rows, the output %lld", n->op_type, k,
                          (long long)rm->in_rows, (long long)lm->out_rows);
    }
#undef NOT_ROW_LOCAL
    return lm->row_local = 1;
}

static void map_rows(const row_map *rm, int64_t lo, int64_t hi, int64_t *in_lo, int64_t *in_hi)
{
    switch (rm->kind) {
    case MAP_WINDOW:
        halo_window_rows(lo, hi, rm->kernel, rm->stride, rm->pad, rm->dilation, rm->in_rows, in_lo,
                         in_hi);
        break;
    case MAP_AFFINE:
        halo_affine_rows(lo, hi, rm->start, rm->step, rm->in_rows, in_lo, in_hi);
        break;
    case MAP_ROW0:
        *in_lo = 0;
        *in_hi = lo < hi ? 1 : 0;
        break;
    default:
        *in_lo = *in_hi = 0;
    }
}

int halo_layer_row_local(const ir_model *m, int l, char *why, size_t size)
{
    layer_map lm;
    int ok = map_layer(m, l, &lm);
    if (!ok && why && size) snprintf(why, size, "%s", lm.why);
    return ok;
}

int halo_layer_input_rows(const ir_model *m, int l, int k, int64_t lo, int64_t hi,
                          int64_t *in_lo, int64_t *in_hi)
{
    layer_map lm;
    *in_lo = *in_hi = 0;
    if (!map_layer(m, l, &lm) || k < 0 || k >= lm.low.n_in || lm.in[k].kind == MAP_NONE) return 0;
    map_rows(&lm.in[k], lo, hi, in_lo, in_hi);
    return 1;
}

/* ---- per block ---------------------------------------------------------- */

/* What a block walk needs, computed once: each layer's map, which values it
 * produces, and which of them leave the block. */
typedef struct {
    const ir_model *m;
    int first, count;
    layer_map *maps;          /* [count] */
    int64_t *need;            /* [2 * n_values]: rows of each value one core needs */
    int64_t *gran;            /* [n_values]: row granularity of its producer in the block */
    unsigned char *produced;  /* [n_values]: made by a layer of the block */
    unsigned char *leaves;    /* [n_values]: read after the block, or a graph output */
} block_walk;

static int walk_init(block_walk *w, const ir_model *m, int first, int count, char *why,
                     size_t why_size, int *bad)
{
    int nv = m->g->n_values ? m->g->n_values : 1;
    memset(w, 0, sizeof *w);
    w->m = m;
    w->first = first;
    w->count = count;
    w->maps = pz_xcalloc((size_t)count, sizeof *w->maps);
    w->need = pz_xcalloc((size_t)nv * 2, sizeof *w->need);
    w->gran = pz_xcalloc((size_t)nv, sizeof *w->gran);
    w->produced = pz_xcalloc((size_t)nv, 1);
    w->leaves = pz_xcalloc((size_t)nv, 1);
    *bad = -1;
    for (int k = 0; k < count; k++) {
        layer_map *lm = &w->maps[k];
        if (!map_layer(m, first + k, lm)) {
            if (why) snprintf(why, why_size, "%s", lm->why);
            *bad = first + k;
            return 0;
        }
        for (int o = 0; o < lm->low.n_out; o++)
            if (lm->low.out[o] >= 0) {
                w->produced[lm->low.out[o]] = 1;
                w->gran[lm->low.out[o]] = lm->gran;
            }
    }
    /* values that leave: graph outputs, values read by later layers, and the
     * last layer's outputs */
    for (int v = 0; v < m->g->n_values; v++)
        if (w->produced[v] && m->g->values[v].is_output) w->leaves[v] = 1;
    for (int l = first + count; l < m->n_layers; l++) {
        const ir_layer *ly = &m->layers[l];
        for (int k = 0; k < ly->n_in; k++)
            if (ly->in[k] >= 0 && w->produced[ly->in[k]]) w->leaves[ly->in[k]] = 1;
    }
    const layer_map *last = &w->maps[count - 1];
    for (int o = 0; o < last->low.n_out; o++)
        if (last->low.out[o] >= 0) w->leaves[last->low.out[o]] = 1;
    return 1;
}

static void walk_free(block_walk *w)
{
    free(w->maps);
    free(w->need);
    free(w->gran);
    free(w->produced);
    free(w->leaves);
}

/* need[v] |= [lo, hi) as one contiguous range (the hull). */
static void need_add(int64_t *need, int v, int64_t lo, int64_t hi)
{
    if (lo >= hi) return;
    int64_t *r = &need[2 * v];
    if (r[0] >= r[1]) {
        r[0] = lo;
        r[1] = hi;
    } else {
        if (lo < r[0]) r[0] = lo;
        if (hi > r[1]) r[1] = hi;
    }
}

/* Core ith of nth: the rows of each layer's output it computes, into
 * rows[2*k], rows[2*k+1]. */
static void walk_core(block_walk *w, int ith, int nth, int64_t *rows)
{
    const ir_model *m = w->m;
    memset(w->need, 0, (size_t)(m->g->n_values ? m->g->n_values : 1) * 2 * sizeof *w->need);
    for (int v = 0; v < m->g->n_values; v++)
        if (w->leaves[v]) {
            /* a band of whole units of its producer's granularity */
            int64_t lo, hi;
            pz_rows_band(rows_of(&m->g->values[v].t), w->gran[v], ith, nth, &lo, &hi);
            need_add(w->need, v, lo, hi);
        }
    for (int k = w->count - 1; k >= 0; k--) {
        const layer_map *lm = &w->maps[k];
        int64_t lo = 0, hi = 0;
        for (int o = 0; o < lm->low.n_out; o++) {
            int v = lm->low.out[o];
            if (v < 0 || w->need[2 * v] >= w->need[2 * v + 1]) continue;
            if (lo >= hi) lo = w->need[2 * v], hi = w->need[2 * v + 1];
            if (w->need[2 * v] < lo) lo = w->need[2 * v];
            if (w->need[2 * v + 1] > hi) hi = w->need[2 * v + 1];
        }
        pz_rows_align(lm->gran, lm->out_rows, &lo, &hi);   /* whole units of its granularity */
        rows[2 * k] = lo;
        rows[2 * k + 1] = hi;
        for (int i = 0; i < lm->low.n_in; i++) {
            int v = lm->low.in[i];
            if (v < 0 || !w->produced[v] || lm->in[i].kind == MAP_NONE) continue;
            int64_t a, b;
            map_rows(&lm->in[i], lo, hi, &a, &b);
            need_add(w->need, v, a, b);
        }
    }
}

void halo_block_rows(const ir_model *m, int first, int count, int ith, int nth, int64_t *rows)
{
    PZ_ASSERT(first >= 0 && count >= 1 && first + count <= m->n_layers && nth >= 1 && ith >= 0 &&
              ith < nth);
    block_walk w;
    int bad;
    int ok = walk_init(&w, m, first, count, NULL, 0, &bad);
    PZ_ASSERT(ok);
    walk_core(&w, ith, nth, rows);
    walk_free(&w);
}

void halo_block(const ir_model *m, int first, int count, int mp, halo_report *r)
{
    PZ_ASSERT(first >= 0 && count >= 1 && first + count <= m->n_layers && mp >= 1);
    memset(r, 0, sizeof *r);
    r->n_layers = count;
    r->layers = pz_xcalloc((size_t)count, sizeof *r->layers);
    r->bad_layer = -1;
    for (int k = 0; k < count; k++) {
        r->layers[k].macs = m->g->nodes[m->layers[first + k].node].cost.macs;
        r->macs += r->layers[k].macs;
    }
    block_walk w;
    r->row_local = walk_init(&w, m, first, count, r->why, sizeof r->why, &r->bad_layer);
    if (!r->row_local) {
        walk_free(&w);
        return;
    }
    /* rows[core][layer] */
    int64_t *rows = pz_xmalloc((size_t)mp * (size_t)count * 2 * sizeof *rows);
    int64_t *ranges = pz_xmalloc((size_t)mp * 2 * sizeof *ranges);
    for (int c = 0; c < mp; c++) walk_core(&w, c, mp, rows + (size_t)c * count * 2);
    for (int k = 0; k < count; k++) {
        halo_layer_cost *lc = &r->layers[k];
        lc->rows = w.maps[k].out_rows;
        for (int c = 0; c < mp; c++) {
            const int64_t *rr = rows + ((size_t)c * count + (size_t)k) * 2;
            ranges[2 * c] = rr[0];
            ranges[2 * c + 1] = rr[1];
            lc->rows_computed += rr[1] - rr[0];
        }
        int64_t extra = lc->rows_computed - pz_rows_union(ranges, mp);
        /* MACs are the same for every output row (DLFusion Eq. 1 counts
         * padded positions too), so a row costs macs / rows */
        lc->redundant_macs = lc->rows > 0 ? lc->macs / lc->rows * extra +
                                                 lc->macs % lc->rows * extra / lc->rows
                                           : 0;
        r->redundant_macs += lc->redundant_macs;
    }
    free(rows);
    free(ranges);
    walk_free(&w);
}

void halo_report_free(halo_report *r)
{
    free(r->layers);
    r->layers = NULL;
}
