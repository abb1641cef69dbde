/* raw.c - the low-level API of pz_raw.h. Each operator is a one-layer pz_net
 * whose inputs are read in place from the tensors' memory and whose outputs
 * are copied into it at the end of the forward call. */
#include "pz_raw.h"

#include <stdlib.h>
#include <string.h>

struct pz_raw_tensor {
    pz_tensor t;                 /* dtype, shape, data */
    size_t bytes;
    int owned;                   /* data came from pz_raw_tensor_alloc */
    int bound;                   /* data is constant (pz_raw_tensor_bind) */
};

struct pz_raw_op {
    char *name;
    pz_op_kind kind;
    void *params;
    size_t params_size;
    pz_raw_tensor *in[PZ_MAX_IO], *out[PZ_MAX_IO];
    int n_in, n_out;
    pz_net *net;                 /* after compile */
    const void *in_data[PZ_MAX_IO];
    void *out_data[PZ_MAX_IO];
    int n_net_in, n_net_out;     /* the net's inputs (non-bound tensors) and outputs */
};

pz_raw_tensor *pz_raw_tensor_create(int dtype, int rank, const int64_t *dims)
{
    size_t es = pz_dtype_size(dtype);
    if (!es || rank < 0 || rank > PZ_MAX_RANK || (rank && !dims)) return NULL;
    pz_raw_tensor *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->t.dtype = dtype;
    t->t.rank = rank;
    t->bytes = es;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < 0) {
            free(t);
            return NULL;
        }
        t->t.dims[i] = dims[i];
        t->bytes *= (size_t)dims[i];
    }
    return t;
}

int pz_raw_tensor_alloc(pz_raw_tensor *t)
{
    if (!t || t->t.data) return 1;
    size_t n = (t->bytes + 63) / 64 * 64;
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64)) return 1;
    memset(p, 0, n ? n : 64);
    t->t.data = p;
    t->owned = 1;
    return 0;
}

int pz_raw_tensor_bind(pz_raw_tensor *t, const void *data)
{
    if (!t || t->t.data || (!data && t->bytes)) return 1;
    t->t.data = (void *)data;
    t->bound = 1;
    return 0;
}

int pz_raw_tensor_view(pz_raw_tensor *t, const pz_raw_tensor *src)
{
    if (!t || !src || t->t.data || !src->t.data || t->t.dtype != src->t.dtype ||
        t->bytes != src->bytes)
        return 1;
    t->t.data = src->t.data;
    t->bound = src->bound;
    return 0;
}

void *pz_raw_tensor_data(const pz_raw_tensor *t)
{
    return t->t.data;
}

size_t pz_raw_tensor_bytes(const pz_raw_tensor *t)
{
    return t->bytes;
}

void pz_raw_tensor_destroy(pz_raw_tensor *t)
{
    if (!t) return;
    if (t->owned) free(t->t.data);
    free(t);
}

pz_raw_op *pz_raw_op_create(const char *name, pz_op_kind kind, const void *params,
                            size_t params_size, pz_raw_tensor *const *in, int n_in,
                            pz_raw_tensor *const *out, int n_out)
{
    if (n_in < 0 || n_in > PZ_MAX_IO || n_out < 0 || n_out > PZ_MAX_IO) return NULL;
    pz_raw_op *op = calloc(1, sizeof *op);
    if (!op) return NULL;
    size_t len = strlen(name ? name : "");
    op->name = malloc(len + 1);
    op->params = params_size ? malloc(params_size) : NULL;
    if (!op->name || (params_size && !op->params)) {
        pz_raw_op_destroy(op);
        return NULL;
    }
    memcpy(op->name, name ? name : "", len + 1);
    if (params_size) memcpy(op->params, params, params_size);
    op->kind = kind;
    op->params_size = params_size;
    op->n_in = n_in;
    op->n_out = n_out;
    for (int i = 0; i < n_in; i++) op->in[i] = in[i];
    for (int i = 0; i < n_out; i++) op->out[i] = out[i];
    return op;
}

int pz_raw_op_compile(pz_raw_op *op, int mp, const pz_run_options *opts, char *err,
                      size_t errsize)
{
    if (op->net) return snprintf(err, errsize, "op \"%s\": compiled twice", op->name), 1;
    pz_net *net = pz_net_new(op->name);
    int in[PZ_MAX_IO], out[PZ_MAX_IO];
    for (int i = 0; i < op->n_in; i++) {
        const pz_raw_tensor *t = op->in[i];
        in[i] = -1;
        if (!t) continue;
        /* one tensor given twice is one value (attention reads Q, K, V from one) */
        for (int j = 0; j < i && in[i] < 0; j++)
            if (op->in[j] == t) in[i] = in[j];
        if (in[i] >= 0) continue;
        if (!t->t.data) return pz_net_free(net), snprintf(err, errsize, "op \"%s\": input %d has no memory (alloc or bind it)", op->name, i), 1;
        if (t->bound) {
            in[i] = pz_net_const(net, "", t->t.dtype, t->t.rank, t->t.dims, t->t.data);
        } else {
            in[i] = pz_net_input(net, "", t->t.dtype, t->t.rank, t->t.dims);
            op->in_data[op->n_net_in++] = t->t.data;
        }
    }
    for (int i = 0; i < op->n_out; i++) {
        const pz_raw_tensor *t = op->out[i];
        out[i] = -1;
        if (!t) continue;
        if (!t->owned) return pz_net_free(net), snprintf(err, errsize, "op \"%s\": output %d has no memory (alloc it)", op->name, i), 1;
        out[i] = pz_net_tensor(net, "", t->t.dtype, t->t.rank, t->t.dims);
        op->out_data[op->n_net_out++] = t->t.data;
    }
    pz_net_layer(net, op->name, op->kind, op->params, op->params_size, in, op->n_in, out, op->n_out);
    for (int i = 0; i < op->n_out; i++)
        if (out[i] >= 0) pz_net_output(net, out[i]);
    pz_net_block(net, 0, 1, mp > 0 ? mp : 1);
    if (pz_net_compile(net, mp > 0 ? mp : 1, opts, err, errsize)) {
        pz_net_free(net);
        op->n_net_in = op->n_net_out = 0;
        return 1;
    }
    op->net = net;
    return 0;
}

void pz_raw_op_forward(pz_raw_op *op)
{
    pz_net_run(op->net, op->in_data, op->out_data);
}

void pz_raw_op_destroy(pz_raw_op *op)
{
    if (!op) return;
    pz_net_free(op->net);
    free(op->params);
    free(op->name);
    free(op);
}

void pz_raw_memcpy_to_tensor(pz_raw_tensor *t, const void *src)
{
    if (t->bytes) memcpy(t->t.data, src, t->bytes);
}

void pz_raw_memcpy_from_tensor(void *dst, const pz_raw_tensor *t)
{
    if (t->bytes) memcpy(dst, t->t.data, t->bytes);
}
