/* deconv_phases.h - a 1-D or 2-D transposed convolution (ConvTranspose1d
 * of vocoders: HiFi-GAN's, EnCodec's k = 2s upsampling; ConvTranspose2d of
 * GAN generators and decoders: k4 s2 p1, k3 s2 p1) as stride-1 convs, one
 * per output phase, on the 2-D fast conv, planned at compile time
 * (deconv_phases.c).
 *
 * Output o = i*s + k - pb of ConvTranspose gets x[c][i] * W[c][m][k]. The
 * outputs of one phase r = (o + pb) mod s take the taps k = r + j*s only:
 * with q = (o + pb - r) / s, y[m][q*s + r - pb] = b[m] + sum_j sum_c
 * x[c][q - j] W[c][m][r + j*s], a stride-1 conv of J_r = ceil((K - r) / s)
 * taps (the kernel flipped) over x. The layer blocks its plain input once
 * into scratch ([C/16][L + E][16], E zero columns after), runs one conv2d
 * (H = 1) per phase into a blocked scratch row, bias and a clamp in its
 * epilogue, and scatters each phase's outputs into the plain output with
 * stride s. Pads >= 0, K >= s (every phase has a tap); dilation 1, or in
 * 2-D up to PZ_DECONV_MAX_DILATION as the kernel with its zeros. Group
 * g > 1 where C / g and M / g are whole 16-channel blocks: each phase runs
 * one conv per group over its input blocks into its output blocks.
 *
 * 2-D: the phases are the pairs (rh, rw), sh * sw of them, each a conv of
 * Jh x Jw taps whose top and left pads Jh - 1 - q0h, Jw - 1 - q0w must be
 * >= 0 (a pad before of at most K - s on each axis); the conv's own bounds
 * stand for the zeros past X's end, so X is blocked as it is ([C/16][H][W]
 * [16]) and each phase's [M/16][Qh][Qw][16] is scattered with strides sh, sw.
 */
#ifndef PZ_DECONV_PHASES_H
#define PZ_DECONV_PHASES_H

#include "rt/kernels/fast.h"
#include "rt/pool.h"

#define PZ_DECONV_MAX_PHASES 64
#define PZ_DECONV_MAX_DILATION 4   /* 2-D: a dilated kernel written out with its zeros */

typedef struct {
    pz_conv16c_desc d[PZ_DECONV_MAX_PHASES];   /* phase r's conv: N = 1, W = L + E */
    int64_t q0[PZ_DECONV_MAX_PHASES];          /* its first q (2-D: along W) */
    int64_t q0h[PZ_DECONV_MAX_PHASES];         /* 2-D: its first q along H */
    int64_t c0[PZ_DECONV_MAX_PHASES];          /* input columns skipped at its start */
    int64_t yoff[PZ_DECONV_MAX_PHASES];        /* its rows' offset in an image's outputs */
    int64_t woff[PZ_DECONV_MAX_PHASES];        /* its packed weights' offset */
    pz_conv16c_fn conv;
    pz_rows_to_block_fn to_blk;
    pz_block_to_rows_fn from_blk;
    float *wp, *bp;
    pz_barrier *bar;
    int64_t n, c, m, l, lp, ol, s, pb, cb, mb, yimage;   /* 2-D: l, ol, s, pb along W */
    int64_t h, oh, sh, pbh;                  /* 2-D: along H (1-D: h = oh = sh = 1) */
    int64_t ycs;                             /* Y's channel stride (a frame of a 3-D Y: T OH OW) */
    int64_t g, cbg, mbg;                     /* groups; 16-channel blocks of C, M per group */
    int64_t wg[PZ_DECONV_MAX_PHASES];        /* a phase's packed weights per group */
    int two_d;
} pz_deconv_phases;

/* This path takes the ConvTranspose of params p, X dims xd, Y dims yd
 * (rank 3 or 4). */
bool pz_deconv_phases_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                            const int64_t *yd);
/* Plans it on isa's conv2d (W [C][M][K] or [C][M][KH][KW], b may be NULL;
 * the rank is p->nsp + 2). 0, or 1 when out of memory. */
int pz_deconv_phases_make(pz_deconv_phases **out, const pz_conv_params *p, const int64_t *xd,
                          const int64_t *yd, const float *w, const float *b, pz_isa isa);
size_t pz_deconv_phases_scratch_bytes(const pz_deconv_phases *f);
/* Y = act(convtranspose(X) + B), plain, on worker ith of nth. */
void pz_deconv_phases_run(const pz_deconv_phases *f, const float *x, float *y, void *scratch,
                          int ith, int nth);
/* The same from X blocked as run blocks it ([N][C/16][H][L + E][16] at xs),
 * with ys the scratch past it; Y's images m * ycs apart. */
void pz_deconv_phases_run_blocked(const pz_deconv_phases *f, const float *xs, float *y, float *ys,
                                  int ith, int nth);
void pz_deconv_phases_free(pz_deconv_phases *f);

/* One axis of the phases: taps of phase r (kernel k, stride s), its first
 * q (pad before pb), how many q fall inside an output of `out`, and
 * whether a 2-D or 3-D axis takes them (dilation d 1, k >= s, every
 * phase's pad before >= 0). */
int64_t pz_deconv_taps(int64_t k, int64_t s, int64_t r);
int64_t pz_deconv_first_q(int64_t s, int64_t pb, int64_t r);
int64_t pz_deconv_count_q(int64_t s, int64_t pb, int64_t r, int64_t out);
bool pz_deconv_axis_takes(int64_t k, int64_t s, int64_t d, int64_t pb);

#endif
