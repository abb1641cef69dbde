/* pz_strategy.h - write your own optimizer strategy in C (Paleozoic 4.3:
 * "the users can custom their own optimization algorithm with given
 * optimization knobs").
 *
 * A strategy sees the network as a sequence of layers (the lowered model's
 * layers, in execution order) with their features, plus this machine's
 * profile, and answers with a partition of that sequence into consecutive
 * fusion blocks (F-Blocks) and the MP (cores) of each block. Paleozoic checks
 * the answer (every layer in exactly one block, 1 <= MP <= cores) and sets the
 * knobs; a bad answer is reported as an error, never a crash.
 *
 * This header is self-contained (no other Paleozoic header, no symbol to
 * link): a plug-in is one C file built as a shared object,
 *
 *   cc -std=c11 -O2 -shared -fPIC -I<paleozoic>/src/opt my_strategy.c -o my_strategy.so
 *
 * that defines
 *
 *   const int pz_strategy_abi = PZ_STRATEGY_ABI;
 *   int pz_strategy(const pz_strategy_input *in, pz_strategy_output *out);
 *
 * and it is used as
 *
 *   paleozoic run MODEL.onnx --threads 2 --strategy plugin:./my_strategy.so
 *   paleozoic run MODEL.onnx --strategy plugin:./my_strategy.so:ARGS   (ARGS in in->args)
 *
 * See examples/strategy_greedy.c for a complete, commented example.
 *
 * Ownership: everything in `in` belongs to Paleozoic and lives for the
 * call; `out->sizes` and `out->mps` are Paleozoic's arrays of in->n_layers
 * entries each, which the strategy fills. Nothing is kept after the call.
 */
#ifndef PZ_STRATEGY_H
#define PZ_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a struct below changes; a plug-in built against another
 * version is refused with a message saying so. */
#define PZ_STRATEGY_ABI 1

/* What a layer is and costs (DLFusion's layer characteristics). */
typedef struct {
    int index;                 /* position in the layer sequence, 0-based */
    const char *name;          /* the ONNX node name */
    const char *op_type;       /* the ONNX op: "Conv", "Gemm", "Relu", ... */
    int is_conv_fc;            /* 1 for Conv, ConvTranspose, Gemm, MatMul (Algorithm 1's
                                  "Convolution/Fully-Connected") */
    int64_t macs;              /* multiply-accumulates (DLFusion Eq. 1/2 halved) */
    double ops;                /* operation count = 2 * macs (DLFusion Eq. 1/2) */
    int64_t params;            /* elements of the constant inputs (weights, biases) */
    int64_t bytes_in;          /* activation bytes read */
    int64_t bytes_out;         /* activation bytes written */
    int64_t c_in, c_out;       /* input / output channels, 0 if not a feature map */
    int kernel_h, kernel_w;    /* Conv kernel, 0 otherwise */
    int64_t out_h, out_w;      /* output feature-map size, 0 if not 4-D */
    int group;                 /* Conv groups (1 = dense, c_in = depthwise), 1 otherwise */
} pz_layer_features;

/* This machine, from the target profile (`paleozoic characterize`, or the
 * default derived from a short measurement). */
typedef struct {
    int cores;                 /* MP may be 1 to cores */
    double opcount_critical;   /* ops one core needs to reach its peak (DLFusion IV.C) */
    /* The MP model (DLFusion Eq. 5): log2 MP = alpha*log2(C) + beta*log2(ops) + gamma */
    double mp_alpha, mp_beta, mp_gamma;
    double peak_gflops;        /* best single-core GFLOP/s measured on a conv */
} pz_machine;

typedef struct {
    int n_layers;
    const pz_layer_features *layers;   /* [n_layers] */
    pz_machine machine;
    const char *args;          /* the text after "plugin:PATH.so:", or "" */
    /* Measures a whole schedule on this machine: builds the network with the
     * given blocks and MPs and returns its median latency in ms over a few
     * runs, or a negative value when the schedule is illegal. Slow (it runs
     * the network): use it sparingly. */
    double (*measure)(void *measure_ctx, const int *sizes, const int *mps, int n_blocks);
    void *measure_ctx;
} pz_strategy_input;

typedef struct {
    int n_blocks;              /* set by the strategy: 1 to in->n_layers */
    int *sizes;                /* [n_layers] capacity: layers in block i, >= 1, summing to n_layers */
    int *mps;                  /* [n_layers] capacity: cores of block i, 1 to machine.cores */
    char message[256];         /* on failure: why (shown to the user) */
} pz_strategy_output;

/* Returns 0 on success, non-zero on failure (with out->message). */
typedef int (*pz_strategy_fn)(const pz_strategy_input *in, pz_strategy_output *out);

#endif
