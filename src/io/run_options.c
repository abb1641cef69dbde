/* run_options.c - the runtime's run options (pz_run_options, pz_rt.h) from
 * the environment: the one place a program reads the PZ_* variables. The
 * CLI and the generated main.c call it once, before they compile a net. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pz_io.h"

/* A switch is off when its variable starts with '0' (PZ_HUGEPAGES: when it
 * is exactly "0"); unset or anything else keeps the default. */
static int switch_on(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && v[0] == '0' ? 0 : dflt;
}

int pz_io_run_options_env(pz_run_options *o)
{
    *o = (pz_run_options)PZ_RUN_OPTIONS_DEFAULT;
    const char *v = getenv("PZ_ISA");
    /* a "-novnni" suffix keeps the int8 kernels off vpdpbusd as well; an
     * unknown name is refused: a typo must not run the CPU's best ISA */
    if (v) {
        const size_t n = strlen(v), sfx = strlen("-novnni");
        o->novnni = n > sfx && !strcmp(v + n - sfx, "-novnni");
        const size_t b = o->novnni ? n - sfx : n;
        o->isa = b == 3 && !strncmp(v, "ref", b)      ? PZ_RUN_ISA_REF
               : b == 6 && !strncmp(v, "scalar", b) ? PZ_RUN_ISA_SCALAR
               : b == 4 && !strncmp(v, "avx2", b)   ? PZ_RUN_ISA_AVX2
               : b == 6 && !strncmp(v, "avx512", b) ? PZ_RUN_ISA_AVX512
                                                    : -1;
        if (o->isa < 0) {
            fprintf(stderr, "paleozoic: error: PZ_ISA=%s: not ref, scalar, avx2 or avx512 "
                            "(each may end in -novnni)\n", v);
            return -1;
        }
    }
    v = getenv("PZ_HUGEPAGES");
    if (v && !strcmp(v, "0")) o->hugepages = 0;
    v = getenv("PZ_SPIN_US");
    if (v) o->spin_us = atoll(v);
    o->pin = switch_on("PZ_PIN", o->pin);
    v = getenv("PZ_WINOGRAD");
    if (v && (v[0] == '0' || v[0] == '1') && !v[1]) o->winograd = v[0] - '0';
    else if (v && v[0]) {
        fprintf(stderr, "paleozoic: error: PZ_WINOGRAD=%s: not 0 or 1\n", v);
        return -1;
    }
    o->conv8x2 = switch_on("PZ_CONV8X2", o->conv8x2);
    o->subsample = switch_on("PZ_SUBSAMPLE", o->subsample);
    o->gather_conv = switch_on("PZ_GATHER_CONV", o->gather_conv);
    o->fuse_windows = switch_on("PZ_FUSE_WINDOWS", o->fuse_windows);
    o->fuse_cut = switch_on("PZ_FUSE_CUT", o->fuse_cut);
    return 0;
}

static const char *isa_name(int isa)
{
    static const char *const names[] = {"ref", "scalar", "avx2", "avx512"};
    return isa >= PZ_RUN_ISA_REF && isa <= PZ_RUN_ISA_AVX512 ? names[isa] : "(unset: the CPU's best)";
}

static const char *winograd_name(int w)
{
    return w == 0 ? "0 (direct everywhere)" : w == 1 ? "1 (wherever it applies)"
                                                     : "(unset: each layer's algo)";
}

int pz_io_run_options_format(const pz_run_options *o, const char *prefix, char *buf, size_t n)
{
    return snprintf(buf, n,
                    "%sPZ_ISA=%s%s\n%sPZ_HUGEPAGES=%d\n%sPZ_SPIN_US=%lld\n%sPZ_PIN=%d\n"
                    "%sPZ_WINOGRAD=%s\n%sPZ_CONV8X2=%d\n%sPZ_SUBSAMPLE=%d\n%sPZ_GATHER_CONV=%d\n"
                    "%sPZ_FUSE_WINDOWS=%d\n%sPZ_FUSE_CUT=%d\n",
                    prefix, isa_name(o->isa), o->novnni ? "-novnni" : "", prefix, o->hugepages, prefix, o->spin_us, prefix,
                    o->pin, prefix, winograd_name(o->winograd), prefix, o->conv8x2, prefix,
                    o->subsample, prefix, o->gather_conv, prefix, o->fuse_windows, prefix, o->fuse_cut);
}
