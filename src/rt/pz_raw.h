/* pz_raw.h - the runtime's low-level API: tensors and operators one by one,
 * with no middle layer (the papers' CNML, Fig. 7 and 8).
 *
 * Here a program does by hand what pz_net does for it: it creates every
 * tensor, allocates activations, binds constant data, creates each operator
 * with its params, compiles it for a core count, copies inputs in, calls each
 * operator's forward in order, copies outputs out, and destroys everything.
 * There is no fusion and no arena: every activation has its own buffer.
 * `paleozoic compile --emit raw` writes programs against this API; its line
 * count against the default emission is the papers' Table 5.
 *
 *   pz_raw_tensor *x = pz_raw_tensor_create(PZ_F32, 4, (int64_t[]){1, 3, 224, 224});
 *   pz_raw_tensor *w = pz_raw_tensor_create(PZ_F32, 4, (int64_t[]){64, 3, 7, 7});
 *   pz_raw_tensor *y = pz_raw_tensor_create(PZ_F32, 4, (int64_t[]){1, 64, 112, 112});
 *   pz_raw_tensor_alloc(x);
 *   pz_raw_tensor_alloc(y);
 *   pz_raw_tensor_bind(w, weights);            // borrowed: must outlive the op
 *   pz_conv_params p = {...};
 *   pz_raw_op *conv = pz_raw_op_create("conv1", PZ_OP_CONV, &p, sizeof p,
 *                                      (pz_raw_tensor *[]){x, w, NULL}, 3, &y, 1);
 *   if (pz_raw_op_compile(conv, 2, NULL, err, sizeof err)) ...   // 2 cores, default options
 *   pz_raw_memcpy_to_tensor(x, image);
 *   pz_raw_op_forward(conv);
 *   pz_raw_memcpy_from_tensor(out, y);
 *   pz_raw_op_destroy(conv);                   // then the tensors
 *   pz_raw_tensor_destroy(x); ...
 *
 * Ownership: each tensor owns the memory pz_raw_tensor_alloc gave it; bound
 * data is borrowed. An op does not own its tensors: destroy ops first.
 */
#ifndef PZ_RAW_H
#define PZ_RAW_H

#include "pz_rt.h"

typedef struct pz_raw_tensor pz_raw_tensor;
typedef struct pz_raw_op pz_raw_op;

/* A tensor descriptor: element type and shape. NULL if out of memory or the
 * type/shape is invalid. */
pz_raw_tensor *pz_raw_tensor_create(int dtype, int rank, const int64_t *dims);
/* Gives the tensor its own zeroed, 64-byte aligned memory. 0 on success. */
int pz_raw_tensor_alloc(pz_raw_tensor *t);
/* Binds constant data (weights) to the tensor; borrowed. 0 on success. */
int pz_raw_tensor_bind(pz_raw_tensor *t, const void *data);
/* Makes t a view of src: the same memory (borrowed; src must outlive t)
 * under t's shape. Same element type and byte count; t has no memory yet.
 * 0 on success. */
int pz_raw_tensor_view(pz_raw_tensor *t, const pz_raw_tensor *src);
void *pz_raw_tensor_data(const pz_raw_tensor *t);
size_t pz_raw_tensor_bytes(const pz_raw_tensor *t);
void pz_raw_tensor_destroy(pz_raw_tensor *t);

/* An operator reading in[] and writing out[] (NULL entries: omitted optional
 * tensors); params are copied. NULL if out of memory. */
pz_raw_op *pz_raw_op_create(const char *name, pz_op_kind kind, const void *params,
                            size_t params_size, pz_raw_tensor *const *in, int n_in,
                            pz_raw_tensor *const *out, int n_out);
/* Checks shapes, chooses the kernel, packs weights, starts mp workers, as
 * the run options opts say (NULL: the defaults; pz_rt.h). Every output and
 * every non-bound input must have memory by then. 0 on success, else
 * non-zero with a message in err. */
int pz_raw_op_compile(pz_raw_op *op, int mp, const pz_run_options *opts, char *err,
                      size_t errsize);
/* Runs the compiled op: reads its inputs' memory, writes its outputs'. */
void pz_raw_op_forward(pz_raw_op *op);
void pz_raw_op_destroy(pz_raw_op *op);

/* Copies a caller's buffer into a tensor's memory, and back out. */
void pz_raw_memcpy_to_tensor(pz_raw_tensor *t, const void *src);
void pz_raw_memcpy_from_tensor(void *dst, const pz_raw_tensor *t);

#endif
