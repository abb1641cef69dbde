/* einsum_ref.c - reference Einsum: one loop nest over the labels. Each
 * output element sums, over the labels not in the output (an odometer), the
 * product of the inputs' elements those labels select; a label repeated in
 * one input walks its diagonal (its axes' strides add up). */
#include "rt/kernels/kernels.h"

void pz_any_einsum__ref(const pz_einsum_params *p, int dt, const int64_t *const *dims,
                        const void *const *x, void *y, int ith, int nth)
{
    const int L = p->n_labels, O = p->out_rank, K = p->n_in, exact = pz_dtype_is_int(dt);
    int64_t size[PZ_EINSUM_MAX_LABELS], stride[PZ_EINSUM_MAX_IN][PZ_EINSUM_MAX_LABELS];
    for (int l = 0; l < L; l++) size[l] = 1;
    for (int i = 0; i < K; i++) {
        int64_t st = 1;
        for (int l = 0; l < L; l++) stride[i][l] = 0;
        for (int a = p->in_rank[i] - 1; a >= 0; a--) {
            const int l = p->in_label[i * PZ_MAX_RANK + a];
            size[l] = dims[i][a];
            stride[i][l] += st;   /* a repeated label: the diagonal */
            st *= dims[i][a];
        }
    }
    int64_t nout = 1, nsum = 1;
    for (int l = 0; l < O; l++) nout *= size[l];
    for (int l = O; l < L; l++) nsum *= size[l];
    int64_t lo, hi;
    pz_split(nout, ith, nth, &lo, &hi);
    for (int64_t u = lo; u < hi; u++) {
        int64_t off[PZ_EINSUM_MAX_IN] = {0}, v[PZ_EINSUM_MAX_LABELS] = {0};
        /* u in row-major order over the output labels */
        int64_t rest = u;
        for (int l = O - 1; l >= 0; l--) {
            const int64_t c = rest % size[l];
            rest /= size[l];
            for (int i = 0; i < K; i++) off[i] += c * stride[i][l];
        }
        double acc = 0;
        uint64_t iacc = 0;
        for (int64_t r = 0; r < nsum; r++) {
            if (exact) {
                uint64_t prod = 1;
                for (int i = 0; i < K; i++) prod *= pz_load_bits(x[i], dt, off[i]);
                iacc += prod;
            } else {
                double prod = 1;
                for (int i = 0; i < K; i++) prod *= pz_ld(x[i], dt, off[i]);
                acc += prod;
            }
            /* the odometer over the summed labels, last fastest */
            for (int l = L - 1; l >= O; l--) {
                for (int i = 0; i < K; i++) off[i] += stride[i][l];
                if (++v[l] < size[l]) break;
                for (int i = 0; i < K; i++) off[i] -= size[l] * stride[i][l];
                v[l] = 0;
            }
        }
        if (exact) pz_store_bits(y, dt, u, iacc);
        else pz_st(y, dt, u, acc);
    }
}
