/* kernels.h - the runtime's kernels (internal; generated programs never see it).
 *
 * A kernel is a pure function: it reads its inputs and writes its outputs
 * through plain pointers, takes sizes and a params struct, and does the share
 * (ith, nth) of the work that is its worker's. No allocation, no logging, no
 * globals. Every kernel's output element is computed by exactly one worker, in
 * an order that does not depend on nth, so results are bitwise equal whatever
 * the MP.
 *
 * Names say what they compute: pz_<type>_<op>__<isa>. `any` means any element
 * type (through double, or by element size for data movement); `ref` is the
 * scalar reference, written for clarity, that fast kernels are tested against.
 *
 * Tensors are plain row-major. `xd`/`yd` are dims arrays of the tensor's rank.
 */
#ifndef PZ_KERNELS_H
#define PZ_KERNELS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rt/pz_rt.h"

/* ---- choosing kernels (cpu.c) ------------------------------------------- */


/* A sliding window's geometry with the spatial dims normalised to 3: missing
 * leading dims have size 1, kernel 1, stride 1, dilation 1, no padding. The
 * N-d reference kernels (conv, conv_transpose, pool) loop over 3 dims only. */
typedef struct {
    int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
} pz_geom3;

void pz_geom3_init(pz_geom3 *g, int nsp, const int64_t *kernel, const int64_t *stride,
                   const int64_t *dilation, const int64_t *pad_begin, const int64_t *pad_end,
                   const int64_t *xd, const int64_t *yd);

/* The best instruction set of this CPU that this build has kernels for (a
 * net lowers it to its run options' cap, rt/cpu.h, into pz_layer.isa). An
 * op's prepare picks its kernel by the layer's:
 *   PZ_ISA_REF     the reference kernels only, plain NCHW everywhere;
 *   PZ_ISA_SCALAR  the fast kernels' scalar twins (blocked layouts, packed
 *                  weights, plain C): what a PZ_SCALAR=1 build runs;
 *   PZ_ISA_AVX2, PZ_ISA_AVX512  the SIMD fast kernels (CPUID).
 * Every fast kernel has its reference twin, which the tests compare with. */
typedef enum { PZ_ISA_REF, PZ_ISA_SCALAR, PZ_ISA_AVX2, PZ_ISA_AVX512 } pz_isa;
pz_isa pz_cpu_isa(void);
/* Whether it also has AVX512-VNNI (vpdpbusd: the int8 kernels, quant/). */
int pz_cpu_has_vnni(void);
/* Whether it has AVX2 and AVX-VNNI (vpdpbusd on YMM, VEX: Alder Lake on). */
int pz_cpu_has_avxvnni(void);
/* The host CPU reports AVX-VNNI (CPUID), whatever the build or run caps. */
int pz_cpu_host_avxvnni(void);

/* ---- helpers shared by kernels ------------------------------------------ */

/* [*lo, *hi) is the share of n items of worker ith of nth: contiguous and
 * balanced to one item. */
static inline void pz_split(int64_t n, int ith, int nth, int64_t *lo, int64_t *hi)
{
    int64_t q = n / nth, r = n % nth;
    *lo = ith * q + (ith < r ? ith : r);
    *hi = *lo + q + (ith < r ? 1 : 0);
}

/* floor(a / b) and ceil(a / b) for b > 0, any sign of a. */
static inline int64_t pz_floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
static inline int64_t pz_ceil_div(int64_t a, int64_t b)
{
    return -pz_floor_div(-a, b);
}

/* One element of a float binary function, as the reference computes it
 * (binary_ref.c; the blocked twin in eltwise16c.c calls it too). */
static inline float pz_binary_f32(pz_binary_func f, float a, float b)
{
    switch (f) {
    case PZ_BIN_ADD: return a + b;
    case PZ_BIN_SUB: return a - b;
    case PZ_BIN_MUL: return a * b;
    case PZ_BIN_DIV: return a / b;
    case PZ_BIN_POW: return b == 2.0f ? a * a : powf(a, b);   /* x^2 rounded once (powf's may be 1 ulp off) */
    case PZ_BIN_MAX: return (a > b || a != a) ? a : b;   /* NaN propagates, like numpy */
    case PZ_BIN_MIN: return (a < b || a != a) ? a : b;
    case PZ_BIN_PRELU: return a < 0 ? a * b : a;
    case PZ_BIN_FMOD: return fmodf(a, b);
    case PZ_BIN_MOD: {   /* the divisor's sign, as Python's % */
        float r = fmodf(a, b);
        return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    default: return 0;   /* the integer-only functions */
    }
}

#include "rt/kernels/act.h"   /* pz_act_f32, pz_act_c_f32, pz_act_is_clamp */

static inline int64_t pz_prod(const int64_t *d, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= d[i];
    return p;
}

/* y[i] += a * x[i], i < n; and the dot product of x and y. Eight at a time:
 * blocks of a fixed size that the compiler turns into vector code even at
 * -O2 (whose cost model does not vectorise loops of unknown length). */
static inline void pz_axpy_f32(int64_t n, float a, const float *restrict x, float *restrict y)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) y[i + j] += a * x[i + j];
    for (; i < n; i++) y[i] += a * x[i];
}

