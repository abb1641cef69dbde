/* pz_op_params.h - the params of the vision and attention kinds (ATTENTION,
 * GRID_SAMPLE, ROTARY, MAX_UNPOOL, COL2IM, AFFINE_GRID, ...), and of TOPK, LP_POOL, EINSUM,
 * ONEHOT, REVERSE_SEQUENCE, TENSOR_SCATTER, MVN, RNN, QADD, QGEMM, UNIQUE, COMPRESS
 * and NMS (one struct each, as in
 * pz_rt.h, which includes this after PZ_MAX_RANK and PZ_MAX_SPATIAL; a
 * part of the SDK beside it). */
#ifndef PZ_OP_PARAMS_H
#define PZ_OP_PARAMS_H

#include <stdint.h>

/* ---- params: vision and attention ---- */

/* ATTENTION (ONNX Attention, opset 23/24): Y = softmax(cap(Q K^T * scale) +
 * bias) V per head; bias from attn_mask (bool: false -> -inf; columns beyond
 * the mask's last dim -> -inf), is_causal and nonpad_kv_seqlen. Heads of a
 * 3-D input come from q_num_heads/kv_num_heads; Q head h reads K/V head
 * h / (q_heads / kv_heads) (GQA). qk_mode: what output 3 holds, 0 and 1 the
 * capped scores, 2 with the bias added, 3 the softmax. */
typedef struct {
    int q_num_heads, kv_num_heads;    /* 0: from the 4-D inputs' dim 1 */
    int is_causal;
    int qk_mode;
    float scale;                      /* final (the compiler resolves 1/sqrt(head size)) */
    float softcap;                    /* 0: none */
    int batched;                      /* 1: Q [.., heads, S, Dk], K, V of Q's batch dims, the
                                       * mask to [.., S, T] (ScaledDotProductAttention);
                                       * 2: the same, Q, K, V, Y rows first [.., S, heads, D] */
    int64_t qkv_w;                    /* batched 2 only; > 0: inputs 0, 1, 2 are one tensor
                                       * X (a QKV GEMM's output) of rows qkv_w floats apart,
                                       * Q, K, V read in place at columns qkv_off[]: their
                                       * shapes Y's with D = qkv_dk for Q and K (T = S) */
    int64_t qkv_off[3];
    int64_t qkv_dk;
} pz_attention_params;

/* GRID_SAMPLE (ONNX GridSample, 2-D and 3-D spatial): Y[n, c, o] samples
 * X[n, c] at grid[n, o] (normalised to [-1, 1], x first). */
typedef enum { PZ_GS_LINEAR, PZ_GS_NEAREST, PZ_GS_CUBIC } pz_gs_mode;
typedef enum { PZ_GS_ZEROS, PZ_GS_BORDER, PZ_GS_REFLECTION } pz_gs_padding;
typedef struct {
    pz_gs_mode mode;
    pz_gs_padding padding;
    int align_corners;
} pz_grid_sample_params;

/* ROTARY (ONNX RotaryEmbedding): X [B, H, S, D] or [B, S, H*D]. */
typedef struct {
    int interleaved;
    int num_heads;                    /* 3-D X */
    int rotary_dim;                   /* 0: the head size */
} pz_rotary_params;

/* MAX_UNPOOL (ONNX MaxUnpool): I holds flat indices into a tensor of
 * dims[rank] (the default output), which Y, padded at the end of each dim
 * (output_shape), holds at its start; rank 0: I indexes Y itself. */
typedef struct {
    int rank;
    int64_t dims[PZ_MAX_RANK];
} pz_max_unpool_params;

/* COL2IM (ONNX Col2Im): X [N, C*prod(block), L] -> Y [N, C, image...]. */
typedef struct {
    int nsp;
    int64_t image[PZ_MAX_SPATIAL], block[PZ_MAX_SPATIAL];
    int64_t stride[PZ_MAX_SPATIAL], dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL], pad_end[PZ_MAX_SPATIAL];
} pz_col2im_params;

