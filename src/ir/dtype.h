/* dtype.h - element types, numbered as onnx.TensorProto.DataType. */
#ifndef PZ_IR_DTYPE_H
#define PZ_IR_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    IR_UNDEFINED = 0,
    IR_F32 = 1,
    IR_U8 = 2,
    IR_I8 = 3,
    IR_U16 = 4,
    IR_I16 = 5,
    IR_I32 = 6,
    IR_I64 = 7,
    IR_STRING = 8,
    IR_BOOL = 9,
    IR_F16 = 10,
    IR_F64 = 11,
    IR_U32 = 12,
    IR_U64 = 13,
    IR_C64 = 14,
    IR_C128 = 15,
    IR_BF16 = 16,
    /* Small types (ONNX 1.14 - 1.19). In memory they are held one element per
     * byte: the 8-bit floats as their codes, float4e2m1 as its 4-bit code in
     * the low bits, int4/int2 sign-extended to a byte, uint4/uint2 as a byte.
     * In files (TensorProto) the 4- and 2-bit types are packed 2 and 4 per
     * byte, low bits first; the loader unpacks and the writer packs them. */
    IR_F8E4M3FN = 17,
    IR_F8E4M3FNUZ = 18,
    IR_F8E5M2 = 19,
    IR_F8E5M2FNUZ = 20,
    IR_U4 = 21,
    IR_I4 = 22,
    IR_F4E2M1 = 23,
    IR_F8E8M0 = 24,
    IR_U2 = 25,
    IR_I2 = 26,
} ir_dtype;

/* Bytes per element; 0 for types we do not hold (string, complex, unknown). */
size_t ir_dtype_size(int dt);
/* "float32", "int64", ...; "type<N>" for others (static buffer-free: returns a literal or "?"). */
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
