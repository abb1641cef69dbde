/* scan.c - Scan (opset 9+): runs body once per slice of the scan inputs.
 *   initial states... (N), scan inputs... (M = num_scan_inputs)
 *   body(states..., one slice of each scan input) -> (states..., scan...)
 *   -> final states... (N), scan outputs... (K, the slices stacked)
 * Attributes: scan_input_axes / scan_output_axes (default 0),
 * scan_input_directions / scan_output_directions (0 forward, 1 reverse).
 * Unrolled at compile time (op_inline.h): the scan length is the scanned
 * axis of the inputs, known then. The first unfold inlines every iteration
 * (a Gather takes each slice) and leaves the node reading the final states
 * and each iteration's scan values (unfold_k = T + 1); the second, with
 * their shapes inferred, stacks them (Unsqueeze, Concat) and gives the
 * outputs. Opset 8's batched form (batch axis 0, scan axis 1, a leading
 * sequence_lens that must be omitted or all full) is unrolled per batch
 * row in one pass (scan8_unfold). */
#include "op_inline.h"

#include <string.h>

#define SCAN_MAX 1024   /* inputs and outputs of a Scan */

typedef struct {
    int N, M, K;
    int64_t in_axes[SCAN_MAX], in_dirs[SCAN_MAX], out_axes[SCAN_MAX], out_dirs[SCAN_MAX];
} scan_attrs;

static pz_status scan_read(const ir_graph *g, const ir_node *n, const ir_graph *body,
                           scan_attrs *a, pz_err *err)
{
    int64_t m;
    if (op_attr_int(n, "num_scan_inputs", -1, &m, err)) return err->code;
    if (m < 1 || m > n->n_in)
        return op_err_attr(err, n, "num_scan_inputs", "is %lld; it must be 1 to the %d inputs",
                           (long long)m, n->n_in);
    a->M = (int)m;
    a->N = n->n_in - a->M;
    a->K = body->n_outputs - a->N;
    if (body->n_inputs != a->N + a->M || a->K < 0 || n->n_out != a->N + a->K)
        return op_err_attr(err, n, "body", "takes %d inputs and gives %d outputs; the node has "
                           "%d states, %d scan inputs and %d outputs", body->n_inputs,
                           body->n_outputs, a->N, a->M, n->n_out);
    /* Every state and scan input is required: the body reads each one. */
    for (int i = 0; i < n->n_in; i++)
        if (!op_in(g, n, i)) return op_err(err, n, "input %d is missing", i);
    struct { const char *name; int64_t *v; int count; int scan_in; } lists[4] = {
        {"scan_input_axes", a->in_axes, a->M, 1}, {"scan_input_directions", a->in_dirs, a->M, 1},
        {"scan_output_axes", a->out_axes, a->K, 0}, {"scan_output_directions", a->out_dirs, a->K, 0},
    };
    for (int l = 0; l < 4; l++) {
        int cnt;
        if (op_attr_ints(n, lists[l].name, lists[l].v, SCAN_MAX, &cnt, err)) return err->code;
        if (cnt < 0) {
            for (int j = 0; j < lists[l].count; j++) lists[l].v[j] = 0;
        } else if (cnt != lists[l].count) {
            return op_err_attr(err, n, lists[l].name, "has %d values; %d expected", cnt,
                               lists[l].count);
        }
        for (int j = 0; j < lists[l].count; j++) {
            if (strstr(lists[l].name, "directions")) {
                if (lists[l].v[j] != 0 && lists[l].v[j] != 1)
                    return op_err_attr(err, n, lists[l].name, "value %lld: 0 or 1 expected",
                                       (long long)lists[l].v[j]);
            } else if (lists[l].scan_in) {
                int ax;
                if (op_axis(n, lists[l].name, lists[l].v[j], op_in(g, n, a->N + j)->rank, 0,
                            &ax, err))
                    return err->code;
                lists[l].v[j] = ax;
            }
        }
    }
    return PZ_OK;
}

/* Second visit: inputs are the final states, then T iterations of K scan
 * values; stack them. */
