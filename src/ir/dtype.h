/* dtype.h - element types, numbered as onnx.TensorProto.DataType. */
#ifndef PZ_IR_DTYPE_H
#define PZ_IR_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "../rt/pz_dtypes.h"

/* IR_NAME = value for every type of the runtime's list (rt/pz_dtypes.h),
 * and the types only the IR names. Small types (ONNX 1.14 - 1.19, 17 to
 * 26): in memory they are held one element per byte: the 8-bit floats as
 * their codes, float4e2m1 as its 4-bit code in the low bits, int4/int2
 * sign-extended to a byte, uint4/uint2 as a byte. In files (TensorProto)
 * the 4- and 2-bit types are packed 2 and 4 per byte, low bits first; the
 * loader unpacks and the writer packs them. */
#define IR_DTYPE_ENUM(NAME, value, bytes, name) IR_##NAME = value,
typedef enum {
    IR_UNDEFINED = 0,
    IR_C64 = 14,
    IR_C128 = 15,
    PZ_DTYPES(IR_DTYPE_ENUM)
} ir_dtype;
#undef IR_DTYPE_ENUM

/* Bytes per element; 0 for types we do not hold (string, complex, unknown). */
size_t ir_dtype_size(int dt);
/* "float32", "int64", ...; "unknown-type" for others (a literal). */
const char *ir_dtype_name(int dt);
/* Non-zero for the element types Paleozoic supports. */
int ir_dtype_supported(int dt);
int ir_dtype_is_float(int dt);
int ir_dtype_is_int(int dt);  /* signed or unsigned integer, not bool */
/* The small types above (17 to 26): storage types that Cast, CastLike and the
 * data-movement ops handle; arithmetic ops refuse them. */
int ir_dtype_is_small(int dt);
/* Bits per element in a TensorProto: 4 or 2 for the packed types, else
 * 8 * ir_dtype_size. */
int ir_dtype_file_bits(int dt);

/* Reads element i of a packed buffer as double / int64 (any supported type). */
double ir_load_f64(const void *data, int dt, size_t i);
int64_t ir_load_i64(const void *data, int dt, size_t i);
/* Writes a double / int64 into element i, converting to dt. */
void ir_store_f64(void *data, int dt, size_t i, double v);
void ir_store_i64(void *data, int dt, size_t i, int64_t v);

float ir_f16_to_f32(uint16_t h);
uint16_t ir_f32_to_f16(float f);
float ir_bf16_to_f32(uint16_t b);
uint16_t ir_f32_to_bf16(float f);

#endif
