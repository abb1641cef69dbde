/* schedule.h - schedule files: every knob of every F-Block, as JSON (the
 * format is documented in README.md, "Schedule files").
 *
 *   sched s;
 *   if (sched_parse(text, len, "s.json", &s, &err)) ...   // syntax and schema
 *   if (sched_apply(&s, model, max_mp, &err)) ...         // against a model
 *   sched_free(&s);
 *   sched_write_file(model, "strategy-name", "out.json", &err);  // atomic
 *
 * Every error names the file, and the block (index and layer names) and key
 * at fault.
 */
#ifndef PZ_OPT_SCHEDULE_H
#define PZ_OPT_SCHEDULE_H

#include "../ir/model.h"
#include "../util/json.h"

typedef struct {
    int first, count;          /* layers [first, first + count) */
    int mp;
    ir_split split;
    int strip;                 /* 0 = auto */
    ir_precision precision;
    ir_weights weights;        /* "weights": "fp16" (fp32 blocks only) */
    int *winograd;             /* "winograd": the block's layers that run Winograd */
    int n_winograd;            /*   (-1: key absent, each conv keeps the runtime's rule) */
    int *sp_layer;             /* "sparsity": {"LAYER": R or "auto", ...}: the layers' */
    float *sp_ratio;           /*   knob (opt.h; IR_SPARSITY_AUTO for "auto") */
    int n_sparsity;
    char **lp_key;             /* "layer_precision": {"LAYER": "fp32"|"bf16"|"int8", ...}: */
    ir_precision *lp_prec;     /*   LAYER a node name of the block or a layer number */
    int n_lp;                  /*   (digits); the layer's own precision (sched_prec.c) */
    char *first_node;          /* ONNX node names of the first and last layers as */
    char *last_node;           /*   the file states them (NULL: not stated) */
    int line, col;             /* where the block starts in the file (0: not from a file) */
} sched_block;

typedef struct {
    char *model;               /* graph name it was made for (may be NULL) */
    char *strategy;            /* who made it (may be NULL) */
    int n_layers;              /* layer count it was made for (-1: not stated) */
    int batch;                 /* "batch": the --batch it was made at (0: not stated) */
    int concat;                /* "concat": 1 true, 0 false, -1 not stated (off) */
    sched_block *blocks;
    int n_blocks;
    char *fname;               /* file it was read from, for errors (may be NULL) */
} sched;

/* Parses a schedule (any bytes: never crashes, allocation bounded by len).
 * Checks syntax (errors "FILE:LINE:COL: ...") and everything that does not
 * need the model: keys and types, values in range, blocks in order with no
 * gap or overlap and, when "layers" is stated, covering them all. On success
 * *out owns its strings (sched_free); on failure *out is empty (sched_free
 * is harmless). */
pz_status sched_parse(const char *text, size_t len, const char *fname, sched *out, pz_err *err);
/* Reads and parses a file (at most 64 MiB). */
pz_status sched_load_file(const char *path, sched *out, pz_err *err);
/* Checks s against m and, if all is well, sets m's blocks and knobs: the
 * layer count, every layer in exactly one block, the node names when stated,
 * MP in [1, max_mp], split "bands" only for blocks of row-local layers (see
 * halo.h), strip at most the rows of the block's last layer, precision fp32
 * or bf16 or int8 (int8-dynamic), weights fp16 only in an fp32 block, each
 * "layer_precision" a layer of its block with such a kernel
 * (sched_layer_prec_check). m is unchanged on error. */
pz_status sched_apply(const sched *s, ir_model *m, int max_mp, pz_err *err);
void sched_free(sched *s);
/* sched_prec.c, the per-layer "layer_precision" of block b (sched_apply's
 * part): checks every key names a layer of the block once and that the
 * layer has a kernel of that precision, then sets the layers' precision.
 * Else returns 1 with the reason in why (m unchanged). */
int sched_layer_prec_check(const sched_block *b, const ir_model *m, int *layers, char *why,
                           size_t n);
/* The "layer_precision" object of block b of m, when a layer's precision is
 * not its block's (else nothing). */
void sched_layer_prec_write(json_writer *w, const ir_model *m, const ir_fblock *b);
/* Whether a layer of this op type has a kernel of precision p (bf16: Conv,
 * MatMul, Gemm; int8: MatMul, Gemm; fp32: any). */
int sched_prec_op_has(const char *op_type, ir_precision p);

/* Writes m's blocks and knobs as a schedule file: to a temporary file in the
 * same folder, renamed over path when complete (no half-written file on any
 * error). strategy names who made it (may be NULL). */
pz_status sched_write_file(const ir_model *m, const char *strategy, const char *path,
                           pz_err *err);
/* The same text to an open stream. */
void sched_write(FILE *f, const ir_model *m, const char *strategy);

#endif
