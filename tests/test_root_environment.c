/* test_root_environment.c - the command as root (sudo -E keeps its
 * caller's environment) trusts nothing of that environment that chooses
 * code or files: a library variable naming a library another user owns or
 * may write is refused before it is loaded (its constructor never runs),
 * one of root's is loaded; a tree variable naming a tree with a FIFO, or
 * one another user may change, is refused at once (never waited on), the
 * kernel's /proc and a tree of root's are read; a URL variable that is not
 * http or https is refused, and no request follows a redirect to another
 * protocol; OpenSSL's and libcurl's own variables (OPENSSL_CONF here, a
 * FIFO that would hold libcurl's start) are not read by gpu-tracker, and
 * the command it runs still gets them. The root parts say so and are left
 * out without root. */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "fixture.h"
#include "gpu_tracker_internal.h"
#include "gpu_tracker_tools.h"
#include "httpd.h"
#include "runner.h"
#include "common/toolkit.h"

#define NOBODY 65534

/* gpu-tracker ARGS... with name=value in its environment (value NULL:
 * unset), then the environment as it was. */
static struct result gt_with(const char *name, const char *value, const char *first, ...)
{
    char *was = getenv(name) ? strdup(getenv(name)) : NULL;
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    char *argv[64];
    va_list ap;
    va_start(ap, first);
    gt_argv(argv, first, ap);
    va_end(ap);
    struct result r = run_argv(argv);
    if (was)
        setenv(name, was, 1);
    else
        unsetenv(name);
    free(was);
    return r;
}

static void test_urls(void)
{
    struct result r = gt_with("GPU_TRACKER_KEEPER_URL", "file:///etc/passwd", "recommend",
                              "--server", "run.json.gz", NULL);
    CHECK_MSG(r.status == 2, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.err.data, "gpu-tracker: GPU_TRACKER_KEEPER_URL='file:///etc/passwd' is not an "
                          "http:// or https:// URL (the only kinds gpu-tracker requests); unset "
                          "it or give one\n");
    result_free(&r);
    r = gt_with("GPU_TRACKER_METADATA_URL", "gopher://127.0.0.1/", "--", "true", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "GPU_TRACKER_METADATA_URL='gopher://127.0.0.1/' "
                                               "is not an http:// or https:// URL"));
    result_free(&r);
    r = gt_with("GPU_TRACKER_PROC_ROOT", "fixtures/proc", "--", "true", NULL);
    CHECK_MSG(r.status == 2, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.err.data, "gpu-tracker: GPU_TRACKER_PROC_ROOT='fixtures/proc' is not an absolute "
                          "path; unset it or give the directory where the tree is mounted\n");
    result_free(&r);
}

/* A Keeper that answers every request with a redirect to a file. */
static int redirect_to_file(const char *method, const char *path, const char *headers,
                            int *status, char *body, size_t bodycap)
{
    (void)method;
    (void)path;
    (void)headers;
    *status = 302;
    snprintf(body, bodycap, "file:///etc/hostname");
    return 0;
}

static void test_redirect(void)
{
    struct httpd h;
    httpd_start(&h, redirect_to_file);
    gt_recommendation rec = {0};
    rec.cpu = 2;
    rec.memory_mib = 4096;
    char *server = NULL;
    gt_status st = gt_recommend_server(&rec, h.base, &server);
    CHECK(st != GT_OK && server == NULL);
    CHECK_MSG(strstr(gt_last_error(), "file") && !strstr(gt_last_error(), "HTTP 0") &&
                  !strstr(gt_last_error(), "HTTP 200"),
              "a redirect to file:// is not followed: %s", gt_last_error());
    free(server);
    httpd_stop(&h);
}

