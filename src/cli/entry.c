/* entry.c - main() of the gpu-tracker program (the command is main.c's). */
#include "cli_main.h"

int main(int argc, char **argv)
{
    return gt_cli_main(argc, argv);
}
