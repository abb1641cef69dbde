/* builder_internal.h - what builder.c (names, nodes, initializers, the
 * model) shares with layers.c (the layers and their signal statistics).
 * Not for the network files: they use builder.h only. */
#ifndef PZ_ZOO_BUILDER_INTERNAL_H
#define PZ_ZOO_BUILDER_INTERNAL_H

#include "builder.h"

#define ZOO_MAX_SCOPE 512
#define ZOO_MAX_INPUTS 4
/* Channel covariances are tracked through a 1x1 conv when this costs at most
 * this many multiply-adds (c_out^2 * c_in): it covers MobileNetV2's linear
 * bottlenecks, whose few channels are strongly correlated. */
#define ZOO_COV_MAX_WORK (1LL << 27)

typedef struct {
    char *name;          /* value name = name of the node that makes it */
    int rank;            /* 3: [C,H,W], 1: [F], transformers 2: [S,D] and 3: [H,S,D];
                            batch 1 is implied; a dim may be ZOO_DIM_SEQ */
    int elem;            /* ONNX element type (graph inputs and outputs) */
    int64_t dims[3];
    double *mean;        /* [dims[0]]: mean over space, per channel */
    double *var;         /* [dims[0]]: variance of the input-driven part */
    double *spread;      /* [dims[0]]: variance over positions of the mean (it differs
                            near the borders, where padding drops kernel taps) */
    double *cov;         /* [dims[0]^2] or NULL: covariance between channels of the
                            input-driven part (var is its diagonal) */
    int pre;             /* for a ReLU / ReLU6 output: its input; else -1 */
    int sum[2];          /* for an Add output: its operands; else -1 */
    int rectified;       /* 1: a ReLU output, or a max pool of one (>= 0) */
    int producer;        /* node index, -1 for the graph input */
} zoo_value;

struct zoo_builder {
    uint64_t seed;
    char *graph_name;
    char scope[ZOO_MAX_SCOPE];
    size_t scope_len[32];
    int depth;
    zoo_value *values;
    int n_values, cap_values;
    Onnx__NodeProto **nodes;
    size_t n_nodes, cap_nodes;
    Onnx__TensorProto **inits;
    size_t n_inits, cap_inits;
    int inputs[ZOO_MAX_INPUTS], n_inputs, output;
    int64_t params, macs;
    int have_clip_bounds;
    char full[ZOO_MAX_SCOPE + 64];   /* the current node's full name */
};

/* A tensor's random stream: seeded from the builder's seed and the tensor's
 * name, so a weight does not change when other layers are added. */
typedef struct {
    uint64_t s;
} zoo_rng;

/* U[lo, hi) from the top 24 bits. */
double zoo_rng_uniform(zoo_rng *r, double lo, double hi);

/* The scoped, unique name of the next node, in b->full. */
const char *zoo_full_name(zoo_builder *b, const char *name);
/* Value x; the pointer is valid until the next node is added. */
zoo_value *zoo_val(const zoo_builder *b, int x);
/* Appends node `op_type` named b->full reading `in`, writing a new value of
 * the given shape (statistics zero, for the caller to fill); returns the
 * node (for attributes) and the value in *y. */
Onnx__NodeProto *zoo_node_add(zoo_builder *b, const char *op_type, const char *const *in,
                              size_t n_in, int rank, const int64_t *dims, int *y);

void zoo_attr_int(Onnx__NodeProto *n, const char *name, int64_t v);
void zoo_attr_float(Onnx__NodeProto *n, const char *name, float v);
/* An INTS attribute of `count` copies of v. */
void zoo_attr_ints(Onnx__NodeProto *n, const char *name, int64_t v, size_t count);
/* kernel_shape, strides, pads of a square 2-D window. */
void zoo_attr_window(Onnx__NodeProto *n, int k, int s, int p);

/* A float32 initializer `name` of the given shape; returns its (zeroed) data. */
float *zoo_init_add(zoo_builder *b, const char *name, int rank, const int64_t *dims);
/* Initializer "<node>.<param>" (its name into out) of the given shape; if
 * rng is not NULL it is set to the tensor's random stream. */
float *zoo_param_add(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                     zoo_rng *rng, char *out, size_t size);
/* An int64 constant of n elements (rank 1; rank 0: the scalar v[0]),
 * named after its values ("ints_1_m1_12_64") and added once; returns its
 * name, valid as long as the builder. */
const char *zoo_init_ints(zoo_builder *b, int rank, int n, const int64_t *v);
/* A float32 scalar initializer `name` = v, or the one added before. */
const char *zoo_init_scalar(zoo_builder *b, const char *name, float v);
/* Initializer `name` filled with U[lo, hi) from its own stream. */
float *zoo_init_uniform(zoo_builder *b, const char *name, int rank, const int64_t *dims, double lo,
                        double hi);
/* Initializer "<node>.<param>" filled with U[lo, hi). */
float *zoo_param_uniform(zoo_builder *b, const char *param, int rank, const int64_t *dims,
                         double lo, double hi, char *out, size_t size);

#endif
