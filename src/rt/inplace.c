/* inplace.c - Concat and Split in place: the producers of a
 * concatenation's parts write straight into their slice of its output, and
 * the readers of a split's parts read their slice of its input; the CONCAT
 * or SPLIT layer does nothing at run time (no copy, no time in the profile).
 *
 * Decided at compile, after every prepare (the layouts are known) and the
 * fusion plan, before the arena: both `paleozoic run` and the generated
 * program compile the same net, so they agree. A concatenation is done in
 * place when its output is its parts one after the other: one outer row
 * (the dims before the axis are 1: channels of one image, plain or NCHW16c
 * with every part but the last a whole number of 16-channel blocks), each
 * part arriving in the concat's layout (no conversion) at a PZ_ALIGN-aligned
 * offset. Each part must be a tensor a layer writes, read here once, not
 * already in place in another concatenation, and the layers that write the
 * part and the concat write whole tensors (alone in their blocks, or in
 * fused blocks but not into row windows). Otherwise the CONCAT layer
 * copies, as before. Concats are planned last first, and one whose parts
 * already lie one after the other in one buffer (parts of a later concat
 * in place) is a view of those bytes: a DenseNet block's concats are all
 * prefixes of its last one, so the block runs in one pre-allocated buffer
 * that each layer appends its channels to (the memory-efficient DenseNet).
 *
 * A split is the mirror (the one the concatenation pass puts after a merged
 * conv): one outer row, its input X written by a layer and arriving in the
 * split's layout, its parts at PZ_ALIGN-aligned offsets in that layout
 * (NCHW16c: every part but the last whole blocks). Each part becomes a slice
 * of X, whatever reads it: a slice of one image's channels is contiguous.
 * A part that is already a part of a Concat in place (an inception
 * module's 1x1 branch, read by the module's concat) cannot be a slice of X
 * too, unless X can be placed around it: when the parts held by concats
 * sit in one outermost buffer at X's own distances and X's other parts
 * then fall outside that buffer (the branch is X's last part and starts
 * the buffer, or X's first and ends it), X is a slice of that buffer at a
 * negative offset (or reaching past its end), and the merged conv writes
 * the branch straight into the concat. Otherwise the SPLIT copies those
 * parts only.
 * Concats are planned first (they save a copy each; a split keeps the
 * concat's part).
 *
 * Last, a concat that is not in place but whose NCHW16c output only
 * channel gathers read (ShuffleNetV2: the concat of 58 + 58 channels before
 * the shuffle and the split, which the graph passes made gathers) is read
 * through: each gather takes its channels from the parts themselves
 * (pz_chg_through), the parts live until the last of them, and the concat
 * does not run. A gather that reads through a concat is read through in
 * turn when only such concats and their gathers read it (the half a
 * ShuffleNetV2 unit passes on: pz_chg_compose), so those channels move
 * once, where a later unit's gathers or its stage's last shuffle take them.
 * A channel gather left whose one reader is a conv is run by that conv's
 * workers, each into its scratch (gather_conv below): no layer between.
 */
#include <string.h>

#include "rt/arena.h"
#include "rt/fuse.h"
#include "rt/net.h"
#include "rt/ops/ops.h"

/* Whether layer li's output is a whole tensor in the arena: a layer alone
 * in its block, or one of a fused block whose output no row window holds
 * (rt/fuse.h: a tensor a concat or split reads is read after its run, so it
 * is whole; fused runs write its rows through its data pointer, set by the
 * arena after this plan). */
static bool alone(const pz_net *net, int li)
{
    const rt_block *b = &net->blocks[net->layers[li].block];
    return b->count == 1 || !pz_fuse_windowed(b->fuse, li);
}

/* Whether CONCAT layer l's output can be its parts one after the other:
 * a whole tensor, one outer row, plain or NCHW16c on channels. */
