/* pca.c - principal component analysis for `characterize` (DLFusion II.B
 * ranks the layer features that drive performance by PCA), and the least
 * squares fit of the MP model. Small dense matrices only (d <= 16). */
#include <math.h>
#include <string.h>

#include "lab.h"

/* Cyclic Jacobi: rotate away each off-diagonal a[p][q] in turn until the
 * off-diagonal mass is negligible; v accumulates the rotations. */
void lab_jacobi_eigen(double *a, int d, double *w, double *v)
{
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) v[i * d + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                if (i != j) off += a[i * d + j] * a[i * d + j];
                else diag += a[i * d + i] * a[i * d + i];
            }
        if (off <= 1e-24 * (diag > 0 ? diag : 1)) break;
        for (int p = 0; p < d; p++)
            for (int q = p + 1; q < d; q++) {
                double apq = a[p * d + q];
                if (fabs(apq) < 1e-300) continue;
                /* the angle that zeroes a[p][q]: tan(2 theta) = 2 apq / (aqq - app) */
                double theta = (a[q * d + q] - a[p * d + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < d; k++) {   /* columns p and q: A <- A J */
                    double akp = a[k * d + p], akq = a[k * d + q];
                    a[k * d + p] = c * akp - s * akq;
                    a[k * d + q] = s * akp + c * akq;
                }
                for (int k = 0; k < d; k++) {   /* rows p and q: A <- J^T A */
                    double apk = a[p * d + k], aqk = a[q * d + k];
                    a[p * d + k] = c * apk - s * aqk;
                    a[q * d + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < d; k++) {   /* V <- V J */
                    double vkp = v[k * d + p], vkq = v[k * d + q];
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < d; i++) w[i] = a[i * d + i];
    /* sort descending, columns of v along */
    for (int i = 0; i < d; i++) {
        int best = i;
        for (int j = i + 1; j < d; j++)
            if (w[j] > w[best]) best = j;
        if (best == i) continue;
        double t = w[i]; w[i] = w[best]; w[best] = t;
        for (int k = 0; k < d; k++) {
            t = v[k * d + i]; v[k * d + i] = v[k * d + best]; v[k * d + best] = t;
        }
    }
}

int lab_pca(const double *x, int n, int d, double *w, double *v)
{
    if (n < 2 || d < 1) return -1;
    double *mean = pz_xcalloc((size_t)d, sizeof(double)), *sd = pz_xcalloc((size_t)d, sizeof(double));
    double *c = pz_xcalloc((size_t)d * d, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) mean[j] += x[i * d + j] / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) sd[j] += (x[i * d + j] - mean[j]) * (x[i * d + j] - mean[j]) / (n - 1);
    for (int j = 0; j < d; j++) sd[j] = sd[j] > 0 ? sqrt(sd[j]) : 1;   /* a constant feature stays 0 */
    /* covariance of the standardized features = correlation matrix */
    for (int i = 0; i < n; i++)
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++)
                c[a * d + b] += (x[i * d + a] - mean[a]) / sd[a] * (x[i * d + b] - mean[b]) / sd[b] / (n - 1);
    lab_jacobi_eigen(c, d, w, v);
    free(mean);
    free(sd);
    free(c);
    return 0;
}

/* Normal equations (X^T X + ridge I) b = X^T y, solved by Gaussian
 * elimination with partial pivoting. */
int lab_lstsq(const double *x, const double *y, int n, int d, double *b)
{
    if (d > 16 || n < 1) return -1;
    double a[16][17];
    for (int i = 0; i < d; i++) {
        for (int j = 0; j <= d; j++) a[i][j] = 0;
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < d; j++) a[i][j] += x[k * d + i] * x[k * d + j];
            a[i][d] += x[k * d + i] * y[k];
        }
        a[i][i] += 1e-9 * (a[i][i] + 1);   /* ridge: a feature with no variance gets 0 */
    }
    for (int col = 0; col < d; col++) {
        int piv = col;
        for (int r = col + 1; r < d; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col])) piv = r;
        if (fabs(a[piv][col]) < 1e-300) return -1;
        for (int j = 0; j <= d; j++) {
            double t = a[col][j]; a[col][j] = a[piv][j]; a[piv][j] = t;
        }
        for (int r = 0; r < d; r++) {
            if (r == col) continue;
            double f = a[r][col] / a[col][col];
            for (int j = col; j <= d; j++) a[r][j] -= f * a[col][j];
        }
    }
    for (int i = 0; i < d; i++) b[i] = a[i][d] / a[i][i];
    return 0;
}
