/* rt_bcast_fast.c - the fast twins of rt/kernels/bcast_fast.h against
 * their references, bit for bit, on random shapes: Where (bool condition,
 * elements of 1, 2, 4, 8 and 3 bytes, every input broadcast on any axis or
 * a scalar, coalesced or not), the strided view (Expand, Tile, a crop-pad),
 * Gather (any axis, int32 and int64 indices, negative and out of range),
 * GatherElements, GatherND (batch dims, slices of one element or more) and
 * float32 Add/Sub/Mul/Div with a Relu or Clip (NaN, infinities, signed
 * zeros), Cast of masks and bytes to float32 and back; dims of 0 and 1 among them; 1 and 3 workers. Every output buffer
 * starts filled with 0xA5 so an element left unwritten shows. Then the
 * layers (WHERE, BINARY, VIEW, GATHER) in a net: PZ_ISA=ref (the
 * references) against the other ISAs (the twins), 1 to 3 workers. */
#include "rt/kernels/bcast_fast.h"
#include "rt_test.h"

static uint32_t urand(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33) % n;
}

static void *new_bytes(int64_t n)
{
    unsigned char *p = malloc((size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) p[i] = (unsigned char)urand(256);
    return p;
}

/* Runs the kernel call `call` (with y, ith, nth in scope) for nth = 1 and
 * 3 into yf, compares with yr's n bytes. */
#define RUN_BOTH(yf, nbytes, call)                                          \
    do {                                                                    \
        memset(yf, 0xa5, (size_t)(nbytes) + 1);                             \
        { int ith = 0, nth = 1; call; }                                     \
        ok1 = memcmp(yf, yr, (size_t)(nbytes)) == 0;                        \
        memset(yf, 0xa5, (size_t)(nbytes) + 1);                             \
        for (int ith = 0, nth = 3; ith < 3; ith++) { call; }                \
        ok3 = memcmp(yf, yr, (size_t)(nbytes)) == 0;                        \
    } while (0)

static const int64_t DIMS[] = {0, 1, 1, 2, 3, 5, 17, 33};

/* A random Y shape of rank r, one dim 0 in about one shape of 8. */
static void rand_shape(int r, int64_t *d)
{
    for (int i = 0; i < r; i++) d[i] = DIMS[1 + urand(7)];
    if (r > 0 && urand(8) == 0) d[urand((uint32_t)r)] = 0;
}

/* An operand that broadcasts to y: rank <= r, each dim y's or 1. */
static int rand_bcast(int r, const int64_t *yd, int64_t *d)
{
    int rt = urand(4) == 0 ? (int)urand((uint32_t)r + 1) : r;
    for (int i = 0; i < rt; i++) d[i] = urand(3) == 0 ? 1 : yd[i + r - rt];
    return rt;
}

/* Element strides of t (rank rt) in y's shape, 0 where broadcast. */
static void strides_in(int rt, const int64_t *td, int r, const int64_t *yd, int64_t *s)
{
    int64_t acc = 1;
    for (int i = r - 1; i >= 0; i--) {
        int it = i - (r - rt);
        int64_t nt = it >= 0 ? td[it] : 1;
        s[i] = nt == 1 ? 0 : acc;
        acc *= nt;
    }
}

static void test_where(void)
{
    static const size_t ES[] = {1, 2, 4, 8, 3};
    int bad = 0;
    for (int t = 0; t < 400; t++) {
        int r = (int)urand(5);
        int64_t yd[PZ_MAX_RANK], cd[PZ_MAX_RANK], ad[PZ_MAX_RANK], bd[PZ_MAX_RANK];
        rand_shape(r, yd);
        int rc = rand_bcast(r, yd, cd), ra = rand_bcast(r, yd, ad), rb = rand_bcast(r, yd, bd);
        pz_where_desc d = {.rank = r};
        for (int i = 0; i < r; i++) d.dims[i] = yd[i];
        strides_in(rc, cd, r, yd, d.sc);
        strides_in(ra, ad, r, yd, d.sa);
        strides_in(rb, bd, r, yd, d.sb);
        if (r == 0) d.rank = 1, d.dims[0] = 1, d.sc[0] = d.sa[0] = d.sb[0] = 0;
        size_t es = ES[urand(5)];
        int64_t ny = pz_prod(d.dims, d.rank), nc = pz_prod(cd, rc);
        uint8_t *c = malloc((size_t)nc + 1);
        for (int64_t i = 0; i < nc; i++) c[i] = (uint8_t)urand(2);
        void *a = new_bytes(pz_prod(ad, ra) * (int64_t)es);
        void *b = new_bytes(pz_prod(bd, rb) * (int64_t)es);
        unsigned char *yr = malloc((size_t)ny * es + 1), *y = malloc((size_t)ny * es + 1);
        pz_any_where__ref(&d, es, c, a, b, yr, 0, 1);
        pz_where_desc dc = d;
        pz_where_coalesce(&dc);
        bool ok1, ok3, okc1, okc3;
        RUN_BOTH(y, ny * (int64_t)es, pz_any_where__fast(&d, es, c, a, b, y, ith, nth));
        okc1 = ok1, okc3 = ok3;
        RUN_BOTH(y, ny * (int64_t)es, pz_any_where__fast(&dc, es, c, a, b, y, ith, nth));
        if (!(ok1 && ok3 && okc1 && okc3) && bad++ < 5)
            checkf(false, "where rank %d es %zu ny %lld: fast %d %d, coalesced %d %d", r, es,
                   (long long)ny, okc1, okc3, ok1, ok3);
        free(c); free(a); free(b); free(yr); free(y);
    }
    checkf(bad == 0, "where: 400 random shapes bitwise (%d differ)", bad);
}

static void test_view(void)
{
    static const size_t ES[] = {1, 2, 4, 8, 3};
    int bad = 0;
    for (int t = 0; t < 300; t++) {
        int r = 1 + (int)urand(4), rx = r;
        int64_t xd[PZ_MAX_RANK], yd[PZ_MAX_RANK];
        pz_view_params p = {0};
        p.func = (pz_view_func)(t % 3 == 0 ? PZ_VIEW_EXPAND : t % 3 == 1 ? PZ_VIEW_TILE
                                                                        : PZ_VIEW_CROP_PAD);
        rand_shape(r, yd);
        if (p.func == PZ_VIEW_EXPAND) {
            rx = rand_bcast(r, yd, xd);
        } else if (p.func == PZ_VIEW_TILE) {
            for (int i = 0; i < r; i++) {
                xd[i] = DIMS[urand(8)];
                yd[i] = xd[i] * (int64_t)urand(3);
            }
        } else {
            for (int i = 0; i < r; i++) {
                xd[i] = DIMS[urand(8)];
                p.start[i] = (int64_t)urand(7) - 3;
            }
        }
        pz_view_desc d;
        const char *why = "";
        if (pz_view_plan(&p, rx, xd, r, yd, &d, &why)) {
            checkf(false, "view plan %d: %s", (int)p.func, why);
            continue;
        }
        size_t es = ES[urand(5)];
        int64_t ny = pz_prod(yd, r);
        void *x = new_bytes(pz_prod(xd, rx) * (int64_t)es);
        unsigned char *yr = malloc((size_t)ny * es + 1), *y = malloc((size_t)ny * es + 1);
        pz_any_view__ref(&d, es, x, yr, 0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, ny * (int64_t)es, pz_any_view__fast(&d, es, x, y, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5)
            checkf(false, "view func %d rank %d es %zu: %d %d", (int)p.func, r, es, ok1, ok3);
        free(x); free(yr); free(y);
    }
    checkf(bad == 0, "view (expand, tile, crop-pad): 300 random shapes bitwise (%d differ)", bad);
}

/* n indices in [-2*range, 2*range) of itype: negative ones and some out of range. */
static void *rand_indices(int itype, int64_t n, int64_t range)
{
    void *p = malloc((size_t)(n > 0 ? n : 1) * 8);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = urand(6) == 0 ? (int64_t)urand((uint32_t)(4 * range + 2)) - 2 * range - 1
                                  : (int64_t)urand((uint32_t)(2 * range + 1)) - range;
        if (itype == PZ_I32) ((int32_t *)p)[i] = (int32_t)v;
        else ((int64_t *)p)[i] = v;
    }
    return p;
}

static void test_gather(void)
{
    static const size_t ES[] = {1, 2, 4, 8, 3};
    int bad = 0;
    for (int t = 0; t < 300; t++) {
        int64_t outer = DIMS[urand(8)], n = DIMS[1 + urand(7)], nidx = DIMS[urand(8)];
        int64_t inner = urand(2) ? 1 : DIMS[urand(8)];
        int itype = urand(2) ? PZ_I32 : PZ_I64;
        size_t es = ES[urand(5)];
        void *idx = rand_indices(itype, nidx, n);
        void *x = new_bytes(outer * n * inner * (int64_t)es);
        int64_t ny = outer * nidx * inner * (int64_t)es;
        unsigned char *yr = malloc((size_t)ny + 1), *y = malloc((size_t)ny + 1);
        pz_any_gather__ref(es, outer, n, inner, itype, idx, nidx, x, yr, 0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, ny, pz_any_gather__fast(es, outer, n, inner, itype, idx, nidx, x, y, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5)
            checkf(false, "gather %lldx%lldx%lld by %lld es %zu: %d %d", (long long)outer,
                   (long long)n, (long long)inner, (long long)nidx, es, ok1, ok3);
        free(idx); free(x); free(yr); free(y);
    }
    checkf(bad == 0, "gather: 300 random shapes bitwise (%d differ)", bad);
}

static void test_gather_elements(void)
{
    static const size_t ES[] = {1, 2, 4, 8, 3};
    int bad = 0;
    for (int t = 0; t < 300; t++) {
        int r = 1 + (int)urand(4), axis = (int)urand((uint32_t)r);
        int64_t xd[PZ_MAX_RANK], id[PZ_MAX_RANK], xs[PZ_MAX_RANK], acc = 1;
        rand_shape(r, xd);
        if (xd[axis] == 0) xd[axis] = 3;   /* indices into an empty axis cannot exist */
        for (int i = 0; i < r; i++)
            id[i] = i == axis ? DIMS[urand(8)] : xd[i] ? (int64_t)urand((uint32_t)xd[i] + 1) : 0;
        for (int i = r - 1; i >= 0; i--) xs[i] = acc, acc *= xd[i];
        int itype = urand(2) ? PZ_I32 : PZ_I64;
        size_t es = ES[urand(5)];
        int64_t ni = pz_prod(id, r), ny = ni * (int64_t)es;
        void *idx = rand_indices(itype, ni, xd[axis]);
        void *x = new_bytes(acc * (int64_t)es);
        unsigned char *yr = malloc((size_t)ny + 1), *y = malloc((size_t)ny + 1);
        pz_any_gather_elements__ref(es, r, id, xs, axis, xd[axis], itype, idx, x, yr, 0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, ny, pz_any_gather_elements__fast(es, r, id, xs, axis, xd[axis], itype, idx, x,
                                                     y, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5)
            checkf(false, "gather_elements rank %d axis %d es %zu: %d %d", r, axis, es, ok1, ok3);
        free(idx); free(x); free(yr); free(y);
    }
    checkf(bad == 0, "gather_elements: 300 random shapes bitwise (%d differ)", bad);
}

static void test_gather_nd(void)
{
    static const size_t ES[] = {1, 2, 4, 8, 3};
    int bad = 0;
    for (int t = 0; t < 300; t++) {
        /* data [B, D0..D(r-1)], indices [B, Q, k]: b = 0 or 1 batch dims */
        int b = (int)urand(2), r = 1 + (int)urand(3), k = 1 + (int)urand((uint32_t)r);
        int64_t xd[PZ_MAX_RANK], nb = b ? DIMS[1 + urand(4)] : 1, q = DIMS[urand(8)];
        for (int i = 0; i < r; i++) xd[i] = DIMS[1 + urand(6)];
        int64_t batch_elems = pz_prod(xd, r), slice = pz_prod(xd + k, r - k), tuples = nb * q;
        int itype = urand(2) ? PZ_I32 : PZ_I64;
        size_t es = ES[urand(5)];
        void *idx = malloc((size_t)(tuples * k > 0 ? tuples * k : 1) * 8);
        for (int64_t i = 0; i < tuples * k; i++) {
            int64_t n = xd[i % k], v = (int64_t)urand((uint32_t)(2 * n + 1)) - n;
            if (urand(10) == 0) v = n;   /* out of range */
            if (itype == PZ_I32) ((int32_t *)idx)[i] = (int32_t)v;
            else ((int64_t *)idx)[i] = v;
        }
        void *x = new_bytes(nb * batch_elems * (int64_t)es);
        int64_t ny = tuples * slice * (int64_t)es;
        unsigned char *yr = malloc((size_t)ny + 1), *y = malloc((size_t)ny + 1);
        pz_any_gather_nd__ref(es, tuples, q ? q : 1, k, xd, batch_elems, slice, itype, idx, x, yr,
                              0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, ny, pz_any_gather_nd__fast(es, tuples, q ? q : 1, k, xd, batch_elems, slice,
                                               itype, idx, x, y, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5)
            checkf(false, "gather_nd b %d r %d k %d es %zu: %d %d", b, r, k, es, ok1, ok3);
        free(idx); free(x); free(yr); free(y);
    }
    checkf(bad == 0, "gather_nd: 300 random shapes bitwise (%d differ)", bad);
}

/* Floats with NaN, infinities, signed zeros among them. */
static float *new_edgy(int64_t n)
{
    static const float V[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e-40f, 3.0f};
    float *p = new_rand(n);
    for (int64_t i = 0; i < n; i++)
        if (urand(8) == 0) p[i] = V[urand(7)];
    return p;
}

static void test_binary(void)
{
    int bad = 0, taken = 0;
    for (int t = 0; t < 600; t++) {
        int r = (int)urand(5);
        int64_t yd[PZ_MAX_RANK], ad[PZ_MAX_RANK], bd[PZ_MAX_RANK];
        rand_shape(r, yd);
        int ra = rand_bcast(r, yd, ad), rb = rand_bcast(r, yd, bd);
        if (t % 4 == 0 && r == 4) {   /* a per-channel [1, C, 1, 1] operand on NCHW */
            rb = 4;
            bd[0] = 1, bd[1] = yd[1], bd[2] = bd[3] = 1;
        }
        pz_bcast bc;
        CHECK(pz_bcast_init(&bc, ra, ad, rb, bd, r, yd) == 0);
        pz_binary_params p = {.func = (pz_binary_func)(PZ_BIN_ADD + (int)urand(4))};
        p.act.kind = (pz_act_kind)urand(3);   /* none, Relu, Clip */
        p.act.lo = -0.5f, p.act.hi = 0.25f;
        if (!pz_f32_binary_fast_takes(&p, &bc)) continue;
        taken++;
        int64_t ny = pz_prod(yd, r);
        float *a = new_edgy(pz_prod(ad, ra)), *b = new_edgy(pz_prod(bd, rb));
        float *yr = malloc((size_t)(ny + 1) * 4), *y = malloc((size_t)(ny + 1) * 4);
        pz_f32_binary__ref(&p, &bc, a, b, yr, 0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, ny * 4, pz_f32_binary__fast(&p, &bc, a, b, y, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5)
            checkf(false, "binary func %d rank %d act %d: %d %d", (int)p.func, r, (int)p.act.kind,
                   ok1, ok3);
        free(a); free(b); free(yr); free(y);
    }
    checkf(bad == 0, "binary f32: %d random broadcasts bitwise (%d differ)", taken, bad);
    /* the patterns the twin is for are taken: a scalar, [1, C, 1, 1] on NCHW, [.., 1] */
    static const int64_t Y4[4] = {2, 8, 5, 7}, C4[4] = {1, 8, 1, 1}, L4[4] = {2, 8, 5, 1};
    pz_binary_params mul = {.func = PZ_BIN_MUL};
    pz_bcast bc;
    CHECK(pz_bcast_init(&bc, 4, Y4, 0, Y4, 4, Y4) == 0);
    check(pz_f32_binary_fast_takes(&mul, &bc), "binary twin takes a scalar operand");
    CHECK(pz_bcast_init(&bc, 4, Y4, 4, C4, 4, Y4) == 0);
    check(pz_f32_binary_fast_takes(&mul, &bc), "binary twin takes a [1,C,1,1] operand");
    CHECK(pz_bcast_init(&bc, 4, L4, 4, Y4, 4, Y4) == 0);
    check(pz_f32_binary_fast_takes(&mul, &bc), "binary twin takes a [..,1] operand");
    mul.func = PZ_BIN_POW;
    check(!pz_f32_binary_fast_takes(&mul, &bc), "binary twin leaves Pow to the reference");
}

/* BERT's mask (Where of a [1,1,1,T] bool over [1,H,T,T] and a scalar), a
 * per-channel Mul with a Relu, an Expand of [1,H,1,1], a Gather of rows by
 * indices with negative ones: the four outputs of a net compiled for isa
 * with nth workers, into out[0..4). */
enum { LH = 3, LT = 37, LV = 50, LD = 24, LK = 9 };
static int run_layers(const char *isa, int nth, const uint8_t *cond, const float *x,
                      const float *s, const float *table, const int64_t *ix, void **out)
{
    static const float zero = -1e9f;
    const int64_t att[4] = {1, LH, LT, LT}, per[4] = {1, LH, 1, 1};
    pz_net *net = pz_net_new("bcast");
    int c = pz_net_input(net, "cond", PZ_BOOL, 4, (int64_t[]){1, 1, 1, LT});
    int xi = pz_net_input(net, "x", PZ_F32, 4, att);
    int ii = pz_net_input(net, "ix", PZ_I64, 1, (int64_t[]){LK});
    int z = pz_net_const(net, "z", PZ_F32, 0, NULL, &zero);
    int sc = pz_net_const(net, "s", PZ_F32, 4, per, s);
    int tb = pz_net_const(net, "table", PZ_F32, 2, (int64_t[]){LV, LD}, table);
    int w = pz_net_tensor(net, "w", PZ_F32, 4, att), m = pz_net_tensor(net, "m", PZ_F32, 4, att);
    int e = pz_net_tensor(net, "e", PZ_F32, 4, att);
    int g = pz_net_tensor(net, "g", PZ_F32, 2, (int64_t[]){LK, LD});
    pz_binary_params mul = {.func = PZ_BIN_MUL, .act = {.kind = PZ_ACT_RELU}};
    pz_view_params ex = {.func = PZ_VIEW_EXPAND};
    pz_axis_params ax = {.axis = 0};
    pz_net_layer(net, "where", PZ_OP_WHERE, NULL, 0, (int[]){c, xi, z}, 3, &w, 1);
    pz_net_layer(net, "mul", PZ_OP_BINARY, &mul, sizeof mul, (int[]){w, sc}, 2, &m, 1);
    pz_net_layer(net, "expand", PZ_OP_VIEW, &ex, sizeof ex, &sc, 1, &e, 1);
    pz_net_layer(net, "gather", PZ_OP_GATHER, &ax, sizeof ax, (int[]){tb, ii}, 2, &g, 1);
    pz_net_output(net, w);
    pz_net_output(net, m);
    pz_net_output(net, e);
    pz_net_output(net, g);
    pz_run_options opts = rt_options_isa(isa);
    char err[256];
    if (pz_net_compile(net, nth, &opts, err, sizeof err)) {
        checkf(false, "layers %s: compile: %s", isa, err);
        pz_net_free(net);
        return -1;
    }
    const void *ins[3] = {cond, x, ix};
    pz_net_run(net, ins, (void *const *)out);
    pz_net_free(net);
    return 0;
}

static void test_layers(void)
{
    const int64_t na = LH * LT * LT, sizes[4] = {na * 4, na * 4, na * 4, LK * LD * 4};
    uint8_t cond[LT];
    for (int i = 0; i < LT; i++) cond[i] = (uint8_t)urand(2);
    float *x = new_edgy(na), *s = new_rand(LH), *table = new_rand(LV * LD);
    int64_t ix[LK];
    for (int i = 0; i < LK; i++) ix[i] = (int64_t)urand(2 * LV) - LV;   /* [-V, V) */
    void *ref[4], *got[4];
    for (int i = 0; i < 4; i++) ref[i] = malloc((size_t)sizes[i]), got[i] = malloc((size_t)sizes[i]);
    if (run_layers("ref", 1, cond, x, s, table, ix, ref) == 0) {
        static const char *const ISAS[3] = {"scalar", "avx2", "avx512"};
        const bool have[3] = {true, cpu_has_avx2(), cpu_has_avx512()};
        static const char *const OUT[4] = {"where", "mul+relu", "expand", "gather"};
        for (int k = 0; k < 3; k++)
            for (int nth = 1; nth <= 3 && have[k]; nth++) {
                for (int i = 0; i < 4; i++) memset(got[i], 0xa5, (size_t)sizes[i]);
                if (run_layers(ISAS[k], nth, cond, x, s, table, ix, got)) continue;
                for (int i = 0; i < 4; i++)
                    checkf(memcmp(got[i], ref[i], (size_t)sizes[i]) == 0,
                           "layer %s, %s nth%d, bitwise the PZ_ISA=ref one's", OUT[i], ISAS[k],
                           nth);
            }
    }
    for (int i = 0; i < 4; i++) free(ref[i]), free(got[i]);
    free(x); free(s); free(table);
}

/* Cast's twin (bool, uint8, int8 -> float32; float32 -> bool) against
 * pz_any_cast__ref, bitwise: random bytes (bools 0 and 1) and edgy floats
 * (NaN, infinities, signed zeros), lengths 0 to 100, 1 and 3 workers; the
 * pairs it refuses (float16, int32 -> float32) it does not take. */
static void test_cast(void)
{
    static const int PAIRS[][2] = {{PZ_BOOL, PZ_F32}, {PZ_U8, PZ_F32}, {PZ_I8, PZ_F32}, {PZ_F32, PZ_BOOL}};
    int bad = 0;
    for (int t = 0; t < 200; t++) {
        const int tx = PAIRS[t % 4][0], ty = PAIRS[t % 4][1];
        const int64_t n = (int64_t)urand(101);
        CHECK(pz_any_cast_fast_takes(tx, ty));
        void *x = tx == PZ_F32 ? (void *)new_edgy(n) : new_bytes(n);
        if (tx == PZ_BOOL)
            for (int64_t i = 0; i < n; i++) ((uint8_t *)x)[i] &= 1;
        const int64_t nb = n * (int64_t)pz_dtype_size(ty);
        unsigned char *yr = malloc((size_t)nb + 1), *y = malloc((size_t)nb + 1);
        pz_any_cast__ref(NULL, tx, x, ty, yr, n, 0, 1);
        bool ok1, ok3;
        RUN_BOTH(y, nb, pz_any_cast__fast(tx, x, ty, y, n, ith, nth));
        if (!(ok1 && ok3) && bad++ < 5) checkf(false, "cast %d -> %d n %lld: %d %d", tx, ty, (long long)n, ok1, ok3);
        free(x); free(yr); free(y);
    }
    checkf(bad == 0, "cast: 200 random vectors bitwise (%d differ)", bad);
    check(!pz_any_cast_fast_takes(PZ_F32, PZ_F16) && !pz_any_cast_fast_takes(PZ_I32, PZ_F32),
          "cast twin refuses float16 and int32 -> float32");
}

int main(void)
{
    test_where();
    test_view();
    test_gather();
    test_gather_elements();
    test_gather_nd();
    test_binary();
    test_cast();
    test_layers();
    return test_summary("rt_bcast_fast");
}
