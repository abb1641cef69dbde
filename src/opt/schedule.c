/* schedule.c - schedule files (see schedule.h; the format is the README's
 * "Schedule files" section).
 *
 *   {
 *     "version": 1,
 *     "model": "resnet18",
 *     "layers": 49,
 *     "strategy": "dlfusion",
 *     "batch": 8,                (written when above 1: the --batch it was made at)
 *     "concat": false,          (the concatenation pass: the layers depend on it)
 *     "blocks": [
 *       {"first": 0, "count": 4, "first_node": "/conv1/Conv", "last_node": "/maxpool/MaxPool",
 *        "mp": 2, "split": "bands", "strip": 8, "precision": "fp32"},
 *       {..., "precision": "fp32", "weights": "fp16"},   (written when fp16)
 *       {..., "sparsity": {"12": 0.75, "13": "auto"}},  (layer: ratio; written when set)
 *       {..., "precision": "bf16", "layer_precision": {"/layer3/conv2/Conv": "fp32"}},
 *                                  (node name or layer number: its own precision)
 *       ...
 *     ]
 *   }
 */
#include "schedule.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "halo.h"
#include "../util/json.h"
#include "opt.h"
#include "opt_internal.h"

#define SCHED_VERSION 1
#define SCHED_MAX_BYTES (64u << 20)

static const char *const TOP_KEYS[] = {"version", "model", "layers", "strategy", "batch",
                                       "concat", "blocks"};
static const char *const BLOCK_KEYS[] = {"first", "count", "first_node", "last_node",
                                         "mp", "split", "strip", "precision", "weights",
                                         "winograd", "sparsity", "layer_precision"};

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const char *fname;
    pz_err *err;
    char ctx[160];   /* "block 2 (layers 3 to 5): " or "" */
} checker;

/* "FILE:LINE:COL: <ctx>key "k": <msg>" at value v. */
static pz_status bad(checker *c, const json_value *v, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static pz_status bad(checker *c, const json_value *v, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char k[200] = "";
    if (key) snprintf(k, sizeof k, "key \"%.150s\": ", key);
    return pz_fail(c->err, PZ_ERR_INPUT, "%s:%d:%d: %s%s%s", c->fname, v->line, v->col, c->ctx, k,
                   msg);
}

static const char *list_keys(const char *const *keys, size_t n, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", keys[i]);
    return buf;
}

/* Every key of obj is one of keys[n]. */
static pz_status known_keys(checker *c, const json_value *obj, const char *const *keys, size_t n)
{
    for (int i = 0; i < obj->n; i++) {
        const json_member *mb = &obj->members[i];
        int known = 0;
        for (size_t k = 0; k < n; k++) known |= !strcmp(mb->key, keys[k]);
        if (!known) {
            char list[200];
            json_value at = {.line = mb->line, .col = mb->col};
            return bad(c, &at, NULL, "unknown key \"%.100s\" (known: %s)", mb->key,
                       list_keys(keys, n, list, sizeof list));
        }
    }
    return PZ_OK;
}

/* An integer in [lo, hi]. */
static pz_status get_int(checker *c, const json_value *v, const char *key, int64_t lo, int64_t hi,
                         int *out)
{
    if (v->type != JSON_NUMBER) return bad(c, v, key, "expected an integer, found %s", json_type_name(v->type));
    if (!v->is_int && v->num == floor(v->num) && fabs(v->num) > 9e18)
        return bad(c, v, key, "%g is out of range (%lld to %lld)", v->num, (long long)lo, (long long)hi);
    if (!v->is_int) return bad(c, v, key, "expected an integer, found %g", v->num);
    if (v->i < lo || v->i > hi) {
        if (hi == INT_MAX) return bad(c, v, key, "%lld is out of range (at least %lld)", (long long)v->i, (long long)lo);
        return bad(c, v, key, "%lld is out of range (%lld to %lld)", (long long)v->i, (long long)lo,
                   (long long)hi);
    }
    *out = (int)v->i;
    return PZ_OK;
}

static pz_status get_str(checker *c, const json_value *v, const char *key, char **out)
{
    if (v->type != JSON_STRING) return bad(c, v, key, "expected a string, found %s", json_type_name(v->type));
    free(*out);
    *out = pz_xstrdup(v->str);
    return PZ_OK;
}

/* One of names[n] (by index). */
static pz_status get_enum(checker *c, const json_value *v, const char *key, const char *const *names,
                          size_t n, int *out)
{
    if (v->type != JSON_STRING) return bad(c, v, key, "expected a string, found %s", json_type_name(v->type));
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v->str, names[i])) {
            *out = (int)i;
            return PZ_OK;
        }
    char list[100];
    size_t k = 0;
    list[0] = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s\"%s\"", i ? ", " : "", names[i]);
    return bad(c, v, key, "\"%.100s\" is not one of %s", v->str, list);
}

