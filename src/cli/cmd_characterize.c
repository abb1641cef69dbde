/* cmd_characterize.c - placeholder: not implemented yet. */
#include "cli.h"

int cmd_characterize(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("characterize: not implemented yet");
}
