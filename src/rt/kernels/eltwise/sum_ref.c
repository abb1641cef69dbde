/* sum_ref.c - reference SUM (Sum, Mean): y = x0 + x1 + ... (/ k), each input
 * broadcast to Y through the shared walk. Y is the accumulator: input 0 is
 * copied in, each next one added in order, so every element sums left to
 * right as ONNX's reference does; a worker's share of Y is the same for
 * every input (pz_split of Y's elements), so it only reads what it wrote. */
#include "rt/kernels/kernels.h"

typedef struct {
    int dt, first;
    const void *x;
    void *y;
    int64_t sx;
} sum_ctx;

static void sum_seg(void *vctx, int64_t ox, int64_t oy_unused, int64_t oy, int64_t n)
{
    const sum_ctx *c = vctx;
    (void)oy_unused;
    if (c->dt == PZ_F32) {
        const float *x = (const float *)c->x + ox;
        float *y = (float *)c->y + oy;
        if (c->first)
            for (int64_t i = 0; i < n; i++) y[i] = x[i * c->sx];
        else
            for (int64_t i = 0; i < n; i++) y[i] += x[i * c->sx];
        return;
    }
    for (int64_t i = 0; i < n; i++) {   /* rounded to the type after each add */
        double v = pz_load_f64(c->x, c->dt, ox + i * c->sx);
        pz_store_f64(c->y, c->dt, oy + i, c->first ? v : pz_load_f64(c->y, c->dt, oy + i) + v);
    }
}

void pz_any_sum__ref(int mean, int dtype, int k, const pz_bcast *bc, const void *const *x,
                     void *y, int ith, int nth)
{
    for (int i = 0; i < k; i++) {
        sum_ctx c = {dtype, i == 0, x[i], y, bc[i].sa[bc[i].rank - 1]};
        pz_bcast_walk(&bc[i], ith, nth, sum_seg, &c);
    }
    if (!mean) return;
    int64_t total = pz_prod(bc[0].dims, bc[0].rank), lo, hi;
    pz_split(total, ith, nth, &lo, &hi);
    if (dtype == PZ_F32)
        for (int64_t i = lo; i < hi; i++) ((float *)y)[i] /= (float)k;
    else
        for (int64_t i = lo; i < hi; i++) pz_store_f64(y, dtype, i, pz_load_f64(y, dtype, i) / k);
}
