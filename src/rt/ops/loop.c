/* loop.c - LOOP_BEGIN and LOOP: an ONNX Loop whose trip count M or
 * condition is read at run time (a compile-time one is unrolled). The body
 * is planned once, as ordinary layers between the two; the net runs it per
 * iteration (exec.c's loop_run), carrying the state in place:
 *   LOOP_BEGIN  v_initial... -> iter (int64), cond_in (bool), v_in...
 *               sets iter 0, cond_in 1 and copies v_initial into v_in;
 *   body        layers reading iter, cond_in, v_in (compile.c marks them:
 *               the normal walk skips them, LOOP runs them);
 *   LOOP        M?, cond?, iter, cond_in, v_in..., cond_out, v_out...,
 *               scan... -> v_final..., scan_out...
 *               while i < M and cond: the body, each scan value appended to
 *               its output (allocated at run time, grow-only), v_out copied
 *               into v_in; then v_in into v_final.
 * The carried values keep their planned shapes (the compiler checks), or
 * with LOOP_BEGIN's grow (pz_loop_params) their type and rank: then every
 * v_in is allocated at run time and takes v_out's shape per iteration. */
#include <string.h>

#include "rt/ops/ops.h"

int pz_loop_counts(const pz_layer *l, int *n_carried, int *n_scan)
{
    *n_carried = l->n_in - l->n_out - 5;
    *n_scan = l->n_out - *n_carried;
    return *n_carried < 0 || *n_scan < 0;
}

static int same_type(const pz_tensor *a, const pz_tensor *b)
{
    return a && b && a->dtype == b->dtype && pz_numel(a) == pz_numel(b);
}

static int begin_prepare(pz_layer *l, char *err, size_t n)
{
    int N = l->n_in;
    if (l->n_out != N + 2) return pz_layer_fail(l, err, n, "needs iter, cond_in and %d carried outputs", N);
    const pz_tensor *it = pz_out(l, 0), *c = pz_out(l, 1);
    if (!it || it->dtype != PZ_I64 || pz_numel(it) != 1 || !c || c->dtype != PZ_BOOL ||
        pz_numel(c) != 1)
        return pz_layer_fail(l, err, n, "needs an int64 iteration number and a bool condition");
    for (int j = 0; j < N; j++)
        if (!same_type(pz_in(l, j), pz_out(l, 2 + j)))
            return pz_layer_fail(l, err, n, "carried value %d: v_in is not v_initial's type "
                                 "and size", j);
    return 0;
}

static void begin_run(const pz_layer *l, int ith, int nth)
{
    if (ith) return;
    if (l->run_err) l->run_err[0] = 0;
    /* a v_initial of a run-time shape (a nested loop's) must fit the plan */
    for (int j = 0; j < l->n_in; j++)
        if (pz_numel(l->in[j]) != pz_numel(l->out[2 + j])) {
            pz_layer_run_fail(l, "carried value %d: v_initial has %lld elements, the loop is "
                              "planned for %lld", j, (long long)pz_numel(l->in[j]),
                              (long long)pz_numel(l->out[2 + j]));
            return;
        }
    *(int64_t *)l->out[0]->data = 0;
    *(uint8_t *)l->out[1]->data = 1;
    for (int j = 0; j < l->n_in; j++) {
        const pz_tensor *x = l->in[j];
        if (x->data != l->out[2 + j]->data)
            memcpy(l->out[2 + j]->data, x->data, (size_t)pz_numel(x) * pz_dtype_size(x->dtype));
    }
    (void)nth;
}

/* a v_initial of a run-time shape (a nested loop's output) leaves v_in's
 * planned shape as it is (begin_run checks the size), unless the carried
 * values are sized per iteration (grow): v_in starts at v_initial's */
