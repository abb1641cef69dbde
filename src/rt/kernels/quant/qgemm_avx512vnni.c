/* qgemm_avx512vnni.c - the int8 GEMM's AVX512-VNNI kernel (qgemm.h): tiles
 * of up to PZ_QGEMM_RW rows x PZ_QGEMM_RM panels of 16 columns in int32 ZMM
 * accumulators; each step broadcasts a dword (4 k) of each row of A against
 * the panels' 64-byte vectors of packed B (vpdpbusd). A tail of K % 4 is
 * read byte by byte (never past a row), the last panel's columns past N
 * stored under a mask. The epilogue is qconv16c's (qconv16c.h). */
#include "rt/kernels/quant/qgemm_impl.h"

#ifndef PZ_SCALAR
#include <immintrin.h>
#include <string.h>

#define UNROLL _Pragma("GCC unroll 32")

typedef struct {
    const uint8_t *a;        /* the tile's first row */
    int64_t lda;
    const int8_t *b;         /* the tile's first panel */
    int64_t bs;              /* bytes between panels */
    int64_t k4;              /* whole dwords of K */
    int kt;                  /* K % 4 */
    const int32_t *bias;
    const float *mult, *flo, *fhi;
    void *y;                 /* the tile's first row and column */
    int64_t ldy;
    int32_t yzp;
    uint32_t flip;
    int out_f32, out_i32;
    __mmask16 last;          /* columns of the last panel */
} tile_args;

/* see qconv16c_avx512vnni.c: in place, or gcc copies and spills */
PZ_ALWAYS_INLINE void dpbusd(__m512i *acc, __m512i x, __m512i w)
{
#if defined(__GNUC__) && defined(__OPTIMIZE__)
    __asm__("vpdpbusd %2, %1, %0" : "+v"(*acc) : "v"(x), "v"(w));
#else
    *acc = _mm512_dpbusd_epi32(*acc, x, w);
#endif
}

PZ_ALWAYS_INLINE void tile(const tile_args *t, const int RW, const int RM)
{
    const int64_t lda = t->lda, bs = t->bs;
    const __m512i flip = _mm512_set1_epi32((int)t->flip);
    __m512i acc[PZ_QGEMM_RW][PZ_QGEMM_RM];
    UNROLL for (int r = 0; r < RM; r++) {
        const __m512i bv = _mm512_loadu_si512((const void *)(t->bias + 16 * r));
        UNROLL for (int j = 0; j < RW; j++) acc[j][r] = bv;
    }
    const uint8_t *ap = t->a;
    const int8_t *bp = t->b;
    for (int64_t q = 0; q < t->k4; q++) {
        __m512i wv[PZ_QGEMM_RM];
        UNROLL for (int r = 0; r < RM; r++)
            wv[r] = _mm512_loadu_si512((const void *)(bp + r * bs));
        UNROLL for (int j = 0; j < RW; j++) {
            int32_t v;
            memcpy(&v, ap + j * lda, 4);
            const __m512i xb = _mm512_xor_si512(_mm512_set1_epi32(v), flip);
            UNROLL for (int r = 0; r < RM; r++) dpbusd(&acc[j][r], xb, wv[r]);
        }
        ap += 4;
        bp += 64;
    }
    if (t->kt) {
        /* the last 1-3 k, zero bytes after them (B is zero there) */
        __m512i wv[PZ_QGEMM_RM];
        UNROLL for (int r = 0; r < RM; r++)
            wv[r] = _mm512_loadu_si512((const void *)(bp + r * bs));
        UNROLL for (int j = 0; j < RW; j++) {
            /* byte by byte: a memcpy of kt bytes went through the stack
             * and took the accumulators with it */
            const uint8_t *ar = ap + j * lda;
            uint32_t u = ar[0];
            if (t->kt > 1) u |= (uint32_t)ar[1] << 8;
            if (t->kt > 2) u |= (uint32_t)ar[2] << 16;
            const int32_t v = (int32_t)u;
            const __m512i xb = _mm512_xor_si512(_mm512_set1_epi32(v), flip);
            UNROLL for (int r = 0; r < RM; r++) dpbusd(&acc[j][r], xb, wv[r]);
        }
    }
    const __m512i yzp = _mm512_set1_epi32(t->yzp);
    UNROLL for (int r = 0; r < RM; r++) {
        const __mmask16 mk = r == RM - 1 ? t->last : (__mmask16)0xffff;
        if (t->out_i32) {
            UNROLL for (int j = 0; j < RW; j++)
                _mm512_mask_storeu_epi32((int32_t *)t->y + j * t->ldy + 16 * r, mk, acc[j][r]);
            continue;
        }
        const __m512 mv = _mm512_loadu_ps(t->mult + 16 * r);
        if (t->out_f32) {
            UNROLL for (int j = 0; j < RW; j++)
                _mm512_mask_storeu_ps((float *)t->y + j * t->ldy + 16 * r, mk,
                                      _mm512_mul_ps(_mm512_cvtepi32_ps(acc[j][r]), mv));
            continue;
        }
        const __m512 lo = _mm512_loadu_ps(t->flo + 16 * r), hi = _mm512_loadu_ps(t->fhi + 16 * r);
        UNROLL for (int j = 0; j < RW; j++) {
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[j][r]), mv);
            f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
            const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), yzp);
            _mm_mask_storeu_epi8((uint8_t *)t->y + j * t->ldy + 16 * r, mk,
                                 _mm512_cvtepi32_epi8(q));
        }
    }
}

