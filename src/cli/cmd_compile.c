/* cmd_compile.c - `paleozoic compile MODEL -o DIR` (the generated program's
 * sources), `paleozoic build MODEL -o EXE` (compiled with $CC) and
 * `paleozoic build MODEL --lib -o DIR` (libNAME.a, libNAME.so, NAME.h).
 *
 * Both load and lower the model exactly as `run` does (cli_load, cli_lower),
 * make the plan that net_build.c also follows, and print it as C. Every
 * file is written under a temporary name and renamed: on failure nothing is
 * left behind. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/progress.h"
#include "../gen/emit.h"
#include "cli.h"

#define MAX_SHAPE_FILES 64

typedef struct {
    const char *model, *out, *name;
    const char *shape_files[MAX_SHAPE_FILES];   /* --input X.pb: binds input shapes by position */
    int n_shape_files;
    int raw, loc, build;
    int lib, embed;                             /* build --lib, --embed-weights */
    cli_knobs k;
} opts;

/* "paleozoic ARGS..." with shell quoting where needed, for the header. */
static void command_line(gen_text *t, const char *cmd, int argc, char **argv)
{
    gt_printf(t, "paleozoic %s", cmd);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int plain = *a != 0;
        for (const char *c = a; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("-_./=,:+", *c)) plain = 0;
        if (plain) gt_printf(t, " %s", a);
        else {
            gt_puts(t, " '");
            for (const char *c = a; *c; c++) gt_puts(t, *c == '\'' ? "'\\''" : (char[]){*c, 0});
            gt_puts(t, "'");
        }
    }
}

static void shell_quote(gen_text *t, const char *s)
{
    gt_puts(t, "'");
    for (const char *c = s; *c; c++) gt_puts(t, *c == '\'' ? "'\\''" : (char[]){*c, 0});
    gt_puts(t, "'");
}

/* The C name: --name, or the model file's base name, as an identifier;
 * for a program (not --lib) also none of the names its main.c declares
 * (main_template.h), which would shadow or clash with the model's type. */
static void c_name(char *dst, size_t n, const char *given, const char *model, int program)
{
    const char *base = given;
    if (!base) {
        base = strrchr(model, '/');
        base = base ? base + 1 : model;
    }
    size_t k = 0;
    if (!isalpha((unsigned char)*base) && *base != '_' && n > 2) dst[k++] = 'm', dst[k++] = '_';
    for (const char *c = base; *c && k + 1 < n; c++) {
        if (!given && !strcmp(c, ".onnx")) break;
        dst[k++] = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '_';
    }
    dst[k] = 0;
    if (!k) snprintf(dst, n, "model");
    /* the name becomes a type and a prefix: it must not be a keyword or main */
    static const char *const RESERVED[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
        "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
        "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
        "typedef", "union", "unsigned", "void", "volatile", "while", "main"};
    static const char *const MAIN_NAMES[] = {
        "a", "argc", "argv", "b", "best", "c", "calloc", "clock_gettime", "cmp_double", "cos",
        "count", "d", "data", "die", "dims", "dtype", "end", "err", "file_of", "first", "fmt",
        "fprintf", "free", "h", "i", "in_data", "in_t", "inner", "inputs", "int64_t", "io",
        "io_bytes", "j", "k", "kind", "len", "log", "malloc", "max", "memset", "msg", "n", "n_in",
        "n_out", "name", "nbytes", "net", "now_ms", "o0", "open_v", "opt", "opts", "out",
        "out_data", "outputs", "path", "positive", "prev", "print_top", "printf", "profile",
        "qsort", "r", "rank", "rc", "readlink", "repeat", "row", "s", "seed", "shape_str",
        "size_t", "snprintf", "sqrt", "ssize_t", "stderr", "stdout", "strcmp", "strtol",
        "synth_input", "t", "t0", "threads", "time", "timespec", "top", "trace", "ts", "u",
        "uint64_t", "v", "val", "value", "value_str", "want", "weights", "x", "y", "z"};
    int clash = 0;
    for (size_t i = 0; i < PZ_ARRAY_LEN(RESERVED); i++) clash |= !strcmp(dst, RESERVED[i]);
    for (size_t i = 0; program && i < PZ_ARRAY_LEN(MAIN_NAMES); i++)
        clash |= !strcmp(dst, MAIN_NAMES[i]);
    if (clash && strlen(dst) + 5 < n) strcat(dst, "_net");
}

