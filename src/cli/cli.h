/* cli.h - the `paleozoic` command: one file per subcommand. */
#ifndef PZ_CLI_H
#define PZ_CLI_H

#include "../front/onnx_load.h"
#include "../ir/model.h"

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
    const char *target;
} cli_knobs;

/* If argv[*i] is a common knob, consumes it (and its value) and returns 1;
 * returns -1 on a malformed knob (message printed), 0 if not a knob. */
int cli_knob(int argc, char **argv, int *i, cli_knobs *k);
void cli_knobs_to_opts(const cli_knobs *k, onnx_load_opts *opts);

/* Prints "paleozoic: error: <msg>" and returns the exit code for s. */
int cli_fail(const pz_err *err);
/* Usage error: prints message, returns 2. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* prepare.c: load MODEL with the knobs (by_position: input tensors whose
 * shapes bind the inputs' symbolic dims, may be NULL); then run the graph
 * passes, lower, and set the schedule knobs (--schedule, --strategy, or
 * every layer alone on --threads cores). */
pz_status cli_load(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                   int n_by_position, ir_graph **g, pz_err *err);
pz_status cli_lower(ir_graph *g, const cli_knobs *k, ir_model **m, pz_err *err);
/* --threads; default: all online cores with --schedule/--strategy, else 1. */
int cli_threads(const cli_knobs *k);

int cmd_inspect(int argc, char **argv);
int cmd_zoo(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_characterize(int argc, char **argv);
int cmd_space(int argc, char **argv);

#endif
