/* binary.c - the BINARY layer: A, B broadcast to Y's shape. */
#include "rt/kernels/bcast_fast.h"
#include "rt/kernels/fast.h"
#include "rt/ops/ops.h"

typedef enum { BIN_F32, BIN_F32_FAST, BIN_F32_VEC, BIN_INT, BIN_INT_FAST, BIN_ANY, BIN_16C } bin_path;

static const char *const BINARY_FUNC[] = {
    "PZ_BIN_ADD", "PZ_BIN_SUB", "PZ_BIN_MUL", "PZ_BIN_DIV", "PZ_BIN_POW", "PZ_BIN_MAX",
    "PZ_BIN_MIN", "PZ_BIN_PRELU", "PZ_BIN_BITAND", "PZ_BIN_BITOR", "PZ_BIN_BITXOR",
    "PZ_BIN_SHL", "PZ_BIN_SHR", "PZ_BIN_MOD", "PZ_BIN_FMOD"};
_Static_assert(PZ_RT_LEN(BINARY_FUNC) == PZ_BIN_COUNT_, "a name for each pz_binary_func");
typedef struct {
    pz_bcast bc;
    bin_path path;
    int abc, bbc;            /* BIN_16C: each operand Y's shape (0) or per channel
                              * with N images (1) or one (2), or one value (3):
                              * fast.h, binary16c */
    pz_binary16c_fn fn;      /* BIN_16C: the CPU's kernel */
    pz_int_binary_fn ifn;    /* BIN_INT_FAST: the CPU's kernel */
    pz_f32_binary_fn ffn;    /* BIN_F32_VEC: the CPU's kernel */
    char kname[40];          /* pz_layer.kernel, for profiles */
} binary_state;

/* How operand t enters a blocked binary producing y (rank 4): 0 of y's
 * shape, 1 or 2 one value per channel ([N or 1, C, 1, 1]), 3 one value
 * (read plain), -1 none of these. */
static int bin16c_mode(const pz_tensor *t, const pz_tensor *y)
{
    if (pz_numel(t) == 1 && pz_numel(y) > 0) return 3;
    if (t->rank != 4 || t->dims[1] != y->dims[1]) return -1;
    if (t->dims[0] == y->dims[0] && t->dims[2] == y->dims[2] && t->dims[3] == y->dims[3])
        return 0;
    if (t->dims[2] == 1 && t->dims[3] == 1)
        return t->dims[0] == y->dims[0] ? 1 : t->dims[0] == 1 ? 2 : -1;
    return -1;
}

/* The float kernel chosen, for profiles: the ISA's table name for its own
 * kernels; a dynamic region's plain path picks by the run's broadcast. */
static void binary_name(pz_layer *l, binary_state *st)
{
    const char *isa = pz_fast_kernels_for(l->isa)->name;
    if (st->path == BIN_16C) snprintf(st->kname, sizeof st->kname, "binary16c %s", isa);
    else if (st->path == BIN_F32_VEC) snprintf(st->kname, sizeof st->kname, "%s", isa);
    else if (st->path == BIN_F32_FAST && l->dyn && st->ffn)
        snprintf(st->kname, sizeof st->kname, "fast or %s, by the run", isa);
    else if (st->path == BIN_F32_FAST) snprintf(st->kname, sizeof st->kname, "fast");
    else if (st->path == BIN_F32) snprintf(st->kname, sizeof st->kname, "reference");
    else return;
    l->kernel = st->kname;
}

