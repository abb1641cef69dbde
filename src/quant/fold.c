/* fold.c - the float model made ready to quantize: Constant nodes holding
 * weights become initializers, and BatchNormalization is folded into the
 * Conv before it (as ONNX Runtime's quantization pre-processing does). */
#include <math.h>
#include <string.h>

#include "quant_internal.h"

/* Constant nodes holding a tensor (paddle2onnx writes weights so) become
 * initializers, so that their weights are quantized and folded too. */
static void lift_constants(Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        Onnx__NodeProto *n = gp->node[i];
        if (!qp_is_op(n, "Constant") || n->n_output != 1 || n->n_attribute != 1 ||
            !n->attribute[0]->t || strcmp(n->attribute[0]->name, "value") ||
            qp_find_init(gp, n->output[0]) >= 0)
            continue;
        Onnx__TensorProto *tp = n->attribute[0]->t;
        n->attribute[0]->t = NULL;
        free(tp->name);
        tp->name = pz_xstrdup(n->output[0]);
        qp_push_init(gp, tp);
        onnx__node_proto__free_unpacked(n, NULL);
        memmove(&gp->node[i], &gp->node[i + 1], (gp->n_node - i - 1) * sizeof *gp->node);
        gp->n_node--;
        i--;
    }
}

int quant_fold_bn(Onnx__ModelProto *m, const char *dir, pz_err *err)
{
    Onnx__GraphProto *gp = m->graph;
    int folded = 0;
    lift_constants(gp);
    for (size_t bi = 0; bi < gp->n_node; bi++) {
        Onnx__NodeProto *bn = gp->node[bi];
        if (!qp_is_op(bn, "BatchNormalization") || bn->n_input != 5 || bn->n_output < 1) continue;
        int extra_out = 0;
        for (size_t k = 1; k < bn->n_output; k++) extra_out |= bn->output[k][0] != 0;
        if (extra_out || qp_attr_i(bn, "training_mode", 0)) continue;
        int ci = qp_producer(gp, bn->input[0]), only = -1;
        if (ci < 0) continue;
        Onnx__NodeProto *cv = gp->node[ci];
        if (!qp_is_op(cv, "Conv") || cv->n_input < 2 || qp_readers(gp, bn->input[0], &only) != 1)
            continue;
        int iw = qp_find_init(gp, cv->input[1]);
        int ib = cv->n_input > 2 && cv->input[2][0] ? qp_find_init(gp, cv->input[2]) : -1;
        if (iw < 0 || qp_readers(gp, cv->input[1], NULL) != 1) continue;
        if (cv->n_input > 2 && cv->input[2][0] && (ib < 0 || qp_readers(gp, cv->input[2], NULL) != 1))
            continue;
        int ip[4];
        for (int k = 0; k < 4; k++) ip[k] = qp_find_init(gp, bn->input[1 + k]);
        if (ip[0] < 0 || ip[1] < 0 || ip[2] < 0 || ip[3] < 0) continue;

        ir_tensor w, b = {0}, pr[4] = {{0}};
        if (qp_init_f32(gp, iw, dir, &w, err)) {
            if (err->code) return -1;
            continue;
        }
        int64_t mo = w.rank ? w.dims[0] : 0, per = mo ? ir_tensor_numel(&w) / mo : 0;
        int ok = mo > 0;
        for (int k = 0; k < 4 && ok; k++) {
            pz_status s = qp_init_f32(gp, ip[k], dir, &pr[k], err);
            if (s && err->code) ok = -1;
            else if (s || ir_tensor_numel(&pr[k]) != mo) ok = 0;
        }
        if (ok == 1 && ib >= 0) {
            pz_status s = qp_init_f32(gp, ib, dir, &b, err);
            if (s && err->code) ok = -1;
            else if (s || ir_tensor_numel(&b) != mo) ok = 0;
        }
        if (ok == 1) {
            float eps = qp_attr_f(bn, "epsilon", 1e-5f);
            const float *g = pr[0].data, *beta = pr[1].data, *mean = pr[2].data, *var = pr[3].data;
            float *wd = w.data, *nb = pz_xmalloc((size_t)mo * sizeof *nb);
            for (int64_t c = 0; c < mo; c++) {
                double f = g[c] / sqrt((double)var[c] + eps);
                for (int64_t j = 0; j < per; j++) wd[c * per + j] = (float)(wd[c * per + j] * f);
                double b0 = b.data ? ((const float *)b.data)[c] : 0;
                nb[c] = (float)((b0 - mean[c]) * f + beta[c]);
            }
            qp_tp_set_raw(gp->initializer[iw], IR_F32, w.data, w.nbytes);
            if (ib >= 0) {
                qp_tp_set_raw(gp->initializer[ib], IR_F32, nb, (size_t)mo * sizeof *nb);
            } else {
                char *bname = qp_cat(cv->input[1], "_folded_bias");
                qp_push_init(gp, qp_tp_new(bname, IR_F32, &mo, 1, nb, (size_t)mo * sizeof *nb));
                cv->input = pz_xrealloc(cv->input, 3 * sizeof *cv->input);
                for (size_t k = cv->n_input; k < 2; k++) cv->input[k] = pz_xstrdup("");
                cv->input[2] = bname;
                cv->n_input = 3;
            }
            free(nb);
            /* the Conv now writes the BatchNormalization's output; a
             * value_info of its old output would describe nothing */
            for (size_t v = 0; v < gp->n_value_info; v++)
                if (gp->value_info[v]->name && !strcmp(gp->value_info[v]->name, cv->output[0])) {
                    onnx__value_info_proto__free_unpacked(gp->value_info[v], NULL);
                    memmove(&gp->value_info[v], &gp->value_info[v + 1],
                            (gp->n_value_info - v - 1) * sizeof *gp->value_info);
                    gp->n_value_info--;
                    break;
                }
            free(cv->output[0]);
            cv->output[0] = pz_xstrdup(bn->output[0]);
            onnx__node_proto__free_unpacked(bn, NULL);
            memmove(&gp->node[bi], &gp->node[bi + 1], (gp->n_node - bi - 1) * sizeof *gp->node);
            gp->n_node--;
            bi--;
            folded++;
        }
        ir_tensor_free_data(&w);
        ir_tensor_free_data(&b);
        for (int k = 0; k < 4; k++) ir_tensor_free_data(&pr[k]);
        if (ok < 0) return -1;
    }
    if (folded) qp_drop_unused_inits(gp);
    return folded;
}

