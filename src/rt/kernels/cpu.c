/* cpu.c - which fast kernels to run: one constant table per instruction set
 * (the only place that maps an ISA to its kernels),
 * chosen by what pz_cpu_isa() (src/rt/cpu.c: CPUID through
 * __builtin_cpu_supports, capped by PZ_ISA) says. A PZ_SCALAR=1 build
 * compiles no SIMD kernel and always hands out the scalar twins. */
#include "rt/kernels/fast.h"
#include "rt/kernels/conv/conv16c.h"
#include "rt/kernels/conv/conv8x2.h"
#include "rt/kernels/conv/spconv16c.h"
#include "rt/kernels/conv/winograd.h"
#include "rt/kernels/dwconv/dwconvk16c.h"
#include "rt/kernels/layout/block_rows.h"

static const pz_fast_kernels SCALAR = {
    .isa = PZ_ISA_SCALAR, .name = "scalar",
    .conv2d = pz_f32_conv2d_nchw16c__scalar,
    .dwconv3x3 = pz_f32_dwconv3x3_nchw16c__scalar,
    .gemm = pz_f32_gemm_packed__scalar,
    .gemv = pz_f32_gemv_packed__scalar,
    .pool2d = pz_f32_pool2d_nchw16c__scalar,
    .interleave = pz_f32_interleave__scalar,
    .rows_to_block = pz_f32_rows_to_block,
    .block_to_rows = pz_f32_block_to_rows,
    .unary16c = pz_f32_unary_nchw16c__scalar,
    .binary16c = pz_f32_binary16c__scalar,
    .batchnorm16c = pz_f32_batchnorm_nchw16c__scalar,
    .chgather16c = pz_f32_chgather16c__scalar,
    .conv16c = NULL,
    .winograd = pz_f32_conv3x3_winograd_nchw16c__scalar,
    .conv1x1_8x2 = NULL,
    .dwconvk = pz_f32_dwconvk_nchw16c__scalar,
    .layernorm = pz_f32_layernorm__scalar,
    .compare = pz_num_compare__fast,
    .int_binary = pz_int_binary__fast,
    .rnn_step = pz_f32_rnn_step__scalar,
    .attention = pz_f32_attention__scalar,
    .softmax_rows = pz_f32_softmax_rows__scalar,
    .sprow = pz_f32_sprow16c__scalar,
    .act16c = pz_f32_act16c__scalar,
};

#ifndef PZ_SCALAR
static const pz_fast_kernels AVX2 = {
    .isa = PZ_ISA_AVX2, .name = "avx2",
    .conv2d = pz_f32_conv2d_nchw16c__avx2,
    .dwconv3x3 = pz_f32_dwconv3x3_nchw16c__avx2,
    .gemm = pz_f32_gemm_packed__avx2,
    .gemv = pz_f32_gemv_packed__avx2,
    .pool2d = pz_f32_pool2d_nchw16c__avx2,
    .interleave = pz_f32_interleave__scalar,
    .rows_to_block = pz_f32_rows_to_block,
    .block_to_rows = pz_f32_block_to_rows,
    .unary16c = pz_f32_unary_nchw16c__avx2,
    .binary16c = pz_f32_binary16c__avx2,
    .batchnorm16c = pz_f32_batchnorm_nchw16c__scalar,
    .chgather16c = pz_f32_chgather16c__scalar,
    .conv16c = &pz_conv16c_ukset__avx2,
    .winograd = pz_f32_conv3x3_winograd_nchw16c__scalar,
    .conv1x1_8x2 = NULL,
    .dwconvk = pz_f32_dwconvk_nchw16c__scalar,
    .layernorm = pz_f32_layernorm__ref,   /* the twin's fmaf is a call per element here */
    .compare = pz_num_compare__avx2,
    .int_binary = pz_int_binary__fast,
    .f32_binary = pz_f32_binary__avx2,
    .rnn_step = pz_f32_rnn_step__avx2,
    .attention = pz_f32_attention__scalar,
    .softmax_rows = pz_f32_softmax_rows__scalar,
    .sprow = pz_f32_sprow16c__scalar,
    .act16c = pz_f32_act16c__avx2,
};

static const pz_fast_kernels AVX512 = {
    .isa = PZ_ISA_AVX512, .name = "avx512",
    .conv2d = pz_f32_conv2d_nchw16c__avx512,
    .dwconv3x3 = pz_f32_dwconv3x3_nchw16c__avx512,
    .gemm = pz_f32_gemm_packed__avx512,
    .gemv = pz_f32_gemv_packed__avx512,
    .pool2d = pz_f32_pool2d_nchw16c__avx512,
    .interleave = pz_f32_interleave__avx512,
    .rows_to_block = pz_f32_rows_to_block__avx512,
    .block_to_rows = pz_f32_block_to_rows__avx512,
    .unary16c = pz_f32_unary_nchw16c__avx512,
    .binary16c = pz_f32_binary16c__avx512,
    .batchnorm16c = pz_f32_batchnorm_nchw16c__avx512,
    .chgather16c = pz_f32_chgather16c__avx512,
    .conv16c = &pz_conv16c_ukset__avx512,
    .winograd = pz_f32_conv3x3_winograd_nchw16c__avx512,
    .conv1x1_8x2 = pz_f32_conv1x1_8x2_nchw16c__avx512,
    .dwconvk = pz_f32_dwconvk_nchw16c__avx512,
    .layernorm = pz_f32_layernorm__avx512,
    .compare = pz_num_compare__avx512,
    .int_binary = pz_int_binary__avx512,
    .f32_binary = pz_f32_binary__avx512,
    .rnn_step = pz_f32_rnn_step__avx512,
    .attention = pz_f32_attention__avx512,
    .softmax_rows = pz_f32_softmax_rows__avx512,
    .sprow = pz_f32_sprow16c__avx512,
    .act16c = pz_f32_act16c__avx512,
};
#endif

const pz_fast_kernels *pz_fast_kernels_for(pz_isa isa)
{
#ifndef PZ_SCALAR
    if (isa == PZ_ISA_AVX512) return &AVX512;
    if (isa == PZ_ISA_AVX2) return &AVX2;
#endif
    (void)isa;
    return &SCALAR;
}
