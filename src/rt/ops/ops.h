/* ops.h - the runtime's layer kinds, one file each in rt/ops/. */
#ifndef PZ_RT_OPS_H
#define PZ_RT_OPS_H

#include "rt/kernels/fast.h"
#include "rt/kernels/kernels.h"
#include "rt/kernels/quant/qdyn_out.h"
#include "rt/net.h"

/* Input slot i of a layer, NULL when omitted (-1) or beyond n_in. */
static inline pz_tensor *pz_in(const pz_layer *l, int i)
{
    return i < l->n_in ? l->in[i] : NULL;
}
static inline pz_tensor *pz_out(const pz_layer *l, int i)
{
    return i < l->n_out ? l->out[i] : NULL;
}

/* conv_shape.c: checks a conv's spatial params against X, W and Y (shared
 * with CONV_TRANSPOSE, whose W is {C, M/G, k...}). */
int pz_conv_check_geometry(const pz_layer *l, char *err, size_t n, bool transpose);
/* conv_shape.c: run_shape of CONV and CONV_TRANSPOSE in a dynamic region:
 * Y's dim 0 is X's, X's other dims must be xplan's (prepare's X). */
void pz_conv_run_shape(const pz_layer *l, const int64_t *xplan);

/* chgather.c: a layer whose output channels are a gather of its first nin
 * inputs' channels (Concat, Slice, Gather along axis 1 of rank-4 float32
 * tensors, blocks not aligned), on NCHW16c: output channel c is channel
 * src_ch[c] of input src_in[c]. pz_chg_plan_layer (prepare) plans it and
 * sets the layouts (inputs and output blocked); NULL when out of memory or
 * the map is bad (the op keeps its plain path). */
typedef struct {
    pz_chgather_desc d;
    pz_chgather_fn fn;
    pz_tensor **src;   /* read through (pz_chg_through, pz_chg_compose): its sources; NULL: l->in */
    int *map_in;       /* the map it was planned from: output channel c is channel */
    int64_t *map_ch;   /* map_ch[c] of source map_in[c] */
} pz_chg_state;
pz_chg_state *pz_chg_plan_layer(pz_layer *l, int nin, const int *src_in, const int64_t *src_ch);
void pz_chg_run(const pz_chg_state *st, const pz_layer *l, int ith, int nth);
/* GATHER layer g's whole output (a channel gather, pz_chg_sources) into y
 * on one worker: a conv gathering its input itself (conv.c). */
void pz_chg_run_into(const pz_layer *g, float *y);
void pz_chg_release(pz_chg_state *st);   /* the plan's tables (not st) */
/* GATHER layer g, run as a channel gather, re-planned to read the parts of
 * CONCAT layer c (one of g's sources is c's output; c's parts and output
 * NCHW16c) instead of c's output: a channel of c's output is then the
 * channel of the part it falls in. 0: done; -1: g not such a layer, too
 * many sources or out of memory, unchanged. */
int pz_chg_through(pz_layer *g, const pz_layer *c);
/* The same for a source of r that GATHER layer g (itself reading through a
 * concat) writes: r reads g's sources instead (pz_chg_through's return). */
int pz_chg_compose(pz_layer *r, const pz_layer *g);
/* The tensors GATHER layer g reads as a channel gather (*src, their count),
 * 0 when it is none. */
int pz_chg_sources(const pz_layer *g, pz_tensor *const **src);

/* conv.c: whether CONV layer l runs its input 0 whole in one kernel call
 * of its workers (not the reference conv, not a subsampled, grouped,
 * Winograd or sparse conv), so that a worker may hand it a copy of that
 * input gathered into its scratch (l->x_gather). */
bool pz_conv_reads_whole(const pz_layer *l);

/* matmul.c: numpy matmul's shape of A times B; 0, or -1 when they do not
 * multiply (MATMUL, QMATMUL). */
int pz_matmul_shape_init(pz_matmul_shape *s, const pz_tensor *a, const pz_tensor *b);

/* Field tables of params types that several kinds take (conv.c: CONV,
 * CONV_TRANSPOSE; concat.c: CONCAT, SPLIT, GATHER). */
#define PZ_CONV_N_FIELDS 10
#define PZ_AXIS_N_FIELDS 1
extern const pz_param_field pz_conv_fields[PZ_CONV_N_FIELDS];
extern const pz_param_field pz_axis_fields[PZ_AXIS_N_FIELDS];

/* The row rule of an element-wise kind (registry.c): row-local, every input
 * row for row. */
int pz_row_rule_elementwise(const pz_row_layer *l, pz_row_map *m);

/* index.c: the checks every indexing layer (GATHER_ELEMENTS, GATHER_ND,
 * SCATTER) starts with: input 0 (X) and 1 (indices) and output 0 (Y) are
 * there, X of a type the runtime holds and Y of X's, indices int32 or int64.
 * 0, or 1 with the message in err. */
int pz_index_layer_check(pz_layer *l, char *err, size_t n);
/* Indices known only at run time (ix not constant) are checked each run:
 * prepare gives the layer its run_err; check (worker 0, one pass) fails the
 * run naming the layer at the first index outside [-n, n), as ONNX Runtime
 * does, and returns 1. Entry e is for axis axis0 + e % k, of size
 * dims[e % k] (k = 1: every entry for axis0, of size dims[0]). */
int pz_index_run_prepare(pz_layer *l, const pz_tensor *ix, char *err, size_t n);
int pz_index_run_check(const pz_layer *l, const pz_tensor *ix, int k, const int64_t *dims,
                       int axis0);
/* The same for values that must lie in [lo, hi] (MaxUnpool's I, RoiAlign's
 * batch_indices, ...; int32 or int64 t): the first outside fails the run,
 * "what[e] is v: outside [lo, hi]", and it returns 1. */
int pz_run_check_span(const pz_layer *l, const pz_tensor *t, const char *what, int64_t lo,
                      int64_t hi);

/* registry.c: the values of an int32 or int64 tensor of at most max
 * elements read at run time (Slice's starts, Reshape's shape), into out;
 * their count, or -1 when t is not such a vector. */
int pz_run_ints(const pz_tensor *t, int64_t *out, int max);

/* qdyn_out.c: the float32 output stage of a ConvInteger or MatMulInteger
 * the qdyn pass folded (passes/qdyn.c): inputs first .. first + 2 are X's
 * scale (a float32 scalar, read at run time), W's scale and the bias
 * (constant float32, one element or m; the bias optional). check: 0, or 1
 * with the message in err; of: the stage as the layer runs now. */
int pz_qdyn_out_check(pz_layer *l, int first, int64_t m, char *err, size_t n);
void pz_qdyn_out_of(const pz_layer *l, int first, int64_t m, pz_act act, pz_qdyn_out *o);
/* The reference's int32 sums at y, elements [lo, hi) (element e of channel
 * e / inner % m), to float32 in place. */
void pz_qdyn_out_inplace(const pz_qdyn_out *o, void *y, int64_t lo, int64_t hi, int64_t inner,
                         int64_t m);

/* One descriptor per kind of the list PZ_OP_KINDS (pz_op_kinds.h). */
#define PZ_OPK_EXTERN(KIND, sym) extern const pz_rt_op pz_rt_op_##sym;
PZ_OP_KINDS(PZ_OPK_EXTERN)
#undef PZ_OPK_EXTERN

#endif
