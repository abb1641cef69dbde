/* loop.c - Loop: runs body while i < M and cond, carrying N values.
 *   M (int64, optional), cond (bool, optional), v_initial... (N)
 *   body(iteration_num, cond_in, v_in...) -> (cond_out, v_out..., scan...)
 *   -> v_final... (N), scan outputs... (K, stacked along a new axis 0)
 * Unrolled at compile time (op_inline.h), one iteration per unfold: the node
 * stays after the inlined body with its inputs advanced (M - 1, cond_out,
 * v_out, then each iteration's scan values appended) and unfold_k
 * counting the iterations done. It needs M and the condition known at
 * compile time (constants, or computed from inputs bound at load); a
 * condition computed from run-time data is refused. When the loop ends, the
 * node gives v_out and the stacked scan values.
 * A trip count or condition read at run time (nothing binds it) is run at
 * run time instead: loop_at_run_time below. */
#include "op_inline.h"
#include "op_infer.h"
#include "op_seq.h"

#include <string.h>

/* A one-element constant for the body's formal input v (its declared rank,
 * 0 or 1). */
static int body_scalar(ir_graph *g, const ir_graph *body, int v, const char *name, ir_dtype dt,
                       const void *data)
{
    int64_t one = 1;
    int rank = body->values[v].decl_rank == 1 ? 1 : 0;
    return op_new_const(g, name, dt, rank, &one, data);
}

/* The loop is over: the outputs are the carried values and the stacked
 * scan values of the k iterations done. */
static pz_status loop_finish(ir_graph *g, int i, int N, int K, int64_t k, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    if (K > 0 && k == 0)
        return op_err(err, n, "the loop runs zero times, so its %d scan output(s) would be "
                      "empty with no element shape: not supported", K);
    if (g->n_nodes + (int64_t)K * (k + 1) > OP_UNROLL_MAX_NODES)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Loop): stacking %d scan outputs "
                       "of %lld iterations would grow the graph beyond %d nodes", n->name, K,
                       (long long)k, OP_UNROLL_MAX_NODES);
    int n_out = n->n_out;
    int *src = pz_xmalloc((size_t)(n_out ? n_out : 1) * sizeof(int));
    for (int j = 0; j < N && j < n_out; j++) src[j] = n->in[2 + j];
    char *name = pz_xstrdup(n->name);
    size_t len = strlen(name) + 48;
    char *buf = pz_xmalloc(len);
    int start = g->n_nodes;
    for (int s = 0; s < K && N + s < n_out; s++) {
        if (g->nodes[i].out[N + s] < 0) { src[N + s] = -1; continue; }
        int *parts = pz_xmalloc((size_t)k * sizeof(int));
        for (int64_t t = 0; t < k; t++) parts[t] = g->nodes[i].in[2 + N + t * K + s];
        snprintf(buf, len, "%s/scan%d", name, s);
        src[N + s] = op_append_stack(g, buf, parts, k, 0);
        free(parts);
    }
    op_replace_by_tail(g, i, start, src);
    free(buf);
    free(name);
    free(src);
    return PZ_OK;
}

/* The body's condition output is Identity of its condition input or of a
 * value from outside the body (PyTorch's for loops: a constant true). */
static int body_passes_cond(const ir_graph *body)
{
    for (int b = 0; b < body->n_nodes; b++) {
        const ir_node *bn = &body->nodes[b];
        if (bn->n_out < 1 || bn->out[0] != body->outputs[0]) continue;
        if (strcmp(bn->op_type, "Identity") || bn->n_in != 1) return 0;
        if (bn->in[0] == body->inputs[1]) return 1;
        for (int c = 0; c < body->n_nodes; c++)
            for (int k = 0; k < body->nodes[c].n_out; k++)
                if (body->nodes[c].out[k] == bn->in[0]) return 0;
        for (int k = 0; k < body->n_inputs; k++)
            if (body->inputs[k] == bn->in[0]) return 0;
        return 1;
    }
    return body->outputs[0] == body->inputs[1];
}

/* Carried value j of Loop n is a list the body appends to: it starts as an
 * empty sequence and the body's v_out is SequenceInsert(v_in, t) with no
 * position, v_in read nowhere else (PyTorch's list.append in a scripted
 * loop). Then it is a scan output of t in disguise (loop_lists). */
