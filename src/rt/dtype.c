/* dtype.c - the element types' sizes and names (pz_rt.h), from the list
 * PZ_DTYPES (pz_dtypes.h). */
#include "rt/pz_rt.h"

#define SIZE_CASE(NAME, value, bytes, name) \
    case PZ_##NAME:                          \
        return bytes;
#define NAME_CASE(NAME, value, bytes, name) \
    case PZ_##NAME:                          \
        return name;

size_t pz_dtype_size(int dt)
{
    switch (dt) {
        PZ_DTYPES(SIZE_CASE)
    default:
        return 0;
    }
}

const char *pz_dtype_name(int dt)
{
    switch (dt) {
        PZ_DTYPES(NAME_CASE)
    default:
        return "unsupported type";
    }
}
