/* onnx_internal.h - front-end functions that speak protobuf-c types.
 * Only src/front, src/zoo and src/quant (with cmd_quantize.c) include this; the
 * rest of the compiler sees ir_graph. */
#ifndef PZ_FRONT_ONNX_INTERNAL_H
#define PZ_FRONT_ONNX_INTERNAL_H

#include "onnx.pb-c.h"
#include "onnx_load.h"

/* Converts tp into out. raw_data is taken over (tp->raw_data is emptied), other
 * fields are copied. `what` names the tensor in errors. */
pz_status onnx_tensor_from_proto(Onnx__TensorProto *tp, const char *what, const char *model_dir,
                                 ir_tensor *out, pz_err *err);

/* Fills tp as a view of t (raw_data points at t->data; nothing is copied, so
 * tp must not outlive t and must not be freed with free_unpacked). */
void onnx_tensor_to_proto(const ir_tensor *t, const char *name, Onnx__TensorProto *tp);

/* Serializes msg to path through a temporary file and a rename, streaming
 * (no second copy of the weights in memory). */
pz_status onnx_pack_to_file(const ProtobufCMessage *msg, const char *path, pz_err *err);

/* Reads a protobuf varint at *p (< end), advancing *p; 0 when it is cut
 * short or longer than 10 bytes. */
int onnx_wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);
/* The index in opts->by_position of the first tensor given for the model's
 * input at position pos (a sequence before it gives one per element). */
int onnx_given_index(const onnx_load_opts *opts, int pos);
/* --max-shape: input "name" (at pos)'s dim d takes the value of the
 * onnx_dim_binding naming its dim_param where *v is still symbolic (< 0);
 * a value already set (by a given tensor) must be within a bound. */
pz_status onnx_dim_binding_apply(const onnx_load_opts *opts, const char *name, int pos, int d,
                                 const Onnx__TensorShapeProto__Dimension *dim, int64_t *v,
                                 pz_err *err);
/* The positions (among the non-initializer graph inputs) of the given inputs
 * with data that value `name` is computed from (onnx_bind.c). */
uint64_t onnx_needed_inputs(const Onnx__GraphProto *gp, const char *name,
                            const onnx_load_opts *opts);
/* Messages may nest at most this deep (onnx_wire.c). */
#define ONNX_MAX_NESTING 100

/* Refuses a serialized message (of type desc) whose messages nest deeper than
 * ONNX_MAX_NESTING: protobuf-c's decoder recurses once per level and would
 * overflow the stack. Call before protobuf_c_message_unpack; `what` starts
 * the error message. */
pz_status onnx_check_nesting(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                             const char *what, pz_err *err);

#endif
