/* eltwise16c.c - element-wise layers on NCHW16c buffers: unary functions,
 * same-shaped binary ops (the residual Add), inference BatchNorm.
 *
 * A buffer of N images, C channels and HW pixels in NCHW16c is N*CB*HW
 * vectors of 16 floats (CB = ceil(C/16)); vector v is pixel v % HW of block
 * (v / HW) % CB. Work is split over vectors. The lanes of channels >= C in
 * the last block are written as zeros (a function of 0 need not be 0:
 * sigmoid, Div 0/0, BN's shift), so a later conv may read them.
 *
 * Plain C with fixed 16-lane loops, which the compiler vectorises; each
 * element is computed as the reference computes it (the same expression in
 * float), so the results are the reference's, bit for bit.
 */
#include <math.h>

#include "rt/kernels/fast.h"

/* Zeroes the lanes >= c%16 of the vectors in [lo, hi) that lie in the last
 * channel block. */
static void zero_tails(int64_t c, int64_t hw, int64_t lo, int64_t hi, float *y)
{
    int64_t cb = (c + 15) / 16;
    int valid = (int)(c - (cb - 1) * 16);
    if (valid == 16) return;
    for (int64_t v = lo; v < hi; v++) {
        if ((v / hw) % cb != cb - 1) {
            v += hw - 1 - v % hw;   /* skip to the last pixel of this block */
            continue;
        }
        for (int j = valid; j < 16; j++) y[v * 16 + j] = 0.0f;
    }
}

void pz_f32_unary_nchw16c__scalar(const pz_unary_params *p, int64_t n, int64_t c, int64_t hw,
                                  const float *restrict x, float *restrict y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(n * ((c + 15) / 16) * hw, ith, nth, &lo, &hi);
    const float a = p->alpha, b = p->beta;
    switch (p->func) {
    case PZ_UN_RELU:
        for (int64_t v = lo; v < hi; v++)
            for (int j = 0; j < 16; j++) {
                float t = x[v * 16 + j];
                y[v * 16 + j] = t < 0 ? 0 : t;
            }
        break;
    case PZ_UN_CLIP:
        for (int64_t v = lo; v < hi; v++)
            for (int j = 0; j < 16; j++) {
                float t = x[v * 16 + j];
                t = t < a ? a : t;
                y[v * 16 + j] = t > b ? b : t;
            }
        break;
    default:   /* the reference, on this worker's contiguous share */
        pz_f32_unary__ref(p, x + lo * 16, y + lo * 16, (hi - lo) * 16, 0, 1);
        break;
    }
    zero_tails(c, hw, lo, hi, y);
}

void pz_f32_binary16c__scalar(const pz_binary_params *p, int64_t n, int64_t c, int64_t hw,
                              const float *restrict a, int abc, const float *restrict b, int bbc,
                              float *restrict y, int ith, int nth)
{
    const int64_t cb = (c + 15) / 16;
    int64_t lo, hi;
    pz_split(n * cb * hw, ith, nth, &lo, &hi);
    for (int64_t v = lo; v < hi; v++) {
        int64_t img = v / (cb * hw), blk = v / hw % cb;
        const float *pa = pz_bin16c_operand(a, abc, v, img, blk, cb);
        const float *pb = pz_bin16c_operand(b, bbc, v, img, blk, cb);
        const int sa = abc != 3, sb = bbc != 3;   /* lane strides: 0 for one value */
        for (int j = 0; j < 16; j++)
            y[v * 16 + j] =
                pz_act_f32(&p->act, pz_binary_f32(p->func, pa[j * sa], pb[j * sb]));
    }
    zero_tails(c, hw, lo, hi, y);
}

void pz_f32_batchnorm_nchw16c__scalar(const pz_bn_params *p, int64_t n, int64_t c, int64_t hw,
                                      const float *restrict x, const float *restrict scale,
                                      const float *restrict bias, const float *restrict mean,
                                      const float *restrict var, float *restrict y, int ith,
                                      int nth)
{
    const int64_t cb = (c + 15) / 16;
    /* one unit = one (image, block) plane of hw vectors */
    int64_t lo, hi;
    pz_split(n * cb, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t b0 = (u % cb) * 16;
        float ka[16], kb[16];   /* per lane: y = x * ka + kb, as the reference */
        for (int j = 0; j < 16; j++) {
            ka[j] = b0 + j < c ? scale[b0 + j] / sqrtf(var[b0 + j] + p->epsilon) : 0.0f;
            kb[j] = b0 + j < c ? bias[b0 + j] - mean[b0 + j] * ka[j] : 0.0f;
        }
        const float *xp = x + u * hw * 16;
        float *yp = y + u * hw * 16;
        /* padded lanes: act(0) may not be 0 (a Clip above 0): re-zeroed */
        for (int64_t i = 0; i < hw; i++)
            for (int j = 0; j < 16; j++) {
                float v = pz_act_f32(&p->act, xp[i * 16 + j] * ka[j] + kb[j]);
                yp[i * 16 + j] = b0 + j < c ? v : 0.0f;
            }
    }
}
