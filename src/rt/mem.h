/* mem.h - the runtime's big buffers (mem.c): the arena and packed weights.
 *
 *   void *w = pz_alloc_big(bytes, l->opts->hugepages);
 *   ...
 *   free(w);
 */
#ifndef PZ_RT_MEM_H
#define PZ_RT_MEM_H

#include <stddef.h>

/* A buffer for packed weights or the arena: 64-byte aligned; from 2 MiB on,
 * 2 MiB-aligned and, when huge is non-zero, advised to use huge pages. NULL
 * when out of memory; free with free(). */
void *pz_alloc_big(size_t bytes, int huge);

#endif
