/* profile.c - per-layer and per-block times of a net's runs
 * (pz_net_profile), and the queries on what compile made (pz_rt.h).
 */
#include <stdlib.h>
#include <string.h>

#include "rt/fuse.h"
#include "rt/net.h"
#include "rt/profile.h"

size_t pz_profile_row(const pz_net *net)
{
    return (size_t)net->n_layers + (size_t)net->n_blocks + 1;
}

/* The ring of runs, allocated here (pz_net_run does not allocate); after
 * compile, as it needs the blocks. */
void pz_profile_alloc(pz_net *net)
{
    free(net->prof);
    net->prof = NULL;
    net->prof_n = 0;
    if (net->profile && net->compiled)
        net->prof = calloc((size_t)PZ_PROFILE_RUNS * pz_profile_row(net), sizeof *net->prof);
}

void pz_net_profile(pz_net *net, int enable)
{
    net->profile = enable != 0;
    pz_profile_alloc(net);
}

/* ---- profile ------------------------------------------------------------- */

uint64_t pz_net_layer_ns(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].ns : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Column k of the kept runs: its median in ms (the last run's value when
 * none is kept, or the scratch is missing). */
static double prof_ms(const pz_net *net, size_t k, uint64_t last, uint64_t *tmp, int runs)
{
    if (!tmp || runs < 1) return (double)last / 1e6;
    for (int r = 0; r < runs; r++) tmp[r] = net->prof[(size_t)r * pz_profile_row(net) + k];
    qsort(tmp, (size_t)runs, sizeof *tmp, cmp_u64);
    return (double)(runs % 2 ? tmp[runs / 2] : (tmp[runs / 2 - 1] + tmp[runs / 2]) / 2) / 1e6;
}

void pz_net_print_profile(const pz_net *net, FILE *f)
{
    int runs = net->prof ? (net->prof_n < PZ_PROFILE_RUNS ? net->prof_n : PZ_PROFILE_RUNS) : 0;
    uint64_t *tmp = runs ? malloc((size_t)runs * sizeof *tmp) : NULL;
    const size_t nl = (size_t)net->n_layers;
    double total = prof_ms(net, nl + (size_t)net->n_blocks, net->run_ns, tmp, runs);
    int inplace = 0, splits = 0, through = 0, gathers = 0, skipped = 0;
    for (int i = 0; i < net->n_layers; i++) {
        skipped += net->layers[i].skipped;
        inplace += net->layers[i].in_place;
        splits += net->layers[i].in_place && net->layers[i].kind == PZ_OP_SPLIT;
        through += net->layers[i].read_through;
        gathers += net->layers[i].read_through && net->layers[i].kind == PZ_OP_GATHER;
    }
    fprintf(f, "profile of \"%s\": %.3f ms, %d layers in %d blocks, arena %.1f KiB", net->name,
            total, net->n_layers - inplace - through, net->n_blocks,
            (double)net->arena_bytes / 1024);
    if (inplace - splits) fprintf(f, ", %d concats in place (not listed)", inplace - splits);
    if (through - gathers)
        fprintf(f, ", %d concats read through by gathers (not listed)", through - gathers);
    if (gathers) fprintf(f, ", %d gathers read through (not listed)", gathers);
    if (splits) fprintf(f, ", %d splits in place (not listed)", splits);
    if (skipped) fprintf(f, ", %d skipped by the last run (an If branch not taken)", skipped);
    if (tmp && runs > 1) fprintf(f, "; medians of the last %d runs", runs);
    fprintf(f, "\n");
    fprintf(f, "%5s %-14s %-32s %5s %3s %10s %6s  %s\n", "layer", "op", "name", "block", "mp", "ms",
            "%", "kernel");
    for (int i = 0; i < net->n_layers; i++) {
        const pz_layer *l = &net->layers[i];
        if (l->in_place || l->read_through) continue;
        double ms = prof_ms(net, (size_t)i, l->ns, tmp, runs);
        pz_layer_show s;
        pz_net_layer_show(net, i, &s);
        /* rt/guard.c: an If's branch the last run did not take */
        const char *kernel = l->skipped ? "skipped (an If branch not taken)" : s.kernel;
        fprintf(f, "%5d %-14s %-32s %5d %3d %10.3f %6.1f  %s\n", i, s.op, l->name, l->block,
                s.threads, ms, total > 0 ? 100 * ms / total : 0, kernel);
    }
    fprintf(f, "%5s %-14s %5s %3s %10s %6s  %s\n", "block", "layers", "", "mp", "ms", "%",
            "fused (layer ms: the time spent on each layer's rows, fused runs included)");
    for (int b = 0; b < net->n_blocks; b++) {
        const rt_block *bl = &net->blocks[b];
        if (bl->count == 1 && (net->layers[bl->first].in_place ||
                               net->layers[bl->first].read_through))
            continue;
        char range[32];
        snprintf(range, sizeof range, "%d..%d", bl->first, bl->first + bl->count - 1);
        double ms = prof_ms(net, nl + (size_t)b, bl->ns, tmp, runs);
        pz_fuse_info fi;
        pz_fuse_get_info(bl->fuse, &fi);
        char fz[160] = "";
        if (fi.runs)
            snprintf(fz, sizeof fz, "%d layers in %d runs, %s, strip %d, redundant MACs %lld "
                     "(%.2f%%)", fi.fused_layers, fi.runs,
                     fi.split == PZ_SPLIT_BANDS ? "bands" : "channels", fi.strip,
                     (long long)fi.redundant_macs,
                     fi.macs ? 100.0 * (double)fi.redundant_macs / (double)fi.macs : 0.0);
        fprintf(f, "%5d %-14s %5s %3d %10.3f %6.1f  %s\n", b, range, "", bl->mp, ms,
                total > 0 ? 100 * ms / total : 0, fz);
    }
    free(tmp);
}

