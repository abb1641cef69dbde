/* dtype.c - element types: sizes, names, and conversions used by constant folding. */
#include "dtype.h"

#include "../rt/elem.h"
#include "../rt/pz_rt.h"

#include <string.h>

/* Sizes and names are the runtime's (one list, rt/pz_dtypes.h), so the
 * compiler and the runtime cannot disagree; the types only the IR names
 * (string, complex) are added here. */
size_t ir_dtype_size(int dt)
{
    return pz_dtype_size(dt);   /* 0 for string, complex, unknown: not held */
}

const char *ir_dtype_name(int dt)
{
    switch (dt) {
    case IR_STRING: return "string";
    case IR_C64: return "complex64";
    case IR_C128: return "complex128";
    default: return pz_dtype_size(dt) ? pz_dtype_name(dt) : "unknown-type";
    }
}

int ir_dtype_supported(int dt)
{
    switch (dt) {
    case IR_F32: case IR_F16: case IR_BF16: case IR_F64:
    case IR_I8: case IR_I16: case IR_I32: case IR_I64:
    case IR_U8: case IR_U16: case IR_U32: case IR_U64: case IR_BOOL:
        return 1;
    default:
        return ir_dtype_is_small(dt);
    }
}

int ir_dtype_is_small(int dt)
{
    return dt >= IR_F8E4M3FN && dt <= IR_I2;
}

int ir_dtype_file_bits(int dt)
{
    switch (dt) {
    case IR_U4: case IR_I4: case IR_F4E2M1: return 4;
    case IR_U2: case IR_I2: return 2;
    default: return 8 * (int)ir_dtype_size(dt);
    }
}

int ir_dtype_is_float(int dt)
{
    return dt == IR_F32 || dt == IR_F16 || dt == IR_BF16 || dt == IR_F64;
}

int ir_dtype_is_int(int dt)
{
    switch (dt) {
    case IR_I8: case IR_I16: case IR_I32: case IR_I64:
    case IR_U8: case IR_U16: case IR_U32: case IR_U64:
        return 1;
    default:
        return 0;
    }
}

/* The half-precision conversions are the runtime's (one implementation,
 * tested against numpy there): the compiler folds exactly as kernels cast. */
float ir_f16_to_f32(uint16_t h) { return pz_f16_to_f32(h); }
uint16_t ir_f32_to_f16(float f) { return pz_f32_to_f16(f); }
float ir_bf16_to_f32(uint16_t b) { return pz_bf16_to_f32(b); }
uint16_t ir_f32_to_bf16(float f) { return pz_f32_to_bf16(f); }

#define LOAD(T) { T v; memcpy(&v, (const char *)data + i * sizeof(T), sizeof(T)); return v; }

double ir_load_f64(const void *data, int dt, size_t i)
{
    switch (dt) {
    case IR_F32: LOAD(float)
    case IR_F64: LOAD(double)
    case IR_F16: { uint16_t h; memcpy(&h, (const char *)data + 2 * i, 2); return ir_f16_to_f32(h); }
    case IR_BF16: { uint16_t h; memcpy(&h, (const char *)data + 2 * i, 2); return ir_bf16_to_f32(h); }
    case IR_U64: LOAD(uint64_t)
    default:
        if (ir_dtype_is_small(dt)) return pz_load_f64(data, dt, (int64_t)i);
        return (double)ir_load_i64(data, dt, i);
    }
}

int64_t ir_load_i64(const void *data, int dt, size_t i)
{
    switch (dt) {
    case IR_I8: LOAD(int8_t)
    case IR_U8: LOAD(uint8_t)
    case IR_BOOL: { uint8_t v; memcpy(&v, (const char *)data + i, 1); return v != 0; }
    case IR_I16: LOAD(int16_t)
    case IR_U16: LOAD(uint16_t)
    case IR_I32: LOAD(int32_t)
    case IR_U32: LOAD(uint32_t)
    case IR_I64: LOAD(int64_t)
    case IR_U64: LOAD(uint64_t)
    case IR_I4: case IR_I2: LOAD(int8_t)
    case IR_U4: case IR_U2: LOAD(uint8_t)
    default: {
        double d = ir_load_f64(data, dt, i);
        if (d != d) return 0;
        if (d >= 9.2e18) return INT64_MAX;
        if (d <= -9.2e18) return INT64_MIN;
        return (int64_t)d;
    }
    }
}
#undef LOAD

#define STORE(T, x) { T v = (T)(x); memcpy((char *)data + i * sizeof(T), &v, sizeof(T)); return; }

void ir_store_f64(void *data, int dt, size_t i, double x)
{
    switch (dt) {
    case IR_F32: STORE(float, x)
    case IR_F64: STORE(double, x)
    case IR_F16: { uint16_t h = ir_f32_to_f16((float)x); memcpy((char *)data + 2 * i, &h, 2); return; }
    case IR_BF16: { uint16_t h = ir_f32_to_bf16((float)x); memcpy((char *)data + 2 * i, &h, 2); return; }
    case IR_BOOL: STORE(uint8_t, x != 0)
    case IR_F8E4M3FN: case IR_F8E4M3FNUZ: case IR_F8E5M2: case IR_F8E5M2FNUZ: case IR_F8E8M0:
    case IR_F4E2M1:
        pz_store_f64(data, dt, (int64_t)i, x);   /* Cast's defaults: saturate, round up */
        return;
    default: {
        int64_t v;
        if (x != x) v = 0;
        else if (x >= 9.2e18) v = INT64_MAX;
        else if (x <= -9.2e18) v = INT64_MIN;
        else v = (int64_t)x;
        ir_store_i64(data, dt, i, v);
        return;
    }
    }
}

void ir_store_i64(void *data, int dt, size_t i, int64_t x)
{
    switch (dt) {
    case IR_I8: STORE(int8_t, x)
    case IR_U8: STORE(uint8_t, x)
    case IR_BOOL: STORE(uint8_t, x != 0)
    case IR_I16: STORE(int16_t, x)
    case IR_U16: STORE(uint16_t, x)
    case IR_I32: STORE(int32_t, x)
    case IR_U32: STORE(uint32_t, x)
    case IR_I64: STORE(int64_t, x)
    case IR_U64: STORE(uint64_t, x)
    case IR_I4: case IR_I2: case IR_U4: case IR_U2:
        pz_store_bits(data, dt, (int64_t)i, (uint64_t)x);   /* wraps, like numpy */
        return;
    default: ir_store_f64(data, dt, i, (double)x); return;
    }
}
#undef STORE
