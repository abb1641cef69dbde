/* onnx_shapes.c - shape and type conformance over the ONNX backend test data.
 *
 *   onnx_shapes [-v] [--no-fork] [--run] [--every N] ROOT...
 *
 * --every N takes every Nth case only (the first, the N+1th, ...: the same
 * ones on every run), for the sanitizer build where a case costs ten times
 * more; the optimized build runs them all.
 * Each ROOT is a folder of cases (../shared/onnx-tests/node, ...) or one case.
 * A case is CASE/model.onnx with CASE/test_data_set_0/input_<i>.pb and
 * output_<i>.pb, matched to the graph's (non-initializer) inputs and outputs
 * by position. For each case the model is loaded the way the compiler loads
 * it ahead of time:
 *   - every input is given as `paleozoic run --input` gives it: its shape
 *     binds symbolic dims, and its value is bound as a compile-time constant
 *     only where the compiler needs one (a Reshape shape, Slice starts,
 *     reduction axes fed as graph inputs, or what they are computed from:
 *     onnx_load_opts.bind_needed); every other input is a run-time input;
 * and the inferred dtype and shape of each graph output is compared with the
 * expected tensor. Outcomes:
 *   PASS         loaded, every output's dtype and shape equal
 *   skipped      the loader said PZ_ERR_UNSUPPORTED ("unsupported op X", a
 *                string input, ...), or the expected output is not a tensor
 *   FAIL         any other load error, a dtype or shape that differs, or a
 *                crash, a timeout or a sanitizer report in the case
 * Each case runs in a forked child (a crash in one op does not hide the rest;
 * under ASan/LSan each child's exit checks that the case freed everything).
 * Prints one line per FAIL, the skipped cases counted by op or reason, and
 * finally `shapes: P passed, F failed; S unsupported` (unsupported cases are
 * not skips of a missing dependency: tests/run.sh does not count them as
 * skipped). Exit 1 on any FAIL.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>

#include "front/onnx_load.h"
#include "ops/op.h"
#include "gen/net_build.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "passes/passes.h"
#include "onnx.pb-c.h"

#define MAX_IO 64
#define PZ_PATH 4096
#define CASE_TIMEOUT_S 60

typedef enum { R_PASS, R_SKIP, R_FAIL } result_kind;

typedef struct {
    result_kind kind;
    char key[160];   /* skipped: the op name or the reason, for the summary */
    char msg[1200];
} result;

static int verbose;

static void set_result(result *r, result_kind kind, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_result(result *r, result_kind kind, const char *key, const char *fmt, ...)
{
    va_list ap;
    r->kind = kind;
    snprintf(r->key, sizeof r->key, "%s", key ? key : "");
    va_start(ap, fmt);
    vsnprintf(r->msg, sizeof r->msg, fmt, ap);
    va_end(ap);
}

/* out = a "/" b; -1 if it does not fit. */
static int join(char *out, size_t size, const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/') la--;
    int n = snprintf(out, size, "%.*s/%s", (int)la, a, b);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            buf = pz_xrealloc(buf, cap);
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (!r) break;
        n += r;
    }
    fclose(f);
    *len = n;
    return buf;
}

static const char *type_kind(const Onnx__TypeProto *t)
{
    if (!t) return "untyped";
    switch (t->value_case) {
    case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE: return "tensor";
    case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return "sequence";
    case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return "map";
    case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return "optional";
    case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: return "sparse tensor";
    default: return "unknown type";
    }
}

/* onnx_read_value_file's kind for a type_kind; -1 for none it reads. */
static int value_kind(const char *kind)
{
    return !strcmp(kind, "tensor") || !strcmp(kind, "untyped") ? 0
         : !strcmp(kind, "sequence") ? 1 : !strcmp(kind, "optional") ? 2 : -1;
}

/* What the harness needs from the model: the kinds of the graph's inputs
 * (those that are not initializers) and outputs, in order. */
typedef struct {
    int n_in, n_out;
    char *in_name[MAX_IO];
    const char *in_kind[MAX_IO];
    const char *out_kind[MAX_IO];
} model_io;

