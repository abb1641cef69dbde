/* schedule.c - the JSON reader and writer, the row arithmetic of spatial
 * bands and their redundant MACs (checked against cases worked out by hand
 * below), and schedule files: parsing, every kind of error, applying to a
 * model, writing and reading back. Models are built by hand with the IR API. */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "ops/op_infer.h"
#include "ir/model.h"
#include "ops/op_lower.h"
#include "ops/op.h"
#include "opt/halo.h"
#include "util/json.h"
#include "opt/schedule.h"

#include "test_check.h"

/* ---- JSON ---------------------------------------------------------------- */

static pz_err parse_err(const char *text)
{
    pz_err err = {0};
    json_value *v;
    if (json_parse(text, strlen(text), "t.json", &v, &err) == PZ_OK) json_free(v);
    return err;
}

/* The text fails to parse with a message containing want. */
static void json_bad(const char *text, const char *want, int line)
{
    pz_err e = parse_err(text);
    if (e.code == PZ_ERR_INPUT && strstr(e.msg, want)) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "FAIL %s:%d: json %s: wanted \"%s\", got \"%s\"\n", __FILE__, line, text, want,
            e.code ? e.msg : "(no error)");
}
#define JSON_BAD(text, want) json_bad(text, want, __LINE__)

static void test_json(void)
{
    pz_err err = {0};
    json_value *v;
    const char *doc = "\xef\xbb\xbf{\"a\": [1, -0, 2.5e1, true, false, null],\n"
                      " \"s\": \"x\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\u20ac\",\n"
                      " \"big\": 9223372036854775807, \"huge\": 9223372036854775808,\n"
                      " \"o\": {}}";
    CHECK(json_parse(doc, strlen(doc), "t.json", &v, &err) == PZ_OK);
    if (v) {
        const json_value *a = json_get(v, "a"), *s = json_get(v, "s");
        CHECK(v->type == JSON_OBJECT && v->n == 5);
        CHECK(a && a->type == JSON_ARRAY && a->n == 6);
        CHECK(a && a->items[0].is_int && a->items[0].i == 1 && a->items[1].is_int && a->items[1].i == 0);
        CHECK(a && !a->items[2].is_int && a->items[2].num == 25.0);
        CHECK(a && a->items[3].type == JSON_BOOL && a->items[3].b && !a->items[4].b);
        CHECK(a && a->items[5].type == JSON_NULL);
        /* line and column of the value 2.5e1: line 1, after the BOM (3 bytes) */
        CHECK(a && a->items[2].line == 1 && a->items[2].col == 15);
        CHECK(s && !strcmp(s->str, "x\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xe2\x82\xac"));
        CHECK(s && s->line == 2 && s->col == 7);
        CHECK(json_get(v, "big")->is_int && json_get(v, "big")->i == INT64_MAX);
        CHECK(!json_get(v, "huge")->is_int && json_get(v, "huge")->num > 9.2e18);
        CHECK(json_get(v, "o")->type == JSON_OBJECT && json_get(v, "o")->n == 0);
        CHECK(json_get(v, "nope") == NULL && json_get(a, "a") == NULL);
        json_free(v);
    }
    /* syntax errors, with the exact place */
    JSON_BAD("{\"a\": 1,\n \"b\": 2,\n}", "t.json:3:1: trailing comma before '}'");
    JSON_BAD("[1, 2,]", "t.json:1:7: trailing comma before ']'");
    JSON_BAD("[1 2]", "t.json:1:4: expected ',' or ']' after an array item, found '2'");
    JSON_BAD("{\"a\" 1}", "t.json:1:6: expected ':' after the key, found '1'");
    JSON_BAD("{a: 1}", "t.json:1:2: expected a key in double quotes, found 'a'");
    JSON_BAD("{\"a\": 1} x", "t.json:1:10: unexpected 'x' after the end of the JSON value");
    JSON_BAD("", "t.json:1:1: the file is empty");
    JSON_BAD("  \n ", "t.json:2:2: the file is empty");
    JSON_BAD("[01]", "t.json:1:2: numbers cannot have leading zeros");
    JSON_BAD("[1.]", "t.json:1:4: expected a digit after the decimal point");
    JSON_BAD("[1e]", "t.json:1:4: expected a digit in the exponent");
    JSON_BAD("[-]", "t.json:1:3: expected a digit");
    JSON_BAD("[1e400]", "t.json:1:2: number too large");
    JSON_BAD("[NaN]", "expected a value");
    JSON_BAD("[+1]", "t.json:1:2: expected a value");
    JSON_BAD("// c\n{}", "t.json:1:1: comments are not allowed");
    JSON_BAD("['a']", "t.json:1:2: strings take double quotes");
    JSON_BAD("[\"a\nb\"]", "t.json:1:4: line break inside a string");
    JSON_BAD("[\"a\x01\"]", "control character inside a string");
    JSON_BAD("[\"\\x\"]", "t.json:1:3: invalid escape");
    JSON_BAD("[\"\\u12\"]", "\\u needs four hex digits");
    JSON_BAD("[\"\\ud800\"]", "lone high surrogate");
    JSON_BAD("[\"\\udc00\"]", "lone low surrogate");
    JSON_BAD("[\"\\u0000\"]", "\\u0000 is not allowed");
    JSON_BAD("[\"\xc3\"]", "invalid UTF-8");
    JSON_BAD("[\"\xc0\xaf\"]", "invalid UTF-8");         /* overlong '/' */
    JSON_BAD("[\"\xed\xa0\x80\"]", "invalid UTF-8");     /* encoded surrogate */
    JSON_BAD("[\"\xf4\x90\x80\x80\"]", "invalid UTF-8"); /* above U+10FFFF */
    JSON_BAD("[\"abc", "t.json:1:2: string not closed");
    JSON_BAD("{\"k\": 1, \"k\": 2}", "t.json:1:10: duplicate key \"k\" (first at line 1)");
    JSON_BAD("{\"z\": 1, \"a\": 1,\n \"z\": 2, \"a\": 3, \"z\": 4}",
             "t.json:2:2: duplicate key \"z\" (first at line 1)");
    /* 100000 keys: fast (sorted), and the duplicate found at the end */
    {
        size_t cap = 2000000, n = 0;
        char *big = pz_xmalloc(cap);
        n += (size_t)snprintf(big + n, cap - n, "{");
        for (int i = 0; i < 100000; i++)
            n += (size_t)snprintf(big + n, cap - n, "\"k%d\": %d, ", i, i);
        n += (size_t)snprintf(big + n, cap - n, "\"k77\": 0}");
        pz_err e = {0};
        CHECK(json_parse(big, n, "t.json", &v, &e) == PZ_ERR_INPUT && strstr(e.msg, "duplicate key \"k77\""));
        big[n - 11] = '}';   /* ", \"k77\": 0}" cut: 100000 distinct keys parse */
        e = (pz_err){0};
        CHECK(json_parse(big, n - 10, "t.json", &v, &e) == PZ_OK && v && v->n == 100000);
        if (!e.code) json_free(v);
        free(big);
    }
    JSON_BAD("[tru]", "expected a value");
    JSON_BAD("[1,\n\n  @]", "t.json:3:3: expected a value (object, array, string, number, true, "
                            "false or null), found '@'");
    /* NUL bytes are data, not an end of string */
    {
        pz_err e = {0};
        CHECK(json_parse("[1]\0", 4, "t.json", &v, &e) == PZ_ERR_INPUT && strstr(e.msg, "byte 0x00"));
    }
    /* nesting: 64 levels are fine, 65 are refused (no stack overflow on 100000) */
    {
        char deep[200001];
        for (int d = 64; d <= 65; d++) {
            int n = 0;
            for (int i = 0; i < d; i++) deep[n++] = '[';
            for (int i = 0; i < d; i++) deep[n++] = ']';
            pz_err e = {0};
            pz_status st = json_parse(deep, (size_t)n, "t.json", &v, &e);
            if (st == PZ_OK) json_free(v);
            CHECK(d == 64 ? st == PZ_OK : st == PZ_ERR_INPUT && strstr(e.msg, "nesting deeper than 64"));
        }
        memset(deep, '[', 100000);
        pz_err e = {0};
        CHECK(json_parse(deep, 100000, "t.json", &v, &e) == PZ_ERR_INPUT);
    }
    /* the writer's output reads back to the same values */
    {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        json_writer w;
        json_w_init(&w, f);
        json_w_obj(&w, 0);
        json_w_key(&w, "name");
        json_w_str(&w, "q\"\\\n\t\x01 \xc3\xa9");
        json_w_key(&w, "list");
        json_w_arr(&w, 0);
        json_w_obj(&w, 1);
        json_w_key(&w, "i");
        json_w_int(&w, -42);
        json_w_key(&w, "x");
        json_w_num(&w, 0.1);
        json_w_key(&w, "inf");
        json_w_num(&w, 1.0 / 0.0);
        json_w_end(&w);
        json_w_arr(&w, 1);
        json_w_bool(&w, 1);
        json_w_null(&w);
        json_w_end(&w);
        json_w_arr(&w, 0);
        json_w_end(&w);
        json_w_end(&w);
        json_w_end(&w);
        fclose(f);
        pz_err e = {0};
        CHECK(json_parse(buf, size, "w.json", &v, &e) == PZ_OK);
        if (v) {
            const json_value *l = json_get(v, "list");
            CHECK(!strcmp(json_get(v, "name")->str, "q\"\\\n\t\x01 \xc3\xa9"));
            CHECK(l->n == 3 && json_get(&l->items[0], "i")->i == -42);
            CHECK(json_get(&l->items[0], "x")->num == 0.1);
            CHECK(json_get(&l->items[0], "inf")->type == JSON_NULL);
            CHECK(l->items[1].n == 2 && l->items[1].items[0].b == 1 && l->items[2].n == 0);
            /* inline containers stay on one line: the {"i"...} object is line 4 */
            CHECK(l->items[0].line == 4 && json_get(&l->items[0], "inf")->line == 4);
            json_free(v);
        }
        free(buf);
    }
}