static bool concat_shape_fits(const pz_net *net, const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    /* a dynamic region's shapes move at run time: offsets planned now would not hold */
    if (l->n_convs || l->dyn || l->loop_of || l->out_id[0] < 0 ||
        !alone(net, (int)(l - net->layers)))
        return false;
    const rt_tensor *y = &net->tensors[l->out_id[0]];
    if (y->kind != T_VALUE || y->rt_alloc || p->axis < 0 || p->axis >= y->t.rank) return false;
    for (int a = 0; a < p->axis; a++)
        if (y->t.dims[a] != 1) return false;
    int cb = l->out_cblk[0];
    return !cb || (cb == 16 && y->t.rank == 4 && p->axis == 1);
}

/* Whether CONCAT layer l can be in place (see above). */
static bool concat_fits(const pz_net *net, const pz_layer *l)
{
    if (!concat_shape_fits(net, l)) return false;
    const rt_tensor *y = &net->tensors[l->out_id[0]];
    int cb = l->out_cblk[0];
    size_t at = 0;
    for (int i = 0; i < l->n_in; i++) {
        int id = l->in_id[i];
        if (id < 0 || l->in_view[i] >= 0) return false;
        const rt_tensor *t = &net->tensors[id];
        if (t->kind != T_VALUE || t->producer < 0 || t->host >= 0 || !alone(net, t->producer) ||
            t->cblk != cb || l->in_cblk[i] != cb || at % PZ_ALIGN)
            return false;
        if (cb && i + 1 < l->n_in && t->t.dims[1] % 16) return false;
        for (int j = 0; j < i; j++)
            if (l->in_id[j] == id) return false;   /* the same tensor twice */
        at += t->bytes;
    }
    return at == y->bytes;
}

/* Whether SPLIT layer l's parts can be slices of its input (see above). */
static bool split_fits(const pz_net *net, const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    int li = (int)(l - net->layers);
    if (l->n_convs || l->dyn || l->loop_of || l->n_in < 1 || l->in_id[0] < 0 ||
        l->in_view[0] >= 0 || !alone(net, li) || l->n_out > 32)
        return false;
    const rt_tensor *x = &net->tensors[l->in_id[0]];
    if (x->kind != T_VALUE || x->rt_alloc || x->producer < 0 || x->host >= 0 || !alone(net, x->producer) ||
        p->axis < 0 || p->axis >= x->t.rank)
        return false;
    for (int a = 0; a < p->axis; a++)
        if (x->t.dims[a] != 1) return false;
    int cb = l->in_cblk[0];
    if (x->cblk != cb || (cb && (cb != 16 || x->t.rank != 4 || p->axis != 1))) return false;
    size_t at = 0;
    for (int i = 0; i < l->n_out; i++) {
        if (l->out_id[i] < 0) return false;
        const rt_tensor *t = &net->tensors[l->out_id[i]];
        if (t->kind != T_VALUE || t->producer != li || t->cblk != cb || at % PZ_ALIGN) return false;
        if (cb && i + 1 < l->n_out && t->t.dims[1] % 16) return false;
        at += t->bytes;
    }
    return at == x->bytes;
}

/* The outermost tensor holding tensor i and i's offset in it. */
static int outermost(const pz_net *net, int i, int64_t *off)
{
    *off = 0;
    while (net->tensors[i].host >= 0) {
        *off += net->tensors[i].host_off;
        i = net->tensors[i].host;
    }
    return i;
}

/* Whether any tensor held by top lies outside its bytes (a split's input
 * placed around it already). */
static bool overhangs(const pz_net *net, int top)
{
    for (int i = 0; i < net->n_tensors; i++) {
        int64_t off;
        if (i == top || outermost(net, i, &off) != top) continue;
        if (off < 0 || off + (int64_t)net->tensors[i].bytes > (int64_t)net->tensors[top].bytes)
            return true;
    }
    return false;
}

/* Concat l as a view: when its parts already sit one after the other in
 * one buffer (a later concat in place holds them, as a dense block's last
 * concat holds every earlier one's parts), its output is that run of
 * bytes, and the layer does nothing. */
