/* cmd_space.c - placeholder: not implemented yet. */
#include "cli.h"

int cmd_space(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("space: not implemented yet");
}
