/* halo.c - rows per core of a block split in bands, and its redundant MACs
 * (see halo.h). */
#include "halo.h"

#include <string.h>

#include "../ops/op.h"
#include "../gen/net_build.h"       /* gen_run_isa: the ISA the run takes */
#include "../rt/kernels/kernels.h"
#include "../rt/op_desc.h"
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

/* Value v as a row rule sees it. */
static void row_tensor(const ir_model *m, int v, pz_row_tensor *t)
{
    static const int64_t none[1];
    const ir_tensor *x = val(m, v);
    t->rank = x && x->rank > 0 ? x->rank : 0;
    t->dims = x ? x->dims : none;
    t->is_const = is_const(m, v);
    /* a value a layer makes may arrive blocked from a fast kernel */
    t->made_by_layer = !t->is_const && !m->g->values[v].is_input;
    t->is_bool = x && x->dtype == IR_BOOL;
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

    /* The kind's row rule (its descriptor, rt/ops/) says how each input's
     * rows follow the output's; the checks below hold for every kind. */
    const pz_rt_op *op = pz_rt_ops[low->kind];
    if (!op->row_rule)
        NOT_ROW_LOCAL("%s is not row-local (each output row reads every input row)", n->op_type);
    pz_row_tensor rin[PZ_MAX_IO], rout[PZ_MAX_IO];
    for (int k = 0; k < low->n_in; k++) row_tensor(m, low->in[k], &rin[k]);
    for (int k = 0; k < low->n_out; k++) row_tensor(m, low->out[k], &rout[k]);
    /* the algo knob as the generated program sets it (lm->low is our copy) */
    if (op->set_algo) op->set_algo(&lm->low.p, m->layers[l].algo);
    if (op->set_sparsity && m->layers[l].sparsity != 0)
        op->set_sparsity(&lm->low.p, m->layers[l].sparsity);
    pz_row_layer rl = {&low->p, low->n_in, low->n_out, rin, rout, gen_run_isa()};
    pz_row_map rm_all;
    memset(&rm_all, 0, sizeof rm_all);
    if (!op->row_rule(&rl, &rm_all)) NOT_ROW_LOCAL("%s %s", n->op_type, rm_all.why);
    lm->gran = rm_all.gran > 1 ? rm_all.gran : 1;

    for (int k = 0; k < low->n_in; k++) {
        row_map *rm = &lm->in[k];
        const pz_row_input *ri = &rm_all.in[k];
        int v = low->in[k];
        if (is_const(m, v) || ri->kind == PZ_ROWS_NONE) {
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
        if (ri->kind == PZ_ROWS_WINDOW) {
            rm->kind = MAP_WINDOW;
            rm->kernel = ri->kernel;
            rm->stride = ri->stride;
            rm->pad = ri->pad;
            rm->dilation = ri->dilation;
            continue;
        }
        rm->kind = MAP_AFFINE;
        rm->start = 0;
        rm->step = 1;
        if (ri->kind == PZ_ROWS_AFFINE) {
            rm->start = ri->start;
            rm->step = ri->step;
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

/* The value whose bytes view v is (ir_model.view_src, followed), or v. */
static int view_root(const ir_model *m, int v)
{
    while (v >= 0 && m->view_src && m->view_src[v] >= 0) v = m->view_src[v];
    return v;
}

/* A layer reading a view reads its root (the runtime's dataflow, rt/fuse.c):
 * the same rows when the shape is the same; a view of another shape of a
 * value the block makes moves elements across rows. 0 and why when so. */
static int read_roots(block_walk *w, layer_map *lm, char *why, size_t why_size)
{
    for (int k = 0; k < lm->low.n_in; k++) {
        int v = lm->low.in[k], r = view_root(w->m, v);
        if (r == v) continue;
        const ir_tensor *a = &w->m->g->values[v].t, *b = &w->m->g->values[r].t;
        if (a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank)) {
            lm->low.in[k] = r;
            continue;
        }
        if (!w->produced[r]) continue;
        if (why) snprintf(why, why_size, "reads \"%s\", a view of another shape of \"%s\" (not "
                          "row-local)", w->m->g->values[v].name, w->m->g->values[r].name);
        return 0;
    }
    return 1;
}

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
        if (!read_roots(w, lm, why, why_size)) {
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
        if (m->g->values[v].is_output && w->produced[view_root(m, v)])
            w->leaves[view_root(m, v)] = 1;
    for (int l = first + count; l < m->n_layers; l++) {
        const ir_layer *ly = &m->layers[l];
        for (int k = 0; k < ly->n_in; k++) {
            int v = view_root(m, ly->in[k]);
            if (v >= 0 && w->produced[v]) w->leaves[v] = 1;
        }
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
        lc->row_step = w.maps[k].gran;
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
