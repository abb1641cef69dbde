/* compile.c - pz_net_compile: the blocks, each layer's prepare (kernels,
 * packed weights) and the layouts between layers, the fused runs of each
 * block, then the arena (arena.c) and the workers; and pz_net_free, which
 * frees the layers and all compile made.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt/arena.h"
#include "rt/cpu.h"
#include "rt/fuse.h"
#include "rt/guard.h"
#include "rt/net.h"
#include "rt/profile.h"

/* ---- compile ------------------------------------------------------------- */

static int cmp_block(const void *a, const void *b)
{
    const rt_block *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* Every layer in exactly one block, in order: the asked blocks, and a block
 * of MP 1 for each layer outside them. MP is clamped to the pool. */
static int plan_blocks(pz_net *net, char *err, size_t n)
{
    if (net->n_asked > 1) qsort(net->asked, (size_t)net->n_asked, sizeof(rt_block), cmp_block);
    net->blocks = calloc((size_t)(net->n_layers + 1), sizeof(rt_block));
    if (!net->blocks) return snprintf(err, n, "out of memory"), 1;
    int at = 0;   /* the first layer not yet in a block */
    for (int b = 0; b < net->n_asked; b++) {
        rt_block a = net->asked[b];
        if (a.count < 1 || a.first < at || a.first + a.count > net->n_layers || a.mp < 1) {
            snprintf(err, n, "block of layers [%d, %d) with MP %d: %s", a.first, a.first + a.count,
                     a.mp, a.mp < 1 ? "MP must be at least 1"
                     : a.first < at ? "overlaps another block" : "outside the net's layers");
            return 1;
        }
        for (; at < a.first; at++) net->blocks[net->n_blocks++] = (rt_block){at, 1, 1, 0, PZ_SPLIT_AUTO, 0, PZ_PREC_FP32, NULL};
        if (a.mp > net->threads) a.mp = net->threads;
        net->blocks[net->n_blocks++] = a;
        at = a.first + a.count;
    }
    for (; at < net->n_layers; at++) net->blocks[net->n_blocks++] = (rt_block){at, 1, 1, 0, PZ_SPLIT_AUTO, 0, PZ_PREC_FP32, NULL};
    for (int b = 0; b < net->n_blocks; b++)
        for (int i = 0; i < net->blocks[b].count; i++) {
            pz_layer *l = &net->layers[net->blocks[b].first + i];
            l->block = b;
            l->mp = l->nth = net->blocks[b].mp;
            l->prec = l->prec_set ? (pz_precision)(l->prec_set - 1) : net->blocks[b].prec;
        }
    return 0;
}

static bool same_shape(const pz_tensor *a, const pz_tensor *b)
{
    if (a->rank != b->rank) return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

/* Each layer reads only inputs, constants and tensors written by an earlier
 * layer; sets the tensors' lifetimes and the layers' tensor pointers. A
 * view read by a layer keeps its root alive to that layer, and the layer's
 * in_id points at the root (net.h). */
static int check_dataflow(pz_net *net, char *err, size_t n)
{
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        l->in_view = malloc(sizeof(int) * (size_t)(l->n_in ? l->n_in : 1));
        if (!l->in_view) return snprintf(err, n, "out of memory"), 1;
        for (int i = 0; i < l->n_in; i++) {
            l->in_view[i] = -1;
            if (l->in_id[i] < 0) continue;
            rt_tensor *v = &net->tensors[l->in_id[i]], *t = v;
            if (v->kind == T_VIEW) {
                t = &net->tensors[v->root];
                l->in_view[i] = l->in_id[i];
                l->in_id[i] = v->root;
                if (!same_shape(&v->t, &t->t)) l->in_reshaped |= i < 32 ? 1u << i : 0;
            }
            if (t->kind == T_VALUE && (t->producer < 0 || t->producer >= li))
                return pz_layer_fail(l, err, n, "input %d, tensor \"%s\", is %s", i, v->name,
                                     t->producer < 0 ? "never written by any layer"
                                     : "written by a later layer");
            if (t->kind == T_VALUE && li > t->last_use) t->last_use = li;
            l->in[i] = &v->t;
        }
        for (int i = 0; i < l->n_out; i++) {
            if (l->out_id[i] < 0) continue;
            rt_tensor *t = &net->tensors[l->out_id[i]];
            if (li > t->last_use) t->last_use = li;
            l->out[i] = &t->t;
        }
    }
    for (int i = 0; i < net->n_outputs; i++) {
        rt_tensor *t = &net->tensors[net->outputs[i]];
        if (t->kind == T_VIEW) t = &net->tensors[t->root];   /* copied out of its root */
        if (t->kind == T_VALUE && t->producer < 0)
            return snprintf(err, n, "output tensor \"%s\" is never written by any layer",
                            t->name), 1;
        t->last_use = net->n_layers;
    }
    return 0;
}

/* Whether tensor t may be held in channel block cblk (net.h): float32 in
 * any, the 1-byte types (int8 layers) in 16 only. */
static bool layout_ok(const pz_tensor *t, int cblk)
{
    if (t->rank != 4) return false;
    if (t->dtype == PZ_F32) return cblk > 0 && cblk <= 16;
    return pz_dtype_size(t->dtype) == 1 && cblk == 16;
}

/* The layout of root r's bytes read as view v: r's when the shape is the
 * same, or plain when r's blocks hold its elements in plain order (one
 * pixel per image, whole blocks of channels: [N,C,1,1] with C a multiple
 * of the block, a pooled map before Flatten); -1 when the view's shape
 * breaks r's blocks (the reader converts r). */
static int view_layout(const rt_tensor *r, const rt_tensor *v)
{
    if (!r->cblk || same_shape(&r->t, &v->t)) return r->cblk;
    const int64_t *d = r->t.dims;
    return r->t.rank == 4 && d[2] * d[3] == 1 && d[1] % r->cblk == 0 ? 0 : -1;
}

/* The layout layer l's input i arrives in (in_have), and in *unblock the
 * block of a root it must convert from first (a view breaking its blocks;
 * the layer's prepare sees such an input as plain). */
static int input_layout(const pz_net *net, const pz_layer *l, int i, int *unblock)
{
    *unblock = 0;
    if (l->in_id[i] < 0) return 0;
    const rt_tensor *r = &net->tensors[l->in_id[i]];
    if (l->in_view[i] < 0) return r->cblk;
    int lay = view_layout(r, &net->tensors[l->in_view[i]]);
    if (lay >= 0) return lay;
    *unblock = r->cblk;
    return 0;
}

/* After layer l's prepare: records the layouts of its outputs (and their
 * sizes), and plans a conversion for each input it reads in another layout
 * than its producer's. */
static int plan_layouts(pz_net *net, pz_layer *l, char *err, size_t n)
{
    for (int j = 0; j < l->n_out; j++) {
        if (l->out_id[j] < 0) continue;
        rt_tensor *t = &net->tensors[l->out_id[j]];
        int cb = l->out_cblk[j];
        if (cb && !layout_ok(&t->t, cb))
            return pz_layer_fail(l, err, n, "internal: output %d in layout %d", j, cb);
        t->cblk = cb;
        t->bytes = pz_layout_bytes(&t->t, cb);
    }
    int nc = 0, ub;
    for (int i = 0; i < l->n_in; i++) {
        if (!l->in[i]) continue;
        input_layout(net, l, i, &ub);
        nc += (ub != 0) + (l->in_cblk[i] != l->in_have[i]);
    }
    if (!nc) return 0;
    l->convs = calloc((size_t)nc, sizeof *l->convs);
    if (!l->convs) return snprintf(err, n, "out of memory"), 1;
    for (int i = 0; i < l->n_in; i++) {
        if (!l->in[i]) continue;
        input_layout(net, l, i, &ub);
        if (ub) {   /* the root, blocked, into plain bytes read under the view's shape */
            const pz_tensor *root = &net->tensors[l->in_id[i]].t;
            if (!layout_ok(root, ub))
                return pz_layer_fail(l, err, n, "internal: input %d, a view, from layout %d", i,
                                     ub);
            pz_layout_conv *cv = &l->convs[l->n_convs++];
            *cv = (pz_layout_conv){.slot = i, .from = ub, .to = 0, .isa = l->isa, .src = root,
                                   .view = *l->in[i]};
            cv->view.data = NULL;   /* arena scratch, planned with the tensors */
            cv->sync = l->in_cblk[i] != 0;
            l->in[i] = &cv->view;
        }
        if (l->in_cblk[i] == l->in_have[i]) continue;
        int from = l->in_have[i], to = l->in_cblk[i];
        const pz_tensor *src = l->in[i];
        if ((from && to) || !layout_ok(src, from ? from : to))
            return pz_layer_fail(l, err, n, "internal: input %d from layout %d to %d", i, from,
                                 to);
        pz_layout_conv *cv = &l->convs[l->n_convs++];
        cv->slot = i;
        cv->from = from;
        cv->to = to;
        cv->isa = l->isa;
        cv->src = src;
        cv->view = *src;
        cv->view.data = NULL;   /* arena scratch, planned with the tensors */
        l->in[i] = &cv->view;
    }
    return 0;
}

/* The fused runs of every block of two or more layers (rt/fuse.h). */
/* Layer l is in a dynamic region when it reads a tensor whose shape is
 * set at run time (written by a dyn_out layer or by another layer of the
 * region); only kinds with run_shape may be (op_desc.h). */
static int mark_dynamic(pz_net *net, pz_layer *l, char *err, size_t n)
{
    l->dyn = l->op->dyn_self && l->op->dyn_self(l);
    for (int i = 0; i < l->n_in; i++) {
        if (l->in_id[i] < 0) continue;
        int p = net->tensors[l->in_id[i]].producer;
        if (p < 0) continue;
        const pz_layer *pl = &net->layers[p];
        /* a dyn_stops kind ends the region unless it allocates its outputs
         * (LOOP_BEGIN's grow) */
        if (!pl->op->dyn_out && (!pl->dyn || (pl->op->dyn_stops && !pl->rt_alloc))) continue;
        if (!l->op->run_shape)
            return pz_layer_fail(l, err, n, "input %d, tensor \"%s\", has a shape known only "
                                 "at run time, which this kind does not take", i,
                                 net->tensors[l->in_id[i]].name);
        l->dyn = 1;
        /* a region's sizes follow an unbounded tensor (not Shape's) */
        if (net->tensors[l->in_id[i]].rt_alloc && !l->op->dyn_stops) l->rt_alloc = 1;
    }
    if (l->op->dyn_alloc && l->op->dyn_alloc(l)) l->dyn = l->rt_alloc = 1;
    for (int j = 0; j < l->n_out; j++)
        if (l->out_id[j] >= 0) net->tensors[l->out_id[j]].rt_alloc = l->rt_alloc;
    if (l->dyn && !l->run_err && !(l->run_err = calloc(1, PZ_RUN_ERR_BYTES)))
        return pz_layer_fail(l, err, n, "out of memory");
    return 0;
}

/* After prepare: arena scratch and input conversions are planned at the
 * compile-time sizes, which a tensor allocated at run time does not have. */
static int check_rt_alloc(const pz_net *net, const pz_layer *l, char *err, size_t n)
{
    for (int i = 0; i < l->n_in; i++) {
        if (l->in_id[i] < 0 || !net->tensors[l->in_id[i]].rt_alloc) continue;
        if (l->scratch_bytes || l->n_convs)
            return pz_layer_fail(l, err, n, "input %d, tensor \"%s\", is allocated at run "
                                 "time (no compile-time bound), and this layer's kernel needs "
                                 "scratch planned at compile", i, net->tensors[l->in_id[i]].name);
    }
    return 0;
}

/* Each LOOP layer's body (rt/ops/loop.c): the layers between its
 * LOOP_BEGIN (the writer of its iter input) and it that depend on what the
 * begin writes. The others there read nothing that changes per iteration:
 * they run once, before the loop. Loops nest: LOOP layers come in order, an
 * inner one first; its body layers stay its own (it runs them), and it
 * joins the outer body with its LOOP_BEGIN when it depends on the outer
 * iteration, even through its body alone (the begin must then reset it each
 * time). */
static int plan_loops(pz_net *net, char *err, size_t n)
{
    char *dep = calloc((size_t)(net->n_layers ? net->n_layers : 1), 1);
    if (!dep) return snprintf(err, n, "out of memory"), 1;
    int rc = 0;
    for (int t = 0; t < net->n_layers && !rc; t++) {
        pz_layer *l = &net->layers[t];
        if (l->kind != PZ_OP_LOOP) continue;
        int h = l->in_id[2] >= 0 ? net->tensors[l->in_id[2]].producer : -1;
        if (h < 0 || net->layers[h].kind != PZ_OP_LOOP_BEGIN) {
            rc = pz_layer_fail(l, err, n, "input 2 is not written by a LOOP_BEGIN layer");
            break;
        }
        l->loop_head = h;
        pz_layer *hl = &net->layers[h];
        if ((!l->run_err && !(l->run_err = calloc(1, PZ_RUN_ERR_BYTES))) ||
            (!hl->run_err && !(hl->run_err = calloc(1, PZ_RUN_ERR_BYTES))) ||
            !(l->body = malloc(sizeof(int) * (size_t)(t - h > 0 ? t - h : 1)))) {
            rc = (snprintf(err, n, "out of memory"), 1);
            break;
        }
        memset(dep, 0, (size_t)net->n_layers);
        dep[h] = 1;
        for (int li = h + 1; li < t; li++) {   /* what depends on the iteration */
            const pz_layer *b = &net->layers[li];
            for (int i = 0; i < b->n_in && !dep[li]; i++) {
                int p = b->in_id[i] >= 0 ? net->tensors[b->in_id[i]].producer : -1;
                dep[li] = p >= h && dep[p];
            }
            if (b->kind != PZ_OP_LOOP) continue;
            if (b->loop_head <= h) {
                rc = pz_layer_fail(b, err, n, "begins before loop \"%s\" and ends inside its "
                                   "body: loops must nest", l->name);
                break;
            }
            /* all its body computes reaches it as an input: dep[li] says */
            dep[li] |= dep[b->loop_head];
            dep[b->loop_head] |= dep[li];
        }
        for (int li = h + 1; li < t && !rc; li++) {
            pz_layer *b = &net->layers[li];
            if (!dep[li] || b->loop_of) continue;   /* hoisted, or an inner loop's */
            b->loop_of = t + 1;
            l->body[l->n_body++] = li;
        }
    }
    free(dep);
    return rc;
}

/* Whether block bl holds a loop's body layer (its layers run one by one
 * per iteration) or a layer of an If's branch (rt/guard.c: the run may
 * skip it): never a fused run. */
static bool holds_body(const pz_net *net, const rt_block *bl)
{
    for (int i = bl->first; i < bl->first + bl->count; i++)
        if (net->layers[i].loop_of || net->layers[i].n_guard) return true;
    return false;
}

static int plan_fusion(pz_net *net, char *err, size_t n)
{
    int *last_use = calloc((size_t)(net->n_tensors ? net->n_tensors : 1), sizeof *last_use);
    if (!last_use) return snprintf(err, n, "out of memory"), 1;
    for (int i = 0; i < net->n_tensors; i++) last_use[i] = net->tensors[i].last_use;
    for (int b = 0; b < net->n_blocks; b++) {
        rt_block *bl = &net->blocks[b];
        if (bl->count < 2 || holds_body(net, bl)) continue;
        bl->fuse = pz_fuse_plan(net->layers, net->n_layers, last_use, bl->first, bl->count,
                                bl->mp, bl->split, bl->strip, err, n);
        if (!bl->fuse) {
            free(last_use);
            return 1;
        }
    }
    free(last_use);
    return 0;
}

static int cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* A layer's prepare packed some constant inputs (l->packed_in) and will not
 * read them again. When the constants are a read-only private file mapping
 * (the generated program's NAME.weights), their whole pages are dropped
 * (MADV_DONTNEED): the kernel rereads them from the file if anything touches
 * them later, so nothing can go wrong, and the packed copy no longer doubles
 * the peak memory. Never done on ordinary memory, where it would zero it. */
static void drop_packed_consts(pz_net *net, const pz_layer *l)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) return;
    for (int i = 0; i < l->n_in && i < 32; i++) {
        if (!(l->packed_in & (1u << i)) || l->in_id[i] < 0) continue;
        const rt_tensor *t = &net->tensors[l->in_id[i]];
        if (t->kind != T_CONST || !t->t.data) continue;
        uintptr_t a = (uintptr_t)t->t.data, e = a + pz_numel(&t->t) * pz_dtype_size(t->t.dtype);
        uintptr_t lo = (a + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
        uintptr_t hi = e / (uintptr_t)page * (uintptr_t)page;
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
    }
}

void pz_net_consts_mapped(pz_net *net, int on)
{
    if (net) net->consts_mapped = on != 0;
}

int pz_net_compile(pz_net *net, int threads, const pz_run_options *opts, char *errbuf,
                   size_t errsize)
{
    char local[512];
    char *err = errbuf && errsize ? errbuf : local;
    size_t n = errbuf && errsize ? errsize : sizeof local;
    err[0] = 0;
    if (net->compile_tried)
        return snprintf(err, n, "net \"%s\": pz_net_compile runs once", net->name), 1;
    net->compile_tried = true;
    if (net->err[0]) return snprintf(err, n, "%s", net->err), 1;
    net->threads = threads > 0 ? threads : cpu_count();
    net->opts = opts ? *opts : (pz_run_options)PZ_RUN_OPTIONS_DEFAULT;
    net->isa = pz_isa_capped(net->opts.isa);

    if (check_dataflow(net, err, n) || plan_blocks(net, err, n) || plan_loops(net, err, n))
        return 1;
    for (int li = 0; li < net->n_layers; li++) {
        pz_layer *l = &net->layers[li];
        l->opts = &net->opts;
        l->isa = net->isa;
        for (int i = 0; i < l->n_in; i++) {
            int ub;
            l->in_have[i] = input_layout(net, l, i, &ub);
            l->in_cblk[i] = 0;
        }
        for (int j = 0; j < l->n_out; j++) l->out_cblk[j] = 0;
        if (mark_dynamic(net, l, err, n) || l->op->prepare(l, err, n)) return 1;
        if (net->consts_mapped) drop_packed_consts(net, l);
        if (l->nth < 1 || l->nth > l->mp) l->nth = l->mp;
        if (plan_layouts(net, l, err, n) || check_rt_alloc(net, l, err, n)) return 1;
    }
    if (pz_guard_plan(net, err, n) || plan_fusion(net, err, n)) return 1;
    pz_inplace_plan(net);
    if (pz_arena_plan(net, err, n)) return 1;
    /* a run-time allocation above the host's memory is refused (exec.c):
     * one that large is a bad value, and overcommit would kill the run later */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    net->alloc_max = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : SIZE_MAX / 2;
    int maxmp = 1;
    for (int b = 0; b < net->n_blocks; b++)
        if (net->blocks[b].mp > maxmp) maxmp = net->blocks[b].mp;
    net->pool = pz_pool_start(maxmp, net->opts.spin_us, net->opts.pin);
    if (!net->pool) return snprintf(err, n, "cannot start %d worker threads", maxmp), 1;
    /* outputs: big ones (a feature map) on every worker, small ones inline */
    size_t out_bytes = 0;
    for (int i = 0; i < net->n_outputs; i++) out_bytes += net->tensors[net->outputs[i]].bytes;
    net->out_nth = out_bytes >= (64u << 10) ? maxmp : 1;
    net->compiled = true;
    pz_profile_alloc(net);
    return 0;
}

size_t pz_net_arena_bytes(const pz_net *net)
{
    return net->arena_bytes;
}

void pz_net_free(pz_net *net)
{
    if (!net) return;
    pz_pool_free(net->pool);
    for (int i = 0; i < net->n_layers; i++) {
        pz_layer *l = &net->layers[i];
        if (l->op && l->op->release && l->state) l->op->release(l);
        free(l->state);
        free(l->params);
        free(l->name);
        free(l->in_id);
        free(l->out_id);
        free(l->in);
        free(l->out);
        free(l->in_have);
        free(l->in_cblk);
        free(l->out_cblk);
        free(l->convs);
        free(l->in_view);
        free(l->run_err);
        free(l->body);
    }
    for (int i = 0; i < net->n_tensors; i++) {
        free(net->tensors[i].name);
        if (net->tensors[i].rt_alloc) free(net->tensors[i].t.data);
    }
    free(net->tensors);
    free(net->layers);
    free(net->inputs);
    free(net->outputs);
    free(net->asked);
    for (int b = 0; b < net->n_blocks; b++) pz_fuse_free(net->blocks[b].fuse);
    free(net->blocks);
    free(net->arena);
    free(net->prof);
    free(net->name);
    free(net);
}
