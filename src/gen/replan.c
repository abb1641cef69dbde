/* replan.c - a model planned and run at run time, as `paleozoic run` plans it.
 *
 * A sequence's length shapes the graph itself (SequenceMap inlined per
 * element, SequenceInsert making a longer list), so a built program's
 * compile-time plan holds one length. A program of a model with a sequence
 * input links this (libpaleozoic) and the model's bytes: given a sequence of
 * another length or other element shapes, it loads, lowers and plans the
 * model for those inputs here, the way `paleozoic run` does with the
 * build's knobs (opt_knobs, written into the program: the strategy, the
 * precision, ...; a schedule file is named on stderr, not applied), runs it
 * once or `repeat` more times, and writes the outputs as `run --output`
 * writes them (gen_write_output, shared with cmd_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../front/onnx_load.h"
#include "../io/pz_io.h"
#include "../ops/op_lower.h"
#include "../opt/opt.h"
#include "../passes/passes.h"
#include "../util/util.h"
#include "net_build.h"

void gen_output_shape(const pz_net *net, int i, ir_tensor *t)
{
    int64_t dims[PZ_MAX_RANK];
    int rank = pz_net_output_shape(net, i, dims);
    if (rank != t->rank) return;
    memcpy(t->dims, dims, sizeof(int64_t) * (size_t)rank);
}

pz_status gen_write_output(const ir_graph *g, const pz_net *net, int i, void **out_buf,
                           const char *path, pz_err *err)
{
    const ir_out_group *grp = g->out_groups ? &g->out_groups[i] : NULL;
    int first = grp ? grp->first : i, n = grp ? grp->n : 1;
    ir_tensor *ts = pz_xcalloc((size_t)(n ? n : 1), sizeof *ts);
    for (int k = 0; k < n; k++) {
        ts[k] = g->values[g->outputs[first + k]].t;
        gen_output_shape(net, first + k, &ts[k]);
        ir_tensor_bytes(&ts[k], &ts[k].nbytes, "output", err);
        const void *own = pz_net_output_data(net, first + k);   /* allocated at run time */
        ts[k].data = own ? (void *)own : out_buf[first + k];
    }
    pz_status st = !grp || grp->kind == IR_KIND_TENSOR
        ? onnx_write_tensor_file(path, &ts[0], g->values[g->outputs[first]].name, err)
        : onnx_write_value_file(path, grp->kind, grp->inner == IR_KIND_SEQ, grp->name, ts, n,
                                err);
    free(ts);
    return st;
}