static int read_model_io(const char *path, model_io *io)
{
    memset(io, 0, sizeof *io);
    size_t len = 0;
    uint8_t *buf = slurp(path, &len);
    if (!buf) return -1;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    if (!m) return -1;
    const Onnx__GraphProto *gp = m->graph;
    for (size_t i = 0; gp && i < gp->n_input && io->n_in < MAX_IO; i++) {
        const char *name = gp->input[i]->name ? gp->input[i]->name : "";
        int init = 0;
        for (size_t k = 0; k < gp->n_initializer && !init; k++)
            init = gp->initializer[k]->name && !strcmp(gp->initializer[k]->name, name);
        if (init) continue;
        io->in_name[io->n_in] = pz_xstrdup(name);
        io->in_kind[io->n_in++] = type_kind(gp->input[i]->type);
    }
    for (size_t i = 0; gp && i < gp->n_output && io->n_out < MAX_IO; i++)
        io->out_kind[io->n_out++] = type_kind(gp->output[i]->type);
    onnx__model_proto__free_unpacked(m, NULL);
    return 0;
}

/* The op of a model with exactly one node (its op_type into op), else "". */
static void single_op(const char *path, char *op, size_t size)
{
    op[0] = 0;
    size_t len = 0;
    uint8_t *buf = slurp(path, &len);
    if (!buf) return;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    if (!m) return;
    if (m->graph && m->graph->n_node == 1 && m->graph->node[0]->op_type &&
        (!m->graph->node[0]->domain || !m->graph->node[0]->domain[0] ||
         !strcmp(m->graph->node[0]->domain, "ai.onnx")))
        snprintf(op, size, "%s", m->graph->node[0]->op_type);
    onnx__model_proto__free_unpacked(m, NULL);
}

static void model_io_free(model_io *io)
{
    for (int i = 0; i < io->n_in; i++) free(io->in_name[i]);
}

/* The summary key of an unsupported-feature message: the op of "unsupported
 * op X ...", otherwise the message with quoted names blanked out. */
static void unsupported_key(const char *msg, char *key, size_t size)
{
    const char *p = strstr(msg, "unsupported op ");
    if (p) {
        p += strlen("unsupported op ");
        size_t n = strcspn(p, " \t,;:");
        snprintf(key, size, "op %.*s", (int)n, p);
        return;
    }
    size_t k = 0;
    /* node "NAME" (Op): ...  ->  op Op: ... */
    if (!strncmp(msg, "node \"", 6) && (p = strstr(msg + 6, "\" (")) != NULL) {
        size_t n = strcspn(p + 3, ")");
        if (p[3 + n] == ')') {
            k = (size_t)snprintf(key, size, "op %.*s", (int)n, p + 3);
            if (k >= size) k = size - 1;
            msg = p + 3 + n + 1;
        }
    }
    int quoted = 0;
    for (; *msg && k + 2 < size; msg++) {
        if (*msg == '"') {
            if (!quoted) key[k++] = '*';
            quoted = !quoted;
        } else if (!quoted) {
            key[k++] = *msg;
        }
    }
    key[k] = 0;
    if (k > 100) strcpy(key + 97, "...");
}

/* --run: execute through the runtime and compare values with the expected
 * outputs: floats within atol + rtol * |expected|, integers and bools exactly. */
static int run_mode;
#define RTOL 1e-3
#define ATOL 1e-5

/* Random cases: outputs drawn from numpy's generator cannot agree bit for
 * bit with any other (ONNX Runtime's runner excludes them), so a model
 * holding one of these op kinds is checked by properties (dtype and shape
 * exactly, as every case): Bernoulli and RandomUniformLike (Bernoulli's
 * expanded form) every value 0 or 1; Dropout with training_mode true and a
 * ratio r other than 0 every element 0 or x / (1 - r) within the tolerance,
 * the mask true where kept and false where dropped, the dropped count within
 * 5 sigma of n * r. Such a case prints `passed (random: properties)`. */
