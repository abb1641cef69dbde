/* pz_op_kinds.h - the runtime's layer kinds and unary functions, one line
 * each. The lists generate the enums pz_op_kind and pz_unary_func (pz_rt.h),
 * the descriptors' externs (rt/ops/ops.h), the table pz_rt_ops[]
 * (rt/ops/registry.c) and the enumerators' names the code generator prints.
 *
 * The order is the enumerators' values, which generated programs and saved
 * schedules hold: append, never reorder.
 *
 *   X(KIND, sym): the layer kind PZ_OP_KIND, whose descriptor pz_rt_op_sym
 *   is defined in src/rt/ops/ (its params, inputs and outputs are there).
 */
#ifndef PZ_OP_KINDS_H
#define PZ_OP_KINDS_H

#define PZ_OP_KINDS(X)                                                         \
    X(CONV, conv)                      /* in: X, W, B?, Z? (residual) */      \
    X(CONV_TRANSPOSE, conv_transpose)  /* in: X, W, B? */                     \
    X(POOL, pool)                      /* in: X  out: Y, Indices? */          \
    X(BATCHNORM, batchnorm)            /* in: X, scale, bias, mean, var */    \
    X(UNARY, unary)                    /* in: X */                            \
    X(BINARY, binary)                  /* in: A, B (broadcast) */             \
    X(GEMM, gemm)                      /* in: A, B, C? */                     \
    X(MATMUL, matmul)                  /* in: A, B, C? (bias along N) */      \
    X(SOFTMAX, softmax)                /* in: X */                            \
    X(LRN, lrn)                        /* in: X */                            \
    X(REDUCE_MEAN, reduce_mean)        /* in: X */                            \
    X(COPY, copy)                      /* in: X (Identity, Reshape, ...) */   \
    X(TRANSPOSE, transpose)            /* in: X */                            \
    X(CONCAT, concat)                  /* in: X0..Xn */                       \
    X(SPLIT, split)                    /* in: X  out: Y0..Yn */               \
    X(SLICE, slice)                    /* in: X */                            \
    X(PAD, pad)                        /* in: X */                            \
    X(GATHER, gather)                  /* in: X, indices */                   \
    X(CAST, cast)                      /* in: X (to the output's dtype) */    \
    X(RESIZE, resize)                  /* in: X */                            \
    X(LAYERNORM, layernorm)            /* in: X, Scale, B? */                 \
    X(WHERE, where)                    /* in: condition, X, Y (broadcast) */    \
    /* comparison, logic, bitwise, Mod, Sum, Mean */                  \
    X(COMPARE, compare)                /* in: A, B (broadcast)  out: bool */  \
    X(LOGIC_UNARY, logic_unary)        /* in: X (Not, BitwiseNot, IsNaN, IsInf) */ \
    X(SUM, sum)                        /* in: X0..Xn (broadcast) */           \
    /* element-wise math */                                           \
    /* reductions, ArgMax/ArgMin, Hardmax, CumSum/CumProd */          \
    X(ARG, arg)                        /* in: X  (ArgMax, ArgMin, Hardmax) */ \
    X(CUMULATIVE, cumulative)          /* in: X, axis? (CumSum, CumProd) */   \
    X(LPNORM, lpnorm)                  /* in: X */                            \
    /* indexing and shaping */                                        \
    X(VIEW, view)                      /* in: X (Expand, Tile, ...) */        \
    X(TRILU, trilu)                    /* in: X, k? */                        \
    X(GATHER_ELEMENTS, gather_elements) /* in: X, indices */                  \
    X(GATHER_ND, gather_nd)            /* in: data, indices */                \
    X(SCATTER, scatter)                /* in: data, indices, updates */       \
    /* normalization, quantization, losses, signal */                 \
    X(LOSS, loss)                      /* in: X, target, weight?  out: loss, log_prob? */ \
    X(NORM, norm)                      /* in: X, scale?, bias? (RMS, Instance, Group) */ \
    X(QUANT, quant)                    /* in: X, scale?, zero_point?  out: Y, scale?, zp? */ \
    X(QMATMUL, qmatmul)                /* in: MatMulInteger's or QLinearMatMul's */ \
    /* vision and attention */                                        \
    X(ATTENTION, attention)            /* in: Q, K, V, mask?, past K/V?, nonpad? */ \
    X(GRID_SAMPLE, grid_sample)        /* in: X, grid */                      \
    X(ROTARY, rotary)                  /* in: X, cos, sin, position_ids? */   \
    X(COL2IM, col2im)                  /* in: X (image, block: constants) */  \
    X(AFFINE_GRID, affine_grid)        /* in: theta (size: constant) */       \
    X(ROI_ALIGN, roi_align)            /* in: X, rois, batch_indices */       \
    X(MAX_UNPOOL, max_unpool)          /* in: X, I (output_shape: constant) */ \
    X(DEFORM_CONV, deform_conv)        /* in: X, W, offset, B?, mask? */ \
    /* signal; integer convolution */                                 \
    X(DFT, dft)                        /* in: X (dft_length, axis: constants) */ \
    X(STFT, stft)                      /* in: signal, window? (step, length: constants) */ \
    X(QCONV, qconv)                    /* in: ConvInteger's or QLinearConv's */ \
    /* issue 39, helper h2: TopK, LpPool, Einsum, OneHot, BitCast, ... */ \
    X(TOPK, topk)                      /* in: X (k: constant)  out: Values, Indices */ \
    X(LP_POOL, lp_pool)                /* in: X */                            \
    X(EINSUM, einsum)                  /* in: X0..Xn */                       \
    X(ONEHOT, onehot)                  /* in: indices, values (depth: constant) */ \
    X(BITCAST, bitcast)                /* in: X (the output's dtype, same width) */ \
    X(REVERSE_SEQUENCE, reverse_sequence) /* in: X, sequence_lens */          \
    X(TENSOR_SCATTER, tensor_scatter)  /* in: past_cache, update, write_indices? */ \
    X(DET, det)                        /* in: X [..., M, M] */                \
    X(MVN, mvn)                        /* in: X */                            \
    /* sequence models */                                             \
    X(CAUSAL_CONV, causal_conv)        /* in: X, W, B?, past  out: Y, present? */ \
    X(LINEAR_ATTENTION, linear_attention) /* in: Q, K, V, past?, decay?, beta? */ \
    /* recurrent */                                                   \
    X(RNN, rnn)                        /* in: X, W, R, B?, lens?, h0?, c0?, P?  out: Y?, Y_h?, Y_c? */ \
    /* int8 */                                                        \
    X(QADD, qadd)                      /* in: A, sa, za?, B, sb, zb?, sc, zc? (QLinearAdd) */ \
    X(QGEMM, qgemm)                    /* in: A, sa, za, B, sb, zb, C?, sy?, zy? (QGemm) */ \
    /* run-time shapes: outputs sized for a bound, actual dims set by run */ \
    X(NONZERO, nonzero)                /* in: X  out: Y int64 [rank, nnz] */  \
    X(UNIQUE, unique)                  /* in: X  out: Y, indices?, inverse?, counts? */ \
    X(COMPRESS, compress)              /* in: X, condition */                 \
    X(NMS, nms)                        /* in: boxes, scores, iou?, score?  out: selected */ \
    X(SHAPE, shape)                    /* in: X (a run-time shape)  out: its dims, int64 */ \
    /* text */                                                        \
    X(TFIDF, tfidf)                    /* in: X, pool, index, weight (constants) */ \
    X(TREES, trees)                    /* in: X, trees, values (constants) */ \
    /* images */                                                      \
    X(IMAGE_DECODER, image_decoder)    /* in: encoded uint8 [n]  out: uint8 [H, W, C] */ \
    /* random */                                                      \
    X(RANDOM, random)                  /* in: logits? (MULTINOMIAL)  out: Y */ \
    /* strings */                                                     \
    X(LABEL_ENCODER, label_encoder)    /* in: X, keys, values (+ default last) */ \
    X(REGEX_MATCH, regex_match)        /* in: X string, pattern (uint8)  out: bool */ \
    X(STR_CONCAT, str_concat)          /* in: A, B string (broadcast) */      \
    X(STR_SPLIT, str_split)            /* in: X, delimiter (uint8)  out: Y, Z */ \
    X(STR_NORMALIZE, str_normalize)    /* in: X, stopwords (uint8) */ \
    /* run-time shapes */                                             \
    X(RESHAPE, reshape)                /* in: X, shape (int, read at run time) */ \
    X(FILL, fill)                      /* in: shape (ConstantOfShape, read at run time) */ \
    X(RANGE, range)                    /* in: start, limit, delta (read at run time) */ \
    /* control flow run at run time (exec.c) */                      \
    X(LOOP_BEGIN, loop_begin)          /* in: v_initial...  out: iter, cond_in, v_in... */ \
    X(LOOP, loop)                      /* in: M?, cond?, iter, cond_in, v_in..., cond_out, \
                                        * v_out..., scan...  out: v_final..., scan_out... */ \
    X(SELECT_BRANCH, select_branch)    /* in: cond, A, B  out: A or B (a run-time shape) */

/* X(FUNC): PZ_UN_FUNC, a function of pz_unary_params (rt/ops/unary.c). */
#define PZ_UNARY_FUNCS(X)                                                      \
    X(RELU) X(LEAKY_RELU) X(CLIP) X(SIGMOID) X(TANH) X(HARD_SIGMOID)           \
    X(HARD_SWISH) X(ELU) X(SELU) X(SOFTPLUS) X(SWISH) X(SQRT) X(ERF) X(GELU)   \
    X(NEG) X(ABS) X(EXP) X(LOG) X(RECIPROCAL) X(FLOOR) X(CEIL) X(ROUND)         \
    X(SIGN) X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN) X(SINH) X(COSH)        \
    X(ASINH) X(ACOSH) X(ATANH) X(CELU) X(MISH) X(SOFTSIGN) X(THRESHOLDED_RELU)  \
    X(SHRINK) X(BINARIZER)

#endif
