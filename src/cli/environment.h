/* environment.h - the environment variables the gpu-tracker command reads
 * (docs/cli.md, "Environment"). The library reads none: they reach it as
 * options and testing sources from here, in one place. */
#ifndef GT_CLI_ENVIRONMENT_H
#define GT_CLI_ENVIRONMENT_H

#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

/* Sets from the environment what it names (an empty variable counts as
 * unset): GPU_TRACKER_NVML_LIBRARY, GPU_TRACKER_RSMI_LIBRARY (opts);
 * GPU_TRACKER_PROC_ROOT, GPU_TRACKER_SYS_ROOT, GPU_TRACKER_METADATA_URL
 * (sources). The strings are the environment's. */
void cli_read_environment(gt_options *opts, gt_sources *sources);

/* GPU_TRACKER_KEEPER_URL, or NULL (the Keeper API's own address). */
const char *cli_keeper_url(void);

#endif