static pz_status scan_stack(ir_graph *g, int i, const scan_attrs *a, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    int64_t T = n->unfold_k - 1;
    if (g->n_nodes + (int64_t)a->K * (T + 1) > OP_UNROLL_MAX_NODES)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Scan): stacking %d scan outputs "
                       "of %lld iterations would grow the graph beyond %d nodes", n->name, a->K,
                       (long long)T, OP_UNROLL_MAX_NODES);
    int *src = pz_xmalloc((size_t)(n->n_out ? n->n_out : 1) * sizeof(int));
    for (int j = 0; j < a->N; j++) src[j] = n->in[j];
    char *name = pz_xstrdup(n->name);
    size_t len = strlen(name) + 48;
    char *buf = pz_xmalloc(len);
    int start = g->n_nodes;
    pz_status st = PZ_OK;
    for (int s = 0; s < a->K && !st; s++) {
        src[a->N + s] = -1;
        if (g->nodes[i].out[a->N + s] < 0) continue;
        int r = g->values[g->nodes[i].in[a->N + s]].t.rank;
        int ax;
        if (op_axis(&g->nodes[i], "scan_output_axes", a->out_axes[s], r + 1, 0, &ax, err)) {
            st = err->code;
            break;
        }
        int *parts = pz_xmalloc((size_t)T * sizeof(int));
        for (int64_t t = 0; t < T; t++)
            parts[t] = g->nodes[i].in[a->N + (a->out_dirs[s] ? T - 1 - t : t) * a->K + s];
        snprintf(buf, len, "%s/scan%d", name, s);
        src[a->N + s] = op_append_stack(g, buf, parts, T, ax);
        free(parts);
    }
    if (!st) op_replace_by_tail(g, i, start, src);
    free(buf);
    free(name);
    free(src);
    return st;
}

/* Appends Gather(x, index, axis) and returns its output. */
static int take(ir_graph *g, const char *name, int x, int64_t index, int64_t axis)
{
    int ix = op_new_const(g, name, IR_I64, 0, NULL, &index);
    int y = ir_graph_add_value_unique(g, name);
    int ins[2] = {x, ix};
    int k = op_append_node(g, name, "Gather", ins, 2, &y, 1);
    ir_node_add_attr_int(&g->nodes[k], "axis", axis);
    return y;
}

/* Opset 8: inputs sequence_lens?, states [B, ...] (N), scan inputs [B, T,
 * ...] (M); outputs final states [B, ...], scan outputs [B, T, ...]; the
 * attribute `directions` per scan input. Every axis that is stacked is 0 of
 * a row's values, so it all happens in one pass. */