/* ---- hand-made models ---------------------------------------------------- */

static int add_const(ir_graph *g, const char *name, int rank, const int64_t *dims)
{
    int v = ir_graph_add_value(g, name);
    g->values[v].t.dtype = IR_F32;
    g->values[v].t.rank = rank;
    memcpy(g->values[v].t.dims, dims, (size_t)rank * sizeof(int64_t));
    size_t n = (size_t)ir_tensor_numel(&g->values[v].t) * 4;
    void *zeros = pz_xcalloc(n, 1);
    ir_value_set_data(g, v, zeros, n);
    free(zeros);
    g->values[v].is_initializer = 1;
    return v;
}

static void set_ints(ir_node *n, const char *name, int count, const int64_t *vals)
{
    n->attrs = pz_xrealloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *n->attrs);
    ir_attr *a = &n->attrs[n->n_attrs++];
    memset(a, 0, sizeof *a);
    a->name = pz_xstrdup(name);
    a->type = IR_ATTR_INTS;
    a->n = count;
    a->ints = pz_xmalloc((size_t)count * sizeof(int64_t));
    memcpy(a->ints, vals, (size_t)count * sizeof(int64_t));
}

static ir_node *add_node(ir_graph *g, const char *name, const char *op, int n_in, const int *in, int out)
{
    int k = ir_graph_add_node(g, name, op, "", n_in, 1);
    ir_node *n = &g->nodes[k];
    n->op = op_find(op);
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    n->out[0] = out;
    return n;
}

