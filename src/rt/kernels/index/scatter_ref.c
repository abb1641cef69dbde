/* scatter_ref.c - reference ScatterElements and ScatterND with their
 * reductions, any element type: floats through double (exact for a single
 * add/mul rounded to the type), integers on their bits (wrapping, as
 * ONNX Runtime's integer arithmetic), bool as or/and. */
#include "rt/elem.h"
#include "rt/kernels/kernels.h"

/* y[i] = y[i] red u[j] */
static void scatter_combine(int dt, size_t es, pz_scatter_reduction red, void *y, int64_t i,
                            const void *u, int64_t j)
{
    if (red == PZ_SCATTER_NONE) {
        memcpy((char *)y + (size_t)i * es, (const char *)u + (size_t)j * es, es);
        return;
    }
    if (pz_dtype_is_float(dt)) {
        double a = pz_load_f64(y, dt, i), b = pz_load_f64(u, dt, j);
        double r = red == PZ_SCATTER_ADD ? a + b : red == PZ_SCATTER_MUL ? a * b
                 : red == PZ_SCATTER_MAX ? (a > b || a != a ? a : b)
                                         : (a < b || a != a ? a : b);
        pz_store_f64(y, dt, i, r);
        return;
    }
    uint64_t a = pz_load_bits(y, dt, i), b = pz_load_bits(u, dt, j), r;
    bool sgn = pz_dtype_is_signed(dt);
    bool lt = sgn ? (int64_t)a < (int64_t)b : a < b;
    if (dt == PZ_BOOL) r = red == PZ_SCATTER_ADD || red == PZ_SCATTER_MAX ? (a | b) : (a & b);
    else if (red == PZ_SCATTER_ADD) r = a + b;
    else if (red == PZ_SCATTER_MUL) r = a * b;
    else if (red == PZ_SCATTER_MAX) r = lt ? b : a;
    else r = lt ? a : b;
    pz_store_bits(y, dt, i, r);
}

void pz_any_scatter__ref(int dt, const pz_scatter_params *p, int rank, const int64_t *xd,
                         const int64_t *ud, int itype, const void *idx, const void *data,
                         const void *upd, void *y)
{
    size_t es = pz_dtype_size(dt);
    int64_t xn = pz_prod(xd, rank);
    if (y != data) memcpy(y, data, (size_t)xn * es);
    if (p->nd) {
        /* ud = {tuples, k, slice}: tuple t's slice goes at the offset its k
         * entries give in X's leading dims */
        int64_t tuples = ud[0], k = ud[1], slice = ud[2];
        for (int64_t t = 0; t < tuples; t++) {
            int64_t off = 0;
            bool ok = true;
            for (int64_t j = 0; j < k; j++) {
                int64_t i = pz_index_at(idx, itype, t * k + j, xd[j]);
                ok = ok && i >= 0;
                off = off * xd[j] + i;
            }
            if (!ok) continue;   /* out of range: the update is dropped, nothing written */
            for (int64_t e = 0; e < slice; e++)
                scatter_combine(dt, es, p->reduction, y, off * slice + e, upd, t * slice + e);
        }
        return;
    }
    int64_t xs[PZ_MAX_RANK], acc = 1;
    for (int d = rank - 1; d >= 0; d--) {
        xs[d] = acc;
        acc *= xd[d];
    }
    int64_t un = pz_prod(ud, rank);
    for (int64_t e = 0; e < un; e++) {
        int64_t off = 0, rem = e;
        for (int d = rank - 1; d >= 0; d--) {
            if (d != p->axis) off += (rem % ud[d]) * xs[d];
            rem /= ud[d];
        }
        int64_t k = pz_index_at(idx, itype, e, xd[p->axis]);
        if (k < 0) continue;     /* out of range: the update is dropped */
        scatter_combine(dt, es, p->reduction, y, off + k * xs[p->axis], upd, e);
    }
}
