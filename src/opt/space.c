/* space.c - the size of the knob space, Paleozoic Eq. 3 (= DLFusion Eq. 4):
 *
 *   Space(n) = sum_{i=1}^{n-1} cores^(i+1) * prod_{x=1}^{i} (n-x) / i!
 *
 * prod_{x=1}^{i} (n-x) / i! = C(n-1, i) counts the ways to cut n layers at i
 * of the n-1 gaps (i+1 blocks), and cores^(i+1) the MPs of those blocks.
 * The terms reach 1e75 and beyond, so each is formed as a log10 (lgamma for
 * the binomial) and they are added by log-sum-exp in long double. */
#include <stdio.h>

#include "opt_internal.h"

long double opt_space_log10(int n, int cores)
{
    if (n < 2 || cores < 1) return -INFINITY;
    long double lc = log10l((long double)cores), ln10 = logl(10.0L);
    long double max = -INFINITY;
    /* first pass: the largest term, so the sum of 10^(t - max) cannot overflow */
    for (int i = 1; i <= n - 1; i++) {
        long double binom = (lgammal((long double)n) - lgammal((long double)i + 1) -
                             lgammal((long double)(n - i))) / ln10;
        long double t = (long double)(i + 1) * lc + binom;
        if (t > max) max = t;
    }
    long double sum = 0;
    for (int i = 1; i <= n - 1; i++) {
        long double binom = (lgammal((long double)n) - lgammal((long double)i + 1) -
                             lgammal((long double)(n - i))) / ln10;
        long double t = (long double)(i + 1) * lc + binom;
        sum += powl(10.0L, t - max);
    }
    return max + log10l(sum);
}

void opt_space_format(long double lg, char *buf, size_t size)
{
    if (lg == -INFINITY) {
        snprintf(buf, size, "0");
        return;
    }
    long double e = floorl(lg);
    long double mant = powl(10.0L, lg - e);
    if (mant >= 9.995L) mant /= 10, e += 1;   /* 9.996e5 prints as 1.00e6 */
    snprintf(buf, size, "%.2Lfe%.0Lf", mant, e);
}
