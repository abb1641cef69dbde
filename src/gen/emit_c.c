/* emit_c.c - NAME.c against the middle-layer API (pz_rt.h), the form of the
 * paper's Fig. 13: schedule constants, layers in order, F-Blocks with MP,
 * compile, run. It prints the calls net_build.c makes, from the same plan. */
#include <string.h>

#include "emit.h"

static void ids(gen_text *t, const char *macro, const int *v, int n)
{
    gt_printf(t, "%s(", macro);
    for (int i = 0; i < n; i++) {
        if (i) gt_puts(t, ", ");
        if (v[i] < 0) gt_puts(t, "-1");
        else gt_printf(t, "t[%d]", v[i]);
    }
    gt_puts(t, ")");
}

/* Entry b of a schedule table: which 0 BLOCK_LAYERS, 1 BLOCK_MP (ALL for a
 * block on all the worker threads), 2 BLOCK_SPLIT, 3 BLOCK_STRIP, 4 BLOCK_PREC. */
static void table_entry(char *s, size_t n, const gen_block *x, int which)
{
    if (which == 1 && x->mp_all) snprintf(s, n, "ALL");
    else snprintf(s, n, "%d", which == 0 ? x->count : which == 1 ? x->mp : which == 2 ? x->split
                             : which == 3 ? x->strip : gen_block_prec(x));
}

/* `static const TYPE NAME[N] = {v0, v1, ...};` wrapped at about 100 columns. */
static void int_table(gen_text *t, const char *type, const char *name, const char *size,
                      const gen_plan *p, int which)
{
    gt_printf(t, "static const %s %s[%s] = {", type, name, size);
    int width = (int)(strlen(type) + strlen(name) + strlen(size)) + 24;
    char v[16];
    for (int b = 0; b < p->n_b; b++) {
        table_entry(v, sizeof v, &p->b[b], which);
        width += (int)strlen(v) + 2;
    }
    if (width <= 100) {   /* all on one line */
        for (int b = 0; b < p->n_b; b++) {
            table_entry(v, sizeof v, &p->b[b], which);
            gt_printf(t, "%s%s", b ? ", " : "", v);
        }
        gt_puts(t, p->n_b ? "};\n" : "0};\n");
        return;
    }
    int col = 100;
    for (int b = 0; b < p->n_b; b++) {
        if (col > 92) gt_puts(t, b ? ",\n    " : "\n    "), col = 4;
        else gt_puts(t, ", "), col += 2;
        table_entry(v, sizeof v, &p->b[b], which);
        col += (int)strlen(v);
        gt_puts(t, v);
    }
    gt_puts(t, p->n_b ? "\n};\n" : "0};\n");
}

/* The layers whose precision is their own, not their block's (schedule key
 * "layer_precision"): one call each, after the blocks. */
static void layer_precisions(gen_text *t, const gen_plan *p)
{
    static const char *const names[] = {"PZ_PREC_FP32", "PZ_PREC_BF16", "PZ_PREC_F16W",
                                        "PZ_PREC_I8DYN"};
    int any = 0;
    for (int li = 0, b = 0, end = p->n_b ? p->b[0].count : 0; li < p->n_model_layers; li++) {
        while (b + 1 < p->n_b && li >= end) end += p->b[++b].count;
        int r = p->l[li].prec;
        if (r < 0 || r >= (int)(sizeof names / sizeof *names)) continue;
        if (!any++)
            gt_puts(t, "    /* layers with their own precision, over their F-Block's BLOCK_PREC "
                       "(schedule key \"layer_precision\") */\n");
        gt_printf(t, "    pz_net_layer_precision(net, %d, %s);   /* ", li, names[r]);
        gt_comment(t, p->l[li].name);
        gt_printf(t, " (");
        gt_comment(t, p->l[li].op_type);
        gt_printf(t, "), F-Block %d: %s */\n", b, ir_precision_name(p->m->layers[li].precision));
    }
}

