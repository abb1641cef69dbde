/* matmul.h - numpy matmul's output shape, shared by MatMul (matmul.c),
 * MatMulInteger and QLinearMatMul. */
#ifndef PZ_OPS_MATMUL_H
#define PZ_OPS_MATMUL_H

#include "op.h"

typedef struct {
    int rank;
    int64_t dims[IR_MAX_RANK];        /* Y's shape */
    int64_t batch, m, k, n;
} op_matmul_dims;

/* A [..., M, K] times B [..., K, N] (ranks >= 1; 1-D A a row, 1-D B a
 * column, their dim dropped from Y); errors name node and op. */
pz_status op_matmul_shape(const ir_node *n, const ir_tensor *a, const ir_tensor *b,
                          op_matmul_dims *md, pz_err *err);

/* The integer types MatMulInteger and QLinearMatMul take (the QMATMUL
 * layer's): 8- and 16-bit. */
static inline int op_qint_type(int dt)
{
    return dt == IR_U8 || dt == IR_I8 || dt == IR_U16 || dt == IR_I16;
}

#endif
