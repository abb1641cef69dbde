/* zoo.h - the networks of the papers, written as ONNX files with seeded weights.
 *
 * `paleozoic zoo NAME -o FILE.onnx` writes one of resnet18, resnet50, vgg16,
 * vgg19, alexnet, mobilenet_v2: the torchvision architecture layer for layer
 * (input "input" float32 [1,3,224,224], output "output" [1,1000]), opset 13,
 * with deterministic random weights in place of the trained ones. Initializer
 * names are torchvision's state_dict keys ("layer1.0.conv1.weight",
 * "layer1.0.bn1.running_var", ...) and node names are the module paths
 * ("layer1.0.conv1"), so a model can be checked against torchvision.
 *
 * Two transformers, their ops as PyTorch exports them at opset 13 (see
 * builder.h): vit_b_16 (torchvision's ViT-B/16, the same input and output;
 * a Linear's weight is stored transposed, [in, out], as MatMul reads it, and
 * the packed projection is "self_attention.in_proj.weight") and bert_base (a
 * BERT-base-class encoder: inputs "ids" and "mask", int64 [1, S], output
 * "output" [1, S, 768], S the symbolic dim "sequence"; bert.c). Their MACs
 * count the Conv, Gemm and MatMul weights only (not the attention's own
 * products), for BERT per token.
 *
 *   zoo_summary sum;
 *   pz_err err = {0};
 *   if (zoo_write("resnet18", "resnet18.onnx", ZOO_DEFAULT_SEED, &sum, &err) != PZ_OK)
 *       fprintf(stderr, "paleozoic: error: %s\n", err.msg);
 *
 * The whole model is built in memory once (one copy of the weights, 548 MB
 * for VGG-19) and streamed to the file through a temporary name.
 */
#ifndef PZ_ZOO_H
#define PZ_ZOO_H

#include <stdint.h>

#include "../ir/status.h"

#define ZOO_DEFAULT_SEED 0x5EEDC0DEULL

typedef struct {
    int64_t params;      /* elements of all initializers (BN: 4 per channel) */
    int64_t macs;        /* Conv, Gemm and weight MatMul multiply-accumulates at batch 1
                            (per token at a symbolic sequence) */
    int64_t nodes;
    int64_t file_bytes;  /* size of the written file */
} zoo_summary;

/* Number of networks, and the name of network i (0 <= i < zoo_count()). */
int zoo_count(void);
const char *zoo_name(int i);

/* "resnet18, resnet50, ..." into buf; returns buf. */
char *zoo_names_str(char *buf, size_t size);

/* Builds network `name` with weights drawn from `seed` and writes it to path.
 * Unknown name: PZ_ERR_INPUT naming the choices. sum may be NULL. */
pz_status zoo_write(const char *name, const char *path, uint64_t seed, zoo_summary *sum,
                    pz_err *err);

#endif