/* AFFINE_GRID (ONNX AffineGrid): theta [N, r, r+1] -> grid [N, size..., r]. */
typedef struct {
    int nsp;                          /* r: 2 or 3 */
    int64_t size[PZ_MAX_SPATIAL];     /* the output's spatial dims */
    int align_corners;
} pz_affine_grid_params;

/* ROI_ALIGN (ONNX RoiAlign): X [N, C, H, W], rois [R, 4] (x1, y1, x2, y2),
 * batch_indices int64 [R] -> Y [R, C, output_height, output_width]. */
typedef struct {
    int mode_max;                     /* 0: avg */
    int half_pixel;                   /* coordinate_transformation_mode; 0: output_half_pixel */
    int64_t output_height, output_width, sampling_ratio;   /* sampling_ratio 0: adaptive */
    float spatial_scale;
} pz_roi_align_params;

/* DEFORM_CONV (ONNX DeformConv, 2-D): X, W, offset, B?, mask?. */
typedef struct {
    int64_t group, offset_group;
    int64_t kernel[2], stride[2], dilation[2], pad_begin[2], pad_end[2];
} pz_deform_conv_params;

/* TOPK (ONNX TopK): X -> Values (X's type) and Indices (int64), X's shape
 * but k along axis; ties go to the lower index. */
typedef struct {
    int axis;
    int64_t k;                        /* -1: input 1's (K), read at run time */
    int largest;                      /* 0: the k smallest */
    int sorted;                       /* 0: any order; the kernel sorts anyway */
} pz_topk_params;

/* RESHAPE (ONNX Reshape of a shape read at run time): Y is X's elements in
 * the dims of input 1 (0 copies X's dim unless allowzero, one -1 takes what
 * is left); Y is planned at a bound (rt/ops/reshape.c). With axes 1 input 1
 * is Unsqueeze's axes (a 1 inserted at each), with -1 Squeeze's (each dim,
 * of size 1, removed). */
typedef struct {
    int allowzero;
    int axes;   /* 0: input 1 is a shape; 1: Unsqueeze's axes; -1: Squeeze's */
    int64_t minus_dim;   /* > 0: what the shape's -1 must come to (the compiler took
                          * it as fixed at every run, op_dim_fixed); 0: any */
} pz_reshape_params;

/* LP_POOL (ONNX LpPool): X [N, C, D1..Dk] -> Y [N, C, O1..Ok], the p-norm
 * of each window; padding adds nothing. */
typedef struct {
    int nsp;
    int64_t kernel[PZ_MAX_SPATIAL], stride[PZ_MAX_SPATIAL], dilation[PZ_MAX_SPATIAL];
    int64_t pad_begin[PZ_MAX_SPATIAL], pad_end[PZ_MAX_SPATIAL];
    int64_t p;
} pz_lp_pool_params;

/* EINSUM (ONNX Einsum): label l of axis a of input i is in_label[i *
 * PZ_MAX_RANK + a]; labels 0..out_rank-1 are the output's axes in order,
 * the others are summed over. The compiler expanded any ellipsis. */
#define PZ_EINSUM_MAX_IN 4
#define PZ_EINSUM_MAX_LABELS 16
typedef struct {
    int n_in, n_labels, out_rank;
    int in_rank[PZ_EINSUM_MAX_IN];
    int in_label[PZ_EINSUM_MAX_IN * PZ_MAX_RANK];
} pz_einsum_params;

/* ONEHOT (ONNX OneHot): indices [d...] -> Y [d... with depth inserted at
 * axis], values [off, on]; an index in [-depth, depth) is on. */
typedef struct {
    int axis;
    int64_t depth;
} pz_onehot_params;

/* REVERSE_SEQUENCE (ONNX ReverseSequence): the first sequence_lens[b]
 * elements along time_axis of batch b reversed. */
