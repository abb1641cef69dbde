/* view_ref.c - reference strided view copy (Expand, Tile, DepthToSpace,
 * SpaceToDepth, CenterCropPad), any element type, and its plan. */
#include "rt/kernels/kernels.h"

/* Row-major strides of dims, in elements. */
static void view_strides(int r, const int64_t *dims, int64_t *s)
{
    int64_t acc = 1;
    for (int k = r - 1; k >= 0; k--) {
        s[k] = acc;
        acc *= dims[k];
    }
}

static void view_push(pz_view_desc *d, int64_t dim, int64_t stride)
{
    d->dims[d->rank] = dim;
    d->stride[d->rank] = stride;
    d->lo[d->rank] = 0;
    d->hi[d->rank] = dim;
    d->rank++;
}

/* Merges dims k, k+1 where stepping k is stepping k+1 dims[k+1] times and
 * neither is bounded: fewer, longer rows for the copy loop. */
static void view_coalesce(pz_view_desc *d)
{
    int w = 0;
    for (int k = 0; k < d->rank; k++) {
        bool whole = d->lo[k] == 0 && d->hi[k] == d->dims[k];
        if (w > 0 && whole && d->lo[w - 1] == 0 && d->hi[w - 1] == d->dims[w - 1] &&
            d->stride[w - 1] == d->stride[k] * d->dims[k]) {
            d->dims[w - 1] *= d->dims[k];
            d->stride[w - 1] = d->stride[k];
            d->hi[w - 1] = d->dims[w - 1];
            continue;
        }
        d->dims[w] = d->dims[k];
        d->stride[w] = d->stride[k];
        d->lo[w] = d->lo[k];
        d->hi[w] = d->hi[k];
        w++;
    }
    d->rank = w;
}

int pz_view_plan(const pz_view_params *p, int xr, const int64_t *xd, int yr, const int64_t *yd,
                 pz_view_desc *d, const char **why)
{
    int64_t xs[PZ_MAX_RANK];
    memset(d, 0, sizeof *d);
    if (xr > PZ_MAX_RANK || yr > PZ_MAX_RANK) return *why = "rank above 8", -1;
    view_strides(xr, xd, xs);
    int64_t b = p->blocksize;
    switch (p->func) {
    case PZ_VIEW_EXPAND:   /* right-aligned; a dim of 1 repeats (stride 0) */
        if (xr > yr) return *why = "X has a higher rank than Y", -1;
        for (int k = 0; k < yr; k++) {
            int kx = k - (yr - xr);
            int64_t n = kx >= 0 ? xd[kx] : 1;
            if (n != yd[k] && n != 1) return *why = "X does not broadcast to Y", -1;
            view_push(d, yd[k], n == 1 ? 0 : xs[kx]);
        }
        break;
    case PZ_VIEW_TILE:     /* Y axis k as (repeat, i): i * stride, repeat 0 */
        if (xr != yr) return *why = "X and Y differ in rank", -1;
        for (int k = 0; k < xr; k++) {
            if (xd[k] == 0 ? yd[k] != 0 : yd[k] % xd[k] != 0)
                return *why = "a dim of Y is not a multiple of X's", -1;
            view_push(d, xd[k] ? yd[k] / xd[k] : 0, 0);
            view_push(d, xd[k], xs[k]);
        }
        break;
    case PZ_VIEW_DEPTH_TO_SPACE: {
        /* Y [N, C', H, b, W, b] from X [N, b, b, C', H, W] (DCR) or
         * X [N, C', b, b, H, W] (CRD) */
        if (xr != 4 || yr != 4 || b < 1 || xd[1] % (b * b) ||
            yd[0] != xd[0] || yd[1] != xd[1] / (b * b) || yd[2] != xd[2] * b || yd[3] != xd[3] * b)
            return *why = "Y is not X [N,C,H,W] as [N,C/b^2,H*b,W*b]", -1;
        int64_t c = yd[1], hw = xd[2] * xd[3];
        view_push(d, xd[0], xs[0]);
        view_push(d, c, p->crd ? b * b * hw : hw);
        view_push(d, xd[2], xd[3]);
        view_push(d, b, p->crd ? b * hw : b * c * hw);
        view_push(d, xd[3], 1);
        view_push(d, b, p->crd ? hw : c * hw);
        break;
    }
    case PZ_VIEW_SPACE_TO_DEPTH:
        /* Y [N, b, b, C, H/b, W/b]: channel (b1 * b + b2) * C + c reads
         * X [n, c, h * b + b1, w * b + b2] */
        if (xr != 4 || yr != 4 || b < 1 || xd[2] % b || xd[3] % b ||
            yd[0] != xd[0] || yd[1] != xd[1] * b * b || yd[2] != xd[2] / b || yd[3] != xd[3] / b)
            return *why = "Y is not X [N,C,H,W] as [N,C*b^2,H/b,W/b]", -1;
        view_push(d, xd[0], xs[0]);
        view_push(d, b, xd[3]);
        view_push(d, b, 1);
        view_push(d, xd[1], xs[1]);
        view_push(d, yd[2], b * xd[3]);
        view_push(d, yd[3], b);
        break;
    case PZ_VIEW_CROP_PAD:  /* Y coordinate c reads X at c + start when inside */
        if (xr != yr) return *why = "X and Y differ in rank", -1;
        for (int k = 0; k < xr; k++) {
            view_push(d, yd[k], xs[k]);
            int64_t lo = -p->start[k], hi = xd[k] - p->start[k];
            d->lo[k] = lo < 0 ? 0 : lo > yd[k] ? yd[k] : lo;
            d->hi[k] = hi < d->lo[k] ? d->lo[k] : hi > yd[k] ? yd[k] : hi;
            d->base += p->start[k] * xs[k];
        }
        break;
    default:
        return *why = "unknown view function", -1;
    }
    if (d->rank == 0) view_push(d, 1, 0);   /* a scalar */
    view_coalesce(d);
    return 0;
}

void pz_any_view__ref(const pz_view_desc *d, size_t es, const void *x, void *y, int ith, int nth)
{
    int r = d->rank;
    int64_t inner = d->dims[r - 1], rows = pz_prod(d->dims, r - 1);
    int64_t s = d->stride[r - 1], a = d->lo[r - 1], b = d->hi[r - 1];
    const char *px = x;
    if (inner == 0) return;

    /* one unit of work = one row of the last dim */
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        char *dst = (char *)y + (size_t)(u * inner) * es;
        int64_t off = d->base, rem = u;
        bool inside = a < b;
        for (int k = r - 2; k >= 0; k--) {   /* u's coordinates, last first */
            int64_t c = rem % d->dims[k];
            rem /= d->dims[k];
            off += c * d->stride[k];
            inside = inside && c >= d->lo[k] && c < d->hi[k];
        }
        if (!inside) {
            memset(dst, 0, (size_t)inner * es);
            continue;
        }
        memset(dst, 0, (size_t)a * es);
        memset(dst + (size_t)b * es, 0, (size_t)(inner - b) * es);
        const char *src = px + (off + a * s) * (int64_t)es;
        if (s == 1) memcpy(dst + (size_t)a * es, src, (size_t)(b - a) * es);
        else
            for (int64_t i = a; i < b; i++, src += s * (int64_t)es)
                memcpy(dst + (size_t)i * es, src, es);
    }
}
