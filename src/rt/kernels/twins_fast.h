/* twins_fast.h - the fast twins of Resize (layout/resize_fast.c) and of
 * ConvTranspose (conv/conv_transpose_fast.c), beside their references in
 * kernels.h. Plain C that gcc vectorizes; each gives its reference's bits
 * (Resize: for finite inputs) and splits the work as it does. The layers
 * choose them at prepare (PZ_ISA=ref keeps the references).
 *
 *     pz_resize_lin th, tw;   // k = pz_resize_lin_taps(...) arrays of oh resp. ow entries
 *     if (pz_resize_lin_table(taps_h, ih, oh, &th) && pz_resize_lin_table(taps_w, iw, ow, &tw))
 *         pz_f32_resize2d__fast(&th, &tw, n * c, ih, iw, oh, ow, x, y, NULL, ith, nth);
 */
#ifndef PZ_RT_TWINS_FAST_H
#define PZ_RT_TWINS_FAST_H

#include "rt/kernels/kernels.h"

/* The most taps per output coordinate the fast twin's tables hold: cubic
 * takes 4; antialiased resizes more as they shrink (the reference keeps
 * those beyond). */
#define PZ_RESIZE_FAST_TAPS 8

/* The fast twin's table of one axis (resize_fast.c): per output
 * coordinate k (index, weight) pairs, k the most taps any coordinate has;
 * a coordinate with fewer taps n[o] is padded with its last index at
 * weight 0. ones: every coordinate one tap of weight 1 (nearest). The
 * caller owns the arrays (out entries each, k of i[] and w[]). */
typedef struct {
    int32_t *i[PZ_RESIZE_FAST_TAPS];
    double *w[PZ_RESIZE_FAST_TAPS];
    uint8_t *n;
    int k;
    bool ones;
} pz_resize_lin;
/* The k a table of taps[0..out) (pz_resize_taps') takes; 0 when a
 * coordinate has no tap, more than PZ_RESIZE_FAST_TAPS, is outside
 * (tf_crop_and_resize) or an index passes INT32_MAX: the reference then. */
int pz_resize_lin_taps(const pz_resize_tap *taps, int64_t in, int64_t out);
/* Fills t (its arrays for k = pz_resize_lin_taps(...) set by the caller)
 * from taps[0..out); false as that gives 0. */
bool pz_resize_lin_table(const pz_resize_tap *taps, int64_t in, int64_t out, pz_resize_lin *t);
/* Float32, only the last two axes resized: rows of Y from the tables of H
 * (th) and W (tw), split by output rows as the reference; its bits for
 * finite inputs where pz_resize_only_last_two holds (resize_fast.c). */
/* One output row: y[o] = sum over the nh input rows rows[j] (weights
 * a[j]) and W's taps, a-major, as the reference sums. */
typedef void (*pz_resize_row_fn)(const pz_resize_lin *w, int64_t ow, const float *const *rows,
                                 const double *a, int nh, float *y);
/* row: the rows' kernel (NULL: the plain C one; the AVX-512 one below
 * gives the same bits). */
void pz_f32_resize2d__fast(const pz_resize_lin *th, const pz_resize_lin *tw, int64_t planes,
                           int64_t ih, int64_t iw, int64_t oh, int64_t ow, const float *x,
                           float *y, pz_resize_row_fn row, int ith, int nth);
/* The row in ZMM registers: 8 outputs a step, the inputs gathered and
 * widened to double, each product and sum one IEEE double operation in the
 * plain row's order (no FMA). Not in a PZ_SCALAR build. */
void pz_f32_resize_row__avx512(const pz_resize_lin *w, int64_t ow, const float *const *rows,
                               const double *a, int nh, float *y);

/* pz_f32_conv_transpose__ref's fast twin (conv_transpose_fast.c), when
 * takes: kernel = stride (W's at least 2), no dilation, no padding, Y
 * exactly X times the stride; the reference's bits, split by input rows
 * of the (n, m) planes. */
bool pz_conv_transpose_fast_takes(const pz_conv_params *p, const int64_t *xd,
                                  const int64_t *yd);
void pz_f32_conv_transpose__fast(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                 const float *x, const float *w, const float *b, float *y,
                                 int ith, int nth);
/* The same with its rows in ZMM registers (the same bits; not in a
 * PZ_SCALAR build). */
void pz_f32_conv_transpose__fast_avx512(const pz_conv_params *p, const int64_t *xd,
                                        const int64_t *yd, const float *x, const float *w,
                                        const float *b, float *y, int ith, int nth);

#endif