static inline float pz_dot_f32(int64_t n, const float *restrict x, const float *restrict y)
{
    float acc[8] = {0}, s = 0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += x[i + j] * y[i + j];
    for (; i < n; i++) s += x[i] * y[i];
    for (int j = 0; j < 8; j++) s += acc[j];
    return s;
}

/* ---- element types: rt/elem.h (dtype/convert.c, dtype/cast_small.c) --- */
#include "rt/elem.h"

/* Element access for kernels written once for every type: with a constant
 * dt == PZ_F32 (an always-inline body called from an f32 entry point) the
 * branch folds away and the access is a plain float load/store. */
static inline double pz_ld(const void *p, int dt, int64_t i)
{
    if (dt == PZ_F32) return ((const float *)p)[i];
    return pz_load_f64(p, dt, i);
}
static inline void pz_st(void *p, int dt, int64_t i, double v)
{
    if (dt == PZ_F32) ((float *)p)[i] = (float)v;
    else pz_store_f64(p, dt, i, v);
}

#define PZ_ALWAYS_INLINE static inline __attribute__((always_inline))

/* ---- convolution (conv_ref.c, conv_transpose_ref.c) -------------------- */

/* Y[n,m,o] = act(B[m] + Z[n,m,o] + sum_{c,k} X[n, g*C/G + c, o*S - P + k*D] * W[m,c,k]).
 * xd = {N, C, spatial...}, yd = {N, M, spatial...}; W is {M, C/G, kernel...}.
 * b and z may be NULL. Work is split over output rows (n, m, all but the last
 * spatial dim). */
void pz_f32_conv__ref(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                      const float *x, const float *w, const float *b, const float *z,
                      float *y, int ith, int nth);

/* The adjoint of conv: Y[n, m, i*S - P + k*D] += X[n, c, i] * W[c, m, k] over
 * the group's channels. W is {C, M/G, kernel...}; the output size comes from yd
 * (it includes output_padding). Split over output planes (n, m). */
void pz_f32_conv_transpose__ref(const pz_conv_params *p, const int64_t *xd, const int64_t *yd,
                                const float *x, const float *w, const float *b, float *y,
                                int ith, int nth);

/* ---- pooling (pool_ref.c) ----------------------------------------------- */

/* Max or average pooling, 1 to 3 spatial dims. Windows are clipped to the
 * input; AVG divides by the window's elements inside the input, or, with
 * count_include_pad, inside the padded input [-pad_begin, I + pad_end).
 * idx (MAX only, may be NULL) gets the flat input index of each maximum,
 * row-major (storage_order 0) or with the spatial dims column-major (1).
 * Split over output rows. */
void pz_f32_pool__ref(const pz_pool_params *p, const int64_t *xd, const int64_t *yd,
                      const float *x, float *y, int64_t *idx, int ith, int nth);
void pz_any_pool__ref(const pz_pool_params *p, int dtype, const int64_t *xd, const int64_t *yd,
                      const void *x, void *y, int64_t *idx, int ith, int nth);

/* ---- normalisation (batchnorm_ref.c, lrn_ref.c, softmax_ref.c) ---------- */

/* y = scale * (x - mean) / sqrt(var + eps) + bias, per channel (dim 1).
 * xd has rank >= 2 (rank 1: C only). Split over (n, c) planes. */
void pz_f32_batchnorm__ref(const pz_bn_params *p, int rank, const int64_t *xd, const float *x,
                           const float *scale, const float *bias, const float *mean,
                           const float *var, float *y, int ith, int nth);

/* Training mode (p->training): the statistics are the batch's own (mean and
 * population variance per channel); run_mean/run_var (NULL: not wanted) get
 * mean * momentum + batch mean * (1 - momentum), var likewise. Split over C. */
void pz_f32_batchnorm_train__ref(const pz_bn_params *p, int rank, const int64_t *xd,
                                 const float *x, const float *scale, const float *bias,
                                 const float *mean, const float *var, float *y,
                                 float *run_mean, float *run_var, int ith, int nth);