static int binary_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_binary_params *p = l->params;
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 1), *y = pz_out(l, 0);
    char ba[96], bb[96], by[96];
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    if (pz_layer_want_clamp_act(l, err, n, &p->act)) return 1;
    if (p->func < 0 || p->func >= PZ_BIN_COUNT_)
        return pz_layer_fail(l, err, n, "unknown function %d", (int)p->func);
    for (int i = 0; i < 3; i++) {
        const pz_tensor *t = i == 0 ? a : i == 1 ? b : y;
        if (!pz_dtype_is_float(t->dtype) && !pz_dtype_is_int(t->dtype))
            return pz_layer_fail(l, err, n, "%s has type %s", i == 0 ? "A" : i == 1 ? "B" : "Y",
                                 pz_dtype_name(t->dtype));
    }
    /* the bitwise functions and shifts: one integer type, no epilogue */
    if (p->func >= PZ_BIN_BITAND && p->func <= PZ_BIN_SHR &&
        (!pz_dtype_is_int(y->dtype) || a->dtype != y->dtype || b->dtype != y->dtype ||
         p->act.kind != PZ_ACT_NONE))
        return pz_layer_fail(l, err, n, "%s needs A, B and Y of one integer type, got %s, %s "
                             "and %s", BINARY_FUNC[p->func], pz_dtype_name(a->dtype),
                             pz_dtype_name(b->dtype), pz_dtype_name(y->dtype));
    binary_state *st = calloc(1, sizeof *st);
    if (!st) return pz_layer_fail(l, err, n, "out of memory");
    l->state = st;
    /* a dynamic region's planned dims are bounds: the run's must broadcast */
    if (pz_bcast_init(&st->bc, a->rank, a->dims, b->rank, b->dims, y->rank, y->dims) && !l->dyn)
        return pz_layer_fail(l, err, n, "A %s and B %s do not broadcast to Y %s",
                             pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb),
                             pz_shape_str(y, by, sizeof by));
    bool same = a->dtype == b->dtype && b->dtype == y->dtype;
    if (same && y->dtype == PZ_F32) st->path = BIN_F32;
    else if (same && pz_dtype_is_int(y->dtype) && p->act.kind == PZ_ACT_NONE) st->path = BIN_INT;
    else st->path = BIN_ANY;
    /* float operands each of Y's shape (the residual Add, SiLU's Mul) or one
     * value per channel (a squeeze-excite scale), one of Y's shape: blocked
     * when either input comes blocked; the other one is converted */
    int am = y->rank == 4 ? bin16c_mode(a, y) : -1, bm = y->rank == 4 ? bin16c_mode(b, y) : -1;
    pz_isa isa = l->isa;
    if (st->path == BIN_F32 && isa != PZ_ISA_REF && !l->dyn && am >= 0 && bm >= 0 &&
        (am == 0 || bm == 0) &&
        (l->in_have[0] == 16 || l->in_have[1] == 16)) {
        st->path = BIN_16C;
        st->abc = am;
        st->bbc = bm;
        st->fn = pz_fast_kernels_for(isa)->binary16c;
        l->in_cblk[0] = am == 3 ? 0 : 16;   /* one value stays plain */
        l->in_cblk[1] = bm == 3 ? 0 : 16;
        l->out_cblk[0] = 16;
    }
    /* Add, Sub, Mul, Div on plain layouts: the vectorized twin (a dynamic
     * region asks again at run, its broadcast is the run's, for this twin
     * and then the CPU's kernel below) */
    if (st->path == BIN_F32 && isa != PZ_ISA_REF &&
        (l->dyn || pz_f32_binary_fast_takes(p, &st->bc)))
        st->path = BIN_F32_FAST;
    /* Pow, Max, Min, PRelu, Mod, Fmod on plain layouts: the CPU's kernel,
     * where it has one (AVX-512, AVX2) */
    st->ffn = pz_fast_kernels_for(isa)->f32_binary;
    if (st->path == BIN_F32 && isa != PZ_ISA_REF && st->ffn && !l->dyn &&
        pz_f32_binary_vec_takes(p, &st->bc))
        st->path = BIN_F32_VEC;
    /* int32, int64 arithmetic and Pow, the bitwise functions and unsigned
     * shifts: the CPU's kernel */
    if (st->path == BIN_INT && isa != PZ_ISA_REF && pz_int_binary_fast_takes(p, y->dtype)) {
        st->path = BIN_INT_FAST;
        st->ifn = pz_fast_kernels_for(isa)->int_binary;
    }
    binary_name(l, st);
    return 0;
}

