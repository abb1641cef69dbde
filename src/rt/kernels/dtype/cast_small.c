/* cast_small.c - the small float types: codes <-> double.
 *
 *   float8e4m3fn    S.EEEE.MMM, bias 7,  max 448,   no inf, NaN = S.1111.111
 *   float8e4m3fnuz  S.EEEE.MMM, bias 8,  max 240,   no inf, no -0, NaN = 0x80
 *   float8e5m2      S.EEEEE.MM, bias 15, max 57344, IEEE inf and NaN
 *   float8e5m2fnuz  S.EEEEE.MM, bias 16, max 57344, no inf, no -0, NaN = 0x80
 *   float4e2m1      S.EE.M,     bias 1,  max 6,     no inf, no NaN
 *   float8e8m0      EEEEEEEE: 2^(E - 127), no sign, no zero, NaN = 0xFF
 *
 * Rounding into them (ONNX Cast, opsets 19-25, and the ONNX backend test
 * data): round to nearest even. With saturate (the default) an out-of-range
 * value or an infinity becomes the largest finite value of its sign; without
 * it, float8e4m3fn gives NaN, float8e5m2 inf, the fnuz types their NaN.
 * float4e2m1 always saturates; NaN becomes 0x8 (the ONNX spec's table says 6,
 * the test data and ml_dtypes give -0: we follow the data). float8e8m0 keeps
 * a float32's exponent and rounds its mantissa up, down or to nearest as
 * round_mode says (the ONNX reference's rule), 0 becoming 2^-127. */
#include <math.h>

#include "rt/kernels/kernels.h"

typedef enum { K_FN, K_FNUZ, K_IEEE, K_NONE } nan_kind;

typedef struct {
    int ebits, mbits, bias;
    double max;
    nan_kind kind;
} small_fmt;

static const small_fmt *fmt_of(int dt)
{
    static const small_fmt e4m3fn = {4, 3, 7, 448.0, K_FN};
    static const small_fmt e4m3fnuz = {4, 3, 8, 240.0, K_FNUZ};
    static const small_fmt e5m2 = {5, 2, 15, 57344.0, K_IEEE};
    static const small_fmt e5m2fnuz = {5, 2, 16, 57344.0, K_FNUZ};
    static const small_fmt e2m1 = {2, 1, 1, 6.0, K_NONE};
    switch (dt) {
    case PZ_F8E4M3FN: return &e4m3fn;
    case PZ_F8E4M3FNUZ: return &e4m3fnuz;
    case PZ_F8E5M2: return &e5m2;
    case PZ_F8E5M2FNUZ: return &e5m2fnuz;
    case PZ_F4E2M1: return &e2m1;
    default: return NULL;
    }
}

bool pz_dtype_is_small_float(int dt)
{
    return fmt_of(dt) != NULL || dt == PZ_F8E8M0;
}

bool pz_dtype_is_small_int(int dt)
{
    return dt == PZ_U4 || dt == PZ_I4 || dt == PZ_U2 || dt == PZ_I2;
}

double pz_small_to_f64(int dt, unsigned code)
{
    if (dt == PZ_F8E8M0) return code == 0xFF ? NAN : ldexp(1.0, (int)code - 127);
    const small_fmt *f = fmt_of(dt);
    if (!f) return 0;
    int width = 1 + f->ebits + f->mbits;
    code &= (1u << width) - 1;
    int sign = (code >> (width - 1)) & 1;
    unsigned e = (code >> f->mbits) & ((1u << f->ebits) - 1), m = code & ((1u << f->mbits) - 1);
    unsigned emax = (1u << f->ebits) - 1, mmax = (1u << f->mbits) - 1;
    if (f->kind == K_FNUZ && code == 1u << (width - 1)) return NAN;
    if (f->kind == K_FN && e == emax && m == mmax) return sign ? -NAN : NAN;
    if (f->kind == K_IEEE && e == emax) return m ? (sign ? -NAN : NAN) : (sign ? -INFINITY : INFINITY);
    double v = e ? ldexp(1.0 + ldexp((double)m, -f->mbits), (int)e - f->bias)
                 : ldexp((double)m, 1 - f->bias - f->mbits);
    return sign ? -v : v;
}

/* float8e8m0: the exponent of (float)v, its mantissa rounded by `round`. */
static unsigned e8m0_from(double v, int nosat, pz_round_mode round)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    unsigned e = (bits >> 23) & 0xFF;
    if (e == 0xFF) return 0xFF;   /* inf, NaN */
    int up = 0;
    if (round == PZ_ROUND_UP) {
        up = (bits & 0x7FFFFF) != 0;
    } else if (round == PZ_ROUND_NEAREST) {
        int guard = (bits & 0x400000) != 0, rnd = (bits & 0x200000) != 0;
        int sticky = (bits & 0x1FFFFF) != 0, lsb = e > 0;
        up = guard && (rnd || sticky || lsb);
    }
    if (up && e == 0xFE && !nosat) up = 0;   /* saturate at 2^127 */
    return e + (unsigned)up;                  /* 0xFE + 1 = 0xFF: NaN */
}

unsigned pz_f64_to_small(int dt, double v, int nosat, pz_round_mode round)
{
    if (dt == PZ_F8E8M0) return e8m0_from(v, nosat, round);
    const small_fmt *f = fmt_of(dt);
    if (!f) return 0;
    int width = 1 + f->ebits + f->mbits;
    unsigned sign = signbit(v) ? 1u << (width - 1) : 0;
    unsigned emax = (1u << f->ebits) - 1, mmax = (1u << f->mbits) - 1;
    unsigned nan_code = f->kind == K_FNUZ ? 1u << (width - 1)
                      : f->kind == K_FN ? sign | (emax << f->mbits) | mmax
                      : f->kind == K_IEEE ? sign | (emax << f->mbits) | (1u << (f->mbits - 1))
                      : 1u << (width - 1);   /* float4e2m1: -0, as the test data has it */
    unsigned over_code = f->kind == K_IEEE ? sign | (emax << f->mbits) : nan_code;
    int saturate = !nosat || f->kind == K_NONE;
    if (isnan(v)) return nan_code;
    double a = fabs(v);
    int emin = 1 - f->bias;
    if (!isinf(a)) {
        /* the spacing of the format around a: 2^(exponent - mbits), the
         * exponent clamped below at emin (subnormals); a / q is exact */
        int ex = 0;
        if (a > 0) frexp(a, &ex);
        int e = ex - 1 < emin ? emin : ex - 1;
        double q = ldexp(1.0, e - f->mbits);
        a = nearbyint(a / q) * q;   /* round to nearest even (default mode) */
    }
    if (a > f->max) {
        if (!saturate) return over_code;
        a = f->max;
    }
    if (a == 0) return f->kind == K_FNUZ ? 0 : sign;   /* fnuz has no -0 */
    int ex;
    frexp(a, &ex);
    int e = ex - 1;
    unsigned ebits, mbits;
    if (e < emin) {
        ebits = 0;
        mbits = (unsigned)ldexp(a, f->mbits - emin);
    } else {
        ebits = (unsigned)(e + f->bias);
        mbits = (unsigned)(ldexp(a, -e) * (1 << f->mbits)) - (1u << f->mbits);
    }
    return sign | (ebits << f->mbits) | mbits;
}
