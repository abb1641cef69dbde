/* block_rows.c - channel rows to and from a block of k lanes, 16 pixels
 * at a time (see block_rows.h). */
#include <string.h>

#include "rt/kernels/layout/block_rows.h"

void pz_f32_rows_to_block(const float *restrict src, int64_t cstride, int64_t nch, int64_t np,
                          int k, float *restrict dst)
{
    for (int64_t q0 = 0; q0 < np; q0 += 16) {
        const int64_t q1 = q0 + 16 < np ? q0 + 16 : np;
        float *d = dst + q0 * k;
        for (int64_t l = 0; l < nch; l++) {
            const float *s = src + l * cstride;
            for (int64_t q = q0; q < q1; q++) d[(q - q0) * k + l] = s[q];
        }
        for (int64_t q = q0; q < q1 && nch < k; q++)
            memset(d + (q - q0) * k + nch, 0, (size_t)(k - nch) * sizeof(float));
    }
}

void pz_f32_block_to_rows(const float *restrict src, int k, int64_t nch, int64_t np,
                          float *restrict dst, int64_t cstride)
{
    for (int64_t q0 = 0; q0 < np; q0 += 16) {
        const int64_t q1 = q0 + 16 < np ? q0 + 16 : np;
        const float *s = src + q0 * k;
        for (int64_t l = 0; l < nch; l++) {
            float *d = dst + l * cstride;
            for (int64_t q = q0; q < q1; q++) d[q] = s[(q - q0) * k + l];
        }
    }
}
