/* topk_ref.c - reference TopK along one axis, any numeric type: each row's
 * indices are merge-sorted by (value, index), so ties keep the lower index
 * first as ONNX asks; NaN ranks above every number (it comes first for the
 * largest, last for the smallest). Floats compare as double, signed and
 * unsigned integers exactly as 64-bit integers. */
#include "rt/kernels/kernels.h"

typedef enum { KEY_F64, KEY_I64, KEY_U64 } key_kind;

/* -1, 0, 1: element a of the row against element b, by value only. */
static int cmp_vals(key_kind kk, int dt, const void *x, int64_t a, int64_t b)
{
    if (kk == KEY_F64) {
        double va = pz_load_f64(x, dt, a), vb = pz_load_f64(x, dt, b);
        int na = va != va, nb = vb != vb;
        if (na || nb) return na - nb;
        return (va > vb) - (va < vb);
    }
    uint64_t ua = pz_load_bits(x, dt, a), ub = pz_load_bits(x, dt, b);
    if (kk == KEY_I64) return ((int64_t)ua > (int64_t)ub) - ((int64_t)ua < (int64_t)ub);
    return (ua > ub) - (ua < ub);
}

/* 1 when row position a goes before b in the output order. */
static int before(key_kind kk, int largest, int dt, const void *x, int64_t base, int64_t step,
                  int64_t a, int64_t b)
{
    int c = cmp_vals(kk, dt, x, base + a * step, base + b * step);
    if (c) return largest ? c > 0 : c < 0;
    return a < b;
}

void pz_any_topk__ref(const pz_topk_params *p, int dt, const pz_axis_shape *s, const void *x,
                      void *vals, int64_t *idx, int64_t *scratch, int ith, int nth)
{
    const key_kind kk = pz_dtype_is_float(dt) ? KEY_F64 : pz_dtype_is_signed(dt) ? KEY_I64 : KEY_U64;
    const size_t es = pz_dtype_size(dt);
    const int64_t n = s->n, k = p->k;
    if (n == 0) return;   /* k <= n: nothing to write, and scratch may be NULL */
    int64_t *a = scratch + 2 * n * ith, *b = a + n;
    int64_t lo, hi;
    pz_split(s->outer * s->inner, ith, nth, &lo, &hi);   /* rows (o, i) */
    for (int64_t u = lo; u < hi; u++) {
        const int64_t o = u / s->inner, i = u % s->inner;
        const int64_t xbase = o * n * s->inner + i, ybase = o * k * s->inner + i;
        for (int64_t j = 0; j < n; j++) a[j] = j;
        /* bottom-up merge sort of a (runs of w), b the other buffer */
        int64_t *src = a, *dst = b;
        for (int64_t w = 1; w < n; w *= 2) {
            for (int64_t l = 0; l < n; l += 2 * w) {
                int64_t m = l + w < n ? l + w : n, r = l + 2 * w < n ? l + 2 * w : n;
                int64_t pi = l, qi = m, t = l;
                while (pi < m && qi < r)
                    dst[t++] = before(kk, p->largest, dt, x, xbase, s->inner, src[qi], src[pi])
                                   ? src[qi++] : src[pi++];
                while (pi < m) dst[t++] = src[pi++];
                while (qi < r) dst[t++] = src[qi++];
            }
            int64_t *sw = src;
            src = dst;
            dst = sw;
        }
        for (int64_t j = 0; j < k; j++) {
            const int64_t yo = ybase + j * s->inner;
            memcpy((char *)vals + yo * (int64_t)es,
                   (const char *)x + (xbase + src[j] * s->inner) * (int64_t)es, es);
            idx[yo] = src[j];
        }
    }
}
