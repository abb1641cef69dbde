/* cmd_tune.c - placeholder: not implemented yet. */
#include "cli.h"

int cmd_tune(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("tune: not implemented yet");
}
