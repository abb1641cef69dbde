/* cmd_zoo.c - `paleozoic zoo NAME -o FILE.onnx [--seed N]`: writes one of the
 * papers' networks with seeded random weights (see src/zoo/zoo.h). */
#include <errno.h>
#include <string.h>

#include "../zoo/zoo.h"
#include "cli.h"

int cmd_zoo(int argc, char **argv)
{
    const char *name = NULL, *out = NULL;
    uint64_t seed = ZOO_DEFAULT_SEED;
    char names[256];
    zoo_names_str(names, sizeof names);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int is_out = !strcmp(a, "-o") || !strcmp(a, "--output"), is_seed = !strcmp(a, "--seed");
        if (is_out || is_seed) {
            if (i + 1 >= argc) return cli_usage("zoo: %s needs a value", a);
            const char *v = argv[++i];
            if (is_out) {
                out = v;
                continue;
            }
            char *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 0);
            if (errno || *end || end == v || v[0] == '-')
                return cli_usage("zoo: --seed wants a non-negative integer (got \"%s\")", v);
            seed = x;
        } else if (a[0] == '-') {
            return cli_usage("zoo: unknown option %s", a);
        } else if (!name) {
            name = a;
        } else {
            return cli_usage("zoo: one network at a time (got \"%s\" and \"%s\")", name, a);
        }
    }
    if (!name || !out)
        return cli_usage("usage: paleozoic zoo NAME -o MODEL.onnx [--seed N]   (NAME: %s)", names);
    zoo_summary s;
    pz_err err = {0};
    if (zoo_write(name, out, seed, &s, &err)) return cli_fail(&err);
    printf("wrote %s to %s (%lld layers, %.2f M params, %.3f GMACs, %.1f MB)\n", name, out,
           (long long)s.nodes, (double)s.params / 1e6, (double)s.macs / 1e9,
           (double)s.file_bytes / 1e6);
    return 0;
}
