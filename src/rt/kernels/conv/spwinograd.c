/* spwinograd.c - the block-sparse Winograd conv's plan: the dense transform
 * of the weights (winograd.c), then only the 16 x 16 blocks with a weight,
 * listed per group of output blocks (winograd.h, pz_spwino_plan). */
#include <stdlib.h>
#include <string.h>

#include "rt/kernels/conv/winograd.h"

/* 1 when W's block (ob, ib), all 9 taps, has a non-zero weight */
static int block_nonzero(const pz_conv16c_desc *d, const float *w, int64_t ob, int64_t ib)
{
    for (int64_t o = ob * 16; o < ob * 16 + 16 && o < d->m; o++)
        for (int64_t i = ib * 16; i < ib * 16 + 16 && i < d->c; i++)
            for (int t = 0; t < 9; t++)
                if (w[(o * d->c + i) * 9 + t] != 0.0f) return 1;
    return 0;
}

int pz_spwino_plan_make(pz_spwino_plan *p, const pz_conv16c_desc *d, const float *w, pz_isa isa)
{
    memset(p, 0, sizeof *p);
    p->d = *d;
#ifndef PZ_SCALAR
    p->isa = isa == PZ_ISA_AVX512 ? &pz_wino_isa__avx512 : &pz_wino_isa__scalar;
#else
    (void)isa;
    p->isa = &pz_wino_isa__scalar;
#endif
    const int64_t CB = (d->c + 15) / 16, MB = (d->m + 15) / 16, RM = PZ_WINO_RM;
    p->ngrp = (MB + RM - 1) / RM;
    p->nblocks = MB * CB;
    float *U = malloc((size_t)pz_winograd_weights_size(d) * sizeof(float));
    p->e0 = malloc((size_t)(p->ngrp + 1) * sizeof *p->e0);
    p->uoff = malloc((size_t)(p->ngrp + 1) * sizeof *p->uoff);
    p->ent = malloc((size_t)(p->ngrp * CB > 0 ? p->ngrp * CB : 1) * sizeof *p->ent);
    p->cb_used = calloc((size_t)(CB > 0 ? CB : 1), 1);
    if (!U || !p->e0 || !p->uoff || !p->ent || !p->cb_used) goto oom;
    /* the lists: per group, the input blocks where one of its output blocks has a weight */
    int64_t ne = 0, uf = 0;
    for (int64_t g = 0; g < p->ngrp; g++) {
        p->e0[g] = ne;
        p->uoff[g] = uf;
        for (int64_t cb = 0; cb < CB; cb++) {
            int mask = 0;
            for (int64_t r = 0; r < RM && g * RM + r < MB; r++)
                if (block_nonzero(d, w, g * RM + r, cb)) mask |= 1 << r, p->nnz++;
            if (!mask) continue;
            p->ent[ne++] = (int32_t)(cb * 4 + mask);
            p->cb_used[cb] = 1;
            uf += (int64_t)PZ_WINO_NPT * 16 * (mask == 3 ? 2 : 1) * 16;
        }
    }
    p->e0[p->ngrp] = ne;
    p->uoff[p->ngrp] = uf;
    p->u = aligned_alloc(64, ((size_t)(uf ? uf : 1) * sizeof(float) + 63) / 64 * 64);
    if (!p->u) goto oom;
    pz_winograd_pack_weights(d, w, U);
    /* dense U [group][36][CB][16 q][rm][16] (winograd.h) -> the listed blocks */
    for (int64_t g = 0; g < p->ngrp; g++) {
        const int64_t rm = MB - g * RM < RM ? MB - g * RM : RM;
        const int64_t gbase = g * PZ_WINO_NPT * CB * 16 * RM * 16;
        const int64_t pt = (p->uoff[g + 1] - p->uoff[g]) / PZ_WINO_NPT;
        for (int xi = 0; xi < PZ_WINO_NPT; xi++) {
            float *dst = p->u + p->uoff[g] + xi * pt;
            for (int64_t e = p->e0[g]; e < p->e0[g + 1]; e++) {
                const int64_t cb = p->ent[e] >> 2;
                const int mask = p->ent[e] & 3;
                for (int q = 0; q < 16; q++)
                    for (int64_t r = 0; r < rm; r++) {
                        if (!(mask >> r & 1)) continue;
                        memcpy(dst, U + gbase + ((xi * CB + cb) * 16 + q) * rm * 16 + r * 16,
                               16 * sizeof(float));
                        dst += 16;
                    }
            }
        }
    }
    free(U);
    return 0;
oom:
    free(U);
    pz_spwino_plan_free(p);
    return -1;
}

void pz_spwino_plan_free(pz_spwino_plan *p)
{
    free(p->e0);
    free(p->ent);
    free(p->uoff);
    free(p->u);
    free(p->cb_used);
    memset(p, 0, sizeof *p);
}

void pz_spwino_run(const pz_spwino_plan *p, int64_t n, const float *restrict x,
                   const float *restrict b, const float *restrict z, float *restrict y,
                   float *restrict scratch, int ith, int nth)
{
    pz_winograd_drive_sparse(p, n, x, b, z, y, scratch, ith, nth);
}