static void begin_run_shape(const pz_layer *l)
{
    if (!((const pz_loop_params *)l->params)->grow) return;
    for (int j = 0; j < l->n_in; j++) {
        pz_tensor *v = l->out[2 + j];
        for (int d = 0; d < v->rank && d < l->in[j]->rank; d++) v->dims[d] = l->in[j]->dims[d];
    }
}

/* grow: the net allocates the outputs (exec.c), and the body reading them
 * is a dynamic region */
static int begin_dyn_alloc(const pz_layer *l)
{
    return ((const pz_loop_params *)l->params)->grow;
}

static const pz_param_field loop_fields[] = {
    PZ_FIELD(pz_loop_params, grow, PZ_F_INT),
};
static const pz_loop_params loop_defaults = {0};   /* a caller may give none */

const pz_rt_op pz_rt_op_loop_begin = {
    .name = "LOOP_BEGIN", PZ_OP_PARAMS(pz_loop_params, loop_fields), .defaults = &loop_defaults,
    .min_in = 0, .max_in = -1, .min_out = 2, .max_out = -1,
    .prepare = begin_prepare, .run = begin_run,
    .run_shape = begin_run_shape, .dyn_alloc = begin_dyn_alloc, .dyn_stops = 1,
};

static int loop_prepare(pz_layer *l, char *err, size_t n)
{
    int N, K;
    if (pz_loop_counts(l, &N, &K))
        return pz_layer_fail(l, err, n, "%d inputs and %d outputs do not make a loop", l->n_in,
                             l->n_out);
    const pz_tensor *m = pz_in(l, 0), *c = pz_in(l, 1);
    if (m && (m->dtype != PZ_I64 || pz_numel(m) != 1))
        return pz_layer_fail(l, err, n, "M must be one int64");
    if (c && (c->dtype != PZ_BOOL || pz_numel(c) != 1))
        return pz_layer_fail(l, err, n, "cond must be one bool");
    const pz_tensor *co = pz_in(l, 4 + N);
    if (!co || co->dtype != PZ_BOOL || pz_numel(co) != 1)
        return pz_layer_fail(l, err, n, "the body's cond_out must be one bool");
    /* a carried value sized per iteration (LOOP_BEGIN's grow: the loop reads
     * tensors allocated at run time) keeps its type and rank */
    for (int j = 0; j < N; j++) {
        const pz_tensor *a = pz_in(l, 4 + j), *b = pz_in(l, 5 + N + j), *y = pz_out(l, j);
        if (l->rt_alloc ? !a || !b || !y || a->dtype != b->dtype || a->rank != b->rank ||
                              a->dtype != y->dtype || a->rank != y->rank
                        : !same_type(a, b) || !same_type(a, y))
            return pz_layer_fail(l, err, n, "carried value %d changes its type or size", j);
    }
    for (int s = 0; s < K; s++) {
        const pz_tensor *e = pz_in(l, 5 + 2 * N + s), *y = pz_out(l, N + s);
        if (!e || !y || e->dtype != y->dtype || y->rank != e->rank + 1)
            return pz_layer_fail(l, err, n, "scan output %d is not its values stacked", s);
    }
    return 0;
}

/* exec.c runs the loop (loop_run); nothing is left for a worker */
static void loop_run(const pz_layer *l, int ith, int nth)
{
    (void)l, (void)ith, (void)nth;
}

/* loop_run sets the scan outputs' dims */
static void loop_run_shape(const pz_layer *l)
{
    (void)l;
}

/* the scan outputs' length is the run's iteration count */
static int loop_dyn_alloc(const pz_layer *l)
{
    int N, K;
    return !pz_loop_counts(l, &N, &K) && K > 0;
}

const pz_rt_op pz_rt_op_loop = {
    .name = "LOOP",
    .min_in = 5, .max_in = -1, .min_out = 0, .max_out = -1,
    .prepare = loop_prepare, .run = loop_run,
    .run_shape = loop_run_shape, .dyn_alloc = loop_dyn_alloc,
};
