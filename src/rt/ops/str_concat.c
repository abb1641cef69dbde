/* str_concat.c - the STR_CONCAT layer (ONNX StringConcat): Y = A + B, the
 * strings joined element by element, A and B broadcast (numpy) to Y. The
 * results live in the layer's string store (rt/pz_strings.h). */
#include <string.h>

#include "rt/ops/ops.h"
#include "rt/pz_strings.h"

typedef struct {
    pz_bcast bc;
    pz_strstore *st;
} concat_state;

typedef struct {
    const pz_layer *l;
    int64_t sa, sb;
} concat_ctx;

static int concat_prepare(pz_layer *l, char *err, size_t n)
{
    const pz_tensor *a = pz_in(l, 0), *b = pz_in(l, 1), *y = pz_out(l, 0);
    if (!a || !b || !y) return pz_layer_fail(l, err, n, "needs A, B and Y");
    if (pz_layer_want_dtype(l, err, n, "A", a, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "B", b, PZ_STRING) ||
        pz_layer_want_dtype(l, err, n, "Y", y, PZ_STRING))
        return 1;
    concat_state *s = calloc(1, sizeof *s);
    if (!s) return pz_layer_fail(l, err, n, "out of memory");
    l->state = s;
    if (!(s->st = pz_strstore_new())) return pz_layer_fail(l, err, n, "out of memory");
    char ba[96], bb[96], by[96];
    if (pz_bcast_init(&s->bc, a->rank, a->dims, b->rank, b->dims, y->rank, y->dims))
        return pz_layer_fail(l, err, n, "A %s and B %s do not broadcast to Y %s",
                             pz_shape_str(a, ba, sizeof ba), pz_shape_str(b, bb, sizeof bb),
                             pz_shape_str(y, by, sizeof by));
    l->nth = 1;   /* one store, filled in order */
    return 0;
}

static void concat_seg(void *vctx, int64_t oa, int64_t ob, int64_t oy, int64_t n)
{
    const concat_ctx *c = vctx;
    const concat_state *s = c->l->state;
    const char **y = c->l->out[0]->data;
    for (int64_t i = 0; i < n; i++) {
        const char *a = pz_str_at(c->l->in[0]->data, oa + i * c->sa),
                   *b = pz_str_at(c->l->in[1]->data, ob + i * c->sb);
        size_t la = strlen(a), lb = strlen(b);
        char *r = pz_strstore_alloc(s->st, la + lb);
        PZ_RT_ASSERT(r);
        memcpy(r, a, la);
        memcpy(r + la, b, lb);
        y[oy + i] = r;
    }
}

static void concat_run(const pz_layer *l, int ith, int nth)
{
    concat_state *s = l->state;
    if (ith) return;
    (void)nth;
    pz_strstore_reset(s->st);
    concat_ctx c = {l, s->bc.sa[s->bc.rank - 1], s->bc.sb[s->bc.rank - 1]};
    pz_bcast_walk(&s->bc, 0, 1, concat_seg, &c);
}

static void concat_release(pz_layer *l)
{
    concat_state *s = l->state;
    if (s) pz_strstore_free(s->st);
}

const pz_rt_op pz_rt_op_str_concat = {
    .name = "STR_CONCAT",
    .min_in = 2, .max_in = 2, .min_out = 1, .max_out = 1,
    .prepare = concat_prepare, .run = concat_run, .release = concat_release,
};
