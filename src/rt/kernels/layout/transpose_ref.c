/* transpose_ref.c - reference Transpose of any element type. */
#include "rt/kernels/kernels.h"

/* Copies n elements of size es from x (every xs elements) to y (contiguous). */
static void gather_row(size_t es, const char *x, int64_t xs, char *y, int64_t n)
{
    switch (es) {
    case 1: for (int64_t i = 0; i < n; i++) ((uint8_t *)y)[i] = ((const uint8_t *)x)[i * xs]; break;
    case 2: for (int64_t i = 0; i < n; i++) ((uint16_t *)y)[i] = ((const uint16_t *)x)[i * xs]; break;
    case 4: for (int64_t i = 0; i < n; i++) ((uint32_t *)y)[i] = ((const uint32_t *)x)[i * xs]; break;
    case 8: for (int64_t i = 0; i < n; i++) ((uint64_t *)y)[i] = ((const uint64_t *)x)[i * xs]; break;
    default: for (int64_t i = 0; i < n; i++) memcpy(y + i * es, x + i * xs * es, es); break;
    }
}

void pz_any_transpose__ref(size_t es, int rank, const int64_t *xd, const int *perm,
                           const void *x, void *y, int ith, int nth)
{
    /* x's strides, then y's dims and the x stride of each y axis */
    int64_t xs[PZ_MAX_RANK] = {0}, yd[PZ_MAX_RANK] = {0}, ys[PZ_MAX_RANK] = {0};
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) { xs[i] = s; s *= xd[i]; }
    for (int i = 0; i < rank; i++) { yd[i] = xd[perm[i]]; ys[i] = xs[perm[i]]; }
    if (rank == 0) {   /* a scalar */
        if (ith == 0) memcpy(y, x, es);
        return;
    }
    int64_t inner = yd[rank - 1], rows = pz_prod(yd, rank - 1);

    /* one unit of work = one row of y */
    int64_t lo, hi;
    pz_split(rows, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t off = 0, rest = r;
        for (int i = rank - 2; i >= 0; i--) { off += rest % yd[i] * ys[i]; rest /= yd[i]; }
        gather_row(es, (const char *)x + off * (int64_t)es, ys[rank - 1],
                   (char *)y + r * inner * (int64_t)es, inner);
    }
}
