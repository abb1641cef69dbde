/* adam.c - Adam (domain ai.onnx.preview.training): one step of the
 * optimizer on n tensors.
 *   R (float32 scalar), T (int64 scalar), X_1..X_n, G_1..G_n, V_1..V_n,
 *   H_1..H_n -> X_new_1..n, V_new_1..n, H_new_1..n
 *   G' = norm_coefficient * X + G
 *   V_new = alpha * V + (1 - alpha) * G';  H_new = beta * H + (1 - beta) * G'^2
 *   R' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
 *   X_new = (1 - norm_coefficient_post) * (X - R' * V_new / (sqrt(H_new) + epsilon))
 * Unfolded at compile time into those element-wise nodes (op_train.h). */
#include "op_inline.h"
#include "op_train.h"

static pz_status adam_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    float alpha, beta, eps, norm, post;
    int cnt;
    if (op_attr_float(n, "alpha", 0.9f, &alpha, err) ||
        op_attr_float(n, "beta", 0.999f, &beta, err) ||
        op_attr_float(n, "epsilon", 1e-6f, &eps, err) ||
        op_attr_float(n, "norm_coefficient", 0, &norm, err) ||
        op_attr_float(n, "norm_coefficient_post", 0, &post, err) ||
        op_train_check(g, n, 4, 3, &cnt, err))
        return err->code;
    int *in = op_train_inputs(n), *src = malloc(sizeof(int) * 3 * (size_t)cnt);
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    /* R' = R * sqrt(1 - beta^T) / (1 - alpha^T) when T > 0 */
    const int t = op_train_float(&b, in[1]), one = op_train_scalar(&b, 1.0f);
    int bc = op_train_node(&b, "Sqrt", op_train_node(&b, "Sub", one,
                                                     op_train_node(&b, "Pow", op_train_scalar(&b, beta), t)), -1);
    int ac = op_train_node(&b, "Sub", one, op_train_node(&b, "Pow", op_train_scalar(&b, alpha), t));
    int radj = op_train_node(&b, "Div", op_train_node(&b, "Mul", in[0], bc), ac);
    int r = op_train_if_t_positive(&b, in[1], radj, in[0]);
    for (int j = 0; j < cnt; j++) {
        int x = in[2 + j], gr = in[2 + cnt + j], v = in[2 + 2 * cnt + j], h = in[2 + 3 * cnt + j];
        int greg = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, norm), x), gr);
        int vn = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, alpha), v),
                               op_train_node(&b, "Mul", op_train_scalar(&b, 1.0f - alpha), greg));
        int hn = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, beta), h),
                               op_train_node(&b, "Mul", op_train_scalar(&b, 1.0f - beta),
                                             op_train_node(&b, "Mul", greg, greg)));
        int hs = op_train_node(&b, "Add", op_train_node(&b, "Sqrt", hn, -1), op_train_scalar(&b, eps));
        int xn = op_train_node(&b, "Sub", x, op_train_node(&b, "Mul", r, op_train_node(&b, "Div", vn, hs)));
        src[j] = op_train_node(&b, "Mul", op_train_scalar(&b, 1.0f - post), xn);
        src[cnt + j] = vn;
        src[2 * cnt + j] = hn;
    }
    op_train_finish(&b, i, start, src);
    free(in), free(src);
    return PZ_OK;
}

const op_def op_adam = {
    .name = "Adam",
    .domain = "ai.onnx.preview.training",
    .min_in = 6, .max_in = 2 + 4 * 1024, .min_out = 3, .max_out = 3 * 1024,
    .infer = op_unfold_only,
    .unfold = adam_unfold,
};
