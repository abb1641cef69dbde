/* mask_out.c - a layer's bool output from its float epilogue (mask_out.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/ops/mask_out.h"

#if defined(__SSE2__) && !defined(PZ_SCALAR)
#include <emmintrin.h>
#endif

int pz_mask_out_check(const pz_layer *l, const pz_act *a, int64_t nch, char *err, size_t n)
{
    const pz_tensor *y = pz_out(l, 0), *t = pz_in(l, 4);
    if (!y || y->dtype != PZ_BOOL) return 0;
    if (a->kind != PZ_ACT_SELECT || (a->sel & 3) || a->lo != 1.0f || a->hi != 1.0f)
        return -pz_layer_fail(l, err, n, "a bool Y needs act SELECT with both branches 1 y "
                              "(a fused comparison)");
    if (t && (t->dtype != PZ_F32 || !t->data || pz_numel(t) != nch))
        return -pz_layer_fail(l, err, n, "a bool Y's input 4 must be %lld constant float32 "
                              "thresholds", (long long)nch);
    return 1;
}

pz_mask_out *pz_mask_out_new(const pz_layer *l, const pz_act *a, int64_t nch, int64_t tile,
                             int64_t whole)
{
    const size_t sz = (sizeof(pz_mask_out) + 63) / 64 * 64;
    const pz_tensor *t = pz_in(l, 4);
    pz_mask_out *m = aligned_alloc(64, sz);
    if (!m) return NULL;
    memset(m, 0, sz);
    m->cmp = a->cmp;
    m->neg = (a->sel & 4) != 0;
    m->t = a->t;
    m->fast = l->isa != PZ_ISA_REF && l->isa != PZ_ISA_SCALAR;
    m->tile = tile > 0 ? (tile + 15) / 16 * 16 : 0;   /* tiles 64-byte aligned */
    const int nth = l->nth > 0 ? l->nth : 1;
    const int64_t floats = m->tile ? m->tile * nth : whole;
    const size_t bytes = ((size_t)(floats > 0 ? floats : 1) * sizeof(float) + 63) / 64 * 64;
    m->buf = aligned_alloc(64, bytes);
    if (t) m->tc = malloc((size_t)(nch > 0 ? nch : 1) * sizeof(float));
    if (!m->buf || (t && !m->tc)) {
        pz_mask_out_free(m);
        return NULL;
    }
    if (t) memcpy(m->tc, t->data, (size_t)nch * sizeof(float));
    return m;
}

void pz_mask_out_free(pz_mask_out *m)
{
    if (!m) return;
    free(m->buf);
    free(m->tc);
    free(m);
}

void pz_mask_share(int64_t rows, int64_t gran, int ith, int nth, int64_t *r0, int64_t *r1)
{
    int64_t units = (rows + gran - 1) / gran;
    *r0 = units * ith / nth * gran;
    *r1 = units * (ith + 1) / nth * gran;
    if (*r0 > rows) *r0 = rows;
    if (*r1 > rows) *r1 = rows;
}

/* count bytes y[k] = (f[k * fs] cmp t) ^ neg: COMPARE's comparisons (NaN
 * false), one loop per comparison so that each vectorizes. */
static void store_run(int cmp, int neg, float t, const float *restrict f, int64_t fs,
                      uint8_t *restrict y, int64_t count)
{
    const uint8_t x = (uint8_t)(neg != 0);
    switch (cmp) {
    case PZ_CMP_LT: for (int64_t k = 0; k < count; k++) y[k] = (uint8_t)(f[k * fs] < t) ^ x; break;
    case PZ_CMP_LE: for (int64_t k = 0; k < count; k++) y[k] = (uint8_t)(f[k * fs] <= t) ^ x; break;
    case PZ_CMP_GT: for (int64_t k = 0; k < count; k++) y[k] = (uint8_t)(f[k * fs] > t) ^ x; break;
    case PZ_CMP_GE: for (int64_t k = 0; k < count; k++) y[k] = (uint8_t)(f[k * fs] >= t) ^ x; break;
    default: for (int64_t k = 0; k < count; k++) y[k] = (uint8_t)(f[k * fs] == t) ^ x; break;
    }
}

void pz_mask_store_f32(const pz_mask_out *m, const float *restrict f, uint8_t *restrict y,
                       int64_t i0, int64_t count, int64_t inner, int64_t nch)
{
    if (!m->tc) {
        store_run(m->cmp, m->neg, m->t, f, 1, y, count);
        return;
    }
    /* runs of one channel: up to the next multiple of inner */
    for (int64_t k = 0; k < count;) {
        const int64_t i = i0 + k, run = inner - i % inner < count - k ? inner - i % inner : count - k;
        store_run(m->cmp, m->neg, m->tc[(i / inner) % nch], f + k, 1, y + k, run);
        k += run;
    }
}

