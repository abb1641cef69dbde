/* qdyn_out.c - the float32 output stage of the ConvInteger and
 * MatMulInteger layers the qdyn pass folded (ops.h, qdyn_out.h): its
 * inputs checked at prepare, read as the layer runs, and the reference's
 * int32 sums turned to float32 in place when no fast kernel took the layer. */
#include <string.h>

#include "rt/ops/ops.h"

int pz_qdyn_out_check(pz_layer *l, int first, int64_t m, char *err, size_t n)
{
    const pz_tensor *xs = pz_in(l, first), *ws = pz_in(l, first + 1), *b = pz_in(l, first + 2);
    if (!xs || xs->dtype != PZ_F32 || pz_numel(xs) != 1)
        return pz_layer_fail(l, err, n, "input %d (X's scale) must be a float32 scalar", first);
    if (!ws || ws->dtype != PZ_F32 || !ws->data || (pz_numel(ws) != 1 && pz_numel(ws) != m))
        return pz_layer_fail(l, err, n, "input %d (W's scale) must be constant float32, one "
                             "element or %lld", first + 1, (long long)m);
    if (b && (b->dtype != PZ_F32 || !b->data || (pz_numel(b) != 1 && pz_numel(b) != m)))
        return pz_layer_fail(l, err, n, "input %d (the bias) must be constant float32, one "
                             "element or %lld", first + 2, (long long)m);
    if (l->n_out < 1 || !l->out[0] || l->out[0]->dtype != PZ_F32)
        return pz_layer_fail(l, err, n, "with a scale the output must be float32");
    return 0;
}

void pz_qdyn_out_of(const pz_layer *l, int first, int64_t m, pz_act act, pz_qdyn_out *o)
{
    const pz_tensor *ws = pz_in(l, first + 1), *b = pz_in(l, first + 2);
    *o = (pz_qdyn_out){.xs = *(const float *)l->in[first]->data, .ws = ws->data,
                       .ws_per = pz_numel(ws) > 1 && m > 1, .b = b ? b->data : NULL,
                       .b_per = b && pz_numel(b) > 1 && m > 1, .act = act,
                       .row = pz_qdyn_out_row__scalar};
#ifndef PZ_SCALAR
    if (l->isa == PZ_ISA_AVX512) o->row = pz_qdyn_out_row__avx512;
    if (l->isa == PZ_ISA_AVX2 && pz_cpu_isa() >= PZ_ISA_AVX2) o->row = pz_qdyn_out_row__avx2;
#endif
}

void pz_qdyn_out_inplace(const pz_qdyn_out *o, void *y, int64_t lo, int64_t hi, int64_t inner,
                         int64_t m)
{
    char *p = y;
    for (int64_t e = lo; e < hi; e++) {
        int32_t acc;
        float v;
        memcpy(&acc, p + e * 4, 4);
        pz_qdyn_out_row(o, e / inner % m, &acc, &v, 1);
        memcpy(p + e * 4, &v, 4);
    }
}
