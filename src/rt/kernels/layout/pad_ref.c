/* pad_ref.c - reference Pad (constant, reflect, edge, wrap; negative pads
 * crop), any element type. */
#include "rt/kernels/kernels.h"

/* Negative pads crop first, then the cropped range is padded, as the ONNX
 * reference does: reflect/wrap/edge see only the kept elements. */
void pz_pad_map(pz_pad_mode mode, int64_t n, int64_t begin, int64_t out, int64_t *map)
{
    int64_t end = out - n - begin;                /* the end pad (negative crops) */
    int64_t k0 = begin < 0 ? -begin : 0;          /* kept range [k0, k1) of the input */
    int64_t k1 = n - (end < 0 ? -end : 0);
    int64_t m = k1 - k0, pb = begin > 0 ? begin : 0;
    for (int64_t o = 0; o < out; o++) {
        int64_t i = o - pb;                       /* index into the kept range */
        if (i >= 0 && i < m) { map[o] = k0 + i; continue; }
        if (mode == PZ_PAD_CONSTANT || m <= 0) { map[o] = -1; continue; }
        switch (mode) {
        case PZ_PAD_EDGE:
            i = i < 0 ? 0 : m - 1;
            break;
        case PZ_PAD_WRAP:
            i = ((i % m) + m) % m;
            break;
        case PZ_PAD_REFLECT:
            if (m == 1) { i = 0; break; }
            /* mirror without repeating the edge: period 2(m-1) */
            i = ((i % (2 * (m - 1))) + 2 * (m - 1)) % (2 * (m - 1));
            if (i >= m) i = 2 * (m - 1) - i;
            break;
        default:
            break;
        }
        map[o] = k0 + i;
    }
}

void pz_any_pad__ref(size_t es, int rank, const int64_t *xd, const int64_t *yd,
                     const int64_t *const *map, const void *value, const void *x, void *y,
                     int ith, int nth)
{
    if (rank == 0) {
        if (ith == 0) memcpy(y, x, es);
        return;
    }
    int64_t xs[PZ_MAX_RANK], s = 1;
    for (int i = rank - 1; i >= 0; i--) { xs[i] = s; s *= xd[i]; }
    int64_t inner = yd[rank - 1], rows = pz_prod(yd, rank - 1);
    const int64_t *last = map[rank - 1];

    /* one unit of work = one row of y */
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        char *dst = (char *)y + r * inner * (int64_t)es;
        int64_t off = 0, rest = r;
        bool outside = false;   /* the row maps to the constant on an outer axis */
        for (int i = rank - 2; i >= 0; i--) {
            int64_t src = map[i][rest % yd[i]];
            rest /= yd[i];
            if (src < 0) outside = true;
            else off += src * xs[i];
        }
        for (int64_t j = 0; j < inner; j++) {
            const void *from = (outside || last[j] < 0)
                ? value : (const char *)x + (off + last[j]) * (int64_t)es;
            memcpy(dst + j * (int64_t)es, from, es);
        }
    }
}