/* The directory with include/ and the runtime libraries: the build
 * directory of this paleozoic binary (mk/codegen.mk puts them there), or,
 * installed in PREFIX/bin, PREFIX/lib/paleozoic (mk/install.mk). */
static int sdk_dir(char *dst, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", dst, n - 1);
    if (len <= 0) return 1;
    dst[len] = 0;
    char *slash = strrchr(dst, '/');
    if (!slash) return 1;
    *slash = 0;
    char probe[PATH_MAX + 64];
    snprintf(probe, sizeof probe, "%s/include/pz_rt.h", dst);
    if (access(probe, R_OK) == 0) return 0;
    snprintf(probe, sizeof probe, "%s/../lib/paleozoic/include/pz_rt.h", dst);
    if (access(probe, R_OK) == 0 && strlen(dst) + 20 < n) strcat(dst, "/../lib/paleozoic");
    return 0;
}

/* Link flags of the SDK's file `name`, one line: BUILD/sdk.flags (what the
 * runtime was built with: sanitizers), BUILD/image.flags (the image
 * libraries libpzimage.a needs). "" when absent. */
static void sdk_flags(const char *sdk, const char *name, char *dst, size_t n)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", sdk, name);
    dst[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(dst, (int)n, f)) dst[0] = 0;
    fclose(f);
    dst[strcspn(dst, "\n")] = 0;
}

static pz_status write_file(const char *dir, const char *name, const gen_text *t, pz_err *err)
{
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "cannot write %s: %s", path, strerror(errno));
    if (t->n) fwrite(t->s, 1, t->n, f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) return pz_fail(err, PZ_ERR_INPUT, "cannot write %s: %s", path, strerror(errno));
    return PZ_OK;
}

static const char *const FILES[] = {"%s.c", "%s.h", "main.c", "Makefile", "%s.weights", "%s",
                                    "%s.o", "%s_weights.S", "%s_weights.o", "%s.map", "lib%s.a",
                                    "lib%s.so", "%s.onnx", "%s_model.S", "%s_model.o"};

/* Copies the file src to dir/name (the model, for gen_opts.replan). */
static pz_status copy_file(const char *src, const char *dir, const char *name, pz_err *err)
{
    char path[PATH_MAX + 300], buf[1 << 16];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *in = fopen(src, "rb"), *out = in ? fopen(path, "wb") : NULL;
    size_t n;
    int bad = !in || !out;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
    bad |= in && ferror(in);
    if (in) fclose(in);
    if (out) bad |= fclose(out) != 0;
    return bad ? pz_fail(err, PZ_ERR_INPUT, "cannot copy %s to %s: %s", src, path, strerror(errno))
               : PZ_OK;
}

/* Removes the files this command writes into dir, then dir. */
static void remove_dir(const char *dir, const char *name)
{
    for (size_t i = 0; i < PZ_ARRAY_LEN(FILES); i++) {
        char f[300], path[PATH_MAX + 300];
        snprintf(f, sizeof f, FILES[i], name);
        snprintf(path, sizeof path, "%s/%s", dir, f);
        unlink(path);
    }
    rmdir(dir);
}

/* A temporary directory beside `target` (same file system: rename works). */
static pz_status temp_dir(const char *target, char *dst, size_t n, pz_err *err)
{
    const char *slash = strrchr(target, '/');
    int dl = slash ? (int)(slash - target) : 1;
    snprintf(dst, n, "%.*s/.paleozoic-XXXXXX", dl ? dl : 1, slash ? (dl ? target : "/") : ".");
    if (!mkdtemp(dst))
        return pz_fail(err, PZ_ERR_INPUT, "cannot create a temporary directory beside %s: %s",
                       target, strerror(errno));
    return PZ_OK;
}

static pz_status move(const char *tmp, const char *f, const char *dst, pz_err *err)
{
    char src[PATH_MAX + 300];
    snprintf(src, sizeof src, "%s/%s", tmp, f);
    if (rename(src, dst))
        return pz_fail(err, PZ_ERR_INPUT, "cannot write %s: %s", dst, strerror(errno));
    return PZ_OK;
}

