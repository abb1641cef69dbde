/* prepare.c - what every model-reading command does between the file and
 * the runtime: load (with the shape knobs), graph passes, lowering, and the
 * schedule knobs; and the checks that refuse a knob rather than ignore it. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "../front/batch.h"
#include "../gen/plan.h"
#include "../ops/op_lower.h"
#include "../opt/opt.h"
#include "../opt/opt_internal.h"
#include "../opt/schedule.h"
#include "../passes/passes.h"
#include "../rt/pz_rt.h"
#include "cli.h"

/* "[1, 2048]" */
static void dims_str(const int64_t *d, int64_t n, char *s, size_t size)
{
    size_t k = (size_t)snprintf(s, size, "[");
    for (int64_t i = 0; i < n && i < 8 && k < size; i++)
        k += (size_t)snprintf(s + k, size - k, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (k < size) snprintf(s + k, size - k, n > 8 ? ", ...]" : "]");
}

/* A Reshape whose shape is a constant of the model file (an initializer or a
 * Constant node, not a shape computed from the input) with a leading dim
 * `lead` > 0 that differs from `batch` while its data input carries `batch`
 * in its leading dim: it fixes the batch. Returns the node or -1. */
static int reshape_fixing(const ir_graph *g, int64_t batch, int64_t lead_not, char *shape, size_t size)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const ir_node *n = &g->nodes[i];
        if (strcmp(n->op_type, "Reshape") || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) continue;
        const ir_value *x = &g->values[n->in[0]], *s = &g->values[n->in[1]];
        if (!s->t.data || s->t.dtype != IR_I64 || s->t.rank != 1 || s->t.dims[0] < 1) continue;
        int from_file = s->is_initializer ||
                        (s->producer >= 0 && !strcmp(g->nodes[s->producer].op_type, "Constant"));
        const int64_t *d = s->t.data;
        if (!from_file || x->t.rank < 1 || x->t.dims[0] != batch || d[0] <= 0 || d[0] == lead_not)
            continue;
        dims_str(d, s->t.dims[0], shape, size);
        return i;
    }
    return -1;
}

/* --batch N binds the symbolic leading dim of the inputs. It is refused
 * (never ignored) when it binds nothing: every input's leading dim is fixed
 * by the model (or given by --input-shape / an --input tensor) and differs
 * from N; or when a Reshape constant of the model fixes the batch anyway. */
static pz_status check_batch(const ir_graph *g, const cli_knobs *k, int n_by_position, pz_err *err)
{
    long long b = (long long)k->batch;
    int first = -1, bound = 0;
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_tensor *t = &g->values[g->inputs[i]].t;
        if (t->rank < 1) continue;
        if (first < 0) first = i;
        if (t->dims[0] == k->batch) bound = 1;
    }
    if (first < 0)
        return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: the model has no input with a leading "
                       "(batch) dim to bind", b);
    char shape[160];
    if (!bound) {
        const ir_value *v = &g->values[g->inputs[first]];
        long long d0 = (long long)v->t.dims[0];
        for (int s = 0; s < k->n_shapes; s++)
            if (!strcmp(k->shapes[s].name, v->name))
                return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: --input-shape gives input \"%s\" "
                               "the leading dim %lld; give one or the other", b, v->name, d0);
        if (first < n_by_position)
            return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: the --input tensor of input \"%s\" "
                           "has the leading dim %lld; give one or the other", b, v->name, d0);
        int r = reshape_fixing(g, v->t.dims[0], -1, shape, sizeof shape);
        char also[600] = "";
        if (r >= 0)
            snprintf(also, sizeof also, "; and node \"%.200s\" (Reshape) fixes it too, with the "
                     "constant shape %s", g->nodes[r].name, shape);
        return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: the model's input \"%s\" has a fixed "
                       "batch of %lld (its leading dim is a number, not a symbol), so the batch "
                       "cannot be changed%s; export the model with a symbolic batch dim", b,
                       v->name, d0, also);
    }
    int r = reshape_fixing(g, k->batch, k->batch, shape, sizeof shape);
    if (r >= 0)
        return pz_fail(err, PZ_ERR_INPUT, "--batch %lld: node \"%s\" (Reshape) fixes the batch "
                       "with the constant shape %s while its input has batch %lld; export the "
                       "model with a shape computed from the input (or Flatten)", b,
                       g->nodes[r].name, shape, b);
    return PZ_OK;
}