typedef struct {
    int batch_axis, time_axis;
} pz_reverse_sequence_params;

/* TENSOR_SCATTER (ONNX TensorScatter): update written into a copy of
 * past_cache along axis from write_indices[b]; circular: modulo the axis. */
typedef struct {
    int axis;
    int circular;
} pz_tensor_scatter_params;

/* MVN (ONNX MeanVarianceNormalization): (X - mean) / (std + 1e-9) over the
 * axes of axes_mask (bit a: axis a). */
typedef struct {
    int axes_mask;
} pz_mvn_params;

/* ---- params: recurrent layers ---- */

/* RNN: ONNX RNN, GRU and LSTM. In: X, W, R, B?, sequence_lens? (int32),
 * initial_h?, initial_c? (LSTM), P? (LSTM peepholes); out: Y?, Y_h?, Y_c?
 * (LSTM), each as ONNX lays it out (layout 0: [seq, ...], 1: [batch, ...]).
 * Gates in ONNX order (LSTM iofc, GRU zrh); act[d*3 + k] is direction d's
 * k-th activation (RNN f; GRU f, g; LSTM f, g, h) with its alpha and beta
 * (the defaults resolved by the compiler). clip < 0: no clip. */
typedef enum { PZ_RNN_CELL_RNN, PZ_RNN_CELL_GRU, PZ_RNN_CELL_LSTM, PZ_RNN_CELL_COUNT_ } pz_rnn_cell;
typedef enum { PZ_RNN_FORWARD, PZ_RNN_REVERSE, PZ_RNN_BIDIRECTIONAL, PZ_RNN_DIR_COUNT_ } pz_rnn_dir;
typedef enum {
    PZ_RNN_ACT_RELU, PZ_RNN_ACT_TANH, PZ_RNN_ACT_SIGMOID, PZ_RNN_ACT_AFFINE,
    PZ_RNN_ACT_LEAKY_RELU, PZ_RNN_ACT_THRESHOLDED_RELU, PZ_RNN_ACT_SCALED_TANH,
    PZ_RNN_ACT_HARD_SIGMOID, PZ_RNN_ACT_ELU, PZ_RNN_ACT_SOFTSIGN, PZ_RNN_ACT_SOFTPLUS,
    PZ_RNN_ACT_COUNT_
} pz_rnn_act_func;
typedef struct {
    pz_rnn_cell cell;
    pz_rnn_dir direction;
    int layout;                       /* 0 or 1 */
    int64_t hidden;
    int input_forget;                 /* LSTM: f = 1 - i */
    int linear_before_reset;          /* GRU */
    float clip;                       /* < 0: none; else gate inputs held in [-clip, clip] */
    int act[6];                       /* pz_rnn_act_func, [direction][3] */
    float alpha[6], beta[6];
} pz_rnn_params;

/* QADD (QLinearAdd): C = sat(nearbyint(((A - za) sa + (B - zb) sb) / sc) + zc),
 * the sum in float32; act Relu clamps at zc. A, B, C uint8 or int8, one shape. */
typedef struct {
    pz_act act;
} pz_qadd_params;

/* QGEMM (QGemm): Y = requant((A - za) B' + C) with y's scale, or the float32
 * product (a_scale b_scale[n]) without one; act a clamp of a requantized Y. */
typedef struct {
    int trans_b;
    pz_act act;
} pz_qgemm_params;

/* A block's precision (pz_net_block_precision): PZ_PREC_BF16 rounds the
 * operands of the layers that have bf16 kernels (MatMul, Gemm with a constant
 * B; Conv on the direct NCHW16c or Winograd kernel, conv16c_bf16.h) to bfloat16 and sums in fp32 (AVX512-BF16, else a scalar twin that
 * rounds the same way); PZ_PREC_F16W computes in fp32 but stores those
 * layers' weights in fp16 (--weights fp16, gemm_f16w.h: half the bytes for
 * a memory-bound FC layer); PZ_PREC_I8DYN multiplies those layers in int8,
 * the weights quantized per column once and the activations per row as the
 * layer runs (qgemm_dyn.h), summing in int32; every other layer computes in
 * fp32. */
