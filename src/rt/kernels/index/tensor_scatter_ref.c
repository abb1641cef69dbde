/* tensor_scatter_ref.c - reference TensorScatter: each element of y (past's
 * shape) asks which row s of update lands on it along axis: s = position -
 * write_indices[b] (circular: modulo the axis), written when 0 <= s < the
 * update's length; otherwise y keeps past's element. */
#include "rt/kernels/kernels.h"

void pz_any_tensor_scatter__ref(size_t es, int rank, const int64_t *pd, const int64_t *ud,
                                int axis, int circular, const void *past, const void *upd,
                                const int64_t *wi, void *y, int ith, int nth)
{
    int64_t inner = 1, n = 1;
    for (int a = axis + 1; a < rank; a++) inner *= pd[a];
    for (int a = 0; a < rank; a++) n *= pd[a];
    const int64_t M = pd[axis], S = ud[axis], per_batch = n / (pd[0] ? pd[0] : 1);
    int64_t lo, hi;
    pz_split(n, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        const int64_t b = u / per_batch, pos = u / inner % M, outer = u / (inner * M);
        int64_t s = pos - (wi ? wi[b] : 0);
        if (circular) s = ((s % M) + M) % M;
        const void *src = (const char *)past + (size_t)u * es;
        if (s >= 0 && s < S)
            src = (const char *)upd + (size_t)((outer * S + s) * inner + u % inner) * es;
        memcpy((char *)y + (size_t)u * es, src, es);
    }
}