static bool concat_view(pz_net *net, pz_layer *l)
{
    if (l->n_in < 1 || !concat_shape_fits(net, l)) return false;
    rt_tensor *y = &net->tensors[l->out_id[0]];
    if (y->host >= 0) return false;
    int top = -1;
    int64_t at = 0, start = 0;
    for (int i = 0; i < l->n_in; i++) {
        if (l->in_id[i] < 0 || l->in_view[i] >= 0) return false;
        const rt_tensor *t = &net->tensors[l->in_id[i]];
        if (t->host < 0 || t->cblk != l->out_cblk[0] || l->in_cblk[i] != l->out_cblk[0])
            return false;
        int64_t off;
        int h = outermost(net, l->in_id[i], &off);
        if (i == 0) {
            top = h;
            start = at = off;
        }
        if (h != top || off != at || h == l->out_id[0]) return false;
        at += (int64_t)t->bytes;
    }
    if (at - start != (int64_t)y->bytes) return false;
    y->host = top;
    y->host_off = start;
    l->in_place = 1;
    return true;
}

/* Split l's input X placed around its parts that are parts of a Concat in
 * place (above): they must sit in one outermost buffer at X's own
 * distances, X's other parts outside that buffer's bytes. Returns the
 * parts it settled (0: none, X left alone). */
static unsigned split_around(pz_net *net, const pz_layer *l, const size_t *at)
{
    int top = -1;
    int64_t d = 0;   /* X's first byte in top */
    unsigned mask = 0;
    for (int i = 0; i < l->n_out; i++) {
        const rt_tensor *t = &net->tensors[l->out_id[i]];
        if (t->host < 0) continue;
        int64_t abs;
        int h = outermost(net, l->out_id[i], &abs);
        if (top >= 0 && (h != top || abs - (int64_t)at[i] != d)) return 0;
        top = h;
        d = abs - (int64_t)at[i];
        mask |= 1u << i;
    }
    if (top < 0 || overhangs(net, top)) return 0;
    int64_t tb = (int64_t)net->tensors[top].bytes;
    for (int i = 0; i < l->n_out; i++) {
        int64_t lo = d + (int64_t)at[i], hi = lo + (int64_t)net->tensors[l->out_id[i]].bytes;
        if (!(mask >> i & 1) && hi > 0 && lo < tb) return 0;
    }
    rt_tensor *x = &net->tensors[l->in_id[0]];
    x->host = top;
    x->host_off = d;
    return mask;
}

/* Split l in place: every part that can be is a slice of X (above). */
static void split_plan(pz_net *net, pz_layer *l)
{
    size_t at[32], sum = 0;
    for (int i = 0; i < l->n_out; i++) {
        at[i] = sum;
        sum += net->tensors[l->out_id[i]].bytes;
    }
    unsigned mask = split_around(net, l, at);
    for (int i = 0; i < l->n_out; i++) {
        rt_tensor *t = &net->tensors[l->out_id[i]];
        if (t->host >= 0) continue;
        t->host = l->in_id[0];
        t->host_off = (int64_t)at[i];
        mask |= 1u << i;
    }
    l->out_inplace = mask;
    l->in_place = mask == (l->n_out == 32 ? ~0u : (1u << l->n_out) - 1);
}

/* Whether layer r reads tensor y only as a channel gather could read
 * through it: GATHER input 0, as it is (no view, no conversion), alone. */
static bool gathers_from(const pz_net *net, int r, int y)
{
    const pz_layer *l = &net->layers[r];
    for (int s = 0; s < l->n_in; s++)
        if (l->in_id[s] == y && (s || l->kind != PZ_OP_GATHER || !l->state || l->n_convs ||
                                 l->loop_of || l->in_view[0] >= 0 || l->in_cblk[0] != 16 ||
                                 !alone(net, r)))
            return false;
    return true;
}

/* Whether tensor yi may go unwritten when its readers read through it: a
 * value in the arena, no graph output, no slice of another, none in it. */
static bool skippable(const pz_net *net, int yi)
{
    const rt_tensor *y = &net->tensors[yi];
    if (y->kind != T_VALUE || y->rt_alloc || y->last_use >= net->n_layers || y->host >= 0)
        return false;
    for (int i = 0; i < net->n_tensors; i++)
        if (net->tensors[i].host == yi) return false;
    return true;
}