/* "sparsity": {"LAYER": R in [0, 1) or "auto", ...}, layers of the block */
static pz_status parse_sparsity(checker *c, const json_value *v, sched_block *b)
{
    if (v->type != JSON_OBJECT)
        return bad(c, v, "sparsity", "expected an object of layer: ratio, found %s",
                   json_type_name(v->type));
    b->sp_layer = pz_xmalloc((size_t)(v->n ? v->n : 1) * sizeof(int));
    b->sp_ratio = pz_xmalloc((size_t)(v->n ? v->n : 1) * sizeof(float));
    for (int k = 0; k < v->n; k++) {
        const json_member *mb = &v->members[k];
        char *end;
        long l = strtol(mb->key, &end, 10);
        if (!mb->key[0] || *end || l < b->first || l > b->first + b->count - 1)
            return bad(c, &mb->value, "sparsity", "\"%.60s\" is not a layer of the block (%d to "
                       "%d)", mb->key, b->first, b->first + b->count - 1);
        const json_value *r = &mb->value;
        float ratio;
        if (r->type == JSON_STRING && !strcmp(r->str, "auto")) ratio = IR_SPARSITY_AUTO;
        else if (r->type == JSON_NUMBER && r->num >= 0 && r->num < 1) ratio = (float)r->num;
        else
            return bad(c, r, "sparsity", "layer %ld: expected a ratio from 0 to 1 (1 excluded) "
                       "or \"auto\"", l);
        b->sp_layer[b->n_sparsity] = (int)l;
        b->sp_ratio[b->n_sparsity++] = ratio;
    }
    return PZ_OK;
}

static const char *const precs[] = {"fp32", "bf16", "int8"};

/* "layer_precision": {"LAYER": "fp32" | "bf16" | "int8", ...}: the layers are
 * checked against the model (sched_layer_prec_check) */
static pz_status parse_layer_prec(checker *c, const json_value *v, sched_block *b)
{
    if (v->type != JSON_OBJECT)
        return bad(c, v, "layer_precision", "expected an object of layer: precision, found %s",
                   json_type_name(v->type));
    b->lp_key = pz_xcalloc((size_t)(v->n ? v->n : 1), sizeof *b->lp_key);
    b->lp_prec = pz_xmalloc((size_t)(v->n ? v->n : 1) * sizeof *b->lp_prec);
    for (int k = 0; k < v->n; k++) {
        int e;
        if (get_enum(c, &v->members[k].value, "layer_precision", precs, 3, &e)) return c->err->code;
        b->lp_key[k] = pz_xstrdup(v->members[k].key);
        b->lp_prec[b->n_lp++] = (ir_precision)e;
    }
    return PZ_OK;
}

