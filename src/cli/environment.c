/* environment.c - see environment.h. */
#include "environment.h"

#include <stdlib.h>

/* The variable's value, or NULL when unset or empty. */
static const char *variable(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void cli_read_environment(gt_options *opts, gt_sources *sources)
{
    const char *v;
    if ((v = variable("GPU_TRACKER_NVML_LIBRARY")))
        opts->nvml_library = v;
    if ((v = variable("GPU_TRACKER_RSMI_LIBRARY")))
        opts->rsmi_library = v;
    if ((v = variable("GPU_TRACKER_PROC_ROOT")))
        sources->proc_root = v;
    if ((v = variable("GPU_TRACKER_SYS_ROOT")))
        sources->sys_root = v;
    if ((v = variable("GPU_TRACKER_METADATA_URL")))
        sources->metadata_url = v;
}

const char *cli_keeper_url(void)
{
    return variable("GPU_TRACKER_KEEPER_URL");
}
