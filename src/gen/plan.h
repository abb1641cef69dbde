/* plan.h - the one walk over a lowered model that both back-ends follow.
 *
 * gen_plan_make() lowers every layer of an ir_model to its runtime operator
 * and numbers the tensors exactly as the runtime will: inputs first, then
 * every constant (in order of first use; these are the entries of
 * NAME.weights), then, layer by layer, the tensors each layer writes (and
 * the views, ir_model.view_src, each after its source, before its first
 * reader). Then the F-Blocks of the schedule, then a copy layer for each
 * graph output that no layer writes (a view that is a graph output needs
 * none: the runtime copies it out of its root; it may be declared after
 * every layer).
 *
 * net_build.c turns a plan into pz_net calls in-process (`paleozoic run`);
 * emit_c.c / emit_raw.c print the same calls as C text. Because both read the
 * same plan, the generated program and `run` build the same net, and their
 * outputs are bitwise equal.
 */
#ifndef PZ_GEN_PLAN_H
#define PZ_GEN_PLAN_H

#include "../ir/model.h"
#include "../ops/op.h"

/* GEN_VIEW: the bytes of tensor `src` (a value or another view) under its
 * own shape, declared with pz_net_view: no layer writes it. */
typedef enum { GEN_INPUT, GEN_CONST, GEN_VALUE, GEN_VIEW } gen_tensor_kind;

typedef struct {
    gen_tensor_kind kind;
    const char *name;            /* the ONNX value name (borrowed or in plan->names) */
    int dtype, rank;
    int64_t dims[PZ_MAX_RANK];
    const void *data;            /* GEN_CONST: the bytes (borrowed from the graph) */
    size_t nbytes;               /* bytes of the tensor */
    int src;                     /* GEN_VIEW: the tensor id it is a view of (smaller) */
} gen_tensor;

typedef struct {
    const char *name;            /* the ONNX node name ("<output>:copy" for output copies) */
    const char *op_type;         /* the ONNX op_type ("Identity" for output copies) */
    op_lowered low;              /* kind and params; in/out hold plan tensor ids (-1: omitted) */
    int prec;                    /* its own runtime precision (pz_net_layer_precision) where
                                  * the schedule gives it one not its block's; else -1 */
} gen_layer;

typedef struct {
    int first, count, mp;        /* layers [first, first + count) on mp cores */
    int split, strip;            /* pz_split_mode and strip rows (0 = auto) */
    ir_precision precision;
    ir_weights weights;          /* fp16: its MatMul/Gemm weights stored in fp16 */
    int mp_all;                  /* 1: on all the program's worker threads, whatever mp is
                                  * (set by the caller, e.g. cli_mark_mp_all; 0 from
                                  * gen_plan_make) */
} gen_block;

/* Open dims (--max-shape NAME=VALUE): symbolic dims left open in the
 * generated program, which builds its net for the actual values D[k] (1 to
 * max[k]) given at create. Every tensor dim is then a sum of monomials of
 * the D[k]: coef[tensor][dim][S] multiplies the product of the D[k] whose
 * bit k is set in S (S = 0: the constant term). gen_open_fit (open.c)
 * finds them from plans made at several values and checks them. */
#define GEN_MAX_OPEN 4
/* A params field (one element: an int or int64_t) of layer `layer` at byte
 * `off` that changes with the open dims (a Slice start from the end of an
 * open axis), in the same form as the dims. */
typedef struct {
    int layer;
    size_t off;
    int64_t coef[1 << GEN_MAX_OPEN];
} gen_open_param;
typedef struct gen_open {
    int n;
    const char *name[GEN_MAX_OPEN];   /* borrowed: the --max-shape names */
    int64_t max[GEN_MAX_OPEN];
    int64_t (*coef)[PZ_MAX_RANK][1 << GEN_MAX_OPEN];
    /* per tensor, 1: a constant that changes with the open dims, each of its
     * values a prefix of its bytes at the bounds (a positional embedding
     * sliced to the sequence: pos[:, :S]); the program reads that prefix */
    unsigned char *open_const;
    gen_open_param *params;
    int n_params;
} gen_open;

typedef struct {
    const ir_model *m;
    gen_tensor *t;               /* tensor id = index = the runtime's id */
    int n_t;
    int n_inputs, n_consts;      /* ids [0, n_inputs) inputs, then n_consts constants */
    gen_layer *l;
    int n_l;
    int n_model_layers;          /* layers of the model; the rest are output copies */
    gen_block *b;
    int n_b;
    int *outputs;                /* tensor ids, in graph output order */
    int n_outputs;
    char **names;                /* strings the plan owns */
    int n_names;
    gen_open *open;              /* NULL, or the open dims (owned) */
} gen_plan;

pz_status gen_plan_make(const ir_model *m, gen_plan *p, pz_err *err);
/* For a generated program (paleozoic build / compile): refuses a string
 * graph input, output or constant, naming it (the program's tensor files
 * and weights hold fixed-size elements; `paleozoic run` takes strings).
 * Strings made and read inside the graph are fine. */
pz_status gen_plan_check_program(const gen_plan *p, pz_err *err);
void gen_plan_free(gen_plan *p);
/* Open dims: s[0 .. n_s) are plans of one model made with the open dims at
 * the values at[i] (s[i] for mask i < 2^n_open: D[k] = 2 where bit k is set,
 * else 1; the rest: any other values, which check the fit). Checks that they
 * differ only in the dims of non-constant tensors, and that each such dim is
 * a sum of monomials of the D[k] (e.g. 192 * D[0]); then gives s[n_s - 1]
 * its gen_open, with its dims set at the bounds max[]. Else an error naming
 * the layer or value and the values (exit 2). */
pz_status gen_open_fit(gen_plan *const *s, const int64_t (*at)[GEN_MAX_OPEN], int n_s,
                       int n_open, const char *const *names, const int64_t *max, pz_err *err);

/* A block's runtime precision (pz_precision, BLOCK_PREC in the generated C):
 * 0 fp32, 1 bf16, 2 fp32 with its MatMul/Gemm weights in fp16. */
int gen_block_prec(const gen_block *b);
/* The runtime precision of precision p in a block of weights w (fp32 with
 * fp16 weights: 2). */
int gen_prec_of(ir_precision p, ir_weights w);
/* The concatenation knob: when layer li is a merged layer (the layers of
 * one group run as one, named "A+B+C", and the next layer is the SPLIT
 * "A:split" that gives each its output, or an attention layer reads the
 * three parts in place), the number of layers merged; else 0. */
int gen_layer_concat(const gen_plan *p, int li);

/* The params struct name of a runtime op kind ("pz_conv_params"), NULL for
 * kinds without params. */
const char *gen_params_type(pz_op_kind kind);

#endif