/* CONCAT layer li read through (see the top): when only channel gathers
 * read its NCHW16c output, each gathers from the parts instead (ShuffleNetV2:
 * the concat before the shuffle and split), the parts live on to the last
 * of them, and the concat does not run. */
static void concat_through(pz_net *net, int li)
{
    pz_layer *l = &net->layers[li];
    if (l->in_place || l->n_convs || l->dyn || l->loop_of || l->out_id[0] < 0 ||
        l->out_cblk[0] != 16 || !alone(net, li))
        return;
    int yi = l->out_id[0];
    rt_tensor *y = &net->tensors[yi];
    if (!skippable(net, yi)) return;
    for (int i = 0; i < l->n_in; i++)
        if (l->in_id[i] < 0 || l->in_view[i] >= 0 || l->in_cblk[i] != 16 ||
            net->tensors[l->in_id[i]].cblk != 16)
            return;
    for (int r = li + 1; r < net->n_layers; r++)
        if (!gathers_from(net, r, yi)) return;
    bool all = true;
    for (int r = li + 1; r <= y->last_use; r++) {
        pz_layer *g = &net->layers[r];
        bool reads = false;
        for (int s = 0; s < g->n_in; s++) reads |= g->in_id[s] == yi;
        if (reads && pz_chg_through(g, l)) all = false;   /* it reads y: the concat runs */
    }
    if (!all) return;
    l->read_through = 1;
    y->last_use = li;   /* never written nor read */
}

/* Whether channel gather r reads tensor t through (a source of it). */
static bool reads_through(const pz_layer *r, const pz_tensor *t)
{
    pz_tensor *const *src;
    int n = pz_chg_sources(r, &src);
    for (int i = 0; i < n && src != r->in; i++)
        if (src[i] == t) return true;
    return false;
}

/* GATHER layer li, itself reading through a concat, read through in turn:
 * when its output t is read only by concats read through and by gathers
 * reading t through, those take t's channels from its sources and it does
 * not run (ShuffleNetV2: the half a unit passes on untouched is gathered
 * once, by the gathers of a later unit or the stage's last shuffle). */
static void gather_through(pz_net *net, int li)
{
    pz_layer *l = &net->layers[li];
    pz_tensor *const *src;
    if (!pz_chg_sources(l, &src) || src == l->in || l->n_convs || l->dyn || l->loop_of ||
        l->out_id[0] < 0 || !alone(net, li))
        return;
    int ti = l->out_id[0];
    rt_tensor *t = &net->tensors[ti];
    if (!skippable(net, ti)) return;
    for (int r = li + 1; r < net->n_layers; r++) {
        const pz_layer *c = &net->layers[r];
        for (int s = 0; s < c->n_in; s++)
            if (c->in_id[s] == ti && !(c->kind == PZ_OP_CONCAT && c->read_through)) return;
        if (reads_through(c, &t->t) && (c->loop_of || !alone(net, r))) return;
    }
    bool all = true;
    for (int r = li + 1; r < net->n_layers; r++)
        if (reads_through(&net->layers[r], &t->t) && pz_chg_compose(&net->layers[r], l))
            all = false;   /* it reads t: the gather runs */
    if (!all) return;
    l->read_through = 1;
    t->last_use = li;
}

/* The most bytes of input a conv's workers each gather for themselves:
 * ShuffleNetV2's are at most 200 KiB (58 channels at 28x28), and a copy
 * per worker of more would not stay in L2 for the conv. */
#define GATHER_CONV_MAX_BYTES (512 * 1024)

/* GATHER layer li, a channel gather whose output only CONV layer r reads
 * (input 0, as it is, each alone in its block, r reading it whole in one
 * call: pz_conv_reads_whole): r's workers each gather it into their own
 * scratch, just before the conv reads it, and li does not run. The same
 * channels in the same lanes, so the conv's sums are those it had; the
 * layer between them and its tensor in the arena go (ShuffleNetV2: the
 * half each unit's branch convolves). The per-worker copy is the
 * subsampled conv's rule (rt/kernels/conv/subsample16c.c: no barrier
 * inside a layer). */
