/* compare_avx512.c - COMPARE on float32 in ZMM registers: 16 lanes compared
 * by _mm512_cmp_ps_mask, the mask stored as 16 bools. Where both operands
 * are contiguous along a segment, or one is one value along it; any other
 * segment goes element by element. The ordered, quiet predicates give false
 * for NaN, as C's operators do, so the bits equal pz_f32_compare__ref's. */
#include <immintrin.h>

#include "rt/kernels/kernels.h"

typedef struct {
    pz_compare_func f;
    const float *a, *b;
    uint8_t *y;
    int64_t sa, sb;
} cmp_ctx;

PZ_ALWAYS_INLINE __mmask16 cmp16(pz_compare_func f, __m512 a, __m512 b)
{
    switch (f) {
    case PZ_CMP_EQ: return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ);
    case PZ_CMP_LT: return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
    case PZ_CMP_LE: return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
    case PZ_CMP_GT: return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
    default: return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ);
    }
}

/* y[i] = a[i] f b[i] over n, a (b) contiguous when its stride is 1 and one
 * value when 0: the vector loop for those, the scalar one for the rest. */
static void seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const cmp_ctx *c = vctx;
    const float *a = c->a + oa, *b = c->b + ob;
    uint8_t *y = c->y + oy;
    const int64_t sa = c->sa, sb = c->sb;
    const pz_compare_func f = c->f;
    int64_t i = 0;
    if (f <= PZ_CMP_GE && (sa | sb) <= 1) {
        const __m128i one = _mm_set1_epi8(1);
        for (; i < n; i += 16) {
            __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
            __m512 va = sa ? _mm512_maskz_loadu_ps(m, a + i) : _mm512_set1_ps(a[0]);
            __m512 vb = sb ? _mm512_maskz_loadu_ps(m, b + i) : _mm512_set1_ps(b[0]);
            _mm_mask_storeu_epi8(y + i, m, _mm_maskz_mov_epi8(cmp16(f, va, vb), one));
        }
        return;
    }
    for (; i < n; i++) y[i] = PZ_COMPARE(f, a[i * sa], b[i * sb]);
}

void pz_f32_compare__avx512(pz_compare_func f, const pz_bcast *bc, const float *a,
                            const float *b, uint8_t *y, int ith, int nth)
{
    cmp_ctx c = {f, a, b, y, bc->sa[bc->rank - 1], bc->sb[bc->rank - 1]};
    pz_bcast_walk(bc, ith, nth, seg, &c);
}
