/* manycore.h - the probes that calibrate the many-core model
 * (src/opt/simulate.h) on this machine: what one core and two cores of it
 * measure, which the model then extrapolates to N cores.
 *
 *   sync    a fork-join of the runtime's thread pool (pz_pool_run, an empty
 *           task) at 1 and 2 workers: what every block pays to start its
 *           workers and wait for the last (the spin barrier of pool.c);
 *   copy    memcpy bandwidth of one core over working sets sized for L2,
 *           for L3 and for DRAM (read + write bytes per second);
 *   caches  the L2 and L3 sizes the C library reports (sysconf).
 *
 *   lab_manycore c;
 *   lab_manycore_probe(&c);   // about a second
 *   lab_manycore_load(&c, path, sizeof path);   // cached, else probed and cached
 *
 * Timings are the best of several batches: the probes run on a shared
 * machine, and the least time is the one another process disturbed least. */
#ifndef PZ_LAB_MANYCORE_H
#define PZ_LAB_MANYCORE_H

#include <stddef.h>

typedef struct {
    int host_cores;            /* online CPUs of this machine */
    double sync_us[3];         /* [w]: one fork-join at w workers (w = 1, 2), microseconds */
    double bw_l2, bw_l3, bw_dram;   /* GB/s, one core copying (read + write) */
    double l2_bytes, l3_bytes; /* per core / shared, as reported (defaults when not) */
    char noisy[256];           /* lab_manycore_load: what disturbed the probes, "" if quiet */
} lab_manycore;

/* Fills c. Never fails: a probe that cannot run (out of memory, one CPU)
 * leaves a conservative default and says so in c (sync_us[2] of 0 when
 * there is no second CPU). */
void lab_manycore_probe(lab_manycore *c);

/* The probes from the cache file next to the default profile
 * ($XDG_CACHE_HOME/paleozoic/manycore-v1-<N>cpu.json), or, when there is
 * none or it does not parse, probed now and cached (a cache that cannot be
 * written is left out, silently: the figures are still used). The probes
 * are checked for load as a profile's study is (quality.h) and measured
 * again when disturbed; figures still disturbed are used but not cached.
 * The file's path goes to path[size]. Returns 1 when read from the cache,
 * 0 when probed now and cached, -1 when probed on a busy machine and not
 * cached (c->noisy says why). Delete the file to probe again. */
int lab_manycore_load(lab_manycore *c, char *path, size_t size);

#endif