static pz_status parse_block(checker *c, const json_value *bv, int index, sched_block *b)
{
    static const char *const splits[] = {"auto", "bands", "channels"};
    static const char *const weights[] = {"fp32", "fp16"};
    snprintf(c->ctx, sizeof c->ctx, "block %d: ", index);
    if (bv->type != JSON_OBJECT) return bad(c, bv, NULL, "expected an object, found %s", json_type_name(bv->type));
    b->line = bv->line;
    b->col = bv->col;
    /* first and count come first: the other messages name the layers */
    const char *req[] = {"first", "count", "mp"};
    for (int i = 0; i < 3; i++)
        if (!json_get(bv, req[i]))
            return bad(c, bv, NULL, "missing key \"%s\" (a block needs first, count and mp)", req[i]);
    if (get_int(c, json_get(bv, "first"), "first", 0, INT_MAX - 1, &b->first)) return c->err->code;
    if (get_int(c, json_get(bv, "count"), "count", 1, INT_MAX - b->first, &b->count)) return c->err->code;
    snprintf(c->ctx, sizeof c->ctx, "block %d (layers %d to %d): ", index, b->first,
             b->first + b->count - 1);
    if (known_keys(c, bv, BLOCK_KEYS, PZ_ARRAY_LEN(BLOCK_KEYS))) return c->err->code;
    if (get_int(c, json_get(bv, "mp"), "mp", 1, INT_MAX, &b->mp)) return c->err->code;
    const json_value *v;
    int e;
    if ((v = json_get(bv, "split"))) {
        if (get_enum(c, v, "split", splits, 3, &e)) return c->err->code;
        b->split = (ir_split)e;
    }
    if ((v = json_get(bv, "strip")) && get_int(c, v, "strip", 0, INT_MAX, &b->strip))
        return c->err->code;
    if ((v = json_get(bv, "precision"))) {
        if (get_enum(c, v, "precision", precs, 3, &e)) return c->err->code;
        b->precision = (ir_precision)e;
    }
    if ((v = json_get(bv, "weights"))) {
        if (get_enum(c, v, "weights", weights, 2, &e)) return c->err->code;
        b->weights = (ir_weights)e;
        if (b->weights == IR_WEIGHTS_FP16 && b->precision != IR_PREC_FP32)
            return bad(c, v, "weights", "\"fp16\" is for an fp32 block (a %s block stores its "
                       "weights in %s)", ir_precision_name(b->precision),
                       ir_precision_name(b->precision));
    }
    if ((v = json_get(bv, "winograd"))) {
        /* layer numbers inside the block, each once */
        if (v->type != JSON_ARRAY)
            return bad(c, v, "winograd", "expected an array of layer numbers, found %s",
                       json_type_name(v->type));
        b->winograd = pz_xmalloc((size_t)(v->n ? v->n : 1) * sizeof(int));
        b->n_winograd = 0;
        for (int k = 0; k < v->n; k++) {
            int l;
            if (get_int(c, &v->items[k], "winograd", b->first, b->first + b->count - 1, &l))
                return c->err->code;
            for (int j = 0; j < b->n_winograd; j++)
                if (b->winograd[j] == l)
                    return bad(c, &v->items[k], "winograd", "layer %d is listed twice", l);
            b->winograd[b->n_winograd++] = l;
        }
    }
    if ((v = json_get(bv, "sparsity")) && parse_sparsity(c, v, b)) return c->err->code;
    if ((v = json_get(bv, "layer_precision")) && parse_layer_prec(c, v, b)) return c->err->code;
    if ((v = json_get(bv, "first_node")) && get_str(c, v, "first_node", &b->first_node))
        return c->err->code;
    if ((v = json_get(bv, "last_node")) && get_str(c, v, "last_node", &b->last_node))
        return c->err->code;
    return PZ_OK;
}

static pz_status parse_root(checker *c, const json_value *root, sched *s)
{
    if (root->type != JSON_OBJECT)
        return bad(c, root, NULL, "a schedule is a JSON object, found %s", json_type_name(root->type));
    if (known_keys(c, root, TOP_KEYS, PZ_ARRAY_LEN(TOP_KEYS))) return c->err->code;
    const json_value *v;
    int version;
    if ((v = json_get(root, "version")) && get_int(c, v, "version", SCHED_VERSION, SCHED_VERSION, &version))
        return c->err->code;
    if ((v = json_get(root, "model")) && get_str(c, v, "model", &s->model)) return c->err->code;
    if ((v = json_get(root, "strategy")) && get_str(c, v, "strategy", &s->strategy)) return c->err->code;
    if ((v = json_get(root, "layers")) && get_int(c, v, "layers", 0, INT_MAX, &s->n_layers))
        return c->err->code;
    if ((v = json_get(root, "batch")) && get_int(c, v, "batch", 1, 1 << 20, &s->batch))
        return c->err->code;
    if ((v = json_get(root, "concat"))) {
        if (v->type != JSON_BOOL)
            return bad(c, v, "concat", "expected true or false, found %s", json_type_name(v->type));
        s->concat = v->b;
    }
    const json_value *bl = json_get(root, "blocks");
    if (!bl) return bad(c, root, NULL, "missing key \"blocks\" (the list of F-Blocks)");
    if (bl->type != JSON_ARRAY) return bad(c, bl, "blocks", "expected an array, found %s", json_type_name(bl->type));
    s->blocks = pz_xcalloc((size_t)(bl->n ? bl->n : 1), sizeof *s->blocks);
    int next = 0;   /* the first layer no earlier block has */
    for (int i = 0; i < bl->n; i++) {
        sched_block *b = &s->blocks[s->n_blocks++];
        b->mp = 1;
        b->n_winograd = -1;
        if (parse_block(c, &bl->items[i], i, b)) return c->err->code;
        /* consecutive blocks, in order: a partition of the layer sequence */
        if (b->first < next)
            return bad(c, &bl->items[i], NULL, "overlaps block %d (layers %d to %d): block %d "
                       "should start at layer %d", i - 1, s->blocks[i - 1].first, next - 1, i, next);
        if (b->first > next)
            return bad(c, &bl->items[i], NULL, "layers %d to %d are in no block (blocks are "
                       "listed in order and must follow each other)", next, b->first - 1);
        next = b->first + b->count;
        if (s->n_layers >= 0 && next > s->n_layers)
            return bad(c, &bl->items[i], NULL, "runs past the last layer (\"layers\": %d)", s->n_layers);
    }
    c->ctx[0] = 0;
    if (s->n_layers > 0 && next == 0)
        return bad(c, bl, "blocks", "no blocks, but \"layers\" is %d: every layer must be in a "
                   "block", s->n_layers);
    if (s->n_layers >= 0 && next < s->n_layers)
        return bad(c, bl, "blocks", "the blocks cover layers 0 to %d; layers %d to %d (of "
                   "\"layers\": %d) are in no block", next - 1, next, s->n_layers - 1, s->n_layers);
    return PZ_OK;
}

