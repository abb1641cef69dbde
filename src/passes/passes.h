/* passes.h - graph passes between shape inference and lowering (DESIGN.md
 * pipeline): layer elimination (Identity, Dropout), BatchNorm folding, and
 * activation and residual epilogues fused into their producing Conv/Gemm.
 *
 * They rewrite the ir_graph in place; every fused layer keeps the name of
 * the ONNX node that does the main work (the Conv), so profiles and the
 * generated C still name ONNX nodes. Results stay within float rounding of
 * the unfused graph (checked against ONNX Runtime and PyTorch by the test
 * suite).
 *
 *   eliminate  Identity, Dropout (inference: a copy), Pad of zero pads ->
 *              their consumers read the input directly. Kept when the
 *              output is a graph output.
 *   cse        a node of the same op, attributes and inputs (one value, or
 *              constants of equal bytes) as an earlier one -> its readers
 *              read the earlier one's outputs; deterministic ops only,
 *              repeated until nothing merges (cse.c).
 *   pad fold   a constant Pad of the spatial dims -> the pads of the
 *              AveragePool (count_include_pad 1), Conv or (a -inf Pad only)
 *              MaxPool that alone reads it (pad_fold.c).
 *   bn         Conv/ConvTranspose (constant W, B) -> BatchNormalization
 *              (constant statistics) becomes one Conv with
 *                s = scale / sqrt(var + eps),  W' = W * s[m],
 *                B' = (B - mean) * s + bias
 *              W' and B' overwrite W and B when nothing else reads them,
 *              else they are new constants "<W>:bn", "<B>:bn" (owned by the
 *              graph). A standalone BatchNormalization stays.
 *   epilogues  after a float32 Conv: a residual Add(conv, other) of equal
 *              shapes becomes the Conv's input 3 (Z, added before the
 *              activation); then Relu, or Clip with constant bounds, becomes
 *              the node's act (ir_node.act). Gemm, Add and an inference
 *              BatchNormalization (one that did not fold) take the
 *              activation too.
 *   gates      Mul(X, Sigmoid(X)) -> Swish(X), and Mul(X, HardSigmoid(X))
 *              with alpha 1/6, beta 1/2 -> HardSwish(X) (gate.c).
 *   shuffles   a channel shuffle, Reshape(X [N,C,H,W] -> [N,g,C/g,H,W]),
 *              Transpose(perm 0,2,1,3,4), Reshape(-> [N,C,H,W]) ->
 *              Gather(X, constant indices, axis 1); and a channel Gather
 *              read by channel Slices alone -> each Slice a Gather of X
 *              (shuffle.c).
 *   norms      a LayerNorm as PyTorch exports it below opset 17 (ReduceMean,
 *              Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) ->
 *              LayerNormalization (norm.c).
 *   attention  MatMul(Q, Transpose(K)), scalar scalings, a mask Add,
 *              Softmax(last axis), MatMul(., V) -> ScaledDotProductAttention
 *              (attention.c); then Q, K, V Slices of one QKV GEMM's output ->
 *              the attention reads them in place (qkv_slices.c).
 *   qdq        DequantizeLinear(xq), DequantizeLinear(wq) -> Conv [-> Relu |
 *              Clip] -> QuantizeLinear -> QLinearConv with the act, run in
 *              int8, and the residual Adds, Gemms and MaxPools alike; then a
 *              QLinearAdd into the QLinearConv writing its A or B (qdq.c).
 *   qdyn       ConvInteger or MatMulInteger -> Cast(float32) -> Mul(., Mul(xs,
 *              ws)) [-> Add(b)] [-> Relu], as quantize_dynamic writes it ->
 *              one layer writing float32 as its int8 GEMM's sums come out
 *              (qdyn.c; runs with qdq, under the same knob).
 *   (always)   nodes whose outputs shape inference folded into constants
 *              (Constant, Shape arithmetic) are dropped: they never run, and
 *              their outputs stay as constants.
 *   concat     (only when opts->concat) 1x1 Convs, MatMuls or Gemms with
 *              constant weights that read one input -> one node with the
 *              weights concatenated along N, then a Split (concat_layers.c).
 *              Runs after the epilogues, so that each member's bias and act
 *              are known (members merge only with one act).
 * They run in this order, but epilogues last (then concat): gates, shuffles and norms
 * first, so that an activation after a pattern (a LayerNorm's Relu) is not
 * fused into the pattern's last node before the pattern is matched.
 *
 * Every fusion needs the intermediate value to have exactly one reader and
 * not to be a graph output; the fused node takes over the consumer's output
 * value, so that the rest of the graph is unchanged. Each pass states its
 * preconditions in code (readers, graph outputs, element types, shapes
 * after broadcasting, attributes) and leaves the graph as it is where one
 * cannot be proven; in particular it kills or rewrites only plain nodes
 * (pass_plain in passes_internal.h: no fused act, no fused inputs, no other
 * output read), so that nothing an earlier pass fused into a node is lost.
 *
 *   passes_opts o = {.no_epilogues = 1};
 *   if (passes_run(g, &o, err)) return err->code;   // then ir_model_lower(g)
 */