typedef enum { RANDOM_NONE, RANDOM_BERNOULLI, RANDOM_DROPOUT } random_rule;

static random_rule random_rule_of(const char *model, const ir_tensor *in, int n_in)
{
    size_t len = 0;
    uint8_t *buf = slurp(model, &len);
    if (!buf) return RANDOM_NONE;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    free(buf);
    if (!m) return RANDOM_NONE;
    random_rule rule = RANDOM_NONE;
    for (size_t i = 0; m->graph && i < m->graph->n_node && !rule; i++) {
        const char *op = m->graph->node[i]->op_type ? m->graph->node[i]->op_type : "";
        if (!strcmp(op, "Bernoulli") || !strcmp(op, "RandomUniformLike")) rule = RANDOM_BERNOULLI;
        if (!strcmp(op, "Dropout") && n_in > 2 && in[2].data && ir_load_i64(in[2].data, in[2].dtype, 0) &&
            ir_load_f64(in[1].data, in[1].dtype, 0) != 0)
            rule = RANDOM_DROPOUT;
    }
    onnx__model_proto__free_unpacked(m, NULL);
    return rule;
}

/* The properties of random_rule_of's comment; 0 if they hold, else -1 and
 * r says which failed. */
static int check_random(random_rule rule, const ir_tensor *in, void *const *outs,
                        const ir_tensor *wants, int n_want, result *r)
{
    const size_t n = (size_t)ir_tensor_numel(&wants[0]);
    if (rule == RANDOM_BERNOULLI) {
        for (int i = 0; i < n_want; i++)
            for (size_t k = 0; k < (size_t)ir_tensor_numel(&wants[i]); k++) {
                double v = ir_load_f64(outs[i], wants[i].dtype, k);
                if (v != 0 && v != 1) {
                    set_result(r, R_FAIL, NULL, "output %d: element %zu is %g, expected 0 or 1 "
                               "(random: properties)", i, k, v);
                    return -1;
                }
            }
        return 0;
    }
    const double ratio = ir_load_f64(in[1].data, in[1].dtype, 0);
    size_t dropped = 0;
    for (size_t k = 0; k < n; k++) {
        double s = ir_load_f64(in[0].data, in[0].dtype, k) / (1 - ratio);
        double v = ir_load_f64(outs[0], wants[0].dtype, k);
        int kept = fabs(v - s) <= ATOL + RTOL * fabs(s), gone = v == 0;
        if (!kept && !gone) {
            set_result(r, R_FAIL, NULL, "output 0: element %zu is %g, expected 0 or %g (random: "
                       "properties)", k, v, s);
            return -1;
        }
        if (n_want > 1 && kept != gone && (ir_load_i64(outs[1], wants[1].dtype, k) != 0) != kept) {
            set_result(r, R_FAIL, NULL, "output 1: element %zu is the mask of a %s element "
                       "(random: properties)", k, kept ? "dropped" : "kept");
            return -1;
        }
        dropped += gone && !kept;
    }
    const double sigma = sqrt((double)n * ratio * (1 - ratio));
    if (fabs((double)dropped - (double)n * ratio) > 5 * sigma + 1e-9) {
        set_result(r, R_FAIL, NULL, "%zu of %zu dropped, expected %g within 5 sigma (random: "
                   "properties)", dropped, n, (double)n * ratio);
        return -1;
    }
    return 0;
}

