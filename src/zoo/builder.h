/* builder.h - a small graph builder for the zoo networks (internal to src/zoo).
 *
 * Values are int ids; the builder knows each value's shape ([C,H,W] or [F],
 * batch 1 implied) so that layers only say what torchvision's constructors
 * say: output channels, kernel, stride, padding. Names are module paths
 * relative to the current scope:
 *
 *   zoo_builder *b = zoo_builder_new("resnet18", seed);
 *   int x = zoo_input(b, "input", 3, 224, 224);
 *   zoo_scope_push(b, "layer%d.%d", 1, 0);
 *   x = zoo_conv(b, "conv1", x, 64, 3, 1, 1, 1, 0);   // node "layer1.0.conv1",
 *   x = zoo_batchnorm(b, "bn1", x);                   // weight "layer1.0.conv1.weight"
 *   zoo_scope_pop(b);
 *   ...
 *   zoo_output(b, x, "output");
 *   Onnx__ModelProto *m = zoo_builder_finish(b);       // caller frees with
 *   zoo_builder_free(b);                               // onnx__model_proto__free_unpacked
 *
 * A node name used twice in one scope gets "_1", "_2" appended, as torch's
 * exporter does for a module called twice (ResNet's `relu`).
 *
 * Weights: every tensor draws from its own splitmix64 stream seeded by the
 * seed and the tensor's name, so a weight does not change when another layer
 * is added. Their scale is chosen the way training would leave it (see the
 * top of builder.c): the builder tracks each channel's mean and variance for
 * a white-noise input of variance 1, draws Conv and Gemm weights with
 * Kaiming-like bounds sqrt(3 / (fan_in * input variance)), lets biases and
 * BatchNormalization's running statistics cancel the means, and so keeps
 * every activation O(1) and the output dependent on the input.
 *
 * Builder calls cannot fail on user input; misuse is an internal error.
 */
#ifndef PZ_ZOO_BUILDER_H
#define PZ_ZOO_BUILDER_H

#include "../front/onnx_internal.h"

typedef struct zoo_builder zoo_builder;

typedef enum { ZOO_ACT_NONE, ZOO_ACT_RELU, ZOO_ACT_RELU6 } zoo_act;

zoo_builder *zoo_builder_new(const char *graph_name, uint64_t seed);
/* Frees the builder and whatever zoo_builder_finish did not hand over. */
void zoo_builder_free(zoo_builder *b);

