/* guard.c - the branch an If does not take is not run.
 *
 * An If whose condition is known only at run time has both branches
 * inlined (src/ops/if.c); a SELECT_BRANCH, or a WHERE of a one-bool
 * condition (pz_where_reads_one), then reads the side the condition takes
 * and nothing of the other. A layer read only for one side gets a guard,
 * (condition tensor, value), and is skipped when the run's condition is the
 * other: a branch not taken costs nothing and cannot fail the run on its
 * inputs (a Gather out of range, a Reshape that does not hold), as in ONNX
 * Runtime.
 *
 * Compile walks the layers backwards: a layer's need is what every reader
 * that runs needs in common (the literals all their guards share), a
 * chooser adding its condition to its side's need; graph outputs, and
 * layers nothing reads, always run. Nested Ifs give a list (an AND, the
 * outer condition first), up to PZ_GUARD_MAX literals. A literal is kept
 * only where its condition is written before the layer in the same run of
 * it (not by a loop body the layer runs outside of).
 *
 * Why a reader that runs finds its inputs written: each producer's guard is
 * implied by each of its readers' guards. Why the condition the layer reads
 * is the chooser's: the tensor lives, unchanged, from its writer to the
 * chooser, which reads it after the layer.
 *
 * No fusion hides a chooser with a branch to skip: select.c's Where fusion
 * needs the sides to be the fused layer's own output y (y, a constant,
 * Mul(y, k)), so an If it takes whole holds that layer alone, which the
 * condition Cmp(y, c) needs anyway; its mask fusion takes only the Cmp, and
 * the WHERE reading the bool stays a chooser (33-control-flow's if_fused).
 */
#include <string.h>

#include "rt/guard.h"
#include "rt/net.h"

typedef struct {
    int seen;                    /* 0: no reader yet */
    int n;
    int t[PZ_GUARD_MAX];
    unsigned char v[PZ_GUARD_MAX];
} need;

/* *a = the literals of a that b has too (a reader's need met with another's). */
static void need_meet(need *a, const need *b)
{
    if (!a->seen) {
        *a = *b;
        a->seen = 1;
        return;
    }
    int k = 0;
    for (int i = 0; i < a->n; i++) {
        int in_b = 0;
        for (int j = 0; j < b->n && !in_b; j++) in_b = b->t[j] == a->t[i] && b->v[j] == a->v[i];
        if (!in_b) continue;
        a->t[k] = a->t[i];
        a->v[k++] = a->v[i];
    }
    a->n = k;
}

/* The condition of a chooser layer (SELECT_BRANCH, a one-bool WHERE), or -1. */
static int chooser_cond(const pz_layer *l)
{
    if (l->kind != PZ_OP_SELECT_BRANCH && !(l->kind == PZ_OP_WHERE && pz_where_reads_one(l)))
        return -1;
    const pz_tensor *c = l->in[0];
    if (l->in_id[0] < 0 || !c || c->dtype != PZ_BOOL || pz_numel(c) != 1) return -1;
    return l->in_id[0];
}

/* Whether tensor c is written, in each run of layer li, before it: an
 * input, a constant, or a value of an earlier layer outside any loop body,
 * in a loop that ends before li, or in a loop body li runs in. */
static int written_before(const pz_net *net, int c, int li)
{
    const rt_tensor *t = &net->tensors[c];
    if (t->kind != T_VALUE) return t->kind == T_INPUT || t->kind == T_CONST;
    int p = t->producer;
    if (p < 0 || p >= li) return 0;
    int lp = net->layers[p].loop_of;   /* 1 + its LOOP layer */
    if (!lp || lp - 1 < li) return 1;
    for (int q = net->layers[li].loop_of; q; q = net->layers[q - 1].loop_of)
        if (q == lp) return 1;
    return 0;
}

int pz_guard_plan(pz_net *net, char *err, size_t n)
{
    need *nd = calloc((size_t)(net->n_layers ? net->n_layers : 1), sizeof *nd);
    if (!nd) return snprintf(err, n, "out of memory"), 1;
    const need always = {1, 0, {0}, {0}};
    for (int i = 0; i < net->n_outputs; i++) {
        const rt_tensor *t = &net->tensors[net->outputs[i]];
        if (t->kind == T_VIEW) t = &net->tensors[t->root];
        if (t->kind == T_VALUE && t->producer >= 0) need_meet(&nd[t->producer], &always);
    }
    for (int li = net->n_layers - 1; li >= 0; li--) {
        pz_layer *l = &net->layers[li];
        const need *mine = &nd[li];
        l->n_guard = 0;
        for (int k = 0; mine->seen && k < mine->n; k++) {
            if (!written_before(net, mine->t[k], li)) continue;
            l->guard_t[l->n_guard] = mine->t[k];
            l->guard_v[l->n_guard++] = mine->v[k];
        }
        /* its producers run whenever it does: they meet its guard */
        need g = {1, l->n_guard, {0}, {0}};
        memcpy(g.t, l->guard_t, sizeof g.t);
        memcpy(g.v, l->guard_v, sizeof g.v);
        int c = chooser_cond(l);
        for (int i = 0; i < l->n_in; i++) {
            if (l->in_id[i] < 0) continue;
            int p = net->tensors[l->in_id[i]].producer;
            if (p < 0 || net->tensors[l->in_id[i]].kind != T_VALUE) continue;
            need side = g;
            if (c >= 0 && (i == 1 || i == 2) && side.n < PZ_GUARD_MAX) {
                side.t[side.n] = c;   /* input 1 is read when c holds, 2 when not */
                side.v[side.n++] = i == 1;
            }
            need_meet(&nd[p], &side);
        }
    }
    free(nd);
    return 0;
}

int pz_guard_skips(pz_net *net, pz_layer *l)
{
    int off = 0;
    for (int k = 0; k < l->n_guard && !off; k++) {
        const pz_tensor *c = &net->tensors[l->guard_t[k]].t;
        /* not one bool (a writer that failed): run, as without a guard */
        if (c->data && pz_numel(c) == 1) off = (*(const uint8_t *)c->data != 0) != l->guard_v[k];
    }
    l->skipped = off;
    if (off) {
        if (l->run_err) l->run_err[0] = 0;
        l->ns = 0;
    }
    return off;
}