#define MASK_CHUNK 64

/* len <= MASK_CHUNK pixels of one NCHW16c block (16 floats a pixel, lanes
 * lanes valid, thresholds t[lane]) into the planes y[lane * plane + p]:
 * the bytes pixel-major first (contiguous: it vectorizes), then each
 * lane's run out of that (L1). */
static void store_block(const pz_mask_out *m, const float *restrict f, const float *restrict t,
                        int64_t len, int lanes, uint8_t *restrict y, int64_t plane)
{
    uint8_t tmp[MASK_CHUNK][16];
    const uint8_t x = (uint8_t)(m->neg != 0);
    switch (m->cmp) {
#define MASK_CASE(CMP, OP)                                                                  \
    case CMP:                                                                               \
        for (int64_t p = 0; p < len; p++)                                                   \
            for (int l = 0; l < 16; l++) tmp[p][l] = (uint8_t)(f[p * 16 + l] OP t[l]) ^ x;   \
        break;
    MASK_CASE(PZ_CMP_LT, <)
    MASK_CASE(PZ_CMP_LE, <=)
    MASK_CASE(PZ_CMP_GT, >)
    MASK_CASE(PZ_CMP_GE, >=)
    default: MASK_CASE(PZ_CMP_EQ, ==)
#undef MASK_CASE
    }
    for (int l = 0; l < lanes; l++)
        for (int64_t p = 0; p < len; p++) y[l * plane + p] = tmp[p][l];
}

#if defined(__SSE2__) && !defined(PZ_SCALAR)
/* store_block's twin on 16 pixels at a time (SSE2, every x86-64): each
 * pixel's 16 comparisons packed to bytes (0xff, 0), the 16 x 16 bytes
 * transposed by four rounds of unpacks (row i with row i + 8), then each
 * lane's 16 bytes & 1 ^ neg. The same comparisons (NaN false). */
static void store16_sse2(const pz_mask_out *m, const float *restrict f, const float *restrict t,
                         int lanes, uint8_t *restrict y, int64_t plane)
{
    __m128i a[16], b[16];
    const __m128 t0 = _mm_loadu_ps(t), t1 = _mm_loadu_ps(t + 4), t2 = _mm_loadu_ps(t + 8),
                 t3 = _mm_loadu_ps(t + 12);
    for (int p = 0; p < 16; p++) {
        const __m128 v0 = _mm_loadu_ps(f + p * 16), v1 = _mm_loadu_ps(f + p * 16 + 4),
                     v2 = _mm_loadu_ps(f + p * 16 + 8), v3 = _mm_loadu_ps(f + p * 16 + 12);
        __m128 c0, c1, c2, c3;
        switch (m->cmp) {
#define MASK_SSE(CMP, FN) \
    case CMP: c0 = FN(v0, t0), c1 = FN(v1, t1), c2 = FN(v2, t2), c3 = FN(v3, t3); break;
        MASK_SSE(PZ_CMP_LT, _mm_cmplt_ps)
        MASK_SSE(PZ_CMP_LE, _mm_cmple_ps)
        MASK_SSE(PZ_CMP_GT, _mm_cmpgt_ps)
        MASK_SSE(PZ_CMP_GE, _mm_cmpge_ps)
        default: MASK_SSE(PZ_CMP_EQ, _mm_cmpeq_ps)
#undef MASK_SSE
        }
        a[p] = _mm_packs_epi16(_mm_packs_epi32(_mm_castps_si128(c0), _mm_castps_si128(c1)),
                               _mm_packs_epi32(_mm_castps_si128(c2), _mm_castps_si128(c3)));
    }
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < 8; i++) {
            b[2 * i] = _mm_unpacklo_epi8(a[i], a[i + 8]);
            b[2 * i + 1] = _mm_unpackhi_epi8(a[i], a[i + 8]);
        }
        memcpy(a, b, sizeof a);
    }
    const __m128i one = _mm_set1_epi8(1), x = _mm_set1_epi8((char)(m->neg != 0));
    for (int l = 0; l < lanes; l++)
        _mm_storeu_si128((__m128i *)(y + l * plane), _mm_xor_si128(_mm_and_si128(a[l], one), x));
}
#endif

