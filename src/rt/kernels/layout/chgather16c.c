/* chgather16c.c - the channel gather on NCHW16c (fast.h): its plan, built
 * at compile time, and the scalar twin of chgather16c_avx512.c.
 *
 * The plan lists, for each output block, one source per (input, input
 * block) that feeds it: a mask of the output lanes it fills and the input
 * lane of each. A concat of 58 + 58 channels has up to two sources per
 * output block; ShuffleNetV2's shuffle (output lane l of block b from
 * channel (16b + l) / 2 of one half or the other) has up to four. */
#include <stdlib.h>

#include "rt/kernels/fast.h"

void pz_chgather_free(pz_chgather_desc *d)
{
    free(d->in_cb);
    free(d->src);
    free(d->first);
    d->in_cb = NULL;
    d->src = NULL;
    d->first = NULL;
}

int pz_chgather_plan(pz_chgather_desc *d, int64_t n, int64_t hw, int64_t c_out, int nin,
                     const int64_t *c_in, const int *src_in, const int64_t *src_ch)
{
    *d = (pz_chgather_desc){.n = n, .hw = hw, .ob = (c_out + 15) / 16, .nin = nin};
    if (c_out < 1 || nin < 1) return -1;
    d->in_cb = malloc((size_t)nin * sizeof *d->in_cb);
    /* at most 16 sources per output block; trimmed to what is used below */
    d->src = calloc((size_t)(d->ob * 16), sizeof *d->src);
    d->first = malloc((size_t)(d->ob + 1) * sizeof *d->first);
    if (!d->in_cb || !d->src || !d->first) goto fail;
    for (int i = 0; i < nin; i++) d->in_cb[i] = (c_in[i] + 15) / 16;
    int64_t ns = 0;
    for (int64_t b = 0; b < d->ob; b++) {
        d->first[b] = ns;
        for (int64_t c = b * 16; c < c_out && c < b * 16 + 16; c++) {
            int in = src_in[c];
            int64_t ch = src_ch[c];
            if (in < 0 || in >= nin || ch < 0 || ch >= c_in[in]) goto fail;
            int64_t s = d->first[b];
            while (s < ns && !(d->src[s].in == in && d->src[s].blk == ch / 16)) s++;
            if (s == ns) {
                d->src[ns].in = in;
                d->src[ns].blk = ch / 16;
                ns++;
            }
            d->src[s].mask |= 1u << (c % 16);
            d->src[s].idx[c % 16] = (int32_t)(ch % 16);
        }
    }
    d->first[d->ob] = ns;
    return 0;
fail:
    pz_chgather_free(d);
    return -1;
}

void pz_f32_chgather16c__scalar(const pz_chgather_desc *d, const float *const *x,
                                float *restrict y, int ith, int nth)
{
    const int64_t hw = d->hw;
    int64_t lo, hi;
    pz_split(d->n * d->ob, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t im = u / d->ob, b = u % d->ob;
        float *yb = y + u * hw * 16;
        uint32_t covered = 0;
        for (int64_t s = d->first[b]; s < d->first[b + 1]; s++) covered |= d->src[s].mask;
        for (int64_t p = 0; p < hw; p++)
            for (int l = 0; l < 16; l++)
                if (!(covered >> l & 1)) yb[p * 16 + l] = 0.0f;
        for (int64_t s = d->first[b]; s < d->first[b + 1]; s++) {
            const pz_chg_src *e = &d->src[s];
            const float *xb = x[e->in] + (im * d->in_cb[e->in] + e->blk) * hw * 16;
            for (int64_t p = 0; p < hw; p++)
                for (int l = 0; l < 16; l++)
                    if (e->mask >> l & 1) yb[p * 16 + l] = xb[p * 16 + e->idx[l]];
        }
    }
}
