/* fuzz_schedule.c - libFuzzer target for schedule files (src/opt/schedule.h):
 * the JSON reader and the schema checks of sched_parse, then sched_apply
 * against a small fixed model (a partition with MPs, splits and strips that
 * must be checked against the model's 6 layers and 4 cores), then sched_free.
 *
 * Built by mk/fuzz.mk with clang -fsanitize=fuzzer,address,undefined; run by
 * `make fuzz` / `make fuzz-ci` (tests/fuzz/run_fuzz.sh). Seeds: valid and
 * broken schedules in tests/fuzz/seeds/schedule/.
 *
 * PZ_FUZZ_VERBOSE=1 prints each input's outcome (for triage and for checking
 * that the seeds reach sched_apply).
 *
 * A finding, beyond a sanitizer report, a crash or a leak: a failure reported
 * as PZ_ERR_INTERNAL or with an empty message; a parse that succeeds with
 * blocks that are not there (n_blocks > 0 and blocks NULL).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/model.h"
#include "ops/op_lower.h"
#include "front/onnx_load.h"
#include "opt/schedule.h"
#include "passes/passes.h"
#include "zoo/builder.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ir_graph *model_g;
static int verbose;   /* $PZ_FUZZ_VERBOSE: print each input's outcome (triage) */

static void die(const char *what, const pz_err *err)
{
    fprintf(stderr, "fuzz_schedule: FINDING: %s (code %d): \"%s\"\n", what, (int)err->code,
            err->msg);
    abort();
}

/* The model schedules are applied to: a small ResNet-like net written with
 * the zoo builder (input 3x16x16; conv-bn-relu, max pool, conv-bn-relu, a
 * residual add, global average pool, flatten, linear), through the real
 * front-end, passes and lowering. */
static void make_model(void)
{
    zoo_builder *b = zoo_builder_new("fuzz_sched_net", 7);
    int x = zoo_input(b, "input", 3, 16, 16);
    x = zoo_conv_bn_act(b, x, "conv1", "bn1", "relu1", 8, 3, 1, 1, 1, ZOO_ACT_RELU);
    x = zoo_maxpool(b, "pool1", x, 2, 2, 0);
    int y = zoo_conv_bn_act(b, x, "conv2", "bn2", "relu2", 8, 3, 1, 1, 1, ZOO_ACT_RELU);
    x = zoo_add(b, "add1", x, y);
    x = zoo_global_avgpool(b, "gap", x);
    x = zoo_flatten(b, "flat", x);
    x = zoo_linear(b, "fc", x, 10);
    zoo_output(b, x, "output");
    Onnx__ModelProto *mp = zoo_builder_finish(b);
    zoo_builder_free(b);
    size_t len = protobuf_c_message_get_packed_size(&mp->base);
    uint8_t *buf = malloc(len);
    protobuf_c_message_pack(&mp->base, buf);
    onnx__model_proto__free_unpacked(mp, NULL);
    pz_err err = {0};
    if (onnx_load_buffer(buf, len, NULL, NULL, &model_g, &err) || passes_run(model_g, NULL, &err))
        die("building the model to apply schedules to", &err);
    free(buf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    verbose = getenv("PZ_FUZZ_VERBOSE") != NULL;
    make_model();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The text is not NUL-terminated: the parser must respect len. A copy of
     * exactly size bytes lets ASan see any read past it. */
    char *text = malloc(size ? size : 1);
    if (size) memcpy(text, data, size);
    sched s;
    memset(&s, 0, sizeof s);
    pz_err err = {0};
    pz_status st = sched_parse(text, size, "fuzz.json", &s, &err);
    if (verbose) fprintf(stderr, "fuzz_schedule: parse: %s\n", st ? err.msg : "ok");
    if (st) {
        if (st == PZ_ERR_INTERNAL || !err.msg[0]) die("sched_parse", &err);
    } else {
        if (s.n_blocks < 0 || (s.n_blocks > 0 && !s.blocks)) die("sched_parse: bad blocks", &err);
        /* a fresh lowering per input: sched_apply changes the model */
        ir_model *m = ir_model_lower(model_g);
        pz_err e2 = {0};
        pz_status sa = sched_apply(&s, m, 4, &e2);
        if (verbose) fprintf(stderr, "fuzz_schedule: apply to %d layers: %s\n", m->n_layers, sa ? e2.msg : "ok");
        if (sa && (e2.code == PZ_ERR_INTERNAL || !e2.msg[0])) die("sched_apply", &e2);
        ir_model_free(m);
    }
    sched_free(&s);
    free(text);
    return 0;
}