/* `t[id] = pz_net_input(net, "name", PZ_F32, 4, DIMS(...));`; a view names
 * its source tensor where the others name their element type. */
static void tensor_decl(gen_text *t, const gen_plan *p, int id, const char *fn)
{
    const gen_tensor *x = &p->t[id];
    if (x->kind == GEN_VIEW) fn = "pz_net_view";
    gt_printf(t, "    t[%d] = %s(net, ", id, fn);
    gt_cstr(t, x->name);
    if (x->kind == GEN_VIEW) gt_printf(t, ", t[%d], %d, ", x->src, x->rank);
    else gt_printf(t, ", %s, %d, ", gen_dtype_macro(x->dtype), x->rank);
    if (x->rank) {
        gt_puts(t, "DIMS(");
        for (int d = 0; d < x->rank; d++) {   /* open dims: expressions of D[k] */
            if (d) gt_puts(t, ", ");
            gen_open_dim_expr(t, p, id, d);
        }
        gt_puts(t, "));\n");
    } else {
        gt_puts(t, "NULL);\n");
    }
}

/* NAME_create's head; with open dims (plan.h's gen_open), NAME_create_at
 * with the actual values D[k], checked against the bounds, and NAME_create
 * at the bounds. */
static void create_head(gen_text *t, const gen_plan *p, const char *n, const char *N)
{
    if (!p->open) {
        gt_printf(t, "%s *%s_create(const char *weights_path, int threads, const pz_run_options *opts,\n"
                     "    char *err, size_t errsize)\n{\n", n, n);
        return;
    }
    const gen_open *o = p->open;
    gt_printf(t, "/* The open dims, D[k] in the shapes below: ");
    for (int k = 0; k < o->n; k++) {
        gt_printf(t, "%sD[%d] \"", k ? ", " : "", k);
        gt_comment(t, o->name[k]);
        gt_printf(t, "\" 1 to %lld", (long long)o->max[k]);
    }
    gt_printf(t, ". */\nconst char *const %s_open_names[%s_N_OPEN] = {", n, N);
    for (int k = 0; k < o->n; k++) gt_puts(t, k ? ", " : ""), gt_cstr(t, o->name[k]);
    gt_printf(t, "};\nconst int64_t %s_open_max[%s_N_OPEN] = {", n, N);
    for (int k = 0; k < o->n; k++) gt_printf(t, "%s%lld", k ? ", " : "", (long long)o->max[k]);
    gt_printf(t, "};\nconst int %s_input_open[%d][PZ_MAX_RANK] = {", n, p->n_inputs ? p->n_inputs : 1);
    for (int i = 0; i < p->n_inputs; i++) {
        gt_puts(t, i ? ", {" : "{");
        for (int d = 0; d < p->t[i].rank; d++) {
            int which = 0;   /* k + 1 where the dim is D[k] itself */
            for (int k = 0; k < o->n; k++) {
                int exact = 1;
                for (int S = 0; S < 1 << o->n; S++) exact &= o->coef[i][d][S] == (S == 1 << k);
                if (exact) which = k + 1;
            }
            gt_printf(t, "%s%d", d ? ", " : "", which);
        }
        gt_puts(t, p->t[i].rank ? "}" : "0}");
    }
    gt_printf(t, "};\n\n%s *%s_create(const char *weights_path, int threads, const pz_run_options *opts,\n"
                 "    char *err, size_t errsize)\n{\n"
                 "    return %s_create_at(weights_path, threads, opts, NULL, err, errsize);\n}\n\n",
              n, n, n);
    gt_printf(t, "%s *%s_create_at(const char *weights_path, int threads, const pz_run_options *opts,\n"
                 "    const int64_t *open, char *err, size_t errsize)\n{\n"
                 "    int64_t D[%s_N_OPEN];   /* the open dims: open[k], or (NULL) the bounds */\n"
                 "    for (int k = 0; k < %s_N_OPEN; k++) {\n"
                 "        D[k] = open ? open[k] : %s_open_max[k];\n"
                 "        if (D[k] < 1 || D[k] > %s_open_max[k]) {\n"
                 "            snprintf(err, errsize, \"open dim \\\"%%s\\\" = %%lld: this program takes 1 to %%lld \"\n"
                 "                     \"(--max-shape at compile)\", %s_open_names[k], (long long)D[k],\n"
                 "                     (long long)%s_open_max[k]);\n"
                 "            return NULL;\n"
                 "        }\n"
                 "    }\n", n, n, N, N, n, n, n, n);
}

