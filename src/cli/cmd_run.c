/* cmd_run.c - `paleozoic run MODEL --input X.pb... [--output Y.pb...] [--repeat N] [knobs]`:
 * executes the model in-process through the same runtime calls and schedule
 * as the generated program. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "../gen/net_build.h"
#include "../ir/model.h"
#include "cli.h"

#define MAX_FILES 64

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cli_synth_normal(float *x, size_t n, uint64_t seed)
{
    uint64_t s = 0x9e3779b97f4a7c15ull * (seed + 1);
    for (size_t i = 0; i < n; i++) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            uint64_t z = (s += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z ^= z >> 31;
            u[k] = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
        }
        x[i] = (float)(sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]));
    }
}

/* The k largest entries of a float output, as "class index: value". */
static void print_top(const ir_value *v, const void *data, int k)
{
    if (v->t.dtype != IR_F32) return;
    int64_t n = ir_tensor_numel(&v->t), classes = v->t.rank ? v->t.dims[v->t.rank - 1] : 1;
    const float *y = data;
    for (int64_t b = 0; b < n / (classes ? classes : 1); b++) {
        const float *row = y + b * classes;
        printf("top-%d (output %s, image %lld):", k, v->name, (long long)b);
        unsigned char *taken = pz_xcalloc((size_t)classes, 1);
        for (int j = 0; j < k && j < classes; j++) {
            int64_t best = -1;
            for (int64_t c = 0; c < classes; c++)
                if (!taken[c] && (best < 0 || row[c] > row[best])) best = c;
            taken[best] = 1;
            printf(" %lld (%.4f)", (long long)best, row[best]);
        }
        printf("\n");
        free(taken);
    }
}