pz_status cli_load(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                   int n_by_position, ir_graph **g, pz_err *err)
{
    return cli_load_given(path, k, by_position, n_by_position, NULL, 0, g, err);
}

pz_status cli_read_inputs(const char *model, const char *const *files, int n_files, ir_tensor *t,
                          int max, int *n_t, int *given_len, int *file_of, int *containers,
                          pz_err *err)
{
    int kinds[64];
    int n_kinds = n_files ? onnx_input_kinds(model, kinds, 64) : 0;
    pz_status st = PZ_OK;
    *n_t = 0;
    *containers = 0;
    for (int i = 0; i < n_files && !st; i++) {
        given_len[i] = -1;
        int kind = i < n_kinds ? kinds[i] : 0, n = 0;
        ir_tensor *ts = NULL;
        *containers |= kind;
        st = onnx_read_value_file(files[i], kind, &ts, &n, &given_len[i], err);
        for (int j = 0; j < n; j++) {
            if (*n_t == max) {
                ir_tensor_free_data(&ts[j]);
                if (!st) st = pz_fail(err, PZ_ERR_INPUT, "more than %d input tensors", max);
                continue;
            }
            file_of[*n_t] = i;
            t[(*n_t)++] = ts[j];
        }
        free(ts);
    }
    if (st) {
        for (int j = 0; j < *n_t; j++) ir_tensor_free_data(&t[j]);
        *n_t = 0;
    }
    return st;
}

/* --precision int8: the model quantized first (cli_quantize: per-channel
 * int8 weights, uint8 activations calibrated by min/max on --calibrate, or
 * on seeded inputs with a warning) into a temporary QDQ model, loaded in
 * its place; the qdq pass then folds it into int8 layers. */
static pz_status load_int8(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                           int n_by_position, const int *given_len, int n_given_len,
                           ir_graph **g, pz_err *err)
{
    char tmp[] = "/tmp/paleozoic-int8-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return pz_fail(err, PZ_ERR_INTERNAL, "--precision int8: a temporary file: %s", strerror(errno));
    close(fd);
    cli_knobs kq = {0};   /* what calibration takes: shapes, threads, the samples */
    memcpy(kq.shapes, k->shapes, sizeof kq.shapes);
    memcpy(kq.shape_names, k->shape_names, sizeof kq.shape_names);
    for (int i = 0; i < k->n_shapes; i++) kq.shapes[i].name = kq.shape_names[i];
    kq.n_shapes = k->n_shapes;
    kq.threads = k->threads;
    kq.calib = k->calib;
    kq.n_calib = k->n_calib;
    kq.accuracy_budget = k->accuracy_budget;
    int rc = cli_quantize(path, tmp, k->calib, k->n_calib, 0, 0, "minmax", &kq, 1);
    if (rc) {
        unlink(tmp);
        return pz_fail(err, rc == 2 ? PZ_ERR_INPUT : PZ_ERR_INTERNAL, "--precision int8: "
                       "quantizing \"%s\" failed (said above)", path);
    }
    cli_knobs kl = *k;
    kl.precision = NULL;
    kl.calib = NULL;
    kl.n_calib = 0;
    kl.accuracy_budget = NULL;
    pz_status s = cli_load_given(tmp, &kl, by_position, n_by_position, given_len, n_given_len,
                                 g, err);
    unlink(tmp);
    return s;
}