static int appended_list(const ir_graph *g, const ir_node *n, const ir_graph *body, int j)
{
    const ir_value *v0 = &g->values[n->in[2 + j]];
    if (v0->kind != IR_KIND_SEQ || v0->producer < 0 || g->nodes[v0->producer].n_in != 0)
        return 0;
    int vin = body->inputs[2 + j], vout = body->outputs[1 + j], p = -1, uses = 0;
    for (int b = 0; b < body->n_nodes; b++) {
        const ir_node *bn = &body->nodes[b];
        for (int k = 0; k < bn->n_out; k++) p = bn->out[k] == vout ? b : p;
        for (int k = 0; k < bn->n_in; k++) uses += bn->in[k] == vin;
    }
    for (int o = 0; o < body->n_outputs; o++) uses += body->outputs[o] == vin;
    if (p < 0 || uses != 1) return 0;
    const ir_node *bn = &body->nodes[p];
    return !strcmp(bn->op_type, "SequenceInsert") && bn->n_in >= 2 && bn->in[0] == vin &&
           (bn->n_in < 3 || bn->in[2] < 0);
}

/* The readers of list F (a Loop's output, appended to per iteration) read
 * S, its elements stacked along a new axis 0, instead: ConcatFromSequence
 * at axis 0 with new_axis 1 is S, with new_axis 0 S reshaped to [-1] +
 * S's dims from the third (read at run time); SequenceAt is Gather(S, pos);
 * SequenceLength is S's first dim. Any other reader is refused by name. */
static pz_status list_readers(ir_graph *g, const ir_node *loop, int F, int S, pz_err *err)
{
    if (g->values[F].is_output)
        return op_err(err, loop, "output \"%s\", a list appended to per iteration, is a graph "
                      "output: with a trip count or condition read at run time its length is "
                      "the run's, and a graph output sequence has a compile-time length",
                      g->values[F].name);
    size_t len = strlen(g->values[F].name) + 32;
    char *buf = pz_xmalloc(len);
    pz_status st = PZ_OK;
    for (int r = 0; r < g->n_nodes && !st; r++) {
        ir_node *rn = &g->nodes[r];
        if (rn->n_in < 1 || rn->in[0] != F) continue;
        int64_t axis = -1, nw = 0;
        int start = g->n_nodes;
        if (!strcmp(rn->op_type, "ConcatFromSequence") &&
            (op_attr_int(rn, "axis", -1, &axis, err) || op_attr_int(rn, "new_axis", 0, &nw, err))) {
            st = err->code;
            break;
        }
        if (!strcmp(rn->op_type, "ConcatFromSequence") && axis == 0 && nw == 1) {
            op_node_rewrite(g, r, "Identity", &S, 1, 0);
        } else if (!strcmp(rn->op_type, "ConcatFromSequence") && axis == 0 && nw == 0) {
            int64_t one = 1, two = 2, big = INT64_MAX, m1 = -1;
            snprintf(buf, len, "%s/shape", g->values[F].name);
            int sh = ir_graph_add_value_unique(g, buf);
            op_append_node(g, buf, "Shape", &S, 1, &sh, 1);
            int sl[3] = {sh, op_new_const(g, buf, IR_I64, 1, &one, &two),
                         op_new_const(g, buf, IR_I64, 1, &one, &big)};
            snprintf(buf, len, "%s/tail", g->values[F].name);
            int tail = ir_graph_add_value_unique(g, buf);
            op_append_node(g, buf, "Slice", sl, 3, &tail, 1);
            snprintf(buf, len, "%s/target", g->values[F].name);
            int cat[2] = {op_new_const(g, buf, IR_I64, 1, &one, &m1), tail};
            int target = ir_graph_add_value_unique(g, buf);
            ir_node_add_attr_int(&g->nodes[op_append_node(g, buf, "Concat", cat, 2, &target, 1)],
                                 "axis", 0);
            int rs[2] = {S, target};
            op_node_rewrite(g, r, "Reshape", rs, 2, 0);
        } else if (!strcmp(rn->op_type, "SequenceAt") && rn->n_in == 2) {
            int ga[2] = {S, rn->in[1]};
            op_node_rewrite(g, r, "Gather", ga, 2, 0);
        } else if (!strcmp(rn->op_type, "SequenceLength")) {
            int64_t zero = 0;
            snprintf(buf, len, "%s/shape", g->values[F].name);
            int sh = ir_graph_add_value_unique(g, buf);
            op_append_node(g, buf, "Shape", &S, 1, &sh, 1);
            int ga[2] = {sh, op_new_const(g, buf, IR_I64, 0, NULL, &zero)};
            op_node_rewrite(g, r, "Gather", ga, 2, 0);
        } else {
            st = pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (%s) reads \"%s\", a list that "
                         "Loop \"%s\" appends to per iteration with a trip count or condition "
                         "read at run time: only ConcatFromSequence at axis 0, SequenceAt and "
                         "SequenceLength read such a list", rn->name, rn->op_type,
                         g->values[F].name, loop->name);
        }
        if (g->n_nodes > start) {   /* the nodes made go before the reader */
            ir_graph_move_tail(g, start, r);
            r += g->n_nodes - start;
        }
    }
    free(buf);
    return st;
}

