/* main.c - `paleozoic COMMAND ...`: dispatch to the subcommands. */
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "quantize.h"
#include "../gen/net_build.h"
#include "../io/pz_io.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;
} command;

static const command COMMANDS[] = {
    {"inspect", cmd_inspect, "inspect MODEL.onnx [--json] [--input-shape NAME=D0,D1,..] [--batch N] [--schedule FILE | --strategy S [--target T]] [--threads N]"},
    {"run", cmd_run, "run MODEL.onnx [--input X.pb...] [--output Y.pb...] [--repeat N] [--top K] [--profile] [--max-shape NAME=N]... [knobs]"},
    {"compile", cmd_compile, "compile MODEL.onnx -o DIR [--emit raw] [--loc] [--name NAME] [--input X.pb]... [--max-shape NAME=N]... [knobs]"},
    {"build", cmd_build, "build MODEL.onnx -o EXE [--emit raw] [--input X.pb]... [--max-shape NAME=N]... [knobs]"},
    {"tune", cmd_tune, "tune MODEL.onnx --strategy S -o SCHEDULE.json [--simulate-cores N] [knobs]"},
    {"bench", cmd_bench, "bench MODEL.onnx... [--strategies all|S1,S2] [--json] [--svg FILE] [--threads N] [--repeat N] [--target T]"},
    {"characterize", cmd_characterize, "characterize [-o TARGET.json | --cache] [--quick|--default] [--cores N] [--allow-noisy]  |  characterize --check [--target FILE]  (exit 0: the profile describes this machine, 2: it does not)"},
    {"space", cmd_space, "space MODEL.onnx [--cores N | --simulate-cores N,... [--svg FILE | --schedule S.json]] | space --layers N [--cores N]"},
    {"quantize", cmd_quantize, "quantize MODEL.onnx -o OUT.onnx [--calibrate X.pb...] [--method minmax|percentile|entropy] [--samples N] [--accuracy-budget COS[,TOP1]] [--input-shape NAME=D0,..]"},
    {"zoo", cmd_zoo, "zoo NAME -o MODEL.onnx [--seed N]  (resnet18 resnet50 vgg16 vgg19 alexnet mobilenet_v2 vit_b_16 bert_base)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: paleozoic COMMAND ...\n");
    for (size_t i = 0; i < PZ_ARRAY_LEN(COMMANDS); i++) fprintf(f, "  paleozoic %s\n", COMMANDS[i].usage);
    fprintf(f, "knobs: --input-shape NAME=D0,D1,.. --batch N --threads N (default: every online core)\n"
               "       --schedule FILE | --strategy S, --precision fp32|bf16|int8|int8-dynamic, --weights fp32|fp16,\n"
               "       --target TARGET.json, --concat on|off|auto (default off; best: auto),\n"
               "       --sparsity R|auto (conv, Gemm, MatMul weight blocks pruned to R in [0, 1), or the own zero blocks)\n");
}

/* Length of a valid UTF-8 sequence at s (1 to 4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] >> 6) != 2) return 0;
    return n;
}

/* Names in messages come from the model: control bytes and invalid UTF-8
 * are printed as \xNN so a hostile file cannot garble the terminal. */
static void print_escaped(FILE *f, const char *msg)
{
    const unsigned char *s = (const unsigned char *)msg;
    while (*s) {
        int n = utf8_len(s);
        if (n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f))) {
            fprintf(f, "\\x%02x", *s);
            s++;
        } else {
            fwrite(s, 1, (size_t)n, f);
            s += n;
        }
    }
}

