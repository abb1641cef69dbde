/* quant_internal.h - what the files of src/quant share: small helpers over
 * protobuf-c's ONNX messages (proto.c). Every message they make is
 * malloc'd, as free_unpacked(m, NULL) expects. */
#ifndef PZ_QUANT_INTERNAL_H
#define PZ_QUANT_INTERNAL_H

#include "quant.h"

/* lookups: node n is op (default domain); initializer / producing node
 * index or -1; readers: input slots reading name (+1 for a graph output, +2
 * for a subgraph reading it), *only the last reader */
int qp_is_op(const Onnx__NodeProto *n, const char *op);
int qp_find_init(const Onnx__GraphProto *gp, const char *name);
int qp_producer(const Onnx__GraphProto *gp, const char *name);
int qp_is_graph_output(const Onnx__GraphProto *gp, const char *name);
int qp_readers(const Onnx__GraphProto *gp, const char *name, int *only);
/* attributes, with a default when absent */
const Onnx__AttributeProto *qp_attr(const Onnx__NodeProto *n, const char *name);
int64_t qp_attr_i(const Onnx__NodeProto *n, const char *name, int64_t dflt);
float qp_attr_f(const Onnx__NodeProto *n, const char *name, float dflt);
/* a + b, malloc'd */
char *qp_cat(const char *a, const char *b);
/* tensors: data replaced by a raw_data copy; a new one; a float32
 * initializer read into t (PZ_ERR_UNSUPPORTED with err unset: not float32);
 * appended to the initializers */
void qp_tp_set_raw(Onnx__TensorProto *tp, int dtype, const void *data, size_t nbytes);
Onnx__TensorProto *qp_tp_new(const char *name, int dtype, const int64_t *dims, int rank,
                             const void *data, size_t nbytes);
pz_status qp_init_f32(Onnx__GraphProto *gp, int idx, const char *dir, ir_tensor *t, pz_err *err);
void qp_push_init(Onnx__GraphProto *gp, Onnx__TensorProto *tp);
/* a node of the default domain with one output; an int "axis" added */
Onnx__NodeProto *qp_node_new(const char *op, const char *name, const char *const *in, int nin,
                             const char *out);
void qp_node_set_axis(Onnx__NodeProto *n, int64_t axis);
/* weights.c: the int8 weight rule. A Conv, Gemm or MatMul with two inputs
 * or more quantizes its input 1 per channel along *axis (Conv 0, Gemm 0
 * with transB else 1, MatMul 1; *rank_want 0 any rank, else exactly it):
 * returns 0 for other nodes. qp_weight_i8: scale[c] = max|w| / 127 of
 * channel c (1 for an all-zero channel), q the rounded, clamped values
 * (q may be NULL). */
int qp_weight_axis(const Onnx__NodeProto *n, int *axis, int *rank_want);
void qp_weight_i8(const ir_tensor *w, int axis, float *scale, int8_t *q);
/* removes the initializers nothing reads (and their graph input entries) */
void qp_drop_unused_inits(Onnx__GraphProto *gp);

#endif