static int parse(int argc, char **argv, opts *o, const char *cmd)
{
    for (int i = 1; i < argc; i++) {
        int r = cli_knob(argc, argv, &i, &o->k);
        if (r < 0) return 2;
        if (r) continue;
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--emit") || !strcmp(a, "--name")) && i + 1 >= argc)
            return cli_usage("%s: %s needs a value", cmd, a);
        if ((!strcmp(a, "--input") || !strcmp(a, "--max-shape")) && i + 1 >= argc)
            return cli_usage("%s: %s needs a value", cmd, a);
        if (!strcmp(a, "-o")) o->out = argv[++i];
        else if (!strcmp(a, "--max-shape")) {
            if (cli_max_shape_arg(argv[++i], &o->k)) return 2;
        }
        else if (!strcmp(a, "--input")) {
            if (o->n_shape_files == MAX_SHAPE_FILES) return cli_usage("%s: too many --input files", cmd);
            o->shape_files[o->n_shape_files++] = argv[++i];
        }
        else if (!strcmp(a, "--name")) o->name = argv[++i];
        else if (!strcmp(a, "--emit")) {
            const char *v = argv[++i];
            if (!strcmp(v, "raw")) o->raw = 1;
            else if (!strcmp(v, "default") || !strcmp(v, "c")) o->raw = 0;
            else return cli_usage("%s: --emit wants raw or default, not \"%s\"", cmd, v);
        } else if (!strcmp(a, "--loc") && !o->build) o->loc = 1;
        else if (!strcmp(a, "--lib") && o->build) o->lib = 1;
        else if (!strcmp(a, "--embed-weights") && o->build) o->embed = 1;
        else if (a[0] == '-') return cli_usage("%s: unknown option %s", cmd, a);
        else if (!o->model) o->model = a;
        else return cli_usage("%s: one model at a time", cmd);
    }
    if (!o->model || (!o->out && !o->loc))
        return cli_usage(o->build ? "usage: paleozoic build MODEL.onnx -o EXE [--emit raw] [--embed-weights] [--input X.pb]... [knobs]\n"
                                    "       paleozoic build MODEL.onnx --lib -o DIR [--name NAME] [--emit raw] [--embed-weights] [--input X.pb]... [knobs]"
                                  : "usage: paleozoic compile MODEL.onnx -o DIR [--emit raw] [--loc] [--input X.pb]... [knobs]");
    return 0;
}

/* --max-shape: the values of the open dims the model is planned at (at[],
 * gen_open_fit's order: the 2^n corners at 1 and 2, then each dim alone at
 * its bound, then (n > 1) all at their bounds; a bound under 3 is checked
 * at 3). Returns how many. */
static int open_values(const cli_knobs *k, int64_t (*at)[GEN_MAX_OPEN])
{
    int n = k->n_max, c = 0;
    int64_t b[GEN_MAX_OPEN];
    for (int i = 0; i < n; i++) b[i] = k->max_shapes[i].value < 3 ? 3 : k->max_shapes[i].value;
    for (int mask = 0; mask < 1 << n; mask++, c++)
        for (int i = 0; i < n; i++) at[c][i] = mask >> i & 1 ? 2 : 1;
    for (int j = 0; j < n && n > 1; j++, c++)
        for (int i = 0; i < n; i++) at[c][i] = i == j ? b[i] : 1;
    for (int i = 0; i < n; i++) at[c][i] = b[i];   /* last: the plan that is printed */
    return c + 1;
}

/* The plans at the other values of the open dims, and their fit (open.c):
 * p, made at at[n_s - 1], receives its gen_open. */
static pz_status plan_open(const opts *o, int64_t (*at)[GEN_MAX_OPEN], int n_s, gen_plan *p,
                           pz_err *err)
{
    ir_graph *g[(1 << GEN_MAX_OPEN) + GEN_MAX_OPEN + 1] = {0};
    ir_model *m[PZ_ARRAY_LEN(g)] = {0};
    gen_plan ps[PZ_ARRAY_LEN(g)], *s[PZ_ARRAY_LEN(g)];
    const char *names[GEN_MAX_OPEN];
    int64_t max[GEN_MAX_OPEN];
    memset(ps, 0, sizeof ps);
    pz_status st = PZ_OK;
    for (int i = 0; i < o->k.n_max; i++) names[i] = o->k.max_names[i], max[i] = o->k.max_shapes[i].value;
    for (int i = 0; i + 1 < n_s && !st; i++) {
        cli_knobs kv;
        cli_knobs_at(&o->k, at[i], &kv);
        st = cli_load(o->model, &kv, NULL, 0, &g[i], err) || cli_lower(g[i], &kv, &m[i], err) ||
             gen_plan_make(m[i], &ps[i], err);
        s[i] = &ps[i];
    }
    s[n_s - 1] = p;
    if (!st) st = gen_open_fit(s, (const int64_t (*)[GEN_MAX_OPEN])at, n_s, o->k.n_max, names, max, err);
    for (int i = 0; i + 1 < n_s; i++) {
        gen_plan_free(&ps[i]);
        ir_model_free(m[i]);
        ir_graph_free(g[i]);
    }
    return st ? err->code : PZ_OK;
}

