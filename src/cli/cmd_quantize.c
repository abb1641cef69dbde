/* cmd_quantize.c - `paleozoic quantize MODEL.onnx -o OUT.onnx [--calibrate
 * X.pb...] [--method minmax|percentile|entropy] [--samples N]
 * [--accuracy-budget COS[,TOP1]]`: post-training quantization into a QDQ
 * model (src/quant). The activation ranges come from running the float
 * model in-process, with the tensors to quantize added as outputs, on the
 * calibration inputs (or on seeded N(0,1) inputs); a budget leaves the
 * layers int8 costs most in fp32 (quant_budget.c). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/progress.h"
#include "../gen/net_build.h"
#include "quantize.h"

#define MAX_CALIB 4096
#define MAX_INPUTS 64

static pz_status read_model(const char *path, Onnx__ModelProto **m, pz_err *err)
{
    *m = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return pz_fail(err, PZ_ERR_INPUT, "cannot open model \"%s\": %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode) || sb.st_size == 0)
        return pz_fail(err, PZ_ERR_INPUT, "model \"%s\" is %s", path,
                       S_ISREG(sb.st_mode) ? "empty: not an ONNX model" : "not a regular file");
    FILE *f = fopen(path, "rb");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "cannot open model \"%s\": %s", path, strerror(errno));
    size_t len = (size_t)sb.st_size;
    uint8_t *buf = pz_xmalloc(len);
    size_t got = fread(buf, 1, len, f);
    fclose(f);
    if (got != len) {
        free(buf);
        return pz_fail(err, PZ_ERR_INPUT, "reading model \"%s\" failed", path);
    }
    if (onnx_check_nesting(buf, len, &onnx__model_proto__descriptor, "not a valid ONNX model",
                           err) == PZ_OK &&
        !(*m = onnx__model_proto__unpack(NULL, len, buf)))
        pz_fail(err, PZ_ERR_INPUT, "model \"%s\" is not a valid ONNX model: protobuf decoding "
                "failed", path);
    free(buf);
    if (*m && !(*m)->graph) {
        onnx__model_proto__free_unpacked(*m, NULL);
        *m = NULL;
        pz_fail(err, PZ_ERR_INPUT, "model \"%s\" has no graph", path);
    }
    return err->code;
}

pz_status cli_quant_load(const Onnx__ModelProto *m, const char *dir, const cli_knobs *k,
                         const ir_tensor *given, int n_given, ir_graph **g, pz_err *err)
{
    size_t len = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = pz_xmalloc(len ? len : 1);
    onnx__model_proto__pack(m, buf);
    onnx_load_opts opts;
    cli_knobs_to_opts(k, &opts);
    opts.by_position = given;
    opts.n_by_position = n_given;
    opts.bind_needed = n_given > 0;   /* as `paleozoic run --input`: the first sample binds */
    pz_status s = onnx_load_buffer(buf, len, dir, &opts, g, err);
    free(buf);
    return s;
}

/* Raising the opset to 13 keeps a node only if its op did not change by
 * then: each op with the opset that last changed it (before 14). */
static pz_status check_opset(const Onnx__ModelProto *m, int opset, pz_err *err)
{
    static const struct {
        const char *op;
        int since;
    } CHANGED[] = {
        {"Softmax", 13}, {"LogSoftmax", 13}, {"Hardmax", 13}, {"Squeeze", 13},
        {"Unsqueeze", 13}, {"Split", 13}, {"ReduceSum", 13}, {"Upsample", 14},
        {"Resize", 11}, {"Pad", 11}, {"Clip", 11}, {"Dropout", 12}, {"Slice", 10},
        {"TopK", 10}, {"BatchNormalization", 9}, {"Scatter", 14},
    };
    if (opset >= 13) return PZ_OK;
    for (size_t i = 0; i < m->graph->n_node; i++) {
        const Onnx__NodeProto *n = m->graph->node[i];
        for (size_t c = 0; c < PZ_ARRAY_LEN(CHANGED); c++)
            if (n->op_type && !strcmp(n->op_type, CHANGED[c].op) && opset < CHANGED[c].since)
                return pz_fail(err, PZ_ERR_UNSUPPORTED, "the model is opset %d and node \"%s\" "
                               "(%s) changed meaning by opset 13, which per-channel "
                               "DequantizeLinear needs; export the model at opset 13 or later",
                               opset, n->name && n->name[0] ? n->name : "(unnamed)", n->op_type);
    }
    return PZ_OK;
}

