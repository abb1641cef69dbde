/* cmd_characterize.c - `paleozoic characterize [-o TARGET.json] [--quick]
 * [--default] [--cores N] [--allow-noisy]`: the micro-benchmark study of this
 * machine (characterize.h), the profile JSON and its SVG plots. Without -o
 * the profile goes to target.json in the current folder; --cache writes it
 * (no plots) where the default profile is cached, for the commands that
 * read that one. A study the
 * machine disturbed is measured again, then refused (exit 2, nothing
 * written) unless --allow-noisy.
 *
 * `paleozoic characterize --check [-o|--target FILE]`: whether the profile
 * (default: the cached default one) still describes this machine; exit 0
 * when it does, 2 when it does not (stale, another machine, none) or the
 * machine is too busy now to tell. */
#include <string.h>
#include <unistd.h>

#include "../lab/characterize.h"
#include "../lab/lab.h"
#include "cli.h"

int cmd_characterize(int argc, char **argv)
{
    const char *out = NULL;
    int level = 2, cores = 0, check = 0, allow_noisy = 0, cache = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-o") || !strcmp(a, "--target")) {
            if (i + 1 >= argc) return cli_usage("characterize: %s needs a value", a);
            out = argv[++i];
        } else if (!strcmp(a, "--check")) {
            check = 1;
        } else if (!strcmp(a, "--allow-noisy")) {
            allow_noisy = 1;
        } else if (!strcmp(a, "--cache")) {
            cache = 1;
        } else if (!strcmp(a, "--quick")) {
            level = 1;
        } else if (!strcmp(a, "--default")) {
            level = 0;   /* the ~10-second study behind the default profile */
        } else if (!strcmp(a, "--cores") || !strcmp(a, "--threads")) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 >= argc || *end || v < 1 || v > 4096)
                return cli_usage("characterize: %s wants a positive integer", a);
            cores = (int)v;
            i++;
        } else {
            return cli_usage("characterize: unknown argument %s (usage: paleozoic characterize "
                             "[-o TARGET.json | --cache] [--quick|--default] [--cores N] [--allow-noisy] | "
                             "characterize --check "
                             "[--target FILE])", a);
        }
    }
    if (cache && (out || check))
        return cli_usage("characterize: --cache writes the cached default profile: not with %s",
                         check ? "--check" : "-o");
    if (check) {
        if (level != 2 || cores || allow_noisy)
            return cli_usage("characterize --check takes only --target FILE (or -o FILE)");
        char def[4096], why[512];
        if (!out) {
            lab_default_profile_path(def, sizeof def);
            if (access(def, F_OK)) {
                printf("no profile cached in %s: the next command that needs one measures this machine\n", def);
                return 2;
            }
            out = def;
        }
        pz_err e = {0};
        int r = lab_profile_check(out, why, sizeof why, &e);
        if (r < 0) return cli_fail(&e);
        if (r == 1) printf("stale: %s does not describe this machine: %s\n", out, why);
        else if (r == 2) printf("unsure: %s: %s; check again when it is idle\n", out, why);
        else printf("ok: %s describes this machine\n", out);
        return r ? 2 : 0;
    }
    char def[4096];
    if (cache) lab_default_profile_path(def, sizeof def), out = def;
    if (!out) out = "target.json";
    if (!cores) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cores = ncpu > 0 ? (int)ncpu : 1;
    }
    static const char *WHAT[] = {"default", "quick", "full"};
    fprintf(stderr, "characterize: %s study on %d cores (time limit %.0f s)\n", WHAT[level], cores,
            lab_study_seconds(level, cores));
    pz_err err = {0};
    pz_machine mc;
    if (lab_characterize(level, cores, out, !cache, 0, allow_noisy, &mc, &err)) return cli_fail(&err);
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s", out);
    size_t n = strlen(prefix);
    if (n > 5 && !strcmp(prefix + n - 5, ".json")) prefix[n - 5] = 0;
    if (cache) printf("wrote %s\n", out);
    else printf("wrote %s and %s.gflops.svg, %s.mp.svg, %s.fusion.svg\n", out, prefix, prefix, prefix);
    printf("OpCount_critical %.4g FLOP; MP model log2 MP = %.3f log2 C + %.3f log2 ops + %.3f; "
           "peak %.1f GFLOP/s per core\n", mc.opcount_critical, mc.mp_alpha, mc.mp_beta, mc.mp_gamma,
           mc.peak_gflops);
    return 0;
}