pz_status sched_parse(const char *text, size_t len, const char *fname, sched *out, pz_err *err)
{
    memset(out, 0, sizeof *out);
    out->n_layers = -1;
    out->concat = -1;
    if (!fname) fname = "<schedule>";
    json_value *root;
    if (json_parse(text, len, fname, &root, err)) return err->code;
    checker c = {fname, err, ""};
    pz_status st = parse_root(&c, root, out);
    json_free(root);
    if (st) {
        sched_free(out);
        return st;
    }
    out->fname = pz_xstrdup(fname);
    return PZ_OK;
}

pz_status sched_load_file(const char *path, sched *out, pz_err *err)
{
    memset(out, 0, sizeof *out);
    out->n_layers = -1;
    out->concat = -1;
    FILE *f = fopen(path, "rb");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "cannot open schedule %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return pz_fail(err, PZ_ERR_INPUT, "schedule %s is not a regular file", path);
    }
    if ((uint64_t)st.st_size > SCHED_MAX_BYTES) {
        fclose(f);
        return pz_fail(err, PZ_ERR_INPUT, "schedule %s is %lld bytes; a schedule file may have "
                       "at most %u", path, (long long)st.st_size, SCHED_MAX_BYTES);
    }
    size_t n = (size_t)st.st_size;
    char *text = pz_xmalloc(n + 1);
    size_t got = fread(text, 1, n, f);
    int failed = ferror(f);
    fclose(f);
    if (failed || got != n) {
        free(text);
        return pz_fail(err, PZ_ERR_INPUT, "cannot read schedule %s", path);
    }
    pz_status s = sched_parse(text, n, path, out, err);
    free(text);
    return s;
}

void sched_free(sched *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_blocks; i++) {
        free(s->blocks[i].first_node);
        free(s->blocks[i].last_node);
        free(s->blocks[i].winograd);
        free(s->blocks[i].sp_layer);
        free(s->blocks[i].sp_ratio);
        for (int k = 0; k < s->blocks[i].n_lp; k++) free(s->blocks[i].lp_key[k]);
        free(s->blocks[i].lp_key);
        free(s->blocks[i].lp_prec);
    }
    free(s->blocks);
    free(s->model);
    free(s->strategy);
    free(s->fname);
    memset(s, 0, sizeof *s);
    s->n_layers = -1;
    s->concat = -1;
}

/* ---- applying to a model ------------------------------------------------ */

static const char *layer_name(const ir_model *m, int l)
{
    return m->g->nodes[m->layers[l].node].name;
}

static const char *layer_op(const ir_model *m, int l)
{
    return m->g->nodes[m->layers[l].node].op_type;
}