/* A trip count or condition read at run time (a graph input nothing
 * binds, g->rt_shapes): the body is inlined once between a LoopBegin,
 * which gives the iteration number, the condition and the carried values
 * it reads, and node i become a LoopEnd (loop_end.c), which the runtime
 * runs per iteration (rt/ops/loop.c). */
static pz_status loop_at_run_time(ir_graph *g, int i, const ir_graph *body, int N, int K,
                                  int grow, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    int *app = pz_xcalloc((size_t)(N ? N : 1), sizeof(int)), A = 0;
    for (int j = 0; j < N; j++) A += app[j] = appended_list(g, n, body, j);
    int Nc = N - A;   /* carried; the A lists become scan outputs */
    if (5 + 2 * Nc + K + A > PZ_MAX_IO) {
        free(app);
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Loop): its trip count or "
                       "condition is read at run time, and %d carried values and %d scan "
                       "outputs are more than such a loop takes (2 per carried value + 1 per "
                       "scan output <= %d)", n->name, Nc, K + A, PZ_MAX_IO - 5);
    }
    char *name = pz_xstrdup(n->name);
    size_t len = strlen(name) + 48;
    char *buf = pz_xmalloc(len);
    int *args = pz_xmalloc((size_t)(2 + N) * sizeof(int));
    int *outs = pz_xmalloc((size_t)(1 + N + K) * sizeof(int));
    int start = g->n_nodes;
    static const char *const what[2] = {"iteration_num", "cond_in"};
    for (int j = 0; j < 2 + N; j++) {
        if (j < 2) snprintf(buf, len, "%s/%s", name, what[j]);
        else snprintf(buf, len, "%s/%s%d", name, app[j - 2] ? "list" : "v_in", j - 2);
        args[j] = ir_graph_add_value_unique(g, buf);   /* a list's is never read */
        if (j < 2) g->values[args[j]].decl_rank = body->values[body->inputs[j]].decl_rank;
    }
    snprintf(buf, len, "%s/begin", name);
    int b = ir_graph_add_node(g, buf, "LoopBegin", "ai.paleozoic", Nc, 2 + Nc);
    ir_node *bn = &g->nodes[b];
    bn->op = OPS[OP_loop_begin];
    if (grow) ir_node_add_attr_int(bn, "grow", 1);   /* loop_begin.c */
    n = &g->nodes[i];
    bn->out[0] = args[0];
    bn->out[1] = args[1];
    for (int j = 0, c = 0; j < N; j++) {
        if (app[j]) continue;
        bn->in[c] = n->in[2 + j];
        bn->out[2 + c++] = args[2 + j];
    }
    for (int j = 0; j < 2 + Nc; j++) g->values[bn->out[j]].producer = b;
    ir_node owner = *n;   /* op_inline appends nodes: g->nodes may move */
    pz_status st = op_inline(g, &owner, "body", body, name, args, 2 + N, outs, err);
    for (int j = 0; j < N && !st; j++) {   /* a list's append: its element */
        if (!app[j]) continue;
        int q = g->values[outs[1 + j]].producer;
        int t = g->nodes[q].in[1];
        op_node_rewrite(g, q, "Identity", &t, 1, 0);
    }
    if (!st) {
        int added = g->n_nodes - start;
        ir_graph_move_tail(g, start, i);
        i += added;
        n = &g->nodes[i];
        int n_in = 5 + 2 * Nc + K + A, at = 4 + Nc;
        int *in = pz_xmalloc((size_t)n_in * sizeof(int));
        int *out = pz_xmalloc((size_t)(N + K) * sizeof(int)), *lists = out + Nc + K;
        in[0] = n->in[0];
        in[1] = n->in[1];
        in[2] = args[0];
        in[3] = args[1];
        in[at++] = outs[0];
        for (int j = 0, c = 0; j < N; j++)
            if (!app[j]) {
                in[4 + c] = args[2 + j];
                in[at++] = outs[1 + j];
                out[c++] = n->out[j];
            }
        for (int s = 0; s < K; s++) {
            in[at++] = outs[1 + N + s];
            out[Nc + s] = n->out[N + s];
        }
        for (int j = 0, a = 0; j < N; j++)
            if (app[j]) {
                in[at++] = outs[1 + j];
                snprintf(buf, len, "%s/stacked%d", name, j);
                lists[a++] = ir_graph_add_value_unique(g, buf);
            }
        n = &g->nodes[i];
        int *F = op_ids_dup(n->out, N);
        ir_node_set_n_in(n, n_in);
        memcpy(n->in, in, (size_t)n_in * sizeof(int));
        memcpy(n->out, out, (size_t)(N + K) * sizeof(int));
        for (int j = 0; j < N + K; j++)
            if (n->out[j] >= 0) g->values[n->out[j]].producer = i;
        n->op = OPS[OP_loop_end];
        free(n->domain);
        n->domain = pz_xstrdup("ai.paleozoic");   /* op_type stays "Loop" for messages */
        owner = *n;
        for (int j = 0, a = 0; j < N && !st; j++) {
            if (!app[j]) continue;
            int S = lists[a++];
            if (F[j] < 0) continue;
            g->values[F[j]].producer = -1;
            st = list_readers(g, &owner, F[j], S, err);
        }
        free(F);
        free(out);
        free(in);
    }
    free(outs);
    free(args);
    free(buf);
    free(name);
    free(app);
    return st;
}