/* A conv of C channels, kernel k, stride s, pad p on both sides; returns its output value. */
static int conv(ir_graph *g, const char *name, int x, int C, int k, int s, int p)
{
    char wn[64], yn[64];
    snprintf(wn, sizeof wn, "%s.w", name);
    snprintf(yn, sizeof yn, "%s.y", name);
    int w = add_const(g, wn, 4, (int64_t[]){C, C, k, k});
    int y = ir_graph_add_value(g, yn);
    ir_node *n = add_node(g, name, "Conv", 2, (int[]){x, w}, y);
    set_ints(n, "pads", 4, (int64_t[]){p, p, p, p});
    set_ints(n, "strides", 2, (int64_t[]){s, s});
    return y;
}

static int unary(ir_graph *g, const char *name, const char *op, int x)
{
    char yn[64];
    snprintf(yn, sizeof yn, "%s.y", name);
    int y = ir_graph_add_value(g, yn);
    add_node(g, name, op, 1, (int[]){x}, y);
    return y;
}

static int add2(ir_graph *g, const char *name, int a, int b)
{
    char yn[64];
    snprintf(yn, sizeof yn, "%s.y", name);
    int y = ir_graph_add_value(g, yn);
    add_node(g, name, "Add", 2, (int[]){a, b}, y);
    return y;
}

static int input(ir_graph *g, int C, int H, int W)
{
    int x = ir_graph_add_value(g, "x");
    g->values[x].t = (ir_tensor){.dtype = IR_F32, .rank = 4, .dims = {1, C, H, W}};
    ir_graph_add_input(g, x);
    return x;
}

static ir_model *finish(ir_graph *g, int y)
{
    pz_err err = {0};
    ir_graph_add_output(g, y);
    free(g->name);
    g->name = pz_xstrdup("hand");
    PZ_ASSERT(ir_graph_sort(g, &err) == PZ_OK);
    if (ir_infer(g, &err)) {
        fprintf(stderr, "infer: %s\n", err.msg);
        PZ_ASSERT(0);
    }
    return ir_model_lower(g);
}

static void free_model(ir_model *m)
{
    ir_graph *g = m->g;
    ir_model_free(m);
    ir_graph_free(g);
}

/* ---- row arithmetic and redundant MACs ----------------------------------- */

static int range_is(int64_t lo, int64_t hi, int64_t want_lo, int64_t want_hi)
{
    return lo == want_lo && hi == want_hi;
}

static void test_rows(void)
{
    int64_t lo, hi;
    halo_band(8, 0, 2, &lo, &hi);
    CHECK(range_is(lo, hi, 0, 4));
    halo_band(8, 1, 2, &lo, &hi);
    CHECK(range_is(lo, hi, 4, 8));
    halo_band(7, 0, 3, &lo, &hi);   /* 7 = 3 + 2 + 2 */
    CHECK(range_is(lo, hi, 0, 3));
    halo_band(7, 2, 3, &lo, &hi);
    CHECK(range_is(lo, hi, 5, 7));
    halo_band(1, 1, 2, &lo, &hi);   /* more cores than rows: an empty band */
    CHECK(lo == hi);
    /* 3x3, stride 1, pad 1 on 8 rows: rows 0-3 read 0-4 (row -1 is padding) */
    halo_window_rows(0, 4, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 0, 5));
    halo_window_rows(4, 8, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 3, 8));
    halo_window_rows(2, 3, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 1, 4));
    /* 3x3 stride 2 pad 1, 8 -> 4 rows: out 0-1 read -1..3, out 2-3 read 3..7 */
    halo_window_rows(0, 2, 3, 2, 1, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 0, 4));
    halo_window_rows(2, 4, 3, 2, 1, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 3, 8));
    /* 7x7 stride 2 pad 3 (ResNet's stem), 224 -> 112: out 56-111 read 109..223 */
    halo_window_rows(56, 112, 7, 2, 3, 1, 224, &lo, &hi);
    CHECK(range_is(lo, hi, 109, 224));
    /* dilation 2, kernel 3, pad 2: out row 5 reads 3, 5, 7 */
    halo_window_rows(5, 6, 3, 1, 2, 2, 16, &lo, &hi);
    CHECK(range_is(lo, hi, 3, 8));
    /* 1x1 stride 2: out rows 1-2 read rows 2 and 4 */
    halo_window_rows(1, 3, 1, 2, 0, 1, 8, &lo, &hi);
    CHECK(range_is(lo, hi, 2, 5));
    halo_window_rows(3, 3, 3, 1, 1, 1, 8, &lo, &hi);
    CHECK(lo == hi);
    /* slice rows 2::3 and a constant pad of 2 rows before */
    halo_affine_rows(1, 3, 2, 3, 20, &lo, &hi);
    CHECK(range_is(lo, hi, 5, 9));
    halo_affine_rows(0, 4, -2, 1, 10, &lo, &hi);
    CHECK(range_is(lo, hi, 0, 2));
}

/* Per-row MACs of a 3x3 conv of 8 channels over 8 columns: 8 * 9 * 8 * 8. */
#define ROW_MACS (8 * 9 * 8 * 8)