static void gather_conv(pz_net *net, int li)
{
    pz_layer *l = &net->layers[li];
    pz_tensor *const *src;
    if (!l->opts->gather_conv || l->read_through || !pz_chg_sources(l, &src) || l->n_convs ||
        l->dyn || l->loop_of || l->out_id[0] < 0 || net->blocks[l->block].count != 1)
        return;
    int ti = l->out_id[0], r = -1;
    const rt_tensor *t = &net->tensors[ti];
    if (!skippable(net, ti) || t->bytes > GATHER_CONV_MAX_BYTES) return;
    for (int k = li + 1; k <= t->last_use && k < net->n_layers; k++)
        for (int s = 0; s < net->layers[k].n_in; s++)
            if (net->layers[k].in_id[s] == ti) {
                if (r >= 0 || s) return;   /* a second reader, or not the conv's X */
                r = k;
            }
    if (r < 0) return;
    pz_layer *c = &net->layers[r];
    if (!pz_conv_reads_whole(c) || c->x_gather || c->n_convs || c->loop_of ||
        c->scratch_bytes || c->in_view[0] >= 0 || c->in_cblk[0] != 16 ||
        net->blocks[c->block].count != 1)
        return;
    size_t per = (t->bytes + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
    c->scratch_bytes = per * (size_t)(c->nth > 1 ? c->nth : 1);
    c->scratch_run_only = 1;
    c->x_gather = l;
    l->read_through = 1;
    net->tensors[ti].last_use = li;   /* never written nor read */
}

/* The tensors the gathers read through live until those gathers ran; a
 * gather that its conv runs, until that conv. */
static void through_lifetimes(pz_net *net)
{
    for (int r = 0; r < net->n_layers; r++) {
        pz_layer *l = &net->layers[r];
        const pz_layer *g = l->x_gather ? l->x_gather : l;
        pz_tensor *const *src = NULL;
        int n = pz_chg_sources(g, &src);
        if (!n) continue;   /* not a channel gather: src is not set */
        if (g == l && (l->read_through || src == l->in)) continue;
        if (src == g->in) {   /* a gather its conv runs, on its own inputs (their roots) */
            for (int i = 0; i < g->n_in; i++)
                if (g->in_id[i] >= 0 && net->tensors[g->in_id[i]].last_use < r)
                    net->tensors[g->in_id[i]].last_use = r;
            continue;
        }
        for (int i = 0; i < n; i++) {
            rt_tensor *t = (rt_tensor *)(void *)src[i];   /* pz_tensor t is its first member */
            if (t->last_use < r) t->last_use = r;
        }
    }
}

void pz_inplace_plan(pz_net *net)
{
    /* last first: a dense block's final concat takes every part, and the
     * concats before it, of prefixes of those parts, become views of it */
    for (int li = net->n_layers - 1; li >= 0; li--) {
        pz_layer *l = &net->layers[li];
        if (l->kind != PZ_OP_CONCAT) continue;
        if (concat_view(net, l)) continue;
        if (!concat_fits(net, l)) continue;
        size_t at = 0;
        for (int i = 0; i < l->n_in; i++) {
            rt_tensor *t = &net->tensors[l->in_id[i]];
            t->host = l->out_id[0];
            t->host_off = (int64_t)at;
            at += t->bytes;
        }
        l->in_place = 1;
    }
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        if (l->kind == PZ_OP_SPLIT && split_fits(net, l)) split_plan(net, l);
    }
    for (int li = 0; li < net->n_layers; li++)
        if (net->layers[li].kind == PZ_OP_CONCAT) concat_through(net, li);
    for (int li = 0; li < net->n_layers; li++)
        if (net->layers[li].kind == PZ_OP_GATHER) gather_through(net, li);
    for (int li = 0; li < net->n_layers; li++)
        if (net->layers[li].kind == PZ_OP_GATHER) gather_conv(net, li);
    through_lifetimes(net);
}