/* Which values of the body (nodes i .. end of c, the loop's LoopBegin
 * first) have no compile-time bound and a size that may change from one
 * iteration to the next (vary): one made without a bound (Range, Expand,
 * Tile, ... read at run time) from a value that depends on the iteration
 * (dep: the LoopBegin's outputs and what is computed from them), an inner
 * loop's outputs when its trip count or condition depends on it, and what
 * is computed from such a value. An inner loop of a count fixed for the
 * whole loop (nestscan's) gives unbounded values of one size: not vary. */
static void body_vary(const ir_graph *c, int i, int end, uint8_t *dep, uint8_t *vary)
{
    const ir_node *lb = &c->nodes[i];
    for (int k = 0; k < lb->n_out; k++)
        if (lb->out[k] >= 0) dep[lb->out[k]] = 1;
    for (int b = i + 1; b < end; b++) {
        const ir_node *n = &c->nodes[b];
        int d = 0, v = 0, fresh = 0, inner_begin = n->op == OPS[OP_loop_begin];
        for (int k = 0; k < n->n_in; k++) {
            int x = n->in[k];
            if (x < 0) continue;
            d |= dep[x];
            v |= vary[x];
            fresh |= dep[x] && !c->values[x].rt_alloc;   /* a size read from the iteration */
        }
        if (n->op == OPS[OP_loop_end]) {   /* M, cond, and the inner body's cond_out */
            int Nc = n->n_in - n->n_out - 5;
            fresh = (n->in[0] >= 0 && dep[n->in[0]]) || (n->in[1] >= 0 && dep[n->in[1]]) ||
                    (Nc >= 0 && dep[n->in[4 + Nc]]);
        }
        for (int k = 0; k < n->n_out; k++) {
            int y = n->out[k];
            if (y < 0) continue;
            /* an inner loop's iteration_num and cond_in: its own, not ours */
            dep[y] = inner_begin ? k >= 2 && dep[n->in[k - 2]] : d;
            vary[y] = c->values[y].rt_alloc && (v || fresh);
        }
    }
}

