/* op_seq_split.c - the readers' arithmetic of a sequence that
 * SplitToSequence cuts at run time with a scalar split s (op_seq.h): the
 * checked chunk size and the count, as graph nodes the run computes. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

/* Appends op_type(a, b) named name; returns its output. */
static int bin(ir_graph *g, const char *name, const char *op_type, int a, int b)
{
    int y = ir_graph_add_value_unique(g, name);
    op_append_node(g, name, op_type, (int[]){a, b}, 2, &y, 1);
    return y;
}

static int i64_const(ir_graph *g, const char *name, int64_t v)
{
    const int64_t one = 1;
    return op_new_const(g, name, IR_I64, 1, &one, &v);
}

int op_seq_i64_vec1(ir_graph *g, const char *name, int v)
{
    if (g->values[v].t.dtype != IR_I64) {
        int c = ir_graph_add_value_unique(g, name);
        ir_node_add_attr_int(&g->nodes[op_append_node(g, name, "Cast", &v, 1, &c, 1)], "to",
                             IR_I64);
        v = c;
    }
    return bin(g, name, "Reshape", v, i64_const(g, name, 1));
}

/* A Reshape of one zero byte to [2 - ok] (ok a 1-D int64 [0 or 1]) named
 * name: it fails the run naming name when ok is 0 (2 elements wanted, 1
 * given; 0 would copy the dim). Returns Shape(that): [1] once it passed. */
static int must(ir_graph *g, const char *name, int ok)
{
    const uint8_t zero = 0;
    const int64_t one = 1;
    int shp = bin(g, name, "Sub", i64_const(g, name, 2), ok);
    int chk = bin(g, name, "Reshape", op_new_const(g, name, IR_U8, 1, &one, &zero), shp);
    int y = ir_graph_add_value_unique(g, name);
    op_append_node(g, name, "Shape", &chk, 1, &y, 1);
    return y;
}

int op_seq_split_step(ir_graph *g, const char *sp_name, int split)
{
    size_t nlen = strlen(sp_name) + 40;
    char *buf = pz_xmalloc(nlen);
    snprintf(buf, nlen, "%s/split", sp_name);
    int s = op_seq_i64_vec1(g, buf, split);
    /* ok = Max(Min(s, 1), 0): 1 for s >= 1, else 0 */
    snprintf(buf, nlen, "%s/split_must_be_positive", sp_name);
    int ok = bin(g, buf, "Max", bin(g, buf, "Min", s, i64_const(g, buf, 1)),
                 i64_const(g, buf, 0));
    /* Max(s, [1]) is s once the check passed: it keeps the check read */
    int y = bin(g, buf, "Max", s, must(g, buf, ok));
    free(buf);
    return y;
}

int op_seq_split_count(ir_graph *g, const char *name, int x, int ax, int s)
{
    int sh = ir_graph_add_value_unique(g, name);
    op_append_node(g, name, "Shape", &x, 1, &sh, 1);
    int d = bin(g, name, "Gather", sh, i64_const(g, name, ax));
    /* ceil(d / s) = (d + s - 1) / s, s >= 1 */
    return bin(g, name, "Div", bin(g, name, "Sub", bin(g, name, "Add", d, s), i64_const(g, name, 1)),
               s);
}

int op_seq_split_at(ir_graph *g, const char *name, int x, int ax, int s, int pos)
{
    size_t nlen = strlen(name) + 40;
    char *buf = pz_xmalloc(nlen);
    snprintf(buf, nlen, "%s/piece", name);
    int cnt = op_seq_split_count(g, buf, x, ax, s), p = op_seq_i64_vec1(g, buf, pos);
    /* -count <= p < count, as ONNX Runtime demands */
    snprintf(buf, nlen, "%s/position_must_be_in_the_sequence", name);
    int neg = ir_graph_add_value_unique(g, buf);
    op_append_node(g, buf, "Neg", &cnt, 1, &neg, 1);
    int in = bin(g, buf, "And", bin(g, buf, "GreaterOrEqual", p, neg), bin(g, buf, "Less", p, cnt));
    int ok = ir_graph_add_value_unique(g, buf);
    ir_node_add_attr_int(&g->nodes[op_append_node(g, buf, "Cast", &in, 1, &ok, 1)], "to", IR_I64);
    int cnt2 = bin(g, buf, "Max", cnt, must(g, buf, ok));   /* cnt >= 1 once it passed */
    snprintf(buf, nlen, "%s/piece", name);
    int start = bin(g, buf, "Mul", bin(g, buf, "Mod", p, cnt2), s);   /* Mod: p + cnt if < 0 */
    int end = bin(g, buf, "Add", start, s);   /* Slice clamps the last piece's end */
    int y = ir_graph_add_value_unique(g, buf);
    op_append_node(g, buf, "Slice", (int[]){x, start, end, i64_const(g, buf, ax)}, 4, &y, 1);
    free(buf);
    return y;
}