void pz_mask_store_16c(const pz_mask_out *m, const float *restrict f, int64_t fr, int64_t fr0,
                       uint8_t *restrict y, int64_t oh, int64_t yr0, int64_t nr, int64_t n,
                       int64_t c, int64_t ow)
{
    const int64_t cb = (c + 15) / 16, np = nr * ow;
    float t[16];
    for (int64_t b = 0; b < cb; b++) {
        const int lanes = c - b * 16 < 16 ? (int)(c - b * 16) : 16;
        for (int l = 0; l < 16; l++) t[l] = m->tc && l < lanes ? m->tc[b * 16 + l] : m->t;
        for (int64_t i = 0; i < n; i++) {
            const float *blk = f + ((i * cb + b) * fr + fr0) * ow * 16;
            uint8_t *yb = y + ((i * c + b * 16) * oh + yr0) * ow;
            int64_t p0 = 0;
#if defined(__SSE2__) && !defined(PZ_SCALAR)
            if (m->fast)
                for (; p0 + 16 <= np; p0 += 16) store16_sse2(m, blk + p0 * 16, t, lanes, yb + p0, oh * ow);
#endif
            for (; p0 < np; p0 += MASK_CHUNK)
                store_block(m, blk + p0 * 16, t, np - p0 < MASK_CHUNK ? np - p0 : MASK_CHUNK, lanes,
                            yb + p0, oh * ow);
        }
    }
}

int pz_mask_gemm_init(pz_layer *l, pz_mask_out **m, const pz_act *a, int tiles, int64_t n,
                      int64_t count, char *kname, size_t kn)
{
    const int64_t rows = n > 0 ? (int64_t)(PZ_MASK_TILE_BYTES / sizeof(float)) / n : 1;
    *m = pz_mask_out_new(l, a, n, tiles ? (rows > 0 ? rows : 1) * n : 0, tiles ? 0 : count);
    snprintf(kname, kn, "%s%s", l->kernel ? l->kernel : tiles ? "packed" : "reference",
             tiles ? ", bool tiles" : ", bool from a float copy");
    l->kernel = kname;
    return !*m;
}

void pz_mask_gemm_tiles(const pz_mask_out *m, const pz_gemm_desc *g, pz_gemm_fn fn,
                        pz_gemm_bf16_fn fn16, const float *a, const void *bp, uint8_t *y,
                        int ith, int nth)
{
    const int64_t rows = g->n > 0 && m->tile / g->n > 0 ? m->tile / g->n : 1;
    int64_t r0, r1;
    pz_mask_share(g->m, 1, ith, nth, &r0, &r1);
    float *t = pz_mask_tile(m, ith);
    for (int64_t s0 = r0; s0 < r1; s0 += rows) {
        pz_gemm_desc d = *g;
        d.m = s0 + rows < r1 ? rows : r1 - s0;
        d.ldy = g->n;
        if (d.c) d.c += s0 * g->csm;   /* C's rows from s0 (csm 0: broadcast) */
        if (fn16) fn16(&d, a + s0 * g->lda, bp, t, 0, 1);
        else fn(&d, a + s0 * g->lda, bp, t, 0, 1);
        pz_mask_store_f32(m, t, y + s0 * g->n, s0 * g->n, d.m * g->n, 1, g->n);
    }
}

void pz_mask_whole_store(pz_mask_out *m, const pz_tensor *y, int blocked, int64_t inner,
                         int64_t nch, int ith, int nth)
{
    int64_t a, b;
    if (nth > 1) pz_barrier_wait(&m->bar, nth);
    if (blocked) {
        pz_mask_share(y->dims[2], 1, ith, nth, &a, &b);
        pz_mask_store_16c(m, m->buf, y->dims[2], a, y->data, y->dims[2], a, b - a, y->dims[0],
                          y->dims[1], y->dims[3]);
        return;
    }
    pz_mask_share(pz_numel(y), 64, ith, nth, &a, &b);
    pz_mask_store_f32(m, m->buf + a, (uint8_t *)y->data + a, a, b - a, inner, nch);
}

void pz_mask_conv_tiles(const pz_mask_out *m, const pz_layer *l, const float *x, int64_t rows,
                        int64_t gran, void *scratch, size_t scratch_w, int ith, int nth)
{
    const pz_tensor *y = l->out[0];
    const int64_t oh = y->dims[2];
    const void *in[1] = {x};
    const pz_rowwin xw = {0, l->in[0]->dims[2]}, yw0 = {0, rows};
    void *sc = scratch_w ? (char *)scratch + (size_t)ith * scratch_w : NULL;
    int64_t a, b;
    pz_mask_share(oh, gran > 1 ? gran : 1, ith, nth, &a, &b);
    float *t = pz_mask_tile(m, ith);
    for (int64_t s0 = a; s0 < b; s0 += rows) {
        const int64_t s1 = s0 + rows < b ? s0 + rows : b;
        pz_rowwin yw = yw0;
        yw.base = s0;   /* the tile: output rows [s0, s0 + rows) */
        l->op->run_window(l, in, xw, t, yw, s0, s1, sc, 0, 1);
        pz_mask_store_16c(m, t, rows, 0, y->data, oh, s0, s1 - s0, y->dims[0], y->dims[1],
                          y->dims[3]);
    }
}