/* y = x / (bias + alpha/size * sum_{c' in window} x[c']^2)^beta over dim 1. */
void pz_f32_lrn__ref(const pz_lrn_params *p, int rank, const int64_t *xd, const float *x,
                     float *y, int ith, int nth);

/* Softmax / LogSoftmax of `n` elements spaced `inner` apart, for outer*inner
 * such vectors. Split over vectors. */
/* LayerNormalization over `outer` rows of nn contiguous floats: Y = (X -
 * mean) / sqrt(var + eps) * Scale + B, Scale of ns (nn or 1) elements, B of nb
 * or NULL; mean and inv (1 / sqrt(var + eps)) per row, each may be NULL.
 * Split over rows. */
void pz_f32_layernorm__ref(int64_t outer, int64_t nn, const float *x, const float *scale,
                           int64_t ns, const float *b, int64_t nb, float eps, float *y,
                           float *mean, float *inv, int ith, int nth);
/* The same in ZMM registers (layernorm_avx512.c; float sums, within 1e-6 of
 * the reference); only on a CPU with AVX-512 and a build that has it. */
void pz_f32_layernorm__avx512(int64_t outer, int64_t nn, const float *x, const float *scale,
                              int64_t ns, const float *b, int64_t nb, float eps, float *y,
                              float *mean, float *inv, int ith, int nth);
/* Its scalar twin (layernorm_scalar.c): the same bits on any CPU. */
void pz_f32_layernorm__scalar(int64_t outer, int64_t nn, const float *x, const float *scale,
                              int64_t ns, const float *b, int64_t nb, float eps, float *y,
                              float *mean, float *inv, int ith, int nth);
void pz_f32_softmax__ref(int is_log, int64_t outer, int64_t n, int64_t inner, const float *x,
                         float *y, int ith, int nth);
void pz_any_softmax__ref(int is_log, int dtype, int64_t outer, int64_t n, int64_t inner,
                         const void *x, void *y, int ith, int nth);

/* ---- element-wise (unary_ref.c, binary_ref.c, cast_ref.c) --------------- */

void pz_f32_unary__ref(const pz_unary_params *p, const float *x, float *y, int64_t n,
                       int ith, int nth);
/* Floats through double; integer types: RELU and CLIP only (exact). */
void pz_any_unary__ref(const pz_unary_params *p, int dtype, const void *x, void *y, int64_t n,
                       int ith, int nth);
bool pz_unary_supports(pz_unary_func f, int dtype);

/* Broadcasting of A and B to the output's shape, coalesced: adjacent axes
 * that are contiguous in A, B and Y alike are merged, size-1 axes dropped. */
typedef struct {
    int rank;                      /* >= 1 */
    int64_t dims[PZ_MAX_RANK];     /* the output's (coalesced) shape */
    int64_t sa[PZ_MAX_RANK];       /* element strides of A in that shape, 0 where broadcast */
    int64_t sb[PZ_MAX_RANK];
} pz_bcast;

/* Returns 0, or -1 when A or B does not broadcast to Y's shape. */
int pz_bcast_init(pz_bcast *bc, int ra, const int64_t *da, int rb, const int64_t *db,
                  int ry, const int64_t *dy);

/* Walks worker ith of nth's share of Y's elements one inner segment at a
 * time: seg(ctx, oa, ob, oy, n) gets the segment's start offsets in A, B and
 * Y and its length; along it A advances by sa[rank-1], B by sb[rank-1], Y
 * by 1. The share is pz_split's of Y's elements, whatever A and B are. */
typedef void (*pz_bcast_seg_fn)(void *ctx, int64_t oa, int64_t ob, int64_t oy, int64_t n);
void pz_bcast_walk(const pz_bcast *bc, int ith, int nth, pz_bcast_seg_fn seg, void *ctx);

void pz_f32_binary__ref(const pz_binary_params *p, const pz_bcast *bc, const float *a,
                        const float *b, float *y, int ith, int nth);
/* The float32 BINARY's walk (pz_bcast_walk) with row for each segment
 * (strides sa, sb of A and B along it), then p's activation on the segment
 * (pz_act_f32): pz_f32_binary__ref's with its row, the AVX-512 one's. */
typedef void (*pz_f32_binary_row_fn)(pz_binary_func f, const float *a, int64_t sa, const float *b,
                                     int64_t sb, float *y, int64_t n);
void pz_f32_binary_walk(pz_f32_binary_row_fn row, const pz_binary_params *p, const pz_bcast *bc,
                        const float *a, const float *b, float *y, int ith, int nth);
