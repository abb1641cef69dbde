/* trace.c - the last profiled run of a net as a Chrome trace (the JSON that
 * chrome://tracing and Perfetto open): one "X" (complete) event per F-Block
 * on track 0 and one per layer on track 1, with their MP. The runtime keeps
 * durations, not start times, so events are laid end to end in run order:
 * a layer starts where the previous layer of its block ended. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pz_rt.h"

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

int pz_net_write_trace(const pz_net *net, const char *path, char *err, size_t errsize)
{
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    if (!tmp) return snprintf(err, errsize, "%s: out of memory", path), 1;
    snprintf(tmp, len, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errsize, "%s: %s", path, strerror(errno));
        free(tmp);
        return 1;
    }
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"run_us\": %.3f},\n\"traceEvents\": [\n",
            (double)pz_net_run_ns(net) / 1e3);
    fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"F-Blocks\"}},\n");
    fprintf(f, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": \"layers\"}}");
    double ts = 0;   /* microseconds */
    for (int b = 0; b < pz_net_n_blocks(net); b++) {
        int first = 0, count = 0, mp = 0;
        double dur = (double)pz_net_block_info(net, b, &first, &count, &mp) / 1e3;
        fprintf(f, ",\n{\"name\": \"block %d\", \"cat\": \"block\", \"ph\": \"X\", \"pid\": 1, "
                "\"tid\": 0, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"layers\": \"%d..%d\", "
                "\"mp\": %d}}", b, ts, dur, first, first + count - 1, mp);
        double lts = ts;
        for (int l = first; l < first + count; l++) {
            double ldur = (double)pz_net_layer_ns(net, l) / 1e3;
            fprintf(f, ",\n{\"name\": ");
            json_str(f, pz_net_layer_name(net, l));
            fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, "
                    "\"dur\": %.3f, \"args\": {\"layer\": %d, \"block\": %d, \"mp\": %d}}",
                    pz_op_name(pz_net_layer_kind(net, l)), lts, ldur, l, b, mp);
            lts += ldur;
        }
        ts += dur;
    }
    fprintf(f, "\n]}\n");
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return 1;
    }
    free(tmp);
    return 0;
}
