/* arena.c - the memory plan of a compiled net.
 *
 * Memory: one arena, allocated at compile. Every tensor a layer writes gets
 * an offset in it; two tensors share bytes only when their lifetimes do not
 * overlap. A tensor lives from the layer that writes it to the last layer
 * that reads it (to the end for graph outputs); a layer's scratch lives
 * during that layer only. Offsets come from greedy first-fit, largest first,
 * PZ_ALIGN-aligned.
 * Graph inputs are read in place from the caller's buffers (no copy);
 * graph outputs are copied out of the arena at the end of pz_net_run, so a
 * layer never writes into caller memory and an output may feed later layers.
 * Constants are the caller's borrowed buffers.
 * A view (pz_net_view) has no bytes of its own: it points at its root's,
 * which live as long as any reader of the view (compile.c). The parts of a
 * Concat in place (inplace.c) are slices of its output, which lives as long
 * as any of them; so are the parts of a Split in place of its input, and a
 * split's input placed around a concat's part is a slice of the concat's
 * output reaching past its bytes (its item holds them all).
 */
#include <string.h>

#include "rt/arena.h"
#include "rt/fuse.h"
#include "rt/mem.h"
#include "rt/net.h"

typedef struct {
    size_t bytes;
    int first, last;     /* lifetime, in layers, inclusive */
    size_t offset;
    int id;              /* an order for ties: tensors, then scratch, then conversions */
    void **ptr;          /* where its address goes */
    size_t *off;         /* where its offset goes (tensors), or NULL */
    size_t lead;         /* bytes before the tensor's own (a split's input placed
                          * before a concat's buffer: inplace.c) */
} alloc_item;