/* Integer types, exact: Add/Sub/Mul wrap, Div truncates (x/0 = 0,
 * MIN/-1 = MIN), Pow by squaring (negative exponents: 0 unless |base| = 1),
 * PRelu x < 0 ? x*slope : x. A, B and Y all of type dtype. */
void pz_int_binary__ref(const pz_binary_params *p, int dtype, const pz_bcast *bc, const void *a,
                        const void *b, void *y, int ith, int nth);
/* Any types (mixed allowed, e.g. Pow(int64, float)): through double. */
void pz_any_binary__ref(const pz_binary_params *p, const pz_bcast *bc, int ta, const void *a,
                        int tb, const void *b, int ty, void *y, int ith, int nth);

/* Where (where_ref.c): y = c ? a : b element by element, each input read
 * through its strides in Y's shape (elements, 0 where broadcast); elements
 * of es bytes, any type; c is bool (one byte each). */
typedef struct {
    int rank;                      /* >= 1 */
    int64_t dims[PZ_MAX_RANK];     /* Y's shape */
    int64_t sc[PZ_MAX_RANK], sa[PZ_MAX_RANK], sb[PZ_MAX_RANK];
} pz_where_desc;
void pz_any_where__ref(const pz_where_desc *d, size_t es, const uint8_t *c, const void *a,
                       const void *b, void *y, int ith, int nth);

/* Element-wise conversion between any two types (see pz_store_f64/bits);
 * p (NULL: the defaults) says how to round into the small float types. */
void pz_any_cast__ref(const pz_cast_params *p, int tx, const void *x, int ty, void *y, int64_t n,
                      int ith, int nth);

/* ---- linear algebra (gemm_ref.c, matmul_ref.c) -------------------------- */

/* Y[M,N] = act(alpha * A' B' + beta * C), A' = transA ? A^T : A (A' is M x K),
 * B' likewise (K x N). C (may be NULL) is read at c[m*csm + n*csn] (strides 0
 * where broadcast). Split over (row, 64-column tile). */
void pz_f32_gemm__ref(const pz_gemm_params *p, int64_t M, int64_t N, int64_t K, const float *a,
                      const float *b, const float *c, int64_t csm, int64_t csn, float *y,
                      int ith, int nth);

/* Batched matmul with numpy broadcasting of the batch dims. */
typedef struct {
    int nb;                        /* batch dims (of the output) */
    int64_t bdims[PZ_MAX_RANK];
    int64_t sa[PZ_MAX_RANK], sb[PZ_MAX_RANK];   /* batch strides of A and B in elements, 0 = broadcast */
    int64_t M, N, K;
} pz_matmul_shape;
/* Offsets (elements) of batch bi's A and B matrices. */
void pz_matmul_batch_offsets(const pz_matmul_shape *s, int64_t bi, int64_t *oa, int64_t *ob);
void pz_f32_matmul__ref(const pz_matmul_shape *s, const float *a, const float *b, float *y,
                        int ith, int nth);
void pz_any_matmul__ref(const pz_matmul_shape *s, int dtype, const void *a, const void *b,
                        void *y, int ith, int nth);

/* ---- reduction (reduce_ref.c) ------------------------------------------- */

/* p->func over the axes in p->axes_mask; y has the kept axes' elements in
 * order. Floats accumulate in double, integers and bool in 64-bit integers
 * (Sum, Prod, Max, Min, L1, SumSquare exact, wrapping like the type). */
void pz_f32_reduce__ref(const pz_reduce_params *p, int rank, const int64_t *xd, const float *x,
                        float *y, int ith, int nth);
void pz_any_reduce__ref(const pz_reduce_params *p, int dtype, int rank, const int64_t *xd,
                        const void *x, void *y, int ith, int nth);

/* ---- data movement, any type by element size (*_ref.c) ------------------ */

void pz_any_copy__ref(size_t bytes, const void *x, void *y, int ith, int nth);

/* y = x transposed by perm (y dim i is x dim perm[i]). */
void pz_any_transpose__ref(size_t es, int rank, const int64_t *xd, const int *perm,
                           const void *x, void *y, int ith, int nth);

/* Concat/Split along an axis: `outer` rows; part i (its data at
 * parts[i]->data) has chunk[i] bytes per row; the whole has row bytes (the
 * sum of chunks). */
void pz_any_concat__ref(int n, int64_t outer, const size_t *chunk, size_t row,
                        const pz_tensor *const *parts, void *y, int ith, int nth);
void pz_any_split__ref(int n, int64_t outer, const size_t *chunk, size_t row, const void *x,
                       const pz_tensor *const *parts, int ith, int nth);

