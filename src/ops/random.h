/* random.h - what the random ops share (random.c): RandomUniform,
 * RandomNormal, their -Like forms and Multinomial lower to the RANDOM layer
 * (rt/ops/random.c, pz_random_params); Bernoulli and Dropout in training
 * unfold into RandomUniformLike and element-wise nodes. Every one is
 * op_def.random: never folded, so each run draws fresh values; a seed
 * attribute makes the stream reproducible (the same model and seed give
 * the same values in `paleozoic run` and a built program). */
#ifndef PZ_OPS_RANDOM_H
#define PZ_OPS_RANDOM_H

#include "op.h"

typedef struct {
    pz_random_params rt;
    int64_t dtype;                    /* the attribute; 0: absent */
    int64_t sample_size;              /* Multinomial */
} random_op_params;

/* Reads seed (optional float), dtype and mode's two attributes (low/high
 * or mean/scale; Multinomial: sample_size) into p. */
pz_status random_parse(const ir_node *n, int mode, random_op_params *p, pz_err *err);

/* Output 0 of dtype p->dtype (or def when absent, which must be a float or
 * int type) and shape rank/dims. */
pz_status random_set_out(ir_graph *g, const ir_node *n, const random_op_params *p, int def,
                         int rank, const int64_t *dims, pz_err *err);

/* The required ints attribute shape (RandomUniform, RandomNormal), every
 * dim >= 0. */
pz_status random_shape_attr(const ir_node *n, int64_t *dims, int *rank, pz_err *err);

/* The parse and infer hooks: attributes by mode; Y's shape from the shape
 * attribute (dtype default float32) or from X's (dtype default X's). */
pz_status random_parse_uniform(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
pz_status random_parse_normal(const ir_graph *g, const ir_node *n, void *params, pz_err *err);
pz_status random_infer_shape(ir_graph *g, ir_node *n, pz_err *err);
pz_status random_infer_like(ir_graph *g, ir_node *n, pz_err *err);

/* The RANDOM layer with no inputs (the -Like forms read only a shape). */
pz_status random_lower_fill(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err);

#endif
