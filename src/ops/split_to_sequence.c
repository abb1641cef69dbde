/* split_to_sequence.c - SplitToSequence: X cut along `axis` into a sequence.
 *   X, split (int, optional: a scalar chunk size or 1-D sizes) -> a sequence
 * Without split: pieces of size 1, with the axis dropped when keepdims = 0.
 * A scalar split s: pieces of s, the last one shorter if the axis does not
 * divide. Unfolded at compile time (op_seq.h) into a Slice per piece
 * (and a Reshape dropping the axis) read by a SequenceConstruct; split
 * sizes or a chunk size read at run time and an axis of a run-time
 * length: below. */
#include "op_seq.h"
#include "op_inline.h"

#include <string.h>

/* Appends Slice(x, [b], [e], [axis]) and returns its output. */
static int append_slice(ir_graph *g, const char *name, int x, int64_t b, int64_t e, int64_t axis)
{
    int64_t one = 1;
    int ins[4] = {x, op_new_const(g, name, IR_I64, 1, &one, &b),
                  op_new_const(g, name, IR_I64, 1, &one, &e),
                  op_new_const(g, name, IR_I64, 1, &one, &axis)};
    int y = ir_graph_add_value_unique(g, name);
    op_append_node(g, name, "Slice", ins, 4, &y, 1);
    return y;
}

/* Split sizes read at run time (a 1-D split nothing binds): as many pieces
 * as split has sizes, piece k = Slice(x, starts[k], ends[k]) with ends =
 * CumSum(split) and starts = ends - split, read at run time (a dynamic
 * region). The sizes must add up to the axis, as ONNX Runtime demands: a
 * Reshape of `len` zero bytes to [ends[-1]] fails the run otherwise,
 * naming the check; ends then pass through Min(ends, Shape(that)), which
 * changes nothing and keeps the check from being dropped as unread. */
static pz_status split_at_run_time(ir_graph *g, int i, int ax, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_tensor *st = op_in(g, n, 1);
    if (st->rank != 1 || (st->dtype != IR_I64 && st->dtype != IR_I32))
        return op_err(err, n, "split is read at run time: it must be a 1-D int32 or int64 "
                      "tensor of sizes or such a scalar chunk size");
    int64_t cnt = st->dims[0], zero = 0, one = 1, axis = ax;
    if (cnt > OP_UNROLL_MAX_ITERS)
        return op_err(err, n, "%lld split sizes are more than %d", (long long)cnt,
                      OP_UNROLL_MAX_ITERS);
    const int64_t len = op_in(g, n, 0)->dims[ax];
    if (cnt == 0 && len != 0)
        return op_err(err, n, "split has no sizes; axis %d has %lld", ax, (long long)len);
    char *name = pz_xstrdup(n->name);
    size_t nlen = strlen(name) + 32;
    char *buf = pz_xmalloc(nlen);
    int start = g->n_nodes, sp = n->in[1], x = n->in[0];
    ir_dtype dt = op_in(g, n, 0)->dtype;
    if (st->dtype != IR_I64) {
        snprintf(buf, nlen, "%s/split64", name);
        int c = ir_graph_add_value_unique(g, buf);
        ir_node_add_attr_int(&g->nodes[op_append_node(g, buf, "Cast", &sp, 1, &c, 1)], "to",
                             IR_I64);
        sp = c;
    }
    snprintf(buf, nlen, "%s/ends", name);
    int ends = ir_graph_add_value_unique(g, buf);
    int cs[2] = {sp, op_new_const(g, buf, IR_I64, 0, NULL, &zero)};
    op_append_node(g, buf, "CumSum", cs, 2, &ends, 1);
    if (cnt > 0) {
        snprintf(buf, nlen, "%s/split_sizes_must_add_up_to_%lld", name, (long long)len);
        uint8_t *zeros = pz_xcalloc((size_t)(len > 0 ? len : 1), 1);
        int last = append_slice(g, buf, ends, cnt - 1, cnt, 0);
        int chk = ir_graph_add_value_unique(g, buf), shp = ir_graph_add_value_unique(g, buf),
            ends2 = ir_graph_add_value_unique(g, buf);
        op_append_node(g, buf, "Reshape",
                       (int[]){op_new_const(g, buf, IR_U8, 1, &len, zeros), last}, 2, &chk, 1);
        free(zeros);
        op_append_node(g, buf, "Shape", &chk, 1, &shp, 1);
        op_append_node(g, buf, "Min", (int[]){ends, shp}, 2, &ends2, 1);
        ends = ends2;
    }
    snprintf(buf, nlen, "%s/starts", name);
    int starts = ir_graph_add_value_unique(g, buf);
    op_append_node(g, buf, "Sub", (int[]){ends, sp}, 2, &starts, 1);
    int *parts = pz_xmalloc((size_t)(cnt ? cnt : 1) * sizeof(int));
    for (int64_t k = 0; k < cnt; k++) {
        int se[2];
        for (int e = 0; e < 2; e++) {
            snprintf(buf, nlen, "%s/%lld/%s", name, (long long)k, e ? "end" : "start");
            se[e] = append_slice(g, buf, e ? ends : starts, k, k + 1, 0);
        }
        snprintf(buf, nlen, "%s/%lld", name, (long long)k);
        int ins[4] = {x, se[0], se[1], op_new_const(g, buf, IR_I64, 1, &one, &axis)};
        parts[k] = ir_graph_add_value_unique(g, buf);
        op_append_node(g, buf, "Slice", ins, 4, &parts[k], 1);
    }
    int added = g->n_nodes - start;
    ir_graph_move_tail(g, start, i);
    op_seq_rewrite(g, i + added, parts, (int)cnt, dt);
    free(parts);
    free(buf);
    free(name);
    return PZ_OK;
}

