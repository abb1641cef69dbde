/* net_build.h - the lowered model handed to the runtime, in-process.
 *
 * This is what `paleozoic run`, the tuner and the conformance runner execute,
 * and it makes exactly the runtime calls that the generated C program makes
 * (the code generator prints the same sequence as text), so both give
 * bitwise-equal results. */
#ifndef PZ_GEN_NET_BUILD_H
#define PZ_GEN_NET_BUILD_H

#include "../ir/model.h"
#include "../rt/pz_rt.h"

typedef struct {
    pz_net *net;
    int n_inputs, n_outputs;     /* = the graph's runtime inputs and outputs, in order */
} gen_net;

/* Builds and compiles the net for m with `threads` workers. Constant data is
 * borrowed from the graph, which must outlive the net. */
pz_status gen_net_build(const ir_model *m, int threads, gen_net *out, pz_err *err);
void gen_net_free(gen_net *gn);

/* Output i's shape as the run left it (t: the graph's type): a run-time
 * shape (ir_value.dyn) is the actual one, the buffer holding it packed at
 * its start. */
void gen_output_shape(const pz_net *net, int i, ir_tensor *t);
/* Writes the graph's output i (out_buf: the flat outputs' data, for those
 * the net does not allocate) to path as `run --output` does: a TensorProto,
 * or a SequenceProto / OptionalProto of its elements (replan.c). */
pz_status gen_write_output(const ir_graph *g, const pz_net *net, int i, void **out_buf,
                           const char *path, pz_err *err);

/* The run options (pz_rt.h) the nets built here compile with and the emitted
 * C prints in its header: the defaults until a program sets them (the CLI
 * does, once, from the environment: libpzio's pz_io_run_options_env). o is
 * copied. */
void gen_set_run_options(const pz_run_options *o);
const pz_run_options *gen_run_options(void);
/* The kernels' instruction set the nets built here take (a pz_isa): this
 * CPU's best under the run options' cap. The optimizer asks it. */
int gen_run_isa(void);

#endif
