/* test_outputs.c - the rules every output follows (gpu_tracker.h, "Output
 * files"; docs/cli.md): links someone else planted are never followed,
 * the umask is honoured, an existing file keeps its mode, owner and hard
 * links, two outputs never share a file, a FIFO is never opened to check
 * it, and inputs that are not regular files are refused at once.
 *
 *   test_outputs               everything a user can set up
 *   test_outputs other-users   files of another user (needs root: skipped,
 *                              exit 77, elsewhere) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>

#include "gpu_tracker.h"
#include "runner.h"

#define OTHER_UID 65534 /* nobody */

static char *read_text(const char *path)
{
    char *t = slurp(path);
    return t ? t : strdup("(unreadable)");
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0 || write(fd, text, strlen(text)) < 0) {
        perror(path);
        exit(99);
    }
    fchmod(fd, mode);
    close(fd);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

/* A tiny summary, for the library's writers. */
static gt_resource_usage some_usage(void)
{
    gt_resource_usage u;
    memset(&u, 0, sizeof u);
    snprintf(u.max_ram.unit, sizeof u.max_ram.unit, "gigabytes");
    snprintf(u.max_gpu_ram.unit, sizeof u.max_gpu_ram.unit, "gigabytes");
    snprintf(u.compute_time.unit, sizeof u.compute_time.unit, "hours");
    return u;
}

