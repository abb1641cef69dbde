/* gemm.c - the ISA-independent driver of the packed GEMM and GEMV (gemm.h):
 * the share of each worker, the K slices, the blocks of panels and the
 * balanced row tiles; the micro-kernels of one ISA compute the tiles. */
#include "rt/kernels/gemm/gemm.h"

#define NR PZ_GEMM_NR

/* Software prefetch of packed B: in a net the weights come from memory
 * (they outgrow the share of the last-level cache), and the first row tile
 * over a block would wait on them. While the row tiles pass over the block
 * in L2, the next block's slice (the next K slice of these panels, else the
 * first slice of the next panels) is fetched into L2: the tile calls share
 * it, a run of lines of one panel each, which the micro-kernel spreads over
 * its k steps (bench/RESULTS.md, 'gemm: B from memory'). */
typedef struct {
    const float *p0;      /* the next block's first panel, at its slice's first row */
    int64_t np, lines;    /* its panels, cache lines of each panel's slice */
    int64_t cpp, per;     /* tile calls per panel, lines per call */
} pf_plan;

static pf_plan pf_next(const pz_gemm_desc *g, const float *bp, int64_t K, int64_t KCD,
                       int64_t NB, int64_t pb, int64_t pe, int64_t phi, int64_t k0,
                       int64_t calls)
{
    pf_plan s = {.np = 0};
    if (g->ldb || K == 0 || calls <= 0) return s;   /* B in place: an activation */
    int64_t nk0 = k0 + KCD, npb = pb, npe = pe;
    if (nk0 >= K) {
        nk0 = 0;
        npb = pe;
        npe = phi < pe + NB ? phi : pe + NB;
    }
    if (npb >= npe) return s;
    int64_t kc = K - nk0 < KCD ? K - nk0 : KCD;
    s.np = npe - npb;
    s.lines = (kc * NR * (int64_t)sizeof(float) + 63) / 64;
    s.p0 = bp + (npb * K + nk0) * NR;
    s.cpp = calls / s.np > 0 ? calls / s.np : 1;
    s.per = (s.lines + s.cpp - 1) / s.cpp;
    return s;
}

/* The run of lines of tile call c: *n lines from the returned address. */
static inline const char *pf_run(const pf_plan *s, int64_t K, int64_t c, int64_t *n)
{
    *n = 0;
    if (s->np == 0) return NULL;
    int64_t panel = c / s->cpp, l0 = (c % s->cpp) * s->per;
    if (panel >= s->np || l0 >= s->lines) return NULL;
    *n = s->lines - l0 < s->per ? s->lines - l0 : s->per;
    return (const char *)(s->p0 + panel * K * NR) + l0 * 64;
}

void pz_gemm_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth)
{
    if (g->m == 1 && !g->ldb) {
        pz_gemv_drive(ks, g, a, bp, y, ith, nth);
        return;
    }
    const int64_t MR = ks->max_mr, NB = ks->nb, KC = ks->kc;
    const int64_t P = (g->n + NR - 1) / NR, T = (g->m + MR - 1) / MR, K = g->k;

    /* the workers share out the panels (or, with fewer panels than workers,
     * the row tiles); each walks its panels in blocks of NB, each block's K
     * in slices (NB * KC * NR floats of B, kept in L2 while every row tile
     * passes over them; the ISA's ks->nb, ks->kc), and the row tiles. Slices inside the block
     * loop: the block's partial sums in Y stay in L2 from slice to slice. A
     * worker with fewer than NB panels takes deeper slices (KCD: the same
     * bytes of B per block), so fewer partial sums go through Y. */
    int64_t plo = 0, phi = P, tlo = 0, thi = T;
    if (P >= nth) pz_split(P, ith, nth, &plo, &phi);
    else pz_split(T, ith, nth, &tlo, &thi);
    const int64_t npb = phi - plo < NB ? phi - plo : NB, KCD = npb > 0 ? NB * KC / npb : KC;
    for (int64_t pb = plo; pb < phi; pb += NB) {
        int64_t pe = phi < pb + NB ? phi : pb + NB;
        for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += KCD) {
            int64_t kc = K - k0 < KCD ? K - k0 : KCD;
            pf_plan pf = pf_next(g, bp, K, KCD, NB, pb, pe, phi, k0, (thi - tlo) * (pe - pb));
            int64_t call = 0;
            for (int64_t t = tlo; t < thi; t++) {
                /* balanced tiles: floor or ceil(M / T) rows each */
                const int64_t m0 = g->m * t / T, mr = g->m * (t + 1) / T - m0;
                const float *ar = a + m0 * g->lda + k0;
                for (int64_t p = pb; p < pe; p++) {
                    /* slice k0 of panel p: packed [K][NR], or B's rows in place */
                    const float *bq = g->ldb ? bp + k0 * g->ldb + p * NR : bp + (p * K + k0) * NR;
                    int64_t npf;
                    const char *pfa = pf_run(&pf, K, call++, &npf);
                    ks->tile(g, ar, bq, kc, m0, p, mr, k0 == 0, k0 + KCD >= K, y, pfa, npf);
                }
            }
            if (K == 0) break;
        }
    }
}

void pz_gemv_drive(const pz_gemm_ukset *ks, const pz_gemm_desc *g, const float *restrict a,
                   const float *restrict bp, float *restrict y, int ith, int nth)
{
    const int64_t P = (g->n + NR - 1) / NR;
    int64_t lo, hi;
    pz_split(P, ith, nth, &lo, &hi);
    ks->gemv_panels(g, a, bp, lo, hi, y);
}
