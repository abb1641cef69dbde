/* strategy_greedy.c - an example optimizer strategy as a plug-in
 * (src/opt/pz_strategy.h).
 *
 * The idea: a layer is worth spreading over all cores when it has enough
 * work for each of them; a fusion block should end once it holds enough
 * work. So, walking the layers in order:
 *   - a conv/FC layer wants all cores when ops / cores >= OpCount_critical
 *     (from the machine profile), else one core;
 *   - a block is closed when the next conv/FC layer wants another MP than
 *     the block's, or when the block already holds at least `target` ops
 *     (target = OpCount_critical * cores, or the number given as ARGS);
 *   - layers without an op count (activations, pooling, adds) join the
 *     block they follow.
 *
 * Build and use (mk/examples.mk does the first line):
 *   cc -std=c11 -O2 -shared -fPIC -Isrc/opt examples/strategy_greedy.c -o build/examples/strategy_greedy.so
 *   paleozoic run models/resnet18.onnx --threads 2 --strategy plugin:build/examples/strategy_greedy.so
 *   paleozoic run models/resnet18.onnx --threads 2 --strategy plugin:build/examples/strategy_greedy.so:2e8
 */
#include <stdio.h>
#include <stdlib.h>

#include "pz_strategy.h"

const int pz_strategy_abi = PZ_STRATEGY_ABI;

int pz_strategy(const pz_strategy_input *in, pz_strategy_output *out);

int pz_strategy(const pz_strategy_input *in, pz_strategy_output *out)
{
    const pz_machine *mc = &in->machine;
    double target = mc->opcount_critical * mc->cores;
    if (in->args && in->args[0]) {
        char *end;
        target = strtod(in->args, &end);
        if (*end || !(target > 0)) {
            snprintf(out->message, sizeof out->message,
                     "the argument must be a positive op count (got \"%s\")", in->args);
            return 1;
        }
    }
    int nb = 0;            /* blocks closed so far */
    int size = 0, mp = 0;  /* the open block: layers in it, its MP (0: none chosen yet) */
    double ops = 0;        /* ops in the open block */
    for (int i = 0; i < in->n_layers; i++) {
        const pz_layer_features *l = &in->layers[i];
        int want = 0;
        if (l->is_conv_fc) want = l->ops / mc->cores >= mc->opcount_critical ? mc->cores : 1;
        /* close the open block before a layer that wants another MP, or
         * once the block holds enough work */
        if (size > 0 && ((want && mp && want != mp) || ops >= target)) {
            out->sizes[nb] = size;
            out->mps[nb] = mp ? mp : 1;
            nb++;
            size = 0, mp = 0, ops = 0;
        }
        size++;
        ops += l->ops;
        if (want && !mp) mp = want;
    }
    if (size > 0) {
        out->sizes[nb] = size;
        out->mps[nb] = mp ? mp : 1;
        nb++;
    }
    out->n_blocks = nb;
    return 0;
}
