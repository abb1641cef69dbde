/* exec.c - pz_net_run: the executor of a compiled net.
 *
 * Blocks: each F-Block runs its layers in order, each layer's work split
 * over the block's MP workers by one fork-join (block_run below is the seam
 * where depth-first fused execution will go).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt/fuse.h"
#include "rt/guard.h"
#include "rt/net.h"
#include "rt/net_state.h"
#include "rt/profile.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- run ----------------------------------------------------------------- */

typedef struct {
    const pz_layer *l;
    pz_barrier *barrier;
} layer_job;

/* One worker's share of a layer: its inputs' layout conversions, a barrier
 * (the op may read rows another worker converted), then the op. */
static void layer_task(void *ctx, int ith, int nth)
{
    const layer_job *job = ctx;
    const pz_layer *l = job->l;
    if (l->n_convs) {
        for (int c = 0; c < l->n_convs; c++) {
            const pz_layout_conv *cv = &l->convs[c];
            pz_layout_convert(cv->isa, cv->src->dtype, cv->src->dims, cv->from, cv->to, cv->src->data,
                              cv->view.data, ith, nth);
            if (cv->sync) pz_barrier_wait(job->barrier, nth);
        }
        pz_barrier_wait(job->barrier, nth);
    }
    l->op->run(l, ith, nth);
}

/* A layer whose outputs have no compile-time bound (l->rt_alloc): each
 * output's buffer grown to the size run_shape set, never shrunk (a net run
 * again at the same sizes allocates nothing). 0, or 1 with the run failed
 * naming the layer and its outputs empty (a size above the host's memory,
 * or out of memory): the layer then does not run. */