static void test_halo(void)
{
    /* two 3x3 stride-1 pad-1 convs (with a Relu between) on 8 rows, MP 2:
     * the bands of conv2 are rows 0-3 and 4-7; each needs one more row of
     * relu/conv1 on its inner side: conv1 computes 0-4 and 3-7, 10 rows for
     * 8, so 2 rows are redundant. */
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    int x = input(g, 8, 8, 8);
    int c1 = conv(g, "conv1", x, 8, 3, 1, 1);
    int r1 = unary(g, "relu1", "Relu", c1);
    int c2 = conv(g, "conv2", r1, 8, 3, 1, 1);
    ir_model *m = finish(g, c2);
    CHECK(m->n_layers == 3);
    halo_report r;
    halo_block(m, 0, 3, 2, &r);
    CHECK(r.row_local && r.bad_layer == -1);
    CHECK(r.macs == 2 * 8 * ROW_MACS);
    CHECK(r.layers[0].rows == 8 && r.layers[0].rows_computed == 10);
    CHECK(r.layers[1].rows_computed == 10 && r.layers[1].redundant_macs == 0);   /* Relu: 0 MACs */
    CHECK(r.layers[2].rows_computed == 8 && r.layers[2].redundant_macs == 0);
    CHECK(r.layers[0].redundant_macs == 2 * ROW_MACS);
    CHECK(r.redundant_macs == 2 * ROW_MACS);
    halo_report_free(&r);
    int64_t rows[6];
    halo_block_rows(m, 0, 3, 1, 2, rows);
    CHECK(range_is(rows[0], rows[1], 3, 8) && range_is(rows[4], rows[5], 4, 8));
    /* MP 4 (bands of 2 rows): conv1 computes 0-2, 1-4, 3-6, 5-7: 14 rows for 8 */
    halo_block(m, 0, 3, 4, &r);
    CHECK(r.layers[0].rows_computed == 14 && r.redundant_macs == 6 * ROW_MACS);
    halo_report_free(&r);
    /* MP 1: nothing is computed twice; a block of one layer neither */
    halo_block(m, 0, 3, 1, &r);
    CHECK(r.row_local && r.redundant_macs == 0);
    halo_report_free(&r);
    halo_block(m, 2, 1, 2, &r);
    CHECK(r.row_local && r.redundant_macs == 0 && r.macs == 8 * ROW_MACS);
    halo_report_free(&r);
    /* the block conv1+relu1 on its own: its band ends at relu1, no halo */
    halo_block(m, 0, 2, 2, &r);
    CHECK(r.redundant_macs == 0);
    halo_report_free(&r);
    /* 8 rows over 16 cores: 8 cores get nothing; the others one row each,
     * which reads 3 rows of conv1 (2 at the edges): 2 + 6*3 + 2 = 22 */
    halo_block(m, 0, 3, 16, &r);
    CHECK(r.layers[0].rows_computed == 22 && r.redundant_macs == 14 * ROW_MACS);
    halo_report_free(&r);
    free_model(m);

    /* a residual block: conv0 -> r0; conv1(r0) -> relu -> conv2 -> add(conv2, r0).
     * MP 2, bands 0-3 / 4-7 of the add. The add needs r0's same rows, conv2
     * needs conv1 one row further, conv1 needs r0 one more:
     *   core 0: add 0-3, conv2 0-3, conv1 0-4, r0 hull(0-3, 0-5) = 0-5
     *   core 1: add 4-7, conv2 4-7, conv1 3-7, r0 hull(4-7, 2-7) = 2-7
     * conv0 computes 12 rows for 8 (4 redundant), conv1 10 (2), conv2 8. */
    g = ir_graph_new();
    g->opset = 13;
    x = input(g, 8, 8, 8);
    int r0 = conv(g, "conv0", x, 8, 3, 1, 1);
    c1 = conv(g, "conv1", r0, 8, 3, 1, 1);
    r1 = unary(g, "relu1", "Relu", c1);
    c2 = conv(g, "conv2", r1, 8, 3, 1, 1);
    int y = add2(g, "add", c2, r0);
    m = finish(g, y);
    CHECK(m->n_layers == 5);
    halo_block(m, 0, 5, 2, &r);
    CHECK(r.row_local);
    CHECK(r.layers[0].rows_computed == 12 && r.layers[0].redundant_macs == 4 * ROW_MACS);
    CHECK(r.layers[1].rows_computed == 10 && r.layers[1].redundant_macs == 2 * ROW_MACS);
    CHECK(r.layers[3].rows_computed == 8 && r.layers[4].rows_computed == 8);
    CHECK(r.redundant_macs == 6 * ROW_MACS);
    halo_report_free(&r);
    int64_t rows5[10];
    halo_block_rows(m, 0, 5, 0, 2, rows5);
    CHECK(range_is(rows5[0], rows5[1], 0, 6) && range_is(rows5[2], rows5[3], 0, 5));
    /* the block without conv0 (r0 comes from outside): only conv1's halo */
    halo_block(m, 1, 4, 2, &r);
    CHECK(r.redundant_macs == 2 * ROW_MACS);
    halo_report_free(&r);
    /* a block ending at conv1: r0 leaves the block (the add reads it later),
     * so each core makes its own band of r0 too: conv1 0-3 / 4-7 needs r0
     * 0-4 / 3-7, hull with the bands 0-3 / 4-7 gives 0-4 / 3-7: 2 rows */
    halo_block(m, 0, 2, 2, &r);
    CHECK(r.layers[0].rows_computed == 10 && r.redundant_macs == 2 * ROW_MACS);
    halo_report_free(&r);
    free_model(m);

    /* stride 2: convA 3x3 s1 (8 rows) -> convB 3x3 s2 p1 (4 rows), MP 2.
     * convB's bands 0-1 / 2-3 read convA rows 0-3 / 3-7: one row twice. */
    g = ir_graph_new();
    g->opset = 13;
    x = input(g, 8, 8, 8);
    int a = conv(g, "convA", x, 8, 3, 1, 1);
    int b = conv(g, "convB", a, 8, 3, 2, 1);
    m = finish(g, b);
    halo_block(m, 0, 2, 2, &r);
    CHECK(r.layers[0].rows_computed == 9 && r.redundant_macs == 1 * ROW_MACS);
    CHECK(r.layers[1].rows == 4 && r.layers[1].rows_computed == 4);
    halo_report_free(&r);
    free_model(m);

    /* max-pool 3x3 s2 p1 between two convs: pools add halo but no MACs;
     * conv after pool bands 0-1 / 2-3 (4 rows) read pool rows 0-2 / 1-3, pool
     * rows 0-2 read conv rows 0-5 (-1..5), 1-3 read 1-7: 5+... conv 0-5 and
     * 1-7 = 6 + 7 = 13 rows for 8: 5 redundant */
    g = ir_graph_new();
    g->opset = 13;
    x = input(g, 8, 8, 8);
    a = conv(g, "convA", x, 8, 3, 1, 1);
    char pn[] = "pool";
    int p = ir_graph_add_value(g, "pool.y");
    ir_node *pnode = add_node(g, pn, "MaxPool", 1, (int[]){a}, p);
    set_ints(pnode, "kernel_shape", 2, (int64_t[]){3, 3});
    set_ints(pnode, "strides", 2, (int64_t[]){2, 2});
    set_ints(pnode, "pads", 4, (int64_t[]){1, 1, 1, 1});
    b = conv(g, "convB", p, 8, 3, 1, 1);
    m = finish(g, b);
    halo_block(m, 0, 3, 2, &r);
    CHECK(r.row_local && r.layers[1].rows == 4 && r.layers[1].rows_computed == 6);
    CHECK(r.layers[0].rows_computed == 13);
    /* convA is 8 columns wide, convB 4: per-row MACs differ */
    CHECK(r.redundant_macs == 5 * ROW_MACS);
    halo_report_free(&r);
    free_model(m);

    /* not row-local: global pooling, flatten, Gemm */
    g = ir_graph_new();
    g->opset = 13;
    x = input(g, 8, 8, 8);
    a = conv(g, "conv", x, 8, 3, 1, 1);
    int gp = unary(g, "gap", "GlobalAveragePool", a);
    int fl = unary(g, "flat", "Flatten", gp);
    int fw = add_const(g, "fc.w", 2, (int64_t[]){10, 8});
    int fy = ir_graph_add_value(g, "fc.y");
    ir_node *fc = add_node(g, "fc", "Gemm", 2, (int[]){fl, fw}, fy);
    fc->attrs = pz_xcalloc(1, sizeof *fc->attrs);
    fc->n_attrs = 1;
    fc->attrs[0] = (ir_attr){.name = pz_xstrdup("transB"), .type = IR_ATTR_INT, .i = 1};
    m = finish(g, fy);
    CHECK(m->n_layers == 3);   /* the Flatten is a view, no layer */
    CHECK(m->view_src[fl] == gp);
    char why[240];
    CHECK(halo_layer_row_local(m, 0, why, sizeof why));
    CHECK(!halo_layer_row_local(m, 1, why, sizeof why) && strstr(why, "global pooling"));
    CHECK(!halo_layer_row_local(m, 2, why, sizeof why) && strstr(why, "Gemm"));
    halo_block(m, 0, 3, 2, &r);
    CHECK(!r.row_local && r.bad_layer == 1 && r.redundant_macs == 0 && r.macs == 8 * ROW_MACS + 80);
    halo_report_free(&r);
    int64_t ilo, ihi;
    CHECK(halo_layer_input_rows(m, 0, 0, 2, 4, &ilo, &ihi) == 1 && range_is(ilo, ihi, 1, 5));
    CHECK(halo_layer_input_rows(m, 0, 1, 2, 4, &ilo, &ihi) == 0);   /* the weight */
    CHECK(halo_layer_input_rows(m, 2, 0, 0, 1, &ilo, &ihi) == 0);   /* not row-local */
    free_model(m);
}

