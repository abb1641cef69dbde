/* bcast_fast.h - the fast twins of the broadcasting and indexing copies:
 * Where, the strided view (Expand), Gather, GatherElements, GatherND; and
 * of the float32 binary arithmetic (Add, Sub, Mul, Div).
 *
 * Each is plain C with its inner loop specialised by element size (1, 2,
 * 4, 8 bytes: one typed load and store instead of a memcpy of es bytes) and
 * by whether each operand is contiguous or one value along the row, so gcc
 * vectorizes it at -O2; the outer coordinates advance row by row (no divide
 * per element). The *_fast.c files are compiled with gcc's dynamic
 * vectorizer cost model (Makefile): at -O2 gcc 12 vectorizes no loop whose
 * trip count is unknown. Each computes exactly what its reference twin in kernels.h
 * computes (they are copies: the bits are equal) and splits the work the
 * same way, by elements of Y. The layers pick these at prepare time unless
 * their ISA is PZ_ISA_REF (PZ_ISA=ref), which keeps the reference.
 *
 *     pz_where_desc d = ...;          // as for pz_any_where__ref
 *     pz_where_coalesce(&d);          // once, at prepare
 *     pz_any_where__fast(&d, es, c, a, b, y, ith, nth);
 */
#ifndef PZ_RT_BCAST_FAST_H
#define PZ_RT_BCAST_FAST_H

#include "rt/kernels/kernels.h"

/* Drops the size-1 axes of d and merges an axis into the next (inner) one
 * where condition, X and Z are each contiguous across both (or repeat
 * across both): fewer, longer rows; the element each input gives Y's
 * element i is unchanged. */
void pz_where_coalesce(pz_where_desc *d);
/* Where on a (coalesced, or not) desc: y = c ? a : b. */
void pz_any_where__fast(const pz_where_desc *d, size_t es, const uint8_t *c, const void *a,
                        const void *b, void *y, int ith, int nth);

/* The strided view (Expand, Tile, ...): pz_any_view__ref's rows, with the
 * row's X offset advanced per row and a repeated element (stride 0) or a
 * strided row filled by typed loops. */
void pz_any_view__fast(const pz_view_desc *d, size_t es, const void *x, void *y, int ith,
                       int nth);

/* Gather along one axis (pz_any_gather__ref's arguments): one memcpy per
 * gathered slice of inner elements; inner == 1 (a gather along the last
 * axis) as a typed loop. Indices out of range give zeros, as the reference. */
void pz_any_gather__fast(size_t es, int64_t outer, int64_t n, int64_t inner, int itype,
                         const void *idx, int64_t nidx, const void *x, void *y, int ith, int nth);

/* GatherElements (pz_any_gather_elements__ref's arguments; xs are X's
 * strides): along rows of the indices' last axis, X's row offset advanced
 * per row. */
void pz_any_gather_elements__fast(size_t es, int rank, const int64_t *id, const int64_t *xs,
                                  int axis, int64_t n, int itype, const void *idx, const void *x,
                                  void *y, int ith, int nth);

/* GatherND (pz_any_gather_nd__ref's arguments): a whole slice per tuple by
 * memcpy, a slice of one element by a typed store. */
void pz_any_gather_nd__fast(size_t es, int64_t tuples, int64_t per_batch, int k,
                            const int64_t *xd, int64_t batch_elems, int64_t slice, int itype,
                            const void *idx, const void *x, void *y, int ith, int nth);

/* Float32 Add, Sub, Mul, Div (pz_f32_binary__ref's arguments), each
 * segment of the broadcast walk in a loop for its pattern: both operands
 * contiguous, or one of them one value (a scalar, a per-channel [1,C,1,1]
 * against NCHW, a [..,1] last axis). IEEE operations, one per element, as
 * the reference: the same bits. takes: whether bc's inner strides and
 * p's function are such (else the reference). */
bool pz_f32_binary_fast_takes(const pz_binary_params *p, const pz_bcast *bc);
void pz_f32_binary__fast(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                         const float *b, float *y, int ith, int nth);

/* Cast (pz_any_cast__ref's arguments, its bits) of a mask or bytes to
 * float32 and back: bool, uint8, int8 -> float32 and float32 -> bool
 * (x != 0: NaN true), one typed loop each (the reference goes through
 * double per element). takes: whether tx -> ty is one of these. */
bool pz_any_cast_fast_takes(int tx, int ty);
void pz_any_cast__fast(int tx, const void *x, int ty, void *y, int64_t n, int ith, int nth);

#endif
