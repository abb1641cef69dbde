/* qgemm_plan.c - the int8 GEMM's plan (packing B, folding A's zero point into
 * the bias) and the choice of kernel (qgemm.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt/kernels/quant/qconv16c_impl.h"   /* pz_qconv16c_requant's rule */
#include "rt/kernels/quant/qgemm_impl.h"

int pz_qgemm_plan_vnni(const pz_qgemm_plan *p)
{
    return p->kern == PZ_Q8_VNNI;
}

pz_q8_kernel pz_qgemm_plan_kernel(const pz_qgemm_plan *p)
{
    return p->kern;
}

void pz_qgemm_plan_free(pz_qgemm_plan *p)
{
    if (!p) return;
    free(p->b), free(p->b16), free(p->bias), free(p->mult), free(p->flo), free(p->fhi);
    free(p);
}

#define FAIL(...) do { snprintf(err, errsize, __VA_ARGS__); goto fail; } while (0)

pz_qgemm_plan *pz_qgemm_plan_new(const pz_qgemm_desc *d, pz_isa isa, const int8_t *b,
                                 int trans_b, const int32_t *bias, float a_scale,
                                 const float *b_scale, float y_scale, char *err, size_t errsize)
{
    if (errsize) err[0] = 0;
    pz_qgemm_plan *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errsize, "qgemm: out of memory");
        return NULL;
    }
    const int64_t M = d->m, N = d->n, K = d->k;
    if (M < 1 || N < 1 || K < 1) FAIL("qgemm: sizes must be >= 1");
    if (d->b_zp != 0) FAIL("qgemm: B zero point %d: only symmetric weights (0)", (int)d->b_zp);
    const int32_t amin = d->a_signed ? -128 : 0, ymin = d->y_signed ? -128 : 0;
    if (d->a_zp < amin || d->a_zp > amin + 255) FAIL("qgemm: A zero point outside A's type");
    if (d->out_f32 && d->out_i32) FAIL("qgemm: out_f32 and out_i32 both set");
    const int bytes_out = !d->out_f32 && !d->out_i32;
    if (bytes_out && (d->y_zp < ymin || d->y_zp > ymin + 255 || d->lo < ymin ||
                        d->hi > ymin + 255 || d->lo > d->hi))
        FAIL("qgemm: y zero point or clamp outside y's type");
    p->d = *d;
    p->np = (N + 15) / 16;
    p->k4 = (K + 3) / 4;
    p->aflip = d->a_signed ? 0x80808080u : 0;
    const int32_t azp = d->a_signed ? d->a_zp + 128 : d->a_zp;
    p->b = calloc((size_t)(p->np * p->k4 * 64), 1);
    p->bias = calloc((size_t)p->np * 16, sizeof(int32_t));
    p->mult = calloc((size_t)p->np * 16, sizeof(float));
    p->flo = calloc((size_t)p->np * 16, sizeof(float));
    p->fhi = calloc((size_t)p->np * 16, sizeof(float));
    if (!p->b || !p->bias || !p->mult || !p->flo || !p->fhi) FAIL("qgemm: out of memory");
    for (int64_t n = 0; n < N; n++) {
        int64_t s = 0;
        for (int64_t k = 0; k < K; k++) {
            int8_t v = trans_b ? b[n * K + k] : b[k * N + n];
            p->b[((n / 16) * p->k4 + k / 4) * 64 + (n % 16) * 4 + k % 4] = v;
            s += v;
        }
        int64_t v = (bias ? bias[n] : 0) - (int64_t)azp * s;
        /* every partial sum stays in int32 (vpdpbusd wraps) */
        if ((v < 0 ? -v : v) + 255 * 128 * K > INT32_MAX)
            FAIL("qgemm: the int32 sums may overflow (K %lld)", (long long)K);
        p->bias[n] = (int32_t)v;
        /* int32 out: no scales (b_scale may be NULL) */
        const float s1 = d->out_i32 ? 1.0f : a_scale * b_scale[n];
        const float mu = d->out_i32 || d->out_f32 ? s1 : s1 / y_scale;
        if (!isfinite(mu)) FAIL("qgemm: column %lld: multiplier %g is not finite", (long long)n,
                                (double)mu);
        p->mult[n] = mu;
        p->flo[n] = !bytes_out ? 0.0f : (float)(d->lo - d->y_zp);
        p->fhi[n] = !bytes_out ? 0.0f : (float)(d->hi - d->y_zp);
    }
    p->kern = pz_q8_kernel_for(isa, d->novnni);
    if (p->kern == PZ_Q8_AVX2) {
        /* B's int16 copy: byte e of a dword goes to pair (e & 1), element (e >> 1) */
        const int64_t nb = p->np * p->k4 * 64;
        p->b16 = malloc((size_t)nb * sizeof(int16_t));
        if (!p->b16) FAIL("qgemm: out of memory");
        for (int64_t i = 0; i < nb; i++) {
            const int64_t blk = i / 64, col = i % 64 / 4, e = i % 4;
            p->b16[blk * 64 + ((e & 1) * 16 + col) * 2 + (e >> 1)] = p->b[i];
        }
    }
    return p;
fail:
    pz_qgemm_plan_free(p);
    return NULL;
}

/* Units [lo, hi) of an m-row product on the plan's kernel. */
static void units(const pz_qgemm_plan *p, const void *a, int64_t lda, void *y, int64_t ldy,
                  int64_t m, int64_t lo, int64_t hi)
{
#ifndef PZ_SCALAR
    if (p->kern == PZ_Q8_VNNI) {
        pz_qgemm_units__avx512vnni(p, a, lda, y, ldy, m, lo, hi);
        return;
    }
    if (p->kern == PZ_Q8_AVXVNNI) {
        pz_qgemm_units__avxvnni(p, a, lda, y, ldy, m, lo, hi);
        return;
    }
    if (p->kern == PZ_Q8_AVX2) {
        pz_qgemm_units__avx2(p, a, lda, y, ldy, m, lo, hi);
        return;
    }
#endif
    pz_qgemm_units__scalar(p, a, lda, y, ldy, m, lo, hi);
}

void pz_qgemm_run(const pz_qgemm_plan *p, const void *a, int64_t lda, void *y, int64_t ldy,
                  int ith, int nth)
{
    const int64_t nrb = (p->d.m + PZ_QGEMM_RW - 1) / PZ_QGEMM_RW;
    const int64_t npg = (p->np + PZ_QGEMM_RM - 1) / PZ_QGEMM_RM;
    int64_t lo, hi;
    pz_split(nrb * npg, ith, nth, &lo, &hi);
    if (lo < hi) units(p, a, lda, y, ldy, p->d.m, lo, hi);
}

int64_t pz_qgemm_panel_groups(const pz_qgemm_plan *p)
{
    return (p->np + PZ_QGEMM_RM - 1) / PZ_QGEMM_RM;
}

void pz_qgemm_run_block(const pz_qgemm_plan *p, const void *a, int64_t lda, void *y, int64_t ldy,
                        int64_t m, int64_t pg0, int64_t pg1)
{
    const int64_t nrb = (m + PZ_QGEMM_RW - 1) / PZ_QGEMM_RW;
    if (m > 0 && pg0 < pg1) units(p, a, lda, y, ldy, m, pg0 * nrb, pg1 * nrb);
}