#ifndef PZ_PASSES_H
#define PZ_PASSES_H

#include "../ir/graph.h"

typedef struct {
    int no_fold_bn;        /* keep BatchNormalization as its own layer */
    int no_epilogues;      /* keep Relu/Clip/Add as their own layers */
    int no_eliminate;      /* keep Identity and Dropout layers */
    int no_cse;            /* keep nodes that compute what an earlier node computes */
    int no_pad_fold;       /* keep a constant Pad before an AveragePool, Conv or MaxPool */
    int no_gates;          /* keep Mul(X, Sigmoid(X)) and Mul(X, HardSigmoid(X)) as they are */
    int no_shuffles;       /* keep channel shuffles as Reshape, Transpose, Reshape */
    int no_norms;          /* keep LayerNorms as the nine nodes PyTorch exports */
    int no_attention;      /* keep attention as MatMul, Softmax, MatMul */
    int no_qdq;            /* keep a quantized model's DequantizeLinear, Conv, QuantizeLinear
                              (and a dynamic one's ConvInteger, Cast, Mul, Add chains) */
    int concat;            /* run the concatenation pass (off unless asked: the --concat knob) */
} passes_opts;

/* What the passes did (counts of nodes removed by each). */
typedef struct {
    int eliminated;        /* Identity, Dropout */
    int cse;               /* nodes merged into an earlier equal node */
    int pads_folded;       /* Pad into the AveragePool, Conv or MaxPool reading it */
    int bn_folded;         /* BatchNormalization into Conv/ConvTranspose */
    int affine_folded;     /* Mul, Div, Add, Sub by a constant per channel into Conv */
    int residuals;         /* Add into a Conv's, Gemm's or MatMul's Z */
    int acts;              /* Relu, Clip into Conv/Gemm/Add/MatMul, Gelu into MatMul */
    int biases;            /* Add(MatMul, bias) into the MatMul */
    int gates;             /* Mul(X, Sigmoid(X)) -> Swish, Mul(X, HardSigmoid(X)) -> HardSwish */
    int shuffles;          /* Reshape, Transpose, Reshape -> Gather along channels */
    int shuffle_slices;    /* a channel Gather read by Slices alone -> into those Slices */
    int norms;             /* the nine nodes of a LayerNorm -> LayerNormalization */
    int attention;         /* MatMul, scale, mask Add, Softmax, MatMul -> one attention */
    int qkv_views;         /* attention layers that read Q, K, V in place from the QKV GEMM */
    int qdq;               /* DequantizeLinear, Conv, [Relu,] QuantizeLinear -> QLinearConv */
    int qdyn;              /* ConvInteger/MatMulInteger, Cast, Mul, [Add, Relu] -> one layer */
    int concat_groups;     /* groups of layers sharing an input run as one (concat) */
    int concat_layers;     /* the layers in those groups */
} passes_stats;

/* Runs every pass (opts may be NULL: all on). The graph must be sorted and
 * inferred (onnx_load does both); it is sorted again at the end. */
pz_status passes_run(ir_graph *g, const passes_opts *opts, pz_err *err);
/* The same, and fills *stats (may be NULL). */
pz_status passes_run_stats(ir_graph *g, const passes_opts *opts, passes_stats *stats,
                           pz_err *err);

#endif
