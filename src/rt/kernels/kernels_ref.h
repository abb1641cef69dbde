/* kernels_ref.h - the kernels that have only a reference form (no fast
 * twin): TopK, LpPool, Einsum, OneHot, ReverseSequence, TensorScatter, Det,
 * MeanVarianceNormalization, CausalConvWithState, LinearAttention. Included
 * by kernels.h, which holds the types they use (pz_axis_shape, pz_geom3,
 * the params). */
#ifndef PZ_RT_KERNELS_REF_H
#define PZ_RT_KERNELS_REF_H

/* TopK (reduce/topk_ref.c): along s->n, the k largest (or smallest) of each
 * row and their indices, ties to the lower index, NaN above every number;
 * floats compare as double, integers exactly. scratch: 2 * s->n int64 per
 * worker (worker ith uses scratch + 2 * s->n * ith). */
void pz_any_topk__ref(const pz_topk_params *p, int dt, const pz_axis_shape *s, const void *x,
                      void *vals, int64_t *idx, int64_t *scratch, int ith, int nth);

/* LpPool (pool/lp_pool_ref.c): xd = [N, C, D...], yd = [N, C, O...]; any
 * float type through double. */
void pz_any_lp_pool__ref(const pz_lp_pool_params *p, int dt, const int64_t *xd,
                         const int64_t *yd, const void *x, void *y, int ith, int nth);

/* Einsum (gemm/einsum_ref.c): the loop nest over the labels; floats
 * accumulate in double, integers in 64-bit integers (wrapping). dims[i] are
 * input i's dims; the output has p->out_rank dims. */
void pz_any_einsum__ref(const pz_einsum_params *p, int dt, const int64_t *const *dims,
                        const void *const *x, void *y, int ith, int nth);

/* OneHot (index/onehot_ref.c): indices [outer * inner] of type itype (any
 * numeric type, truncated to integers) -> y [outer, depth, inner] of es-byte
 * elements, values[1] where the index (plus depth when negative) is d, else
 * values[0]. */
void pz_any_onehot__ref(int itype, const void *ind, int64_t outer, int64_t depth, int64_t inner,
                        size_t es, const void *values, void *y, int ith, int nth);

/* ReverseSequence (index/reverse_sequence_ref.c): rank-2+ X of es-byte
 * elements; lens[b] out of [0, T] reverses nothing (run time: no error). */
void pz_any_reverse_sequence__ref(size_t es, int rank, const int64_t *xd, int batch_axis,
                                  int time_axis, const int64_t *lens, const void *x, void *y,
                                  int ith, int nth);

/* TensorScatter (index/tensor_scatter_ref.c): y = past, then update's rows
 * along axis written at write_indices[b] + s (mod the axis if circular);
 * rows past the axis end are dropped (linear). wi may be NULL (zeros). */
void pz_any_tensor_scatter__ref(size_t es, int rank, const int64_t *pd, const int64_t *ud,
                                int axis, int circular, const void *past, const void *upd,
                                const int64_t *wi, void *y, int ith, int nth);

/* Det (norm/det_ref.c): batch square matrices [n, n] -> batch values, LU with
 * partial pivoting in double; scratch n * n doubles per worker. */
void pz_any_det__ref(int dt, int64_t batch, int64_t n, const void *x, void *y, double *scratch,
                     int ith, int nth);

/* MeanVarianceNormalization (norm/mvn_ref.c): over the axes of mask, in
 * double; any float type. */
void pz_any_mvn__ref(int dt, int rank, const int64_t *xd, int mask, const void *x, void *y,
                     int ith, int nth);

/* CausalConvWithState (dwconv/causal_conv_ref.c): see pz_causal_conv_params;
 * past NULL: zeros, bias and present may be NULL. Any float type through
 * double; split over the B*C rows. */
typedef struct {
    int64_t B, C, L, K;
    int silu;
} pz_causal_conv_desc;
void pz_any_causal_conv__ref(const pz_causal_conv_desc *d, int dt, const void *x, const void *w,
                             const void *bias, const void *past, void *y, void *present,
                             int ith, int nth);