/* y[o] = x[start + o * step] on every axis; yd gives the counts. */
void pz_any_slice__ref(size_t es, int rank, const int64_t *xd, const int64_t *yd,
                       const int64_t *start, const int64_t *step, const void *x, void *y,
                       int ith, int nth);

/* Pad: for each axis, map[a][o] is the source index of output coordinate o,
 * or -1 for the constant `value` (es bytes). Built by pz_pad_map. */
void pz_any_pad__ref(size_t es, int rank, const int64_t *xd, const int64_t *yd,
                     const int64_t *const *map, const void *value, const void *x, void *y,
                     int ith, int nth);
/* Source index of each of the `out` coordinates of one axis of length n
 * padded by `begin` (negative crops), for the mode. */
void pz_pad_map(pz_pad_mode mode, int64_t n, int64_t begin, int64_t out, int64_t *map);

/* y[outer, j, inner] = x[outer, idx[j], inner]; negative indices count from
 * the end, out-of-range ones give zeros. */
void pz_any_gather__ref(size_t es, int64_t outer, int64_t n, int64_t inner, int itype,
                        const void *idx, int64_t nidx, const void *x, void *y, int ith, int nth);

/* ---- resize (resize_ref.c) ---------------------------------------------- */

/* One axis of a resize: for each output coordinate, n (index, weight) taps
 * (they point into the axis' pools), or `outside` (tf_crop_and_resize:
 * extrapolation value). */
typedef struct {
    int n;
    int outside;
    int64_t *idx;
    double *w;
} pz_resize_tap;

/* Taps per output coordinate at most on one axis: 2 (nearest, linear), 4
 * (cubic); with antialias when downsampling by s, about 2/s or 4/s. */
int pz_resize_width(const pz_resize_params *p, int axis, int64_t in, int64_t out);
/* Fills taps[0..out) for one axis of input length `in`; idx and w are pools
 * of out * pz_resize_width(...) entries the taps point into. */
void pz_resize_taps(const pz_resize_params *p, int axis, int64_t in, int64_t out,
                    pz_resize_tap *taps, int64_t *idx, double *w);
/* Whether the axes before the last two are copied (one tap, weight 1, its
 * own index, inside): only H and W are resized. */
bool pz_resize_only_last_two(int rank, const int64_t *xd, const int64_t *yd,
                             const pz_resize_tap *const *taps);
/* y = sum over the product of the axes' taps; any type through double. */
void pz_any_resize__ref(const pz_resize_params *p, int dtype, int rank, const int64_t *xd,
                        const int64_t *yd, const pz_resize_tap *const *taps, const void *x,
                        void *y, int ith, int nth);

/* ---- comparison, logic, bitwise, Mod, Sum, Mean ---- */

/* COMPARE (compare_ref.c): y[i] = a[i] func b[i] as bool (0 or 1), A and B of
 * type dtype read through bc. Integers compare as integers (uint64 above
 * INT64_MAX included), floats as floats (float16/bfloat16 widened exactly). */
void pz_any_compare__ref(pz_compare_func f, int dtype, const pz_bcast *bc, const void *a,
                         const void *b, uint8_t *y, int ith, int nth);
/* Its fast twins: fast.h, compare. */

/* One element of a COMPARE function, as the reference computes it; a macro
 * so that each type class compares in its own type. NaN: every comparison false, EQ included (IEEE). */
#define PZ_COMPARE(f, a, b)                                                    \
    ((f) == PZ_CMP_EQ ? (a) == (b)                                             \
     : (f) == PZ_CMP_LT ? (a) < (b)                                            \
     : (f) == PZ_CMP_LE ? (a) <= (b)                                           \
     : (f) == PZ_CMP_GT ? (a) > (b)                                            \
     : (f) == PZ_CMP_GE ? (a) >= (b)                                           \
     : (f) == PZ_CMP_AND ? (a) != 0 && (b) != 0                                \
     : (f) == PZ_CMP_OR ? (a) != 0 || (b) != 0                                 \
     : (f) == PZ_CMP_XOR ? ((a) != 0) != ((b) != 0) : 0)

/* LOGIC_UNARY (logic_unary_ref.c) over n elements: x of type tx, y of the
 * output's type (bool, or tx for BITNOT). */
void pz_any_logic_unary__ref(const pz_logic_unary_params *p, int tx, const void *x, void *y,
                             int64_t n, int ith, int nth);

/* SUM (sum_ref.c): y = x[0] + ... + x[k-1] (then / k when mean), input i
 * read through bc[i] (A: input i, B: Y itself); y of type dtype, a float
 * type, every input of it. float32 adds in float, the others through double
 * rounded to the type after each add. */