/* ---- schedule files ------------------------------------------------------ */

/* Text with ' for " (easier to read here). */
static char *q(const char *text)
{
    char *s = pz_xstrdup(text);
    for (char *c = s; *c; c++)
        if (*c == '\'') *c = '"';
    return s;
}

static pz_err sched_err(const char *text, sched *out)
{
    pz_err err = {0};
    char *t = q(text);
    sched s;
    if (sched_parse(t, strlen(t), "s.json", &s, &err) == PZ_OK && out) *out = s;
    else sched_free(&s);
    free(t);
    return err;
}

static void sched_bad(const char *text, const char *want, int line)
{
    pz_err e = sched_err(text, NULL);
    char *w = q(want);
    if (e.code == PZ_ERR_INPUT && strstr(e.msg, w)) passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL %s:%d: schedule %s: wanted \"%s\", got \"%s\"\n", __FILE__, line,
                text, w, e.code ? e.msg : "(no error)");
    }
    free(w);
}
#define SCHED_BAD(text, want) sched_bad(text, want, __LINE__)

/* Parses text and applies it to m with max_mp cores; expects code and want. */
static void apply_case(ir_model *m, const char *text, int max_mp, pz_status code, const char *want,
                       int line)
{
    sched s;
    pz_err e = sched_err(text, &s);
    char *w = q(want);
    if (e.code == PZ_OK) {
        sched_apply(&s, m, max_mp, &e);
        sched_free(&s);
    }
    if (e.code == code && (!want[0] || strstr(e.msg, w))) passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL %s:%d: apply %s: wanted %d \"%s\", got %d \"%s\"\n", __FILE__, line,
                text, code, w, e.code, e.msg);
    }
    free(w);
}
#define APPLY(m, text, max_mp, code, want) apply_case(m, text, max_mp, code, want, __LINE__)