#define TK(RW, RM) \
    static void tk_##RW##_##RM(const tile_args *t) { tile(t, RW, RM); }
#define TK_RM(RW) TK(RW, 1) TK(RW, 2) TK(RW, 3) TK(RW, 4)
TK_RM(1) TK_RM(2) TK_RM(3) TK_RM(4) TK_RM(5) TK_RM(6)
#define ROW(RW) {NULL, tk_##RW##_1, tk_##RW##_2, tk_##RW##_3, tk_##RW##_4}
static void (*const TABLE[PZ_QGEMM_RW + 1][PZ_QGEMM_RM + 1])(const tile_args *) = {
    {NULL}, ROW(1), ROW(2), ROW(3), ROW(4), ROW(5), ROW(6),
};

void pz_qgemm_units__avx512vnni(const pz_qgemm_plan *p, const uint8_t *a, int64_t lda, void *y,
                                int64_t ldy, int64_t m, int64_t lo, int64_t hi)
{
    const pz_qgemm_desc *d = &p->d;
    const int64_t M = m, N = d->n;
    const int64_t nrb = (M + PZ_QGEMM_RW - 1) / PZ_QGEMM_RW;
    const size_t ysz = d->out_f32 || d->out_i32 ? sizeof(float) : 1;
    tile_args t;
    t.lda = lda;
    t.bs = p->k4 * 64;
    t.k4 = d->k / 4;
    t.kt = (int)(d->k % 4);
    t.ldy = ldy;
    t.yzp = d->y_zp;
    t.flip = p->aflip;
    t.out_f32 = d->out_f32;
    t.out_i32 = d->out_i32;
    /* units panel group by panel group, its row blocks in turn (B's panels
     * stay in cache over the rows) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t pg = u / nrb, rb = u % nrb;
        const int64_t i0 = rb * PZ_QGEMM_RW, p0 = pg * PZ_QGEMM_RM;
        const int rw = (int)(M - i0 < PZ_QGEMM_RW ? M - i0 : PZ_QGEMM_RW);
        const int rm = (int)(p->np - p0 < PZ_QGEMM_RM ? p->np - p0 : PZ_QGEMM_RM);
        const int64_t n0 = p0 * 16, nlast = N - (p0 + rm - 1) * 16;   /* columns of the last */
        t.a = a + i0 * lda;
        t.b = p->b + p0 * t.bs;
        t.bias = p->bias + n0;
        t.mult = p->mult + n0;
        t.flo = p->flo + n0;
        t.fhi = p->fhi + n0;
        t.y = (char *)y + (size_t)(i0 * ldy + n0) * ysz;
        t.last = (__mmask16)(nlast >= 16 ? 0xffff : (1u << nlast) - 1);
        TABLE[rw][rm](&t);
    }
}
#endif
