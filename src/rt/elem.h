/* elem.h - libpzrt's element-type conversions: half floats, the small
 * types, loads and stores of any type through double, integer bits.
 *
 * One implementation (src/rt/kernels/dtype/convert.c, cast_small.c) serves
 * the kernels and the compiler, so constants the compiler folds round
 * exactly as Cast rounds at run time. This header holds no kernel: src/ir
 * may include it.
 *
 *   uint16_t h = pz_f32_to_f16(1.0f);           // 0x3c00
 *   pz_store_f64(buf, PZ_F16, i, x);            // rounds to nearest even
 */
#ifndef PZ_RT_ELEM_H
#define PZ_RT_ELEM_H

#include <stdbool.h>
#include <stdint.h>

#include "rt/pz_rt.h"

bool pz_dtype_is_float(int dt);   /* f16, bf16, f32, f64 */
bool pz_dtype_is_int(int dt);     /* signed or unsigned integer (not bool) */
bool pz_dtype_is_signed(int dt);

float pz_f16_to_f32(uint16_t h);
uint16_t pz_f32_to_f16(float f);      /* round to nearest even */
float pz_bf16_to_f32(uint16_t b);
uint16_t pz_f32_to_bf16(float f);     /* round to nearest even */

/* The small types (cast_small.c): float8 (four kinds), float8e8m0 and
 * float4e2m1 codes, and the 4- and 2-bit integers (held one per byte). */
bool pz_dtype_is_small_float(int dt);
bool pz_dtype_is_small_int(int dt);
double pz_small_to_f64(int dt, unsigned code);
/* v rounded to nearest even into dt; nosat: out of range -> inf/NaN instead
 * of the largest value; round: float8e8m0's rounding. */
unsigned pz_f64_to_small(int dt, double v, int nosat, pz_round_mode round);

/* Element i of a buffer of type dt, as double. */
double pz_load_f64(const void *p, int dt, int64_t i);
/* Stores v into element i of a buffer of type dt: floats round, integers
 * truncate toward zero and saturate (NaN -> 0), bool is v != 0. */
void pz_store_f64(void *p, int dt, int64_t i, double v);
/* Integer element i as its two's complement bits (sign-extended). */
uint64_t pz_load_bits(const void *p, int dt, int64_t i);
/* Stores the low bits of v (integer types: wraps like a C cast), bool: v != 0. */
void pz_store_bits(void *p, int dt, int64_t i, uint64_t v);

#endif