static int run(int argc, char **argv, int build)
{
    const char *cmd = build ? "build" : "compile";
    opts o;
    memset(&o, 0, sizeof o);
    o.build = build;
    int rc = parse(argc, argv, &o, cmd);
    if (rc) return rc;

    int prog = 0;   /* a progress line is up */
    pz_err err = {0};
    ir_graph *g = NULL;
    ir_model *m = NULL;
    gen_plan p = {0};
    gen_text cmdline = {0}, src = {0}, raw = {0}, hdr = {0}, mainc = {0}, mk = {0}, cc = {0};
    char name[128], sdk[PATH_MAX], ldextra[512], tmp[PATH_MAX + 64] = "";
    int made_dir = 0;
    ir_tensor shape_t[MAX_SHAPE_FILES];
    memset(shape_t, 0, sizeof shape_t);
    c_name(name, sizeof name, o.name, o.model, !o.lib);
    /* a library's files and symbols are named as asked, or not at all */
    if (o.lib && o.name && strcmp(name, o.name)) {
        gt_free(&cmdline);
        return cli_usage("build --lib: --name \"%s\" is not a C identifier (letters, digits, _, "
                         "not starting with a digit, not a C keyword or main)", o.name);
    }
    if (sdk_dir(sdk, sizeof sdk)) {
        pz_fail(&err, PZ_ERR_INTERNAL, "cannot find this program's directory (/proc/self/exe)");
        goto fail;
    }
    sdk_flags(sdk, "sdk.flags", ldextra, sizeof ldextra);
    command_line(&cmdline, cmd, argc, argv);
    /* four steps: load, lower and plan, write, the C compiler (build only) */
    pz_progress_begin(build ? "build" : "compile", build ? 4 : 3);
    prog = 1;
    pz_progress_detail("loading the model");
    /* a program plans another sequence length from the model linked in,
     * the float one: a model quantized at build time would not be it */
    int kinds[64], n_kinds = o.k.precision && !strcmp(o.k.precision, "int8")
                                 ? onnx_input_kinds(o.model, kinds, 64) : 0;
    for (int i = 0; i < n_kinds; i++)
        if (kinds[i] == 1) {
            pz_fail(&err, PZ_ERR_UNSUPPORTED, "--precision int8: input %d of the model is a "
                    "sequence, whose other lengths the program plans at run time from the float "
                    "model; give --precision int8-dynamic", i);
            goto fail;
        }
    /* a sequence or optional input's file fixes its length (op_seq.h) */
    int given_len[MAX_SHAPE_FILES], file_of[MAX_SHAPE_FILES], n_t = 0, containers = 0;
    if (cli_read_inputs(o.model, o.shape_files, o.n_shape_files, shape_t, MAX_SHAPE_FILES, &n_t,
                        given_len, file_of, &containers, &err))
        goto fail;
    /* --max-shape: planned at several values of the open dims (open_values) */
    cli_knobs kl = o.k;
    int64_t open_at[(1 << GEN_MAX_OPEN) + GEN_MAX_OPEN + 1][GEN_MAX_OPEN];
    int n_at = 0;
    if (o.k.n_max) {
        if (o.raw || o.n_shape_files) {
            pz_fail(&err, PZ_ERR_INPUT, "--max-shape %s=%lld: not with %s (%s)", o.k.max_names[0],
                    (long long)o.k.max_shapes[0].value, o.raw ? "--emit raw" : "--input",
                    o.raw ? "the low-level API's program is planned at one shape"
                          : "the program takes its shapes from its own --input files");
            goto fail;
        }
        if (cli_check_max_shape(o.model, &o.k, &err)) goto fail;
        n_at = open_values(&o.k, open_at);
        cli_knobs_at(&o.k, open_at[n_at - 1], &kl);
    }
    if (cli_load_given(o.model, &kl, shape_t, n_t, containers ? given_len : NULL,
                       o.n_shape_files, &g, &err))
        goto fail;
    pz_progress_detail("lowering and planning");
    pz_progress_step(1);
    /* --input X.pb binds shapes by position: one file per input at most, of its type */
    if (n_t > g->n_model_inputs) {
        pz_fail(&err, PZ_ERR_INPUT, "--input %s: the model has %d inputs, %d --input files were "
                "given", o.shape_files[file_of[g->n_model_inputs]], g->n_model_inputs,
                o.n_shape_files);
        goto fail;
    }
    for (int i = 0; i < g->n_inputs; i++) {
        const ir_value *v = &g->values[g->inputs[i]];
        int at = g->input_pos[i];
        if (at < n_t && shape_t[at].dtype != v->t.dtype) {
            pz_fail(&err, PZ_ERR_INPUT, "--input %s: the tensor is %s, input \"%s\" wants %s",
                    o.shape_files[file_of[at]], ir_dtype_name(shape_t[at].dtype), v->name,
                    ir_dtype_name(v->t.dtype));
            goto fail;
        }
    }
    /* a file whose input is no longer an input was bound: its value shapes the graph */
    int bound = 0;
    for (int f = 0; f < o.n_shape_files; f++) {
        /* an empty sequence or optional has no tensor to bind */
        int runtime = containers && (given_len[f] == -2 || given_len[f] == 0);
        for (int i = 0; i < g->n_inputs; i++)
            runtime |= g->input_pos[i] < n_t && file_of[g->input_pos[i]] == f;
        bound |= !runtime;
        if (!runtime)
            pz_progress_note("paleozoic: --input %s: its value is built into the program (a "
                    "shape, axes or bound needs it); the program does not take this input\n",
                    o.shape_files[f]);
    }
    if (cli_lower(g, &kl, &m, &err) || gen_plan_make(m, &p, &err) ||
        gen_plan_check_program(&p, &err))
        goto fail;
    if (n_at && plan_open(&o, open_at, n_at, &p, &err)) goto fail;
    pz_progress_detail("writing the C source and the weights");
    pz_progress_step(1);
    cli_mark_mp_all(&o.k, &p);
    /* the low-level API (pz_raw.h) runs each operator alone, in fp32 */
    for (int i = 0; o.raw && i < p.n_b; i++)
        if (p.b[i].weights != IR_WEIGHTS_FP32) {
            pz_fail(&err, PZ_ERR_UNSUPPORTED, "--emit raw: --weights %s (block %d) is not "
                    "supported by the low-level API, which keeps fp32 weights; emit the "
                    "default C", ir_weights_name(p.b[i].weights), i);
            goto fail;
        } else if (p.b[i].precision != IR_PREC_FP32) {
            pz_fail(&err, PZ_ERR_UNSUPPORTED, "--emit raw: precision %s (block %d) is not "
                    "supported by the low-level API, which runs fp32; emit the default C",
                    ir_precision_name(p.b[i].precision), i);
            goto fail;
        }
    for (int i = 0; o.raw && i < p.n_model_layers; i++)
        if (p.l[i].prec >= 0 && p.l[i].prec != PZ_PREC_FP32) {
            pz_fail(&err, PZ_ERR_UNSUPPORTED, "--emit raw: layer %d \"%s\" has precision %s "
                    "(schedule key \"layer_precision\"): the low-level API runs fp32; emit the "
                    "default C", i, p.l[i].name, ir_precision_name(m->layers[i].precision));
            goto fail;
        }
    /* the raw form has no net to ask a run-time shape of */
    for (int i = 0; o.raw && i < g->n_outputs; i++)
        if (g->values[g->outputs[i]].dyn) {
            pz_fail(&err, PZ_ERR_UNSUPPORTED, "--emit raw: output \"%s\" has a run-time shape, "
                    "which the low-level API does not report; emit the default C",
                    g->values[g->outputs[i]].name);
            goto fail;
        }
    /* the program's default threads: the --threads of the build, else (0)
     * every online core of the machine it runs on */
    gen_opts go = {name, o.model, cmdline.s, o.k.threads, o.raw, o.embed, sdk, ldextra,
                   p.open ? p.open->n : 0, NULL, 0, NULL, o.lib};
    /* an executable or library of a model with a sequence input plans another
     * length at run time (main.c, NAME_run_values; not when an input was
     * bound: the program does not take it) */
    gen_value *iv;
    for (int i = 0, n = gen_io_values(&p, 0, &iv); i < n; i++)
        go.replan |= !bound && iv[i].kind == IR_KIND_SEQ;
    free(iv);
    /* the replanned net takes the build's knobs (opt_knobs, in NAME.h) */
    char knobs[2048];
    if (go.replan) {
        opt_knobs ok;
        cli_opt_knobs(&o.k, &ok);
        ok.concat = m->concat;
        ok.schedule = o.k.schedule;
        /* the program may run in another directory: the profile by its full path */
        char target[PATH_MAX];
        if (ok.target && realpath(ok.target, target)) ok.target = target;
        if (opt_knobs_format(&ok, knobs, sizeof knobs) >= (int)sizeof knobs) {
            pz_fail(&err, PZ_ERR_INPUT, "the knobs are too long for the program (%zu bytes at "
                    "most): %.200s", sizeof knobs - 1, knobs);
            goto fail;
        }
        go.knobs = knobs;
    }
    /* the image decoders and their libraries only for a model that decodes */
    char ldimage[512];
    if (gen_plan_has_kind(&p, PZ_OP_IMAGE_DECODER)) {
        sdk_flags(sdk, "image.flags", ldimage, sizeof ldimage);
        go.ldimage = ldimage;
    }
    if (o.loc || !o.raw) gen_emit_c(&src, &p, &go);
    if (o.loc || o.raw) gen_emit_raw(&raw, &p, &go);
    if (o.loc) {
        int dt, dc, rt, rcode;
        gen_count_lines(src.s, &dt, &dc);
        gen_count_lines(raw.s, &rt, &rcode);
        printf("%s: default %d lines of code (%d non-blank), raw %d lines of code (%d non-blank): "
               "default/raw %.1f%%\n", name, dc, dt, rcode, rt, rcode ? 100.0 * dc / rcode : 0.0);
        if (!o.out) goto done;
    }
    gen_emit_header(&hdr, &p, &go);
    gen_emit_main(&mainc, &go);
    gen_emit_makefile(&mk, &go);

    /* every file into a temporary directory first */
    if (!build || o.lib) made_dir = mkdir(o.out, 0777) == 0;   /* may exist */
    if (build && !o.lib) {
        if (temp_dir(o.out, tmp, sizeof tmp, &err)) goto fail;
    } else {
        char inside[PATH_MAX + 8];
        snprintf(inside, sizeof inside, "%s/x", o.out);
        if (temp_dir(inside, tmp, sizeof tmp, &err)) goto fail;
    }
    char f[300];
    snprintf(f, sizeof f, "%s.c", name);
    if (write_file(tmp, f, o.raw ? &raw : &src, &err)) goto fail;
    snprintf(f, sizeof f, "%s.h", name);
    if (write_file(tmp, f, &hdr, &err) || write_file(tmp, "main.c", &mainc, &err) ||
        write_file(tmp, "Makefile", &mk, &err))
        goto fail;
    char wpath[PATH_MAX + 300];
    snprintf(wpath, sizeof wpath, "%s/%s.weights", tmp, name);
    if (gen_write_weights(&p, wpath, &err)) goto fail;
    if (go.replan) {
        gen_text s = {0};
        gen_emit_model_asm(&s, &go);
        snprintf(f, sizeof f, "%s_model.S", name);
        pz_status ms = write_file(tmp, f, &s, &err);
        gt_free(&s);
        snprintf(f, sizeof f, "%s.onnx", name);
        if (ms || copy_file(o.model, tmp, f, &err)) goto fail;
    }
    if (o.embed || o.lib) {
        gen_text extra = {0};
        snprintf(f, sizeof f, o.embed ? "%s_weights.S" : "%s.map", name);
        if (o.embed) gen_emit_weights_asm(&extra, &go);
        else gen_emit_version_script(&extra, &go);
        pz_status ws = write_file(tmp, f, &extra, &err);
        gt_free(&extra);
        if (ws) goto fail;
        if (o.embed && o.lib) {
            gen_emit_version_script(&extra, &go);
            snprintf(f, sizeof f, "%s.map", name);
            ws = write_file(tmp, f, &extra, &err);
            gt_free(&extra);
            if (ws) goto fail;
        }
    }

    if (build) {
        const char *ccs = getenv("CC"), *cflags = getenv("CFLAGS");
        /* shell-quoted paths: the sdk, the output, and the source dir as a
         * prefix ('TMP/'NAME.c: the name is an identifier, safe unquoted) */
        gen_text qsdk = {0}, qexe = {0}, qdir = {0};
        char exe[PATH_MAX + 300];
        snprintf(exe, sizeof exe, "%s/%s", tmp, name);
        shell_quote(&qsdk, sdk);
        shell_quote(&qexe, exe);
        shell_quote(&qdir, tmp);
        qdir.s[--qdir.n] = 0;   /* drop the closing quote */
        gt_puts(&qdir, "/'");
        gen_opts bo = go;
        bo.sdk = qsdk.s;
        if (o.lib)
            gen_lib_command(&cc, &bo, ccs && *ccs ? ccs : "cc", cflags ? cflags : "-O2 -march=native",
                            qdir.s);
        else
            gen_cc_command(&cc, &bo, ccs && *ccs ? ccs : "cc",
                           cflags ? cflags : "-O2 -march=native", qdir.s, qexe.s);
        gt_free(&qsdk);
        gt_free(&qexe);
        gt_free(&qdir);
        pz_progress_detail("the C compiler");
        pz_progress_step(1);
        int st = system(cc.s);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            pz_fail(&err, PZ_ERR_INTERNAL, "the C compiler failed (exit status %d): %s",
                    st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), cc.s);
            goto fail;
        }
        if (o.lib) {
            /* DIR/libNAME.a, libNAME.so, NAME.h and (unless linked in) NAME.weights */
            const char *files[] = {"lib%s.a", "lib%s.so", "%s.h", "%s.weights"};
            for (size_t i = 0; i < PZ_ARRAY_LEN(files) - (size_t)o.embed; i++) {
                char dst[PATH_MAX + 300];
                snprintf(f, sizeof f, files[i], name);
                snprintf(dst, sizeof dst, "%s/%s", o.out, f);
                if (move(tmp, f, dst, &err)) goto fail;
            }
            pz_progress_note("paleozoic: built %s/lib%s.so, %s/lib%s.a, %s/%s.h (weights: %s%s%s)\n",
                    o.out, name, o.out, name, o.out, name, o.embed ? "linked in" : o.out,
                    o.embed ? "" : "/", o.embed ? "" : strrchr(wpath, '/') + 1);
        } else {
            char wdst[PATH_MAX + 16];
            snprintf(wdst, sizeof wdst, "%s.weights", o.out);
            snprintf(f, sizeof f, "%s.weights", name);
            if ((!o.embed && move(tmp, f, wdst, &err)) || move(tmp, name, o.out, &err)) goto fail;
            pz_progress_note("paleozoic: built %s (weights: %s)\n", o.out,
                    o.embed ? "linked in" : wdst);
        }
    } else {
        const char *files[] = {"%s.c", "%s.h", "main.c", "Makefile", "%s.weights", "%s.onnx",
                               "%s_model.S"};
        for (size_t i = 0; i < PZ_ARRAY_LEN(files) - (go.replan ? 0 : 2); i++) {
            char dst[PATH_MAX + 300];
            snprintf(f, sizeof f, files[i], name);
            snprintf(dst, sizeof dst, "%s/%s", o.out, f);
            if (move(tmp, f, dst, &err)) goto fail;
        }
    }
    goto done;
fail:
    if (prog) pz_progress_end(), prog = 0;   /* the error goes on a line of its own */
    rc = cli_fail(&err);
    if (made_dir && tmp[0]) remove_dir(tmp, name), tmp[0] = 0;
    if (made_dir) rmdir(o.out);   /* the directory this command made, if still empty */
done:
    if (prog) pz_progress_end();
    if (tmp[0]) remove_dir(tmp, name);
    for (int i = 0; i < MAX_SHAPE_FILES; i++) ir_tensor_free_data(&shape_t[i]);
    gen_plan_free(&p);
    ir_model_free(m);
    ir_graph_free(g);
    gt_free(&cmdline);
    gt_free(&src);
    gt_free(&raw);
    gt_free(&hdr);
    gt_free(&mainc);
    gt_free(&mk);
    gt_free(&cc);
    return rc;
}

int cmd_compile(int argc, char **argv)
{
    return run(argc, argv, 0);
}

int cmd_build(int argc, char **argv)
{
    return run(argc, argv, 1);
}
