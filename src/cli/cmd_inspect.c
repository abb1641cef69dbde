/* cmd_inspect.c - `paleozoic inspect MODEL.onnx [--json]`: the layer table;
 * with --schedule FILE (or --strategy S): the F-Blocks that schedule makes
 * of the lowered layers, with the redundant MACs of spatial bands, and what
 * the runtime runs of them (the net `run` builds, compiled: a Concat in
 * place or read through by gathers plans a layer that does nothing; the
 * kernel each layer's prepare chose, as `run --profile` names it). */
#include <stdlib.h>
#include <string.h>

#include "../gen/net_build.h"
#include "../opt/halo.h"
#include "../opt/opt.h"
#include "../ops/op.h"
#include "../rt/net.h"
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

/* ---- the block view (--schedule / --strategy) ---------------------------- */

/* The split whose redundant MACs are counted: "auto" is counted as bands
 * when the block is row-local and has more than one core (what bands would
 * cost: an upper bound on what the runtime's choice costs), as channels
 * otherwise. */
static ir_split assumed_split(const ir_fblock *b, const halo_report *r)
{
    if (b->split != IR_SPLIT_AUTO) return b->split;
    return r->row_local && b->mp > 1 ? IR_SPLIT_BANDS : IR_SPLIT_CHANNELS;
}

static int64_t block_redundant(const ir_fblock *b, const halo_report *r)
{
    return assumed_split(b, r) == IR_SPLIT_BANDS ? r->redundant_macs : 0;
}

/* A fused activation's name in the JSON view's layers ("act"; absent: none). */
static const char *const ACT_NAME[] = {"none",    "relu",  "clip",         "gelu",
                                       "leaky_relu", "sigmoid", "swish", "hard_sigmoid",
                                       "hard_swish", "tanh", "prelu", "select",
                                       "elu",     "selu",  "softplus",     "mish"};
_Static_assert(sizeof ACT_NAME / sizeof ACT_NAME[0] == IR_ACT_COUNT_, "one name per ir_act_kind");

/* The strip a fused run of the whole block takes (rt/fuse.c): the
 * schedule's, rounded up to whole units of its last layer's row step
 * (Winograd: rows of 4x4 tiles) and at most its rows; 0 (auto) stays 0. */
