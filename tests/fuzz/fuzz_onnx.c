/* fuzz_onnx.c - libFuzzer target for the whole compile-time pipeline on an
 * untrusted model: protobuf decoding, validation (opsets, initializers,
 * external data, attributes), the sort, shape inference and constant
 * folding, the graph passes, lowering to the Model/F-Block/Layer IR and the
 * default strategy; then, for small models only, the runtime net is built and
 * run once (this reaches the lowering of every op to the runtime and the
 * reference kernels with hostile attributes).
 *
 * Built by mk/fuzz.mk with clang -fsanitize=fuzzer,address,undefined; run by
 * `make fuzz` / `make fuzz-ci` (tests/fuzz/run_fuzz.sh).
 *
 * PZ_FUZZ_VERBOSE=1 prints each input's outcome (for triage).
 *
 * What counts as a finding, beyond a sanitizer report or a crash:
 *   - a failure reported as PZ_ERR_INTERNAL (bad input must be an input
 *     error, exit 2, not an internal one, exit 1);
 *   - a failure with an empty message, or one that leaves a graph behind;
 *   - a leak (libFuzzer runs with detect_leaks=1).
 *
 * External data: the model is "loaded" from <folder of this binary>/fuzz-ext,
 * a folder holding weights.bin (4096 bytes) and a link leading out of it
 * (escape.bin -> /etc/passwd), so that mutated locations, offsets and lengths
 * exercise the path and range checks. Nothing is ever written there after
 * the start.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front/onnx_load.h"
#include "gen/net_build.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "ops/op.h"
#include "opt/opt.h"
#include "passes/passes.h"

/* Models bigger than this are loaded and lowered, not run (run time and
 * memory stay small: the fuzzer does thousands of inputs per second). */
#define RUN_MAX_BYTES ((size_t)4 << 20)     /* all values together */
#define RUN_MAX_MACS ((int64_t)2000000)     /* all layers together */

static char ext_dir[PATH_MAX];
static int verbose;   /* $PZ_FUZZ_VERBOSE: print each input's outcome (triage) */

/* $PZ_FUZZ_KNOWN: "substring|substring|...": an internal-error message that
 * contains one of them is a known finding (reported, not fixed yet) and is not
 * reported again, so that a run can look for others. Sanitizer reports and
 * crashes are always findings. */
static const char *known;

static int is_known(const char *msg)
{
    for (const char *p = known; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n && memmem(msg, strlen(msg), p, n)) return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

static void die(const char *what, const pz_err *err)
{
    if (err->code == PZ_ERR_INTERNAL && is_known(err->msg)) return;
    fprintf(stderr, "fuzz_onnx: FINDING: %s (code %d): \"%s\"\n", what, (int)err->code, err->msg);
    abort();
}

/* The folder of external data files, beside the binary (made once). */
static void make_ext_dir(const char *argv0)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(self, sizeof self, "%s", argv0 ? argv0 : "./fuzz_onnx");
        n = (ssize_t)strlen(self);
    }
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    else snprintf(self, sizeof self, ".");
    snprintf(ext_dir, sizeof ext_dir, "%s/fuzz-ext", self);
    mkdir(ext_dir, 0755);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/weights.bin", ext_dir);
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size != 4096) {
        FILE *f = fopen(path, "wb");
        if (f) {
            for (int i = 0; i < 4096; i++) fputc((i * 37) & 0xff, f);
            fclose(f);
        }
    }
    snprintf(path, sizeof path, "%s/escape.bin", ext_dir);
    if (lstat(path, &st) != 0) {
        if (symlink("/etc/passwd", path) != 0) { /* not fatal: the case is just not reached */ }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    make_ext_dir(argc && *argc > 0 ? (*argv)[0] : NULL);
    verbose = getenv("PZ_FUZZ_VERBOSE") != NULL;
    known = getenv("PZ_FUZZ_KNOWN");
    return 0;
}

/* A pool's work (the cost model counts it 0 MACs): output elements times
 * the window, INT64_MAX when unknown or overflowing; 0 for other ops. A
 * 255x7 MaxPool window over a large output otherwise ran past libFuzzer's
 * 20 s timeout under ASan. */
static int64_t pool_work(const ir_graph *g, const ir_node *n)
{
    if (!n->op || (strcmp(n->op->name, "MaxPool") && strcmp(n->op->name, "AveragePool")))
        return 0;
    int64_t k[IR_MAX_RANK];
    int cnt = 0;
    pz_err e = {0};
    if (n->n_out < 1 || n->out[0] < 0 ||
        op_attr_ints(n, "kernel_shape", k, IR_MAX_RANK, &cnt, &e))
        return INT64_MAX;
    int64_t w = ir_tensor_numel(&g->values[n->out[0]].t);
    for (int i = 0; i < cnt; i++) {
        if (k[i] <= 0 || w > INT64_MAX / k[i]) return INT64_MAX;
        w *= k[i];
    }
    return w;
}

