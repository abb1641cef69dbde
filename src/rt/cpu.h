/* cpu.h - which kernels a net runs: the CPU's instruction sets (pz_cpu_isa,
 * rt/kernels/kernels.h) under the cap of the run options.
 *
 *   pz_isa isa = pz_isa_capped(opts->isa);   // PZ_RUN_ISA_BEST: no cap
 */
#ifndef PZ_RT_CPU_H
#define PZ_RT_CPU_H

#include "rt/kernels/kernels.h"
#include "rt/pz_rt.h"

/* The best instruction set of this CPU (pz_cpu_isa), lowered to cap, a
 * pz_run_isa, where cap is lower. */
pz_isa pz_isa_capped(int cap);

#endif