static int64_t strip_run(const ir_fblock *b, const halo_report *r)
{
    const halo_layer_cost *last = r->row_local && r->n_layers ? &r->layers[r->n_layers - 1] : NULL;
    if (b->strip <= 0 || !last || last->row_step < 1) return b->strip;
    int64_t s = (b->strip + last->row_step - 1) / last->row_step * last->row_step;
    return s < last->rows ? s : last->rows;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *lname(const ir_model *m, int l)
{
    return m->g->nodes[m->layers[l].node].name;
}

static int fused_kind(const ir_model *m, int l, int qkv);

/* Whether layer l is a merged layer of the concatenation pass: named
 * "A+B+C" after its members, with the Split "A:split" as the next layer
 * (the pass puts it there), or, when the parts are Q, K and V, an
 * attention layer reading them in place (passes/qkv_slices.c). Returns the
 * members, 0 if not. */
static int concat_members(const ir_model *m, int l)
{
    if (l + 1 >= m->n_layers) return 0;
    const ir_node *n = &m->g->nodes[m->layers[l].node], *s = &m->g->nodes[m->layers[l + 1].node];
    const char *plus = n->name ? strchr(n->name, '+') : NULL;
    size_t k = plus ? (size_t)(plus - n->name) : 0;
    if (plus && s->name && !strcmp(s->op_type, "Split") && !strncmp(s->name, n->name, k) &&
        !strcmp(s->name + k, ":split"))
        return s->n_out;
    for (int j = l + 1; plus && n->n_out > 0 && j < m->n_layers; j++) {
        const ir_node *r = &m->g->nodes[m->layers[j].node];
        if (fused_kind(m, j, 1) && r->n_in > 0 && r->in[0] == n->out[0]) return 3;
    }
    return 0;
}

/* The concatenation knob: on or off, and each merged layer with its
 * members (the branches). */
static void print_concat_table(FILE *f, const ir_model *m)
{
    fprintf(f, "concat: %s, %d merged layers (from %d layers)\n", m->concat ? "on" : "off",
            m->concat_groups, m->concat_layers);
    for (int l = 0; l < m->n_layers; l++) {
        int k = concat_members(m, l);
        if (!k) continue;
        const ir_node *n = &m->g->nodes[m->layers[l].node];
        fprintf(f, "  layer %d %s, %d branches:", l, n->op_type, k);
        for (const char *a = n->name; *a;) {
            size_t len = strcspn(a, "+");
            fprintf(f, " %.*s", (int)len, a);
            a += len + (a[len] == '+');
        }
        fprintf(f, "\n");
    }
}

static void print_concat_json(FILE *f, const ir_model *m)
{
    fprintf(f, ",\"concat\":{\"on\":%s,\"groups\":%d,\"layers\":%d,\"merged\":[",
            m->concat ? "true" : "false", m->concat_groups, m->concat_layers);
    int any = 0;
    for (int l = 0; l < m->n_layers; l++) {
        if (!concat_members(m, l)) continue;
        const char *a = m->g->nodes[m->layers[l].node].name;
        fprintf(f, "%s{\"layer\":%d,\"branches\":[", any++ ? "," : "", l);
        for (int first = 1; *a; first = 0) {
            size_t len = strcspn(a, "+");
            char *b = pz_xmalloc(len + 1);
            memcpy(b, a, len);
            b[len] = 0;
            if (!first) fputc(',', f);
            json_str(f, b);
            free(b);
            a += len + (a[len] == '+');
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]}");
}

/* Whether layer l adds a residual in its GEMM's epilogue (the epilogue
 * pass's Z, input 3 of a Gemm or MatMul), or (qkv) is an attention layer
 * that reads Q, K and V in place from one GEMM's output (qkv_slices.c). */
static int fused_kind(const ir_model *m, int l, int qkv)
{
    const ir_node *n = &m->g->nodes[m->layers[l].node];
    int64_t w = 0;
    pz_err e = {0};
    if (qkv) return op_kind_of(n->op) == OP_sdpa && !op_attr_int(n, "qkv_w", 0, &w, &e) && w > 0;
    const op_kind k = op_kind_of(n->op);
    return (k == OP_gemm || k == OP_matmul) && n->n_in > 3 && n->in[3] >= 0;
}

/* The GEMM residuals and the attention layers reading Q, K, V in place:
 * their layers (text: counts, then the residual layers by name). */
static void print_fused(FILE *f, const ir_model *m, int json)
{
    for (int qkv = 0; qkv < 2; qkv++) {
        int n = 0;
        if (json) fprintf(f, ",\"%s\":[", qkv ? "qkv_in_place" : "residual_epilogues");
        for (int l = 0; l < m->n_layers; l++) {
            if (!fused_kind(m, l, qkv)) continue;
            if (json) fprintf(f, "%s%d", n ? "," : "", l);
            n++;
        }
        if (json) fprintf(f, "]");
        else fprintf(f, qkv ? "qkv in place: %d attention layers read Q, K, V from one GEMM output\n"
                            : "residual epilogues: %d GEMM layers add the residual Add's Z\n", n);
    }
}

/* The sparsity knob's layers: weight blocks, the all-zero ones, the MACs the
 * sparse kernel skips (zero blocks x their weights x output pixels). */
static void print_sparsity(FILE *f, const ir_model *m, int json)
{
    int64_t macs = 0, skipped = 0, n = 0;
    for (int l = 0; l < m->n_layers; l++) {
        int64_t b, z, mc, sk;
        const char *algo = "";
        if (!opt_sparsity_count(m, l, &b, &z, &mc, &sk, &algo)) continue;
        float r = m->layers[l].sparsity;
        char ratio[32];
        if (r == IR_SPARSITY_AUTO) snprintf(ratio, sizeof ratio, "auto");
        else snprintf(ratio, sizeof ratio, "%g", (double)r);
        if (json) {
            fprintf(f, "%s{\"layer\":%d,\"name\":", n ? "," : ",\"sparsity\":{\"layers\":[", l);
            json_str(f, lname(m, l));
            fprintf(f, ",\"ratio\":\"%s\",\"kernel\":\"%s\",\"blocks\":%lld,\"zero_blocks\":%lld,"
                    "\"macs\":%lld,\"skipped_macs\":%lld}", ratio, algo, (long long)b, (long long)z,
                    (long long)mc, (long long)sk);
        } else {
            if (!n) fprintf(f, "sparsity:\n%5s  %-6s %8s %8s %14s %14s %7s  %-8s  %s\n", "layer",
                            "ratio", "blocks", "zero", "MACs", "skipped", "%", "kernel", "node");
            fprintf(f, "%5d  %-6s %8lld %8lld %14lld %14lld %7.2f  %-8s  %s\n", l, ratio,
                    (long long)b, (long long)z, (long long)mc, (long long)sk, pct(sk, mc), algo,
                    lname(m, l));
        }
        macs += mc;
        skipped += sk;
        n++;
    }
    if (!n) return;
    if (json) fprintf(f, "],\"total\":{\"layers\":%lld,\"macs\":%lld,\"skipped_macs\":%lld}}",
                      (long long)n, (long long)macs, (long long)skipped);
    else fprintf(f, "sparsity total: %lld layers, %.4f GMACs, skipped %.4f GMACs (%lld MACs, "
                 "%.2f%%)\n", (long long)n, (double)macs / 1e9, (double)skipped / 1e9,
                 (long long)skipped, pct(skipped, macs));
}

/* The layers whose precision is their own, not their block's (schedule key
 * "layer_precision"); nothing when every layer has its block's. */
static void print_layer_precision(FILE *f, const ir_model *m)
{
    int n = 0;
    for (int i = 0; i < m->n_blocks; i++)
        for (int l = m->blocks[i].first; l < m->blocks[i].first + m->blocks[i].count; l++) {
            if (m->layers[l].precision == m->blocks[i].precision) continue;
            if (!n++) fprintf(f, "layer precision (over the block's):\n%5s  %5s  %-9s %-9s %-10s %s\n",
                              "layer", "block", "precision", "block's", "op", "node");
            fprintf(f, "%5d  %5d  %-9s %-9s %-10s %s\n", l, i,
                    ir_precision_name(m->layers[l].precision),
                    ir_precision_name(m->blocks[i].precision),
                    m->g->nodes[m->layers[l].node].op_type, lname(m, l));
        }
}

/* What the runtime does with each planned layer: the net `run` builds from
 * the same model and knobs (gen_net_build: the run options, PZ_ISA
 * included, and --threads), compiled, so each layer's prepare has chosen
 * its kernel and the in-place decisions are made (rt/inplace.c). skip NULL
 * when it does not build (why says so); gn.net is kept for the kernels. */
typedef struct {
    int *skip;             /* per layer of m: PZ_LAYER_RUNS, _IN_PLACE, _READ_THROUGH */
    int run, concat_in_place, split_in_place, concat_through, gather_through;
    int in_branch;         /* of run: only when an If takes their branch (rt/guard.c) */
    gen_net gn;
    char why[200];
} rt_use;

static void rt_use_make(const ir_model *m, const cli_knobs *k, rt_use *u)
{
    memset(u, 0, sizeof *u);
    pz_err err = {0};
    if (gen_net_build(m, cli_threads(k), &u->gn, &err)) {
        snprintf(u->why, sizeof u->why, "%.190s", err.msg);
        return;
    }
    const gen_net gn = u->gn;
    u->skip = pz_xcalloc((size_t)(m->n_layers ? m->n_layers : 1), sizeof *u->skip);
    for (int l = 0; l < m->n_layers; l++) {   /* the plan's layers are the net's first ones */
        int s = u->skip[l] = pz_net_layer_skipped(gn.net, l);
        pz_op_kind kind = pz_net_layer_kind(gn.net, l);
        u->run += s == PZ_LAYER_RUNS || s == PZ_LAYER_IN_BRANCH;
        u->in_branch += s == PZ_LAYER_IN_BRANCH;
        u->concat_in_place += s == PZ_LAYER_IN_PLACE && kind == PZ_OP_CONCAT;
        u->split_in_place += s == PZ_LAYER_IN_PLACE && kind == PZ_OP_SPLIT;
        u->concat_through += s == PZ_LAYER_READ_THROUGH && kind == PZ_OP_CONCAT;
        u->gather_through += s == PZ_LAYER_READ_THROUGH && kind == PZ_OP_GATHER;
    }
}

static void rt_use_free(rt_use *u)
{
    free(u->skip);
    if (u->gn.net) gen_net_free(&u->gn);
}

/* A layer that runs (in an If's branch: when it is taken), not one in place
 * or read through. */
static int layer_runs(const pz_net *net, int l)
{
    const int s = pz_net_layer_skipped(net, l);
    return s == PZ_LAYER_RUNS || s == PZ_LAYER_IN_BRANCH;
}

/* The kernel each layer of the net that runs takes, as prepare chose it
 * (pz_net_layer_show: the names and rule of `run --profile`); a layer in a
 * dynamic region is marked "run time" (its kernel takes the run's sizes). */
static void print_kernels(FILE *f, const rt_use *u)
{
    const pz_net *net = u->gn.net;
    fprintf(f, "kernels (as `run` prepares them, named as `run --profile` names them; -: the "
               "op's one kernel; shapes \"run time\": a dynamic region):\n");
    fprintf(f, "%5s %-14s %-32s %5s %3s  %-8s  %s\n", "layer", "op", "name", "block", "mp",
            "shapes", "kernel");
    for (int l = 0; l < pz_net_n_layers(net); l++) {
        pz_layer_show s;
        if (!layer_runs(net, l) || pz_net_layer_show(net, l, &s)) continue;
        fprintf(f, "%5d %-14s %-32s %5d %3d  %-8s  %s\n", l, s.op, pz_net_layer_name(net, l),
                pz_net_layer_block(net, l), s.threads, s.run_time_shapes ? "run time" : "planned",
                s.kernel);
    }
}

static void print_kernels_json(FILE *f, const ir_model *m, const rt_use *u)
{
    const pz_net *net = u->gn.net;
    fprintf(f, ",\"kernels\":[");
    for (int l = 0, n = 0; l < pz_net_n_layers(net); l++) {
        pz_layer_show s;
        if (!layer_runs(net, l) || pz_net_layer_show(net, l, &s)) continue;
        fprintf(f, "%s{\"layer\":%d,\"op\":", n++ ? "," : "", l);
        json_str(f, s.op);
        if (l < m->n_layers) {   /* the plan's layers are the net's first ones */
            fprintf(f, ",\"onnx_op\":");
            json_str(f, m->g->nodes[m->layers[l].node].op_type);
        }
        fprintf(f, ",\"name\":");
        json_str(f, pz_net_layer_name(net, l));
        fprintf(f, ",\"block\":%d,\"mp\":%d,\"run_time_shapes\":%s,\"kernel\":",
                pz_net_layer_block(net, l), s.threads, s.run_time_shapes ? "true" : "false");
        json_str(f, s.kernel);
        fprintf(f, "}");
    }
    fprintf(f, "]");
}

static const char *skip_name(int s)
{
    return s == PZ_LAYER_IN_PLACE ? "in place"
         : s == PZ_LAYER_IN_BRANCH ? "runs only when its If branch is taken"
         : "not run (read through)";
}

/* The counts, then each layer that does not run. */
static void print_rt_use(FILE *f, const ir_model *m, const rt_use *u)
{
    if (!u->skip) {
        fprintf(f, "runtime: the net does not build: %s\n", u->why);
        return;
    }
    fprintf(f, "runtime: %d of %d layers run; %d concats in place, %d splits in place, %d "
            "concats and %d gathers not run (read through)\n", u->run, m->n_layers,
            u->concat_in_place, u->split_in_place, u->concat_through, u->gather_through);
    if (u->in_branch)
        fprintf(f, "runtime: %d layers run only when the If branch they serve is taken (its "
                "condition known at run time)\n", u->in_branch);
    for (int l = 0; l < m->n_layers; l++)
        if (u->skip[l])
            fprintf(f, "  layer %d %s %s: %s\n", l, m->g->nodes[m->layers[l].node].op_type,
                    lname(m, l), skip_name(u->skip[l]));
    print_kernels(f, u);
}

static void print_rt_use_json(FILE *f, const ir_model *m, const rt_use *u)
{
    fprintf(f, ",\"runtime\":{");
    if (!u->skip) {
        fprintf(f, "\"error\":");
        json_str(f, u->why);
        fprintf(f, "}");
        return;
    }
    fprintf(f, "\"layers_run\":%d,\"concats_in_place\":%d,\"splits_in_place\":%d,"
            "\"concats_not_run\":%d,\"gathers_not_run\":%d,\"skipped\":[", u->run,
            u->concat_in_place, u->split_in_place, u->concat_through, u->gather_through);
    for (int l = 0, n = 0; l < m->n_layers; l++) {
        if (!u->skip[l]) continue;
        fprintf(f, "%s{\"layer\":%d,\"op\":", n++ ? "," : "", l);
        json_str(f, m->g->nodes[m->layers[l].node].op_type);
        fprintf(f, ",\"name\":");
        json_str(f, lname(m, l));
        fprintf(f, ",\"how\":\"%s\"}", u->skip[l] == PZ_LAYER_IN_PLACE ? "in place"
                : u->skip[l] == PZ_LAYER_IN_BRANCH ? "if branch" : "not run");
    }
    fprintf(f, "]");
    print_kernels_json(f, m, u);
    fprintf(f, "}");
}

static void print_blocks_table(FILE *f, const ir_model *m, const cli_knobs *k, const rt_use *u)
{
    int64_t macs = 0, red = 0;
    fprintf(f, "model: %s  layers: %d  blocks: %d  %s: %s\n", m->g->name, m->n_layers, m->n_blocks,
            k->schedule ? "schedule" : "strategy", k->schedule ? k->schedule : k->strategy);
    fprintf(f, "%5s  %-9s %4s  %-14s %5s  %-9s %-7s %14s %14s %7s  %s\n", "block", "layers", "MP",
            "split", "strip", "precision", "weights", "MACs", "redundant", "%",
            "first node -> last node");
    for (int i = 0; i < m->n_blocks; i++) {
        const ir_fblock *b = &m->blocks[i];
        halo_report r;
        halo_block(m, b->first, b->count, b->mp, &r);
        int64_t rm = block_redundant(b, &r);
        char layers[32], split[32];
        snprintf(layers, sizeof layers, "%d-%d", b->first, b->first + b->count - 1);
        if (b->split == IR_SPLIT_AUTO)
            snprintf(split, sizeof split, "auto:%s", ir_split_name(assumed_split(b, &r)));
        else snprintf(split, sizeof split, "%s", ir_split_name(b->split));
        fprintf(f, "%5d  %-9s %4d  %-14s %5d  %-9s %-7s %14lld %14lld %7.2f  %s%s%s\n", i, layers,
                b->mp, split, b->strip, ir_precision_name(b->precision),
                b->precision != IR_PREC_FP32 ? ir_precision_name(b->precision) : ir_weights_name(b->weights),
                (long long)r.macs, (long long)rm,
                pct(rm, r.macs), lname(m, b->first), b->count > 1 ? " -> " : "",
                b->count > 1 ? lname(m, b->first + b->count - 1) : "");
        macs += r.macs;
        red += rm;
        halo_report_free(&r);
    }
    fprintf(f, "total: %d blocks, %.4f GMACs, redundant %.4f GMACs (%lld MACs, %.2f%%)\n",
            m->n_blocks, (double)macs / 1e9, (double)red / 1e9, (long long)red, pct(red, macs));
    fprintf(f, "split auto is counted as bands when the block is row-local and MP > 1 (the most "
               "it can cost), else as channels\n");
    print_rt_use(f, m, u);
    print_concat_table(f, m);
    print_fused(f, m, 0);
    print_layer_precision(f, m);
    print_sparsity(f, m, 0);
}

static void print_blocks_json(FILE *f, const ir_model *m, const cli_knobs *k, const rt_use *u)
{
    int64_t macs = 0, red = 0;
    fprintf(f, "{\"model\":");
    json_str(f, m->g->name);
    fprintf(f, ",\"%s\":", k->schedule ? "schedule" : "strategy");
    json_str(f, k->schedule ? k->schedule : k->strategy);
    fprintf(f, ",\"layers\":%d,\"blocks\":[\n", m->n_layers);
    for (int i = 0; i < m->n_blocks; i++) {
        const ir_fblock *b = &m->blocks[i];
        halo_report r;
        halo_block(m, b->first, b->count, b->mp, &r);
        int64_t rm = block_redundant(b, &r);
        fprintf(f, "%s{\"index\":%d,\"first\":%d,\"count\":%d,\"mp\":%d,\"split\":\"%s\","
                "\"split_counted\":\"%s\",\"strip\":%d,\"strip_run\":%lld,\"precision\":\"%s\","
                "\"weights\":\"%s\",\"row_local\":%s,",
                i ? ",\n" : "", i, b->first, b->count, b->mp, ir_split_name(b->split),
                ir_split_name(assumed_split(b, &r)), b->strip, (long long)strip_run(b, &r),
                ir_precision_name(b->precision),
                b->precision != IR_PREC_FP32 ? ir_precision_name(b->precision) : ir_weights_name(b->weights),
                r.row_local ? "true" : "false");
        if (!r.row_local) {
            fprintf(f, "\"not_row_local\":{\"layer\":%d,\"why\":", r.bad_layer);
            json_str(f, r.why);
            fprintf(f, "},");
        }
        fprintf(f, "\"macs\":%lld,\"redundant_macs\":%lld,\"bands_redundant_macs\":%lld,"
                "\"redundant_pct\":%.4f,\"layers\":[", (long long)r.macs, (long long)rm,
                (long long)r.redundant_macs, pct(rm, r.macs));
        for (int j = 0; j < b->count; j++) {
            int l = b->first + j;
            const halo_layer_cost *c = &r.layers[j];
            fprintf(f, "%s{\"index\":%d,\"name\":", j ? "," : "", l);
            json_str(f, lname(m, l));
            fprintf(f, ",\"op\":");
            json_str(f, m->g->nodes[m->layers[l].node].op_type);
            fprintf(f, ",\"precision\":\"%s\",\"macs\":%lld",
                    ir_precision_name(m->layers[l].precision), (long long)c->macs);
            const ir_act_kind ak = m->g->nodes[m->layers[l].node].act.kind;
            if (ak > IR_ACT_NONE && ak < IR_ACT_COUNT_) fprintf(f, ",\"act\":\"%s\"", ACT_NAME[ak]);
            if (r.row_local)
                fprintf(f, ",\"rows\":%lld,\"row_step\":%lld,\"rows_computed\":%lld,"
                        "\"redundant_macs\":%lld", (long long)c->rows, (long long)c->row_step,
                        (long long)c->rows_computed, (long long)c->redundant_macs);
            fprintf(f, "}");
        }
        fprintf(f, "]}");
        macs += r.macs;
        red += rm;
        halo_report_free(&r);
    }
    fprintf(f, "\n],\"total\":{\"blocks\":%d,\"macs\":%lld,\"redundant_macs\":%lld,"
            "\"redundant_pct\":%.4f}", m->n_blocks, (long long)macs, (long long)red, pct(red, macs));
    print_rt_use_json(f, m, u);
    print_concat_json(f, m);
    print_fused(f, m, 1);
    print_sparsity(f, m, 1);
    fprintf(f, "}\n");
}

/* Loads, runs the passes, lowers and applies the schedule or strategy. MP is
 * checked against --threads, or against this machine's cores without it
 * (cli_threads). */
static int inspect_blocks(const char *model, cli_knobs *k, int json)
{
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    if (cli_load(model, k, NULL, 0, &g, &err) || cli_lower(g, k, &m, &err)) {
        ir_model_free(m);
        ir_graph_free(g);
        return cli_fail(&err);
    }
    rt_use u;
    rt_use_make(m, k, &u);
    if (json) print_blocks_json(stdout, m, k, &u);
    else print_blocks_table(stdout, m, k, &u);
    rt_use_free(&u);
    ir_model_free(m);
    ir_graph_free(g);
    return 0;
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
    if (!model) return cli_usage("usage: paleozoic inspect MODEL.onnx [--json] [--schedule FILE | --strategy S]");
    if (k.sparsity && !k.schedule && !k.strategy) k.strategy = CLI_DEFAULT_STRATEGY;
    if (k.schedule || k.strategy) return inspect_blocks(model, &k, json);
    if (cli_knobs_check(&k, "inspect", CLI_K_SHAPE, "the layer table has no blocks, MPs or "
                        "precisions (give --schedule or --strategy for the blocks view)"))
        return 2;
    ir_graph *g;
    pz_err err = {0};
    if (cli_load(model, &k, NULL, 0, &g, &err)) return cli_fail(&err);
    if (json) print_json(stdout, g);
    else print_table(stdout, g);
    ir_graph_free(g);
    return 0;
}
