/* util.h - small helpers shared by the optimizer, the lab and the CLI:
 * a monotonic clock and medians. */
#ifndef PZ_UTIL_UTIL_H
#define PZ_UTIL_UTIL_H

double util_now_s(void);                 /* CLOCK_MONOTONIC, in seconds */
double util_median(double *v, int n);   /* sorts v; NAN when n <= 0 */

#endif
