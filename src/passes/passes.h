/* passes.h - graph passes between shape inference and lowering (DESIGN.md
 * pipeline): BatchNorm folding, activation and residual epilogues fused into
 * their producing Conv/Gemm, layer elimination (Identity, Dropout).
 *
 * They rewrite the ir_graph in place; every fused layer keeps the name of
 * the ONNX node that does the main work (the Conv), so profiles and the
 * generated C still name ONNX nodes. Results stay within float rounding of
 * the unfused graph (checked against ONNX Runtime by the test suite).
 */
#ifndef PZ_PASSES_H
#define PZ_PASSES_H

#include "../ir/graph.h"

typedef struct {
    int no_fold_bn;        /* keep BatchNormalization as its own layer */
    int no_epilogues;      /* keep Relu/Clip/Add as their own layers */
} passes_opts;

/* Runs every pass (opts may be NULL: all on). */
pz_status passes_run(ir_graph *g, const passes_opts *opts, pz_err *err);

#endif
