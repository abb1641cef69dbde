/* random.c - the RANDOM layer (pz_random_params): Y filled at random, or
 * with MULTINOMIAL, sampled from logits [N, C] into Y [N, samples]. The key
 * of the stream is the seed's (mixed) bits, else the clock's and the
 * layer's address at prepare (the net frees the state); run k draws from
 * base mix(key, k), so each run
 * gives fresh values and a seeded net repeats its sequence of runs. One
 * worker: the run counter advances once per run. */
#include <time.h>

#include "rt/kernels/kernels.h"
#include "rt/ops/ops.h"

typedef struct {
    uint64_t key, runs;
} random_state;

static int random_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_random_params *p = l->params;
    const pz_tensor *y = pz_out(l, 0), *x = pz_in(l, 0);
    if (!y) return pz_layer_fail(l, err, n, "needs Y");
    if (p->mode < PZ_RANDOM_UNIFORM || p->mode > PZ_RANDOM_MULTINOMIAL)
        return pz_layer_fail(l, err, n, "mode %d is unknown", p->mode);
    if (p->mode == PZ_RANDOM_MULTINOMIAL) {
        if (!x || x->rank != 2 || !pz_dtype_is_float(x->dtype))
            return pz_layer_fail(l, err, n, "needs logits, a float [N, C] tensor");
        if (y->rank != 2 || y->dims[0] != x->dims[0] ||
            (y->dtype != PZ_I32 && y->dtype != PZ_I64))
            return pz_layer_fail(l, err, n, "Y must be int32 or int64 [N, samples]");
    } else if (!pz_dtype_is_float(y->dtype) && !pz_dtype_is_int(y->dtype)) {
        return pz_layer_fail(l, err, n, "Y has type %s, expected a number type",
                             pz_dtype_name(y->dtype));
    }
    random_state *st = malloc(sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    uint64_t key;
    if (p->has_seed) {
        memcpy(&key, &p->seed, sizeof key);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        key = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
        key ^= (uint64_t)(uintptr_t)l << 17;
    }
    st->key = pz_random_word(key, 0);
    st->runs = 0;
    l->state = st;
    l->nth = 1;
    return 0;
}

static void random_run(const pz_layer *l, int ith, int nth)
{
    random_state *st = l->state;
    const pz_tensor *x = l->n_in > 0 ? l->in[0] : NULL, *y = l->out[0];
    const uint64_t base = pz_random_word(st->key, st->runs);
    pz_any_random__ref(l->params, base, y->dtype, y->data, pz_numel(y), x ? x->data : NULL,
                       x ? x->dtype : 0, x ? x->dims[0] : 0, x ? x->dims[1] : 0, ith, nth);
    if (ith == 0) st->runs++;
}

static const char *const random_modes[] = {"PZ_RANDOM_UNIFORM", "PZ_RANDOM_NORMAL",
                                           "PZ_RANDOM_MULTINOMIAL"};

static const pz_param_field random_fields[] = {
    PZ_FIELD_ENUM(pz_random_params, mode, random_modes),
    PZ_FIELD(pz_random_params, has_seed, PZ_F_INT),
    PZ_FIELD(pz_random_params, a, PZ_F_F64),
    PZ_FIELD(pz_random_params, b, PZ_F_F64),
    PZ_FIELD(pz_random_params, seed, PZ_F_F64),
};

const pz_rt_op pz_rt_op_random = {
    .name = "RANDOM", PZ_OP_PARAMS(pz_random_params, random_fields),
    .min_in = 0, .max_in = 1, .min_out = 1, .max_out = 1,
    .prepare = random_prepare, .run = random_run,
};