void pz_any_sum__ref(int mean, int dtype, int k, const pz_bcast *bc, const void *const *x,
                     void *y, int ith, int nth);

/* ---- element-wise math ---- */

/* ---- reductions, ArgMax/ArgMin, Hardmax, CumSum/CumProd ---- */

/* Sum, Max or Mean (f) of each of `rows` contiguous rows of len floats;
 * the reference's fast twin (reduce/reduce_rows.c). */
void pz_f32_reduce_rows__blocked(pz_reduce_func f, int64_t rows, int64_t len,
                                 const float *restrict x, float *restrict y, int ith, int nth);

/* X viewed as [outer, n, inner], the op along the middle axis; a unit of work
 * is one (outer, inner) line. (reduce/arg_ref.c, reduce/cumulative_ref.c,
 * norm/lpnorm_ref.c) */
typedef struct {
    int64_t outer, n, inner;
} pz_axis_shape;
/* The view of dims [rank] along axis; coerce_2d: along every axis from axis on. */
static inline pz_axis_shape pz_axis_shape_of(int rank, const int64_t *dims, int axis,
                                             int coerce_2d)
{
    pz_axis_shape s = {pz_prod(dims, axis), 1, 1};
    for (int d = axis; d < rank; d++) {
        if (d == axis || coerce_2d) s.n *= dims[d];
        else s.inner *= dims[d];
    }
    return s;
}
/* ArgMax/ArgMin: y (int64) [outer, inner]; Hardmax: y of x's type, x's shape. */
void pz_any_arg__ref(const pz_arg_params *p, int dtype, const pz_axis_shape *s, const void *x,
                     void *y, int ith, int nth);
/* CumSum/CumProd (p->axis already applied to s). */
void pz_any_cumulative__ref(const pz_cum_params *p, int dtype, const pz_axis_shape *s,
                            const void *x, void *y, int ith, int nth);
/* y = x / ||x||_p along the axis, floats. */
void pz_any_lpnorm__ref(int pnorm, int dtype, const pz_axis_shape *s, const void *x, void *y,
                        int ith, int nth);

/* ---- indexing and shaping ---- */

/* A strided view (rt/ops/view.c's plan): Y, seen as dims[0..rank), reads X
 * at base + sum(c[k] * stride[k]) where every c[k] is in [lo[k], hi[k]),
 * and is zero elsewhere. */
#define PZ_VIEW_MAX_RANK 16
typedef struct {
    int rank;                                  /* 1 .. PZ_VIEW_MAX_RANK */
    int64_t dims[PZ_VIEW_MAX_RANK];
    int64_t stride[PZ_VIEW_MAX_RANK];          /* X elements per step (0: repeated) */
    int64_t lo[PZ_VIEW_MAX_RANK], hi[PZ_VIEW_MAX_RANK];
    int64_t base;                              /* X offset of coordinate 0 (may lie outside) */
} pz_view_desc;
/* Plans the view of p for X and Y of these shapes; 0, or -1 with a reason in
 * *why when the shapes do not fit the params. */
int pz_view_plan(const pz_view_params *p, int xr, const int64_t *xd, int yr, const int64_t *yd,
                 pz_view_desc *d, const char **why);
void pz_any_view__ref(const pz_view_desc *d, size_t es, const void *x, void *y, int ith, int nth);

/* Index i of an int32/int64 tensor normalised for an axis of size n
 * (negative counts from the end); -1 when out of range. */
static inline int64_t pz_index_at(const void *idx, int itype, int64_t i, int64_t n)
{
    int64_t k = itype == PZ_I32 ? ((const int32_t *)idx)[i] : ((const int64_t *)idx)[i];
    if (k < 0) k += n;
    return k >= 0 && k < n ? k : -1;
}

/* Trilu over `batch` matrices rows x cols. */
void pz_any_trilu__ref(size_t es, int64_t batch, int64_t rows, int64_t cols, int upper, int64_t k,
                       const void *x, void *y, int ith, int nth);
/* GatherElements: Y (the shape of indices, dims id[rank]) reads X (strides
 * xs in elements, dim n on axis) at each coordinate with axis replaced by
 * the index. */
void pz_any_gather_elements__ref(size_t es, int rank, const int64_t *id, const int64_t *xs,
                                 int axis, int64_t n, int itype, const void *idx, const void *x,
                                 void *y, int ith, int nth);
/* Scatter: Y = data, then each update combined into Y by `red` (one worker:
 * indices may repeat). ScatterElements (nd 0): updates of dims ud[rank];
 * ScatterND (nd 1): ud = {tuples, k, slice}. Out-of-range indices skip the
 * update. */