/* "FILE:LINE:COL: block i (layers a to b, "x" to "y"): msg" */
static pz_status bad_block(pz_err *err, const sched *s, const ir_model *m, int i, pz_status code,
                           const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static pz_status bad_block(pz_err *err, const sched *s, const ir_model *m, int i, pz_status code,
                           const char *fmt, ...)
{
    const sched_block *b = &s->blocks[i];
    char where[300], layers[400], msg[600];
    const char *fname = s->fname ? s->fname : "schedule";
    if (b->line > 0) snprintf(where, sizeof where, "%s:%d:%d", fname, b->line, b->col);
    else snprintf(where, sizeof where, "%s", fname);
    int64_t last = (int64_t)b->first + b->count - 1;
    if (b->first >= 0 && b->count >= 1 && last < m->n_layers)
        snprintf(layers, sizeof layers, "layers %d to %lld, \"%.120s\" to \"%.120s\"", b->first,
                 (long long)last, layer_name(m, b->first), layer_name(m, (int)last));
    else snprintf(layers, sizeof layers, "layers %d to %lld", b->first, (long long)last);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pz_fail(err, code, "%s: block %d (%s): %s", where, i, layers, msg);
}

/* Rows of the block's last layer's output (axis 2), or -1 without a row axis. */
static int64_t last_rows(const ir_model *m, const sched_block *b)
{
    const ir_layer *l = &m->layers[b->first + b->count - 1];
    if (l->n_out < 1 || l->out[0] < 0) return -1;
    const ir_tensor *t = &m->g->values[l->out[0]].t;
    return t->rank >= 3 ? t->dims[2] : -1;
}

pz_status sched_apply(const sched *s, ir_model *m, int max_mp, pz_err *err)
{
    const char *fname = s->fname ? s->fname : "schedule";
    if (max_mp < 1) max_mp = 1;
    if (s->n_layers >= 0 && s->n_layers != m->n_layers)
        return pz_fail(err, PZ_ERR_INPUT, "%s: the schedule is for a model of %d layers%s%s%s; "
                       "this model (\"%s\") has %d layers", fname, s->n_layers,
                       s->model ? " (\"" : "", s->model ? s->model : "", s->model ? "\")" : "",
                       m->g->name, m->n_layers);
    if (s->batch > 0 && s->batch != m->batch)
        return pz_fail(err, PZ_ERR_INPUT, "%s: key \"batch\": the schedule is for batch %d; the "
                       "model runs at batch %d (give --batch %d)", fname, s->batch, m->batch,
                       s->batch);
    int next = 0;
    for (int i = 0; i < s->n_blocks; i++) {
        const sched_block *b = &s->blocks[i];
        if (b->first != next || b->count < 1 || b->first < 0)
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "should start at layer %d, after the "
                             "previous block (blocks are consecutive)", next);
        if (b->count > m->n_layers - b->first)
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "runs past the last layer (the model "
                             "has %d layers, 0 to %d)", m->n_layers, m->n_layers - 1);
        next = b->first + b->count;
        int last = next - 1;
        if (b->first_node && strcmp(b->first_node, layer_name(m, b->first)))
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"first_node\": the file says "
                             "\"%.150s\", but layer %d is \"%.150s\" (a schedule for another "
                             "model?)", b->first_node, b->first, layer_name(m, b->first));
        if (b->last_node && strcmp(b->last_node, layer_name(m, last)))
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"last_node\": the file says "
                             "\"%.150s\", but layer %d is \"%.150s\" (a schedule for another "
                             "model?)", b->last_node, last, layer_name(m, last));
        if (b->mp < 1 || b->mp > max_mp)
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"mp\": %d is out of range: MP is "
                             "1 to %d, the cores available (--threads)", b->mp, max_mp);
        if (b->strip < 0)
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"strip\": %d is negative", b->strip);
        if (b->strip > 0) {
            int64_t rows = last_rows(m, b);
            if (rows < 0)
                return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"strip\": %d rows, but the "
                                 "block's last layer \"%.150s\" (%s) has no rows (write 0)",
                                 b->strip, layer_name(m, last), layer_op(m, last));
            if (b->strip > rows)
                return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"strip\": %d rows, but the "
                                 "block's last layer \"%.150s\" has %lld", b->strip,
                                 layer_name(m, last), (long long)rows);
        }
        if (b->split == IR_SPLIT_BANDS)
            for (int l = b->first; l <= last; l++) {
                char why[240];
                if (!halo_layer_row_local(m, l, why, sizeof why))
                    return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"split\": \"bands\" needs "
                                     "row-local layers, and layer %d \"%.150s\" is not: %s (use "
                                     "\"channels\" or \"auto\")", l, layer_name(m, l), why);
            }
        for (int k = 0; k < b->n_winograd; k++) {
            int l = b->winograd[k];
            if (l < b->first || l > last)
                return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"winograd\": layer %d is not "
                                 "in the block", l);
            if (!opt_winograd_applies(m, l, NULL))
                return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"winograd\": layer %d "
                                 "\"%.150s\" (%s) cannot run Winograd F(4x4, 3x3): that needs a "
                                 "2-D Conv with a 3x3 kernel, stride 1, dilation 1, group 1, "
                                 "constant weights and input in 16-channel blocks (at least 5 "
                                 "input channels)", l, layer_name(m, l), layer_op(m, l));
        }
        for (int k = 0; k < b->n_sparsity; k++) {
            int l = b->sp_layer[k];
            char why[300];
            if (b->sp_ratio[k] != 0 && !opt_sparsity_applies(m, l, why, sizeof why))
                return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"sparsity\": layer %d "
                                 "\"%.150s\" (%s) cannot be sparse: %s", l, layer_name(m, l),
                                 layer_op(m, l), why);
        }
    }
    if (next == 0 && m->n_layers > 0)
        return pz_fail(err, PZ_ERR_INPUT, "%s: the schedule has no blocks; the model has %d "
                       "layers and every layer must be in a block", fname, m->n_layers);
    if (next != m->n_layers)
        return pz_fail(err, PZ_ERR_INPUT, "%s: the blocks cover layers 0 to %d; the model has %d "
                       "layers, so layers %d to %d are in no block", fname, next - 1, m->n_layers,
                       next, m->n_layers - 1);
    int n = s->n_blocks ? s->n_blocks : 1;
    int **lp = pz_xcalloc((size_t)n, sizeof *lp);   /* each block's "layer_precision" layers */
    for (int i = 0; i < s->n_blocks; i++) {
        char why[400];
        lp[i] = pz_xmalloc((size_t)(s->blocks[i].n_lp + 1) * sizeof(int));
        if (sched_layer_prec_check(&s->blocks[i], m, lp[i], why, sizeof why)) {
            for (int j = 0; j <= i; j++) free(lp[j]);
            free(lp);
            return bad_block(err, s, m, i, PZ_ERR_INPUT, "key \"layer_precision\": %s", why);
        }
    }
    int *sizes = pz_xmalloc((size_t)n * sizeof(int)), *mps = pz_xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < s->n_blocks; i++) {
        sizes[i] = s->blocks[i].count;
        mps[i] = s->blocks[i].mp;
    }
    pz_status st = ir_model_partition(m, sizes, mps, s->n_blocks, max_mp, err);
    free(sizes);
    free(mps);
    if (st) {
        for (int i = 0; i < s->n_blocks; i++) free(lp[i]);
        free(lp);
        return st;
    }
    for (int i = 0; i < s->n_blocks; i++) {
        ir_fblock *fb = &m->blocks[i];
        fb->split = s->blocks[i].split;
        fb->strip = s->blocks[i].strip;
        fb->precision = s->blocks[i].precision;
        fb->weights = s->blocks[i].weights;
        for (int l = fb->first; l < fb->first + fb->count; l++) m->layers[l].precision = fb->precision;
        for (int k = 0; k < s->blocks[i].n_lp; k++) m->layers[lp[i][k]].precision = s->blocks[i].lp_prec[k];
        free(lp[i]);
        /* "winograd": the listed convs run Winograd, the block's other convs direct */
        const sched_block *sb = &s->blocks[i];
        for (int k = 0; k < sb->n_sparsity; k++) m->layers[sb->sp_layer[k]].sparsity = sb->sp_ratio[k];
        if (sb->n_winograd < 0) continue;
        for (int l = fb->first; l < fb->first + fb->count; l++)
            if (!strcmp(layer_op(m, l), "Conv")) m->layers[l].algo = IR_ALGO_DIRECT;
        for (int k = 0; k < sb->n_winograd; k++) m->layers[sb->winograd[k]].algo = IR_ALGO_WINOGRAD;
    }
    free(lp);
    return PZ_OK;
}

