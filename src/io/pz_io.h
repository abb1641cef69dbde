/* pz_io.h - what a generated program needs besides the runtime: tensors in
 * onnx.TensorProto files (.pb, the format of the ONNX test data) and the
 * NAME.weights file that `paleozoic compile` writes.
 *
 * It does not depend on the compiler (no protobuf-c, no ONNX schema): the
 * few TensorProto fields a tensor file uses are decoded by hand. Built into
 * libpzio.a, which executables link next to libpzrt.a.
 *
 *   pz_io_tensor x;
 *   char err[256];
 *   if (pz_io_read_tensor("input_0.pb", &x, err, sizeof err)) { puts(err); ... }
 *   ... x.dtype, x.rank, x.dims, x.data (64-byte aligned, owned by x) ...
 *   pz_io_write_tensor("output_0.pb", "y", x.dtype, x.rank, x.dims, x.data, err, sizeof err);
 *   pz_io_tensor_free(&x);
 *
 *   pz_weights *w = pz_weights_open("resnet18.weights", RESNET18_WEIGHTS_ID, err, sizeof err);
 *   pz_weight e;
 *   pz_weights_get(w, 0, &e);     // e.name, e.dtype, e.rank, e.dims, e.data (mapped)
 *   pz_weights_close(w);          // after the net that borrows e.data is freed
 *
 * Functions that can fail return 0 on success, non-zero with a sentence in
 * err (naming the file) otherwise.
 */
#ifndef PZ_IO_H
#define PZ_IO_H

#include <stddef.h>
#include <stdint.h>

#include "pz_rt.h"

/* ---- TensorProto files -------------------------------------------------- */

typedef struct {
    char *name;                  /* TensorProto.name, "" when absent (owned) */
    int dtype;                   /* pz_dtype (= TensorProto.DataType) */
    int rank;
    int64_t dims[PZ_MAX_RANK];
    void *data;                  /* packed little-endian elements, 64-byte aligned (owned) */
    size_t nbytes;
} pz_io_tensor;

/* Reads a serialized TensorProto: raw_data, or the typed fields (float_data,
 * int32_data, int64_data, double_data, uint64_data). */
int pz_io_read_tensor(const char *path, pz_io_tensor *t, char *err, size_t errsize);
/* Writes dims, data_type, name and raw_data, atomically (a temporary file
 * renamed over path: on failure nothing is left at path). */
int pz_io_write_tensor(const char *path, const char *name, int dtype, int rank,
                       const int64_t *dims, const void *data, char *err, size_t errsize);
void pz_io_tensor_free(pz_io_tensor *t);

/* ---- SequenceProto and OptionalProto files ------------------------------
 * A sequence or an optional graph input or output (the ONNX test data's
 * format, what `paleozoic run` reads and writes). SequenceProto and
 * OptionalProto share their field numbers: 1 name, 2 elem_type (TENSOR 1,
 * SEQUENCE 3), 3 tensors (SequenceProto: repeated), 5 a SequenceProto (an
 * optional holding a sequence). Only tensors are held (no maps, no sparse
 * tensors, no sequences of sequences). */

enum { PZ_IO_TENSOR = 0, PZ_IO_SEQUENCE = 1, PZ_IO_OPTIONAL = 2 };

typedef struct {
    int kind;                    /* PZ_IO_TENSOR (n = 1), PZ_IO_SEQUENCE, PZ_IO_OPTIONAL */
    int inner;                   /* an optional: PZ_IO_SEQUENCE when it holds a sequence (of
                                  * n), else PZ_IO_TENSOR (n = 1; an empty optional: n = 0) */
    int n;
    pz_io_tensor *t;             /* the n tensors, in order */
} pz_io_value;

/* A compiled model's graph input or output (NAME_io in NAME.h): its ONNX
 * name, element type (pz_dtype) and shape. */
typedef struct {
    const char *name;
    int dtype;
    int rank;
    int64_t dims[PZ_MAX_RANK];
} pz_io_desc;

/* A compiled model's input or output value (NAME_value): kind PZ_IO_*, an
 * optional's inner kind, and its tensors, entries first .. first + n - 1 of
 * the NAME_io table. */
typedef struct {
    const char *name;
    int kind, inner;
    int first, n;
} pz_io_value_desc;

/* 0 when in[0 .. n) are what a compiled model takes: its n_vals values'
 * kinds, sequence lengths and optionals' presence as built, each tensor's
 * element type and shape as ios gives it (a dim with open[i][d] > 0: any;
 * open may be NULL); else 2 with err naming the input (model: the name in
 * the message). NAME_check_values calls it with NAME's tables. */
int pz_io_check_values(const pz_io_value *in, int n, const pz_io_value_desc *vals, int n_vals,
                       const pz_io_desc *ios, const int (*open)[PZ_MAX_RANK], const char *model,
                       char *err, size_t errsize);

/* Reads a file as a value of `kind`: a TensorProto, a SequenceProto or an
 * OptionalProto. A file of another kind is refused (err says what it holds
 * where it can tell). v owns its tensors: pz_io_value_free. */
int pz_io_read_value(const char *path, int kind, pz_io_value *v, char *err, size_t errsize);
void pz_io_value_free(pz_io_value *v);
/* Writes v (its tensors borrowed: dtype, rank, dims, data; their names are
 * not written) as the message of its kind named `name`, atomically as
 * pz_io_write_tensor does. */
int pz_io_write_value(const char *path, const char *name, const pz_io_value *v, char *err,
                      size_t errsize);

