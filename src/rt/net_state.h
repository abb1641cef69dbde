/* net_state.h - what a pz_net holds, shared by the files that build,
 * plan, run and profile it (net.c, compile.c, arena.c, exec.c, profile.c).
 * Nothing outside those files reads it: ops see their layer (net.h).
 */
#ifndef PZ_RT_NET_STATE_H
#define PZ_RT_NET_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/pool.h"
#include "rt/pz_rt.h"

typedef struct pz_layer pz_layer;
typedef struct pz_fuse_block pz_fuse_block;

typedef enum { T_INPUT, T_CONST, T_VALUE, T_VIEW } tensor_kind;

typedef struct {
    pz_tensor t;            /* shape and type; data: arena, constant, or the caller's input */
    char *name;
    tensor_kind kind;
    int producer;           /* the layer that writes it (values), -1 before one does */
    int last_use;           /* the last layer that reads it (n_layers: a graph output) */
    size_t bytes;           /* in its layout */
    size_t offset;          /* in the arena */
    int cblk;               /* its layout (net.h): 0 plain, else the channel block */
    int root;               /* T_VIEW: the T_VALUE or T_INPUT whose bytes it is (pz_net_view) */
    int host;               /* a slice of another tensor (inplace.c): a part of a
                             * Concat in place (the concat's output), a part of a
                             * Split in place (the split's input), or a split's
                             * input placed around the concat part it ends or
                             * starts with; that tensor holds it at byte host_off
                             * (negative: before its first byte); else -1 */
    int64_t host_off;
    bool rt_alloc;          /* no compile-time bound: not in the arena, the net allocates
                             * it when its layer runs (exec.c), grow-only, freed with it */
    size_t cap;             /* rt_alloc: bytes its buffer holds */
} rt_tensor;

typedef struct {
    int first, count, mp;
    uint64_t ns;            /* profile: last run */
    pz_split_mode split;    /* load balance (pz_net_block_knobs) */
    int strip;              /* rows per tile, 0 = auto */
    pz_precision prec;      /* pz_net_block_precision */
    pz_fuse_block *fuse;    /* its fused runs (rt/fuse.h), blocks of 2+ layers */
} rt_block;

struct pz_net {
    char *name;
    rt_tensor *tensors;
    int n_tensors, cap_tensors;
    pz_layer *layers;
    int n_layers, cap_layers;
    int *inputs, n_inputs, cap_inputs;
    int *outputs, n_outputs, cap_outputs;
    rt_block *asked;        /* blocks from pz_net_block */
    int n_asked, cap_asked;
    rt_block *blocks;       /* after compile: every layer in exactly one, in order */
    int n_blocks;
    char err[512];          /* the first error of the building calls */
    bool compiled;
    bool compile_tried;     /* compile runs once, failed or not */
    void *arena;
    size_t arena_bytes;
    pz_pool *pool;
    int threads;
    int out_nth;            /* workers that copy the outputs out */
    pz_barrier barrier;     /* of the layer that runs (conversions, then the op) */
    bool profile;
    uint64_t *prof;         /* profile: a ring of PZ_PROFILE_RUNS rows, one per run: */
    int prof_n;             /*   the ns of each layer, each block, then the run */
    bool consts_mapped;     /* constants are a read-only file mapping (pz_net_consts_mapped) */
    uint64_t run_ns;
    pz_run_options opts;    /* pz_net_compile's, kept: layers point to it */
    pz_isa isa;             /* the kernels': the CPU's best capped by opts.isa */
    size_t alloc_max;       /* the largest run-time allocation (rt_alloc): the host's memory */
};

/* The runs a profile keeps (the last ones): the printed times are their
 * medians (profile.c). */
#define PZ_PROFILE_RUNS 512

#endif
