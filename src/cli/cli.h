/* cli.h - the `paleozoic` command: one file per subcommand. */
#ifndef PZ_CLI_H
#define PZ_CLI_H

#include "../front/onnx_load.h"

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

int cmd_inspect(int argc, char **argv);
int cmd_zoo(int argc, char **argv);
int cmd_run(int argc, char **argv);

#endif
