/* batch.h - --batch N on a model whose batch is a static 1 (a torchvision
 * export, `paleozoic zoo`): the graph re-inferred at batch N where it
 * provably keeps the batch elements apart, refused naming the node where it
 * does not.
 *
 *   batch_plan *p;
 *   if (batch_plan_make(path, &opts, n, &p, &err)) ...   (p NULL: not a static 1)
 *   batch_plan_opts(p, &opts);                          (opts.rebatch, before_infer)
 *   onnx_load_file(path, &opts, &g, &err);              (the graph at batch N)
 *   batch_plan_check(p, g, &err);                       (every shape as planned)
 *   batch_plan_free(p);
 *
 * The plan is made on the graph inferred at batch 1: which values carry the
 * batch on axis 0 (the inputs whose leading dim is 1, then what each op
 * makes of them), each op checked to treat axis 0 independently, and the
 * constants of the model file that pin the batch at 1 (a Reshape shape
 * [1, ...], a Resize sizes, the shape or repeats of an Expand,
 * ConstantOfShape or Tile whose output a Concat joins to the batch) given a
 * leading N; a constant of batch 1 that a Concat joins to the batch (a class
 * token) is repeated N times for it. After the load at batch N every value's shape must be its batch-1
 * shape with N in front where it carries the batch, and unchanged elsewhere. */
#ifndef PZ_FRONT_BATCH_H
#define PZ_FRONT_BATCH_H

#include "onnx_load.h"

typedef struct batch_plan batch_plan;

/* Loads path with opts at batch 1 (opts' given tensors ignored) and plans
 * batch n. *plan is NULL (and PZ_OK) when no input has a fixed leading dim
 * of 1; an error names the node that does not keep the batch apart. */
pz_status batch_plan_make(const char *path, const onnx_load_opts *opts, int64_t n,
                          batch_plan **plan, pz_err *err);
/* Sets opts to load the model at batch n with the plan's constants. */
void batch_plan_opts(batch_plan *p, onnx_load_opts *opts);
/* g, loaded with those opts: every value's shape as the plan says. */
pz_status batch_plan_check(const batch_plan *p, const ir_graph *g, pz_err *err);
void batch_plan_free(batch_plan *p);

#endif
