/* cmd_zoo.c - STUB until src/zoo lands. */
#include "cli.h"

int cmd_zoo(int argc, char **argv)
{
    return cli_usage("zoo: not implemented yet");
}