pz_status cli_load_given(const char *path, const cli_knobs *k, const ir_tensor *by_position,
                         int n_by_position, const int *given_len, int n_given_len, ir_graph **g,
                         pz_err *err)
{
    /* a schedule's "batch" (written by tune at --batch N) is the batch when
     * --batch is not given; sched_apply refuses another one */
    cli_knobs kb;
    if (k->schedule && !k->batch) {
        sched s;
        pz_err e = {0};
        memset(&s, 0, sizeof s);
        if (!sched_load_file(k->schedule, &s, &e) && s.batch > 1) {
            kb = *k;
            kb.batch = s.batch;
            k = &kb;
        }
        sched_free(&s);
    }
    if (k->precision && !strcmp(k->precision, "int8"))
        return load_int8(path, k, by_position, n_by_position, given_len, n_given_len, g, err);
    if (k->n_calib)
        return pz_fail(err, PZ_ERR_INPUT, "--calibrate does nothing here: it calibrates the "
                       "quantization --precision int8 makes");
    if (k->accuracy_budget)
        return pz_fail(err, PZ_ERR_INPUT, "--accuracy-budget does nothing here: it chooses the "
                       "layers --precision int8 leaves in fp32");
    onnx_load_opts opts;
    cli_knobs_to_opts(k, &opts);
    opts.by_position = by_position;
    opts.n_by_position = n_by_position;
    opts.given_len = given_len;
    opts.n_given_len = n_given_len;
    opts.bind_needed = n_by_position > 0;   /* given values bind where a constant is needed */
    *g = NULL;
    /* --batch N on inputs whose batch the model fixes at 1: re-inferred at N
     * where every node keeps the batch apart (src/front/batch.h) */
    batch_plan *plan = NULL;
    int rebatched = 0;
    if (k->batch > 1 && batch_plan_make(path, &opts, k->batch, &plan, err)) return err->code;
    if (plan) {
        rebatched = 1;
        batch_plan_opts(plan, &opts);
        pz_status s = onnx_load_file(path, &opts, g, err);
        if (s) {
            char was[sizeof err->msg];
            snprintf(was, sizeof was, "%s", err->msg);
            memset(err, 0, sizeof *err);
            pz_fail(err, s, "--batch %lld: the model at batch %lld: %s", (long long)k->batch,
                    (long long)k->batch, was);
        } else {
            s = batch_plan_check(plan, *g, err);
        }
        batch_plan_free(plan);
        if (s) goto fail;
    } else if (onnx_load_file(path, &opts, g, err)) {
        /* Did --batch break shape inference because a Reshape constant fixes
         * the batch? Load again at batch 1 and look for one (only to say so). */
        ir_graph *g1 = NULL;
        pz_err e1 = {0};
        opts.batch = 1;
        char shape[160];
        int r;
        if (k->batch > 1 && !onnx_load_file(path, &opts, &g1, &e1) &&
            (r = reshape_fixing(g1, 1, k->batch, shape, sizeof shape)) >= 0) {
            char was[sizeof err->msg];
            snprintf(was, sizeof was, "%s", err->msg);
            memset(err, 0, sizeof *err);   /* pz_fail keeps the first message */
            pz_fail(err, PZ_ERR_INPUT, "--batch %lld: node \"%s\" (Reshape) fixes the batch with "
                    "the constant shape %s (at batch %lld: %.300s); export the model with a shape "
                    "computed from the input (or Flatten)", (long long)k->batch, g1->nodes[r].name,
                    shape, (long long)k->batch, was);
        }
        ir_graph_free(g1);
        return err->code;
    }
    /* --input-shape NAME=...: NAME must be an input (a binding nothing reads
     * is a typo, not a no-op) */
    for (int s = 0; s < k->n_shapes; s++) {
        int found = 0;
        for (int i = 0; i < (*g)->n_inputs && !found; i++)
            found = !strcmp((*g)->values[(*g)->inputs[i]].name, k->shapes[s].name);
        if (!found) {
            char names[400];
            size_t n = 0;
            names[0] = 0;
            for (int i = 0; i < (*g)->n_inputs && n < sizeof names; i++)
                n += (size_t)snprintf(names + n, sizeof names - n, "%s\"%s\"", i ? ", " : "",
                                      (*g)->values[(*g)->inputs[i]].name);
            pz_fail(err, PZ_ERR_INPUT, "--input-shape %s=...: the model has no input \"%s\" "
                    "(its inputs: %s)", k->shapes[s].name, k->shapes[s].name,
                    (*g)->n_inputs ? names : "none");
            goto fail;
        }
    }
    if (k->batch > 0 && !rebatched && check_batch(*g, k, n_by_position, err)) goto fail;
    return PZ_OK;
fail:
    ir_graph_free(*g);
    *g = NULL;
    return err->code;
}

/* The strategies that read a target profile (--target): opt.c loads one for
 * these (best and oracle: when one is given or cached). */
static int reads_target(const char *spec)
{
    static const char *const READERS[] = {"dynamic-mp", "fusion-fixed-mp", "dlfusion", "best",
                                          "oracle", "plugin"};
    size_t nl = strcspn(spec, ":");
    for (size_t i = 0; i < PZ_ARRAY_LEN(READERS); i++)
        if (strlen(READERS[i]) == nl && !strncmp(spec, READERS[i], nl)) return 1;
    return 0;
}

