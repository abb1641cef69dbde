/* emit.h - the code generator: a gen_plan (plan.h) printed as a C program.
 *
 *   NAME.c        the network, against the middle-layer API (pz_rt.h), in
 *                 the form of the paper's Fig. 13: the schedule as constants
 *                 at the top, layers constructed in order with their ONNX
 *                 node names, then F-Blocks with their MP, compile, run.
 *                 With `raw`, the same network against the low-level API
 *                 (pz_raw.h), like the CNML code of Fig. 7 and 8.
 *   NAME.h        NAME_create / NAME_run / NAME_destroy and the I/O tables
 *   NAME.weights  every constant, 64-byte aligned, with an index (pz_io.h)
 *   main.c        the executable's command line (the same for both forms)
 *   Makefile      `make` builds the executable NAME against the runtime
 */
#ifndef PZ_GEN_EMIT_H
#define PZ_GEN_EMIT_H

#include "plan.h"
#include "text.h"

#define PZ_GEN_VERSION "0.1.0"

typedef struct {
    const char *name;            /* C identifier, the prefix of every symbol */
    const char *model_path;
    const char *command;         /* the command line, quoted in the header comment */
    int threads;                 /* default worker threads of the executable; 0: every
                                  * online core where it runs (pz_cpu_count) */
    int raw;                     /* --emit raw */
    int embed;                   /* --embed-weights: NAME.weights linked in (NAME_weights.S) */
    const char *sdk;             /* build dir: include/, libpzrt.a, libpzio.a */
    const char *ldextra;         /* extra link flags the runtime needs (sanitizers) */
    int n_open;                  /* open dims (--max-shape): the API has NAME_create_at */
    const char *ldimage;         /* a plan with an ImageDecoder layer: the image libraries
                                  * (SDK/image.flags), linked after libpzimage.a; NULL: the
                                  * program links neither (gen_plan_has_kind) */
    int replan;                  /* a program or library of a model with a sequence input: the
                                  * model's bytes (NAME.onnx, NAME_model.S) and libpaleozoic
                                  * linked in, a sequence of another length or element shapes
                                  * planned at run time (pz_replan_run, src/gen/replan.c) */
    const char *knobs;           /* replan: the build's knobs it replans with, as
                                  * opt_knobs_format writes them (NAME_REPLAN_KNOBS) */
    int lib;                     /* build --lib: NAME_check_values (and with replan
                                  * NAME_run_values), which a program's main.c does not use */
} gen_opts;

/* Id of the weights file of p: an FNV-1a hash of its index. */
uint64_t gen_weights_id(const gen_plan *p);
/* Writes NAME.weights (temporary name, renamed). */
pz_status gen_write_weights(const gen_plan *p, const char *path, pz_err *err);

void gen_emit_c(gen_text *t, const gen_plan *p, const gen_opts *o);
void gen_emit_raw(gen_text *t, const gen_plan *p, const gen_opts *o);
void gen_emit_header(gen_text *t, const gen_plan *p, const gen_opts *o);
void gen_emit_main(gen_text *t, const gen_opts *o);
/* NAME_check_values (main_template.h's CHECK_TEMPLATE: pz_io_check_values on
 * NAME's tables) and with o->replan NAME_run_values, in NAME.c of a library
 * (o->lib) only; open: the model has open dims (--max-shape). */
void gen_emit_check_values(gen_text *t, const gen_opts *o, int open);
void gen_emit_makefile(gen_text *t, const gen_opts *o);
/* The compile-and-link command for DIR's sources (used by the Makefile text
 * and by `paleozoic build`): CC and CFLAGS are inserted as given. */
void gen_cc_command(gen_text *t, const gen_opts *o, const char *cc, const char *cflags,
                    const char *dir, const char *exe);

/* `paleozoic build --lib` (emit_lib.c): NAME_weights.S (the weights file
 * assembled in with .incbin, for --embed-weights), NAME.map (the version
 * script: only the model's API is exported), and the commands that make
 * libNAME.a and libNAME.so in dir from NAME.c. */
void gen_emit_weights_asm(gen_text *t, const gen_opts *o);
/* NAME_model.S: NAME.onnx linked in as NAME_onnx .. NAME_onnx_end (gen_opts.replan). */
void gen_emit_model_asm(gen_text *t, const gen_opts *o);
void gen_emit_version_script(gen_text *t, const gen_opts *o);
void gen_lib_command(gen_text *t, const gen_opts *o, const char *cc, const char *cflags,
                     const char *dir);

/* Dim d of tensor id as a C expression of D[k] (the generated create's
 * array of open dims, plan.h's gen_open); the number where it is fixed. */
void gen_open_dim_expr(gen_text *t, const gen_plan *p, int id, int d);

/* A graph input or output as the model types it, over the program's flat
 * tensor tables: a tensor is one entry, a sequence its elements, an
 * optional none or one (kind, inner: IR_KIND_*; their count fixed at
 * compile time, op_seq.h); entries first .. first + n - 1. */
typedef struct {
    const char *name;            /* borrowed from the graph */
    int kind, inner, first, n;
} gen_value;
/* The program's inputs (out = 0) or outputs (1) as gen_values, in model
 * order, into *v (pz_xmalloc'd); returns how many. A tensor input bound at
 * compile time (its value built in) is not one. */
int gen_io_values(const gen_plan *p, int out, gen_value **v);

/* Shared pieces (emit_common.c). */
void gen_emit_banner(gen_text *t, const gen_plan *p, const gen_opts *o, const char *what);
/* NAME_inputs, NAME_outputs, their counts and paleozoic_model_name(). */
void gen_emit_io_tables(gen_text *t, const gen_plan *p, const gen_opts *o);
/* The statement that opens the weights into ctx->weights: the file at
 * weights_path, else NAME.weights, else (embed) the linked-in copy. */
void gen_emit_weights_open(gen_text *t, const gen_opts *o);
/* The libraries a program or --lib links, after its objects: libpzio,
 * the runtime, the image decoders when o->ldimage, o->ldextra. */
void gen_emit_link_libs(gen_text *t, const gen_opts *o);
/* 1 when a layer of p has runtime op kind k. */
int gen_plan_has_kind(const gen_plan *p, pz_op_kind k);
/* "NAME" upper-cased for macros. */
void gen_upper(char *dst, size_t n, const char *name);

#endif