/* ---- NAME.weights ---------------------------------------------------------
 * Layout (little-endian):
 *   header, 64 bytes: "PZWEIGHT", u32 version (1), u32 count, u64 id,
 *                     u64 index_offset, u64 index_bytes, u64 file_bytes, 16 zero bytes
 *   data:   each constant's bytes at a 64-byte aligned offset
 *   index:  count entries: u64 offset, u64 nbytes, i32 dtype, i32 rank,
 *           i64 dims[8], u32 name_len, name bytes, zero padding to 8 bytes
 * id is an FNV-1a hash of the index (names, types, shapes, sizes): the
 * generated program names the id it was compiled with, so a weights file of
 * another model (or another batch size) is refused at create. */

#define PZ_WEIGHTS_MAGIC "PZWEIGHT"
#define PZ_WEIGHTS_VERSION 1u
#define PZ_WEIGHTS_ALIGN 64u
#define PZ_WEIGHTS_HEADER 64u

typedef struct pz_weights pz_weights;

typedef struct {
    const char *name;
    int dtype;
    int rank;
    const int64_t *dims;
    const void *data;            /* in the mapping: valid until pz_weights_close */
    size_t nbytes;
} pz_weight;

/* Maps the file read-only and checks its structure and its id (id 0: any). */
pz_weights *pz_weights_open(const char *path, uint64_t id, char *err, size_t errsize);
/* The same over bytes already in memory (the weights linked into a program,
 * `paleozoic build --embed-weights`): data, 64-byte aligned, is borrowed and
 * must outlive the handle; label names it in messages. */
pz_weights *pz_weights_open_mem(const void *data, size_t size, const char *label, uint64_t id,
                                char *err, size_t errsize);
int pz_weights_count(const pz_weights *w);
/* Entry i; returns non-zero if i is out of range. */
int pz_weights_get(const pz_weights *w, int i, pz_weight *out);
/* The data of entry i (NULL if out of range). */
const void *pz_weights_data(const pz_weights *w, int i);
void pz_weights_close(pz_weights *w);
/* Declares every entry, in order, as a constant tensor of net (the
 * middle layer's weight binding): ids[i] gets entry i's tensor id. Returns 0,
 * or -1 with a message in err if the runtime refused one. */
int pz_weights_declare(const pz_weights *w, pz_net *net, int *ids, char *err, size_t errsize);

/* FNV-1a 64-bit, continued from h (start with PZ_FNV_START). Inline: the
 * compiler, which writes the file, does not link this library. */
#define PZ_FNV_START 0xcbf29ce484222325ull
static inline uint64_t pz_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- run options (run_options.c) -------------------------------------------
 * The runtime reads no environment; a program reads it once, here, and hands
 * the result to pz_net_compile:
 *   PZ_ISA=ref|scalar|avx2|avx512  caps the kernels' instruction set (-novnni
 *                                  after it: no vpdpbusd for int8 either)
 *   PZ_HUGEPAGES=0                 no huge-page advice for big buffers
 *   PZ_SPIN_US=N                   an idle worker spins N us before it sleeps (200)
 *   PZ_PIN=0                       workers not pinned to CPUs
 *   PZ_WINOGRAD=0|1                every 3x3 conv direct | Winograd where it applies
 *   PZ_CONV8X2=0, PZ_SUBSAMPLE=0   no 8x2-tile 1x1 conv | no subsampled strided 1x1
 *   PZ_FUSE_WINDOWS=0, PZ_FUSE_CUT=0  fused runs with full buffers | without cuts
 *   PZ_GATHER_CONV=0               channel gathers run as layers, not in their conv
 * Unset variables give PZ_RUN_OPTIONS_DEFAULT. An unknown PZ_ISA or a
 * PZ_WINOGRAD other than 0 or 1: a message on stderr and -1 (the CLI and
 * main.c exit 2), never a silent default. Else 0. */
int pz_io_run_options_env(pz_run_options *o);
/* Writes one line "PREFIXNAME=value" per variable, as o has it, into buf
 * (for a generated program's header comment). Returns snprintf's count. */
int pz_io_run_options_format(const pz_run_options *o, const char *prefix, char *buf, size_t n);

/* ---- a model planned at run time (libpaleozoic, src/gen/replan.c) -----------
 * Defined in the compiler's library, which only a program or library of a model with a
 * sequence input links (with the model's bytes): given a sequence of another
 * length or element shapes than its plan's, it loads, plans and runs the
 * model (onnx, len bytes) on the values in[0 .. n_in) as `paleozoic run`
 * does with the build's knobs (knobs: NAME_REPLAN_KNOBS, opt_knobs_format's
 * "key=value" lines, said on stderr; NULL or "": run's defaults),
 * `threads` workers (0: every core), under the run
 * options opts (NULL: the defaults), once and then
 * `repeat` times more (printing the latency line), and writes the first n_out
 * outputs to outputs[] as `run --output` does (none: prints their shapes).
 * The values stay the caller's. Returns 0, or the exit code (2 for bad
 * input, 1 internal) with msg saying why. */
int pz_replan_run(const void *onnx, size_t len, const char *knobs, const pz_io_value *in,
                  int n_in, const char *const *outputs, int n_out, int threads, int repeat,
                  const pz_run_options *opts, char *msg, size_t msgsize);
/* The same, run once, the model's n_out output values (all of them, in
 * model order) into out[] instead of files: the caller owns them
 * (pz_io_value_free each). A library's NAME_run_values (a `build --lib` of
 * a model with a sequence input) calls it. */
int pz_replan_values(const void *onnx, size_t len, const char *knobs, const pz_io_value *in,
                     int n_in, pz_io_value *out, int n_out, int threads,
                     const pz_run_options *opts, char *msg, size_t msgsize);

#endif
