/* pz_dtypes.h - the element types the runtime knows, one line each:
 *   X(NAME, value, bytes, "name")
 * value is onnx.TensorProto.DataType's number; bytes what one element takes
 * in memory (the small types, 17 to 26, one per byte: see pz_rt.h). pz_rt.h
 * makes the pz_dtype enum (PZ_NAME = value) from it, rt/dtype.c the sizes
 * and names: a new type is one line here. A string element is a pointer to
 * a NUL-terminated UTF-8 string (NULL reads as ""), owned elsewhere: the
 * tensor's own block for inputs and constants, a layer's string store for
 * what a layer makes (rt/pz_strings.h).
 */
#ifndef PZ_DTYPES_H
#define PZ_DTYPES_H

#define PZ_DTYPES(X)                                  \
    X(F32, 1, 4, "float32")                           \
    X(U8, 2, 1, "uint8")                              \
    X(I8, 3, 1, "int8")                               \
    X(U16, 4, 2, "uint16")                            \
    X(I16, 5, 2, "int16")                             \
    X(I32, 6, 4, "int32")                             \
    X(I64, 7, 8, "int64")                             \
    X(STRING, 8, 8, "string")                         \
    X(BOOL, 9, 1, "bool")                             \
    X(F16, 10, 2, "float16")                          \
    X(F64, 11, 8, "float64")                          \
    X(U32, 12, 4, "uint32")                           \
    X(U64, 13, 8, "uint64")                           \
    X(BF16, 16, 2, "bfloat16")                        \
    X(F8E4M3FN, 17, 1, "float8e4m3fn")                \
    X(F8E4M3FNUZ, 18, 1, "float8e4m3fnuz")            \
    X(F8E5M2, 19, 1, "float8e5m2")                    \
    X(F8E5M2FNUZ, 20, 1, "float8e5m2fnuz")            \
    X(U4, 21, 1, "uint4")                             \
    X(I4, 22, 1, "int4")                              \
    X(F4E2M1, 23, 1, "float4e2m1")                    \
    X(F8E8M0, 24, 1, "float8e8m0")                    \
    X(U2, 25, 1, "uint2")                             \
    X(I2, 26, 1, "int2")

#endif
