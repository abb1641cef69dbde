/* concat_ref.c - reference Concat and Split along one axis, any type. */
#include "rt/kernels/kernels.h"

/* Row r of the whole is the parts' row r chunks one after another. */
void pz_any_concat__ref(int n, int64_t outer, const size_t *chunk, size_t row,
                        const pz_tensor *const *parts, void *y, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(outer, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        char *dst = (char *)y + (size_t)r * row;
        for (int i = 0; i < n; i++) {
            if (chunk[i]) memcpy(dst, (const char *)parts[i]->data + (size_t)r * chunk[i], chunk[i]);
            dst += chunk[i];
        }
    }
}

void pz_any_split__ref(int n, int64_t outer, const size_t *chunk, size_t row, const void *x,
                       const pz_tensor *const *parts, int ith, int nth)
{
    int64_t lo, hi;
    pz_split(outer, ith, nth, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        const char *src = (const char *)x + (size_t)r * row;
        for (int i = 0; i < n; i++) {
            if (chunk[i]) memcpy((char *)parts[i]->data + (size_t)r * chunk[i], src, chunk[i]);
            src += chunk[i];
        }
    }
}