static void test_schedule(void)
{
    /* schema errors, each naming the place, the block and its layers, the key */
    SCHED_BAD("[]", "s.json:1:1: a schedule is a JSON object, found an array");
    SCHED_BAD("{}", "s.json:1:1: missing key 'blocks'");
    SCHED_BAD("{'blocks': [], 'modle': 'x'}",
              "s.json:1:16: unknown key 'modle' (known: version, model, layers, strategy, batch, concat, blocks)");
    SCHED_BAD("{'batch': 0, 'blocks': []}", "s.json:1:11: key 'batch': 0 is out of range");
    SCHED_BAD("{'blocks': {}}", "s.json:1:12: key 'blocks': expected an array, found an object");
    SCHED_BAD("{'version': 2, 'blocks': []}", "s.json:1:13: key 'version': 2 is out of range (1 to 1)");
    SCHED_BAD("{'layers': '4', 'blocks': []}", "key 'layers': expected an integer, found a string");
    SCHED_BAD("{'model': 3, 'blocks': []}", "key 'model': expected a string, found a number");
    SCHED_BAD("{'blocks': [3]}", "s.json:1:13: block 0: expected an object, found a number");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2}]}",
              "s.json:1:13: block 0: missing key 'mp' (a block needs first, count and mp)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 0, 'mp': 1}]}",
              "s.json:1:35: block 0: key 'count': 0 is out of range (at least 1)");
    SCHED_BAD("{'blocks': [{'first': -1, 'count': 1, 'mp': 1}]}", "block 0: key 'first': -1 is out of range");
    SCHED_BAD("{'blocks': [{'first': 0.5, 'count': 1, 'mp': 1}]}",
              "block 0: key 'first': expected an integer, found 0.5");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 0}]}",
              "block 0 (layers 0 to 1): key 'mp': 0 is out of range (at least 1)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'strip': -3}]}",
              "block 0 (layers 0 to 1): key 'strip': -3 is out of range (at least 0)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'split': 'rows'}]}",
              "block 0 (layers 0 to 1): key 'split': 'rows' is not one of 'auto', 'bands', 'channels'");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'precision': 'fp16'}]}",
              "key 'precision': 'fp16' is not one of 'fp32', 'bf16', 'int8'");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'weights': 'fp8'}]}",
              "key 'weights': 'fp8' is not one of 'fp32', 'fp16'");
    SCHED_BAD("{'blocks': [{'weights': 'fp16', 'first': 0, 'count': 2, 'mp': 1, 'precision': 'bf16'}]}",
              "block 0 (layers 0 to 1): key 'weights': 'fp16' is for an fp32 block (a bf16 block "
              "stores its weights in bf16)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'MP': 2}]}",
              "s.json:1:47: block 0 (layers 0 to 1): unknown key 'MP' (known: first, count, "
              "first_node, last_node, mp, split, strip, precision, weights, winograd, sparsity, layer_precision)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'sparsity': [1]}]}",
              "block 0 (layers 0 to 1): key 'sparsity': expected an object of layer: ratio, found an array");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'sparsity': {'2': 0.5}}]}",
              "block 0 (layers 0 to 1): key 'sparsity': '2' is not a layer of the block (0 to 1)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'sparsity': {'1': 1}}]}",
              "block 0 (layers 0 to 1): key 'sparsity': layer 1: expected a ratio from 0 to 1 (1 excluded) or 'auto'");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'sparsity': {'1': 'dense'}}]}",
              "block 0 (layers 0 to 1): key 'sparsity': layer 1: expected a ratio");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'winograd': [1, 1]}]}",
              "block 0 (layers 0 to 1): key 'winograd': layer 1 is listed twice");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'winograd': [2]}]}",
              "block 0 (layers 0 to 1): key 'winograd': 2 is out of range (0 to 1)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'winograd': {}}]}",
              "key 'winograd': expected an array of layer numbers, found an object");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'first_node': 7}]}",
              "key 'first_node': expected a string, found a number");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1},\n {'first': 1, 'count': 2, 'mp': 1}]}",
              "s.json:2:2: block 1 (layers 1 to 2): overlaps block 0 (layers 0 to 1): block 1 "
              "should start at layer 2");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1},\n {'first': 3, 'count': 2, 'mp': 1}]}",
              "s.json:2:2: block 1 (layers 3 to 4): layers 2 to 2 are in no block");
    SCHED_BAD("{'blocks': [{'first': 1, 'count': 2, 'mp': 1}]}", "layers 0 to 0 are in no block");
    SCHED_BAD("{'layers': 3, 'blocks': [{'first': 0, 'count': 4, 'mp': 1}]}",
              "block 0 (layers 0 to 3): runs past the last layer ('layers': 3)");
    SCHED_BAD("{'layers': 5, 'blocks': [{'first': 0, 'count': 4, 'mp': 1}]}",
              "key 'blocks': the blocks cover layers 0 to 3; layers 4 to 4 (of 'layers': 5) are in no block");
    SCHED_BAD("{'blocks': [{'first': 5, 'count': 2147483647, 'mp': 1}]}",
              "key 'count': 2147483647 is out of range (1 to 2147483642)");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 99999999999999999999999, 'mp': 1}]}",
              "s.json:1:35: block 0: key 'count': 1e+23 is out of range (1 to 2147483647)");
    SCHED_BAD("{'layers': 3, 'blocks': []}", "key 'blocks': no blocks, but 'layers' is 3");
    /* a good one: defaults fill what is not stated */
    sched s;
    pz_err e = sched_err("{'version': 1, 'model': 'hand', 'layers': 5, 'strategy': 'me',\n"
                         " 'blocks': [{'first': 0, 'count': 1, 'mp': 1},\n"
                         "  {'first': 1, 'count': 4, 'mp': 2, 'split': 'bands', 'strip': 2,\n"
                         "   'precision': 'fp32', 'first_node': 'conv1', 'last_node': 'add'}]}", &s);
    CHECK(e.code == PZ_OK);
    if (!e.code) {
        CHECK(s.n_layers == 5 && s.n_blocks == 2 && !strcmp(s.model, "hand") && !strcmp(s.strategy, "me"));
        CHECK(s.blocks[0].split == IR_SPLIT_AUTO && s.blocks[0].strip == 0 && s.blocks[0].mp == 1);
        CHECK(s.blocks[0].precision == IR_PREC_FP32 && !s.blocks[0].first_node);
        CHECK(s.blocks[1].first == 1 && s.blocks[1].count == 4 && s.blocks[1].mp == 2);
        CHECK(s.blocks[1].split == IR_SPLIT_BANDS && s.blocks[1].strip == 2);
        CHECK(!strcmp(s.blocks[1].last_node, "add") && s.blocks[1].line == 3 && s.blocks[1].col == 3);
        sched_free(&s);
    }

    /* applying to the residual model of test_halo */
    ir_graph *g = ir_graph_new();
    g->opset = 13;
    int x = input(g, 8, 8, 8);
    int r0 = conv(g, "conv0", x, 8, 3, 1, 1);
    int c1 = conv(g, "conv1", r0, 8, 3, 1, 1);
    int r1 = unary(g, "relu1", "Relu", c1);
    int c2 = conv(g, "conv2", r1, 8, 3, 1, 1);
    int y = add2(g, "add", c2, r0);
    int gp = unary(g, "gap", "GlobalAveragePool", y);
    ir_model *m = finish(g, gp);
    CHECK(m->n_layers == 6);
    const char *good = "{'layers': 6, 'blocks': [{'first': 0, 'count': 1, 'mp': 1},\n"
                       " {'first': 1, 'count': 4, 'first_node': 'conv1', 'last_node': 'add', 'mp': 2,"
                       " 'split': 'bands', 'strip': 3},\n"
                       " {'first': 5, 'count': 1, 'mp': 2, 'split': 'channels'}]}";
    APPLY(m, good, 2, PZ_OK, "");
    CHECK(m->n_blocks == 3 && m->blocks[1].first == 1 && m->blocks[1].count == 4);
    CHECK(m->blocks[1].mp == 2 && m->blocks[1].split == IR_SPLIT_BANDS && m->blocks[1].strip == 3);
    CHECK(m->blocks[2].split == IR_SPLIT_CHANNELS && m->layers[4].mp == 2 && m->layers[0].mp == 1);
    APPLY(m, "{'layers': 7, 'model': 'other', 'blocks': [{'first': 0, 'count': 7, 'mp': 1}]}", 2,
          PZ_ERR_INPUT, "s.json: the schedule is for a model of 7 layers ('other'); this model "
          "('hand') has 6 layers");
    APPLY(m, "{'blocks': []}", 2, PZ_ERR_INPUT, "s.json: the schedule has no blocks; the model has 6 layers");
    /* "batch": the model's batch (--batch) must be the schedule's */
    APPLY(m, "{'batch': 8, 'blocks': [{'first': 0, 'count': 6, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "s.json: key 'batch': the schedule is for batch 8; the model runs at batch 1 (give --batch 8)");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 5, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "s.json: the blocks cover layers 0 to 4; the model has 6 layers, so layers 5 to 5 are in no block");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 7, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "s.json:1:13: block 0 (layers 0 to 6): runs past the last layer (the model has 6 layers, 0 to 5)");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 2, 'mp': 1},\n {'first': 2, 'count': 4, 'mp': 3}]}", 2,
          PZ_ERR_INPUT, "s.json:2:2: block 1 (layers 2 to 5, 'relu1' to 'gap'): key 'mp': 3 is out "
          "of range: MP is 1 to 2, the cores available");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 6, 'mp': 1, 'split': 'bands'}]}", 2, PZ_ERR_INPUT,
          "block 0 (layers 0 to 5, 'conv0' to 'gap'): key 'split': 'bands' needs row-local layers, "
          "and layer 5 'gap' is not: GlobalAveragePool pools over all rows (global pooling)");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'first_node': 'conv1'},"
             " {'first': 2, 'count': 4, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "block 0 (layers 0 to 1, 'conv0' to 'conv1'): key 'first_node': the file says 'conv1', "
          "but layer 0 is 'conv0' (a schedule for another model?)");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'last_node': 'relu1'},"
             " {'first': 2, 'count': 4, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "key 'last_node': the file says 'relu1', but layer 1 is 'conv1'");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'strip': 9},"
             " {'first': 2, 'count': 4, 'mp': 1}]}", 2, PZ_ERR_INPUT,
          "key 'strip': 9 rows, but the block");
    APPLY(m, "{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'strip': 9},"
             " {'first': 2, 'count': 4, 'mp': 1}]}", 2, PZ_ERR_INPUT, "last layer 'conv1' has 8");
    /* a failed apply leaves the model as it was */
    CHECK(m->n_blocks == 3 && m->blocks[1].strip == 3);

    /* "layer_precision": a layer's own precision over its block's, by node
     * name or layer number; each a layer of the block, once, with a kernel */
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'layer_precision': {'conv1': 'fp64'}}]}",
              "key 'layer_precision': 'fp64' is not one of 'fp32', 'bf16', 'int8'");
    SCHED_BAD("{'blocks': [{'first': 0, 'count': 2, 'mp': 1, 'layer_precision': ['conv1']}]}",
              "key 'layer_precision': expected an object of layer: precision, found an array");
