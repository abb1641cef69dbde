/* resize_ref.c - reference Resize: nearest (all rounding modes), n-linear,
 * cubic; every coordinate transformation mode; exclude_outside;
 * tf_crop_and_resize's extrapolation. Follows the ONNX reference
 * implementation (onnx/reference/ops/op_resize.py) axis by axis: the n-d
 * result is the separable product of 1-d interpolations. */
#include <math.h>

#include "rt/kernels/kernels.h"

/* The input coordinate of output coordinate o on one axis. `in_f` is the
 * float output length scale * in (the reference uses it, not the integer
 * output length, in align_corners, tf_crop_and_resize, pytorch_half_pixel). */
static double source_coord(const pz_resize_params *p, int axis, double scale, int64_t in,
                           int64_t out, double out_f, int64_t o)
{
    double x = (double)o;
    switch (p->coord) {
    case PZ_CT_ALIGN_CORNERS:
        return out_f == 1 ? 0 : x * (double)(in - 1) / (out_f - 1);
    case PZ_CT_ASYMMETRIC:
        return x / scale;
    case PZ_CT_TF_CROP_AND_RESIZE: {
        double s = p->roi_start[axis], e = p->roi_end[axis];
        if (out_f == 1) return (e - s) * (double)(in - 1) / 2 + s * (double)(in - 1);
        return x * (e - s) * (double)(in - 1) / (out_f - 1) + s * (double)(in - 1);
    }
    case PZ_CT_PYTORCH_HALF_PIXEL:
        return out_f == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case PZ_CT_HALF_PIXEL_SYMMETRIC: {
        double adjustment = (double)out / out_f, center = (double)in / 2;
        return center * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    case PZ_CT_HALF_PIXEL:
    default:
        return (x + 0.5) / scale - 0.5;
    }
}

/* The 2 or 4 coefficients of a fractional position `ratio` in (0, 1]. */
static int coeffs(const pz_resize_params *p, double ratio, bool integral, double *c)
{
    switch (p->mode) {
    case PZ_RESIZE_NEAREST: {
        bool ceil_side;
        switch (p->nearest) {
        case PZ_NEAREST_ROUND_PREFER_CEIL: ceil_side = ratio >= 0.5; break;
        case PZ_NEAREST_FLOOR: ceil_side = false; break;
        case PZ_NEAREST_CEIL: ceil_side = true; break;
        default: ceil_side = ratio > 0.5; break;
        }
        if (integral) ceil_side = true;
        c[0] = ceil_side ? 0 : 1;
        c[1] = ceil_side ? 1 : 0;
        return 2;
    }
    case PZ_RESIZE_LINEAR:
        c[0] = 1 - ratio;
        c[1] = ratio;
        return 2;
    case PZ_RESIZE_CUBIC:
    default: {
        double A = p->cubic_coeff_a, r = ratio, q = 1 - ratio;
        c[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
        c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
        c[2] = ((A + 2) * q - (A + 3)) * q * q + 1;
        c[3] = ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A;
        return 4;
    }
    }
}

void pz_resize_taps(const pz_resize_params *p, int axis, int64_t in, int64_t out,
                    pz_resize_tap *taps)
{
    /* The scale: when it is out/in (sizes given) use that ratio in double,
     * so that exact ties of nearest rounding stay exact. */
    double scale = p->scale[axis], exact = (double)out / (double)in;
    if (fabs(scale - exact) <= 1e-6 * exact) scale = exact;
    double out_f = scale * (double)in;
    if (fabs(out_f - (double)out) <= 1e-9 * (double)out) out_f = (double)out;

    for (int64_t o = 0; o < out; o++) {
        pz_resize_tap *t = &taps[o];
        double x = source_coord(p, axis, scale, in, out, out_f, o);
        memset(t, 0, sizeof *t);
        if (p->coord == PZ_CT_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(in - 1))) {
            t->outside = 1;
            continue;
        }
        /* The reference takes the n input positions nearest to x (ties to
         * the lower), from the input edge-padded by n/2: with x integral
         * that window is [x - n/2, x + n/2) and the ratio is 1; otherwise
         * [floor(x) - n/2 + 1, ...) with ratio x - floor(x). */
        double fl = floor(x);
        bool integral = fl == x;
        double ratio = integral ? 1 : x - fl;
        double c[4];
        int n = coeffs(p, ratio, integral, c);
        int64_t first = (int64_t)fl - (integral ? n / 2 : n / 2 - 1);
        int64_t pad = n / 2;
        if (first < -pad) first = -pad;   /* the window stays inside the padded input */
        if (first > in + pad - n) first = in + pad - n;
        double sum = 0;
        for (int j = 0; j < n; j++) {
            int64_t i = first + j;
            if (p->exclude_outside && (i < 0 || i >= in)) c[j] = 0;
            sum += c[j];
        }
        for (int j = 0; j < n; j++) {
            if (c[j] == 0) continue;   /* keep only the taps that count */
            int64_t i = first + j;
            t->idx[t->n] = i < 0 ? 0 : i >= in ? in - 1 : i;
            t->w[t->n] = p->exclude_outside ? c[j] / sum : c[j];
            t->n++;
        }
    }
}

void pz_any_resize__ref(const pz_resize_params *p, int dtype, int rank, const int64_t *xd,
                        const int64_t *yd, const pz_resize_tap *const *taps, const void *x,
                        void *y, int ith, int nth)
{
    int64_t xs[PZ_MAX_RANK], s = 1;
    for (int i = rank - 1; i >= 0; i--) { xs[i] = s; s *= xd[i]; }

    /* one unit of work = one output element */
    int64_t lo, hi;
    pz_split(pz_prod(yd, rank), ith, nth, &lo, &hi);
    for (int64_t o = lo; o < hi; o++) {
        const pz_resize_tap *t[PZ_MAX_RANK];
        int64_t rest = o;
        bool outside = false;
        for (int i = rank - 1; i >= 0; i--) {
            t[i] = &taps[i][rest % yd[i]];
            rest /= yd[i];
            outside |= t[i]->outside != 0 || t[i]->n == 0;
        }
        if (outside) {   /* out of the crop (or, degenerate, no tap counts) */
            pz_st(y, dtype, o, p->extrapolation_value);
            continue;
        }
        /* sum over the product of the axes' taps (an odometer over j[]) */
        int j[PZ_MAX_RANK] = {0};
        double sum = 0;
        for (;;) {
            double w = 1;
            int64_t off = 0;
            for (int i = 0; i < rank; i++) {
                w *= t[i]->w[j[i]];
                off += t[i]->idx[j[i]] * xs[i];
            }
            sum += w * pz_ld(x, dtype, off);
            int i = rank - 1;
            while (i >= 0 && ++j[i] == t[i]->n) j[i--] = 0;
            if (i < 0) break;
        }
        pz_st(y, dtype, o, sum);
    }
}
