/* inplace.c - Concat in place: the producers of a concatenation's parts
 * write straight into their slice of its output, and the CONCAT layer does
 * nothing at run time (no copy, no time in the profile).
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
 * part and the concat run alone in their blocks (a fused run keeps rows in
 * windows). Otherwise the CONCAT layer copies, as before.
 */
#include <string.h>

#include "rt/arena.h"
#include "rt/net.h"

static bool alone(const pz_net *net, int li)
{
    return net->blocks[net->layers[li].block].count == 1;
}

/* Whether CONCAT layer l can be in place (see above). */
static bool concat_fits(const pz_net *net, const pz_layer *l)
{
    const pz_axis_params *p = l->params;
    if (l->n_convs || l->out_id[0] < 0 || !alone(net, (int)(l - net->layers))) return false;
    const rt_tensor *y = &net->tensors[l->out_id[0]];
    if (y->kind != T_VALUE || y->rt_alloc || p->axis < 0 || p->axis >= y->t.rank) return false;
    for (int a = 0; a < p->axis; a++)
        if (y->t.dims[a] != 1) return false;
    int cb = l->out_cblk[0];
    if (cb && (cb != 16 || y->t.rank != 4 || p->axis != 1)) return false;
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

void pz_inplace_plan(pz_net *net)
{
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        if (l->kind != PZ_OP_CONCAT || !concat_fits(net, l)) continue;
        size_t at = 0;
        for (int i = 0; i < l->n_in; i++) {
            rt_tensor *t = &net->tensors[l->in_id[i]];
            t->host = l->out_id[0];
            t->host_off = at;
            at += t->bytes;
        }
        l->in_place = 1;
    }
}
