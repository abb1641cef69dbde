/* momentum.c - Momentum (domain ai.onnx.preview.training): one step of SGD
 * with momentum on n tensors.
 *   R (float32 scalar), T (int64 scalar), X_1..X_n, G_1..G_n, V_1..V_n
 *   -> X_new_1..X_new_n, V_new_1..V_new_n
 *   G' = norm_coefficient * X + G;  b = T > 0 ? beta : 1
 *   V_new = alpha * V + b * G'
 *   mode "standard": X_new = X - R * V_new; "nesterov": X - R * (G' + alpha * V_new)
 * Unfolded at compile time into those element-wise nodes (op_train.h). */
#include <string.h>

#include "op_inline.h"
#include "op_train.h"

static pz_status momentum_unfold(ir_graph *g, int i, pz_err *err)
{
    const ir_node *n = &g->nodes[i];
    float alpha, beta, norm;
    const char *mode = NULL;
    int cnt;
    if (op_attr_float(n, "alpha", 0, &alpha, err) || op_attr_float(n, "beta", 0, &beta, err) ||
        op_attr_float(n, "norm_coefficient", 0, &norm, err) ||
        op_attr_string(n, "mode", "standard", &mode, err) ||
        op_train_check(g, n, 3, 2, &cnt, err))
        return err->code;
    if (!op_attr(n, "alpha") || !op_attr(n, "beta") || !op_attr(n, "mode"))
        return op_err_attr(err, n, !op_attr(n, "alpha") ? "alpha" : !op_attr(n, "beta") ? "beta"
                                                                                       : "mode",
                           "is required");
    const int nesterov = !strcmp(mode, "nesterov");
    if (!nesterov && strcmp(mode, "standard"))
        return op_err_attr(err, n, "mode", "is \"%s\", expected \"standard\" or \"nesterov\"",
                           mode);
    int *in = op_train_inputs(n), *src = malloc(sizeof(int) * 2 * (size_t)cnt);
    op_train_builder b = {g, pz_xstrdup(n->name), 0};
    const int start = g->n_nodes;
    int bt = op_train_if_t_positive(&b, in[1], op_train_scalar(&b, beta), op_train_scalar(&b, 1.0f));
    for (int j = 0; j < cnt; j++) {
        int x = in[2 + j], gr = in[2 + cnt + j], v = in[2 + 2 * cnt + j];
        int greg = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, norm), x), gr);
        int vn = op_train_node(&b, "Add", op_train_node(&b, "Mul", op_train_scalar(&b, alpha), v),
                               op_train_node(&b, "Mul", bt, greg));
        int dir = nesterov ? op_train_node(&b, "Add", greg,
                                           op_train_node(&b, "Mul", op_train_scalar(&b, alpha), vn))
                           : vn;
        src[j] = op_train_node(&b, "Sub", x, op_train_node(&b, "Mul", in[0], dir));
        src[cnt + j] = vn;
    }
    op_train_finish(&b, i, start, src);
    free(in), free(src);
    return PZ_OK;
}

const op_def op_momentum = {
    .name = "Momentum",
    .domain = "ai.onnx.preview.training",
    .min_in = 5, .max_in = 2 + 3 * 1024, .min_out = 2, .max_out = 2 * 1024,
    .infer = op_unfold_only,
    .unfold = momentum_unfold,
};