/* Whether a carried value of Loop i, run at run time, comes out of the
 * body with another size than it went in (x = cat(x, y)), or of no
 * compile-time bound and a size that may change per iteration (body_vary:
 * x = arange(i), an Expand to a shape computed from i, an inner loop's
 * scan output of a count computed from i, or a loop in the body that
 * grows); a v_initial of no bound is still checked per run (rt/ops/
 * loop.c), and so is a v_out of no bound and one size (nestscan's). The
 * loop is made on a copy of g and its body inferred there, each v_out's
 * shape compared with its v_in's. Such a loop's carried values are then
 * sized per iteration (loop_begin.c's grow). A copy that does not infer
 * says no: the real inference then names what fails. */
static int loop_grows(const ir_graph *g, int i, const ir_graph *body, int N, int K)
{
    ir_graph *c = ir_graph_clone(g);
    pz_err e = {0};
    int end = -1, grows = 0;
    if (!loop_at_run_time(c, i, body, N, K, 0, &e) &&
        !ir_infer_until(c, i, OPS[OP_loop_end], g->nodes[i].name, &end, &e) && end >= 0) {
        int inner = 0;   /* a loop in the body that grows */
        for (int b = i; b < end; b++) {
            int64_t gr = 0;
            if (c->nodes[b].op == OPS[OP_loop_begin] &&
                !op_attr_int(&c->nodes[b], "grow", 0, &gr, &e))
                inner |= gr != 0;
        }
        uint8_t *dep = pz_xcalloc((size_t)c->n_values + 1, 2), *vary = dep + c->n_values + 1;
        body_vary(c, i, end, dep, vary);
        const ir_node *n = &c->nodes[end];
        int Nc = n->n_in - n->n_out - 5;
        for (int j = 0; j < Nc && !grows; j++) {
            const ir_tensor *a = &c->values[n->in[4 + j]].t, *b = &c->values[n->in[5 + Nc + j]].t;
            if (a->dtype != b->dtype || a->rank != b->rank) continue;   /* LoopEnd refuses it */
            const int vout = n->in[5 + Nc + j];
            grows = c->values[vout].rt_alloc && (inner || vary[vout]);
            for (int d = 0; d < a->rank; d++) grows |= a->dims[d] != b->dims[d];
        }
        free(dep);
    }
    ir_graph_free(c);
    return grows;
}

static pz_status loop_rt(ir_graph *g, int i, const ir_graph *body, int N, int K, pz_err *err)
{
    return loop_at_run_time(g, i, body, N, K, loop_grows(g, i, body, N, K), err);
}

