/* signal.h - the Gaussian model of activations behind the zoo's weight
 * scaling (internal to src/zoo; see builder.c for how it is used). */
#ifndef PZ_ZOO_SIGNAL_H
#define PZ_ZOO_SIGNAL_H

#include <stdint.h>

/* Mean and variance of relu(z), z ~ N(mu, var). */
void zoo_relu_moments(double mu, double var, double *m_out, double *v_out);

/* Mean and variance of relu(r + g): r a ReLU output of mean mr and variance
 * vr, g ~ N(mg, vg) independent of it (ResNet's relu(branch + shortcut)). */
void zoo_relu_of_sum(double mr, double vr, double mg, double vg, double *m_out, double *v_out);

/* Mean and variance of the largest of n independent N(0, 1). */
void zoo_max_moments(int n, double *m_out, double *v_out);

/* valid[y * k + t] = 1 where output row y of a k-tap window (stride s,
 * padding p) reads input row y*s - p + t inside an input of n rows; o rows
 * out. The caller frees the result. */
unsigned char *zoo_tap_mask(int64_t n, int64_t o, int k, int s, int p);

/* Mean over the h x w output positions, and its variance over them (the
 * spread), of a conv output channel whose mean at (y, x) is the sum of
 * a[ty * k + tx] over the taps inside the input (masks vy, vx).
 * row is scratch of k * w doubles. */
void zoo_conv_mean_map(const double *a, int k, const unsigned char *vy, int64_t h,
                       const unsigned char *vx, int64_t w, double *row, double *mean,
                       double *spread);

#endif