/* --accuracy-budget: the float outputs and each planned tensor's int8
 * noise from one more pass over the samples (gn: the float model with the
 * plan's tensors as outputs), each candidate's cost (its weights' noise and
 * its input's, relative), then the search; *pk the plan with the chosen
 * layers float, said the summary line. */
static pz_status budget_keep(Onnx__ModelProto *m, const char *dir, const cli_knobs *k,
                             const ir_graph *g0, const ir_graph *g1, gen_net *gn,
                             const quant_plan *p, const ir_tensor *in_t, int n_mi, int n_samples,
                             void **out_buf, const int *out_of, quant_plan *pk, char *said,
                             size_t said_size, pz_err *err)
{
    quant_budget b;
    if (cli_quant_budget_parse(k->accuracy_budget, &b))
        return pz_fail(err, PZ_ERR_INPUT, "--accuracy-budget %s (said above)", k->accuracy_budget);
    int n_out = (int)m->graph->n_output;
    int *oi = pz_xmalloc((size_t)(n_out ? n_out : 1) * sizeof *oi);
    int64_t *ref_n = pz_xmalloc((size_t)(n_out ? n_out : 1) * sizeof *ref_n);
    size_t n_ref = (size_t)n_samples * (size_t)n_out;
    float **ref = pz_xcalloc(n_ref ? n_ref : 1, sizeof *ref);
    double *num = pz_xcalloc((size_t)p->n, sizeof *num), *den = pz_xcalloc((size_t)p->n, sizeof *den);
    size_t nn = m->graph->n_node;
    double *sens = pz_xmalloc((nn ? nn : 1) * sizeof *sens);
    unsigned char *keep = NULL;
    for (int o = 0; o < n_out; o++) {
        oi[o] = -1;
        for (int i = 0; i < g1->n_outputs && oi[o] < 0; i++)
            if (!strcmp(g1->values[g1->outputs[i]].name, m->graph->output[o]->name)) oi[o] = i;
        if (oi[o] < 0 || g1->values[g1->outputs[oi[o]]].t.dtype != IR_F32) {
            pz_fail(err, PZ_ERR_INPUT, "--accuracy-budget: output \"%s\" is not a float tensor: "
                    "the budget compares float outputs", m->graph->output[o]->name);
            goto done;
        }
        ref_n[o] = ir_tensor_numel(&g1->values[g1->outputs[oi[o]]].t);
    }
    const void *ins[MAX_INPUTS];
    pz_progress_begin("quantize: noise runs", n_samples);
    for (int s = 0; s < n_samples; s++) {
        for (int i = 0; i < g1->n_inputs && i < MAX_INPUTS; i++)
            ins[i] = in_t[s * n_mi + g1->input_pos[i]].data;
        pz_net_run(gn->net, ins, out_buf);
        for (int o = 0; o < n_out; o++) {
            ref[s * n_out + o] = pz_xmalloc((size_t)(ref_n[o] ? ref_n[o] : 1) * sizeof(float));
            memcpy(ref[s * n_out + o], out_buf[oi[o]], (size_t)ref_n[o] * sizeof(float));
        }
        for (int j = 0; j < p->n; j++) {
            int r = p->same_as[j] >= 0 ? p->same_as[j] : j;
            double x2;
            num[j] += quant_act_noise(out_buf[out_of[j]],
                                      (size_t)ir_tensor_numel(&g1->values[g1->outputs[out_of[j]]].t),
                                      p->lo[r], p->hi[r], &x2);
            den[j] += x2;
        }
        pz_progress_step(1);
    }
    pz_progress_end();
    int n_cand = 0;
    for (size_t i = 0; i < nn; i++) {
        const Onnx__NodeProto *nd = m->graph->node[i];
        double wn = 0;
        sens[i] = -1;
        if (!quant_node_quantizes(nd)) continue;
        if (quant_weight_noise(m, dir, (int)i, &wn, err) < 0) goto done;
        sens[i] = wn;
        for (size_t in = 0; in < nd->n_input; in++)
            for (int j = 0; j < p->n; j++)
                if (!strcmp(p->names[j], nd->input[in]) && den[j] > 0) sens[i] += num[j] / den[j];
        n_cand++;
    }
    quant_budget_ctx c = {.m = m, .dir = dir, .k = k, .g0 = g0, .full = p, .in_t = in_t,
                          .n_mi = n_mi, .n_samples = n_samples, .ref = ref, .ref_n = ref_n,
                          .n_out = n_out, .sens = sens};
    int n_kept;
    double cs, t1;
    if (cli_quant_budget_search(&c, b, &keep, &n_kept, &cs, &t1, err)) goto done;
    if (cli_quant_plan_keep(m, g0, keep, p, pk, err)) goto done;
    int w = snprintf(said, said_size, "quantize: accuracy budget cosine >= %g%s: %d of %d "
                     "quantized layers kept in fp32", b.cos, b.top1 > 0 ? " with top-1" : "",
                     n_kept, n_cand);
    for (size_t i = 0, shown = 0; i < nn && w > 0 && (size_t)w < said_size; i++)
        if (keep[i] && shown++ < 4)
            w += snprintf(said + w, said_size - (size_t)w, "%s\"%s\"", shown == 1 ? " (" : ", ",
                          m->graph->node[i]->name ? m->graph->node[i]->name : "");
    if (w > 0 && (size_t)w < said_size)
        snprintf(said + w, said_size - (size_t)w, "%s; least cosine %.6f, top-1 agreement "
                 "%.3f over %d samples", n_kept > 4 ? ", ...)" : n_kept ? ")" : "", cs, t1,
                 n_samples);
done:
    for (size_t i = 0; i < n_ref; i++) free(ref[i]);
    free(ref);
    free(ref_n);
    free(oi);
    free(num);
    free(den);
    free(sens);
    free(keep);
    return err->code;
}