/* ---- writing ------------------------------------------------------------ */

void sched_write(FILE *f, const ir_model *m, const char *strategy)
{
    json_writer w;
    json_w_init(&w, f);
    json_w_obj(&w, 0);
    json_w_key(&w, "version");
    json_w_int(&w, SCHED_VERSION);
    json_w_key(&w, "model");
    json_w_str(&w, m->g->name ? m->g->name : "");
    json_w_key(&w, "layers");
    json_w_int(&w, m->n_layers);
    json_w_key(&w, "strategy");
    json_w_str(&w, strategy ? strategy : "unknown");
    if (m->batch > 1) {
        json_w_key(&w, "batch");
        json_w_int(&w, m->batch);
    }
    /* the layers (and their count) above were made with this pass on or off */
    json_w_key(&w, "concat");
    json_w_bool(&w, m->concat > 0);
    json_w_key(&w, "blocks");
    json_w_arr(&w, 0);
    for (int i = 0; i < m->n_blocks; i++) {
        const ir_fblock *b = &m->blocks[i];
        json_w_obj(&w, 1);
        json_w_key(&w, "first");
        json_w_int(&w, b->first);
        json_w_key(&w, "count");
        json_w_int(&w, b->count);
        json_w_key(&w, "first_node");
        json_w_str(&w, layer_name(m, b->first));
        json_w_key(&w, "last_node");
        json_w_str(&w, layer_name(m, b->first + b->count - 1));
        json_w_key(&w, "mp");
        json_w_int(&w, b->mp);
        json_w_key(&w, "split");
        json_w_str(&w, ir_split_name(b->split));
        json_w_key(&w, "strip");
        json_w_int(&w, b->strip);
        json_w_key(&w, "precision");
        json_w_str(&w, ir_precision_name(b->precision));
        if (b->weights != IR_WEIGHTS_FP32) {
            json_w_key(&w, "weights");
            json_w_str(&w, ir_weights_name(b->weights));
        }
        int sparse = 0;
        for (int l = b->first; l < b->first + b->count; l++) sparse |= m->layers[l].sparsity != 0;
        if (sparse) {
            json_w_key(&w, "sparsity");
            json_w_obj(&w, 1);
            for (int l = b->first; l < b->first + b->count; l++) {
                float r = m->layers[l].sparsity;
                if (r == 0) continue;
                char key[24];
                snprintf(key, sizeof key, "%d", l);
                json_w_key(&w, key);
                if (r == IR_SPARSITY_AUTO) json_w_str(&w, "auto");
                else json_w_num(&w, r);
            }
            json_w_end(&w);
        }
        sched_layer_prec_write(&w, m, b);
        /* the algorithm of the block's convs where Winograd could run: the
         * optimizer's choice (a layer left to the runtime: the same rule) */
        int any = 0;
        for (int l = b->first; l < b->first + b->count; l++) any |= opt_winograd_applies(m, l, NULL);
        if (any) {
            json_w_key(&w, "winograd");
            json_w_arr(&w, 1);
            for (int l = b->first; l < b->first + b->count; l++) {
                ir_algo a = m->layers[l].algo;
                if (a == IR_ALGO_AUTO && opt_winograd_applies(m, l, NULL))
                    a = opt_winograd_pays(m, l) && opt_have_winograd() ? IR_ALGO_WINOGRAD : IR_ALGO_DIRECT;
                if (a == IR_ALGO_WINOGRAD) json_w_int(&w, l);
            }
            json_w_end(&w);
        }
        json_w_end(&w);
    }
    json_w_end(&w);
    json_w_end(&w);
}

pz_status sched_write_file(const ir_model *m, const char *strategy, const char *path, pz_err *err)
{
    size_t n = strlen(path);
    char *tmp = pz_xmalloc(n + 16);
    snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        pz_fail(err, PZ_ERR_INPUT, "cannot write schedule %s: %s", path, strerror(errno));
        free(tmp);
        return err->code;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        goto fail;
    }
    sched_write(f, m, strategy);
    int bad_write = ferror(f) != 0;
    if (fclose(f) || bad_write) goto fail;
    /* mkstemp makes the file 0600: give it the permissions fopen would */
    mode_t mask = umask(0);
    umask(mask);
    chmod(tmp, 0666 & ~mask);
    if (rename(tmp, path)) goto fail;
    free(tmp);
    return PZ_OK;
fail:
    pz_fail(err, PZ_ERR_INPUT, "cannot write schedule %s: %s", path, strerror(errno));
    unlink(tmp);
    free(tmp);
    return err->code;
}