static pz_status loop_unfold(ir_graph *g, int i, pz_err *err)
{
    ir_node *n = &g->nodes[i];
    const ir_graph *body;
    if (op_attr_graph(n, "body", &body, err)) return err->code;
    int N = body->n_inputs - 2, K = body->n_outputs - 1 - N;
    if (N < 0 || K < 0)
        return op_err_attr(err, n, "body", "takes %d inputs and gives %d outputs: it needs "
                           "iteration_num, cond and the carried values in, cond and the carried "
                           "values out", body->n_inputs, body->n_outputs);
    int64_t k = n->unfold_k;   /* iterations done */
    if (n->n_in != 2 + N + K * k)
        return op_err(err, n, "has %d inputs; the body carries %d values (2 + %d expected)",
                      n->n_in, N, N);
    if (n->n_out != N + K)
        return op_err(err, n, "has %d outputs; the body gives %d carried and %d scan values",
                      n->n_out, N, K);
    for (int j = 0; j < N && k == 0; j++)
        if (n->in[2 + j] < 0)
            return op_err(err, n, "carried value %d has no initial value (an empty input name)",
                          j);
    const ir_tensor *mt = n->in[0] >= 0 ? op_in(g, n, 0) : NULL,
                    *ct = n->in[1] >= 0 ? op_in(g, n, 1) : NULL;
    if (k == 0 && g->rt_shapes && ((mt && !mt->data) || (ct && !ct->data)))
        return loop_rt(g, i, body, N, K, err);
    /* a for loop (no condition, or one the body passes on unchanged) whose
     * count is known now but too many iterations to unroll runs at run time */
    if (k == 0 && mt && mt->data && ir_tensor_numel(mt) == 1 && mt->dtype == IR_I64 &&
        (!ct || body_passes_cond(body))) {
        int64_t mc = *(const int64_t *)mt->data;
        if (mc > OP_UNROLL_MAX_ITERS ||
            (mc > 0 && g->n_nodes + mc * (body->n_nodes + 2) > OP_UNROLL_MAX_NODES))
            return loop_rt(g, i, body, N, K, err);
    }
    int64_t m = INT64_MAX;
    if (n->in[0] >= 0) {
        int cnt;
        if (op_const_ints(g, n, 0, "M (trip count)", &m, 1, &cnt, err)) return err->code;
        if (cnt != 1) return op_err(err, n, "M must be one int64, got %d values", cnt);
    }
    int go = m > 0;
    if (go && n->in[1] >= 0) {
        const ir_tensor *c = op_in(g, n, 1);
        if (c->dtype != IR_BOOL || ir_tensor_numel(c) != 1)
            return op_err(err, n, "cond must be one bool, got %s of %lld elements",
                          ir_dtype_name(c->dtype), (long long)ir_tensor_numel(c));
        if (!c->data)
            return op_need_const(err, g, n, 1, "cond", "loops are unrolled at compile time, so "
                                 "the condition must be known then (a trip count or condition "
                                 "computed from run-time data is not supported)");
        go = *(const uint8_t *)c->data != 0;
    }
    /* a loop that never runs gives scan outputs of 0 elements, their element
     * shape the body's: planned as a loop run at run time, which knows it */
    if (!go && K > 0 && k == 0) return loop_rt(g, i, body, N, K, err);
    if (!go) return loop_finish(g, i, N, K, k, err);
    if (m == INT64_MAX && n->in[1] < 0)
        return op_err(err, n, "has neither M nor cond: it would never end");
    if (k >= OP_UNROLL_MAX_ITERS)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Loop): more than %d iterations "
                       "(loops are unrolled at compile time)", n->name, OP_UNROLL_MAX_ITERS);

    /* one more iteration: body(k, cond, v...) */
    int n_args = 2 + N;
    int *args = pz_xmalloc((size_t)n_args * sizeof(int));
    int *outs = pz_xmalloc((size_t)(1 + N + K) * sizeof(int));
    size_t len = strlen(n->name) + 48;
    char *prefix = pz_xmalloc(len);
    snprintf(prefix, len, "%s/%lld", n->name, (long long)k);
    uint8_t yes = 1;
    char *cname = pz_xmalloc(len + 16);
    snprintf(cname, len + 16, "%s/iteration_num", prefix);
    int start = g->n_nodes;
    args[0] = body_scalar(g, body, body->inputs[0], cname, IR_I64, &k);
    snprintf(cname, len + 16, "%s/cond_in", prefix);
    args[1] = body_scalar(g, body, body->inputs[1], cname, IR_BOOL, &yes);
    for (int j = 0; j < N; j++) args[2 + j] = n->in[2 + j];
    pz_status st = op_inline(g, n, "body", body, prefix, args, n_args, outs, err);
    if (!st) {
        int added = g->n_nodes - start;
        ir_graph_move_tail(g, start, i);
        n = &g->nodes[i + added];
        int64_t m1 = m - 1, one = 1;
        snprintf(cname, len + 16, "%s/M", prefix);
        int old_in = n->n_in;
        int *in = pz_xmalloc((size_t)(2 + N + K * (k + 1)) * sizeof(int));
        memcpy(in, n->in, (size_t)old_in * sizeof(int));
        if (in[0] >= 0) {
            int rank = g->values[in[0]].t.rank == 1 ? 1 : 0;
            in[0] = op_new_const(g, cname, IR_I64, rank, &one, &m1);
        }
        if (in[1] >= 0) in[1] = outs[0];
        for (int j = 0; j < N; j++) in[2 + j] = outs[1 + j];
        for (int s = 0; s < K; s++) in[2 + N + K * k + s] = outs[1 + N + s];
        n = &g->nodes[i + added];
        ir_node_set_n_in(n, 2 + N + K * ((int)k + 1));
        memcpy(n->in, in, (size_t)n->n_in * sizeof(int));
        n->unfold_k = k + 1;
        free(in);
    }
    free(cname);
    free(prefix);
    free(outs);
    free(args);
    return st;
}

const op_def op_loop = {
    .name = "Loop",
    .min_in = 0, .max_in = 4096, .min_out = 1, .max_out = 4096,   /* M and cond may be omitted */
    .infer = op_unfold_only,
    .unfold = loop_unfold,
    .takes_seq = 1,   /* carried values may be sequences and optionals */
};