void gen_emit_c(gen_text *t, const gen_plan *p, const gen_opts *o)
{
    const char *n = o->name;
    char N[256];
    gen_upper(N, sizeof N, n);
    gen_emit_banner(t, p, o,
        " * The network is built through the runtime's middle-layer API (pz_rt.h): layers are\n"
        " * constructed in order, each named after its ONNX node; the F-Blocks of the schedule\n"
        " * below fuse them and give each its cores (MP); then the net is compiled (one arena\n"
        " * planned by liveness, kernels chosen, weights packed) and run. Edit the schedule and\n"
        " * rebuild with `make`.");
    gt_printf(t, "#include <math.h>     /* INFINITY, NAN: params may hold them */\n#include <stdlib.h>\n\n"
                 "#include \"%s.h\"\n\n", n);

    gt_puts(t, "/* ---- 0. the schedule ------------------------------------------------------\n"
               " * F-Block b fuses the next BLOCK_LAYERS[b] layers and runs them on BLOCK_MP[b]\n"
               " * cores: ALL is every worker thread the program runs with, a number stays as\n"
               " * written (fewer threads clamp it); the counts must add up to the layers below.\n"
               " * BLOCK_SPLIT is its load balance (0 auto, 1 spatial bands, 2 channels),\n"
               " * BLOCK_STRIP the rows of its last layer per tile of depth-first execution\n"
               " * (0 auto), BLOCK_PREC its precision (0 fp32; 1 bf16: its convs and MatMul/Gemm\n"
               " * layers with constant weights multiply in bfloat16, sum in fp32; 2 fp32 with\n"
               " * those weights stored in fp16, --weights fp16; 3 int8: those layers multiply\n"
               " * in int8, activations quantized per row as they run, sum in int32). */\n");
    if (o->threads > 0)
        gt_printf(t, "#define %s_THREADS %d         /* worker threads unless create() is told */\n", N, o->threads);
    else
        gt_printf(t, "#define %s_THREADS 0         /* worker threads unless create() is told; 0: every online core */\n", N);
    gt_puts(t, "#define ALL 0                  /* in BLOCK_MP: every worker thread */\n");
    gt_printf(t, "#define %s_N_BLOCKS %d\n", N, p->n_b);
    char size[300];
    snprintf(size, sizeof size, "%s_N_BLOCKS", N);
    int_table(t, "int", "BLOCK_LAYERS", size, p, 0);
    int_table(t, "int", "BLOCK_MP", size, p, 1);
    int_table(t, "int", "BLOCK_SPLIT", size, p, 2);
    int_table(t, "int", "BLOCK_STRIP", size, p, 3);
    int_table(t, "int", "BLOCK_PREC", size, p, 4);
    gt_printf(t, "/* concatenation (--concat, schedule key \"concat\"): %s */\n",
              p->m->concat ? "on: each merged layer below says so" : "off");
    gt_printf(t, "\n#define %s_WEIGHTS_ID 0x%016llxull   /* %s.weights written with this program */\n",
              N, (unsigned long long)gen_weights_id(p), n);
    gt_printf(t, "#define %s_N_TENSORS %d\n\n", N, p->n_t ? p->n_t : 1);
    gen_emit_io_tables(t, p, o);

    gt_printf(t, "\n/* The instance: %s.weights mapped (the constants live there), and the net. */\n"
                 "struct %s { pz_weights *weights; pz_net *net; };\n\n", n, n);
    gt_puts(t, "/* Shorthands for the calls below: a shape, and the tensor ids a layer reads and writes. */\n"
               "#define DIMS(...) (const int64_t[]){__VA_ARGS__}\n"
               "#define IN(...) (const int[]){__VA_ARGS__}\n"
               "#define OUT(...) (const int[]){__VA_ARGS__}\n"
               "#define LAYER(name, KIND, type, in, out, ...) pz_net_layer(net, name, PZ_OP_##KIND, &(type){__VA_ARGS__}, sizeof(type), in, (int)(sizeof(in) / sizeof(int)), out, (int)(sizeof(out) / sizeof(int)))\n"
               "#define LAYER0(name, KIND, in, out) pz_net_layer(net, name, PZ_OP_##KIND, NULL, 0, in, (int)(sizeof(in) / sizeof(int)), out, (int)(sizeof(out) / sizeof(int)))\n\n");

    create_head(t, p, n, N);
    gt_printf(t, "    %s *ctx = calloc(1, sizeof *ctx);\n"
                 "    pz_net *net = ctx ? ctx->net = pz_net_new(", n);
    gt_cstr(t, p->m->g->name ? p->m->g->name : n);
    gt_printf(t, ") : NULL;\n"
                 "    int t[%s_N_TENSORS];\n"
                 "    snprintf(err, errsize, \"out of memory\");\n"
                 "    if (!net) goto fail;\n\n", N);
    gt_printf(t, "    /* ---- 1. tensors: the inputs, then the constants of %s.weights (mapped) ---- */\n", n);
    for (int i = 0; i < p->n_inputs; i++) tensor_decl(t, p, i, "pz_net_input");
    gen_emit_weights_open(t, o);
    gt_printf(t, "    if (!ctx->weights || pz_weights_declare(ctx->weights, net, t + %d, err, errsize)) goto fail;\n",
              p->n_inputs);
    /* open constants: the start of their value at the bounds, at the actual dims */
    for (int i = p->n_inputs; p->open && i < p->n_inputs + p->n_consts; i++) {
        if (!p->open->open_const[i]) continue;
        gt_printf(t, "    t[%d] = pz_net_const(net, ", i);
        gt_cstr(t, p->t[i].name);
        gt_printf(t, ", %s, %d, DIMS(", gen_dtype_macro(p->t[i].dtype), p->t[i].rank);
        for (int d = 0; d < p->t[i].rank; d++) {
            if (d) gt_puts(t, ", ");
            gen_open_dim_expr(t, p, i, d);
        }
        gt_printf(t, "), pz_weights_data(ctx->weights, %d));   /* open: the start of entry %d */\n",
                  i - p->n_inputs, i - p->n_inputs);
    }
    gt_puts(t, "\n");
    gt_puts(t, "    /* ---- 2. layers, constructed and configured in order (ONNX node names) ---- */\n");
    int next = p->n_inputs + p->n_consts, block = 0, block_end = p->n_b ? p->b[0].count : 0;
    for (int li = 0; li < p->n_l; li++) {
        const gen_layer *l = &p->l[li];
        const op_lowered *low = &l->low;
        while (block < p->n_b && li >= block_end) {
            block++;
            if (block < p->n_b) block_end += p->b[block].count;
        }
        gt_printf(t, "    /* layer %d: ", li);
        gt_comment(t, l->op_type);
        if (li < p->n_model_layers && block < p->n_b) gt_printf(t, ", F-Block %d", block);
        else gt_puts(t, ", a copy of a graph output that no layer writes");
        if (gen_layer_concat(p, li))
            gt_printf(t, "; concatenation: %d layers that read one input, their weights "
                      "concatenated, run as one; %s", gen_layer_concat(p, li),
                      p->l[li + 1].low.kind == PZ_OP_SPLIT ? "the next layer splits the output"
                                                  : "the attention layer reads its parts in place");
        if ((low->kind == PZ_OP_GEMM || low->kind == PZ_OP_MATMUL) && low->n_in > 3 &&
            low->in[3] >= 0)
            gt_puts(t, "; residual: input 3 (Z) added in the GEMM's epilogue, no Add layer");
        if (low->kind == PZ_OP_ATTENTION && ((const pz_attention_params *)&low->p)->qkv_w > 0)
            gt_puts(t, "; Q, K, V read in place from the QKV GEMM's output (qkv_w, qkv_off)");
        gt_puts(t, " */\n");
        for (int k = 0; k < low->n_out; k++)
            for (; next <= low->out[k]; next++) tensor_decl(t, p, next, "pz_net_tensor");
        for (int k = 0; k < low->n_in; k++)
            for (; next <= low->in[k]; next++) tensor_decl(t, p, next, "pz_net_tensor");
        const char *type = gen_params_type(low->kind);
        gt_printf(t, "    %s(", type && low->params_size ? "LAYER" : "LAYER0");
        gt_cstr(t, l->name);
        gt_printf(t, ", %s, ", pz_op_name(low->kind));
        if (type && low->params_size) gt_printf(t, "%s, ", type);
        ids(t, "IN", low->in, low->n_in);
        gt_puts(t, ", ");
        ids(t, "OUT", low->out, low->n_out);
        if (type && low->params_size) {
            gt_puts(t, ", ");
            gen_params_fields(t, low, p->open, li);
        }
        gt_puts(t, ");\n");
    }
    for (; next < p->n_t; next++) tensor_decl(t, p, next, "pz_net_tensor");   /* views only outputs read */
    for (int i = 0; i < p->n_outputs; i++) gt_printf(t, "    pz_net_output(net, t[%d]);\n", p->outputs[i]);

    gt_printf(t, "\n    /* ---- 3. F-Blocks: fusion and MP, from the schedule at the top ---- */\n"
                 "    if (threads <= 0) threads = %s_THREADS > 0 ? %s_THREADS : pz_cpu_count();\n"
                 "    for (int b = 0, first = 0; b < %s_N_BLOCKS; first += BLOCK_LAYERS[b++]) {\n"
                 "        pz_net_block(net, first, BLOCK_LAYERS[b], BLOCK_MP[b] == ALL ? threads : BLOCK_MP[b]);\n"
                 "        pz_net_block_knobs(net, first, (pz_split_mode)BLOCK_SPLIT[b], BLOCK_STRIP[b]);\n"
                 "        pz_net_block_precision(net, first, (pz_precision)BLOCK_PREC[b]);\n"
                 "    }\n", N, N, N);
    layer_precisions(t, p);
    gt_puts(t, "\n");
    gt_printf(t, "    /* ---- 4. compile: arena by liveness, kernels, packed weights, workers ---- */\n"
                 "    if (pz_net_compile(net, threads, opts, err, errsize) == 0) return ctx;\n"
                 "fail:\n"
                 "    %s_destroy(ctx);\n"
                 "    return NULL;\n"
                 "}\n\n", n);
    gt_printf(t, "/* ---- 5. run: inputs and outputs in the order of %s.h; no allocation ---- */\n"
                 "void %s_run(%s *ctx, const void *const *inputs, void *const *outputs)\n{\n"
                 "    pz_net_run(ctx->net, inputs, outputs);\n}\n\n", n, n, n);
    /* the accessors, one line each */
    gt_printf(t, "void %s_output_shape(%s *ctx, int i, int *rank, int64_t *dims) "
                 "{ *rank = pz_net_output_shape(ctx->net, i, dims); }\n\n", n, n);
    gt_printf(t, "const void *%s_output_data(%s *ctx, int i) "
                 "{ return pz_net_output_data(ctx->net, i); }\n\n", n, n);
    gt_printf(t, "void %s_destroy(%s *ctx)\n{\n"
                 "    if (!ctx) return;\n"
                 "    pz_net_free(ctx->net);   /* before the weights it borrows */\n"
                 "    pz_weights_close(ctx->weights);\n"
                 "    free(ctx);\n}\n\n", n, n);
    gt_printf(t, "pz_net *%s_net(%s *ctx) { return ctx->net; }\n", n, n);
}
