/* pool.h - the runtime's thread pool (pool.c) and the barrier of one
 * fork-join. pz_pool_new, pz_pool_run and pz_pool_free are public
 * (pz_rt.h); a net starts its pool with the run options' spin and pinning:
 *
 *   pz_pool *p = pz_pool_start(4, opts->spin_us, opts->pin);
 *   pz_pool_run(p, 4, task, ctx);   // task(ctx, ith, 4) on workers 0..3
 *   pz_pool_free(p);
 */
#ifndef PZ_RT_POOL_H
#define PZ_RT_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "rt/pz_rt.h"

/* Alignment of the pool's and the barrier's shared words (a cache line). */
#define PZ_POOL_ALIGN 64

/* nthreads workers (the caller is worker 0). An idle worker spins spin_us
 * microseconds before it sleeps (no spinning with more workers than CPUs);
 * pin: workers pinned to CPUs. NULL when out of memory. */
pz_pool *pz_pool_start(int nthreads, long long spin_us, int pin);

/* Around a net's run: hold the caller on the CPU no worker is pinned to
 * (with pinning on, at most one worker a CPU, and that CPU in the caller's
 * mask), then give the caller its affinity mask back. Not nested. */
void pz_pool_hold(pz_pool *p);
void pz_pool_release(pz_pool *p);
/* The CPU the pool leaves to its caller (-1 without a pool). */
int pz_pool_home_cpu(const pz_pool *p);

/* A spinning barrier for the nth workers of one fork-join: every worker
 * calls pz_barrier_wait(b, nth); all return once all have arrived.
 * Reusable right away; zero-initialised is ready. */
typedef struct {
    _Alignas(PZ_POOL_ALIGN) _Atomic uint32_t count;
    _Atomic uint32_t gen;
} pz_barrier;
void pz_barrier_wait(pz_barrier *b, int nth);

#endif