/* Bytes of all values and MACs (and pool work) of all layers, or "too big"
 * on overflow. */
static int small_enough(const ir_graph *g)
{
    size_t total = 0;
    int64_t macs = 0;
    for (int v = 0; v < g->n_values; v++) {
        const ir_tensor *t = &g->values[v].t;
        if (t->rank < 0) continue;
        size_t nb;
        pz_err e = {0};
        if (ir_tensor_bytes(t, &nb, "value", &e)) return 0;
        if (nb > RUN_MAX_BYTES || total + nb > RUN_MAX_BYTES) return 0;
        total += nb;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        int64_t c = g->nodes[i].cost.macs, pw = pool_work(g, &g->nodes[i]);
        if (pw > RUN_MAX_MACS) return 0;
        c += pw;
        if (c < 0 || c > RUN_MAX_MACS || macs + c > RUN_MAX_MACS) return 0;
        macs += c;
    }
    return 1;
}

/* Builds the runtime net and runs it once on a fixed input pattern. */
static void build_and_run(ir_model *m)
{
    ir_graph *g = m->g;
    gen_net gn = {0};
    pz_err err = {0};
    if (gen_net_build(m, 1, &gn, &err)) {
        if (verbose) fprintf(stderr, "fuzz_onnx: gen_net_build: %s\n", err.msg);
        if (err.code == PZ_ERR_INTERNAL || !err.msg[0]) die("gen_net_build", &err);
        return;
    }
    void *ins[64] = {0}, *outs[64] = {0};
    int ok = g->n_inputs <= 64 && g->n_outputs <= 64;
    for (int i = 0; ok && i < g->n_inputs; i++) {
        size_t nb = 0;
        ir_tensor_bytes(&g->values[g->inputs[i]].t, &nb, "input", &err);
        ins[i] = calloc(nb ? nb : 1, 1);
        /* floats: a fixed pattern in [-1, 1]; other types stay zero (valid
         * indices for Gather and friends) */
        if (g->values[g->inputs[i]].t.dtype == IR_F32)
            for (size_t k = 0; k < nb / 4; k++) ((float *)ins[i])[k] = (float)((int)(k % 17) - 8) / 8.0f;
    }
    for (int i = 0; ok && i < g->n_outputs; i++) {
        size_t nb = 0;
        ir_tensor_bytes(&g->values[g->outputs[i]].t, &nb, "output", &err);
        outs[i] = calloc(nb ? nb : 1, 1);
    }
    if (ok) pz_net_run(gn.net, (const void *const *)ins, outs);
    for (int i = 0; i < 64; i++) {
        free(ins[i]);
        free(outs[i]);
    }
    gen_net_free(&gn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    onnx_load_opts opts;
    memset(&opts, 0, sizeof opts);
    /* Binds a symbolic batch dim, as `--batch 1` does, so that models
     * exported with a dynamic batch get past loading. */
    opts.batch = 1;
    ir_graph *g = (ir_graph *)1;
    pz_err err = {0};
    pz_status s = onnx_load_buffer(data, size, ext_dir[0] ? ext_dir : NULL, &opts, &g, &err);
    if (verbose) fprintf(stderr, "fuzz_onnx: load: %s\n", s ? err.msg : "ok");
    if (s) {
        if (g) die("onnx_load_buffer failed but returned a graph", &err);
        if (s == PZ_ERR_INTERNAL || !err.msg[0] || err.code != s) die("onnx_load_buffer", &err);
        return 0;
    }
    if (!g) die("onnx_load_buffer succeeded without a graph", &err);
    if (passes_run(g, NULL, &err)) {
        if (err.code == PZ_ERR_INTERNAL || !err.msg[0]) die("passes_run", &err);
        ir_graph_free(g);
        return 0;
    }
    ir_model *m = ir_model_lower(g);
    if (!m) die("ir_model_lower returned NULL", &err);
    if (opt_apply_strategy(m, "fixed-mp", NULL, 2, &err)) {
        if (err.code == PZ_ERR_INTERNAL || !err.msg[0]) die("opt_apply_strategy", &err);
    } else if (small_enough(g)) {
        if (verbose) fprintf(stderr, "fuzz_onnx: %d layers, running\n", m->n_layers);
        build_and_run(m);
    }
    ir_model_free(m);
    ir_graph_free(g);
    return 0;
}