int cli_fail(const pz_err *err)
{
    fputs("paleozoic: error: ", stderr);
    print_escaped(stderr, err->msg[0] ? err->msg : "unknown failure");
    fputc('\n', stderr);
    return pz_exit_code(err->code ? err->code : PZ_ERR_INTERNAL);
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "paleozoic: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

int cli_knob(int argc, char **argv, int *i, cli_knobs *k)
{
    const char *a = argv[*i];
    const char **str = NULL;
    if (!strcmp(a, "--strategy")) str = &k->strategy;
    else if (!strcmp(a, "--schedule")) str = &k->schedule;
    else if (!strcmp(a, "--precision")) str = &k->precision;
    else if (!strcmp(a, "--weights")) str = &k->weights;
    else if (!strcmp(a, "--sparsity")) str = &k->sparsity;
    else if (!strcmp(a, "--target")) str = &k->target;
    else if (!strcmp(a, "--accuracy-budget")) str = &k->accuracy_budget;
    else if (!strcmp(a, "--concat")) {
        if (*i + 1 >= argc) {
            cli_usage("--concat needs a value (on, off or auto)");
            return -1;
        }
        const char *v = argv[++*i];
        if (strcmp(v, "on") && strcmp(v, "off") && strcmp(v, "auto")) {
            cli_usage("--concat %s: expected on, off or auto", v);
            return -1;
        }
        k->concat = !strcmp(v, "on") ? 1 : !strcmp(v, "auto") ? CLI_CONCAT_AUTO : -1;
        return 1;
    }
    else if (!strcmp(a, "--calibrate")) {
        /* one or more files, up to the next option: argv keeps them */
        if (k->n_calib) {
            cli_usage("--calibrate: give it once, with every file after it");
            return -1;
        }
        k->calib = (const char *const *)&argv[*i + 1];
        while (*i + 1 < argc && argv[*i + 1][0] != '-') ++*i, k->n_calib++;
        if (!k->n_calib) {
            cli_usage("--calibrate needs a value");
            return -1;
        }
        return 1;
    } else if (strcmp(a, "--input-shape") && strcmp(a, "--batch") && strcmp(a, "--threads"))
        return 0;
    if (*i + 1 >= argc) {
        cli_usage("%s needs a value", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (str == &k->precision && cli_check_precision(v)) return -1;
    if (str == &k->weights && cli_check_weights(v)) return -1;
    float r;
    if (str == &k->sparsity && cli_check_sparsity(v, &r)) return -1;
    if (str == &k->strategy && cli_check_strategy_name(v)) return -1;
    quant_budget qb;
    if (str == &k->accuracy_budget && cli_quant_budget_parse(v, &qb)) return -1;
    if (str) {
        *str = v;
        return 1;
    }
    if (!strcmp(a, "--input-shape")) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || k->n_shapes >= (int)PZ_ARRAY_LEN(k->shapes) ||
            (size_t)(eq - v) >= sizeof k->shape_names[0]) {
            cli_usage("--input-shape wants NAME=D0,D1,... (got \"%s\")", v);
            return -1;
        }
        onnx_shape_binding *b = &k->shapes[k->n_shapes];
        b->rank = onnx_parse_dims(eq + 1, b->dims, IR_MAX_RANK);
        if (b->rank < 0) {
            cli_usage("--input-shape %s: dims must be non-negative integers separated by commas", v);
            return -1;
        }
        char *name = k->shape_names[k->n_shapes];
        memcpy(name, v, (size_t)(eq - v));
        name[eq - v] = 0;
        b->name = name;
        k->n_shapes++;
        return 1;
    }
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 1 || x > 4096) {
        cli_usage("%s wants a positive integer (got \"%s\")", a, v);
        return -1;
    }
    if (!strcmp(a, "--batch")) k->batch = x;
    else k->threads = (int)x;
    return 1;
}

void cli_knobs_to_opts(const cli_knobs *k, onnx_load_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->shapes = k->shapes;
    opts->n_shapes = k->n_shapes;
    opts->batch = k->batch;
    opts->dims = k->max_shapes;
    opts->n_dims = k->n_max;
    opts->dims_seen = k->max_seen;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    /* the run options, read from the environment once: every net built in
     * this process compiles with them, and emitted C prints them */
    pz_run_options ro;
    if (pz_io_run_options_env(&ro)) return 2;
    gen_set_run_options(&ro);
    for (size_t i = 0; i < PZ_ARRAY_LEN(COMMANDS); i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "paleozoic: error: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}