int pz_net_n_layers(const pz_net *net)
{
    return net->n_layers;
}

const char *pz_net_layer_name(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].name : "";
}

pz_op_kind pz_net_layer_kind(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].kind : PZ_OP_COUNT_;
}

int pz_net_layer_block(const pz_net *net, int layer)
{
    return layer >= 0 && layer < net->n_layers ? net->layers[layer].block : -1;
}

int pz_net_layer_skipped(const pz_net *net, int layer)
{
    if (layer < 0 || layer >= net->n_layers) return PZ_LAYER_RUNS;
    const pz_layer *l = &net->layers[layer];
    return l->in_place ? PZ_LAYER_IN_PLACE : l->read_through ? PZ_LAYER_READ_THROUGH
         : l->n_guard ? PZ_LAYER_IN_BRANCH : PZ_LAYER_RUNS;
}

int pz_net_layer_out_layout(const pz_net *net, int layer, int slot)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return -1;
    const pz_layer *l = &net->layers[layer];
    return slot >= 0 && slot < l->n_out && l->out_id[slot] >= 0 ? l->out_cblk[slot] : -1;
}

const char *pz_net_layer_kernel(const pz_net *net, int layer)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return NULL;
    return net->layers[layer].kernel;
}

int pz_net_layer_show(const pz_net *net, int layer, pz_layer_show *s)
{
    *s = (pz_layer_show){"?", "-", 0, 0};
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return 1;
    const pz_layer *l = &net->layers[layer];
    s->op = l->op->name;
    s->kernel = l->kernel ? l->kernel : "-";
    s->threads = l->nth;
    s->run_time_shapes = l->dyn;
    return 0;
}

const pz_layer *pz_net_layer_at(const pz_net *net, int layer)
{
    if (!net->compiled || layer < 0 || layer >= net->n_layers) return NULL;
    return &net->layers[layer];
}

const pz_tensor *pz_net_tensor_held(const pz_net *net, int id, int *cblk)
{
    if (id < 0 || id >= net->n_tensors) return NULL;
    if (cblk) *cblk = net->tensors[id].cblk;
    return &net->tensors[id].t;
}

int pz_net_n_blocks(const pz_net *net)
{
    return net->n_blocks;
}

uint64_t pz_net_block_info(const pz_net *net, int b, int *first, int *count, int *mp)
{
    if (b < 0 || b >= net->n_blocks) return 0;
    const rt_block *bl = &net->blocks[b];
    if (first) *first = bl->first;
    if (count) *count = bl->count;
    if (mp) *mp = bl->mp;
    return bl->ns;
}

void pz_net_block_fuse_info(const pz_net *net, int b, pz_fuse_info *info)
{
    pz_fuse_get_info(b >= 0 && b < net->n_blocks ? net->blocks[b].fuse : NULL, info);
}

uint64_t pz_net_run_ns(const pz_net *net)
{
    return net->run_ns;
}