static int alloc_outputs(pz_net *net, const pz_layer *l)
{
    for (int j = 0; j < l->n_out; j++) {
        if (l->out_id[j] < 0) continue;
        rt_tensor *t = &net->tensors[l->out_id[j]];
        size_t bytes = pz_dtype_size(t->t.dtype);
        int over = 0;
        for (int d = 0; d < t->t.rank; d++) {
            size_t k = (size_t)(t->t.dims[d] > 0 ? t->t.dims[d] : 0);
            if (k && bytes > net->alloc_max / k) over = 1;
            else bytes *= k;
        }
        if (over || bytes > net->alloc_max) {
            pz_layer_run_fail(l, "output %d would take more than %zu bytes (the host's memory)",
                              j, net->alloc_max);
            goto fail;
        }
        if (bytes <= t->cap) continue;
        size_t cap = (bytes + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
        void *p = aligned_alloc(PZ_ALIGN, cap);
        if (!p) {
            pz_layer_run_fail(l, "out of memory: output %d takes %zu bytes", j, bytes);
            goto fail;
        }
        free(t->t.data);
        t->t.data = p;
        t->cap = cap;
    }
    return 0;
fail:
    for (int j = 0; j < l->n_out; j++)
        if (l->out_id[j] >= 0) {
            pz_tensor *y = &net->tensors[l->out_id[j]].t;
            if (y->rank) y->dims[0] = 0;
        }
    return 1;
}

static void layer_exec(pz_net *net, pz_layer *l)
{
    if (l->in_place || l->read_through) return;   /* nothing to do (inplace.c) */
    if (l->n_guard && pz_guard_skips(net, l)) return;   /* a branch not taken */
    uint64_t t0 = net->profile ? now_ns() : 0;
    if (l->run_err) l->run_err[0] = 0;   /* this run's error only */
    if (l->dyn) {   /* a dynamic region: the run's shapes */
        /* an input converted to the layer's layout: the copy has the run's
         * shape (a view of another shape keeps its own) */
        for (int c = 0; c < l->n_convs; c++) {
            pz_layout_conv *cv = &l->convs[c];
            int s = cv->slot;
            if ((s < 32 && (l->in_reshaped & (1u << s))) || cv->view.rank != cv->src->rank) continue;
            memcpy(cv->view.dims, cv->src->dims, sizeof cv->view.dims);
        }
        l->op->run_shape(l);
        if (l->run_err[0]) return;   /* its outputs empty: nothing to convert or run */
        if (l->rt_alloc && alloc_outputs(net, l)) return;
    }
    layer_job job = {l, &net->barrier};
    if (l->nth <= 1) layer_task(&job, 0, 1);
    else pz_pool_run(net->pool, l->nth, layer_task, &job);
    if (net->profile) l->ns = now_ns() - t0;
}

/* Grows run-time-allocated tensor t (output j of l) to hold `bytes`,
 * keeping what it holds (a scan output grows an iteration at a time, so
 * its capacity doubles). 0, or 1 with the run failed naming the layer. */
static int grow_keep(pz_net *net, const pz_layer *l, rt_tensor *t, size_t bytes, int j)
{
    if (bytes <= t->cap) return 0;
    if (bytes > net->alloc_max) {
        pz_layer_run_fail(l, "output %d would take more than %zu bytes (the host's memory)", j,
                          net->alloc_max);
        return 1;
    }
    size_t cap = t->cap <= net->alloc_max / 2 && 2 * t->cap > bytes ? 2 * t->cap : bytes;
    cap = (cap + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
    void *p = aligned_alloc(PZ_ALIGN, cap);
    if (!p) {
        pz_layer_run_fail(l, "out of memory: output %d takes %zu bytes", j, bytes);
        return 1;
    }
    if (t->t.data && t->cap) memcpy(p, t->t.data, t->cap);
    free(t->t.data);
    t->t.data = p;
    t->cap = cap;
    return 0;
}

static size_t tensor_bytes(const pz_tensor *t)
{
    return (size_t)pz_numel(t) * pz_dtype_size(t->dtype);
}

/* A LOOP layer (rt/ops/loop.c): its body's layers run once per iteration
 * while i < M and cond; each scan value is appended to its output and the
 * carried values copied back into v_in (through l->state: a v_out may be
 * another v_in's bytes). A failure ends the loop, naming the layer; its
 * scan outputs are then empty. A LOOP in the body (a nested loop) runs
 * whole each iteration, through loop_run. */
static void loop_run(pz_net *net, pz_layer *l);

/* Scan value e (scan output s, stacked into y) at iteration k: its first
 * shape is y's element shape; one of a run-time shape (a nested loop's
 * outputs) must keep it. 0, or 1 with the run failed naming the layer. */
static int scan_shape(const pz_layer *l, rt_tensor *y, const pz_tensor *e, int s, int64_t k,
                      size_t *bytes)
{
    int same = y->t.rank == e->rank + 1;
    for (int d = 0; d < e->rank && same; d++) {
        if (k == 0) y->t.dims[1 + d] = e->dims[d];
        same = y->t.dims[1 + d] == e->dims[d];
    }
    if (!same) {
        pz_layer_run_fail(l, "scan output %d changes its element shape at iteration %lld", s,
                          (long long)k);
        return 1;
    }
    *bytes = tensor_bytes(e);
    return 0;
}

/* After iteration k: each v_out copied into its v_in, through l->state (a
 * v_out may be another carried value's v_in). A v_in allocated at run time
 * (LOOP_BEGIN's grow) takes v_out's shape, grown as needed; any other must
 * keep its size. 0, or 1 with the run failed naming the layer. */
static int carry(pz_net *net, pz_layer *l, int N, int64_t k)
{
    size_t total = 0;
    for (int j = 0; j < N; j++) {
        size_t nb = tensor_bytes(l->in[5 + N + j]);
        const rt_tensor *t = &net->tensors[l->in_id[4 + j]];
        if ((!t->rt_alloc || l->in[4 + j] != &t->t) && nb != tensor_bytes(l->in[4 + j])) {
            pz_layer_run_fail(l, "carried value %d changes its size at iteration %lld: "
                              "%zu bytes in, %zu out", j, (long long)k,
                              tensor_bytes(l->in[4 + j]), nb);
            return 1;
        }
        total += nb;
    }
    if (total > l->state_cap) {
        void *p = realloc(l->state, total);
        if (!p) {
            pz_layer_run_fail(l, "out of memory: %zu bytes of carried values", total);
            return 1;
        }
        l->state = p;
        l->state_cap = total;
    }
    size_t at = 0;
    for (int j = 0; j < N; j++) {
        size_t nb = tensor_bytes(l->in[5 + N + j]);
        if (nb) memcpy((char *)l->state + at, l->in[5 + N + j]->data, nb);
        at += nb;
    }
    at = 0;
    for (int j = 0; j < N; j++) {
        const pz_tensor *o = l->in[5 + N + j];
        rt_tensor *t = &net->tensors[l->in_id[4 + j]];
        size_t nb = tensor_bytes(o);
        if (t->rt_alloc) {
            if (grow_keep(net, l, t, nb, j)) return 1;
            for (int d = 0; d < t->t.rank; d++) t->t.dims[d] = o->dims[d];
        }
        if (nb) memcpy(t->t.data, (char *)l->state + at, nb);
        at += nb;
    }
    return 0;
}

static int loop_iterate(pz_net *net, pz_layer *l, int N, int K, int64_t *done)
{
    const pz_tensor *M = l->in[0], *C = l->in[1];
    int64_t m = M ? *(const int64_t *)M->data : INT64_MAX;
    int go = C ? *(const uint8_t *)C->data != 0 : 1;
    size_t es[PZ_MAX_IO];
    for (int s = 0; s < K; s++) es[s] = tensor_bytes(l->in[5 + 2 * N + s]);
    /* a count alone (no condition) sizes the scan outputs before the run */
    for (int s = 0; s < K && M && !C; s++)
        if (es[s] && m > 0 && (uint64_t)m > net->alloc_max / es[s]) {
            pz_layer_run_fail(l, "%lld iterations: scan output %d would take more than %zu "
                              "bytes (the host's memory)", (long long)m, s, net->alloc_max);
            return 1;
        }
    const pz_layer *hd = &net->layers[l->loop_head];
    if (hd->run_err && hd->run_err[0]) return 1;   /* its LOOP_BEGIN failed */
    int64_t k = 0;
    for (; k < m && go; k++) {
        *(int64_t *)l->in[2]->data = k;
        *(uint8_t *)l->in[3]->data = 1;
        for (int b = 0; b < l->n_body; b++) {
            pz_layer *bl = &net->layers[l->body[b]];
            if (bl->kind == PZ_OP_LOOP) loop_run(net, bl);   /* a loop in the body */
            else layer_exec(net, bl);
            if (bl->run_err && bl->run_err[0]) return 1;   /* it names itself */
        }
        if (l->n_convs) {   /* inputs the body wrote in another layout */
            layer_job job = {l, &net->barrier};
            layer_task(&job, 0, 1);
        }
        for (int s = 0; s < K; s++) {
            rt_tensor *y = &net->tensors[l->out_id[N + s]];
            if (scan_shape(l, y, l->in[5 + 2 * N + s], s, k, &es[s])) return 1;
            if (es[s] > SIZE_MAX / (size_t)(k + 1) ||
                grow_keep(net, l, y, es[s] * (size_t)(k + 1), N + s))
                return 1;
            memcpy((char *)y->t.data + es[s] * (size_t)k, l->in[5 + 2 * N + s]->data, es[s]);
        }
        if (C) go = *(const uint8_t *)l->in[4 + N]->data != 0;
        if (carry(net, l, N, k)) return 1;
    }
    *done = k;
    return 0;
}

/* A loop that ran zero times gives its scan outputs the element shapes
 * the plan holds; with carried values sized per iteration (LOOP_BEGIN's
 * grow) one a body layer sizes at run time (l->dyn) is not known without an
 * iteration: the run fails naming the layer rather than guess. */
static int zero_trip_shapes(const pz_net *net, const pz_layer *l, int N, int K)
{
    int grow = 0;
    for (int j = 0; j < N; j++) grow |= net->tensors[l->in_id[4 + j]].rt_alloc;
    for (int s = 0; s < K && grow; s++) {
        int p = net->tensors[l->in_id[5 + 2 * N + s]].producer;
        if (p >= 0 && net->layers[p].dyn) {
            pz_layer_run_fail(l, "runs zero times, and the element shape of scan output %d "
                              "follows carried values sized per iteration: unknown without "
                              "an iteration", s);
            return 1;
        }
    }
    return 0;
}

static void loop_run(pz_net *net, pz_layer *l)
{
    if (l->n_guard && pz_guard_skips(net, l)) return;   /* in a branch not taken */
    uint64_t t0 = net->profile ? now_ns() : 0;
    int N, K;
    pz_loop_counts(l, &N, &K);
    if (l->run_err) l->run_err[0] = 0;
    int64_t k = 0;
    int failed = loop_iterate(net, l, N, K, &k);
    if (!failed && k == 0) failed = zero_trip_shapes(net, l, N, K);
    for (int s = 0; s < K; s++) {
        pz_tensor *y = l->out[N + s];
        const pz_tensor *e = l->in[5 + 2 * N + s];
        y->dims[0] = failed ? 0 : k;
        for (int d = 0; d < e->rank; d++) y->dims[1 + d] = e->dims[d];
    }
    for (int j = 0; j < N; j++) {
        if (l->out_id[j] < 0) continue;
        rt_tensor *t = &net->tensors[l->out_id[j]];
        size_t nb = tensor_bytes(l->in[4 + j]);
        if (t->rt_alloc && grow_keep(net, l, t, nb, j)) break;
        for (int d = 0; d < t->t.rank && t->rt_alloc; d++) t->t.dims[d] = l->in[4 + j]->dims[d];
        if (nb) memcpy(t->t.data, l->in[4 + j]->data, nb);
    }
    if (net->profile) l->ns = now_ns() - t0;
}

/* The normal walk: a loop's body runs from its LOOP layer. */
static void layer_run(pz_net *net, pz_layer *l)
{
    if (l->loop_of) return;
    if (l->kind == PZ_OP_LOOP) loop_run(net, l);
    else layer_exec(net, l);
}

typedef struct {
    pz_net *net;
    void *const *outputs;
} output_job;

/* Copies the graph outputs out, converting blocked ones back to plain. A
 * view is copied out of its root: the root's plain bytes are the view's. */
static void output_task(void *ctx, int ith, int nth)
{
    const output_job *job = ctx;
    const pz_net *net = job->net;
    for (int i = 0; i < net->n_outputs; i++) {
        const rt_tensor *t = &net->tensors[net->outputs[i]];
        if (t->kind == T_VIEW) t = &net->tensors[t->root];
        if (t->rt_alloc) continue;   /* pz_net_output_data */
        if (t->cblk) {
            /* blocked -> plain: no kernel of an ISA */
            pz_layout_convert(PZ_ISA_SCALAR, t->t.dtype, t->t.dims, t->cblk, 0, t->t.data, job->outputs[i],
                              ith, nth);
        } else if (t->bytes && job->outputs[i] != t->t.data) {
            int64_t lo, hi;   /* a share of the bytes */
            pz_split((int64_t)t->bytes, ith, nth, &lo, &hi);
            memcpy((char *)job->outputs[i] + lo, (const char *)t->t.data + lo, (size_t)(hi - lo));
        }
    }
}

/* Runs one F-Block. Today: its layers in order, each split over the block's
 * workers by its own fork-join. The seam for depth-first fusion: a block
 * whose layers all offer a tiled entry point will run here as one fork-join,
 * each worker carrying its tile through every layer while it is in cache. */
static void single_layer(void *ctx, int layer)
{
    pz_net *net = ctx;
    layer_run(net, &net->layers[layer]);
}

static void block_run(pz_net *net, rt_block *b)
{
    uint64_t t0 = net->profile ? now_ns() : 0;
    if (b->fuse)
        pz_fuse_block_run(b->fuse, net->layers, net->pool, &net->barrier, single_layer, net,
                          net->profile);
    else
        for (int i = b->first; i < b->first + b->count; i++) layer_run(net, &net->layers[i]);
    if (net->profile) b->ns = now_ns() - t0;
}

void pz_net_run(pz_net *net, const void *const *inputs, void *const *outputs)
{
    PZ_RT_ASSERT(net->compiled);
    uint64_t t0 = net->profile ? now_ns() : 0;
    for (int i = 0; i < net->n_inputs; i++) net->tensors[net->inputs[i]].t.data = (void *)inputs[i];
    /* a view of a graph input reads the caller's buffer of this run */
    for (int i = 0; i < net->n_tensors; i++) {
        rt_tensor *v = &net->tensors[i];
        if (v->kind == T_VIEW && net->tensors[v->root].kind == T_INPUT)
            v->t.data = net->tensors[v->root].t.data;
    }
    /* a layer this run does not reach (in a loop body run zero times) keeps
     * nothing of an earlier run: no skip, error or time (profile, run_error) */
    for (int i = 0; i < net->n_layers; i++) {
        pz_layer *l = &net->layers[i];
        l->skipped = 0;
        if (!l->loop_of) continue;
        if (l->run_err) l->run_err[0] = 0;
        l->ns = 0;
    }
    pz_pool_hold(net->pool);
    for (int b = 0; b < net->n_blocks; b++) block_run(net, &net->blocks[b]);
    output_job job = {net, outputs};
    pz_pool_run(net->pool, net->out_nth, output_task, &job);
    pz_pool_release(net->pool);
    if (net->profile) {
        net->run_ns = now_ns() - t0;
        if (net->prof) {
            uint64_t *row = net->prof + (size_t)(net->prof_n % PZ_PROFILE_RUNS) * pz_profile_row(net);
            for (int i = 0; i < net->n_layers; i++) row[i] = net->layers[i].ns;
            for (int b = 0; b < net->n_blocks; b++) row[net->n_layers + b] = net->blocks[b].ns;
            row[net->n_layers + net->n_blocks] = net->run_ns;
            net->prof_n++;
        }
    }
}

/* A run-time-shaped layer sets its outputs' dims when it runs (rt/ops/
 * nonzero.c, ...): the output's tensor holds the last run's shape. */
int pz_net_output_shape(const pz_net *net, int i, int64_t *dims)
{
    if (!net || i < 0 || i >= net->n_outputs) return -1;
    const pz_tensor *t = &net->tensors[net->outputs[i]].t;
    for (int d = 0; d < t->rank; d++) dims[d] = t->dims[d];
    return t->rank;
}

const void *pz_net_output_data(const pz_net *net, int i)
{
    if (!net || i < 0 || i >= net->n_outputs) return NULL;
    const rt_tensor *t = &net->tensors[net->outputs[i]];
    return t->rt_alloc ? t->t.data : NULL;
}

const char *pz_net_run_error(const pz_net *net)
{
    for (int i = 0; i < net->n_layers; i++) {
        const pz_layer *l = &net->layers[i];
        if (l->skipped) continue;   /* a branch not taken: an error of an earlier run */
        if (l->run_err && l->run_err[0]) return l->run_err;
        const char *e = l->op->run_error ? l->op->run_error(l) : NULL;
        if (e) return e;
    }
    return NULL;
}
