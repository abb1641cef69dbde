/* sched_prec.c - a schedule block's "layer_precision" (schedule.h): a
 * precision per layer over the block's own "precision" (mixed precision in
 * one F-Block):
 *
 *   {"first": 40, "count": 6, "mp": 2, "precision": "bf16",
 *    "layer_precision": {"/layer3/layer3.0/conv2/Conv": "fp32", "44": "fp32"}}
 *
 * A key is a node name of one of the block's layers, or (all digits) a
 * layer number inside the block. A layer listed with "bf16" must be a
 * Conv, MatMul or Gemm with constant weights, with "int8" a MatMul or Gemm
 * with constant weights (the layers those kernels take, as a block of that
 * precision runs them; a Conv whose shape the bf16 kernel does not take, a
 * 3-channel stem or a depthwise one, stays fp32 there as in a bf16 block);
 * "fp32" fits any layer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule.h"

static const char *lname(const ir_model *m, int l)
{
    return m->g->nodes[m->layers[l].node].name;
}

static const char *lop(const ir_model *m, int l)
{
    return m->g->nodes[m->layers[l].node].op_type;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

int sched_prec_op_has(const char *op_type, ir_precision p)
{
    int gemm = !strcmp(op_type, "MatMul") || !strcmp(op_type, "Gemm");
    if (p == IR_PREC_BF16) return gemm || !strcmp(op_type, "Conv");
    if (p == IR_PREC_INT8) return gemm;
    return 1;
}

/* Layer l of the block [first, first + count) that key names, or -1. */
static int find_layer(const ir_model *m, int first, int count, const char *key)
{
    if (all_digits(key)) {
        long l = strtol(key, NULL, 10);
        return l >= first && l < first + count && strlen(key) < 10 ? (int)l : -1;
    }
    for (int l = first; l < first + count; l++)
        if (lname(m, l) && !strcmp(lname(m, l), key)) return l;
    return -1;
}

int sched_layer_prec_check(const sched_block *b, const ir_model *m, int *layers, char *why,
                           size_t n)
{
    for (int k = 0; k < b->n_lp; k++) {
        const char *key = b->lp_key[k];
        int l = find_layer(m, b->first, b->count, key);
        if (l < 0) {
            int elsewhere = all_digits(key) ? -1 : find_layer(m, 0, m->n_layers, key);
            if (elsewhere >= 0)
                snprintf(why, n, "\"%.150s\" is layer %d, not a layer of this block", key, elsewhere);
            else
                snprintf(why, n, "\"%.150s\" names no layer of the block (a node name of layers "
                         "%d to %d, or one of those numbers)", key, b->first,
                         b->first + b->count - 1);
            return 1;
        }
        for (int j = 0; j < k; j++)
            if (layers[j] == l) {
                snprintf(why, n, "layer %d \"%.150s\" is listed twice (\"%.100s\" and \"%.100s\")",
                         l, lname(m, l), b->lp_key[j], key);
                return 1;
            }
        ir_precision p = b->lp_prec[k];
        const ir_layer *L = &m->layers[l];
        int const_w = L->n_in > 1 && L->in[1] >= 0 && m->g->values[L->in[1]].t.data;
        if (!sched_prec_op_has(lop(m, l), p) || (p != IR_PREC_FP32 && !const_w)) {
            snprintf(why, n, "layer %d \"%.150s\" (%s) has no %s kernel (%s: %s with constant "
                     "weights)", l, lname(m, l), lop(m, l), ir_precision_name(p),
                     ir_precision_name(p), p == IR_PREC_BF16 ? "Conv, MatMul or Gemm"
                     : "MatMul or Gemm");
            return 1;
        }
        layers[k] = l;
    }
    return 0;
}

void sched_layer_prec_write(json_writer *w, const ir_model *m, const ir_fblock *b)
{
    int any = 0;
    for (int l = b->first; l < b->first + b->count; l++) {
        if (m->layers[l].precision == b->precision) continue;
        if (!any) {
            json_w_key(w, "layer_precision");
            json_w_obj(w, 1);
            any = 1;
        }
        /* the node name where it names this layer alone, else the number */
        const char *name = lname(m, l);
        char key[24];
        if (!name || !name[0] || all_digits(name) || find_layer(m, b->first, b->count, name) != l) {
            snprintf(key, sizeof key, "%d", l);
            name = key;
        }
        json_w_key(w, name);
        json_w_str(w, ir_precision_name(m->layers[l].precision));
    }
    if (any) json_w_end(w);
}