/* Scopes prefix node and weight names: push "layer%d.%d" -> "layer1.0.conv1". */
void zoo_scope_push(zoo_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void zoo_scope_pop(zoo_builder *b);

/* The graph input, float32 [1, c, h, w]. */
int zoo_input(zoo_builder *b, const char *name, int64_t c, int64_t h, int64_t w);
/* Names value x as a graph output (renaming it). */
void zoo_output(zoo_builder *b, int x, const char *name);

int64_t zoo_channels(const zoo_builder *b, int x);

/* Conv2d: square kernel k, stride s, padding p on every side, `groups`
 * groups, a bias input if `bias`. */
int zoo_conv(zoo_builder *b, const char *name, int x, int64_t c_out, int k, int s, int p,
             int groups, int bias);
/* BatchNorm2d (inference): epsilon 1e-5, momentum 0.9. */
int zoo_batchnorm(zoo_builder *b, const char *name, int x);
int zoo_relu(zoo_builder *b, const char *name, int x);
/* ReLU6 as Clip(x, 0, 6), min and max as scalar inputs (opset >= 11). */
int zoo_relu6(zoo_builder *b, const char *name, int x);
int zoo_maxpool(zoo_builder *b, const char *name, int x, int k, int s, int p);
int zoo_add(zoo_builder *b, const char *name, int x, int y);
int zoo_global_avgpool(zoo_builder *b, const char *name, int x);
/* Flatten(axis 1): [C,H,W] -> [C*H*W]. */
int zoo_flatten(zoo_builder *b, const char *name, int x);
/* Linear(in, n_out) as Gemm(x, W[n_out, in], b, transB=1). */
int zoo_linear(zoo_builder *b, const char *name, int x, int64_t n_out);

/* torchvision's Conv2dNormActivation: Conv (no bias) + BatchNormalization +
 * activation, with the three module names given (act_name unused for NONE). */
int zoo_conv_bn_act(zoo_builder *b, int x, const char *conv_name, const char *bn_name,
                    const char *act_name, int64_t c_out, int k, int s, int p, int groups,
                    zoo_act act);

/* ---- transformer layers (transformer.c) ----------------------------------
 * Values are [S, D] (tokens, features) or [H, S, Dh] (heads), batch 1
 * implied; S may be ZOO_DIM_SEQ, written as the symbolic dim "sequence".
 * Ops are written as PyTorch exports them at opset 13 (LayerNorm and GELU
 * spelled out, attention as MatMul/Mul/Add/Softmax/MatMul with the head
 * Reshapes and Transposes), for the passes to recognise. Weights are
 * U(-a, a) with a = sqrt(3 / fan_in), so a unit-variance input gives a
 * unit-variance output; biases and LayerNorm's beta U(-0.1, 0.1), its gamma
 * U(0.5, 1.5), BERT's embeddings U(-sqrt 3, sqrt 3) (variance 1), ViT's
 * class token and position embedding of standard deviation 0.02. */
#define ZOO_DIM_SEQ (-1)

/* A graph input of ONNX element type elem and shape [1, dims...]. */
int zoo_input_tensor(zoo_builder *b, const char *name, int elem, int rank, const int64_t *dims);
/* [C, H, W] -> [H*W, C]: torchvision's x.reshape(n, c, h*w).permute(0, 2, 1). */
int zoo_tokens(zoo_builder *b, const char *name, int x);
/* Concat(param, x) on the token axis, param a learned [1, 1, D] named `param`. */
int zoo_class_token(zoo_builder *b, const char *name, const char *param, int x);
/* x + param, param a learned [1, S, D] named `param` (S fixed). */
int zoo_add_embedding(zoo_builder *b, const char *name, const char *param, int x);
/* Row i of [S, D] as [D] (Gather on the token axis, scalar index); its
 * statistics are set to variance 1 for zoo_linear (a LayerNorm's output). */
int zoo_select_token(zoo_builder *b, const char *name, int x, int64_t i);
/* Embedding(vocab, dim): Gather(weight, ids) for int64 ids [S]. */
int zoo_embedding(zoo_builder *b, const char *name, int ids, int64_t vocab, int64_t dim);
/* x + the first S rows of a learned [max_pos, D] table "<name>.weight",
 * S read from ids' shape at run time (Shape, Slice, Slice). */
int zoo_position_embedding(zoo_builder *b, const char *name, int x, int ids, int64_t max_pos);
/* BERT's additive mask from int64 mask [S] (1 keep, 0 pad):
 * (1 - float(mask)) * -10000 as [1, 1, S] (ONNX [1, 1, 1, S]). */
int zoo_attention_mask(zoo_builder *b, const char *name, int mask);
/* Linear(D, n_out) on the last axis: MatMul(x, W [D, n_out]) + bias, the
 * weight stored transposed as PyTorch's exporter folds it. */
int zoo_dense(zoo_builder *b, const char *name, int x, int64_t n_out);
/* LayerNorm over the last axis, written out (ReduceMean ... Add). */
int zoo_layernorm(zoo_builder *b, const char *name, int x, float eps);
/* GELU, erf form: x * (erf(x / sqrt 2) + 1) * 0.5. */
int zoo_gelu(zoo_builder *b, const char *name, int x);
/* Multi-head self-attention (nn.MultiheadAttention): in_proj [D, 3D] + bias,
 * Q/K/V sliced, split into `heads` heads, softmax(Q K^T / sqrt(Dh) + mask) V,
 * heads merged, out_proj. mask: a zoo_attention_mask value, or -1. */
int zoo_self_attention(zoo_builder *b, const char *name, int x, int heads, int mask);

/* Totals so far. */
int64_t zoo_builder_params(const zoo_builder *b);
int64_t zoo_builder_macs(const zoo_builder *b);
int64_t zoo_builder_nodes(const zoo_builder *b);

/* Assembles the model (ir_version 7, opset 13, producer "paleozoic-zoo") and
 * hands it over; everything in it was allocated with malloc, so
 * onnx__model_proto__free_unpacked(m, NULL) frees it. Call once. */
Onnx__ModelProto *zoo_builder_finish(zoo_builder *b);

/* The network builders, one file per family. */
void zoo_build_resnet18(zoo_builder *b);
void zoo_build_resnet50(zoo_builder *b);
void zoo_build_vgg16(zoo_builder *b);
void zoo_build_vgg19(zoo_builder *b);
void zoo_build_alexnet(zoo_builder *b);
void zoo_build_mobilenet_v2(zoo_builder *b);
void zoo_build_vit_b_16(zoo_builder *b);
void zoo_build_bert_base(zoo_builder *b);

#endif