/* The umask decides a new file's mode; the backup file too. */
static void test_umask(void)
{
    mode_t old = umask(077);
    const char *out = tmp_path("umask.txt");
    struct result r = gt("--disable-logs", "-o", out, "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(mode_of(out) == 0600, "mode %o under umask 077", (unsigned)mode_of(out));
    result_free(&r);
    const char *csv = tmp_path("umask.csv");
    r = gt("--disable-logs", "--st", "0.05", "--process-csv", csv, "-o", tmp_path("u2.txt"), "--",
           WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(mode_of(csv) == 0600, "CSV mode %o under umask 077", (unsigned)mode_of(csv));
    result_free(&r);
    const char *tracking[] = {tmp_path("umask-t.csv"), tmp_path("umask-t.sqlite")};
    for (int i = 0; i < 2; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s", tracking[i]);
        r = gt("--disable-logs", "--st", "0.05", "--tf", name, "-o", tmp_path("u3.txt"), "--",
               WORKLOAD_BIN, "exit", "0", NULL);
        CHECK(r.status == 0);
        CHECK_MSG(mode_of(name) == 0600, "tracking file %s mode %o under umask 077", name,
                  (unsigned)mode_of(name));
        result_free(&r);
    }

    /* The backup file, while tracking: 0600, not world-readable. */
    const char *backup = tmp_path("backup.json");
    gt_options o;
    gt_options_init(&o);
    o.resource_usage_file = backup;
    gt_tracker *t;
    CHECK(gt_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK_MSG(mode_of(backup) == 0600, "backup mode %o under umask 077", (unsigned)mode_of(backup));
    gt_tracker_stop(t);
    gt_tracker_free(t);
    umask(022);
    unlink(out);
    r = gt("--disable-logs", "-o", out, "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(mode_of(out) == 0644);
    result_free(&r);
    umask(old);
}

/* An existing file keeps its mode; its hard links keep seeing it when it
 * is ours in a directory no one else may write to, and are left with the
 * old contents in one anybody may write to. */
static void test_existing_files(void)
{
    const char *out = tmp_path("kept.txt");
    write_text(out, "old\n", 0640);
    gt_resource_usage u = some_usage();
    CHECK(gt_usage_write_file(&u, out, GT_FORMAT_TEXT) == GT_OK);
    CHECK_MSG(mode_of(out) == 0640, "mode %o, was 0640", (unsigned)mode_of(out));
    char *text = read_text(out);
    CHECK(!strncmp(text, "Max RAM:", 8));
    free(text);

    /* Hard links in our own private directory (tmpdir is 0700, ours). */
    const char *a = tmp_path("linked-a.txt"), *b = tmp_path("linked-b.txt");
    write_text(a, "old\n", 0644);
    unlink(b);
    CHECK(link(a, b) == 0);
    CHECK(gt_usage_write_file(&u, a, GT_FORMAT_TEXT) == GT_OK);
    text = read_text(b);
    CHECK_MSG(!strncmp(text, "Max RAM:", 8), "the other link shows [%.20s]", text);
    free(text);
    /* The same through a CSV stream. */
    char *csv_b = strdup(tmp_path("csv-b.csv"));
    const char *csv_a = tmp_path("csv-a.csv");
    write_text(csv_a, "old\n", 0644);
    unlink(csv_b);
    CHECK(link(csv_a, csv_b) == 0);
    struct result r = gt("--disable-logs", "--st", "0.05", "--process-csv", csv_a, "-o",
                         tmp_path("x.txt"), "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    text = read_text(csv_b);
    CHECK_MSG(!strncmp(text, "\"timestamp\"", 11), "the other link shows [%.20s]", text);
    free(text);
    result_free(&r);
    free(csv_b);

    /* In a directory others may write to (sticky, like /tmp): the name
     * gets a new file, the other link keeps the old contents. */
    char shared[300];
    snprintf(shared, sizeof shared, "%s/shared", tmpdir);
    mkdir(shared, 0777);
    chmod(shared, 01777);
    char sa[400], sb[400];
    snprintf(sa, sizeof sa, "%s/a.txt", shared);
    snprintf(sb, sizeof sb, "%s/b.txt", shared);
    write_text(sa, "old\n", 0644);
    CHECK(link(sa, sb) == 0);
    CHECK(gt_usage_write_file(&u, sa, GT_FORMAT_TEXT) == GT_OK);
    text = read_text(sb);
    CHECK_STR(text, "old\n");
    free(text);
    text = read_text(sa);
    CHECK(!strncmp(text, "Max RAM:", 8));
    free(text);
}

/* Two outputs on one file are refused before anything runs. */
static void test_same_file(void)
{
    const char *marker = tmp_path("same-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    char x[300], dotx[300], hard[300];
    snprintf(x, sizeof x, "%s", tmp_path("same.out"));
    snprintf(dotx, sizeof dotx, "%s/./same.out", tmpdir);
    snprintf(hard, sizeof hard, "%s", tmp_path("same-hard.out"));
    char want[1024];

    struct result r = gt("-o", x, "--snapshot", x, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: -o and --snapshot name the same file ('%s'): one "
             "would overwrite the other; give each its own file\n", x);
    check_error(&r, 2, want);
    r = gt("--process-csv", x, "--system-csv", dotx, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: --process-csv and --system-csv name the same file "
             "('%s' and '%s'): one would overwrite the other; give each its own file\n", x, dotx);
    check_error(&r, 2, want);
    /* Two names of one file. */
    write_text(x, "", 0644);
    unlink(hard);
    CHECK(link(x, hard) == 0);
    r = gt("-o", x, "--report", hard, "-e", touch, NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "-o and --report name the same file");
    result_free(&r);
    /* Standard output twice. */
    r = gt("-o", "/dev/stdout", "--process-csv", "-", "-e", touch, NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "-o and --process-csv name the same file");
    result_free(&r);
    CHECK(access(marker, F_OK) != 0);
    /* The null device keeps nothing: any number of outputs may go there
     * (the benchmark measures the series' cost that way). */
    r = gt("--disable-logs", "-o", "/dev/null", "--process-csv", "/dev/null", "--system-csv",
           "/dev/null", "-e", touch, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    CHECK(access(marker, F_OK) == 0);
    unlink(marker);

    /* report SNAPSHOT -o SNAPSHOT would overwrite its input. */
    r = gt("--disable-logs", "--st", "0.05", "--snapshot", x, "-o", tmp_path("y.txt"), "--",
           WORKLOAD_BIN, "burn", "0.15", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    struct stat before, after;
    stat(x, &before);
    r = gt("report", x, "-o", x, NULL);
    snprintf(want, sizeof want, "gpu-tracker: the snapshot and -o name the same file ('%s'): one "
             "would overwrite the other; give each its own file\n", x);
    check_error(&r, 2, want);
    stat(x, &after);
    CHECK(before.st_size == after.st_size && before.st_mtime == after.st_mtime);
}

/* Inputs: a FIFO is refused at once (not waited on), a directory too. */
static void test_inputs(void)
{
    const char *fifo = tmp_path("in.fifo");
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    char want[1024];
    struct result r;
    const char *cmds[] = {"stats", "show", "recommend", "report"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *argv[] = {GT_BIN, (char *)cmds[i], (char *)fifo, NULL};
        struct child c = spawn(argv, 0);
        memset(&r, 0, sizeof r);
        finish_within(&c, &r, 60, cmds[i]);
        snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': it is not a regular file "
                 "(FIFOs, devices and sockets are not read)\n", fifo);
        CHECK_MSG(r.status == 1, "%s: status %d", cmds[i], r.status);
        CHECK_STR(r.err.data, want);
        result_free(&r);
    }
    r = gt("show", tmpdir, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': it is a directory\n", tmpdir);
    check_error(&r, 1, want);
    r = gt("stats", tmpdir, NULL);
    check_error(&r, 1, want);
    const char *empty = tmp_path("empty.json");
    write_text(empty, "", 0644);
    r = gt("show", empty, NULL);
    snprintf(want, sizeof want, "gpu-tracker: '%s' is not a gpu-tracker summary: it is empty\n",
             empty);
    check_error(&r, 1, want);
    /* A snapshot given to show: named for what it is, and who reads it. */
    const char *gz = tmp_path("snap.json.gz");
    write_text(gz, "\x1f\x8b\x08rest", 0644);
    r = gt("show", gz, NULL);
    snprintf(want, sizeof want, "gpu-tracker: '%s' is not a gpu-tracker summary: it is gzip data "
             "(a snapshot? gpu-tracker stats, recommend and report read those)\n", gz);
    check_error(&r, 1, want);
}

/* A link of our own (root's, here, or the user's) is followed: the file it
 * names is written, the link stays. */
static void test_own_link(void)
{
    const char *target = tmp_path("own-target.txt"), *link_path = tmp_path("own-link.txt");
    write_text(target, "old\n", 0644);
    unlink(link_path);
    CHECK(symlink(target, link_path) == 0);
    gt_resource_usage u = some_usage();
    CHECK(gt_usage_write_file(&u, link_path, GT_FORMAT_TEXT) == GT_OK);
    struct stat st;
    CHECK(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode));
    char *text = read_text(target);
    CHECK(!strncmp(text, "Max RAM:", 8));
    free(text);
    /* A loop of links: one line, no hang. */
    const char *l1 = tmp_path("loop1"), *l2 = tmp_path("loop2");
    unlink(l1);
    unlink(l2);
    CHECK(symlink(l2, l1) == 0 && symlink(l1, l2) == 0);
    CHECK(gt_output_check(l1) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "Too many levels of symbolic links");
}

/* ---- another user's files (root only) -------------------------------- */

/* A world-writable sticky directory, like /tmp, where user 65534 planted a
 * link named like our output, pointing at a file of root's. */
static void plant_link(const char *dir, const char *name, const char *target)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    if (symlink(target, path) < 0 || lchown(path, OTHER_UID, OTHER_UID) < 0) {
        perror(path);
        exit(99);
    }
}

static void test_planted_links(void)
{
    char dir[300], victim[300], out[420];
    snprintf(dir, sizeof dir, "%s/sticky", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 01777);
    snprintf(victim, sizeof victim, "%s/victim", tmpdir);
    write_text(victim, "precious\n", 0644);
    const char *names[] = {"summary.txt", "run.json.gz", "run.html", "p.csv", "backup.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        plant_link(dir, names[i], victim);
    const char *marker = tmp_path("planted-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    char want[1024];

    /* Every CLI output: refused before the command runs, the victim kept. */
    const char *options[] = {"-o", "--snapshot", "--report", "--process-csv"};
    const char *whats[] = {"output file", "--snapshot file", "--report file", "--process-csv file"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(out, sizeof out, "%s/%s", dir, names[i]);
        struct result r = gt((char *)options[i], out, "-e", touch, NULL);
        snprintf(want, sizeof want, "gpu-tracker: cannot write %s '%s': '%s' is a symbolic link "
                 "owned by user %d, neither you nor root: not following it (remove the link, or "
                 "give another path)\n", whats[i], out, names[i], OTHER_UID);
        check_error(&r, 2, want);
    }
    /* The tracking file, CSV and SQLite, with --overwrite (without it the
     * link is an existing file, refused as such). */
    const char *tf_names[] = {"t.csv", "t.sqlite"};
    for (size_t i = 0; i < 2; i++) {
        plant_link(dir, tf_names[i], victim);
        snprintf(out, sizeof out, "%s/%s", dir, tf_names[i]);
        struct result r = gt("--tf", out, "--overwrite", "-e", touch, NULL);
        snprintf(want, sizeof want, "gpu-tracker: cannot write tracking file '%s': '%s' is a "
                 "symbolic link owned by user %d, neither you nor root: not following it (remove "
                 "the link, or give another path)\n", out, tf_names[i], OTHER_UID);
        check_error(&r, 2, want);
    }
    CHECK(access(marker, F_OK) != 0);
    /* report -o, and the library's writers. */
    snprintf(out, sizeof out, "%s/%s", dir, names[2]);
    gt_resource_usage u = some_usage();
    CHECK(gt_usage_write_file(&u, out, GT_FORMAT_JSON) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "is a symbolic link owned by user 65534");
    int fd;
    snprintf(out, sizeof out, "%s/%s", dir, names[3]);
    CHECK(gt_output_open(out, &fd) == GT_ERR_IO && fd == -1);
    /* The backup file: one warning, tracking goes on, nothing replaced. */
    snprintf(out, sizeof out, "%s/%s", dir, names[4]);
    gt_options o;
    gt_options_init(&o);
    o.resource_usage_file = out;
    gt_tracker *t;
    CHECK(gt_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_tracker_free(t);
    struct stat st;
    CHECK(lstat(out, &st) == 0 && S_ISLNK(st.st_mode)); /* not replaced, not removed */
    char *text = read_text(victim);
    CHECK_STR(text, "precious\n");
    free(text);
    CHECK(stat(victim, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0777) == 0644);

    /* A planted link in the middle of the path, too. */
    char sub[350];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    unlink(sub);
    CHECK(symlink(tmpdir, sub) == 0 && lchown(sub, OTHER_UID, OTHER_UID) == 0);
    snprintf(out, sizeof out, "%s/new.txt", sub);
    CHECK(gt_usage_write_file(&u, out, GT_FORMAT_TEXT) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "'sub' is a symbolic link owned by user 65534");
    CHECK(access(tmp_path("new.txt"), F_OK) != 0);
}

/* --tf: an existing tracking file is refused before the command runs
 * (gpu_tracker's rule), --overwrite replaces it, and it may not be another
 * output's file. */
static void test_tracking_file(void)
{
    const char *marker = tmp_path("tf-ran");
    char touch[300], tf[300], want[1024];
    snprintf(touch, sizeof touch, "touch %s", marker);
    snprintf(tf, sizeof tf, "%s", tmp_path("run.csv"));
    write_text(tf, "mine\n", 0644);
    struct result r = gt("--tf", tf, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: tracking file '%s' already exists: give "
             "--overwrite to replace it, or another name\n", tf);
    check_error(&r, 2, want);
    CHECK(access(marker, F_OK) != 0);
    char *kept = read_text(tf);
    CHECK_STR(kept, "mine\n");
    free(kept);
    r = gt("--disable-logs", "--st", "0.05", "--tf", tf, "--overwrite", "-o",
           tmp_path("tf-summary.txt"), "-e", touch, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    CHECK(access(marker, F_OK) == 0);
    char *text = read_text(tf);
    CHECK(text && strncmp(text, "ram_unit,gpu_ram_unit,time_unit,", 32) == 0);
    free(text);
    /* Another name gpu_tracker does not know; the same file as -o. */
    r = gt("--tf", tmp_path("run.txt"), "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: invalid tracking file name '%s': valid extensions "
             "are .csv and .sqlite\n", tmp_path("run.txt"));
    check_error(&r, 2, want);
    r = gt("--tf", tf, "--overwrite", "-o", tf, "-e", touch, NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "-o and --tf name the same file");
    result_free(&r);
}

/* Root replacing another user's file keeps it theirs. */
static void test_owner_kept(void)
{
    const char *out = tmp_path("theirs.txt");
    write_text(out, "old\n", 0600);
    CHECK(chown(out, OTHER_UID, OTHER_UID) == 0);
    gt_resource_usage u = some_usage();
    CHECK(gt_usage_write_file(&u, out, GT_FORMAT_TEXT) == GT_OK);
    struct stat st;
    CHECK(stat(out, &st) == 0 && st.st_uid == OTHER_UID && st.st_gid == OTHER_UID &&
          (st.st_mode & 0777) == 0600);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "other-users")) {
        if (geteuid() != 0)
            SKIP_TEST("files of another user can only be made as root");
        tmpdir_make("outputs-root");
        test_planted_links();
        test_owner_kept();
        tmpdir_remove();
        return check_exit("test_outputs other-users");
    }
    tmpdir_make("outputs");
    test_umask();
    test_existing_files();
    test_same_file();
    test_inputs();
    test_own_link();
    test_tracking_file();
    tmpdir_remove();
    return check_exit("test_outputs");
}