/* Frees p and returns rc (the argument checks' exits). */
static int freed(void *p, int rc)
{
    free(p);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    const char *model = NULL, *inputs[MAX_FILES];
    int n_in = 0, n_out = 0, repeat = 0, profile = 0, top = 0;
    cli_knobs k = {0};
    /* --output files: any number (one per flattened output), held in argv's count */
    const char **outputs = pz_xcalloc((size_t)argc, sizeof *outputs);
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return freed(outputs, 2);
        if (r) continue;
        const char *a = argv[i];
        if ((!strcmp(a, "--input") || !strcmp(a, "--output") || !strcmp(a, "--repeat") ||
             !strcmp(a, "--max-shape")) && i + 1 >= argc)
            return freed(outputs, cli_usage("run: %s needs a value", a));
        if (!strcmp(a, "--max-shape")) {
            if (cli_max_shape_arg(argv[++i], &k)) return freed(outputs, 2);
        } else if (!strcmp(a, "--input")) {
            if (n_in == MAX_FILES) return freed(outputs, cli_usage("run: too many --input files"));
            inputs[n_in++] = argv[++i];
        } else if (!strcmp(a, "--output")) {
            outputs[n_out++] = argv[++i];
        } else if (!strcmp(a, "--repeat")) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000000)
                return freed(outputs, cli_usage("run: --repeat wants a positive integer"));
            repeat = (int)v;
        } else if (!strcmp(a, "--top")) {
            if (i + 1 >= argc) return freed(outputs, cli_usage("run: --top needs a value"));
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 1 || v > 100)
                return freed(outputs, cli_usage("run: --top wants 1 to 100"));
            top = (int)v;
        } else if (!strcmp(a, "--profile")) {
            profile = 1;
        } else if (a[0] == '-') {
            return freed(outputs, cli_usage("run: unknown option %s", a));
        } else if (!model) {
            model = a;
        } else {
            return freed(outputs, cli_usage("run: one model at a time"));
        }
    }
    if (!model)
        return freed(outputs, cli_usage("usage: paleozoic run MODEL.onnx --input X.pb... "
                                        "[--output Y.pb...] [--repeat N]"));

    pz_err err = {0};
    int rc = 0;
    ir_tensor in_t[MAX_FILES];
    memset(in_t, 0, sizeof in_t);
    ir_graph *g = NULL;
    ir_model *m = NULL;
    gen_net gn = {0};
    void **out_buf = NULL;
    /* a sequence or optional input (typed so in the model) is given as a
     * SequenceProto / OptionalProto: its tensors are consecutive in in_t */
    int given_len[MAX_FILES], file_of[MAX_FILES], n_t = 0, containers = 0;
    if (cli_read_inputs(model, inputs, n_in, in_t, MAX_FILES, &n_t, given_len, file_of,
                        &containers, &err))
        goto fail;

    /* --max-shape: planned at the inputs' actual sizes, each within its bound
     * (the loader checks them); without --input, at the bounds */
    if (cli_check_max_shape(model, &k, &err)) goto fail;
    if (cli_load_given(model, &k, in_t, n_t, containers ? given_len : NULL, n_in, &g, &err))
        goto fail;
    if (containers) n_in = n_t;   /* counted as tensors from here on */
    if (n_in == 0 && g->n_inputs > 0) {
        /* No --input: a seeded N(0,1) float input per graph input, so a model
         * can be tried and timed with nothing else at hand. */
        for (int i = 0; i < g->n_inputs && i < MAX_FILES; i++) {
            const ir_value *v = &g->values[g->inputs[i]];
            if (v->t.dtype != IR_F32) {
                pz_fail(&err, PZ_ERR_INPUT, "input \"%s\" is %s: give it with --input", v->name,
                        ir_dtype_name(v->t.dtype));
                goto fail;
            }
            in_t[i] = v->t;
            ir_tensor_bytes(&in_t[i], &in_t[i].nbytes, "input", &err);
            in_t[i].data = pz_xmalloc(in_t[i].nbytes ? in_t[i].nbytes : 1);
            cli_synth_normal(in_t[i].data, (size_t)ir_tensor_numel(&in_t[i]), 1234u + (unsigned)i);
        }
        n_in = g->n_inputs;
        fprintf(stderr, "paleozoic: no --input given: using a seeded N(0,1) input\n");
    }
    if (n_in != g->n_model_inputs) {
        pz_fail(&err, PZ_ERR_INPUT, "the model has %d inputs, %d --input files were given",
                g->n_model_inputs, n_in);
        goto fail;
    }
    int n_model_out = g->out_groups ? g->n_out_groups : g->n_outputs;
    if (n_out > n_model_out) {
        pz_fail(&err, PZ_ERR_INPUT, "the model has %d outputs, %d --output files were given",
                n_model_out, n_out);
        goto fail;
    }
    /* inputs bound at load time (their values shape the graph) are not run-time inputs */
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        int p = g->input_pos[i];
        if (in_t[p].dtype != v->t.dtype) {
            pz_fail(&err, PZ_ERR_INPUT, "--input %s: the tensor is %s, input \"%s\" wants %s",
                    inputs[containers ? file_of[p] : p], ir_dtype_name(in_t[p].dtype), v->name,
                    ir_dtype_name(v->t.dtype));
            goto fail;
        }
    }
    if (top && (g->n_outputs < 1 || g->values[g->outputs[0]].t.dtype != IR_F32)) {
        pz_fail(&err, PZ_ERR_INPUT, "--top: the first output (%s) is %s, --top ranks float32 "
                "classes", g->n_outputs ? g->values[g->outputs[0]].name : "none",
                g->n_outputs ? ir_dtype_name(g->values[g->outputs[0]].t.dtype) : "absent");
        goto fail;
    }
    if (cli_lower(g, &k, &m, &err)) goto fail;
    int threads = cli_threads(&k);
    if (gen_net_build(m, threads, &gn, &err)) goto fail;
    pz_net_profile(gn.net, profile);

    const void *ins[MAX_FILES];
    for (int i = 0; i < g->n_inputs; i++) ins[i] = in_t[g->input_pos[i]].data;
    out_buf = pz_xcalloc((size_t)g->n_outputs, sizeof(void *));
    for (int i = 0; i < g->n_outputs; i++) {
        size_t nbytes;
        ir_tensor_bytes(&g->values[g->outputs[i]].t, &nbytes, "output", &err);
        out_buf[i] = pz_xcalloc(nbytes ? nbytes : 1, 1);
    }
    pz_net_run(gn.net, ins, out_buf);
    if (pz_net_run_error(gn.net)) {   /* an op failed on the inputs' values */
        pz_fail(&err, PZ_ERR_INPUT, "%s", pz_net_run_error(gn.net));
        goto fail;
    }
    if (repeat) {
        double *t = pz_xmalloc((size_t)repeat * sizeof(double));
        for (int r = 0; r < repeat; r++) {
            double t0 = now_ms();
            pz_net_run(gn.net, ins, out_buf);
            t[r] = now_ms() - t0;
        }
        qsort(t, (size_t)repeat, sizeof(double), cmp_double);
        printf("latency_ms median=%.3f min=%.3f max=%.3f runs=%d\n", t[repeat / 2], t[0],
               t[repeat - 1], repeat);
        free(t);
    }
    if (profile) pz_net_print_profile(gn.net, stdout);
    if (top)
        print_top(&g->values[g->outputs[0]],
                  pz_net_output_data(gn.net, 0) ? pz_net_output_data(gn.net, 0) : out_buf[0], top);
    for (int i = 0; i < n_out; i++)
        if (gen_write_output(g, gn.net, i, out_buf, outputs[i], &err)) goto fail;
    if (!n_out && !repeat && !top) {
        for (int i = 0; i < g->n_outputs; i++) {
            const ir_value *v = &g->values[g->outputs[i]];
            ir_tensor t = v->t;
            gen_output_shape(gn.net, i, &t);
            char s[160];
            printf("output %s: %s %s%s\n", v->name, ir_dtype_name(t.dtype), ir_shape_str(&t, s, sizeof s),
                   v->dyn ? " (a run-time shape)" : "");
        }
    }
    goto done;
fail:
    rc = cli_fail(&err);
done:
    if (out_buf)
        for (int i = 0; i < g->n_outputs; i++) free(out_buf[i]);
    free(out_buf);
    free(outputs);
    if (gn.net) gen_net_free(&gn);
    ir_model_free(m);
    ir_graph_free(g);
    for (int i = 0; i < MAX_FILES; i++) ir_tensor_free_data(&in_t[i]);
    return rc;
}