static void run_and_compare(ir_graph *g, const void *const *ins, int n_ins, const ir_tensor *wants,
                            int n_want, random_rule rule, const ir_tensor *given, result *r)
{
    pz_err err = {0};
    /* the same pipeline as `paleozoic run`: passes, then lowering */
    if (passes_run(g, NULL, &err)) {
        set_result(r, R_FAIL, NULL, "graph passes failed: %s", err.msg);
        return;
    }
    ir_model *m = ir_model_lower(g);
    gen_net gn;
    if (gen_net_build(m, 1, &gn, &err)) {
        if (err.code == PZ_ERR_UNSUPPORTED) {
            char key[160];
            unsupported_key(err.msg, key, sizeof key);
            set_result(r, R_SKIP, key, "%s", err.msg);
        } else {
            set_result(r, R_FAIL, NULL, "building the net failed: %s", err.msg);
        }
        ir_model_free(m);
        return;
    }
    if (n_ins != g->n_inputs) {
        set_result(r, R_FAIL, NULL, "%d runtime inputs, %d test inputs left unbound", g->n_inputs, n_ins);
        gen_net_free(&gn);
        ir_model_free(m);
        return;
    }
    void *outs[MAX_IO] = {0};
    for (int i = 0; i < g->n_outputs; i++) {
        size_t nb = 0;
        ir_tensor_bytes(&g->values[g->outputs[i]].t, &nb, "output", &err);
        outs[i] = calloc(nb ? nb : 1, 1);
    }
    pz_net_run(gn.net, (const void **)ins, outs);
    set_result(r, R_PASS, NULL, "%d outputs match", n_want);
    if (rule && !check_random(rule, given, outs, wants, n_want, r))
        set_result(r, R_PASS, "random: properties", "%d outputs: random: properties", n_want);
    for (int i = 0; i < n_want && !rule; i++) {
        const ir_tensor *w = &wants[i];
        size_t n = (size_t)ir_tensor_numel(w);
        /* a run-time shape (NonZero, Unique, ...): the run's must be the expected one */
        int64_t dims[PZ_MAX_RANK];
        int rank = pz_net_output_shape(gn.net, i, dims), same = rank == w->rank;
        for (int d = 0; same && d < rank; d++) same = dims[d] == w->dims[d];
        if (!same) {
            ir_tensor got = {.dtype = w->dtype, .rank = rank < 0 ? 0 : rank};
            memcpy(got.dims, dims, sizeof(int64_t) * (size_t)got.rank);
            char a[160], b[160];
            set_result(r, R_FAIL, NULL, "output %d \"%s\": the run's shape is %s, expected %s", i,
                       g->values[g->outputs[i]].name, ir_shape_str(&got, a, sizeof a),
                       ir_shape_str(w, b, sizeof b));
            break;
        }
        double worst = 0;
        size_t bad = n;
        for (size_t k = 0; k < n && bad == n; k++) {
            if (ir_dtype_is_small(w->dtype)) {
                /* float8, float4, int4, int2: held one per byte; the codes
                 * (or the sign-extended values) must be equal */
                if (((const uint8_t *)w->data)[k] != ((const uint8_t *)outs[i])[k]) bad = k;
            } else if (ir_dtype_is_float(w->dtype)) {
                double e = ir_load_f64(w->data, w->dtype, k), a = ir_load_f64(outs[i], w->dtype, k);
                if (isnan(e) && isnan(a)) continue;
                if (isinf(e) && a == e) continue;
                double d = fabs(a - e);
                if (!(d <= ATOL + RTOL * fabs(e))) bad = k;
                if (d > worst) worst = d;
            } else if (ir_load_i64(w->data, w->dtype, k) != ir_load_i64(outs[i], w->dtype, k)) {
                bad = k;
            }
        }
        if (bad < n) {
            set_result(r, R_FAIL, NULL, "output %d \"%s\": element %zu is %g, expected %g", i,
                       g->values[g->outputs[i]].name, bad, ir_load_f64(outs[i], w->dtype, bad),
                       ir_load_f64(w->data, w->dtype, bad));
            break;
        }
    }
    for (int i = 0; i < g->n_outputs; i++) free(outs[i]);
    gen_net_free(&gn);
    ir_model_free(m);
}

