/* convert.c - element types: half floats, loads and stores through double,
 * integer bits. Used by the generic (`any`) kernels and by Cast. */
#include <math.h>

#include "rt/kernels/kernels.h"

bool pz_dtype_is_float(int dt)
{
    return dt == PZ_F32 || dt == PZ_F64 || dt == PZ_F16 || dt == PZ_BF16;
}

bool pz_dtype_is_int(int dt)
{
    switch (dt) {
    case PZ_U8: case PZ_I8: case PZ_U16: case PZ_I16: case PZ_I32: case PZ_I64:
    case PZ_U32: case PZ_U64:
        return true;
    default:
        return false;
    }
}

bool pz_dtype_is_signed(int dt)
{
    return dt == PZ_I8 || dt == PZ_I16 || dt == PZ_I32 || dt == PZ_I64;
}

float pz_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);          /* inf, nan */
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);   /* rebias 15 -> 127 */
    } else {
        f = (float)man * 0x1p-24f;                         /* zero, subnormal: man * 2^-24 */
        return sign ? -f : f;
    }
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t pz_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return sign | 0x7e00;            /* nan (quiet) */
    if (ax >= 0x477ff000u) return sign | 0x7c00;           /* >= 65520 rounds to inf */
    if (ax >= 0x38800000u) {                               /* normal half: |f| >= 2^-14 */
        uint32_t r = ax - 0x38000000u;                     /* rebias 127 -> 15 */
        r += 0xfff + ((r >> 13) & 1);                      /* round to nearest even */
        return sign | (uint16_t)(r >> 13);
    }
    /* subnormal half: |f| / 2^-24 rounded to nearest even (may reach 0x400) */
    float v = fabsf(f) * 0x1p24f;
    return sign | (uint16_t)nearbyintf(v);
}

float pz_bf16_to_f32(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t pz_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);   /* quiet nan */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

double pz_load_f64(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case PZ_F32: return ((const float *)p)[i];
    case PZ_F64: return ((const double *)p)[i];
    case PZ_F16: return pz_f16_to_f32(((const uint16_t *)p)[i]);
    case PZ_BF16: return pz_bf16_to_f32(((const uint16_t *)p)[i]);
    case PZ_U8: return ((const uint8_t *)p)[i];
    case PZ_I8: return ((const int8_t *)p)[i];
    case PZ_U16: return ((const uint16_t *)p)[i];
    case PZ_I16: return ((const int16_t *)p)[i];
    case PZ_I32: return ((const int32_t *)p)[i];
    case PZ_I64: return (double)((const int64_t *)p)[i];
    case PZ_U32: return ((const uint32_t *)p)[i];
    case PZ_U64: return (double)((const uint64_t *)p)[i];
    case PZ_BOOL: return ((const uint8_t *)p)[i] != 0;
    case PZ_I4: case PZ_I2: return ((const int8_t *)p)[i];     /* held sign-extended */
    case PZ_U4: case PZ_U2: return ((const uint8_t *)p)[i];
    default:
        if (pz_dtype_is_small_float(dt)) return pz_small_to_f64(dt, ((const uint8_t *)p)[i]);
        return 0;
    }
}

/* Truncates toward zero and saturates to [lo, hi]; NaN gives 0. (double)hi
 * may round up (INT64_MAX -> 2^63): v below it truncates into range. */
