/* deconv_phases.h - a 1-D transposed convolution (ConvTranspose1d of
 * vocoders: HiFi-GAN's, EnCodec's k = 2s upsampling) as s stride-1 convs
 * on the 2-D fast conv, planned at compile time (deconv_phases.c).
 *
 * Output o = i*s + k - pb of ConvTranspose gets x[c][i] * W[c][m][k]. The
 * outputs of one phase r = (o + pb) mod s take the taps k = r + j*s only:
 * with q = (o + pb - r) / s, y[m][q*s + r - pb] = b[m] + sum_j sum_c
 * x[c][q - j] W[c][m][r + j*s], a stride-1 conv of J_r = ceil((K - r) / s)
 * taps (the kernel flipped) over x. The layer blocks its plain input once
 * into scratch ([C/16][L + E][16], E zero columns after), runs one conv2d
 * (H = 1) per phase into a blocked scratch row, bias and a clamp in its
 * epilogue, and scatters each phase's outputs into the plain output with
 * stride s. Group 1, dilation 1, pads >= 0, K >= s (every phase has a tap).
 */
#ifndef PZ_DECONV_PHASES_H
#define PZ_DECONV_PHASES_H

#include "rt/kernels/fast.h"
#include "rt/pool.h"

#define PZ_DECONV_MAX_PHASES 64

typedef struct {
    pz_conv16c_desc d[PZ_DECONV_MAX_PHASES];   /* phase r's conv: N = 1, W = L + E */
    int64_t q0[PZ_DECONV_MAX_PHASES];          /* its first q */
    int64_t c0[PZ_DECONV_MAX_PHASES];          /* input columns skipped at its start */
    int64_t yoff[PZ_DECONV_MAX_PHASES];        /* its rows' offset in an image's outputs */
    int64_t woff[PZ_DECONV_MAX_PHASES];        /* its packed weights' offset */
    pz_conv16c_fn conv;
    pz_rows_to_block_fn to_blk;
    pz_block_to_rows_fn from_blk;
    float *wp, *bp;
    pz_barrier *bar;
    int64_t n, c, m, l, lp, ol, s, pb, cb, mb, yimage;
} pz_deconv_phases;

/* This path takes the ConvTranspose of params p, X dims xd, Y dims yd. */
bool pz_deconv_phases_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd);
/* Plans it on isa's conv2d (W [C][M][K], b may be NULL). 0, or 1 when out of memory. */
int pz_deconv_phases_make(pz_deconv_phases **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa);
size_t pz_deconv_phases_scratch_bytes(const pz_deconv_phases *f);
/* Y = act(convtranspose(X) + B), plain, on worker ith of nth. */
void pz_deconv_phases_run(const pz_deconv_phases *f, const float *x, float *y, void *scratch,
                          int ith, int nth);
void pz_deconv_phases_free(pz_deconv_phases *f);

#endif