static void test_libraries(const char *dir)
{
    char lib[4200], marker[4200];
    snprintf(lib, sizeof lib, "%s/libmarker.so", dir);
    snprintf(marker, sizeof marker, "%s/loaded", dir);
    fx_copy(WORKLOAD_DIR "/libconstructor-marker.so", lib);
    chmod(lib, 0755);
    setenv("GT_TEST_MARKER", marker, 1);

    /* another user's library: refused before it is loaded */
    CHECK(chown(lib, NOBODY, NOBODY) == 0);
    struct result r = gt_with("GPU_TRACKER_NVML_LIBRARY", lib, "--", "true", NULL);
    char want[8400];
    snprintf(want, sizeof want, "gpu-tracker: GPU_TRACKER_NVML_LIBRARY '%s' is owned by user "
             "65534: as root, only a library of root's is loaded; unset it to load the "
             "system's\n", lib);
    CHECK_MSG(r.status == 2, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.err.data, want);
    CHECK_MSG(access(marker, F_OK) != 0, "the library of nobody's was loaded as root");
    result_free(&r);
    r = gt_with("GPU_TRACKER_RSMI_LIBRARY", lib, "system", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "GPU_TRACKER_RSMI_LIBRARY '") &&
          strstr(r.err.data, "is owned by user 65534"));
    CHECK(access(marker, F_OK) != 0);
    result_free(&r);

    /* root's, but writable by its group: refused */
    CHECK(chown(lib, 0, 0) == 0 && chmod(lib, 0775) == 0);
    r = gt_with("GPU_TRACKER_NVML_LIBRARY", lib, "system", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "is writable by others than its owner"));
    CHECK(access(marker, F_OK) != 0);
    result_free(&r);

    /* a name the loader would search for: refused */
    r = gt_with("GPU_TRACKER_NVML_LIBRARY", "libmarker.so", "system", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "as root, a library is named by its absolute path"));
    result_free(&r);

    /* root's in a directory others may write: refused */
    char open_dir[4200], open_lib[4300];
    snprintf(open_dir, sizeof open_dir, "%s/open", dir);
    CHECK(mkdir(open_dir, 0777) == 0 && chmod(open_dir, 0777) == 0);
    snprintf(open_lib, sizeof open_lib, "%s/libmarker.so", open_dir);
    fx_copy(lib, open_lib);
    chmod(open_lib, 0755);
    r = gt_with("GPU_TRACKER_NVML_LIBRARY", open_lib, "system", NULL);
    CHECK_MSG(r.status == 2 && strstr(r.err.data, "is writable by others than its owner"), "%s",
              r.err.data);
    CHECK(access(marker, F_OK) != 0);
    result_free(&r);

    /* root's, 0755: loaded (its constructor ran), though it is no NVML */
    CHECK(chmod(lib, 0755) == 0);
    r = gt_with("GPU_TRACKER_NVML_LIBRARY", lib, "--", "true", NULL);
    CHECK_MSG(r.status == 0, "a library of root's: %d %s", r.status, r.err.data);
    CHECK_MSG(access(marker, F_OK) == 0, "the library of root's was not loaded");
    result_free(&r);
    unsetenv("GT_TEST_MARKER");
}

