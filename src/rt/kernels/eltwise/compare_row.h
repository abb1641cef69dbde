/* compare_row.h - the segment function of a vector COMPARE kernel
 * (compare_avx512.c, compare_avx2.c), included after the file's seg32
 * (float32, int32: is_int) and seg64: those where each operand is
 * contiguous along the segment or one value along it, the plain-C twin's
 * row for other strides, the logic functions and bool. */
#ifndef PZ_RT_KERNELS_ELTWISE_COMPARE_ROW_H
#define PZ_RT_KERNELS_ELTWISE_COMPARE_ROW_H

#define CALL_F32(F) seg32(F, false, a, sa, b, sb, y, n)
#define CALL_I32(F) seg32(F, true, a, sa, b, sb, y, n)
#define CALL_I64(F) seg64(F, a, sa, b, sb, y, n)

/* One segment of the walk (pz_num_compare_walk), f decided outside its loop. */
static void row(pz_compare_func f, int dt, const void *a, int64_t sa, const void *b, int64_t sb,
                uint8_t *y, int64_t n)
{
    if ((sa | sb) > 1 || f > PZ_CMP_GE || dt == PZ_BOOL) {   /* strides, bool: the plain row */
        pz_num_compare_row__fast(f, dt, a, sa, b, sb, y, n);
        return;
    }
    if (dt == PZ_F32) PZ_CMP_SWITCH(f, CALL_F32)
    else if (dt == PZ_I32) PZ_CMP_SWITCH(f, CALL_I32)
    else PZ_CMP_SWITCH(f, CALL_I64)
}

#undef CALL_F32
#undef CALL_I32
#undef CALL_I64
#endif
