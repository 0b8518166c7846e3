/* test_spank_output.c - where the SPANK plugin leaves a task's snapshot
 * (src/spank/task_output.c), run as root beside other users' jobs: the
 * template's fields, the site's directory root's (0711), the user's
 * directories theirs (0700), no link followed, no directory of a third
 * user used, a site directory others may write refused, and the file made
 * anew by a child with the user's identity (owner theirs, mode 0600;
 * whatever was planted at the name replaced) for the caller to write, the
 * child waited for within a deadline even when stopped. The parts that need root say so and are left
 * out without it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    /* What the user put at the file's name (a link, a FIFO, a file of
     * mode 0644): never followed or waited on, not kept: a new file, theirs,
     * 0600. A directory there is refused. */
    char planted[4500];
    snprintf(planted, sizeof planted, "%s/planted.json.gz", job_dir);
    struct stat passwd_before, passwd_after;
    CHECK(stat("/etc/passwd", &passwd_before) == 0);
    CHECK(symlink("/etc/passwd", planted) == 0);
    CHECK_MSG(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) == 0, "%s", why);
    if (fd >= 0)
        close(fd);
    CHECK(lstat(planted, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == NOBODY &&
          (st.st_mode & 07777) == 0600);
    CHECK(stat("/etc/passwd", &passwd_after) == 0 &&
          passwd_after.st_size == passwd_before.st_size &&
          passwd_after.st_mtime == passwd_before.st_mtime);
    unlink(planted);
    CHECK(mkfifo(planted, 0600) == 0 && chown(planted, NOBODY, NOBODY) == 0);
    CHECK_MSG(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) == 0, "%s", why);
    if (fd >= 0)
        close(fd);
    CHECK(lstat(planted, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600);
    unlink(planted);
    int old_fd = open(planted, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(old_fd >= 0 && fchown(old_fd, NOBODY, NOBODY) == 0 && fchmod(old_fd, 0644) == 0);
    struct stat old_st;
    CHECK(fstat(old_fd, &old_st) == 0);
    CHECK_MSG(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) == 0, "%s", why);
    if (fd >= 0)
        close(fd);
    CHECK(lstat(planted, &st) == 0 && (st.st_mode & 07777) == 0600 && st.st_ino != old_st.st_ino);
    if (old_fd >= 0)
        close(old_fd);
    unlink(planted);
    CHECK(mkdir(planted, 0700) == 0 && chown(planted, NOBODY, NOBODY) == 0);
    CHECK(task_output_open_as(NOBODY, NOBODY, planted, &fd, why, sizeof why) < 0 && fd == -1);
    CHECK_CONTAINS(why, "cannot replace what is at");
    rmdir(planted);

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

    /* Root's, but writable by everyone (not sticky): a user could swap a
     * directory made in it before it is given away. Refused, nothing made. */
    char open_site[4300], tmpl3[4400];
    snprintf(open_site, sizeof open_site, "%s/open-site", root);
    CHECK(mkdir(open_site, 0777) == 0 && chmod(open_site, 0777) == 0);
    snprintf(tmpl3, sizeof tmpl3, "%s/%%u/%%j.json.gz", open_site);
    CHECK(task_output_expand(tmpl3, &n, path, sizeof path, &fixed, why, sizeof why) == 0);
    CHECK(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) < 0);
    CHECK_CONTAINS(why, "is root's but writable by others (mode 0777)");
    snprintf(under, sizeof under, "%s/nobody", open_site);
    CHECK(access(under, F_OK) != 0);
    /* sticky (as /tmp): others cannot move what root made in it */
    CHECK(chmod(open_site, 01777) == 0);
    CHECK_MSG(task_output_prepare(path, fixed, NOBODY, NOBODY, why, sizeof why) == 0, "%s", why);
    fx_rmroot(root);
}

/* An opener the job's user stopped (here it stops itself, as nobody, as
 * kill -STOP from one of their processes would): waited for its deadline,
 * then killed and reaped; and one stopped after its answer: the answer
 * taken, the opener killed. Neither holds the caller. */
static void test_stopped_opener(void)
{
    if (geteuid() != 0) {
        printf("test_spank_output: the stopped opener needs root: left out\n");
        return;
    }
    for (int after_answer = 0; after_answer <= 1; after_answer++) {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
        pid_t child = fork();
        if (child == 0) {
            close(sv[0]);
            if (setresgid(NOBODY, NOBODY, NOBODY) < 0 || setresuid(NOBODY, NOBODY, NOBODY) < 0)
                _exit(3);
            if (after_answer) {
                int null_fd = open("/dev/null", O_WRONLY);
                struct iovec iov = {"", 1};
                union {
                    char buf[CMSG_SPACE(sizeof(int))];
                    struct cmsghdr align;
                } control;
                memset(&control, 0, sizeof control);
                struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1,
                                   .msg_control = control.buf,
                                   .msg_controllen = sizeof control.buf};
                struct cmsghdr *c = CMSG_FIRSTHDR(&m);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &null_fd, sizeof null_fd);
                if (sendmsg(sv[1], &m, 0) < 0)
                    _exit(4);
            }
            kill(getpid(), SIGSTOP);
            _exit(0);
        }
        close(sv[1]);
        int fd = -1;
        char why[512] = "";
        struct task_opener o = {child, sv[0], task_output_now_ms()};
        int rc = task_output_finish_opener(&o, 300, &fd, why, sizeof why);
        if (after_answer) {
            CHECK_MSG(rc == 0 && fd >= 0, "an answer before the stop is taken: %s", why);
        } else {
            CHECK(rc < 0 && fd == -1);
            CHECK_CONTAINS(why, "did not answer within 300 ms");
            CHECK_CONTAINS(why, "the snapshot given up");
        }
        if (fd >= 0)
            close(fd);
        /* reaped already: nothing of it is left to wait for */
        errno = 0;
        CHECK(waitpid(child, NULL, WNOHANG) < 0 && errno == ECHILD);
    }
}

int main(void)
{
    test_expand();
    test_directories_and_owner();
    test_stopped_opener();
    return check_exit("test_spank_output");
}
