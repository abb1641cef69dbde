/* attention_f32.h - the fast float32 attention kernels' shared plan: one
 * unit of work is a block of up to PZ_ATTN_QB query rows of one (batch,
 * head); a worker packs K^T of the unit's kv head into its scratch (once
 * per run of units on the same head; the AVX-512 kernel V's rows with
 * it), computes the block's scores against
 * every key into the scratch (the rows stay in L1/L2: QB x T floats), takes
 * their softmax, and multiplies by V. Both kernels (AVX-512 and its scalar
 * twin) follow this order, so that they differ only in rounding. */
#ifndef PZ_ATTENTION_F32_H
#define PZ_ATTENTION_F32_H

#include "rt/kernels/kernels.h"

#define PZ_ATTN_QB 32   /* query rows per unit: a score block of 32 x T floats */

/* Keys rounded up to whole 16-float vectors (the packed K^T's row length). */
static inline int64_t pz_attn_tpad(int64_t T)
{
    return (T + 15) / 16 * 16;
}

/* Floats of scratch per worker: K^T [Dk][Tp], the scores [QB][Tp], and (the
 * AVX-512 kernel) V's rows packed [T][Dv] and the block's partial sums of
 * P V [QB][Dv]. */
static inline int64_t pz_attn_scratch_floats(const pz_attention_desc *d)
{
    return (d->Dk + PZ_ATTN_QB) * pz_attn_tpad(d->T) + (d->T + PZ_ATTN_QB) * d->Dv;
}

/* Units of work: every (b, h) times its query blocks. */
static inline int64_t pz_attn_units(const pz_attention_desc *d)
{
    return d->B * d->Hq * ((d->S + PZ_ATTN_QB - 1) / PZ_ATTN_QB);
}

/* Unit u: batch b, query head h, kv head hk (grouped heads), its first
 * query row s0 and how many rows. */
typedef struct {
    int64_t b, h, hk, s0, rows;
} pz_attn_unit;

static inline pz_attn_unit pz_attn_unit_of(const pz_attention_desc *d, int64_t u)
{
    const int64_t nqb = (d->S + PZ_ATTN_QB - 1) / PZ_ATTN_QB;
    pz_attn_unit w;
    w.b = u / (nqb * d->Hq);
    w.h = (u / nqb) % d->Hq;
    w.hk = w.h / (d->Hq / d->Hkv);
    w.s0 = u % nqb * PZ_ATTN_QB;
    w.rows = d->S - w.s0 < PZ_ATTN_QB ? d->S - w.s0 : PZ_ATTN_QB;
    return w;
}

#endif