static pz_status split_to_sequence_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis, keepdims;
    int ax;
    if (op_attr_int(n, "axis", 0, &axis, err) || op_attr_int(n, "keepdims", 1, &keepdims, err) ||
        op_axis(n, "axis", axis, x->rank, 0, &ax, err))
        return err->code;
    int has_split = n->n_in >= 2 && n->in[1] >= 0;
    if (has_split && g->values[n->in[0]].dyn)
        return op_err(err, n, "input \"%s\" has a shape known only at run time: split sizes "
                      "over an axis of a run-time length are not supported (without split "
                      "or with a scalar one, the pieces are)", g->values[n->in[0]].name);
    if (has_split && g->rt_shapes && !op_in(g, n, 1)->data && !g->values[n->in[1]].dyn)
        return split_at_run_time(g, i, ax, err);
    int64_t len = x->dims[ax];
    /* pieces: at most len, or as many as split has sizes (sizes may be 0) */
    const ir_tensor *st = n->n_in >= 2 && n->in[1] >= 0 ? op_in(g, n, 1) : NULL;
    const int64_t most = st && ir_tensor_numel(st) > len ? ir_tensor_numel(st) : len;
    int64_t *sizes = pz_xmalloc((size_t)(most > 0 ? most : 1) * sizeof(int64_t));
    int cnt = 0, squeeze = 0;
    if (n->n_in < 2 || n->in[1] < 0) {
        for (int64_t k = 0; k < len; k++) sizes[cnt++] = 1;
        squeeze = !keepdims;
    } else {
        const ir_tensor *s = op_in(g, n, 1);
        int got;
        int64_t *want = pz_xmalloc((size_t)(most + 1) * sizeof(int64_t));
        if (op_const_ints(g, n, 1, "split", want, (int)most + 1, &got, err)) {
            free(want);
            free(sizes);
            return err->code;
        }
        int64_t sum = 0;
        for (int k = 0; k < got; k++) {
            if (want[k] < (s->rank == 0 ? 1 : 0)) {
                const long long bad = (long long)want[k];
                free(want);
                free(sizes);
                return op_err(err, n, "split size %lld is not allowed", bad);
            }
            sum += want[k];
        }
        if (s->rank == 0) {
            for (int64_t b = 0; b < len; b += want[0]) sizes[cnt++] = len - b < want[0] ? len - b : want[0];
        } else if (sum != len) {
            free(want);
            free(sizes);
            return op_err(err, n, "the split sizes add up to %lld; axis %d has %lld", (long long)sum,
                          ax, (long long)len);
        } else {
            memcpy(sizes, want, (size_t)got * sizeof(int64_t));
            cnt = got;
        }
        free(want);
    }
    int *parts = pz_xmalloc((size_t)(cnt ? cnt : 1) * sizeof(int));
    int64_t rest[IR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != ax) rest[r++] = x->dims[d];
    char *name = pz_xstrdup(n->name);
    size_t nlen = strlen(name) + 24;
    char *buf = pz_xmalloc(nlen);
    int in = n->in[0], start = g->n_nodes;
    ir_dtype dt = x->dtype;
    int64_t b = 0;
    for (int k = 0; k < cnt; k++) {
        snprintf(buf, nlen, "%s/%d", name, k);
        parts[k] = append_slice(g, buf, in, b, b + sizes[k], ax);
        b += sizes[k];
        if (squeeze) {
            int64_t rr = r;
            int ins[2] = {parts[k], op_new_const(g, buf, IR_I64, 1, &rr, rest)};
            parts[k] = ir_graph_add_value_unique(g, buf);
            op_append_node(g, buf, "Reshape", ins, 2, &parts[k], 1);
        }
    }
    int added = g->n_nodes - start;
    ir_graph_move_tail(g, start, i);
    op_seq_rewrite(g, i + added, parts, cnt, dt);
    free(buf);
    free(name);
    free(parts);
    free(sizes);
    return PZ_OK;
}