void pz_any_scatter__ref(int dt, const pz_scatter_params *p, int rank, const int64_t *xd,
                         const int64_t *ud, int itype, const void *idx, const void *data,
                         const void *upd, void *y);
/* GatherND: for each of `tuples` index tuples of k entries, Y's slice of
 * `slice` elements copies X's, tuple t in batch t / per_batch; xd are the
 * dims of X after the batch dims (k of them index). Out of range: zeros. */
void pz_any_gather_nd__ref(size_t es, int64_t tuples, int64_t per_batch, int k, const int64_t *xd,
                           int64_t batch_elems, int64_t slice, int itype, const void *idx,
                           const void *x, void *y, int ith, int nth);

/* ---- normalization, quantization, losses, signal ---- */

/* LOSS (loss_ref.c): X [N, C, D] of type dt, target t [N, D] of type tt,
 * weight w [C] (NULL: 1s); loss: [N, D] (reduction NONE) or one element;
 * logp (SCE only, may be NULL) [N, C, D]. A target out of [0, C) that is not
 * ignored gives NaN. NONE splits over the N*D vectors; SUM and MEAN take one
 * worker (the prepare sets nth 1). */
void pz_any_loss__ref(const pz_loss_params *p, int dt, int64_t N, int64_t C, int64_t D,
                      const void *x, int tt, const void *t, const void *w, void *loss,
                      void *logp, int ith, int nth);

/* NORM (norm_ref.c): `outer` rows of nn contiguous elements of type dt,
 * normalised (center 0: no mean subtracted, RMS); element i of row r takes
 * scale and bias element ((r % sg) * sn + i / sdiv) % smod (scale, bias may
 * be NULL). Sums in double. Split over rows. */
typedef struct {
    int64_t outer, nn;
    int center;
    double eps;
    int64_t sg, sn, sdiv, smod;
} pz_norm_desc;
void pz_any_norm__ref(const pz_norm_desc *d, int dt, const void *x, const void *scale,
                      const void *bias, void *y, int ith, int nth);

/* v rounded to the precision of float type dt (ONNX's quantisers compute
 * x / scale and the scale products in the float inputs' type). */
static inline double pz_round_to(int dt, double v)
{
    uint64_t buf;
    pz_store_f64(&buf, dt, 0, v);
    return pz_load_f64(&buf, dt, 0);
}

/* QUANT (quant_ref.c): X viewed as [outer, D, inner] around the axis;
 * element (o, a, i) takes scale and zero point element
 * o*so + (a/block)*sd + i*si (per tensor: all 0; per axis: sd 1; blocked:
 * the scale has X's shape with D/block along the axis). Split over
 * elements. */
typedef struct {
    int64_t outer, D, inner, block;
    int64_t so, sd, si;
} pz_quant_desc;
/* The integer range of dt (-inf, inf for the float types). */
void pz_quant_range(int dt, double *lo, double *hi);
/* y = saturate(round_half_even(x / s) + zp) into ty (zp of type ty, may be
 * NULL); float8/float4 ty: x / s + zp rounded, saturate or not. */
void pz_any_quantize__ref(const pz_quant_desc *d, int saturate, int tx, const void *x, int ts,
                          const void *s, const void *zp, int ty, void *y, int ith, int nth);
/* y = (x - zp) * s, computed in the scale's type ts, stored as ty (zp of
 * X's type, may be NULL). */
void pz_any_dequantize__ref(const pz_quant_desc *d, int tx, const void *x, int ts, const void *s,
                            const void *zp, int ty, void *y, int ith, int nth);
/* DynamicQuantizeLinear: scale = (max(x, 0) - min(x, 0)) / 255, zp =
 * round(-min / scale) in [0, 255], y = saturate(round(x / scale) + zp).
 * Each worker scans all of x for the range. */
void pz_f32_dynamic_quantize__ref(int64_t n, const float *x, uint8_t *y, float *scale,
                                  uint8_t *zp, int ith, int nth);

/* QMATMUL (qmatmul_ref.c): the batched matmul of (a - azp) and (b - bzp),
 * exact in int64 (azp per row of A when azp_row, bzp per column of B when
 * bzp_col, NULL: 0). q NULL: y int32 (MatMulInteger); else (QLinearMatMul)
 * y = saturate(round(sum * (as * bs / ys)) + yzp) into ty, the factor in
 * the scales' type ts, bs per column when bs_col. Split over outputs. */