#define LP(block1) "{'blocks': [{'first': 0, 'count': 1, 'mp': 1}, {'first': 1, 'count': 4, " \
                   "'mp': 2, 'precision': 'bf16', 'layer_precision': " block1 "}, " \
                   "{'first': 5, 'count': 1, 'mp': 1}]}"
    APPLY(m, LP("{'relu9': 'fp32'}"), 2, PZ_ERR_INPUT, "block 1 (layers 1 to 4, 'conv1' to "
          "'add'): key 'layer_precision': 'relu9' names no layer of the block (a node name of "
          "layers 1 to 4, or one of those numbers)");
    APPLY(m, LP("{'5': 'fp32'}"), 2, PZ_ERR_INPUT, "'5' names no layer of the block");
    APPLY(m, LP("{'conv0': 'fp32'}"), 2, PZ_ERR_INPUT, "'conv0' is layer 0, not a layer of this block");
    APPLY(m, LP("{'relu1': 'bf16'}"), 2, PZ_ERR_INPUT, "layer 2 'relu1' (Relu) has no bf16 kernel");
    APPLY(m, LP("{'conv1': 'int8'}"), 2, PZ_ERR_INPUT, "layer 1 'conv1' (Conv) has no int8 kernel");
    APPLY(m, LP("{'1': 'fp32', 'conv1': 'fp32'}"), 2, PZ_ERR_INPUT, "layer 1 'conv1' is listed "
          "twice ('1' and 'conv1')");
    CHECK(m->n_blocks == 3 && m->blocks[1].strip == 3 && m->blocks[1].precision == IR_PREC_FP32);
    APPLY(m, LP("{'conv1': 'fp32', '3': 'fp32'}"), 2, PZ_OK, "");
    CHECK(m->blocks[1].precision == IR_PREC_BF16 && m->layers[1].precision == IR_PREC_FP32 &&
          m->layers[2].precision == IR_PREC_BF16 && m->layers[3].precision == IR_PREC_FP32 &&
          m->layers[4].precision == IR_PREC_BF16 && m->layers[0].precision == IR_PREC_FP32);