pz_status cli_check_target(const cli_knobs *k, const char *const *specs, int n, pz_err *err)
{
    if (!k->target) return PZ_OK;
    if (k->schedule)
        return pz_fail(err, PZ_ERR_INPUT, "--target %s: a schedule file sets every knob, nothing "
                       "reads the target profile (give --target with --strategy)", k->target);
    int any = 0;
    for (int i = 0; i < n; i++) any |= reads_target(specs[i]);
    if (!any)
        return pz_fail(err, PZ_ERR_INPUT, "--target %s: %s%s reads no target profile (the "
                       "strategies that do: dynamic-mp, fusion-fixed-mp, dlfusion, best, oracle, plugin)",
                       k->target, n == 1 ? "strategy " : "none of the strategies ",
                       n == 1 ? specs[0] : "given");
    /* read and checked now, whichever strategy reads it later */
    pz_machine mc;
    pz_err e = {0};
    if (lab_profile_load_cached(k->target, 1, &mc, &e))
        return pz_fail(err, e.code, "--target %s", e.msg);
    return PZ_OK;
}

void cli_opt_knobs(const cli_knobs *k, opt_knobs *o)
{
    memset(o, 0, sizeof *o);
    o->strategy = k->strategy;
    o->target = k->target;
    o->precision = k->precision;
    o->weights = k->weights;
    o->batch = k->batch;
    o->has_sparsity = k->sparsity && cli_check_sparsity(k->sparsity, &o->sparsity) == 0;
}

void cli_apply_weights(const cli_knobs *k, ir_model *m)
{
    opt_knobs o;
    cli_opt_knobs(k, &o);
    opt_knobs_weights(&o, m);
}

pz_status cli_lower(ir_graph *g, const cli_knobs *k, ir_model **m, pz_err *err)
{
    *m = NULL;
    if (k->schedule && k->strategy)
        return pz_fail(err, PZ_ERR_INPUT, "give --schedule or --strategy, not both");
    if (k->weights && !strcmp(k->weights, "fp16") && k->precision &&
        (!strcmp(k->precision, "bf16") || !strcmp(k->precision, "int8-dynamic")))
        return pz_fail(err, PZ_ERR_INPUT, "--weights fp16 with --precision %s: such a block "
                       "stores its weights in %s; --weights fp16 is for fp32 compute",
                       k->precision, !strcmp(k->precision, "bf16") ? "bf16" : "int8");
    const char *strategy = k->strategy ? k->strategy : CLI_DEFAULT_STRATEGY;
    if (cli_check_target(k, &strategy, 1, err)) return err->code;
    /* the schedule is read first: its "concat" decides the layers it lists
     * (--concat overrides it, and the layer count then tells if they differ) */
    sched s;
    memset(&s, 0, sizeof s);
    s.concat = -1;
    if (k->schedule && sched_load_file(k->schedule, &s, err)) return err->code;
    passes_opts po = {0};
    po.concat = k->concat ? k->concat == 1 : s.concat > 0;
    /* --concat auto, and `best` without --concat or a schedule: measured */
    int cores = cli_threads(k);
    if (k->concat == CLI_CONCAT_AUTO ||
        (!k->concat && !k->schedule && !strncmp(strategy, "best", 4))) {
        if (cli_concat_auto(g, k, &po.concat, err)) {
            sched_free(&s);
            return err->code;
        }
    }
    passes_stats ps;
    if (passes_run_stats(g, &po, &ps, err)) {
        sched_free(&s);
        return err->code;
    }
    *m = ir_model_lower(g);
    (*m)->concat = po.concat;
    (*m)->concat_groups = ps.concat_groups;
    (*m)->concat_layers = ps.concat_layers;
    opt_knobs ok;
    cli_opt_knobs(k, &ok);
    if (k->schedule) {
        pz_status st = sched_apply(&s, *m, cores, err);
        sched_free(&s);
        if (st) return st;
    } else if (opt_knobs_strategy(&ok, *m, cores, err)) {
        return err->code;
    }
    return opt_knobs_finish(&ok, *m, err);
}

/* The one rule for the worker threads: --threads N, else every online core
 * (pz_cpu_count, the rule the runtime and the generated program follow). */