static void test_trees(const char *dir)
{
    /* a FIFO where a sysfs file goes: refused at once, not opened */
    char tree[3000];
    snprintf(tree, sizeof tree, "%.2900s/sys", dir);
    CHECK(mkdir(tree, 0755) == 0);
    char path[4400];
    const char *dirs[] = {"class", "class/drm", "class/drm/card0", "class/drm/card0/device"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, dirs[i]);
        CHECK(mkdir(path, 0755) == 0);
    }
    snprintf(path, sizeof path, "%s/class/drm/card0/device/uevent", tree);
    CHECK(mkfifo(path, 0644) == 0);
    struct result r = gt_with("GPU_TRACKER_SYS_ROOT", tree, "--", "true", NULL);
    CHECK_MSG(r.status == 2 && strstr(r.err.data, "GPU_TRACKER_SYS_ROOT '") &&
                  strstr(r.err.data, "'class/drm/card0/device/uevent' is not a regular file (a "
                                     "FIFO, device or socket): as root, only a tree that no one "
                                     "but root can change is read; unset it to read the "
                                     "kernel's"),
              "%s", r.err.data);
    result_free(&r);
    unlink(path);
    fx_write(tree, "class/drm/card0/device/uevent", "DRIVER=none\n");

    /* a directory in it that another user owns: refused */
    snprintf(path, sizeof path, "%s/class/drm/card0", tree);
    CHECK(chown(path, NOBODY, NOBODY) == 0);
    r = gt_with("GPU_TRACKER_SYS_ROOT", tree, "system", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "'class/drm/card0' is a directory of another "
                                              "user's"));
    result_free(&r);
    CHECK(chown(path, 0, 0) == 0);

    /* a link that leads out of it: refused */
    snprintf(path, sizeof path, "%s/class/drm/card1", tree);
    CHECK(symlink("../../../../etc", path) == 0);
    r = gt_with("GPU_TRACKER_SYS_ROOT", tree, "system", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "'class/drm/card1' is a link that leads out of "
                                              "the tree"));
    result_free(&r);
    unlink(path);
    CHECK(symlink("card0", path) == 0); /* one inside it is fine */

    /* the tree itself sticky and writable by all (as /tmp): anyone could
     * add a name to it after the check, so refused */
    CHECK(chmod(tree, 01777) == 0);
    r = gt_with("GPU_TRACKER_SYS_ROOT", tree, "--", "true", NULL);
    CHECK_MSG(r.status == 2 && strstr(r.err.data, "is a directory others may write (a sticky one "
                                                  "too)"), "%s", r.err.data);
    result_free(&r);
    CHECK(chmod(tree, 0755) == 0);

    /* root's tree of regular files, and the kernel's /proc: read */
    r = gt_with("GPU_TRACKER_SYS_ROOT", tree, "--", "true", NULL);
    CHECK_MSG(r.status == 0, "a tree of root's: %d %s", r.status, r.err.data);
    result_free(&r);
    r = gt_with("GPU_TRACKER_PROC_ROOT", "/proc", "--", "true", NULL);
    CHECK_MSG(r.status == 0, "the kernel's /proc: %d %s", r.status, r.err.data);
    result_free(&r);
}

/* OPENSSL_CONF naming a FIFO would hold libcurl's start (OpenSSL reads
 * its config then): as root, gpu-tracker leaves it and its kind out of its
 * own environment, and the command still gets them. */
static void test_network_variables(const char *dir)
{
    char fifo[4200], url[64];
    snprintf(fifo, sizeof fifo, "%s/openssl.cnf", dir);
    CHECK(mkfifo(fifo, 0644) == 0);
    snprintf(url, sizeof url, "--metrics-push=http://127.0.0.1:%d", httpd_closed_port());
    char script[13000];
    /* and a TMPDIR of another user's: not where root spills rows (the rule
     * cli_protect_environment applies), still the command's */
    char user_tmp[4200];
    snprintf(user_tmp, sizeof user_tmp, "%s/user-tmp", dir);
    CHECK(mkdir(user_tmp, 0700) == 0 && chown(user_tmp, NOBODY, NOBODY) == 0);
    CHECK(path_dir_trusted(user_tmp, "TMPDIR") != GT_OK);
    CHECK_CONTAINS(gt_last_error(), "is owned by user 65534, neither you nor root");
    CHECK(path_dir_trusted("/tmp", "TMPDIR") == GT_OK);
    snprintf(script, sizeof script, "test \"$OPENSSL_CONF\" = '%s' && test \"$https_proxy\" = "
             "http://127.0.0.1:9 && test \"$TMPDIR\" = '%s'", fifo, user_tmp);
    setenv("https_proxy", "http://127.0.0.1:9", 1);
    setenv("TMPDIR", user_tmp, 1);
    struct result r = gt_with("OPENSSL_CONF", fifo, "-q", url, "--", "sh", "-c", script, NULL);
    unsetenv("https_proxy");
    unsetenv("TMPDIR");
    CHECK_MSG(r.status == 0, "the command's environment, and ours: %d %s", r.status, r.err.data);
    CHECK_MSG(strstr(r.err.data, "cannot push metrics") != NULL, "the push was tried: %s",
              r.err.data);
    result_free(&r);
}

int main(void)
{
    test_urls();
    if (geteuid() != 0) {
        printf("test_root_environment: the checks of a run as root need root: left out\n");
        return check_exit("test_root_environment");
    }
    test_redirect();
    char *dir = fx_mkroot();
    CHECK(chmod(dir, 0755) == 0);
    test_libraries(dir);
    test_trees(dir);
    test_network_variables(dir);
    fx_rmroot(dir);
    return check_exit("test_root_environment");
}