static void binary_run(const pz_layer *l, int ith, int nth)
{
    const binary_state *st = l->state;
    const pz_tensor *a = l->in[0], *b = l->in[1], *y = l->out[0];
    binary_state now;   /* a dynamic region: the broadcast of the run's dims */
    if (l->dyn) {
        now = *st;
        if (pz_numel(y) == 0 ||
            pz_bcast_init(&now.bc, a->rank, a->dims, b->rank, b->dims, y->rank, y->dims))
            return;   /* run_shape made Y from A and B: they broadcast */
        st = &now;
    }
    switch (st->path) {
    case BIN_16C:
        st->fn(l->params, y->dims[0], y->dims[1], y->dims[2] * y->dims[3], a->data, st->abc,
               b->data, st->bbc, y->data, ith, nth);
        break;
    case BIN_F32_FAST:
        if (pz_f32_binary_fast_takes(l->params, &st->bc)) {
            pz_f32_binary__fast(l->params, &st->bc, a->data, b->data, y->data, ith, nth);
            break;
        }
        /* a dynamic region: Pow, Max, ... by the CPU's kernel where it takes
         * the run's broadcast, else the reference */
        if (st->ffn && pz_f32_binary_vec_takes(l->params, &st->bc))
            st->ffn(l->params, &st->bc, a->data, b->data, y->data, ith, nth);
        else
            pz_f32_binary__ref(l->params, &st->bc, a->data, b->data, y->data, ith, nth);
        break;
    case BIN_F32_VEC:
        st->ffn(l->params, &st->bc, a->data, b->data, y->data, ith, nth);
        break;
    case BIN_F32:
        pz_f32_binary__ref(l->params, &st->bc, a->data, b->data, y->data, ith, nth);
        break;
    case BIN_INT_FAST:
        st->ifn(l->params, y->dtype, &st->bc, a->data, b->data, y->data, ith, nth);
        break;
    case BIN_INT:
        pz_int_binary__ref(l->params, y->dtype, &st->bc, a->data, b->data, y->data, ith, nth);
        break;
    default:
        pz_any_binary__ref(l->params, &st->bc, a->dtype, a->data, b->dtype, b->data, y->dtype,
                           y->data, ith, nth);
        break;
    }
}

/* Row ranges (fused F-Blocks), blocked path (A, B and Y of one shape):
 * rows [r0, r1) of each 16-channel plane are (r1 - r0) * W pixels. */
static int binary_rows(const pz_layer *l)
{
    const binary_state *st = l->state;
    return st && st->path == BIN_16C && st->abc == 0 && st->bbc == 0 ? 1 : 0;
}

static void binary_run_rows(const pz_layer *l, const void *const *in, void *out, int64_t r0,
                            int64_t r1, int ith, int nth)
{
    const binary_state *st = l->state;
    const int64_t *yd = l->out[0]->dims, cb = (yd[1] + 15) / 16;
    for (int64_t i = 0; i < yd[0]; i++)
        for (int64_t bc = 0; bc < cb; bc++) {
            int64_t o = ((i * cb + bc) * yd[2] + r0) * yd[3] * 16;
            st->fn(l->params, 1, yd[1] - bc * 16 < 16 ? yd[1] - bc * 16 : 16, (r1 - r0) * yd[3],
                   (const float *)in[0] + o, 0, (const float *)in[1] + o, 0, (float *)out + o,
                   ith, nth);
        }
}

static const pz_param_field binary_fields[] = {
    PZ_FIELD_ENUM(pz_binary_params, func, BINARY_FUNC), PZ_FIELD(pz_binary_params, act, PZ_F_ACT),
};

const pz_rt_op pz_rt_op_binary = {
    .rows = binary_rows, .run_rows = binary_run_rows,
    .name = "BINARY", PZ_OP_PARAMS(pz_binary_params, binary_fields),
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = binary_prepare, .run = binary_run,
    .row_rule = pz_row_rule_elementwise, .run_shape = pz_run_shape_bcast,
};