#undef LP
    /* back to the good schedule, but block 1 bf16 with conv2 in fp32 (written below) */
    APPLY(m, "{'layers': 6, 'blocks': [{'first': 0, 'count': 1, 'mp': 1},\n"
             " {'first': 1, 'count': 4, 'mp': 2, 'split': 'bands', 'strip': 3, 'precision': 'bf16',"
             " 'layer_precision': {'conv2': 'fp32'}},\n"
             " {'first': 5, 'count': 1, 'mp': 2, 'split': 'channels'}]}", 2, PZ_OK, "");

    /* written, read back and applied: the same blocks and knobs */
    char path[] = "/tmp/pz-sched-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    e = (pz_err){0};
    m->blocks[2].weights = IR_WEIGHTS_FP16;   /* written as "weights": "fp16" */
    CHECK(sched_write_file(m, "unit-test", path, &e) == PZ_OK);
    sched back;
    e = (pz_err){0};
    CHECK(sched_load_file(path, &back, &e) == PZ_OK);
    if (!e.code) {
        CHECK(back.n_layers == 6 && back.n_blocks == 3 && !strcmp(back.strategy, "unit-test"));
        CHECK(!strcmp(back.model, "hand"));
        CHECK(!strcmp(back.blocks[1].first_node, "conv1") && !strcmp(back.blocks[1].last_node, "add"));
        /* apply to a model that starts as one block per layer */
        int ones[6] = {1, 1, 1, 1, 1, 1};
        CHECK(ir_model_partition(m, ones, ones, 6, 1, &e) == PZ_OK && m->n_blocks == 6);
        CHECK(sched_apply(&back, m, 2, &e) == PZ_OK);
        CHECK(m->n_blocks == 3 && m->blocks[1].count == 4 && m->blocks[1].mp == 2);
        CHECK(m->blocks[1].split == IR_SPLIT_BANDS && m->blocks[1].strip == 3);
        CHECK(m->blocks[2].split == IR_SPLIT_CHANNELS && m->blocks[2].mp == 2);
        CHECK(m->blocks[2].weights == IR_WEIGHTS_FP16 && m->blocks[1].weights == IR_WEIGHTS_FP32);
        /* "layer_precision" written by node name and read back */
        CHECK(back.blocks[1].n_lp == 1 && back.blocks[0].n_lp == 0 && back.blocks[2].n_lp == 0);
        CHECK(back.blocks[1].n_lp == 1 && !strcmp(back.blocks[1].lp_key[0], "conv2") &&
              back.blocks[1].lp_prec[0] == IR_PREC_FP32);
        CHECK(m->blocks[1].precision == IR_PREC_BF16 && m->layers[3].precision == IR_PREC_FP32 &&
              m->layers[1].precision == IR_PREC_BF16 && m->layers[5].precision == IR_PREC_FP32);
        sched_free(&back);
    }
    /* no temporary left beside it */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls %s.tmp* 2>/dev/null | grep -q .", path);
    CHECK(system(cmd) != 0);
    unlink(path);
    /* a folder that does not exist: an error, nothing written */
    e = (pz_err){0};
    CHECK(sched_write_file(m, "x", "/nonexistent-dir/s.json", &e) == PZ_ERR_INPUT &&
          strstr(e.msg, "cannot write schedule /nonexistent-dir/s.json"));
    e = (pz_err){0};
    CHECK(sched_load_file("/nonexistent-dir/s.json", &back, &e) == PZ_ERR_INPUT &&
          strstr(e.msg, "cannot open schedule"));
    e = (pz_err){0};
    CHECK(sched_load_file("/tmp", &back, &e) == PZ_ERR_INPUT && strstr(e.msg, "not a regular file"));

    /* mutations of a good file: every one parses or fails cleanly (run under
     * ASan+UBSan by the suite) */
    char *base = q(good);
    size_t n = strlen(base);
    char *buf = pz_xmalloc(n + 8);
    uint64_t rng = 88172645463325252ull;
    int ok = 0, bad_ = 0;
    for (int it = 0; it < 20000; it++) {
        memcpy(buf, base, n);
        size_t len = n;
        int edits = 1 + it % 4;
        for (int k = 0; k < edits; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            size_t at = (size_t)(rng >> 8) % len;
            switch ((rng >> 4) % 4) {
            case 0: buf[at] = (char)(rng >> 24); break;                 /* any byte */
            case 1: buf[at] = "{}[],:\"0-e.\\ "[(rng >> 24) % 13]; break; /* JSON syntax */
            case 2: len = at + 1; break;                                  /* truncate */
            default: memmove(buf + at, buf + at + 1, len - at - 1), len--; /* delete */
            }
            if (!len) len = 1;
        }
        sched sm;
        pz_err pe = {0};
        if (sched_parse(buf, len, "fuzz.json", &sm, &pe) == PZ_OK) {
            ok++;
            pz_err ae = {0};
            sched_apply(&sm, m, 2, &ae);
        } else {
            bad_ += pe.code == PZ_ERR_INPUT && !strncmp(pe.msg, "fuzz.json", 9);
        }
        sched_free(&sm);
    }
    CHECK(ok + bad_ == 20000);
    free(buf);
    free(base);
    free_model(m);
}

int main(void)
{
    test_json();
    test_rows();
    test_halo();
    test_schedule();
    return test_summary("schedule");
}