int cmd_quantize(int argc, char **argv)
{
    const char *model = NULL, *out = NULL;
    int samples = 0;
    quant_method method = QUANT_MINMAX;
    const char *method_name = "minmax";
    cli_knobs k = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return 2;
        if (r) continue;
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--method") || !strcmp(a, "--samples")) &&
            i + 1 >= argc)
            return cli_usage("quantize: %s needs a value", a);
        if (!strcmp(a, "-o")) {
            out = argv[++i];
        } else if (!strcmp(a, "--method")) {
            method_name = argv[++i];
            if (quant_method_parse(method_name, &method))
                return cli_usage("quantize: --method %s: unknown method (known: minmax, "
                                 "percentile, entropy)", method_name);
        } else if (!strcmp(a, "--samples")) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1 || v > MAX_CALIB)
                return cli_usage("quantize: --samples wants 1 to %d (got \"%s\")", MAX_CALIB, argv[i]);
            samples = (int)v;
        } else if (a[0] == '-') {
            return cli_usage("quantize: unknown option %s", a);
        } else if (!model) {
            model = a;
        } else {
            return cli_usage("quantize: one model at a time");
        }
    }
    if (!model || !out)
        return cli_usage("usage: paleozoic quantize MODEL.onnx -o OUT.onnx [--calibrate X.pb...] "
                         "[--method minmax|percentile|entropy] [--samples N] [--accuracy-budget COS[,TOP1]] "
                         "[--input-shape NAME=D0,..]");
    if (cli_knobs_check(&k, "quantize", CLI_K_SHAPE | CLI_K_THREADS | CLI_K_CALIB,
                        "calibration runs the float model as it is"))
        return 2;

    return cli_quantize(model, out, k.calib, k.n_calib, samples, (int)method, method_name, &k, 0);
}

