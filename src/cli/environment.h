/* environment.h - the environment variables the gpu-tracker command reads
 * (docs/cli.md, "Environment"; docs/untrusted-input.md, "The environment,
 * as root"). The library reads none: they reach it as options from here,
 * in one place. */
#ifndef GT_CLI_ENVIRONMENT_H
#define GT_CLI_ENVIRONMENT_H

#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

/* Whether we run with more rights than our caller may have: as root
 * (sudo -E keeps the caller's environment) or set-user-ID. */
int cli_privileged(void);

/* When privileged: removes from our own environment what libcurl and
 * OpenSSL would read to choose a file, code or a route (OPENSSL_CONF,
 * SSLKEYLOGFILE, the CA files, the proxies) and a TMPDIR that is not a
 * directory only root can change (path_dir_trusted), keeping the whole
 * environment for the command we run (cli_job_environment). Call first,
 * before any thread. */
void cli_protect_environment(void);

/* The environment the tracked command gets: the one we came with. */
char **cli_job_environment(void);

/* The variables' checks, before anything uses them: a URL variable
 * (GPU_TRACKER_METADATA_URL, GPU_TRACKER_KEEPER_URL) must be http:// or
 * https://, a tree variable (GPU_TRACKER_PROC_ROOT, GPU_TRACKER_SYS_ROOT)
 * an absolute path; when privileged, a library variable must name a library of
 * root's (path_library_trusted) and a tree variable a tree only root can
 * change (path_tree_trusted). 0, or -1 with the one-line reason in err. */
int cli_check_environment(char *err, size_t errcap);

/* Sets from the environment what it names (an empty variable counts as
 * unset) into opts: GPU_TRACKER_NVML_LIBRARY, GPU_TRACKER_RSMI_LIBRARY,
 * GPU_TRACKER_PROC_ROOT, GPU_TRACKER_SYS_ROOT, GPU_TRACKER_METADATA_URL.
 * The strings are the environment's. */
void cli_read_environment(gt_options *opts);

/* GPU_TRACKER_KEEPER_URL, or NULL (the Keeper API's own address). */
const char *cli_keeper_url(void);

#endif
