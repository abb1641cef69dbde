/* det_ref.c - reference Det: Gaussian elimination with partial pivoting in
 * double on a copy of each matrix (scratch), the determinant the product of
 * the pivots with the sign of the row swaps. */
#include <math.h>

#include "rt/kernels/kernels.h"

void pz_any_det__ref(int dt, int64_t batch, int64_t n, const void *x, void *y, double *scratch,
                     int ith, int nth)
{
    double *a = n ? scratch + n * n * ith : NULL;   /* 0x0: no scratch, det 1 */
    int64_t lo, hi;
    pz_split(batch, ith, nth, &lo, &hi);
    for (int64_t bi = lo; bi < hi; bi++) {
        for (int64_t j = 0; j < n * n; j++) a[j] = pz_ld(x, dt, bi * n * n + j);
        double det = 1;
        for (int64_t c = 0; c < n && det != 0; c++) {
            int64_t piv = c;
            for (int64_t r = c + 1; r < n; r++)
                if (fabs(a[r * n + c]) > fabs(a[piv * n + c])) piv = r;
            if (a[piv * n + c] == 0) {
                det = 0;
                break;
            }
            if (piv != c) {
                for (int64_t j = 0; j < n; j++) {
                    double t = a[c * n + j];
                    a[c * n + j] = a[piv * n + j];
                    a[piv * n + j] = t;
                }
                det = -det;
            }
            det *= a[c * n + c];
            for (int64_t r = c + 1; r < n; r++) {
                double f = a[r * n + c] / a[c * n + c];
                for (int64_t j = c; j < n; j++) a[r * n + j] -= f * a[c * n + j];
            }
        }
        pz_st(y, dt, bi, det);
    }
}