typedef enum { PZ_PREC_FP32, PZ_PREC_BF16, PZ_PREC_F16W, PZ_PREC_I8DYN } pz_precision;

/* Layers whose outputs have run-time shapes (NONZERO, UNIQUE, COMPRESS,
 * NMS): each output is planned at a bound and run sets its actual dims
 * (pz_net_output_shape), the data packed at the actual shape. */

/* UNIQUE (ONNX Unique): the distinct slices of X along axis (-1: of the
 * flattened X), sorted (1: ascending, lexicographic) or in order of first
 * occurrence. */
typedef struct {
    int axis;
    int sorted;
} pz_unique_params;

/* COMPRESS (ONNX Compress): the slices of X along axis (-1: the elements of
 * the flattened X) whose condition is true; condition past X's length is
 * ignored. */
typedef struct {
    int axis;
} pz_compress_params;

/* SHAPE (ONNX Shape of a run-time shape): dims [start, end) of X. */
typedef struct {
    int start, end;
} pz_shape_params;

/* NMS (ONNX NonMaxSuppression): per batch and class, boxes by descending
 * score (ties: lower index), score > score_threshold, greedy IoU >
 * iou_threshold suppression, at most max_out each. */
typedef struct {
    int center_point_box;             /* 1: [xc, yc, w, h]; 0: two corners [y1, x1, y2, x2] */
    int64_t max_out;                  /* max_output_boxes_per_class (a compile-time constant) */
} pz_nms_params;

/* TFIDF (ONNX TfIdfVectorizer): X int32/int64 [C] or [N, C], the pool's
 * n-grams sorted by their tokens (int64, sizes 1 .. 16 one after the
 * other), each one's output index (int64) and weight (float) -> Y float
 * [W] or [N, W]. An n-gram takes n tokens spaced d = 1 .. max_skip + 1
 * apart; sizes min_gram .. max_gram count (size 1 only at d = 1). Y[index]
 * = count (TF), weight when count > 0 (IDF), count * weight (TFIDF). */
typedef enum { PZ_TFIDF_TF, PZ_TFIDF_IDF, PZ_TFIDF_TFIDF } pz_tfidf_mode;
typedef struct {
    int min_gram, max_gram;
    int mode;                         /* pz_tfidf_mode */
    int64_t max_skip;
    int64_t width;                    /* W */
    int64_t count[16];                /* n-grams of size s + 1 in the pool */
} pz_tfidf_params;

/* TREES (ONNX TreeEnsemble, TreeEnsembleRegressor): X float/double [N, F],
 * the forest as two constants (src/ops/trees.h packs them) -> Y [N,
 * n_targets] of X's type. int64: per node (feature, mode, true child, false
 * child, missing goes true, membership set or -1), the roots, per leaf
 * group (first entry, count), per entry its target, per set (first member,
 * count); float64: per node its split, per entry its weight, the members,
 * per target its base value. A child or root >= 0 is a node, -(g + 1) leaf
 * group g. Values compare in X's type; a node goes true when the comparison
 * holds, or X is NaN and missing goes true. With one target the post
 * transform is not applied, as ONNX Runtime does. */