static pz_status scan8_unfold(ir_graph *g, int i, const ir_graph *body, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    int64_t m, dirs[SCAN_MAX];
    int cnt;
    if (op_attr_int(n, "num_scan_inputs", -1, &m, err)) return err->code;
    int M = (int)m, N = n->n_in - 1 - M, K = body->n_outputs - N;
    if (M < 1 || N < 0 || K < 0 || body->n_inputs != N + M || n->n_out != N + K ||
        n->n_in > SCAN_MAX)
        return op_err_attr(err, n, "body", "takes %d inputs and gives %d outputs; the node has "
                           "%d inputs (sequence_lens first), %lld scan inputs and %d outputs",
                           body->n_inputs, body->n_outputs, n->n_in, (long long)m, n->n_out);
    if (op_attr_ints(n, "directions", dirs, SCAN_MAX, &cnt, err)) return err->code;
    if (cnt >= 0 && cnt != M) return op_err_attr(err, n, "directions", "has %d values, %d expected", cnt, M);
    for (int j = 0; j < M; j++) {
        if (cnt < 0) dirs[j] = 0;
        if (dirs[j] != 0 && dirs[j] != 1)
            return op_err_attr(err, n, "directions", "value %lld: 0 or 1 expected", (long long)dirs[j]);
    }
    for (int j = 1; j < n->n_in; j++)
        if (!op_in(g, n, j)) return op_err(err, n, "input %d is missing", j);
    const ir_tensor *x0 = op_in(g, n, 1 + N);
    if (x0->rank < 2) return op_err(err, n, "scan input 0 has rank %d; [batch, sequence, ...] expected", x0->rank);
    int64_t B = x0->dims[0], T = x0->dims[1];
    for (int j = 0; j < N + M; j++) {
        const ir_tensor *t = op_in(g, n, 1 + j);
        if (t->rank < (j < N ? 1 : 2) || t->dims[0] != B || (j >= N && t->dims[1] != T))
            return op_err(err, n, "input %d does not have batch %lld%s", 1 + j, (long long)B,
                          j >= N ? " and sequence length of scan input 0" : "");
    }
    if (n->in[0] >= 0) {
        const ir_tensor *l = op_in(g, n, 0);
        if (!l->data || l->dtype != IR_I32 || ir_tensor_numel(l) != B)
            return op_need_const(err, g, n, 0, "sequence_lens", "per-row lengths are unrolled "
                                 "at compile time");
        for (int64_t b = 0; b < B; b++)
            if (((const int32_t *)l->data)[b] != T)
                return op_err(err, n, "sequence_lens[%lld] is %d; only full sequences (%lld) are "
                              "supported", (long long)b, ((const int32_t *)l->data)[b], (long long)T);
    }
    if ((int64_t)(body->n_nodes + M + K) * T * B + g->n_nodes > OP_UNROLL_MAX_NODES)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Scan): unrolling %lld x %lld "
                       "iterations would grow the graph beyond %d nodes", n->name, (long long)B,
                       (long long)T, OP_UNROLL_MAX_NODES);
    if (T == 0 && K > 0) return op_err(err, n, "the scan length is 0: not supported");
    char *name = pz_xstrdup(n->name);
    size_t len = strlen(name) + 64;
    char *buf = pz_xmalloc(len);
    int *args = pz_xmalloc((size_t)(N + M + 1) * sizeof(int));
    int *outs = pz_xmalloc((size_t)(N + K + 1) * sizeof(int));
    int *rows = pz_xmalloc((size_t)((N + K) * B + 1) * sizeof(int));      /* [j][b] */
    int *steps = pz_xmalloc((size_t)(K * T + 1) * sizeof(int));           /* [s][t] */
    int *src = pz_xmalloc((size_t)(N + K + 1) * sizeof(int));
    int start = g->n_nodes;
    pz_status st = PZ_OK;
    for (int64_t b = 0; b < B && !st; b++) {
        int xs[SCAN_MAX];
        for (int j = 0; j < N; j++) {
            snprintf(buf, len, "%s/b%lld/state%d", name, (long long)b, j);
            args[j] = take(g, buf, g->nodes[i].in[1 + j], b, 0);
        }
        for (int j = 0; j < M; j++) {
            snprintf(buf, len, "%s/b%lld/x%d", name, (long long)b, j);
            xs[j] = take(g, buf, g->nodes[i].in[1 + N + j], b, 0);
        }
        for (int64_t t = 0; t < T && !st; t++) {
            for (int j = 0; j < M; j++) {
                snprintf(buf, len, "%s/b%lld/%lld/slice%d", name, (long long)b, (long long)t, j);
                args[N + j] = take(g, buf, xs[j], dirs[j] ? T - 1 - t : t, 0);
            }
            snprintf(buf, len, "%s/b%lld/%lld", name, (long long)b, (long long)t);
            st = op_inline(g, &g->nodes[i], "body", body, buf, args, N + M, outs, err);
            for (int j = 0; j < N; j++) args[j] = outs[j];
            for (int s = 0; s < K; s++) steps[s * T + t] = outs[N + s];
        }
        for (int j = 0; j < N; j++) rows[j * B + b] = args[j];
        for (int s = 0; s < K && !st; s++) {
            snprintf(buf, len, "%s/b%lld/scan%d", name, (long long)b, s);
            rows[(N + s) * B + b] = op_append_stack(g, buf, &steps[s * T], T, 0);
        }
    }
    for (int j = 0; j < N + K && !st; j++) {
        snprintf(buf, len, "%s/out%d", name, j);
        src[j] = op_append_stack(g, buf, &rows[j * B], B, 0);
    }
    if (!st) op_replace_by_tail(g, i, start, src);
    free(src);
    free(steps);
    free(rows);
    free(outs);
    free(args);
    free(buf);
    free(name);
    return st;
}

