/* cmd_bench.c - placeholder: not implemented yet. */
#include "cli.h"

int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("bench: not implemented yet");
}
