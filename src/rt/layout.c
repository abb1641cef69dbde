/* layout.c - sizes of tensors in the net's layouts and the conversions the
 * net inserts between a producer's layout and a consumer's (see net.h). */
#include "rt/layout.h"
#include "rt/kernels/fast.h"
#include "rt/kernels/quant/qconv16c.h"
#include "rt/rt_assert.h"

size_t pz_layout_bytes(const pz_tensor *t, int cblk)
{
    size_t es = pz_dtype_size(t->dtype);
    if (cblk == 0 || t->rank != 4) return (size_t)pz_numel(t) * es;
    return (size_t)pz_nchwxc_size(t->dims[0], t->dims[1], t->dims[2], t->dims[3], cblk) * es;
}

void pz_layout_convert(pz_isa isa, int dtype, const int64_t *xd, int from, int to, const void *x,
                       void *y, int ith, int nth)
{
    if (pz_dtype_size(dtype) == 1) {
        PZ_RT_ASSERT((from == 0 && to == 16) || (from == 16 && to == 0));
        if (from == 0)
            pz_u8_nchw_to_nchw16c(xd[0], xd[1], xd[2], xd[3], 0, x, y, ith, nth);
        else
            pz_u8_nchw16c_to_nchw(xd[0], xd[1], xd[2], xd[3], x, y, ith, nth);
    } else if (from == 0 && to == xd[1] && to <= 4) {
        /* NHWC (a block of all C <= 4 channels: a net's RGB input for the
         * fast stem): each image's pixels are one interleave; the workers
         * take equal runs of (image, pixel) */
        const pz_interleave_fn il = pz_fast_kernels_for(isa)->interleave;
        const int64_t c = xd[1], hw = xd[2] * xd[3];
        int64_t lo, hi;
        pz_split(xd[0] * hw, ith, nth, &lo, &hi);
        while (lo < hi) {
            int64_t in = lo / hw, p = lo % hw, np = hw - p < hi - lo ? hw - p : hi - lo;
            il((const float *)x + in * c * hw + p, hw, (int)c, np, (float *)y + (in * hw + p) * c);
            lo += np;
        }
    } else if (from == 0 && to != 0)
        pz_f32_nchw_to_nchwxc(xd[0], xd[1], xd[2], xd[3], to, x, y, ith, nth);
    else if (from != 0 && to == 0)
        pz_f32_nchwxc_to_nchw(xd[0], xd[1], xd[2], xd[3], from, x, y, ith, nth);
    else
        PZ_RT_ASSERT(!"a layout conversion between two blocked layouts");
}
