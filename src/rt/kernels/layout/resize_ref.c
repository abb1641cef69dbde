/* resize_ref.c - reference Resize: nearest (all rounding modes), n-linear,
 * cubic; every coordinate transformation mode; exclude_outside;
 * tf_crop_and_resize's extrapolation; antialias. Follows the ONNX reference
 * implementation (onnx/reference/ops/op_resize.py) axis by axis: the n-d
 * result is the separable product of 1-d interpolations.
 *
 * Antialias (linear and cubic, opset 18+): when downsampling by s < 1 the
 * filter is stretched by 1/s: the linear (triangle) and cubic kernels are
 * evaluated at (i - ratio) * s over 2/s resp. 4/s taps and the weights are
 * normalised to sum 1, so that each output averages the inputs it covers. */
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

/* The cubic convolution kernel of parameter A at distance x. */
static double cubic_at(double A, double x)
{
    x = fabs(x);
    if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
    if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    return 0;
}

/* Antialias: the first tap's offset from floor(x) (start <= 0) for scale s
 * (clamped to 1: upsampling is not filtered); the tap count is 2 - 2 * start. */
static int64_t antialias_start(const pz_resize_params *p, double s)
{
    if (s > 1) s = 1;
    double reach = p->mode == PZ_RESIZE_CUBIC ? 2 : 1;
    return (int64_t)floor(-reach / s) + 1;
}

static bool antialiased(const pz_resize_params *p)
{
    return p->antialias && p->mode != PZ_RESIZE_NEAREST;
}

/* The scale the taps use: when it is out/in (sizes given) that ratio in
 * double, so that exact ties of nearest rounding stay exact. */
static double axis_scale(const pz_resize_params *p, int axis, int64_t in, int64_t out)
{
    double scale = p->scale[axis], exact = (double)out / (double)in;
    if (fabs(scale - exact) <= 1e-6 * exact) scale = exact;
    return scale;
}

int pz_resize_width(const pz_resize_params *p, int axis, int64_t in, int64_t out)
{
    if (!antialiased(p)) return p->mode == PZ_RESIZE_CUBIC ? 4 : 2;
    return (int)(2 - 2 * antialias_start(p, axis_scale(p, axis, in, out)));
}

/* The antialiased coefficients of fractional position `ratio` in (0, 1]:
 * c[k] for tap start + k, normalised (the reference's
 * _linear_coeffs_antialias / _cubic_coeffs_antialias). */
static int coeffs_antialias(const pz_resize_params *p, double ratio, double s, double *c)
{
    if (s > 1) s = 1;
    int64_t start = antialias_start(p, s);
    int n = (int)(2 - 2 * start);
    double sum = 0;
    for (int k = 0; k < n; k++) {
        double arg = ((double)(start + k) - ratio) * s;
        c[k] = p->mode == PZ_RESIZE_CUBIC ? cubic_at(p->cubic_coeff_a, arg)
                                          : fmax(0.0, 1 - fabs(arg));
        sum += c[k];
    }
    for (int k = 0; k < n; k++) c[k] /= sum;
    return n;
}

void pz_resize_taps(const pz_resize_params *p, int axis, int64_t in, int64_t out,
                    pz_resize_tap *taps, int64_t *idx_pool, double *w_pool)
{
    double scale = axis_scale(p, axis, in, out);
    double out_f = scale * (double)in;
    if (fabs(out_f - (double)out) <= 1e-9 * (double)out) out_f = (double)out;
    int width = pz_resize_width(p, axis, in, out);

    for (int64_t o = 0; o < out; o++) {
        pz_resize_tap *t = &taps[o];
        double x = source_coord(p, axis, scale, in, out, out_f, o);
        memset(t, 0, sizeof *t);
        t->idx = idx_pool + o * width;
        t->w = w_pool + o * width;
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
        double *c = t->w;   /* the coefficients, compacted in place below */
        int n = antialiased(p) ? coeffs_antialias(p, ratio, scale, c)
                               : coeffs(p, ratio, integral, c);
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

/* (kernels.h) Then the plane loop below does the work. */
bool pz_resize_only_last_two(int rank, const int64_t *xd, const int64_t *yd,
                             const pz_resize_tap *const *taps)
{
    if (rank < 2) return false;
    for (int i = 0; i < rank - 2; i++) {
        if (xd[i] != yd[i]) return false;
        for (int64_t o = 0; o < yd[i]; o++) {
            const pz_resize_tap *t = &taps[i][o];
            if (t->outside || t->n != 1 || t->w[0] != 1.0 || t->idx[0] != o) return false;
        }
    }
    return true;
}

/* float32, only the last two axes resized (an image's H and W): the
 * general loop's arithmetic, term for term (its weight 1 * ... * wh * ww
 * is wh * ww exactly), without its odometer and per-element type switch;
 * work split by output rows. */
static void resize_f32_hw(const pz_resize_params *p, int rank, const int64_t *xd,
                          const int64_t *yd, const pz_resize_tap *const *taps, const float *x,
                          float *y, int ith, int nth)
{
    const int64_t ih = xd[rank - 2], iw = xd[rank - 1], oh = yd[rank - 2], ow = yd[rank - 1];
    const int64_t planes = pz_prod(yd, rank - 2);
    int64_t lo, hi;
    pz_split(planes * oh, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const float *xp = x + r / oh * ih * iw;
        float *yr = y + r * ow;
        const pz_resize_tap *th = &taps[rank - 2][r % oh];
        for (int64_t o = 0; o < ow; o++) {
            const pz_resize_tap *tw = &taps[rank - 1][o];
            if (th->outside || th->n == 0 || tw->outside || tw->n == 0) {
                yr[o] = (float)p->extrapolation_value;
                continue;
            }
            double sum = 0;
            for (int a = 0; a < th->n; a++) {
                const float *xr = xp + th->idx[a] * iw;
                for (int b = 0; b < tw->n; b++)
                    sum += th->w[a] * tw->w[b] * (double)xr[tw->idx[b]];
            }
            yr[o] = (float)sum;
        }
    }
}

void pz_any_resize__ref(const pz_resize_params *p, int dtype, int rank, const int64_t *xd,
                        const int64_t *yd, const pz_resize_tap *const *taps, const void *x,
                        void *y, int ith, int nth)
{
    if (dtype == PZ_F32 && pz_resize_only_last_two(rank, xd, yd, taps)) {
        resize_f32_hw(p, rank, xd, yd, taps, x, y, ith, nth);
        return;
    }
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
