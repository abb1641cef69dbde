/* strategy_bad.c - a plug-in that answers with an illegal schedule (its
 * blocks miss the last layer), for the tests: Paleozoic must refuse it with
 * a clear message, exit code 2, and no crash. ARGS "fail" makes it report a
 * failure of its own instead. */
#include <stdio.h>
#include <string.h>

#include "pz_strategy.h"

const int pz_strategy_abi = PZ_STRATEGY_ABI;

int pz_strategy(const pz_strategy_input *in, pz_strategy_output *out);

int pz_strategy(const pz_strategy_input *in, pz_strategy_output *out)
{
    if (in->args && !strcmp(in->args, "fail")) {
        snprintf(out->message, sizeof out->message, "this strategy always fails");
        return 1;
    }
    out->n_blocks = 1;
    out->sizes[0] = in->n_layers > 1 ? in->n_layers - 1 : 1;
    out->mps[0] = 1;
    return 0;
}
