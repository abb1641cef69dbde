/* qgemm_scalar.c - the scalar twin of the int8 GEMM (qgemm.h): the same
 * plan and packed B as the VNNI kernel, plain loops over the same work
 * units (tiles of PZ_QGEMM_RW rows x PZ_QGEMM_RM panels). */
#include <string.h>

#include "rt/kernels/quant/qconv16c_impl.h"   /* pz_qconv16c_requant */
#include "rt/kernels/quant/qgemm_impl.h"

void pz_qgemm_units__scalar(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                            int64_t ldy, int64_t m, int64_t lo, int64_t hi)
{
    const pz_qgemm_desc *d = &p->d;
    const int64_t M = m, N = d->n, K = d->k;
    const int64_t nrb = (M + PZ_QGEMM_RW - 1) / PZ_QGEMM_RW;
    const uint8_t flip = (uint8_t)p->aflip;
    for (int64_t u = lo; u < hi; u++) {
        const int64_t pg = u / nrb, rb = u % nrb;
        for (int64_t i = rb * PZ_QGEMM_RW; i < M && i < (rb + 1) * PZ_QGEMM_RW; i++)
            for (int64_t n = pg * PZ_QGEMM_RM * 16; n < N && n < (pg + 1) * PZ_QGEMM_RM * 16;
                 n++) {
                int32_t acc = p->bias[n];
                const int8_t *bp = p->b + (n / 16) * p->k4 * 64 + (n % 16) * 4;
                for (int64_t k = 0; k < K; k++)
                    acc += (int32_t)(uint8_t)(a[i * lda + k] ^ flip) * bp[(k / 4) * 64 + k % 4];
                if (d->out_i32)
                    ((int32_t *)y)[i * ldy + n] = acc;
                else if (d->out_f32)
                    ((float *)y)[i * ldy + n] = (float)acc * p->mult[n];
                else
                    ((uint8_t *)y)[i * ldy + n] =
                        pz_qconv16c_requant(acc, p->mult[n], p->flo[n], p->fhi[n], d->y_zp);
            }
    }
}
