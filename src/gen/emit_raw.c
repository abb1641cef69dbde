/* emit_raw.c - NAME.c against the low-level API (pz_raw.h), like the CNML
 * code of the paper's Fig. 7 and 8: every tensor created and given memory or
 * bound to its weights, every operator configured field by field, created,
 * compiled for its cores and called in order. No middle layer, no fusion. It
 * prints the same plan as emit_c.c. */
#include <string.h>

#include "emit.h"

static void create_tensor(gen_text *t, const gen_tensor *x, int id)
{
    gt_printf(t, "    ctx->t[%d] = pz_raw_tensor_create(%s, %d, ", id, gen_dtype_macro(x->dtype), x->rank);
    if (x->rank) {
        gt_puts(t, "(const int64_t[]){");
        gt_dims(t, x->dims, x->rank);
        gt_puts(t, "});\n");
    } else {
        gt_puts(t, "NULL);\n");
    }
}

/* An activation with its own memory, or a view: the memory of its source. */
static void value_tensor(gen_text *t, const gen_tensor *x, int id)
{
    gt_puts(t, "    /* ");
    gt_comment(t, x->name);
    gt_puts(t, x->kind == GEN_VIEW ? " (a view) */\n" : " */\n");
    create_tensor(t, x, id);
    if (x->kind == GEN_VIEW)
        gt_printf(t, "    if (!ctx->t[%d] || pz_raw_tensor_view(ctx->t[%d], ctx->t[%d])) goto oom;\n", id,
                  id, x->src);
    else
        gt_printf(t, "    if (!ctx->t[%d] || pz_raw_tensor_alloc(ctx->t[%d])) goto oom;\n", id, id);
}

static void tensor_list(gen_text *t, const char *var, const int *v, int n)
{
    gt_printf(t, "        pz_raw_tensor *%s[] = {", var);
    for (int i = 0; i < n; i++) {
        if (i) gt_puts(t, ", ");
        if (v[i] < 0) gt_puts(t, "NULL");
        else gt_printf(t, "ctx->t[%d]", v[i]);
    }
    gt_puts(t, "};\n");
}

