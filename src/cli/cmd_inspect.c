/* cmd_inspect.c - `paleozoic inspect MODEL.onnx [--json]`: the layer table. */
#include <string.h>

#include "../ops/op.h"
#include "cli.h"

/* Shapes of a node's inputs (or outputs), "1x64x56x56,64x64x3x3". Constants
 * are marked with a leading '#'. */
static void shapes_str(const ir_graph *g, const int *ids, int n, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < n && k + 1 < size; i++) {
        char s[160];
        if (ids[i] < 0) snprintf(s, sizeof s, "-");
        else ir_shape_str(&g->values[ids[i]].t, s, sizeof s);
        k += (size_t)snprintf(buf + k, size - k, "%s%s%s", i ? "," : "",
                              ids[i] >= 0 && g->values[ids[i]].t.data ? "#" : "", s);
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_shapes(FILE *f, const ir_graph *g, const int *ids, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', f);
        if (ids[i] < 0) {
            fputs("null", f);
            continue;
        }
        const ir_value *v = &g->values[ids[i]];
        fprintf(f, "{\"name\":");
        json_str(f, v->name);
        fprintf(f, ",\"dtype\":\"%s\",\"const\":%s,\"shape\":[", ir_dtype_name(v->t.dtype),
                v->t.data ? "true" : "false");
        for (int d = 0; d < v->t.rank; d++) fprintf(f, "%s%lld", d ? "," : "", (long long)v->t.dims[d]);
        fprintf(f, "]}");
    }
    fputc(']', f);
}

static void print_json(FILE *f, const ir_graph *g)
{
    int64_t macs = 0, params = 0;
    fprintf(f, "{\"graph\":");
    json_str(f, g->name);
    fprintf(f, ",\"producer\":");
    json_str(f, g->producer);
    fprintf(f, ",\"opset\":%d,\"inputs\":", g->opset);
    json_shapes(f, g, g->inputs, g->n_inputs);
    fprintf(f, ",\"outputs\":");
    json_shapes(f, g, g->outputs, g->n_outputs);
    fprintf(f, ",\"layers\":[\n");
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        fprintf(f, "%s{\"index\":%d,\"op\":", i ? ",\n" : "", i);
        json_str(f, n->op_type);
        fprintf(f, ",\"name\":");
        json_str(f, n->name);
        fprintf(f, ",\"inputs\":");
        json_shapes(f, g, n->in, n->n_in);
        fprintf(f, ",\"outputs\":");
        json_shapes(f, g, n->out, n->n_out);
        fprintf(f, ",\"macs\":%lld,\"params\":%lld,\"bytes_in\":%lld,\"bytes_out\":%lld,"
                   "\"c_in\":%lld,\"c_out\":%lld}",
                (long long)n->cost.macs, (long long)n->cost.params, (long long)n->cost.bytes_in,
                (long long)n->cost.bytes_out, (long long)n->cost.c_in, (long long)n->cost.c_out);
        macs += n->cost.macs;
        params += n->cost.params;
    }
    fprintf(f, "\n],\"total\":{\"layers\":%d,\"macs\":%lld,\"params\":%lld}}\n", g->n_nodes,
            (long long)macs, (long long)params);
}

static void print_table(FILE *f, const ir_graph *g)
{
    int64_t macs = 0, params = 0;
    int count[OP_COUNT] = {0};
    fprintf(f, "model: %s  producer: %s  opset: %d\n", g->name, g->producer[0] ? g->producer : "?",
            g->opset);
    fprintf(f, "%4s  %-18s %-28s %-34s %-18s %14s %11s\n", "#", "op", "name", "inputs (#=const)",
            "outputs", "MACs", "params");
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        char in[512], out[256];
        shapes_str(g, n->in, n->n_in, in, sizeof in);
        shapes_str(g, n->out, n->n_out, out, sizeof out);
        fprintf(f, "%4d  %-18s %-28s %-34s %-18s %14lld %11lld\n", i, n->op_type, n->name, in, out,
                (long long)n->cost.macs, (long long)n->cost.params);
        macs += n->cost.macs;
        params += n->cost.params;
        count[op_kind_of(n->op)]++;
    }
    fprintf(f, "total: %d layers, %.4f GMACs (%lld MACs), %.3f M params (%lld)\n", g->n_nodes,
            (double)macs / 1e9, (long long)macs, (double)params / 1e6, (long long)params);
    fprintf(f, "ops:");
    for (int k = 0; k < OP_COUNT; k++)
        if (count[k]) fprintf(f, " %s=%d", OPS[k]->name, count[k]);
    fprintf(f, "\n");
    for (int i = 0; i < g->n_inputs; i++) {
        char s[160];
        const ir_value *v = &g->values[g->inputs[i]];
        fprintf(f, "input  %s: %s %s\n", v->name, ir_dtype_name(v->t.dtype), ir_shape_str(&v->t, s, sizeof s));
    }
    for (int i = 0; i < g->n_outputs; i++) {
        char s[160];
        const ir_value *v = &g->values[g->outputs[i]];
        fprintf(f, "output %s: %s %s\n", v->name, ir_dtype_name(v->t.dtype), ir_shape_str(&v->t, s, sizeof s));
    }
}

int cmd_inspect(int argc, char **argv)
{
    const char *model = NULL;
    int json = 0;
    cli_knobs k = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &k);
        if (r < 0) return 2;
        if (r) continue;
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-') return cli_usage("inspect: unknown option %s", argv[i]);
        else if (!model) model = argv[i];
        else return cli_usage("inspect: one model at a time (got \"%s\" and \"%s\")", model, argv[i]);
    }
    if (!model) return cli_usage("usage: paleozoic inspect MODEL.onnx [--json]");
    onnx_load_opts opts;
    cli_knobs_to_opts(&k, &opts);
    ir_graph *g;
    pz_err err = {0};
    if (onnx_load_file(model, &opts, &g, &err)) return cli_fail(&err);
    if (json) print_json(stdout, g);
    else print_table(stdout, g);
    ir_graph_free(g);
    return 0;
}