static int64_t sat_i64(double v, int64_t lo, int64_t hi)
{
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

static uint64_t sat_u64(double v, uint64_t hi)
{
    if (v != v || v <= 0) return 0;
    if (v >= (double)hi) return hi;
    return (uint64_t)v;
}

/* double -> float rounded to odd: the float keeps a sticky bit, so that a
 * second rounding to half or bfloat16 rounds as if done once from double. */
static float f64_to_f32_odd(double v)
{
    float f = (float)v;
    if (v != v || (double)f == v) return f;
    if (fabs((double)f) > fabs(v)) f = nextafterf(f, 0.0f);   /* truncate toward zero */
    uint32_t bits;
    memcpy(&bits, &f, 4);
    bits |= 1;
    memcpy(&f, &bits, 4);
    return f;
}

void pz_store_f64(void *p, int dt, int64_t i, double v)
{
    switch (dt) {
    case PZ_F32: ((float *)p)[i] = (float)v; break;
    case PZ_F64: ((double *)p)[i] = v; break;
    case PZ_F16: ((uint16_t *)p)[i] = pz_f32_to_f16(f64_to_f32_odd(v)); break;
    case PZ_BF16: ((uint16_t *)p)[i] = pz_f32_to_bf16(f64_to_f32_odd(v)); break;
    case PZ_U8: ((uint8_t *)p)[i] = (uint8_t)sat_u64(v, UINT8_MAX); break;
    case PZ_I8: ((int8_t *)p)[i] = (int8_t)sat_i64(v, INT8_MIN, INT8_MAX); break;
    case PZ_U16: ((uint16_t *)p)[i] = (uint16_t)sat_u64(v, UINT16_MAX); break;
    case PZ_I16: ((int16_t *)p)[i] = (int16_t)sat_i64(v, INT16_MIN, INT16_MAX); break;
    case PZ_I32: ((int32_t *)p)[i] = (int32_t)sat_i64(v, INT32_MIN, INT32_MAX); break;
    case PZ_I64: ((int64_t *)p)[i] = sat_i64(v, INT64_MIN, INT64_MAX); break;
    case PZ_U32: ((uint32_t *)p)[i] = (uint32_t)sat_u64(v, UINT32_MAX); break;
    case PZ_U64: ((uint64_t *)p)[i] = sat_u64(v, UINT64_MAX); break;
    case PZ_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case PZ_I4: case PZ_I2: case PZ_U4: case PZ_U2:
        /* like numpy/ml_dtypes: to an integer, then the low bits (wraps) */
        pz_store_bits(p, dt, i, (uint64_t)sat_i64(v, INT64_MIN, INT64_MAX));
        break;
    default:
        if (pz_dtype_is_small_float(dt))   /* Cast's defaults: saturate, round up */
            ((uint8_t *)p)[i] = (uint8_t)pz_f64_to_small(dt, v, 0, PZ_ROUND_UP);
        break;
    }
}

uint64_t pz_load_bits(const void *p, int dt, int64_t i)
{
    switch (dt) {
    case PZ_U8: return ((const uint8_t *)p)[i];
    case PZ_I8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case PZ_U16: return ((const uint16_t *)p)[i];
    case PZ_I16: return (uint64_t)(int64_t)((const int16_t *)p)[i];
    case PZ_I32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
    case PZ_I64: return (uint64_t)((const int64_t *)p)[i];
    case PZ_U32: return ((const uint32_t *)p)[i];
    case PZ_U64: return ((const uint64_t *)p)[i];
    case PZ_BOOL: return ((const uint8_t *)p)[i] != 0;
    case PZ_I4: case PZ_I2: return (uint64_t)(int64_t)((const int8_t *)p)[i];
    case PZ_U4: case PZ_U2: return ((const uint8_t *)p)[i];
    default: return 0;
    }
}

void pz_store_bits(void *p, int dt, int64_t i, uint64_t v)
{
    switch (dt) {
    case PZ_U8: case PZ_I8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case PZ_U16: case PZ_I16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case PZ_U32: case PZ_I32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case PZ_U64: case PZ_I64: ((uint64_t *)p)[i] = v; break;
    case PZ_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    /* the small integers: the low 4 or 2 bits, signed ones sign-extended */
    case PZ_U4: ((uint8_t *)p)[i] = (uint8_t)(v & 0xF); break;
    case PZ_U2: ((uint8_t *)p)[i] = (uint8_t)(v & 0x3); break;
    case PZ_I4: ((int8_t *)p)[i] = (int8_t)((int)(v & 0xF) - ((v & 0x8) ? 16 : 0)); break;
    case PZ_I2: ((int8_t *)p)[i] = (int8_t)((int)(v & 0x3) - ((v & 0x2) ? 4 : 0)); break;
    default: break;
    }
}