/* LinearAttention (attention/linear_attention_ref.c): see
 * pz_linear_attention_params. decay_width: Dk (per key dim) or 1 (per head);
 * beta_heads: Hkv or 1. Inputs of dtype, the states of sdtype (past NULL:
 * zeros); any float types, computed in double. Split over the B*Hkv states;
 * scratch holds Dk*Dv + Dv doubles per worker. */
typedef struct {
    int dtype, sdtype;
    pz_la_rule rule;
    int64_t B, T, Hq, Hkv, Dk, Dv;
    int64_t decay_width, beta_heads;
    double scale;
} pz_linear_attention_desc;
void pz_any_linear_attention__ref(const pz_linear_attention_desc *d, const void *q,
                                  const void *k, const void *v, const void *past,
                                  const void *decay, const void *beta, void *y, void *present,
                                  double *scratch, int ith, int nth);

/* The run-time-shaped kinds (index/nonzero_ref.c, unique_ref.c,
 * compress_ref.c, vision/nms_ref.c): one worker; each returns the actual
 * size and writes its outputs packed at that size. */
/* Y [rank, nnz]: the coordinates of X's nonzero elements in row-major order
 * (a scalar counts as [1]). Returns nnz. */
int64_t pz_any_nonzero__ref(int dt, int rank, const int64_t *dims, const void *x, int64_t *y);
/* X as [outer, n, inner], the n slices along the axis; Y [outer, u, inner];
 * idx, cnt [u] and inv [n] may be NULL; scratch: 5 * n int64. Returns u. */
int64_t pz_any_unique__ref(int dt, int sorted, int64_t outer, int64_t n, int64_t inner,
                           const void *x, void *y, int64_t *idx, int64_t *inv, int64_t *cnt,
                           int64_t *scratch);
/* X [outer, n, inner] of esize-byte elements, cond [ncond] bool; Y [outer,
 * k, inner], the k slices whose condition is true. Returns k. */
int64_t pz_any_compress__ref(size_t esize, int64_t outer, int64_t n, int64_t inner, const void *x,
                             const uint8_t *cond, int64_t ncond, void *y);
/* boxes [nb, nbox, 4], scores [nb, nc, nbox] -> sel [count, 3] (batch, class,
 * box); scratch: 3 * nbox int64. Returns count. */
int64_t pz_f32_nms__ref(const pz_nms_params *p, int64_t nb, int64_t nc, int64_t nbox,
                        const float *boxes, const float *scores, float iou_th, float score_th,
                        int has_score_th, int64_t *sel, int64_t *scratch);

/* TfIdfVectorizer (index/tfidf_ref.c): X (int32 or int64) as [rows, C];
 * pool, index and weight as pz_tfidf_params says; Y [rows, W]. Split over
 * rows. */
void pz_any_tfidf__ref(const pz_tfidf_params *p, int dt, int64_t rows, int64_t C, const void *x,
                       const int64_t *pool, const int64_t *index, const float *weight,
                       float *y, int ith, int nth);

/* Tree ensembles (index/trees_ref.c): X [rows, F] float or double (dt), the
 * packed forest of pz_trees_params, Y [rows, n_targets] float or double
 * (ydt);
 * scratch: n_targets doubles and n_targets ints per worker. Split over
 * rows. */
void pz_any_trees__ref(const pz_trees_params *p, int dt, int64_t rows, int64_t F, const void *x,
                       const int64_t *ints, const double *reals, int ydt, void *y, double *acc,
                       int *hits, int ith, int nth);

/* Random (eltwise/random_ref.c): y[i] for i < n of type dt from the stream
 * of 64-bit words pz_random_word(base, i) (UNIFORM, NORMAL), or per row r of
 * logits [rows, classes] (type ldt) its y[r * samples + s] class indices
 * (MULTINOMIAL). Each element depends on base and its index only. */
uint64_t pz_random_word(uint64_t base, uint64_t i);
void pz_any_random__ref(const pz_random_params *p, uint64_t base, int dt, void *y, int64_t n,
                        const void *logits, int ldt, int64_t rows, int64_t classes,
                        int ith, int nth);

#endif