static void run_case(const char *dir, result *r)
{
    char path[PZ_PATH + 64], model[PZ_PATH + 64];
    model_io io;
    ir_tensor in_t[MAX_IO];
    int n_read = 0;
    ir_graph *g = NULL;
    pz_err err = {0};

    memset(in_t, 0, sizeof in_t);
    snprintf(model, sizeof model, "%s/model.onnx", dir);
    if (read_model_io(model, &io)) {
        /* Let the loader say what is wrong with it. */
        memset(&io, 0, sizeof io);
    }

    int given_len[MAX_IO], any_container = 0;
    for (int i = 0; i < MAX_IO; i++) given_len[i] = -1;
    for (int i = 0; i < io.n_in; i++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, i);
        if (!is_file(path)) break;
        int kind = value_kind(io.in_kind[i]);
        if (kind < 0) continue; /* the loader refuses it */
        pz_err rerr = {0};
        ir_tensor *ts = NULL;
        int n = 0;
        if (onnx_read_value_file(path, kind, &ts, &n, &given_len[i], &rerr)) {
            for (int k = 0; k < n; k++) ir_tensor_free_data(&ts[k]);
            free(ts);
            if (rerr.code == PZ_ERR_UNSUPPORTED) continue; /* e.g. strings: the loader refuses them */
            set_result(r, R_FAIL, NULL, "cannot read test input %d: %s", i, rerr.msg);
            goto done;
        }
        any_container |= kind > 0;
        for (int k = 0; k < n && n_read < MAX_IO; k++) in_t[n_read++] = ts[k];
        free(ts);
    }

    /* as `paleozoic run --input ...` loads it */
    onnx_load_opts opts = {.by_position = in_t, .n_by_position = n_read, .bind_needed = 1,
                           .given_len = any_container ? given_len : NULL, .n_given_len = io.n_in};
    int failed = onnx_load_file(model, &opts, &g, &err) != PZ_OK;
    if (failed) {
        if (g) {
            set_result(r, R_FAIL, NULL, "onnx_load_file failed but returned a graph");
            goto done;
        }
        if (err.code == PZ_ERR_UNSUPPORTED) {
            char key[160];
            unsupported_key(err.msg, key, sizeof key);
            set_result(r, R_SKIP, key, "%s", err.msg);
        } else {
            set_result(r, R_FAIL, NULL, "load failed (%s): %s",
                       err.code == PZ_ERR_INPUT ? "input error" : "internal error", err.msg);
        }
        goto done;
    }
    int n_groups = g->out_groups ? g->n_out_groups : g->n_outputs;
    if (n_groups != io.n_out) {
        set_result(r, R_FAIL, NULL, "the graph has %d outputs, the model declares %d",
                   n_groups, io.n_out);
        goto done;
    }
    int compared = 0, n_flat = 0;
    ir_tensor wants[MAX_IO];
    memset(wants, 0, sizeof wants);
    for (int i = 0; i < n_groups && i < MAX_IO; i++) {
        snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, i);
        if (!is_file(path)) break;
        int kind = value_kind(io.out_kind[i]);
        if (kind < 0) {
            char key[160];
            snprintf(key, sizeof key, "expected output is a %s", io.out_kind[i]);
            set_result(r, R_SKIP, key, "expected output %d is a %s, not a tensor", i, io.out_kind[i]);
            goto done;
        }
        ir_tensor *ts = NULL;
        int n = 0, len;
        pz_err rerr = {0};
        if (onnx_read_value_file(path, kind, &ts, &n, &len, &rerr)) {
            for (int k = 0; k < n; k++) ir_tensor_free_data(&ts[k]);
            free(ts);
            if (rerr.code == PZ_ERR_UNSUPPORTED) {
                set_result(r, R_SKIP, "expected output of unsupported type",
                           "expected output %d: %s", i, rerr.msg);
            } else {
                set_result(r, R_SKIP, "expected output is not a TensorProto",
                           "expected output %d: %s", i, rerr.msg);
            }
            goto done;
        }
        int first = g->out_groups ? g->out_groups[i].first : i;
        int have = g->out_groups ? g->out_groups[i].n : 1;
        if (have != n) {
            set_result(r, R_FAIL, NULL, "output %d: %d tensors, expected %d", i, have, n);
            for (int k = 0; k < n; k++) ir_tensor_free_data(&ts[k]);
            free(ts);
            goto done;
        }
        for (int k = 0; k < n; k++) {
            ir_tensor want = ts[k];
            const ir_value *v = &g->values[g->outputs[first + k]];
            char a[160], b[160];
            int same = v->t.dtype == want.dtype && v->t.rank == want.rank;
            /* a run-time shape has a bound here, checked after the run */
            for (int d = 0; same && !v->dyn && d < want.rank; d++) same = v->t.dims[d] == want.dims[d];
            if (!same || first + k >= MAX_IO) {
                set_result(r, R_FAIL, NULL, "output %d \"%s\": inferred %s %s, expected %s %s", i,
                           v->name, ir_dtype_name(v->t.dtype), ir_shape_str(&v->t, a, sizeof a),
                           ir_dtype_name(want.dtype), ir_shape_str(&want, b, sizeof b));
                for (int j = k; j < n; j++) ir_tensor_free_data(&ts[j]);
                free(ts);
                goto done;
            }
            wants[first + k] = want;
            compared++;
        }
        free(ts);
        n_flat = first + n;
        if (!n) compared++;   /* an empty sequence or optional: nothing to run */
    }
    if (!compared) set_result(r, R_FAIL, NULL, "no expected output to compare with");
    else if (run_mode && n_flat) {
        /* the unbound inputs, in model order, are the runtime inputs */
        const void *ins[MAX_IO];
        int n_ins = 0;
        for (int k = 0; k < g->n_inputs && k < MAX_IO; k++)
            ins[n_ins++] = in_t[g->input_pos[k]].data;
        run_and_compare(g, ins, n_ins, wants, n_flat, random_rule_of(model, in_t, n_read), in_t,
                        r);
    }
    else set_result(r, R_PASS, NULL, "%d outputs", compared);
    for (int i = 0; i < MAX_IO; i++) ir_tensor_free_data(&wants[i]);

