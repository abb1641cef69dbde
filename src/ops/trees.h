/* trees.h - tree ensembles (TreeEnsemble of ai.onnx.ml opset 5, and
 * TreeEnsembleRegressor of opsets 1 and 3) in the one form the TREES layer
 * runs (pz_trees_params in rt/pz_op_params.h): two constants, every integer
 * of the forest in one int64 array and every value in one float64 array.
 *
 * A reference to a child or a root is a node index (>= 0) or a leaf group
 * -(g + 1); a leaf group adds its weights to its targets. Each op file
 * reads its attributes into a trees_form (trees_from_*), which trees.c
 * checks (indexes in range, no cycle, every node reached at a bounded
 * depth) and packs. */
#ifndef PZ_OPS_TREES_H
#define PZ_OPS_TREES_H

#include "op.h"

typedef struct {
    int64_t feature, mode, t, f, miss_true, set;   /* set: membership set or -1 */
    double split;
} trees_node;

typedef struct {
    int64_t n_nodes, n_roots, n_groups, n_entries, n_sets, n_members;
    trees_node *nodes;
    int64_t *roots;
    int64_t *group_first, *group_count;   /* into the entries */
    int64_t *target;                      /* per entry */
    double *weight;                       /* per entry */
    int64_t *set_first, *set_count;       /* into members */
    double *members;
    double *base;                         /* per target, added after aggregation */
    int64_t n_targets;
    int aggregate, post;                  /* pz_trees_agg, pz_trees_post */
} trees_form;

/* An op's reader: its attributes into f (checked with trees_check); f
 * zeroed on error. */
typedef pz_status (*trees_read_fn)(const ir_node *n, trees_form *f, pz_err *err);

/* Both ops' params: what inference needs. */
typedef struct {
    int64_t n_targets, max_feature;
    int y_f32;   /* 1: Y is float whatever X is (the regressor) */
} trees_op_params;

/* The op_def functions, given the op's reader: parse fills trees_op_params
 * (y_f32 from the caller), infer sets Y, expand attaches the constants
 * (once), lower makes the TREES layer. */
pz_status trees_op_parse(const ir_node *n, trees_read_fn rd, int y_f32, void *params,
                         pz_err *err);
pz_status trees_op_infer(ir_graph *g, ir_node *n, pz_err *err);
int trees_op_expand(ir_graph *g, int i, trees_read_fn rd);
pz_status trees_op_lower(const ir_node *n, trees_read_fn rd, op_lowered *out, pz_err *err);

/* A required attribute of type ty, or NULL with err naming node and attribute. */
const ir_attr *trees_attr_need(const ir_node *n, const char *name, ir_attr_type ty, pz_err *err);

/* Frees the arrays of f. */
void trees_form_free(trees_form *f);

/* Checks f against n (the error names node n); PZ_OK or an error. */
pz_status trees_check(const ir_node *n, const trees_form *f, pz_err *err);


#endif
