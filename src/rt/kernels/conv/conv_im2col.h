/* conv_im2col.h - a 1-D group-1 convolution with a long kernel (more taps
 * than the 2-D fast conv takes: a Silero VAD's STFT, 256 taps at stride
 * 128) as one packed GEMM per run (conv_im2col.c), planned at compile time.
 *
 * With T output frames, K = C * k and cols[t][c*k + j] = Xpad[c][t*s + j*dil
 * - pad] (the im2col rows), Y^T[t][m] = sum_kk cols[t][kk] W[m][kk] + B[m]:
 * a GEMM of T x K by K x M, W packed as B' (trans_b) at compile, the bias its
 * C. With one input channel, dilation 1 and no padding read, row t of cols
 * is X itself from t*s: the GEMM reads X in place at a row stride of s (no
 * copy). Y (NCL) is then Y^T transposed, with the residual Z and the
 * activation added on the way. The reference kernel (pz_f32_conv__ref) is
 * its check; the GEMM of the ISA is that family's kernel (the scalar twin
 * at PZ_ISA_SCALAR).
 *
 *     if (pz_conv_im2col_takes(p, 3, xd, yd) &&
 *         pz_conv_im2col_make(&ic, p, xd, yd, w, b, isa, huge) == 0) {
 *         scratch = malloc(pz_conv_im2col_scratch_bytes(ic));
 *         // at run, on every worker ith of nth:
 *         pz_conv_im2col_run(ic, n, &p->act, x, z, y, scratch, ith, nth);
 *         pz_conv_im2col_free(ic);
 *     }
 */
#ifndef PZ_CONV_IM2COL_H
#define PZ_CONV_IM2COL_H

#include "rt/kernels/fast.h"
#include "rt/pool.h"

typedef struct pz_conv_im2col_s {
    int64_t n, c, l, m, t;       /* batch, input channels and length, output channels, frames */
    int64_t k, s, dil, pb;       /* kernel, stride, dilation, pad before */
    int64_t kk;                  /* the GEMM's K: c * k */
    bool in_place;               /* cols is X itself (c 1, dilation 1, no padding read) */
    pz_gemm_fn gemm;             /* the packed GEMM of the ISA */
    float *wp, *bias;            /* W packed [ceil(M/32)][K][32]; the bias (M) or NULL */
    int huge;                    /* wp on huge pages (pz_alloc_big) */
    pz_barrier *bar;             /* between cols, the GEMM and the transpose */
} pz_conv_im2col;

/* Most floats of im2col rows this path builds (N * T * C * k): a larger
 * conv stays on the reference kernel rather than take that scratch. */
#define PZ_IM2COL_MAX_FLOATS ((int64_t)1 << 24)

/* This path takes the conv of params p on X of rank `rank` (dims xd, Y dims
 * yd): 1-D, group 1, more taps than pz_conv16c_init takes (over 64), and
 * im2col rows within PZ_IM2COL_MAX_FLOATS (or none: in place). */
bool pz_conv_im2col_takes(const pz_conv_params *p, int rank, const int64_t *xd,
                          const int64_t *yd);
/* Plans it (W and b constant, b may be NULL) on isa's GEMM; huge: packed W
 * on huge pages. Returns 0 with *out set, 1 when out of memory. */
int pz_conv_im2col_make(pz_conv_im2col **out, const pz_conv_params *p, const int64_t *xd,
                        const int64_t *yd, const float *w, const float *b, pz_isa isa, int huge);
/* Bytes of run-time scratch (shared by the workers): im2col rows (none in
 * place) and Y^T. */
size_t pz_conv_im2col_scratch_bytes(const pz_conv_im2col *f);
/* Y = act(conv(X) + B + Z) (Z plain like Y, or NULL) over the first n
 * images (n <= the plan's: a dynamic region's run) on worker ith of nth. */
void pz_conv_im2col_run(const pz_conv_im2col *f, int64_t n, const pz_act *act, const float *x,
                        const float *z, float *y, void *scratch, int ith, int nth);
void pz_conv_im2col_free(pz_conv_im2col *f);

#endif