/* No split over an axis of a run-time length (X of a run-time shape), or
 * a scalar split over such an axis or read at run time (nothing binds it):
 * the sequence's length is the run's, so the node stays, a sequence whose
 * readers read X itself (op_seq_split_rt): SequenceAt becomes a Gather (a
 * Slice of the run's bounds with a split), SequenceLength X's dim (over
 * the split, rounded up), ConcatFromSequence that rebuilds X X. */
static int split_unfolds(const ir_graph *g, const ir_node *n)
{
    if (n->n_in < 1 || n->in[0] < 0) return 1;
    const int dyn = g->values[n->in[0]].dyn;
    if (n->n_in < 2 || n->in[1] < 0) return !dyn;
    const ir_tensor *s = op_in(g, n, 1);
    return s->rank != 0 || (!dyn && (!g->rt_shapes || s->data || g->values[n->in[1]].dyn));
}

static pz_status split_rt_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    const ir_tensor *x = op_in(g, n, 0);
    int64_t axis;
    int ax;
    if (op_attr_int(n, "axis", 0, &axis, err) || op_axis(n, "axis", axis, x->rank, 0, &ax, err))
        return err->code;
    const ir_tensor *s = n->n_in >= 2 && n->in[1] >= 0 ? op_in(g, n, 1) : NULL;
    if (s && s->dtype != IR_I64 && s->dtype != IR_I32)
        return op_err(err, n, "split has type %s, the op takes int32 or int64",
                      ir_dtype_name(s->dtype));
    op_set_container(g, n, IR_KIND_SEQ, x->dtype);
    return PZ_OK;
}

const op_def op_split_to_sequence = {
    .name = "SplitToSequence",
    .min_in = 1, .max_in = 2, .min_out = 1, .max_out = 1,
    .infer = split_rt_infer,
    .unfold = split_to_sequence_unfold,
    .unfolds = split_unfolds,
};
