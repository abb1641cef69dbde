/* cli.h - the `paleozoic` command: one file per subcommand. */
#ifndef PZ_CLI_H
#define PZ_CLI_H

#include "../front/onnx_load.h"
#include "../gen/plan.h"
#include "../ir/model.h"
#include "../opt/opt.h"

/* Options every model-reading command accepts (see README: knobs). */
typedef struct {
    onnx_shape_binding shapes[16];
    char shape_names[16][256];   /* storage for shapes[i].name */
    int n_shapes;
    int64_t batch;
    int threads;
    const char *strategy;
    const char *schedule;
    const char *precision;
    const char *weights;         /* --weights fp32|fp16 */
    int concat;                  /* --concat: 0 not given, 1 on, -1 off, CLI_CONCAT_AUTO */
    const char *sparsity;        /* --sparsity R|auto (cli_sparsity_value) */
    const char *target;
    const char *const *calib;    /* --calibrate X.pb...: n_calib files (in argv) */
    int n_calib;
    const char *accuracy_budget; /* --accuracy-budget COS[,TOP1] (quantize.h), with int8 */
    /* --max-shape NAME=VALUE (run, compile, build): the symbolic dim NAME open
     * up to VALUE; loads bind it (onnx_dim_binding: bound 1, the given
     * inputs within it) */
    onnx_dim_binding max_shapes[GEN_MAX_OPEN];
    char max_names[GEN_MAX_OPEN][128];
    int n_max;
    int *max_seen;               /* NULL, or n_max counts the load fills (dims_seen) */
} cli_knobs;

/* If argv[*i] is a common knob, consumes it (and its value) and returns 1;
 * returns -1 on a malformed knob (message printed), 0 if not a knob. */
int cli_knob(int argc, char **argv, int *i, cli_knobs *k);
void cli_knobs_to_opts(const cli_knobs *k, onnx_load_opts *opts);

/* --max-shape NAME=VALUE: parsed into k (0, or 2 with a message). */
int cli_max_shape_arg(const char *v, cli_knobs *k);
/* The --max-shape dims of k: each named by an input of the model, and free
 * to vary (the model loads at 1 and at 2); refused (exit 2) naming it. */
pz_status cli_check_max_shape(const char *path, const cli_knobs *k, pz_err *err);
/* k with its --max-shape dims bound exactly to v[] (bound 0); names point
 * into k. */
void cli_knobs_at(const cli_knobs *k, const int64_t *v, cli_knobs *out);

/* Prints "paleozoic: error: <msg>" and returns the exit code for s. */
int cli_fail(const pz_err *err);
/* Usage error: prints message, returns 2. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* prepare.c: load MODEL with the knobs (by_position: input tensors whose
 * shapes bind the inputs' symbolic dims, may be NULL), refusing an
 * --input-shape that names no input and a --batch that binds nothing; then
 * run the graph passes, lower, and set the schedule knobs (--schedule,
 * --strategy, or CLI_DEFAULT_STRATEGY: every layer alone on all the cores). */
#define CLI_DEFAULT_STRATEGY OPT_DEFAULT_STRATEGY
pz_status cli_load(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                   int n_by_position, ir_graph **g, pz_err *err);
/* The same with inputs that are sequences or optionals: given_len as in
 * onnx_load_opts (NULL: every given input is one tensor). */
pz_status cli_load_given(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                         int n_by_position, const int *given_len, int n_given_len, ir_graph **g,
                         pz_err *err);
/* Reads the --input files of a model (`run --input`, `compile/build
 * --input`): each as the model's input at its position is typed, a
 * TensorProto, or a SequenceProto / OptionalProto whose tensors are
 * consecutive in t[] (at most max of them). given_len[i] and file_of[] as
 * cli_load_given and the callers' messages need them; *containers is
 * non-zero when a file was a sequence or an optional. On failure the
 * tensors read so far are freed and err names the file. */
pz_status cli_read_inputs(const char *model, const char *const *files, int n_files, ir_tensor *t,
                          int max, int *n_t, int *given_len, int *file_of, int *containers,
                          pz_err *err);
pz_status cli_lower(ir_graph *g, const cli_knobs *k, ir_model **m, pz_err *err);
/* --concat auto (concat_auto.c): *on = whether the concatenation pass pays
 * on this machine, g's passes run on two copies and both timed. */