done:
    ir_graph_free(g);
    for (int i = 0; i < n_read; i++) ir_tensor_free_data(&in_t[i]);
    model_io_free(&io);
}

/* Runs one case in a child; its result comes back through a pipe. */
static void run_case_forked(const char *dir, result *r)
{
    int fds[2];
    if (pipe(fds) != 0) {
        set_result(r, R_FAIL, NULL, "pipe: %s", strerror(errno));
        return;
    }
    /* the child's stderr goes to a file: its first line explains a crash */
    FILE *ef = tmpfile();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        set_result(r, R_FAIL, NULL, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        if (ef) fclose(ef);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        if (ef) dup2(fileno(ef), 2);
        alarm(CASE_TIMEOUT_S);
        result cr;
        memset(&cr, 0, sizeof cr);
        run_case(dir, &cr);
        const char *p = (const char *)&cr;
        for (size_t done = 0; done < sizeof cr;) {
            ssize_t w = write(fds[1], p + done, sizeof cr - done);
            if (w <= 0) _exit(3);
            done += (size_t)w;
        }
        close(fds[1]);
        exit(0); /* exit, not _exit: LeakSanitizer checks at exit */
    }
    close(fds[1]);
    result cr;
    size_t got = 0;
    while (got < sizeof cr) {
        ssize_t n = read(fds[0], (char *)&cr + got, sizeof cr - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    char first[300] = "";
    if (ef) {
        /* pass the child's stderr on (run.sh looks for sanitizer reports) */
        char buf[4096];
        size_t n;
        rewind(ef);
        while ((n = fread(buf, 1, sizeof buf, ef)) > 0) fwrite(buf, 1, n, stderr);
        /* the line that says what happened: a sanitizer's "ERROR:" or
         * "runtime error:" line, else the first non-blank one */
        rewind(ef);
        char line[300];
        while (fgets(line, sizeof line, ef)) {
            line[strcspn(line, "\n")] = 0;
            int key = strstr(line, "ERROR:") || strstr(line, "runtime error:");
            if (key || (!first[0] && line[0] && strspn(line, "=") != strlen(line)))
                snprintf(first, sizeof first, "%s", line);
            if (key) break;
        }
        fclose(ef);
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        set_result(r, R_FAIL, NULL, "crashed: signal %d (%s)%s%s%s", sig, strsignal(sig),
                   sig == SIGALRM ? ", timed out" : "", first[0] ? ": " : "", first);
    } else if (got != sizeof cr) {
        set_result(r, R_FAIL, NULL, "exited with status %d before reporting a result: %s",
                   WEXITSTATUS(status), first[0] ? first : "(nothing on stderr)");
    } else if (WEXITSTATUS(status) != 0) {
        *r = cr;
        set_result(r, R_FAIL, NULL, "exited with status %d after its result (%s): %s",
                   WEXITSTATUS(status), cr.kind == R_PASS ? "pass" : cr.msg,
                   first[0] ? first : "(nothing on stderr)");
    } else {
        *r = cr;
    }
}

/* ---- tallies ------------------------------------------------------------ */

typedef struct {
    char key[160];
    int count;
    char example[512];
} tally;

static tally *tallies;
static int n_tallies, cap_tallies;

static void tally_add(const char *key, const char *example)
{
    for (int i = 0; i < n_tallies; i++)
        if (!strcmp(tallies[i].key, key)) {
            tallies[i].count++;
            return;
        }
    if (n_tallies == cap_tallies) {
        cap_tallies = cap_tallies ? 2 * cap_tallies : 64;
        tallies = pz_xrealloc(tallies, (size_t)cap_tallies * sizeof *tallies);
    }
    tally *t = &tallies[n_tallies++];
    snprintf(t->key, sizeof t->key, "%s", key);
    if ((size_t)snprintf(t->example, sizeof t->example, "%s", example) >= sizeof t->example)
        strcpy(t->example + sizeof t->example - 4, "...");
    t->count = 1;
}

static int tally_cmp(const void *a, const void *b)
{
    const tally *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->key, y->key);
}

/* ---- per op: the single-node cases of a root named "node" ---------------- */

typedef struct {
    char op[64];
    int pass, fail, skip;
} op_count;

static op_count *op_counts;
static int n_op_counts, cap_op_counts;

static void op_count_add(const char *op, result_kind kind)
{
    op_count *c = NULL;
    for (int i = 0; i < n_op_counts && !c; i++)
        if (!strcmp(op_counts[i].op, op)) c = &op_counts[i];
    if (!c) {
        if (n_op_counts == cap_op_counts) {
            cap_op_counts = cap_op_counts ? 2 * cap_op_counts : 64;
            op_counts = pz_xrealloc(op_counts, (size_t)cap_op_counts * sizeof *op_counts);
        }
        c = &op_counts[n_op_counts++];
        memset(c, 0, sizeof *c);
        snprintf(c->op, sizeof c->op, "%s", op);
    }
    if (kind == R_PASS) c->pass++;
    else if (kind == R_FAIL) c->fail++;
    else c->skip++;
}

static int op_count_cmp(const void *a, const void *b)
{
    return strcmp(((const op_count *)a)->op, ((const op_count *)b)->op);
}

/* The ops Paleozoic supports, then a total line; ops it does not support are
 * in the skipped list above. */
static void op_counts_print(void)
{
    if (!n_op_counts) return;
    qsort(op_counts, (size_t)n_op_counts, sizeof *op_counts, op_count_cmp);
    int p = 0, f = 0, k = 0, ops = 0;
    printf("per op (single-node cases of node/, Paleozoic's ops): passed/cases, failed, skipped\n");
    for (int i = 0; i < n_op_counts; i++) {
        const op_count *c = &op_counts[i];
        if (!op_find(c->op)) continue;
        printf("  %-20s %3d/%-3d", c->op, c->pass, c->pass + c->fail + c->skip);
        if (c->fail) printf("  %d FAILED", c->fail);
        if (c->skip) printf("  %d skipped", c->skip);
        printf("\n");
        p += c->pass, f += c->fail, k += c->skip, ops++;
    }
    printf("per op total: %d ops, %d cases: %d passed, %d failed, %d skipped\n", ops, p + f + k,
           p, f, k);
}

static int dir_filter(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

int main(int argc, char **argv)
{
    int use_fork = 1, n_roots = 0, every = 1, seen = 0;
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "--no-fork")) use_fork = 0;
        else if (!strcmp(argv[i], "--run")) run_mode = 1;
        else if (!strcmp(argv[i], "--every") && i + 1 < argc && atoi(argv[i + 1]) >= 1) {
            every = atoi(argv[++i]);
            argv[i] = "-";   /* not a root */
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: onnx_shapes [-v] [--no-fork] [--run] [--every N] ROOT...\n");
            return 2;
        } else n_roots++;
    }
    if (!n_roots) {
        fprintf(stderr, "usage: onnx_shapes [-v] [--no-fork] ROOT...\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        if (argv[a][0] == '-') continue;
        const char *root = argv[a];
        char path[PZ_PATH];
        struct dirent **list = NULL;
        int n;
        if (join(path, sizeof path, root, "model.onnx") == 0 && is_file(path)) {
            /* one case given directly */
            n = 1;
            list = NULL;
        } else {
            n = scandir(root, &list, dir_filter, alphasort);
            if (n < 0) {
                fprintf(stdout, "FAIL %s: cannot read the folder: %s\n", root, strerror(errno));
                failed++;
                continue;
            }
        }
        /* cases are labelled ROOTNAME/CASE: "node/test_add" */
        char base[256];
        {
            size_t e = strlen(root);
            while (e > 1 && root[e - 1] == '/') e--;
            size_t s = e;
            while (s > 0 && root[s - 1] != '/') s--;
            snprintf(base, sizeof base, "%.*s", (int)(e - s), root + s);
        }
        for (int i = 0; i < n; i++) {
            char dir[PZ_PATH], label[PZ_PATH];
            if (list) {
                int bad = join(dir, sizeof dir, root, list[i]->d_name) ||
                          join(label, sizeof label, base, list[i]->d_name) ||
                          join(path, sizeof path, dir, "model.onnx");
                free(list[i]);
                if (bad || !is_dir(dir) || !is_file(path)) continue;
            } else {
                snprintf(dir, sizeof dir, "%s", root);
                snprintf(label, sizeof label, "%s", root);
            }
            if (seen++ % every) continue;
            result r;
            memset(&r, 0, sizeof r);
            char op[64] = "";
            if (!strcmp(base, "node")) single_op(path, op, sizeof op);
            if (use_fork) run_case_forked(dir, &r);
            else run_case(dir, &r);
            if (op[0]) op_count_add(op, r.kind);
            switch (r.kind) {
            case R_PASS:
                passed++;
                if (!strcmp(r.key, "random: properties"))
                    printf("passed (random: properties) %s\n", label);
                else if (verbose) printf("pass %s\n", label);
                break;
            case R_SKIP:
                skipped++;
                tally_add(r.key, label);
                if (verbose) printf("skip %s: %s\n", label, r.msg);
                break;
            case R_FAIL:
                failed++;
                printf("FAIL %s: %s\n", label, r.msg);
                break;
            }
            fflush(stdout);
        }
        free(list);
    }
    if (n_tallies) {
        qsort(tallies, (size_t)n_tallies, sizeof *tallies, tally_cmp);
        printf("skipped (unsupported), by op or reason:\n");
        for (int i = 0; i < n_tallies; i++)
            printf("  %5d  %s  (e.g. %s)\n", tallies[i].count, tallies[i].key, tallies[i].example);
    }
    free(tallies);
    op_counts_print();
    free(op_counts);
    if (every > 1) printf("sampled: %d of %d cases (--every %d)\n", passed + failed + skipped, seen, every);
    printf("%s: %d passed, %d failed; %d unsupported\n", run_mode ? "conformance" : "shapes", passed, failed,
           skipped);
    return failed ? 1 : 0;
}
