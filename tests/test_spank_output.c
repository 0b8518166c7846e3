/* test_spank_output.c - where the SPANK plugin leaves a task's snapshot
 * (src/spank/task_output.c), run as root beside other users' jobs: the
 * template's fields, the site's directory root's (0711), the user's
 * directories theirs (0700), no link followed, no directory of a third
 * user used, and the file opened by a child with the user's identity
 * (owner theirs, mode 0600; no link, no FIFO) for the caller to write. The parts that need root say so and are left
 * out without it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "../src/spank/task_output.h"

#define NOBODY 65534

static void test_expand(void)
{
    struct task_names n = {"alice", "4242", "0", "3", "node07"};
    char out[256], why[512], step[16];
    size_t fixed = 0;
    CHECK(task_output_expand("/var/spool/gt/%u/%j/%s-%t.json.gz", &n, out, sizeof out, &fixed,
                             why, sizeof why) == 0);
    CHECK_STR(out, "/var/spool/gt/alice/4242/0-3.json.gz");
    CHECK(fixed == strlen("/var/spool/gt/"));
    CHECK(task_output_expand("/x/%n-100%%.json", &n, out, sizeof out, &fixed, why, sizeof why) == 0);
    CHECK_STR(out, "/x/node07-100%.json");
    CHECK(fixed == strlen("/x/"));
    CHECK(task_output_expand("/x/fixed.json", &n, out, sizeof out, &fixed, why, sizeof why) == 0 &&
          fixed == strlen(out));
    /* the special steps by name */
    CHECK_STR(task_step_name(0xfffffffbUL, step, sizeof step), "batch");
    CHECK_STR(task_step_name(0xfffffffcUL, step, sizeof step), "extern");
    CHECK_STR(task_step_name(7, step, sizeof step), "7");
    /* errors: relative, unknown field, a value that would leave its place */
    CHECK(task_output_expand("spool/%j", &n, out, sizeof out, &fixed, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "not an absolute path");
    CHECK(task_output_expand("/x/%q", &n, out, sizeof out, &fixed, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "unknown field '%q' (valid: %u %j %s %t %n %%)");
    struct task_names bad = {"../etc", "4242", "0", "3", "node07"};
    CHECK(task_output_expand("/x/%u/f", &bad, out, sizeof out, &fixed, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "no usable value for %u");
    bad.user = "..";
    CHECK(task_output_expand("/x/%u/f", &bad, out, sizeof out, &fixed, why, sizeof why) < 0);
    CHECK(task_output_expand("/x/%j/%j/%j", &n, out, 8, &fixed, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "expands to more than 7 bytes");
}

static void test_directories_and_owner(void)
{
    if (geteuid() != 0) {
        printf("test_spank_output: the directory and owner checks need root: left out\n");
        return;
    }
    char *root = fx_mkroot();
    chmod(root, 0755);
    char site[4200], path[4300], why[1024];
    snprintf(site, sizeof site, "%s/spool", root);
    struct task_names n = {"nobody", "4242", "0", "1", "node07"};
    char tmpl[4300];
    snprintf(tmpl, sizeof tmpl, "%s/%%u/%%j/%%s-%%t.json.gz", site);
    size_t fixed = 0;
    CHECK(task_output_expand(tmpl, &n, path, sizeof path, &fixed, why, sizeof why) == 0);
    /* slurmstepd's umask does not change the modes the directories get */
    mode_t umask_was = umask(077);
    CHECK_MSG(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) == 0, "%s", why);
    umask(umask_was);
    struct stat st;
    CHECK(stat(site, &st) == 0 && st.st_uid == 0 && (st.st_mode & 07777) == 0711);
    char user_dir[4300], job_dir[4400];
    snprintf(user_dir, sizeof user_dir, "%s/nobody", site);
    snprintf(job_dir, sizeof job_dir, "%s/4242", user_dir);
    CHECK(stat(user_dir, &st) == 0 && st.st_uid == NOBODY && (st.st_mode & 07777) == 0700);
    CHECK(stat(job_dir, &st) == 0 && st.st_uid == NOBODY && (st.st_mode & 07777) == 0700);
    /* again: the directories are there and theirs */
    CHECK(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) == 0);

    /* The file, opened by a child as nobody and written here: theirs, 0600
     * (umask 077), the bytes ours. */
    int fd = -1;
    CHECK_MSG(task_output_open_as(NOBODY, NOBODY, path, &fd, why, sizeof why) == 0, "%s", why);
    CHECK(fd >= 0 && write(fd, "snapshot", 8) == 8);
    if (fd >= 0)
        close(fd);
    CHECK(stat(path, &st) == 0 && st.st_uid == NOBODY && st.st_gid == NOBODY &&
          (st.st_mode & 07777) == 0600 && st.st_size == 8);
    /* again (a requeued job): the same file, emptied */
    CHECK(task_output_open_as(NOBODY, NOBODY, path, &fd, why, sizeof why) == 0);
    if (fd >= 0)
        close(fd);
    CHECK(stat(path, &st) == 0 && st.st_size == 0);
    /* nobody cannot write where only root may; the reason comes back */
    char roots[4300];
    snprintf(roots, sizeof roots, "%s/rootfile", root);
    CHECK(task_output_open_as(NOBODY, NOBODY, roots, &fd, why, sizeof why) < 0 && fd == -1);
    CHECK_CONTAINS(why, "Permission denied");
    /* a link or a FIFO put at the file's name by the user: not followed,
     * not waited on */
    char planted[4500];
    snprintf(planted, sizeof planted, "%s/planted.json.gz", job_dir);
    CHECK(symlink("/etc/passwd", planted) == 0);
    CHECK(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) < 0);
    unlink(planted);
    CHECK(mkfifo(planted, 0600) == 0);
    CHECK(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) < 0);
    unlink(planted);

    /* A link planted where a user's directory goes is never followed. */
    char elsewhere[4300], link[4400];
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", root);
    mkdir(elsewhere, 0755);
    snprintf(link, sizeof link, "%s/4243", user_dir);
    CHECK(symlink(elsewhere, link) == 0);
    n.job = "4243";
    CHECK(task_output_expand(tmpl, &n, path, sizeof path, &fixed, why, sizeof why) == 0);
    CHECK(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "cannot open or make the directory");
    CHECK(stat(elsewhere, &st) == 0 && st.st_uid == 0); /* not given away */

    /* A directory of a third user where the job user's goes: not used. */
    n.job = "4244";
    char third[4400];
    snprintf(third, sizeof third, "%s/4244", user_dir);
    CHECK(mkdir(third, 0700) == 0 && chown(third, 4321, 4321) == 0);
    CHECK(task_output_expand(tmpl, &n, path, sizeof path, &fixed, why, sizeof why) == 0);
    CHECK(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "belongs to uid 4321, neither the job's user (65534) nor root");

    /* The site's part made by another user (a spool under /tmp, made
     * first by someone else): nothing is made or given away beneath it. */
    char foreign[4300], tmpl2[4400];
    snprintf(foreign, sizeof foreign, "%s/foreign", root);
    CHECK(mkdir(foreign, 0777) == 0 && chown(foreign, 4321, 4321) == 0);
    snprintf(tmpl2, sizeof tmpl2, "%s/spool/%%u/%%j.json.gz", foreign);
    CHECK(task_output_expand(tmpl2, &n, path, sizeof path, &fixed, why, sizeof why) == 0);
    CHECK(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "belongs to uid 4321, not root: the part of output= before its first "
                        "field must be root's");
    char under[4400];
    snprintf(under, sizeof under, "%s/spool", foreign);
    CHECK(access(under, F_OK) != 0);
    fx_rmroot(root);
}

int main(void)
{
    test_expand();
    test_directories_and_owner();
    return check_exit("test_spank_output");
}