int cli_quantize(const char *model, const char *out, const char *const *calib, int n_calib,
                 int samples, int method_i, const char *method_name, const cli_knobs *kk,
                 int quiet)
{
    cli_knobs k = *kk;
    const quant_method method = (quant_method)method_i;
    if (n_calib > MAX_CALIB)
        return cli_usage("quantize: more than %d --calibrate files", MAX_CALIB);
    pz_err err = {0};
    int rc = 0;
    Onnx__ModelProto *m = NULL;
    ir_graph *g0 = NULL, *g1 = NULL;
    ir_model *im = NULL;
    gen_net gn = {0};
    quant_plan p = {0};
    quant_range **rng = NULL;   /* n_rng: the plan before a budget's */
    int n_rng = 0;
    ir_tensor *in_t = NULL;   /* [n_samples][n_mi] */
    int n_samples = 0, n_mi = 0;
    void **out_buf = NULL;
    int *out_of = NULL;

    char *dir = pz_xstrdup(model);
    char *slash = strrchr(dir, '/');
    if (slash) slash[slash == dir ? 1 : 0] = 0;
    else strcpy(dir, ".");

    {   /* an unwritable -o is said before the calibration, not after */
        char *od = pz_xstrdup(out), *sl = strrchr(od, '/');
        if (sl) sl[sl == od ? 1 : 0] = 0;
        else strcpy(od, ".");
        struct stat ob;
        int isdir = stat(out, &ob) == 0 && S_ISDIR(ob.st_mode);
        if (isdir || access(od, W_OK) != 0)
            pz_fail(&err, PZ_ERR_INPUT, "cannot write \"%s\": %s", out,
                    isdir ? "it is a directory" : strerror(errno));
        free(od);
        if (err.code) goto fail;
    }
    if (read_model(model, &m, &err)) goto fail;
    /* the calibration inputs, read first: they bind the inputs' shapes */
    if (n_calib) {
        for (int i = 0; i < n_calib; i++) {
            ir_tensor t;
            if (onnx_read_tensor_file(calib[i], &t, NULL, &err)) {
                char was[sizeof err.msg];
                snprintf(was, sizeof was, "%s", err.msg);
                memset(&err, 0, sizeof err);
                pz_fail(&err, PZ_ERR_INPUT, "--calibrate %s: %s", calib[i], was);
                for (int j = 0; j < i; j++) ir_tensor_free_data(&in_t[j]);
                free(in_t);
                in_t = NULL;
                goto fail;
            }
            in_t = pz_xrealloc(in_t, (size_t)(i + 1) * sizeof *in_t);
            in_t[i] = t;
        }
        /* the model's input count groups the files into samples */
        int kinds[MAX_INPUTS];
        n_mi = onnx_input_kinds(model, kinds, MAX_INPUTS);
        if (n_mi < 1 || n_calib % n_mi) {
            pz_fail(&err, PZ_ERR_INPUT, "--calibrate: %d files for a model with %d inputs: give "
                    "one file per input per sample, in the inputs' order", n_calib, n_mi);
            goto fail;
        }
        n_samples = n_calib / n_mi;
        if (samples && samples < n_samples) n_samples = samples;
    }

    int opset = -1;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain;
        if (!d || !d[0] || !strcmp(d, "ai.onnx")) opset = (int)m->opset_import[i]->version;
    }
    if (check_opset(m, opset, &err)) goto fail;
    int folded = quant_fold_bn(m, dir, &err);
    if (folded < 0) goto fail;
    if (cli_quant_load(m, dir, &k, in_t, n_calib ? n_mi : 0, &g0, &err)) goto fail;
    for (int s = 0; s < k.n_shapes; s++) {   /* a binding nothing reads is a typo */
        int found = 0;
        for (int i = 0; i < g0->n_inputs && !found; i++)
            found = !strcmp(g0->values[g0->inputs[i]].name, k.shapes[s].name);
        if (!found) {
            pz_fail(&err, PZ_ERR_INPUT, "--input-shape %s=...: the model has no input \"%s\"",
                    k.shapes[s].name, k.shapes[s].name);
            goto fail;
        }
    }
    if (quant_plan_make(m, g0, NULL, &p, &err)) goto fail;

    if (!n_calib) {
        n_samples = samples ? samples : 8;
        n_mi = g0->n_model_inputs;
        fprintf(stderr, "paleozoic: warning: no calibration inputs: using %d seeded random "
                "inputs; ranges may not match real data\n", n_samples);
        in_t = pz_xcalloc((size_t)n_samples * (size_t)(n_mi ? n_mi : 1), sizeof *in_t);
        for (int i = 0; i < g0->n_inputs; i++) {
            const ir_value *v = &g0->values[g0->inputs[i]];
            if (v->t.dtype != IR_F32) {
                pz_fail(&err, PZ_ERR_INPUT, "input \"%s\" is %s: give calibration inputs with "
                        "--calibrate", v->name, ir_dtype_name(v->t.dtype));
                goto fail;
            }
            for (int s = 0; s < n_samples; s++) {
                ir_tensor *t = &in_t[s * n_mi + g0->input_pos[i]];
                *t = v->t;
                t->data = NULL;
                if (ir_tensor_bytes(t, &t->nbytes, "input", &err)) goto fail;
                t->data = pz_xmalloc(t->nbytes ? t->nbytes : 1);
                cli_synth_normal(t->data, (size_t)ir_tensor_numel(t), 1000u + (uint64_t)s * 7919u + (uint64_t)i);
            }
        }
    }

    /* the float model with every planned tensor as an output */
    quant_outputs_add(m, &p);
    pz_status ls = cli_quant_load(m, dir, &k, in_t, n_mi, &g1, &err);
    quant_outputs_drop(m, &p);
    if (ls) goto fail;
    for (int i = 0; i < g1->n_inputs; i++) {
        const ir_value *v = &g1->values[g1->inputs[i]];
        for (int s = 0; s < n_samples; s++)
            if (in_t[s * n_mi + g1->input_pos[i]].dtype != v->t.dtype ||
                ir_tensor_numel(&in_t[s * n_mi + g1->input_pos[i]]) != ir_tensor_numel(&v->t)) {
                pz_fail(&err, PZ_ERR_INPUT, "calibration sample %d: input \"%s\" wants %s with "
                        "%lld elements", s, v->name, ir_dtype_name(v->t.dtype),
                        (long long)ir_tensor_numel(&v->t));
                goto fail;
            }
    }
    out_of = pz_xmalloc((size_t)p.n * sizeof *out_of);
    for (int j = 0; j < p.n; j++) {
        out_of[j] = -1;
        for (int i = 0; i < g1->n_outputs && out_of[j] < 0; i++)
            if (!strcmp(g1->values[g1->outputs[i]].name, p.names[j])) out_of[j] = i;
        if (out_of[j] < 0) {
            pz_fail(&err, PZ_ERR_INTERNAL, "calibration: tensor \"%s\" is not an output of the "
                    "lowered model", p.names[j]);
            goto fail;
        }
    }
    if (cli_lower(g1, &k, &im, &err)) goto fail;
    if (gen_net_build(im, cli_threads(&k), &gn, &err)) goto fail;
    out_buf = pz_xcalloc((size_t)g1->n_outputs, sizeof *out_buf);
    for (int i = 0; i < g1->n_outputs; i++) {
        size_t nb;
        ir_tensor_bytes(&g1->values[g1->outputs[i]].t, &nb, "output", &err);
        out_buf[i] = pz_xcalloc(nb ? nb : 1, 1);
    }
    n_rng = p.n;
    rng = pz_xcalloc((size_t)p.n, sizeof *rng);
    for (int j = 0; j < p.n; j++) rng[j] = quant_range_new(method);
    int passes = quant_range_passes(rng[0]);
    const void *ins[MAX_INPUTS];
    pz_progress_begin("quantize: calibration runs", passes * n_samples);
    for (int pass = 0; pass < passes; pass++)
        for (int s = 0; s < n_samples; s++) {
            for (int i = 0; i < g1->n_inputs && i < MAX_INPUTS; i++)
                ins[i] = in_t[s * n_mi + g1->input_pos[i]].data;
            pz_net_run(gn.net, ins, out_buf);
            for (int j = 0; j < p.n; j++)
                quant_range_add(rng[j], pass, out_buf[out_of[j]],
                                (size_t)ir_tensor_numel(&g1->values[g1->outputs[out_of[j]]].t));
            pz_progress_step(1);
        }
    pz_progress_end();
    for (int j = 0; j < p.n; j++) {
        quant_range_get(rng[j], &p.lo[j], &p.hi[j]);
        if (getenv("PZ_QUANT_DEBUG"))   /* the calibrated ranges, for tuning */
            fprintf(stderr, "range %s [%g, %g]\n", p.names[j], p.lo[j], p.hi[j]);
    }

    if (k.accuracy_budget) {   /* mixed precision: p becomes the plan with layers kept float */
        quant_plan pk = {0};
        char said[400];
        if (budget_keep(m, dir, &k, g0, g1, &gn, &p, in_t, n_mi, n_samples, out_buf, out_of, &pk,
                        said, sizeof said, &err)) {
            quant_plan_free(&pk);
            goto fail;
        }
        quant_plan_free(&p);
        p = pk;
        fprintf(quiet ? stderr : stdout, "%s\n", said);
    }
    quant_stats st;
    if (quant_write_qdq(m, dir, &p, &st, &err)) goto fail;
    if (onnx_pack_to_file(&m->base, out, &err)) goto fail;
    fprintf(quiet ? stderr : stdout, "quantize: %d BatchNormalization folded, %d weights int8, %d biases int32, %d "
           "activation pairs (%s over %d sample%s) -> %s\n", folded, st.weights, st.biases,
           st.pairs, method_name, n_samples, n_samples == 1 ? "" : "s", out);
    goto done;
fail:
    rc = cli_fail(&err);
done:
    if (rng)
        for (int j = 0; j < n_rng; j++) quant_range_free(rng[j]);
    free(rng);
    if (out_buf)
        for (int i = 0; i < g1->n_outputs; i++) free(out_buf[i]);
    free(out_buf);
    free(out_of);
    if (gn.net) gen_net_free(&gn);
    ir_model_free(im);
    ir_graph_free(g1);
    ir_graph_free(g0);
    quant_plan_free(&p);
    int n_t = n_calib ? n_calib : n_samples * n_mi;
    for (int i = 0; in_t && i < n_t; i++) ir_tensor_free_data(&in_t[i]);
    free(in_t);
    if (m) onnx__model_proto__free_unpacked(m, NULL);
    free(dir);
    return rc;
}