static int cmp_ms(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* onnx_load_opts.given_len's entry for a value read from a file */
static int given_len(const pz_io_value *v)
{
    if (v->kind == PZ_IO_TENSOR) return -1;
    if (v->kind == PZ_IO_OPTIONAL && v->inner == PZ_IO_TENSOR) return v->n ? -1 : -2;
    return v->n;
}

/* One line on stderr: the net is planned now, with which of the build's
 * knobs (and the schedule file it does not take). */
static void say_knobs(const opt_knobs *k)
{
    fprintf(stderr, "paleozoic: note: a sequence of another length or element shapes than the "
            "build's: the net is planned now, strategy %s, precision %s",
            k->strategy ? k->strategy : OPT_DEFAULT_STRATEGY, k->precision ? k->precision : "fp32");
    if (k->target) fprintf(stderr, ", target %s", k->target);
    if (k->batch > 0) fprintf(stderr, ", batch %lld", (long long)k->batch);
    if (k->weights) fprintf(stderr, ", weights %s", k->weights);
    if (k->has_sparsity) fprintf(stderr, ", sparsity %g", (double)k->sparsity);
    if (k->schedule)
        fprintf(stderr, "; not the build's schedule %s (its blocks name the build's layers)",
                k->schedule);
    fprintf(stderr, "\n");
}

/* The model's output value i (an out group, or the flat output i) as a
 * value the caller owns: its tensors copied at the run's shapes. */
static pz_status to_value(const ir_graph *g, const pz_net *net, int i, void **out_buf,
                          pz_io_value *v, pz_err *err)
{
    const ir_out_group *grp = g->out_groups ? &g->out_groups[i] : NULL;
    int first = grp ? grp->first : i, n = grp ? grp->n : 1;
    v->kind = grp ? grp->kind : PZ_IO_TENSOR;   /* IR_KIND_* and PZ_IO_* share their numbers */
    v->inner = grp ? grp->inner : PZ_IO_TENSOR;
    v->n = n;
    v->t = pz_xcalloc((size_t)n + 1, sizeof *v->t);
    for (int k = 0; k < n; k++) {
        ir_tensor x = g->values[g->outputs[first + k]].t;
        gen_output_shape(net, first + k, &x);
        size_t nbytes = 0;
        pz_err e = {0};
        ir_tensor_bytes(&x, &nbytes, "output", &e);
        const void *own = pz_net_output_data(net, first + k);   /* allocated at run time */
        pz_io_tensor *t = &v->t[k];
        t->dtype = (int)x.dtype;
        t->rank = x.rank;
        memcpy(t->dims, x.dims, sizeof(int64_t) * (size_t)x.rank);
        if (posix_memalign(&t->data, 64, nbytes ? nbytes : 64))
            return pz_fail(err, PZ_ERR_INTERNAL, "out of memory: %zu bytes for output %d",
                           nbytes, first + k);
        memcpy(t->data, own ? own : out_buf[first + k], nbytes);
        t->nbytes = nbytes;
    }
    return PZ_OK;
}

/* pz_replan_run and pz_replan_values: the outputs to files (outputs[n_out])
 * or to values (vals[n_vals]). */
static int replan(const void *onnx, size_t len, const char *knobs, const pz_io_value *in,
                  int n_in, const char *const *outputs, int n_out, pz_io_value *vals, int n_vals,
                  int threads, int repeat, const pz_run_options *opts, char *msg, size_t msgsize)
{
    pz_err err = {0};
    opt_knobs kn;
    size_t klen = knobs ? strlen(knobs) : 0;
    char *ktext = pz_xcalloc(klen + 1, 1);   /* parsed in place */
    if (klen) memcpy(ktext, knobs, klen);
    ir_graph *g = NULL;
    ir_model *m = NULL;
    gen_net gn = {0};
    void **out_buf = NULL;
    int n_t = 0, *lens = pz_xcalloc((size_t)n_in + 1, sizeof *lens);
    for (int v = 0; v < n_in; v++) n_t += in[v].n;
    ir_tensor *ts = pz_xcalloc((size_t)n_t + 1, sizeof *ts);
    for (int v = 0, j = 0; v < n_in; v++) {
        lens[v] = given_len(&in[v]);
        for (int k = 0; k < in[v].n; k++, j++) {   /* borrowed: the caller frees them */
            const pz_io_tensor *x = &in[v].t[k];
            ts[j].dtype = (ir_dtype)x->dtype;
            ts[j].rank = x->rank;
            memcpy(ts[j].dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
            ts[j].data = x->data;
            ts[j].nbytes = x->nbytes;
        }
    }
    if (opt_knobs_parse(ktext, &kn, &err)) goto fail;
    /* the load `run --input` does: the given values bind what must be known */
    onnx_load_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.by_position = ts;
    lo.n_by_position = n_t;
    lo.given_len = lens;
    lo.n_given_len = n_in;
    lo.bind_needed = 1;
    lo.batch = kn.batch;
    if (onnx_load_buffer(onnx, len, NULL, &lo, &g, &err)) goto fail;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        const ir_tensor *x = &ts[g->input_pos[i]];
        if (x->dtype != v->t.dtype) {
            pz_fail(&err, PZ_ERR_INPUT, "input \"%s\" wants %s, the file holds %s", v->name,
                    ir_dtype_name(v->t.dtype), ir_dtype_name(x->dtype));
            goto fail;
        }
    }
    if (threads <= 0) threads = pz_cpu_count();
    if (opts) gen_set_run_options(opts);   /* PZ_ISA, PZ_WINOGRAD, ...: as `run` reads them */
    passes_opts po;
    passes_stats ps;
    memset(&po, 0, sizeof po);
    po.concat = kn.concat;
    if (passes_run_stats(g, &po, &ps, &err)) goto fail;
    m = ir_model_lower(g);
    m->concat = po.concat;
    say_knobs(&kn);
    if (opt_knobs_strategy(&kn, m, threads, &err) || opt_knobs_finish(&kn, m, &err) ||
        gen_net_build(m, threads, &gn, &err))
        goto fail;

    const void **ins = pz_xcalloc((size_t)g->n_inputs + 1, sizeof *ins);
    for (int i = 0; i < g->n_inputs; i++) ins[i] = ts[g->input_pos[i]].data;
    out_buf = pz_xcalloc((size_t)g->n_outputs + 1, sizeof *out_buf);
    for (int i = 0; i < g->n_outputs; i++) {
        size_t nbytes;
        ir_tensor_bytes(&g->values[g->outputs[i]].t, &nbytes, "output", &err);
        out_buf[i] = pz_xcalloc(nbytes ? nbytes : 1, 1);
    }
    double *t = pz_xcalloc((size_t)repeat + 1, sizeof *t);
    for (int r = 0; r <= repeat; r++) {   /* run 0 is the one whose outputs are checked */
        double t0 = util_now_s();
        pz_net_run(gn.net, ins, out_buf);
        t[r] = (util_now_s() - t0) * 1e3;
        if (pz_net_run_error(gn.net)) break;
    }
    free(ins);
    if (pz_net_run_error(gn.net)) {   /* an op failed on the inputs' values */
        free(t);
        pz_fail(&err, PZ_ERR_INPUT, "%s", pz_net_run_error(gn.net));
        goto fail;
    }
    if (repeat) {
        qsort(t + 1, (size_t)repeat, sizeof *t, cmp_ms);
        printf("latency_ms median=%.3f min=%.3f max=%.3f runs=%d\n", t[1 + repeat / 2], t[1],
               t[repeat], repeat);
    }
    free(t);
    for (int i = 0; i < n_out; i++)
        if (gen_write_output(g, gn.net, i, out_buf, outputs[i], &err)) goto fail;
    int n_values = g->out_groups ? g->n_out_groups : g->n_outputs;
    if (vals && n_vals != n_values) {
        pz_fail(&err, PZ_ERR_INPUT, "%d output values asked for, the model gives %d", n_vals,
                n_values);
        goto fail;
    }
    for (int i = 0; vals && i < n_vals; i++)
        if (to_value(g, gn.net, i, out_buf, &vals[i], &err)) goto fail;
    if (!n_out && !repeat && !vals) {
        for (int i = 0; i < g->n_outputs; i++) {
            ir_tensor x = g->values[g->outputs[i]].t;
            gen_output_shape(gn.net, i, &x);
            char s[160];
            printf("output %s: %s %s\n", g->values[g->outputs[i]].name, ir_dtype_name(x.dtype),
                   ir_shape_str(&x, s, sizeof s));
        }
    }
fail:
    if (err.code) snprintf(msg, msgsize, "%s", err.msg);
    for (int i = 0; err.code && vals && i < n_vals; i++) pz_io_value_free(&vals[i]);
    for (int i = 0; out_buf && i < g->n_outputs; i++) free(out_buf[i]);
    free(out_buf);
    if (gn.net) gen_net_free(&gn);
    ir_model_free(m);
    ir_graph_free(g);
    free(ts);
    free(lens);
    free(ktext);
    return err.code == PZ_OK ? 0 : err.code == PZ_ERR_INTERNAL ? 1 : 2;
}

int pz_replan_run(const void *onnx, size_t len, const char *knobs, const pz_io_value *in,
                  int n_in, const char *const *outputs, int n_out, int threads, int repeat,
                  const pz_run_options *opts, char *msg, size_t msgsize)
{
    return replan(onnx, len, knobs, in, n_in, outputs, n_out, NULL, 0, threads, repeat, opts,
                  msg, msgsize);
}

int pz_replan_values(const void *onnx, size_t len, const char *knobs, const pz_io_value *in,
                     int n_in, pz_io_value *out, int n_out, int threads,
                     const pz_run_options *opts, char *msg, size_t msgsize)
{
    memset(out, 0, sizeof *out * (size_t)(n_out > 0 ? n_out : 0));
    return replan(onnx, len, knobs, in, n_in, NULL, 0, out, n_out, threads, 0, opts, msg, msgsize);
}
