/* op_list.h - every supported operator, one line each: OP(OnnxName, file_symbol).
 * The order is the op enum's order; src/ops/<file_symbol>.c defines op_<file_symbol>. */
/* convolution and pooling */
OP(Conv, conv)
OP(ConvTranspose, conv_transpose)
OP(MaxPool, max_pool)
OP(AveragePool, average_pool)
OP(GlobalAveragePool, global_average_pool)
OP(GlobalMaxPool, global_max_pool)
/* normalization and activations */
OP(BatchNormalization, batch_normalization)
OP(Relu, relu)
OP(LeakyRelu, leaky_relu)
OP(PRelu, prelu)
OP(Clip, clip)
OP(Sigmoid, sigmoid)
OP(Tanh, tanh)
OP(HardSigmoid, hard_sigmoid)
OP(HardSwish, hard_swish)
OP(Elu, elu)
OP(Selu, selu)
OP(Softplus, softplus)
OP(Swish, swish)
OP(Sqrt, sqrt)
OP(Erf, erf)
OP(Gelu, gelu)
/* arithmetic and matrices */
OP(Add, add)
OP(Sub, sub)
OP(Mul, mul)
OP(Div, div)
OP(Pow, pow)
OP(Max, max)
OP(Min, min)
OP(Gemm, gemm)
OP(MatMul, matmul)
/* shape and data movement */
OP(Flatten, flatten)
OP(Reshape, reshape)
OP(Transpose, transpose)
OP(Squeeze, squeeze)
OP(Unsqueeze, unsqueeze)
OP(Concat, concat)
OP(Split, split)
OP(Slice, slice)
OP(Pad, pad)
OP(Gather, gather)
OP(Shape, shape)
OP(Cast, cast)
OP(Resize, resize)
OP(Upsample, upsample)
OP(Constant, constant)
OP(ConstantOfShape, constant_of_shape)
/* others */
OP(Softmax, softmax)
OP(LogSoftmax, log_softmax)
OP(LRN, lrn)
OP(LayerNormalization, layer_normalization)
OP(Dropout, dropout)
OP(Identity, identity)
OP(ReduceMean, reduce_mean)
OP(CastLike, castlike)
OP(Where, where)
/* comparison, logic, bitwise, Mod, Sum, Mean */
/* element-wise math */
/* reductions, ArgMax/ArgMin, Hardmax, CumSum/CumProd */
/* indexing and shaping */
/* normalization, quantization, losses, signal */
/* vision and attention */
