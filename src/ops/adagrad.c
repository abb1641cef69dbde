/* adagrad.c - Adagrad (domain ai.onnx.preview.training): one step of the
 * optimizer on n tensors.
 *   R (float32 scalar), T (int64 scalar), X_1..X_n, G_1..G_n, H_1..H_n
 *   -> X_new_1..X_new_n, H_new_1..H_new_n
 *   r = R / (1 + T * decay_factor);  G' = norm_coefficient * X + G
 *   H_new = H + G' * G';  X_new = X - r * G' / (sqrt(H_new) + epsilon)
 * Unfolded at compile time into those element-wise nodes (op_train.h). */
#include "op_inline.h"
#include "op_train.h"

static pz_status adagrad_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    float decay, eps, norm;
    int cnt;
    if (op_attr_float(n, "decay_factor", 0, &decay, err) ||
        op_attr_float(n, "epsilon", 0, &eps, err) ||
        op_attr_float(n, "norm_coefficient", 0, &norm, err) ||
        op_train_check(g, n, 3, 2, &cnt, err))
        return err->code;
    int *in = op_train_inputs(n), *src = malloc(sizeof(int) * 2 * (size_t)cnt);
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    /* r = R / (1 + float(T) * decay) */
    int r = op_train_node(&b, "Div", in[0],
                          op_train_node(&b, "Add", op_train_scalar(&b, 1.0f),
                                        op_train_node(&b, "Mul", op_train_float(&b, in[1]),
                                                      op_train_scalar(&b, decay))));
    for (int j = 0; j < cnt; j++) {
        int x = in[2 + j], gr = in[2 + cnt + j], h = in[2 + 2 * cnt + j];
        int greg = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, norm), x), gr);
        int hn = op_train_node(&b, "Add", h, op_train_node(&b, "Mul", greg, greg));
        int ha = op_train_node(&b, "Add", op_train_node(&b, "Sqrt", hn, -1), op_train_scalar(&b, eps));
        int step = op_train_node(&b, "Div", op_train_node(&b, "Mul", r, greg), ha);
        src[j] = op_train_node(&b, "Sub", x, step);
        src[cnt + j] = hn;
    }
    op_train_finish(&b, i, start, src);
    free(in), free(src);
    return PZ_OK;
}

const op_def op_adagrad = {
    .name = "Adagrad",
    .domain = "ai.onnx.preview.training",
    .min_in = 5, .max_in = 2 + 3 * 1024, .min_out = 2, .max_out = 2 * 1024,
    .infer = op_unfold_only,
    .unfold = adagrad_unfold,
};
