/* nonzero_ref.c - reference NonZero: the coordinates of the nonzero
 * elements of X, one row per axis, in row-major order (numpy.nonzero).
 * Floats compare as double (NaN is nonzero), integers and bool by bits. */
#include "rt/kernels/kernels.h"

static int is_nonzero(int dt, const void *x, int64_t i)
{
    return pz_dtype_is_float(dt) ? pz_load_f64(x, dt, i) != 0 : pz_load_bits(x, dt, i) != 0;
}

int64_t pz_any_nonzero__ref(int dt, int rank, const int64_t *dims, const void *x, int64_t *y)
{
    int64_t numel = 1, one = 1;
    if (rank == 0) {   /* a scalar: as [1] */
        rank = 1;
        dims = &one;
    }
    for (int a = 0; a < rank; a++) numel *= dims[a];
    int64_t nnz = 0;
    for (int64_t i = 0; i < numel; i++) nnz += is_nonzero(dt, x, i);
    /* the rows are nnz apart: Y is packed at its actual shape */
    int64_t k = 0;
    for (int64_t i = 0; i < numel; i++) {
        if (!is_nonzero(dt, x, i)) continue;
        int64_t r = i;
        for (int a = rank - 1; a >= 0; a--) {
            y[a * nnz + k] = r % dims[a];
            r /= dims[a];
        }
        k++;
    }
    return nnz;
}
