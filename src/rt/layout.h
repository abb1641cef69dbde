/* layout.h - sizes and conversions of a net's tensor layouts (layout.c; the
 * layouts are described in net.h): plain NCHW (cblk 0) and the channel
 * blocked NCHWxc (cblk 1..16).
 *
 *   size_t b = pz_layout_bytes(t, 16);                      // NCHW16c bytes
 *   pz_layout_convert(isa, t->dtype, t->dims, 0, 16, x, y, ith, nth); // plain -> 16c
 */
#ifndef PZ_RT_LAYOUT_H
#define PZ_RT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "rt/kernels/kernels.h"
#include "rt/pz_rt.h"

/* Bytes of tensor t in layout cblk (0: plain). */
size_t pz_layout_bytes(const pz_tensor *t, int cblk);
/* Converts a rank-4 tensor of type dtype with dims xd from layout `from` to
 * `to` (one of them 0, plain), worker ith of nth's share, with the kernels
 * of isa. float32 takes any block; the 1-byte types (int8 layers' uint8 and
 * int8 activations) block 16 only, the layout of the int8 conv kernels. */
void pz_layout_convert(pz_isa isa, int dtype, const int64_t *xd, int from, int to, const void *x,
                       void *y, int ith, int nth);

#endif