static pz_status scan_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_graph *body;
    if (op_attr_graph(n, "body", &body, err)) return err->code;
    if (g->opset < 9) return scan8_unfold(g, i, body, err);
    scan_attrs *a = pz_xcalloc(1, sizeof *a);
    pz_status st;
    if (n->unfold_k > 0) {
        /* N and K from the body, the output attributes as on the first visit */
        int64_t m;
        if (op_attr_int(n, "num_scan_inputs", -1, &m, err)) goto out;
        a->N = body->n_inputs - (int)m;
        a->K = body->n_outputs - a->N;
        int cnt;
        if (op_attr_ints(n, "scan_output_axes", a->out_axes, SCAN_MAX, &cnt, err) ||
            op_attr_ints(n, "scan_output_directions", a->out_dirs, SCAN_MAX, &cnt, err))
            goto out;
        st = scan_stack(g, i, a, err);
        free(a);
        return st;
    }
    if (n->n_in > SCAN_MAX || n->n_out > SCAN_MAX) {
        op_err(err, n, "more than %d inputs or outputs", SCAN_MAX);
        goto out;
    }
    if (scan_read(g, n, body, a, err)) goto out;
    int64_t T = -1;
    for (int j = 0; j < a->M; j++) {
        const ir_tensor *x = op_in(g, n, a->N + j);
        int64_t len_j = x->dims[a->in_axes[j]];
        if (T >= 0 && len_j != T) {
            op_err(err, n, "scan input %d has %lld slices along its axis, scan input 0 %lld", j,
                   (long long)len_j, (long long)T);
            goto out;
        }
        T = len_j;
    }
    if (T == 0 && a->K > 0) {
        op_err(err, n, "the scan length is 0, so its scan outputs would have no element shape: "
               "not supported");
        goto out;
    }
    if ((int64_t)(body->n_nodes + a->M) * T + g->n_nodes > OP_UNROLL_MAX_NODES ||
        T > OP_UNROLL_MAX_ITERS) {
        pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Scan): unrolling %lld iterations of its "
                "body would grow the graph beyond %d nodes (control flow is unrolled at "
                "compile time)", n->name, (long long)T, OP_UNROLL_MAX_NODES);
        goto out;
    }
    {
        int N = a->N, M = a->M, K = a->K;
        int *state = pz_xmalloc((size_t)(N + M + 1) * sizeof(int));
        int *outs = pz_xmalloc((size_t)(N + K + 1) * sizeof(int));
        int *stacked = pz_xmalloc((size_t)(N + T * K + 1) * sizeof(int));
        char *name = pz_xstrdup(n->name);
        size_t len = strlen(name) + 64;
        char *buf = pz_xmalloc(len);
        for (int j = 0; j < N; j++) state[j] = n->in[j];
        int *xs = pz_xmalloc((size_t)(M + 1) * sizeof(int));
        for (int j = 0; j < M; j++) xs[j] = n->in[N + j];
        int start = g->n_nodes;
        st = PZ_OK;
        for (int64_t t = 0; t < T && !st; t++) {
            for (int j = 0; j < M; j++) {
                int64_t idx = a->in_dirs[j] ? T - 1 - t : t;
                snprintf(buf, len, "%s/%lld/slice%d", name, (long long)t, j);
                int ix = op_new_const(g, buf, IR_I64, 0, NULL, &idx);
                int y = ir_graph_add_value_unique(g, buf);
                int ins[2] = {xs[j], ix};
                int k = op_append_node(g, buf, "Gather", ins, 2, &y, 1);
                ir_node_add_attr_int(&g->nodes[k], "axis", a->in_axes[j]);
                state[N + j] = y;
            }
            snprintf(buf, len, "%s/%lld", name, (long long)t);
            st = op_inline(g, &g->nodes[i], "body", body, buf, state, N + M, outs, err);
            for (int j = 0; j < N; j++) state[j] = outs[j];
            for (int s = 0; s < K; s++) stacked[N + t * K + s] = outs[N + s];
        }
        if (!st) {
            for (int j = 0; j < N; j++) stacked[j] = state[j];
            int added = g->n_nodes - start;
            ir_graph_move_tail(g, start, i);
            ir_node *m = &g->nodes[i + added];
            ir_node_set_n_in(m, N + (int)T * K);
            memcpy(m->in, stacked, (size_t)(N + T * K) * sizeof(int));
            m->unfold_k = T + 1;
        }
        free(xs);
        free(buf);
        free(name);
        free(stacked);
        free(outs);
        free(state);
        free(a);
        return st;
    }
out:
    free(a);
    return err->code;
}

const op_def op_scan = {
    .name = "Scan",
    .min_in = 0,   /* opset 8's sequence_lens may be omitted: refused by name */ .max_in = 4096, .min_out = 1, .max_out = 4096,
    .infer = op_unfold_only,
    .unfold = scan_unfold,
};
