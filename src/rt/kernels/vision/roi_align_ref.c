/* roi_align_ref.c - reference RoiAlign: each output bin of a region of
 * interest averages (or takes the max of) grid_h x grid_w bilinear samples
 * of the feature map, as ONNX's reference and ONNX Runtime compute them
 * (samples beyond one pixel outside read 0; max mode takes the largest
 * weighted corner). Any float type through double. */
#include "rt/kernels/kernels.h"

/* The 4 corners and weights of the bilinear sample at (y, x); all weights 0
 * when it is more than one pixel outside. */
static void ra_corners(double y, double x, int64_t H, int64_t W, int64_t *pos, double *w)
{
    if (!(y >= -1.0 && y <= (double)H && x >= -1.0 && x <= (double)W)) {   /* NaN too */
        for (int i = 0; i < 4; i++) pos[i] = 0, w[i] = 0;
        return;
    }
    if (y <= 0) y = 0;
    if (x <= 0) x = 0;
    int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
    if (yl >= H - 1) yh = yl = H - 1, y = (double)yl;
    else yh = yl + 1;
    if (xl >= W - 1) xh = xl = W - 1, x = (double)xl;
    else xh = xl + 1;
    double ly = y - (double)yl, lx = x - (double)xl, hy = 1 - ly, hx = 1 - lx;
    pos[0] = yl * W + xl, pos[1] = yl * W + xh, pos[2] = yh * W + xl, pos[3] = yh * W + xh;
    w[0] = hy * hx, w[1] = hy * lx, w[2] = ly * hx, w[3] = ly * lx;
}

/* The adaptive sampling grid, ceil(extent / bins): 0 for a NaN extent (no
 * samples: the bin is 0), and at most twice the feature map's side, so that
 * a ROI given as inf or 1e30 costs bounded time rather than undefined
 * behaviour (only a bin more than twice the map's size samples less). */
static int64_t ra_grid(double v, int64_t side)
{
    double cap = 2.0 * (double)(side > 1 ? side : 1);
    if (!(v > -cap)) return 0;   /* NaN, or far below */
    if (v > cap) return (int64_t)cap;
    return (int64_t)ceil(v);
}

void pz_any_roi_align__ref(const pz_roi_align_params *p, int dt, const int64_t *xd,
                           int64_t nroi, const void *x, const void *rois, const int64_t *bidx,
                           void *y, int ith, int nth)
{
    int64_t C = xd[1], H = xd[2], W = xd[3], oh = p->output_height, ow = p->output_width;
    double off = p->half_pixel ? 0.5 : 0.0;
    int64_t lo, hi;
    pz_split(nroi * C, ith, nth, &lo, &hi);
    for (int64_t rc = lo; rc < hi; rc++) {
        int64_t r = rc / C, c = rc % C, b = bidx[r];
        double x0 = pz_ld(rois, dt, r * 4) * p->spatial_scale - off;
        double y0 = pz_ld(rois, dt, r * 4 + 1) * p->spatial_scale - off;
        double x1 = pz_ld(rois, dt, r * 4 + 2) * p->spatial_scale - off;
        double y1 = pz_ld(rois, dt, r * 4 + 3) * p->spatial_scale - off;
        double rw = x1 - x0, rh = y1 - y0;
        if (!p->half_pixel) {   /* output_half_pixel: at least one pixel */
            rw = rw > 1 ? rw : 1;
            rh = rh > 1 ? rh : 1;
        }
        double bh = rh / (double)oh, bw = rw / (double)ow;
        int64_t gh = p->sampling_ratio > 0 ? p->sampling_ratio : ra_grid(rh / (double)oh, H);
        int64_t gw = p->sampling_ratio > 0 ? p->sampling_ratio : ra_grid(rw / (double)ow, W);
        double count = gh * gw > 1 ? (double)(gh * gw) : 1.0;
        bool valid = b >= 0 && b < xd[0];   /* a bad batch index: NaN, not a stray read */
        int64_t xo = (b * C + c) * H * W;
        for (int64_t ph = 0; ph < oh; ph++)
            for (int64_t pw = 0; pw < ow; pw++) {
                double acc = 0;
                bool first = true;
                for (int64_t iy = 0; iy < gh && valid; iy++)
                    for (int64_t ix = 0; ix < gw; ix++) {
                        double yy = y0 + (double)ph * bh + ((double)iy + 0.5) * bh / (double)gh;
                        double xx = x0 + (double)pw * bw + ((double)ix + 0.5) * bw / (double)gw;
                        int64_t pos[4];
                        double w[4];
                        ra_corners(yy, xx, H, W, pos, w);
                        if (p->mode_max) {
                            double v = w[0] * pz_ld(x, dt, xo + pos[0]);
                            for (int k = 1; k < 4; k++) {
                                double t = w[k] * pz_ld(x, dt, xo + pos[k]);
                                v = t > v ? t : v;
                            }
                            acc = first || v > acc ? v : acc;
                            first = false;
                        } else {
                            for (int k = 0; k < 4; k++) acc += w[k] * pz_ld(x, dt, xo + pos[k]);
                        }
                    }
                if (!p->mode_max) acc /= count;
                pz_st(y, dt, ((r * C + c) * oh + ph) * ow + pw, valid ? acc : NAN);
            }
    }
}
