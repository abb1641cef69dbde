/* fuse_state.h - the plan of a block's fused runs, shared by the planner
 * (fuse.c, at compile) and the workers' loops (fuse_exec.c, at run). See
 * fuse.h for the rules.
 */
#ifndef PZ_RT_FUSE_STATE_H
#define PZ_RT_FUSE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "rt/net.h"

typedef struct pz_fuse_block pz_fuse_block;

#define FUSE_MAX_IN 14  /* QCONV: x, its scales and zero points, w, y's, bias, a residual's 5 */
#define FUSE_L2_BUDGET (1u << 20)   /* bytes of a strip's rows: half the 2 MB L2 */
/* auto split: bands while the halo rows they recompute are at most this
 * share of the run's MACs. With channels, every layer of every strip ends
 * in a barrier and half of the next layer's input sits in the other core's
 * L2, which costs more than a moderate share of recomputed rows: bands win
 * up to about this share, channels beyond it (bench/RESULTS.md, 'fuse:
 * bands or channels'). */
#define FUSE_BANDS_MAX_PCT 30

/* One input of a fused layer that another layer of the run writes. */
typedef struct {
    int slot;
    int from;                /* index in the run of its producer */
    int window;              /* 1: rows through (k, s, p, d); 0: the same rows */
} fuse_src;

typedef struct {
    pz_layer *l;
    int g;                   /* row granularity */
    int64_t oh;              /* output rows */
    int64_t in_h;            /* rows of input 0 (window sources) */
    int64_t k, s, p, d;      /* the window of input 0 along H */
    fuse_src src[FUSE_MAX_IN];
    int nsrc;
    int64_t macs_row;        /* MACs per output row (all images) */
    size_t bytes;            /* bytes of its output */
    size_t row_bytes;        /* bytes of one output row (all blocks, all images) */
    int exported;            /* read after the run (or a graph output) */
    int win;                 /* its rows live in small window buffers (see below) */
    int64_t wrows;           /* rows of its window */
    int64_t planes;          /* (image, channel block) planes of its output */
    int64_t row_floats;      /* floats of one row of one plane: W * 16 */
    int conv_win;            /* reads or writes a window: the op's run_window */
} fuse_layer;

typedef struct {
    int first, count;        /* layers [first, first + count) */
    fuse_layer *L;
    pz_split_mode split;     /* BANDS or CHANNELS (MP 1: CHANNELS) */
    int64_t strip;           /* rows of the last layer per strip */
    int64_t *band;           /* bands: mp + 1 cuts of the last layer's rows */
    void **priv;             /* bands: [(mp - 1) * count] private outputs (NULL: the arena's) */
    float **wbuf;            /* [nwork * count]: worker w's window of layer j (NULL: none) */
    int nwork;               /* workers with their own windows: mp (bands) or 1 */
    char *scratch;           /* mp slices of scratch_w bytes for run_window (NULL: none) */
    size_t scratch_w;        /* the most row_scratch_bytes of its layers, aligned */
    int64_t redundant, macs;
    uint64_t ns;
} fuse_run;

/* A segment: a run (run >= 0) or the single layer `layer`. */
typedef struct {
    int run, layer;
} fuse_seg;

struct pz_fuse_block {
    int first, count, mp;
    fuse_seg *seg;
    int nseg;
    fuse_run *runs;
    int nruns;
};

/* Row arithmetic of the plan (fuse.c), which the workers' loops repeat per
 * strip: the rows worker w owns of layer j's output, the rows a band needs
 * of each layer, a strip's rows of each layer. */
void pz_fuse_need_rows(const fuse_run *r, int w, int mp, int64_t b0, int64_t b1, int64_t a,
                       int64_t b, int64_t *lo, int64_t *hi);
int64_t pz_fuse_own_cut(const fuse_layer *f, int w, int mp);
void pz_fuse_strip_plan(const fuse_run *r, int w, int mpw, int64_t b0, int64_t b1, int64_t te,
                        int64_t *done, int64_t *c0, int64_t *c1, int64_t *rlo);

#endif