int cli_threads(const cli_knobs *k)
{
    return k->threads ? k->threads : pz_cpu_count();
}

/* Which blocks of the plan run on all the program's worker threads (MP ALL
 * in the generated C, see emit_c.c) rather than on a fixed number:
 * - no schedule file and no strategy, or a strategy that puts every block on
 *   all the cores (fixed-mp without :N, fuse-all, fusion-fixed-mp): every
 *   block;
 * - another strategy: the blocks it put on all the build's cores, when those
 *   are more than one (none, fixed-mp:N, or a strategy at one core keep
 *   their numbers);
 * - a schedule file: none (its MPs stay as written).
 * A fixed MP above the threads a program runs with is clamped to them. */
void cli_mark_mp_all(const cli_knobs *k, gen_plan *p)
{
    if (k->schedule) return;
    const char *s = k->strategy ? k->strategy : CLI_DEFAULT_STRATEGY;
    int all = !strcmp(s, "fixed-mp") || !strcmp(s, "fuse-all") || !strcmp(s, "fusion-fixed-mp");
    int cores = cli_threads(k);
    for (int i = 0; i < p->n_b; i++)
        p->b[i].mp_all = all || (cores > 1 && p->b[i].mp == cores);
}

/* Strategy names and the precision: checked where they are given. */
int cli_check_strategy_name(const char *spec)
{
    size_t nl = strcspn(spec, ":");
    for (int i = 0; i < OPT_N_STRATEGIES; i++)
        if (strlen(OPT_STRATEGIES[i]) == nl && !strncmp(spec, OPT_STRATEGIES[i], nl)) return 0;
    if (nl == 6 && !strncmp(spec, "plugin", 6)) return 0;
    char list[512];
    size_t n = 0;
    list[0] = 0;
    for (int i = 0; i < OPT_N_STRATEGIES && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s, ", OPT_STRATEGIES[i]);
    return cli_usage("--strategy %s: unknown strategy (known: %splugin:PATH.so[:ARGS])", spec, list);
}

int cli_check_precision(const char *p)
{
    if (!strcmp(p, "fp32") || !strcmp(p, "bf16") || !strcmp(p, "int8") ||
        !strcmp(p, "int8-dynamic"))
        return 0;
    return cli_usage("--precision %s: unknown precision (known: fp32, bf16, int8, int8-dynamic)", p);
}

int cli_check_weights(const char *w)
{
    if (!strcmp(w, "fp32") || !strcmp(w, "fp16")) return 0;
    return cli_usage("--weights %s: unknown weight storage (known: fp32, fp16)", w);
}

int cli_check_sparsity(const char *s, float *r)
{
    char *end;
    double v = !strcmp(s, "auto") ? IR_SPARSITY_AUTO : strtod(s, &end);
    if (strcmp(s, "auto") && (end == s || *end || !(v >= 0 && v < 1)))
        return cli_usage("--sparsity %s: expected a ratio from 0 to 1 (1 excluded: the fraction "
                         "of weight blocks pruned) or auto (the model's own zero blocks)", s);
    *r = (float)v;
    return 0;
}

int cli_knobs_check(const cli_knobs *k, const char *cmd, unsigned takes, const char *why)
{
    struct {
        unsigned flag;
        int given;
        const char *name;
    } knobs[] = {
        {CLI_K_SHAPE, k->n_shapes > 0, "--input-shape"}, {CLI_K_SHAPE, k->batch > 0, "--batch"},
        {CLI_K_THREADS, k->threads > 0, "--threads"}, {CLI_K_STRATEGY, k->strategy != NULL, "--strategy"},
        {CLI_K_SCHEDULE, k->schedule != NULL, "--schedule"},
        {CLI_K_CONCAT, k->concat != 0, "--concat"},
        {CLI_K_PRECISION, k->precision != NULL, "--precision"},
        {CLI_K_PRECISION, k->weights != NULL, "--weights"},
        {CLI_K_TARGET, k->target != NULL, "--target"},
        {CLI_K_SPARSITY, k->sparsity != NULL, "--sparsity"},
    };
    /* --calibrate and --accuracy-budget go with --precision int8, which
     * quantizes first */
    int int8 = (takes & CLI_K_PRECISION) && k->precision && !strcmp(k->precision, "int8");
    if (k->n_calib && !(takes & CLI_K_CALIB) && !int8)
        return cli_usage("%s: --calibrate does nothing here: it calibrates the quantization "
                         "--precision int8 makes", cmd);
    if (k->accuracy_budget && !(takes & CLI_K_CALIB) && !int8)
        return cli_usage("%s: --accuracy-budget does nothing here: it chooses the layers "
                         "--precision int8 (or quantize) leaves in fp32", cmd);
    for (size_t i = 0; i < PZ_ARRAY_LEN(knobs); i++)
        if (knobs[i].given && !(takes & knobs[i].flag))
            return cli_usage("%s: %s does nothing here%s%s", cmd, knobs[i].name, why ? ": " : "",
                             why ? why : "");
    return 0;
}

int cli_max_shape_arg(const char *v, cli_knobs *k)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || (size_t)(eq - v) >= sizeof k->max_names[0])
        return cli_usage("--max-shape wants NAME=VALUE, NAME a symbolic dim of an input (got \"%s\")", v);
    char *end;
    long long x = strtoll(eq + 1, &end, 10);
    if (!eq[1] || *end || x < 1 || x > (1ll << 30))
        return cli_usage("--max-shape %s: the bound must be a positive integer (1 to 2^30)", v);
    if (k->n_max == GEN_MAX_OPEN)
        return cli_usage("--max-shape %s: at most %d open dims", v, GEN_MAX_OPEN);
    char *name = k->max_names[k->n_max];
    memcpy(name, v, (size_t)(eq - v));
    name[eq - v] = 0;
    for (int i = 0; i < k->n_max; i++)
        if (!strcmp(k->max_shapes[i].name, name))
            return cli_usage("--max-shape %s: \"%s\" is given twice", v, name);
    k->max_shapes[k->n_max] = (onnx_dim_binding){name, x, 1};
    k->n_max++;
    return 0;
}

