/* onnx_load.h - the ONNX front-end: a model file in, a shape-inferred ir_graph out.
 *
 * Decoding is done by protobuf-c code generated at build time from the
 * system's official schema (/usr/include/onnx/onnx.proto); this module turns
 * the decoded ModelProto into the graph of layer and data nodes, reads
 * initializers (raw_data, typed fields, external data files), binds symbolic
 * dimensions, sorts the nodes, and runs shape inference and costing.
 *
 *   onnx_load_opts opts = {0};
 *   ir_graph *g;
 *   pz_err err = {0};
 *   if (onnx_load_file("resnet18.onnx", &opts, &g, &err) != PZ_OK)
 *       fprintf(stderr, "paleozoic: error: %s\n", err.msg);
 *   ...
 *   ir_graph_free(g);
 */
#ifndef PZ_FRONT_ONNX_LOAD_H
#define PZ_FRONT_ONNX_LOAD_H

#include "../ir/graph.h"

#define PZ_MAX_OPSET 27

/* --input-shape NAME=1,3,224,224 */
typedef struct {
    const char *name;
    int rank;
    int64_t dims[IR_MAX_RANK];
} onnx_shape_binding;

/* --max-shape NAME=VALUE: the inputs' dims whose dim_param is NAME. bound 0:
 * each such dim still symbolic is VALUE; bound 1: the same, and a dim a
 * given tensor (by_position) sets must be at most VALUE. */
typedef struct {
    const char *name;
    int64_t value;
    int bound;
} onnx_dim_binding;

/* An input whose value is known at compile time (it becomes a constant). */
typedef struct {
    const char *name;
    const ir_tensor *value;
} onnx_value_binding;

typedef struct {
    const onnx_shape_binding *shapes;
    int n_shapes;
    const onnx_value_binding *values;
    int n_values;
    int64_t batch;        /* > 0: binds a symbolic leading dim of every input */
    const onnx_dim_binding *dims;   /* bind symbolic dims by name (--max-shape) */
    int n_dims;
    int *dims_seen;       /* NULL, or n_dims counts: the input dims each binding named */
    /* Shapes of the runtime inputs by position (e.g. from the input files of
     * `paleozoic run`): they bind symbolic dims and must agree with fixed ones. */
    const ir_tensor *by_position;
    int n_by_position;
    /* 1: the by_position tensors carry their values, and an input whose
     * value the compiler must know (a Reshape shape, Slice starts, reduction
     * axes, a Clip bound fed as a graph input, or what such a value is
     * computed from) is bound to it, as a constant: it leaves the graph's
     * inputs (ir_graph.input_pos says which remain). The others stay run-time
     * inputs, so their ops run in the runtime. `paleozoic run --input` and
     * `compile/build --input` load this way. */
    int bind_needed;
    /* NULL when every given input is a tensor; else, by the model's input
     * position, how many tensors of by_position each takes: -1 one tensor
     * (or an optional holding one), n >= 0 a sequence of n (or an optional
     * holding one), -2 an empty optional. A sequence or optional input is
     * planned from its given elements (op_seq.h). */
    const int *given_len;
    int n_given_len;
    /* > 0: an input whose leading dim the model fixes at 1 gets this one
     * instead (--batch N on a static batch 1, src/front/batch.h). */
    int64_t rebatch;
    /* Called on the loaded, sorted graph before shape inference (batch.c
     * rewrites the constants that carry the batch there); NULL: none. */
    pz_status (*before_infer)(ir_graph *g, void *ctx, pz_err *err);
    void *before_infer_ctx;
} onnx_load_opts;

/* Loads, sorts and shape-infers a model. On failure *out is NULL and err says
 * what is wrong, naming the node, op and attribute where there is one. */
pz_status onnx_load_file(const char *path, const onnx_load_opts *opts, ir_graph **out, pz_err *err);

/* Same from memory; model_dir is where external data files are looked up
 * (NULL: external data is refused). */
pz_status onnx_load_buffer(const void *buf, size_t len, const char *model_dir,
                           const onnx_load_opts *opts, ir_graph **out, pz_err *err);

/* Reads a serialized onnx.TensorProto (.pb, the ONNX test-data format).
 * *name (may be NULL) receives a malloc'd copy of the tensor's name. */
pz_status onnx_read_tensor_file(const char *path, ir_tensor *out, char **name, pz_err *err);

/* Reads a test-data value: kind 0 a TensorProto, 1 a SequenceProto, 2 an
 * OptionalProto (as the model's input is typed). Its tensors go to *ts (n
 * of them, from pz_xmalloc; each freed with ir_tensor_free_data), and *len
 * is onnx_load_opts.given_len's entry for it. */
pz_status onnx_read_value_file(const char *path, int kind, ir_tensor **ts, int *n, int *len,
                               pz_err *err);
/* The kinds of the model's given (non-initializer) inputs, in order, for
 * onnx_read_value_file: 0 a tensor (or anything else), 1 a sequence, 2 an
 * optional. A walk over the file's bytes (the weights are skipped, not
 * decoded). Returns how many (at most max); 0 if the file cannot be read
 * (the loader then says why). */
int onnx_input_kinds(const char *path, int *kinds, int max);
/* Writes a sequence (kind 1) or an optional (kind 2; inner 1: holding a
 * sequence) of the n tensors ts as a SequenceProto / OptionalProto .pb. */
pz_status onnx_write_value_file(const char *path, int kind, int inner, const char *name,
                                const ir_tensor *ts, int n, pz_err *err);
/* Writes a tensor as a serialized onnx.TensorProto (raw_data), atomically
 * (to a temporary name, then renamed). */
pz_status onnx_write_tensor_file(const char *path, const ir_tensor *t, const char *name,
                                 pz_err *err);

/* Parses "1,3,224,224" into dims; returns rank or -1. */
int onnx_parse_dims(const char *s, int64_t *dims, int max);

#endif