typedef enum {
    PZ_TREES_LEQ, PZ_TREES_LT, PZ_TREES_GTE, PZ_TREES_GT, PZ_TREES_EQ, PZ_TREES_NEQ,
    PZ_TREES_MEMBER
} pz_trees_mode;
typedef enum { PZ_TREES_AVERAGE, PZ_TREES_SUM, PZ_TREES_MIN, PZ_TREES_MAX } pz_trees_agg;
typedef enum {
    PZ_TREES_NONE, PZ_TREES_SOFTMAX, PZ_TREES_LOGISTIC, PZ_TREES_SOFTMAX_ZERO
} pz_trees_post;
typedef struct {
    int64_t n_nodes, n_roots, n_groups, n_entries, n_sets, n_members, n_targets;
    int aggregate;                    /* pz_trees_agg */
    int post;                         /* pz_trees_post */
} pz_trees_params;

/* IMAGE_DECODER (ONNX ImageDecoder): encoded bytes (uint8 [n]) -> uint8 [H,
 * W, 3] (RGB, BGR) or [H, W, 1] (Grayscale), planned at a bound (the
 * output's declared shape) and set to the image's size when it runs (a
 * run-time shape). Bytes that are not a readable image, or an image larger
 * than the bound, fail the run (pz_net_run_error). */
typedef enum { PZ_PIXEL_RGB, PZ_PIXEL_BGR, PZ_PIXEL_GRAY } pz_pixel_format;
typedef struct {
    int pixel_format;                 /* pz_pixel_format */
} pz_image_decoder_params;

/* RANDOM (ONNX RandomUniform(Like), RandomNormal(Like), Multinomial): Y of
 * any number type filled from a counter-based stream (rt/ops/random.c):
 * UNIFORM a + (b - a) * u, u in [0, 1); NORMAL a + b * z, z standard
 * normal; MULTINOMIAL Y [N, samples] int32/int64, class indices drawn from
 * softmax(logits [N, C]). has_seed: the stream is a function of seed, and
 * run k of a net gives the k-th values, so a rerun of the program repeats
 * them; else the key is taken from the clock at prepare. */
typedef enum { PZ_RANDOM_UNIFORM, PZ_RANDOM_NORMAL, PZ_RANDOM_MULTINOMIAL } pz_random_mode;
typedef struct {
    int mode;                         /* pz_random_mode */
    int has_seed;
    double a, b;                      /* low, high; mean, scale */
    double seed;
} pz_random_params;

/* String layers (rt/pz_strings.h): the strings a node's attributes give
 * (keys, stopwords, a pattern, a delimiter) come as uint8 constants of
 * NUL-terminated strings, one after another.
 * STR_SPLIT (ONNX StringSplit): X string, delimiter -> Y string [..X, width]
 * (parts, padded with ""), Z int64 [..X] (counts). An empty delimiter splits
 * at runs of whitespace, ignoring it at both ends; maxsplit < 0: no limit.
 * width is decided at compile (the compiler knows X). */
typedef struct {
    int64_t maxsplit;
    int64_t width;
} pz_str_split_params;

/* STR_NORMALIZE (ONNX StringNormalizer): X string [C] or [1, C], stopwords
 * -> Y string: X without the stopwords (compared as case_sensitive says),
 * case changed (ASCII letters), [1] "" when none is left. */
typedef enum { PZ_CASE_NONE, PZ_CASE_LOWER, PZ_CASE_UPPER } pz_case_change;
typedef struct {
    int case_change;                  /* pz_case_change */
    int case_sensitive;
} pz_str_norm_params;

/* FILL (ConstantOfShape with its shape read at run time, rt/ops/fill.c):
 * every element of Y is `bits`, the value's bytes as one element of Y's
 * type, little-endian from the lowest byte. bounded 1: Y is planned at a
 * bound on each dim (the shape traced to a Shape of a bounded tensor); 0:
 * the net allocates Y. */
typedef struct {
    int64_t bits;
    int bounded;
} pz_fill_params;

/* LOOP_BEGIN (a Loop run at run time, rt/ops/loop.c): grow 1 when the body
 * resizes a carried value: its outputs are allocated at run time and LOOP
 * sizes each v_in to the body's v_out per iteration. */
typedef struct {
    int grow;
} pz_loop_params;

#endif
