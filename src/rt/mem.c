/* mem.c - the runtime's big buffers: packed weights and the arena.
 *
 * A buffer of 2 MiB or more is aligned to 2 MiB and marked MADV_HUGEPAGE, so
 * that the kernel backs it with transparent huge pages where the system
 * allows them only on request (Debian's default: "madvise"). Streaming
 * through the 150 MB of an FC layer's weights then takes one TLB entry per
 * 2 MiB instead of per 4 KiB. Smaller buffers are 64-byte aligned. Free with
 * free(). The run options' hugepages = 0 (PZ_HUGEPAGES=0) turns the advice
 * off (to measure what it gives). */
#include <stdlib.h>
#include <sys/mman.h>

#include "rt/mem.h"

#define PZ_HUGE ((size_t)2 << 20)

void *pz_alloc_big(size_t bytes, int huge)
{
    if (bytes == 0) bytes = 64;
    size_t align = bytes >= PZ_HUGE ? PZ_HUGE : 64;
    size_t size = (bytes + align - 1) / align * align;
    void *p = aligned_alloc(align, size);
#ifdef MADV_HUGEPAGE
    if (p && align == PZ_HUGE && huge)
        madvise(p, size, MADV_HUGEPAGE);   /* advice only: a failure changes nothing */
#endif
    return p;
}