typedef struct {
    pz_matmul_shape s;
    int ta, tb, ty, ts;
    int azp_row, bzp_col, bs_col;
} pz_qmatmul_desc;
typedef struct {
    const void *as, *bs, *ys, *yzp;   /* yzp of type ty, may be NULL */
} pz_qmatmul_scales;
void pz_any_qmatmul__ref(const pz_qmatmul_desc *d, const void *a, const void *b,
                         const void *azp, const void *bzp, const pz_qmatmul_scales *q, void *y,
                         int ith, int nth);

/* ---- vision and attention ---- */

/* Attention (attention/attention_ref.c). Strides in elements of b, head, row
 * of Q, K, V and Y (3-D or 4-D inputs alike; the last axis is contiguous);
 * past and present K/V are [B, Hkv, rows, D] contiguous; mask strides of
 * (b, h, s, t), 0 where broadcast, its last dim mask_t. Any float type
 * through double; scratch holds T doubles per worker. */
typedef struct {
    int dtype, mask_dtype;            /* mask_dtype: PZ_BOOL or a float type */
    int64_t B, Hq, Hkv, S, L, P, T, Dk, Dv;   /* T = P + L */
    int64_t qs[3], ks[3], vs[3], ys[3];
    int64_t ms[4], mask_t;
    int has_mask, has_past, has_nonpad, causal, qk_mode;
    double scale, softcap;
} pz_attention_desc;
void pz_any_attention__ref(const pz_attention_desc *d, const void *q, const void *k,
                           const void *v, const void *mask, const void *past_k,
                           const void *past_v, const int64_t *nonpad, void *y, void *present_k,
                           void *present_v, void *qk, double *scratch, int ith, int nth);

/* GridSample (vision/grid_sample_ref.c): X [N, C, in...], grid [N, out...,
 * nsp] -> Y [N, C, out...], nsp 1 to 3, any float type through double. */
void pz_any_grid_sample__ref(const pz_grid_sample_params *p, int dt, int nsp, const int64_t *xd,
                             const int64_t *yd, const void *x, const void *grid, void *y,
                             int ith, int nth);

/* RotaryEmbedding (vision/rotary_ref.c): strides xs of (b, head, row) of X
 * and Y; the caches [crows, cw] (with position ids) or [B, S, cw]; a
 * position outside [0, crows) gives NaN (a run-time value: no error path). */
typedef struct {
    int64_t B, S, H, D, rot, cw, crows;
    int64_t xs[3];
    int interleaved;
} pz_rotary_desc;
void pz_any_rotary__ref(const pz_rotary_desc *d, int dt, const void *x, const void *cosc,
                        const void *sinc, const int64_t *pos, void *y, int ith, int nth);

/* Col2Im (vision/col2im_ref.c): X [N, C*prod(block), L] -> Y [N, C,
 * image...], any type through double. */
void pz_any_col2im__ref(const pz_col2im_params *p, int dt, int64_t N, int64_t C,
                        const void *x, void *y, int ith, int nth);

/* AffineGrid (vision/affine_grid_ref.c): theta [N, r, r+1] -> grid [N,
 * size..., r], any float type through double. */
void pz_any_affine_grid__ref(const pz_affine_grid_params *p, int dt, int64_t N,
                             const void *theta, void *grid, int ith, int nth);

/* RoiAlign (vision/roi_align_ref.c): any float type through double; a
 * batch index outside X gives NaN (a run-time value: no error path). */
void pz_any_roi_align__ref(const pz_roi_align_params *p, int dt, const int64_t *xd,
                           int64_t nroi, const void *x, const void *rois, const int64_t *bidx,
                           void *y, int ith, int nth);

/* MaxUnpool (vision/max_unpool_ref.c): Y [yrank: ydims] zero but for
 * Y[I[i]] = X[i], i < nx; I indexes p's dims when p->rank > 0 (each index
 * unravelled there, ravelled in Y), else Y; elements of es bytes. */
void pz_any_max_unpool__ref(const pz_max_unpool_params *p, int yrank, const int64_t *ydims,
                            size_t es, int64_t nx, const void *x, const int64_t *idx, void *y,
                            int ith, int nth);

/* DeformConv (vision/deform_conv_ref.c): X [N, C, H, W], W [M, C/G, kh, kw],
 * offset [N, OG*2*kh*kw, OH, OW], B [M]?, mask [N, OG*kh*kw, OH, OW]?
 * -> Y [N, M, OH, OW]; any float type through double. */
void pz_any_deform_conv__ref(const pz_deform_conv_params *p, int dt, const int64_t *xd,
                             const int64_t *yd, const void *x, const void *wt, const void *off,
                             const void *b, const void *mask, void *y, int ith, int nth);

/* The kernels that have only a reference form: kernels_ref.h. */
#include "rt/kernels/kernels_ref.h"

#endif
