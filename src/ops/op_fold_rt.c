/* op_fold_rt.c - constant folding of any op the runtime computes.
 *
 * A node whose inputs are all constants is computed once at compile time by
 * its own runtime layer (lowered as for a run, the reference kernels, one
 * thread), so every op folds as it would run, bit for bit with the
 * reference, and values computed from constants (a trip count, a shape
 * from Ceil or Relu) are known to the ops that need them. Outputs are
 * bounded by OP_FOLD_LIMIT elements; a node that cannot be lowered alone
 * (an expand hook, a fused epilogue) or whose layer refuses is left to run.
 * An output with a run-time shape (ir_value.dyn) takes the shape the layer
 * set when it ran, and becomes an ordinary constant. */
#include "op_fold_rt.h"

#include <stdlib.h>
#include <string.h>

#include "fold.h"

void op_fold_by_runtime(ir_graph *g, int i)
{
    ir_node *n = &g->nodes[i];
    if (!n->op->lower || n->op->expand || n->op->random || n->act.kind != IR_ACT_NONE) return;
    int missing = 0;
    int64_t elems = 0;
    for (int k = 0; k < n->n_in; k++)
        if (n->in[k] >= 0 && !g->values[n->in[k]].t.data) return;
    for (int k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0) continue;
        const ir_tensor *t = &g->values[n->out[k]].t;
        if (t->rank < 0 || !ir_dtype_size(t->dtype)) return;
        missing += !t->data;
        elems += ir_tensor_numel(t);
    }
    if (!missing || elems > OP_FOLD_LIMIT) return;
    op_lowered lw;
    pz_err err = {0};
    memset(&lw, 0, sizeof lw);
    if (n->op->lower(g, n, &lw, &err)) return;

    pz_net *net = pz_net_new(n->name);
    int in[PZ_MAX_IO], out[PZ_MAX_IO];
    void *bufs[PZ_MAX_IO] = {0};
    for (int k = 0; k < lw.n_in; k++) {
        in[k] = -1;
        if (lw.in[k] < 0) continue;
        const ir_value *v = &g->values[lw.in[k]];
        if (!v->t.data) goto out;   /* the lowering reads a value that is not an input */
        in[k] = pz_net_const(net, v->name, v->t.dtype, v->t.rank, v->t.dims, v->t.data);
    }
    for (int k = 0; k < lw.n_out; k++) {
        out[k] = -1;
        if (lw.out[k] < 0) continue;
        const ir_value *v = &g->values[lw.out[k]];
        out[k] = pz_net_tensor(net, v->name, v->t.dtype, v->t.rank, v->t.dims);
        pz_net_output(net, out[k]);
        bufs[k] = pz_xmalloc((size_t)ir_tensor_numel(&v->t) * ir_dtype_size(v->t.dtype) + 1);
    }
    pz_net_layer(net, n->name, lw.kind, lw.params_size ? &lw.p : NULL, lw.params_size, in,
                 lw.n_in, out, lw.n_out);
    pz_run_options o = PZ_RUN_OPTIONS_DEFAULT;
    o.isa = PZ_RUN_ISA_REF;
    o.hugepages = 0;
    o.pin = 0;
    o.spin_us = 0;
    char msg[256];
    if (pz_net_compile(net, 1, &o, msg, sizeof msg)) goto out;
    {
        void *outs[PZ_MAX_IO];
        int m = 0;
        for (int k = 0; k < lw.n_out; k++)
            if (out[k] >= 0) outs[m++] = bufs[k];
        pz_net_run(net, NULL, outs);
        /* it failed on these values (ImageDecoder): left to run, which says so */
        if (pz_net_run_error(net)) goto out;
    }
    for (int k = 0, m = 0; k < lw.n_out; k++) {
        if (out[k] < 0) continue;
        ir_value *v = &g->values[lw.out[k]];
        if (v->dyn) {
            /* a run-time shape (NonZero, Unique, ...): the run's, data packed at it */
            int64_t dims[PZ_MAX_RANK];
            int rank = pz_net_output_shape(net, m, dims);
            PZ_ASSERT(rank == v->t.rank);
            memcpy(v->t.dims, dims, sizeof(int64_t) * (size_t)rank);
            v->dyn = 0;
        }
        m++;
        if (v->t.data) continue;
        ir_value_take_data(g, lw.out[k], bufs[k],
                           (size_t)ir_tensor_numel(&v->t) * ir_dtype_size(v->t.dtype));
        bufs[k] = NULL;
    }
out:
    for (int k = 0; k < PZ_MAX_IO; k++) free(bufs[k]);
    pz_net_free(net);
}
