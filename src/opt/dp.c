/* dp.c - exact searches over contiguous partitions, given a block-cost
 * table (cost of layers [start, start+size) as one block at its best MP).
 *
 * opt_dp: dynamic program over the end of the last block,
 *   best[j] = min_{s = 1..max_size} best[j - s] + cost(j - s, s),
 * exact when block costs add up, O(n * max_size) table look-ups.
 *
 * opt_enumerate: the brute force of DLFusion V.3 over its reduced space
 * (blocks of multiples of `unit` layers, and, for the oracle, blocks of up
 * to `small` layers anywhere), keeping the k best partitions.
 * Every partition of the space is covered; a branch is cut when its cost so
 * far plus the best possible rest (an exact suffix bound, computed first)
 * cannot beat the k-th best kept, which changes the time, not the answer.
 * Children are tried best bound first. Blocks longer than 256 layers are
 * not considered. */
#include <string.h>

#include "opt_internal.h"

int opt_dp(int n, int max_size, opt_block_cost_fn cost, void *ctx, int *sizes, int *mps,
           double *total)
{
    double *best = pz_xmalloc((size_t)(n + 1) * sizeof *best);
    int *from = pz_xmalloc((size_t)(n + 1) * sizeof *from), *mp_of = pz_xmalloc((size_t)(n + 1) * sizeof *mp_of);
    best[0] = 0;
    for (int j = 1; j <= n; j++) {
        best[j] = INFINITY;
        from[j] = -1;
        for (int s = 1; s <= max_size && s <= j; s++) {
            if (!isfinite(best[j - s])) continue;
            int mp = 1;
            double c = cost(ctx, j - s, s, &mp);
            if (isfinite(c) && best[j - s] + c < best[j]) {
                best[j] = best[j - s] + c;
                from[j] = j - s;
                mp_of[j] = mp;
            }
        }
    }
    int nb = 0;
    if (isfinite(best[n])) {
        /* walk back from n, then reverse */
        for (int j = n; j > 0; j = from[j]) sizes[nb] = j - from[j], mps[nb] = mp_of[j], nb++;
        for (int a = 0, b = nb - 1; a < b; a++, b--) {
            int t = sizes[a]; sizes[a] = sizes[b]; sizes[b] = t;
            t = mps[a]; mps[a] = mps[b]; mps[b] = t;
        }
    }
    if (total) *total = best[n];
    free(best);
    free(from);
    free(mp_of);
    return nb;
}

typedef struct {
    int n, unit, max_size, small;
    double *tab;        /* [n][n+1]: cost of (start, size), INFINITY if not allowed */
    int *tab_mp;
    double *suffix;     /* [n+1]: least cost from a start to the end */
    int *path;          /* sizes of the blocks so far */
    opt_candidate *best;
    int k, kept;
    double visited;
} enum_state;

static int allowed(const enum_state *e, int p, int s)
{
    if (s < 1 || p + s > e->n || s > e->max_size) return 0;
    /* blocks of up to `small` layers anywhere; the last block takes what is left */
    return s <= e->small || s % e->unit == 0 || p + s == e->n;
}

static void keep(enum_state *e, int depth, double c)
{
    if (e->kept == e->k && c >= e->best[e->k - 1].cost) return;
    int at = e->kept < e->k ? e->kept++ : e->k - 1;
    /* insertion into the sorted list */
    opt_candidate slot = e->best[at];
    while (at > 0 && e->best[at - 1].cost > c) {
        e->best[at] = e->best[at - 1];
        at--;
    }
    e->best[at] = slot;
    opt_candidate *d = &e->best[at];
    d->n_blocks = depth;
    d->cost = c;
    for (int i = 0, p = 0; i < depth; p += e->path[i], i++) {
        d->sizes[i] = e->path[i];
        d->mps[i] = e->tab_mp[(size_t)p * (e->n + 1) + e->path[i]];
    }
}

/* Visits at most this many nodes: a safety net (with the exact suffix
 * bound and best-first order, a search visits about k * n nodes). */
#define MAX_VISITS 5e7

static void walk(enum_state *e, int p, int depth, double c)
{
    if (++e->visited > MAX_VISITS) return;
    if (p == e->n) {
        keep(e, depth, c);
        return;
    }
    /* the children, best lower bound first: the first leaf reached is the
     * optimum, and the k-th best is known soon after */
    int cs[256], nc = 0;
    double lb[256];
    for (int s = 1; p + s <= e->n && nc < 256; s++) {
        if (!allowed(e, p, s)) continue;
        double t = e->tab[(size_t)p * (e->n + 1) + s];
        if (!isfinite(t)) continue;
        double lower = c + t + e->suffix[p + s];
        int at = nc++;
        while (at > 0 && lb[at - 1] > lower) cs[at] = cs[at - 1], lb[at] = lb[at - 1], at--;
        cs[at] = s, lb[at] = lower;
    }
    for (int i = 0; i < nc; i++) {
        if (e->kept == e->k && lb[i] >= e->best[e->k - 1].cost) break;
        e->path[depth] = cs[i];
        walk(e, p + cs[i], depth + 1, c + e->tab[(size_t)p * (e->n + 1) + cs[i]]);
    }
}

int opt_enumerate(int n, int unit, int small, int max_size, opt_block_cost_fn cost, void *ctx,
                  opt_candidate *best, int k, double *visited)
{
    enum_state e = {n, unit < 1 ? 1 : unit, max_size < 1 ? n : max_size, small, NULL, NULL, NULL,
                    NULL, best, k, 0, 0};
    size_t cells = (size_t)n * (size_t)(n + 1);
    e.tab = pz_xmalloc((cells ? cells : 1) * sizeof *e.tab);
    e.tab_mp = pz_xcalloc(cells ? cells : 1, sizeof *e.tab_mp);
    e.suffix = pz_xmalloc((size_t)(n + 1) * sizeof *e.suffix);
    e.path = pz_xmalloc((size_t)(n ? n : 1) * sizeof *e.path);
    for (int p = 0; p < n; p++)
        for (int s = 0; s <= n; s++) {
            size_t i = (size_t)p * (n + 1) + s;
            e.tab[i] = INFINITY;
            if (allowed(&e, p, s)) e.tab[i] = cost(ctx, p, s, &e.tab_mp[i]);
        }
    /* exact suffix bound: suffix[p] = min over allowed s of tab + suffix[p+s] */
    e.suffix[n] = 0;
    for (int p = n - 1; p >= 0; p--) {
        e.suffix[p] = INFINITY;
        for (int s = 1; p + s <= n; s++) {
            double t = e.tab[(size_t)p * (n + 1) + s];
            if (isfinite(t) && t + e.suffix[p + s] < e.suffix[p]) e.suffix[p] = t + e.suffix[p + s];
        }
    }
    if (n > 0 && isfinite(e.suffix[0])) walk(&e, 0, 0, 0);
    if (visited) *visited = e.visited;
    free(e.tab);
    free(e.tab_mp);
    free(e.suffix);
    free(e.path);
    return e.kept;
}
