/* conv16c_bf16.h - the bf16 convolutions (a block's precision bf16,
 * pz_op_params.h): the direct NCHW16c conv and Winograd F(4x4, 3x3) with
 * their products in bfloat16 and their sums in fp32, as AVX512-BF16's
 * vdpbf16ps does. Inputs, outputs, bias, residual and epilogue stay fp32.
 *
 * Direct: the weights packed as for the fp32 kernel (pz_conv16c_pack_weights)
 * then rounded to bf16 in place by pz_conv16c_bf16_convert: per kernel row,
 * pairs of q steps (q = kw * 16 + ic, so a pair is two input channels of
 * one tap) as [q / 2][16 lanes][2], element offsets unchanged, in the first
 * half of the buffer's bytes. The micro-kernels run under the fp32 driver
 * (conv16c_drive.c: the same tiles, passes and order); per run of q steps
 * they round the input span they read to bf16 once (to nearest even, into
 * a small buffer), then each q pair broadcasts one 32-bit pair of inputs
 * and does one vdpbf16ps per accumulator: per output, the pairs in order,
 * the odd product added first, then the even one.
 *
 * Winograd: the transforms in fp32 (the fp32 steps of winograd.h); the
 * input transform's 16 values of each point rounded to bf16 in place (the
 * first 32 bytes of their slot), U packed as for fp32
 * (pz_winograd_pack_weights) and rounded in place by pz_winograd_bf16_convert:
 * each [16 c][rm][16 m] chunk becomes [8 c pairs][rm][16 m][2] in its first
 * half; the tile GEMM runs vdpbf16ps over channel pairs.
 *
 * Each has a scalar twin with the same roundings and the same order of
 * sums (bitwise equal: tests/unit/rt_conv_bf16.c), which runs where the CPU
 * or the ISA cap has no AVX512-BF16. Denormal bf16 values are outside what
 * the twins model (the hardware flushes them). */
#ifndef PZ_CONV16C_BF16_H
#define PZ_CONV16C_BF16_H

#include "rt/kernels/conv/conv16c.h"
#include "rt/kernels/conv/winograd.h"

/* Input values a micro-kernel rounds per row of a run: the span of its
 * widest tile, (14 - 1) * ps + nq. */
#define PZ_CONV16C_BF16_SPAN 1024

/* 1 when the bf16 direct conv takes d: 16-channel input blocks, an even
 * channel count (a pair never reaches past C), a span within the buffer. */
int pz_conv16c_bf16_ok(const pz_conv16c_desc *d);
/* The fp32 packed weights wp (pz_conv16c_weights_size(d) floats) to bf16,
 * in place (see the top). */
void pz_conv16c_bf16_convert(const pz_conv16c_desc *d, float *wp);
/* The kernel: AVX512-BF16 where isa is AVX-512 and the CPU has it, else the
 * scalar twin. */
pz_conv16c_fn pz_conv16c_bf16_for(pz_isa isa);
void pz_f32_conv2d_nchw16c_bf16__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                        const float *restrict w, const float *restrict b,
                                        const float *restrict z, float *restrict y, int ith,
                                        int nth);
void pz_f32_conv2d_nchw16c_bf16__avx512bf16(const pz_conv16c_desc *d, const float *restrict x,
                                            const float *restrict w, const float *restrict b,
                                            const float *restrict z, float *restrict y,
                                            int ith, int nth);
extern const pz_conv16c_ukset pz_conv16c_ukset__bf16scalar;
extern const pz_conv16c_ukset pz_conv16c_ukset__avx512bf16;

/* Winograd: U (pz_winograd_weights_size(d) floats, packed fp32) to bf16 in
 * place; the kernel as above (its scratch as the fp32 one's). */
void pz_winograd_bf16_convert(const pz_conv16c_desc *d, float *u);
pz_winograd_fn pz_winograd_bf16_for(pz_isa isa);
void pz_f32_conv3x3_winograd_bf16__scalar(const pz_conv16c_desc *d, const float *restrict x,
                                          const float *restrict u, const float *restrict b,
                                          const float *restrict z, float *restrict y,
                                          float *restrict scratch, int ith, int nth);
void pz_f32_conv3x3_winograd_bf16__avx512bf16(const pz_conv16c_desc *d, const float *restrict x,
                                              const float *restrict u, const float *restrict b,
                                              const float *restrict z, float *restrict y,
                                              float *restrict scratch, int ith, int nth);

#endif