#define CLI_CONCAT_AUTO 2
pz_status cli_concat_auto(const ir_graph *g, const cli_knobs *k, int *on, pz_err *err);
/* --weights on every fp32 block of m (bf16 blocks keep bf16); cli_lower
 * calls it, and so does whoever re-partitions m after it (bench). */
void cli_apply_weights(const cli_knobs *k, ir_model *m);
/* The knobs of k that shape the lowered model (opt.h's opt_knobs; concat
 * left 0: the pass's decision is the model's, ir_model.concat). */
void cli_opt_knobs(const cli_knobs *k, opt_knobs *o);
/* The worker threads (cores) every command plans for and the generated
 * program defaults to: --threads N, else every online core (pz_cpu_count).
 * The one place this rule lives. */
int cli_threads(const cli_knobs *k);
/* Marks the blocks of a plan that run on all the program's threads (MP
 * ALL) rather than a fixed MP; the rule is in prepare.c. */
void cli_mark_mp_all(const cli_knobs *k, gen_plan *p);
/* --target given: refused when no strategy of specs[n] reads it (or with
 * --schedule), else read and checked. */
pz_status cli_check_target(const cli_knobs *k, const char *const *specs, int n, pz_err *err);
/* Value checks of --strategy and --precision (0, or 2 with a message). */
int cli_check_strategy_name(const char *spec);
int cli_check_precision(const char *p);
int cli_check_weights(const char *w);
/* --sparsity: a ratio in [0, 1) or "auto" (IR_SPARSITY_AUTO); *r the value. */
int cli_check_sparsity(const char *s, float *r);
/* A knob given to a command that does not use it is refused, not ignored:
 * returns 2 with "CMD: --KNOB does nothing here: WHY" for the first given
 * knob outside `takes` (CLI_K_* flags), else 0. */
enum {
    CLI_K_SHAPE = 1,        /* --input-shape, --batch */
    CLI_K_THREADS = 2,
    CLI_K_STRATEGY = 4,
    CLI_K_SCHEDULE = 8,
    CLI_K_PRECISION = 16,   /* --precision, --weights */
    CLI_K_TARGET = 32,
    CLI_K_CALIB = 64,       /* --calibrate, --accuracy-budget (also taken with --precision int8) */
    CLI_K_CONCAT = 128,     /* --concat (the layers a lowering command sees) */
    CLI_K_SPARSITY = 256,   /* --sparsity */
    CLI_K_ALL = 63 | 128 | 256,   /* every knob but --calibrate, which needs int8 */
};
int cli_knobs_check(const cli_knobs *k, const char *cmd, unsigned takes, const char *why);

/* cmd_quantize.c: MODEL quantized into the QDQ model OUT (src/quant), the
 * quantize command's work; --precision int8 runs it first (prepare.c).
 * method is a quant_method (src/quant/quant.h); quiet prints its summary
 * on stderr. Returns the exit code (2: bad input, said). */
int cli_quantize(const char *model, const char *out, const char *const *calib, int n_calib,
                 int samples, int method, const char *method_name, const cli_knobs *k,
                 int quiet);

/* cmd_run.c: n N(0, 1) floats from seed (Box-Muller over splitmix64:
 * deterministic, platform-independent), the seeded input `run` and
 * `quantize` use when given none. */
void cli_synth_normal(float *x, size_t n, uint64_t seed);

/* simulate.c: --simulate-cores (src/opt/simulate.h). cli_simulate_parse:
 * "N" or, with cap > 1, "N1,N2,..." (at most cap), each 1 to SIM_MAX_CORES;
 * returns the count, or -1 with the usage message printed (exit 2). */
int cli_simulate_parse(const char *cmd, const char *s, int *cores, int cap);
/* tune: the strategy's schedule for `cores` simulated cores, written to out;
 * space: the strategies side by side at each of cores[n] (an SVG when svg).
 * Return the exit code. */
int cli_tune_simulate(const char *model, const char *out, cli_knobs *k, int cores);
/* tune --throughput IPS (tune_batch.c): the smallest batch of 1, 2, 4, ...
 * max_b reaching IPS images/s, measured, written as the schedule's batch. */
int cli_tune_throughput(const char *model, const char *out, cli_knobs *k, double ips, int max_b);
int cli_space_simulate(const char *model, cli_knobs *k, const int *cores, int n, const char *svg);

int cmd_inspect(int argc, char **argv);
int cmd_zoo(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_characterize(int argc, char **argv);
int cmd_space(int argc, char **argv);
int cmd_quantize(int argc, char **argv);

#endif
