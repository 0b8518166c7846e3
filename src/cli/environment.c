/* environment.c - see environment.h. */
#define _GNU_SOURCE
#include "environment.h"
#include "common/toolkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

/* The variable's value, or NULL when unset or empty. */
static const char *variable(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int cli_privileged(void)
{
    return geteuid() == 0 || getauxval(AT_SECURE) != 0;
}

/* What libcurl and OpenSSL would take from our environment to choose a
 * file, code or a route: read at their first use (OPENSSL_CONF can load an
 * engine; SSLKEYLOGFILE is appended to; the CA files decide whom a push
 * trusts; a proxy sees every request). */
static const char *const network_variables[] = {
    "OPENSSL_CONF", "OPENSSL_CONF_INCLUDE", "OPENSSL_ENGINES", "OPENSSL_MODULES",
    "SSLKEYLOGFILE", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
    "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
    "no_proxy", "NO_PROXY", "ftp_proxy", "FTP_PROXY", NULL,
};

static char **job_environment;

void cli_protect_environment(void)
{
    if (job_environment || !cli_privileged())
        return;
    /* The command gets the environment as it came: only ours loses them.
     * unsetenv() leaves the strings where they are (the process's own
     * memory, or the caller's setenv()), so a copy of the array keeps them. */
    size_t n = 0;
    while (environ && environ[n])
        n++;
    job_environment = calloc(n + 1, sizeof *job_environment);
    if (!job_environment)
        return;
    memcpy(job_environment, environ, n * sizeof *environ);
    for (size_t i = 0; network_variables[i]; i++)
        unsetenv(network_variables[i]);
    /* The library's spill file of rows goes to TMPDIR: as root only to a
     * directory no one else can change (a user's could be a FUSE mount
     * that holds the writes); else /var/tmp. */
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp && path_dir_trusted(tmp, "TMPDIR") != GT_OK)
        unsetenv("TMPDIR");
}

char **cli_job_environment(void)
{
    return job_environment ? job_environment : environ;
}

/* A URL a request may go to: http:// or https://, nothing else (file://
 * would read a file of root's for its caller, and libcurl knows many
 * more). */
static int web_url(const char *url)
{
    return strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0;
}

int cli_check_environment(char *err, size_t errcap)
{
    static const char *const urls[] = {"GPU_TRACKER_METADATA_URL", "GPU_TRACKER_KEEPER_URL"};
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        const char *v = variable(urls[i]);
        if (v && !web_url(v)) {
            char *safe = text_escape(v);
            snprintf(err, errcap, "%s='%s' is not an http:// or https:// URL (the only kinds "
                     "gpu-tracker requests); unset it or give one", urls[i], safe ? safe : "?");
            free(safe);
            return -1;
        }
    }
    static const char *const trees[] = {"GPU_TRACKER_PROC_ROOT", "GPU_TRACKER_SYS_ROOT"};
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++) {
        const char *v = variable(trees[i]);
        if (v && v[0] != '/') {
            char *safe = text_escape(v);
            snprintf(err, errcap, "%s='%s' is not an absolute path; unset it or give the "
                     "directory where the tree is mounted", trees[i], safe ? safe : "?");
            free(safe);
            return -1;
        }
    }
    if (!cli_privileged())
        return 0;
    static const char *const libraries[] = {"GPU_TRACKER_NVML_LIBRARY", "GPU_TRACKER_RSMI_LIBRARY"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = variable(libraries[i]);
        if (v && path_library_trusted(v, libraries[i]) != GT_OK) {
            snprintf(err, errcap, "%s; unset it to load the system's", gt_last_error());
            return -1;
        }
        v = variable(trees[i]);
        if (v && path_tree_trusted(v, trees[i]) != GT_OK) {
            snprintf(err, errcap, "%s; unset it to read the kernel's", gt_last_error());
            return -1;
        }
    }
    return 0;
}

void cli_read_environment(gt_options *opts)
{
    const char *v;
    if ((v = variable("GPU_TRACKER_NVML_LIBRARY")))
        opts->nvml_library = v;
    if ((v = variable("GPU_TRACKER_RSMI_LIBRARY")))
        opts->rsmi_library = v;
    if ((v = variable("GPU_TRACKER_PROC_ROOT")))
        opts->proc_root = v;
    if ((v = variable("GPU_TRACKER_SYS_ROOT")))
        opts->sys_root = v;
    if ((v = variable("GPU_TRACKER_METADATA_URL")))
        opts->metadata_url = v;
}

const char *cli_keeper_url(void)
{
    return variable("GPU_TRACKER_KEEPER_URL");
}