void cli_knobs_at(const cli_knobs *k, const int64_t *v, cli_knobs *out)
{
    *out = *k;
    for (int i = 0; i < k->n_max; i++) {
        out->max_shapes[i].name = k->max_names[i];
        out->max_shapes[i].value = v[i];
        out->max_shapes[i].bound = 0;
    }
    out->max_seen = NULL;
}

pz_status cli_check_max_shape(const char *path, const cli_knobs *k, pz_err *err)
{
    if (!k->n_max) return PZ_OK;
    const onnx_dim_binding *b = k->max_shapes;
    if (k->batch)
        return pz_fail(err, PZ_ERR_INPUT, "--max-shape %s=%lld with --batch %lld: give one or "
                       "the other", b[0].name, (long long)b[0].value, (long long)k->batch);
    /* an --input-shape could fix the very dim left open: the program would
     * be static there while its header says open */
    if (k->n_shapes)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "--max-shape %s=%lld with --input-shape %s=...: "
                       "not supported together (the open dims come from the run's inputs)",
                       b[0].name, (long long)b[0].value, k->shapes[0].name);
    /* at 1 everywhere (the names counted), then each dim at 2 */
    for (int j = -1; j < k->n_max; j++) {
        int64_t v[GEN_MAX_OPEN];
        int seen[GEN_MAX_OPEN] = {0};
        for (int i = 0; i < k->n_max; i++) v[i] = i == j ? 2 : 1;
        cli_knobs kv;
        cli_knobs_at(k, v, &kv);
        kv.max_seen = seen;
        ir_graph *g = NULL;
        pz_err e = {0};
        pz_status s = cli_load(path, &kv, NULL, 0, &g, &e);
        ir_graph_free(g);
        for (int i = 0; j < 0 && i < k->n_max; i++)
            if (!seen[i])
                return pz_fail(err, PZ_ERR_INPUT, "--max-shape %s=%lld: no input of the model "
                               "has a dim named \"%s\" (the dim_param of a symbolic dim)",
                               b[i].name, (long long)b[i].value, b[i].name);
        if (s && j < 0) {
            *err = e;
            return s;
        }
        if (s)
            return pz_fail(err, PZ_ERR_INPUT, "--max-shape %s=%lld: the model does not let "
                           "\"%s\" vary: at %s=2: %.600s", b[j].name, (long long)b[j].value,
                           b[j].name, b[j].name, e.msg);
    }
    return PZ_OK;
}
