/* cmd_compile.c - placeholder: not implemented yet. */
#include "cli.h"

int cmd_compile(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("compile: not implemented yet");
}

int cmd_build(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_usage("build: not implemented yet");
}