static int cmp_item(const void *a, const void *b)
{
    const alloc_item *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;   /* largest first */
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_offset(const void *a, const void *b)
{
    const alloc_item *const *x = a, *const *y = b;
    return ((*x)->offset > (*y)->offset) - ((*x)->offset < (*y)->offset);
}

static size_t align_up(size_t v)
{
    return (v + PZ_ALIGN - 1) / PZ_ALIGN * PZ_ALIGN;
}

/* Whether layer li's output lives only in row windows of its block's fused
 * run (rt/fuse.h). */
static bool windowed(const pz_net *net, int li)
{
    for (int b = 0; b < net->n_blocks; b++) {
        const rt_block *bl = &net->blocks[b];
        if (li >= bl->first && li < bl->first + bl->count)
            return pz_fuse_windowed(bl->fuse, li) != 0;
    }
    return false;
}

/* The tensor whose bytes hold tensor i (Concat and Split in place, nested
 * ones followed), and i's byte offset in it (negative: before its first
 * byte); i itself when not a part. */
static int top_host(const pz_net *net, int i, int64_t *off)
{
    *off = 0;
    while (net->tensors[i].host >= 0) {
        *off += net->tensors[i].host_off;
        i = net->tensors[i].host;
    }
    return i;
}

/* Greedy first-fit over offsets, largest item first: an item goes at the
 * lowest offset where it overlaps no placed item whose lifetime meets its. */
int pz_arena_plan(pz_net *net, char *err, size_t n)
{
    int cap = net->n_tensors + net->n_layers, ni = 0;
    for (int li = 0; li < net->n_layers; li++) cap += net->layers[li].n_convs;
    alloc_item *items = calloc((size_t)(cap ? cap : 1), sizeof *items);
    const alloc_item **live = calloc((size_t)(cap ? cap : 1), sizeof *live);
    if (!items || !live) {
        free(items);
        free(live);
        return snprintf(err, n, "out of memory"), 1;
    }
    /* a Concat in place holds its parts: it lives from the first part's
     * producer to the last reader of it or of any part */
    int *first = malloc(sizeof(int) * (size_t)(net->n_tensors ? net->n_tensors : 1));
    int *last = malloc(sizeof(int) * (size_t)(net->n_tensors ? net->n_tensors : 1));
    if (!first || !last) {
        free(items);
        free(live);
        free(first);
        free(last);
        return snprintf(err, n, "out of memory"), 1;
    }
    for (int i = 0; i < net->n_tensors; i++) {
        first[i] = net->tensors[i].producer;
        last[i] = net->tensors[i].last_use;
    }
    /* and its bytes reach from lo (<= 0: a split's input placed before it)
     * to hi (>= its size) */
    size_t nt = net->n_tensors > 0 ? (size_t)net->n_tensors : 1;
    int64_t *lo = calloc(nt, sizeof *lo), *hi = calloc(nt, sizeof *hi);
    if (!lo || !hi) {
        free(items);
        free(live);
        free(first);
        free(last);
        free(lo);
        free(hi);
        return snprintf(err, n, "out of memory"), 1;
    }
    for (int i = 0; i < net->n_tensors; i++) hi[i] = (int64_t)net->tensors[i].bytes;
    for (int i = 0; i < net->n_tensors; i++) {
        int64_t off;
        int h = top_host(net, i, &off);
        if (h == i) continue;
        if (net->tensors[i].producer >= 0 &&
            (first[h] < 0 || net->tensors[i].producer < first[h]))
            first[h] = net->tensors[i].producer;
        if (net->tensors[i].last_use > last[h]) last[h] = net->tensors[i].last_use;
        if (off < lo[h]) lo[h] = off;
        if (off + (int64_t)net->tensors[i].bytes > hi[h]) hi[h] = off + (int64_t)net->tensors[i].bytes;
    }
    for (int i = 0; i < net->n_tensors; i++) {
        rt_tensor *t = &net->tensors[i];
        if (t->kind != T_VALUE || t->producer < 0 || t->bytes == 0 || t->host >= 0 ||
            t->rt_alloc)
            continue;
        /* rows in windows only (rt/fuse.h): no full-size buffer; data stays
         * NULL, so a stray access faults instead of reading another tensor */
        if (windowed(net, t->producer)) continue;
        items[ni] = (alloc_item){align_up((size_t)(hi[i] - lo[i])), first[i], last[i], 0, i,
                                 &t->t.data, &t->offset, (size_t)-lo[i]};
        ni++;
    }
    free(first);
    free(last);
    free(lo);
    free(hi);
    int id = net->n_tensors;
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        if (l->scratch_bytes)
            items[ni++] = (alloc_item){align_up(l->scratch_bytes), li, li, 0, id, &l->scratch,
                                       NULL, 0};
        id++;
    }
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        for (int c = 0; c < l->n_convs; c++) {
            pz_layout_conv *cv = &l->convs[c];
            size_t s = pz_layout_bytes(&cv->view, cv->to);
            if (s) items[ni++] = (alloc_item){align_up(s), li, li, 0, id, &cv->view.data, NULL, 0};
            id++;
        }
    }
    /* the layers of a fused run run interleaved: whatever one of them
     * touches lives over the whole run */
    for (int i = 0; i < ni; i++)
        for (int b = 0; b < net->n_blocks; b++)
            pz_fuse_widen(net->blocks[b].fuse, &items[i].first, &items[i].last);
    /* a loop run at run time runs its body again and again from its LOOP
     * layer: whatever lives at some point from its LOOP_BEGIN to it lives
     * over that whole span, so no two such share bytes (rt/ops/loop.c) */
    for (int t = 0; t < net->n_layers; t++) {
        if (net->layers[t].kind != PZ_OP_LOOP) continue;
        int h = net->layers[t].loop_head;
        for (int i = 0; i < ni; i++)
            if (items[i].first <= t && items[i].last >= h) {
                if (items[i].first > h) items[i].first = h;
                if (items[i].last < t) items[i].last = t;
            }
    }
    qsort(items, (size_t)ni, sizeof *items, cmp_item);

    size_t total = 0;
    for (int i = 0; i < ni; i++) {
        int nl = 0;
        for (int j = 0; j < i; j++)
            if (items[j].first <= items[i].last && items[i].first <= items[j].last)
                live[nl++] = &items[j];
        qsort(live, (size_t)nl, sizeof *live, cmp_offset);
        size_t off = 0;
        for (int j = 0; j < nl; j++) {
            if (live[j]->offset >= off + items[i].bytes) break;   /* fits in the gap before */
            size_t end = live[j]->offset + live[j]->bytes;
            if (end > off) off = end;
        }
        items[i].offset = off;
        if (off + items[i].bytes > total) total = off + items[i].bytes;
    }

    net->arena_bytes = total;
    net->arena = pz_alloc_big(total, net->opts.hugepages);
    if (!net->arena) {
        free(items);
        free(live);
        return snprintf(err, n, "out of memory: an arena of %zu bytes", total), 1;
    }
    for (int i = 0; i < ni; i++) {
        *items[i].ptr = (char *)net->arena + items[i].offset + items[i].lead;
        if (items[i].off) *items[i].off = items[i].offset + items[i].lead;
    }
    /* parts of a Concat or Split in place: their slice of it */
    for (int i = 0; i < net->n_tensors; i++) {
        int64_t off;
        int h = top_host(net, i, &off);
        if (h == i) continue;
        net->tensors[i].t.data = (char *)net->tensors[h].t.data + off;
        net->tensors[i].offset = (size_t)((int64_t)net->tensors[h].offset + off);
    }
    /* allocated at run time (exec.c): a first buffer, so data is never NULL */
    for (int i = 0; i < net->n_tensors; i++) {
        rt_tensor *t = &net->tensors[i];
        if (!t->rt_alloc) continue;
        if (!(t->t.data = aligned_alloc(PZ_ALIGN, PZ_ALIGN))) {
            free(items);
            free(live);
            return snprintf(err, n, "out of memory"), 1;
        }
        t->cap = PZ_ALIGN;
    }
    /* empty tensors still get a valid pointer */
    for (int i = 0; i < net->n_tensors; i++)
        if (net->tensors[i].kind == T_VALUE && !net->tensors[i].t.data &&
            !(net->tensors[i].producer >= 0 && windowed(net, net->tensors[i].producer)))
            net->tensors[i].t.data = net->arena;
    /* views: their root's bytes (NULL when those live in windows only: a
     * view read outside the fused run made its root live on, so then only
     * fused layers read it, through the windows) */
    for (int i = 0; i < net->n_tensors; i++) {
        rt_tensor *v = &net->tensors[i];
        if (v->kind != T_VIEW) continue;
        const rt_tensor *r = &net->tensors[v->root];
        v->t.data = r->t.data;
        v->offset = r->offset;
        int lay = !r->cblk || (r->t.rank == v->t.rank &&
                               !memcmp(r->t.dims, v->t.dims, sizeof(int64_t) * (size_t)v->t.rank));
        v->cblk = lay ? r->cblk : 0;
    }
    free(items);
    free(live);
    return 0;
}