void gen_emit_raw(gen_text *t, const gen_plan *p, const gen_opts *o)
{
    const char *n = o->name;
    char N[256];
    gen_upper(N, sizeof N, n);
    gen_emit_banner(t, p, o,
        " * The network is written against the runtime's low-level API (pz_raw.h), without the\n"
        " * middle layer, like the CNML code of the paper's Fig. 7 and 8: each tensor is created\n"
        " * and given memory or bound to its weights, each operator is configured, created and\n"
        " * compiled for its cores, then called in order. No fusion, no shared arena.");
    gt_printf(t, "#include <math.h>     /* INFINITY, NAN: params may hold them */\n"
                 "#include <stdlib.h>\n#include <string.h>\n\n#include \"%s.h\"\n#include \"pz_io.h\"\n"
                 "#include \"pz_raw.h\"\n\n", n);
    gt_puts(t, "/* ---- 0. the schedule: cores (MP) per layer; the raw API has no fusion. ALL is\n"
               " * every worker thread the program runs with; a number stays as written (fewer\n"
               " * threads clamp it). ---- */\n");
    if (o->threads > 0) gt_printf(t, "#define %s_THREADS %d\n", N, o->threads);
    else gt_printf(t, "#define %s_THREADS 0   /* 0: every online core */\n", N);
    gt_printf(t, "#define ALL 0\n#define %s_N_LAYERS %d\n", N, p->n_l ? p->n_l : 1);
    gt_printf(t, "static const int LAYER_MP[%s_N_LAYERS] = {", N);
    int col = 100;
    for (int li = 0; li < p->n_l; li++) {
        int mp = 1, all = 0;
        for (int b = 0; b < p->n_b; b++)
            if (li >= p->b[b].first && li < p->b[b].first + p->b[b].count)
                mp = p->b[b].mp, all = p->b[b].mp_all;
        if (col > 92) gt_puts(t, li ? ",\n    " : "\n    "), col = 4;
        else gt_puts(t, ", "), col += 2;
        char v[16];
        if (all) snprintf(v, sizeof v, "ALL");
        else snprintf(v, sizeof v, "%d", mp);
        gt_puts(t, v);
        col += (int)strlen(v);
    }
    gt_puts(t, p->n_l ? "\n};\n" : "1};\n");
    gt_printf(t, "#define MP(l) (LAYER_MP[l] == ALL || LAYER_MP[l] > threads ? threads : LAYER_MP[l])\n");
    gt_printf(t, "\n#define %s_WEIGHTS_ID 0x%016llxull   /* %s.weights written with this program */\n",
              N, (unsigned long long)gen_weights_id(p), n);
    gt_printf(t, "#define %s_N_TENSORS %d\n\n", N, p->n_t ? p->n_t : 1);
    gen_emit_io_tables(t, p, o);
    gt_printf(t, "\nstruct %s {\n"
                 "    pz_weights *weights;\n"
                 "    pz_raw_tensor *t[%s_N_TENSORS];\n"
                 "    pz_raw_op *op[%s_N_LAYERS];\n"
                 "};\n\n", n, N, N);

    gt_printf(t, "%s *%s_create(const char *weights_path, int threads, const pz_run_options *opts,\n"
                 "    char *err, size_t errsize)\n{\n", n, n);
    gt_printf(t, "    %s *ctx = calloc(1, sizeof *ctx);\n"
                 "    if (!ctx) {\n"
                 "        snprintf(err, errsize, \"out of memory\");\n"
                 "        return NULL;\n"
                 "    }\n"
                 "    if (threads <= 0) threads = %s_THREADS > 0 ? %s_THREADS : pz_cpu_count();\n", n, N, N);
    gen_emit_weights_open(t, o);
    gt_puts(t, "    if (!ctx->weights) goto fail;\n\n");
    gt_puts(t, "    /* ---- 1. input tensors ---- */\n");
    for (int i = 0; i < p->n_inputs; i++) value_tensor(t, &p->t[i], i);
    gt_printf(t, "\n    /* ---- 2. constant tensors, bound to their data in %s.weights ---- */\n", n);
    for (int i = 0; i < p->n_consts; i++) {
        int id = p->n_inputs + i;
        gt_puts(t, "    /* ");
        gt_comment(t, p->t[id].name);
        gt_puts(t, " */\n");
        create_tensor(t, &p->t[id], id);
        gt_printf(t, "    if (!ctx->t[%d] || pz_raw_tensor_bind(ctx->t[%d], pz_weights_data(ctx->weights, %d))) goto oom;\n",
                  id, id, i);
    }
    gt_puts(t, "\n    /* ---- 3. operators: output tensors, params, create, compile ---- */\n");
    int next = p->n_inputs + p->n_consts;
    for (int li = 0; li < p->n_l; li++) {
        const gen_layer *l = &p->l[li];
        const op_lowered *low = &l->low;
        gt_printf(t, "    /* layer %d: ", li);
        gt_comment(t, l->op_type);
        if (gen_layer_concat(p, li))
            gt_printf(t, "; concatenation: %d layers run as one, %s", gen_layer_concat(p, li),
                      p->l[li + 1].low.kind == PZ_OP_SPLIT ? "the next layer splits the output"
                                                  : "the attention layer reads its parts in place");
        gt_puts(t, " */\n");
        for (int k = 0; k < low->n_out; k++)
            for (; next <= low->out[k]; next++) value_tensor(t, &p->t[next], next);
        for (int k = 0; k < low->n_in; k++)
            for (; next <= low->in[k]; next++) value_tensor(t, &p->t[next], next);
        const char *type = gen_params_type(low->kind);
        int has = type && low->params_size;
        gt_puts(t, "    {\n");
        if (has) {
            gt_printf(t, "        %s p;\n        memset(&p, 0, sizeof p);\n", type);
            gen_params_assign(t, low, "p", "        ");
        }
        tensor_list(t, "in", low->in, low->n_in);
        tensor_list(t, "out", low->out, low->n_out);
        gt_printf(t, "        ctx->op[%d] = pz_raw_op_create(", li);
        gt_cstr(t, l->name);
        gt_printf(t, ", PZ_OP_%s, %s, %s, in, %d, out, %d);\n", pz_op_name(low->kind),
                  has ? "&p" : "NULL", has ? "sizeof p" : "0", low->n_in, low->n_out);
        gt_puts(t, "    }\n");
        gt_printf(t, "    if (!ctx->op[%d]) goto oom;\n", li);
        gt_printf(t, "    if (pz_raw_op_compile(ctx->op[%d], MP(%d), opts, err, errsize)) goto fail;\n", li, li);
    }
    for (; next < p->n_t; next++) value_tensor(t, &p->t[next], next);   /* views only outputs read */
    gt_printf(t, "    return ctx;\n"
                 "oom:\n"
                 "    snprintf(err, errsize, \"out of memory\");\n"
                 "fail:\n"
                 "    %s_destroy(ctx);\n"
                 "    return NULL;\n"
                 "}\n\n", n);

    gt_printf(t, "/* ---- 4. run: copy the inputs in, each operator's forward in order, copy the outputs out ---- */\n"
                 "void %s_run(%s *ctx, const void *const *inputs, void *const *outputs)\n{\n", n, n);
    for (int i = 0; i < p->n_inputs; i++)
        gt_printf(t, "    pz_raw_memcpy_to_tensor(ctx->t[%d], inputs[%d]);\n", i, i);
    for (int li = 0; li < p->n_l; li++) {
        gt_printf(t, "    pz_raw_op_forward(ctx->op[%d]);   /* ", li);
        gt_comment(t, p->l[li].name);
        gt_puts(t, " */\n");
    }
    for (int i = 0; i < p->n_outputs; i++)
        gt_printf(t, "    pz_raw_memcpy_from_tensor(outputs[%d], ctx->t[%d]);\n", i, p->outputs[i]);
    gt_puts(t, "}\n\n");
    /* compile refuses run-time shapes for this form: the tables' shapes hold */
    gt_printf(t, "void %s_output_shape(%s *ctx, int i, int *rank, int64_t *dims)\n{\n"
                 "    (void)ctx;\n    *rank = %s_outputs[i].rank;\n"
                 "    for (int d = 0; d < *rank; d++) dims[d] = %s_outputs[i].dims[d];\n}\n\n",
              n, n, n, n);
    gt_printf(t, "const void *%s_output_data(%s *ctx, int i)\n{\n"
                 "    (void)ctx;\n    (void)i;\n    return NULL;   /* every output is copied out */\n}\n\n",
              n, n);
    gt_printf(t, "void %s_destroy(%s *ctx)\n{\n"
                 "    if (!ctx) return;\n"
                 "    for (int i = 0; i < %s_N_LAYERS; i++) pz_raw_op_destroy(ctx->op[i]);\n"
                 "    for (int i = 0; i < %s_N_TENSORS; i++) pz_raw_tensor_destroy(ctx->t[i]);\n"
                 "    pz_weights_close(ctx->weights);\n"
                 "    free(ctx);\n}\n\n", n, n, N, N);
    gt_printf(t, "pz_net *%s_net(%s *ctx)\n{\n    (void)ctx;\n    return NULL;   /* no net: the raw form has no profile */\n}\n", n, n);
}
