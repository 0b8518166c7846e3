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

#include "gpu_tracker_internal.h"
#include "gpu_tracker_tools.h"
#include "runner.h"
#include "common/toolkit.h"
#include "common/file_io.h"

/* usage's text or JSON and a newline, written as the command writes its
 * summary: atomically, under the output rules (common/file_io.h). */
static gt_status write_usage(const gt_resource_usage *u, const char *path, gt_format format)
{
    char *text = format == GT_FORMAT_JSON ? usage_to_json(u) : usage_to_text(u);
    size_t len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        return GT_ERR_NO_MEMORY;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    gt_status st = write_file_atomic(path, line, len + 1);
    free(line);
    return st;
}

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
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
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
    o.sleep_time = 0.1;
    gt_tracker *t;
    CHECK(gt_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK(wait_for_file(backup)); /* first written about a second in */
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
    CHECK(write_usage(&u, out, GT_FORMAT_TEXT) == GT_OK);
    CHECK_MSG(mode_of(out) == 0640, "mode %o, was 0640", (unsigned)mode_of(out));
    char *text = read_text(out);
    CHECK(!strncmp(text, "Max RAM:", 8));
    free(text);

    /* Hard links in our own private directory (tmpdir is 0700, ours). */
    const char *a = tmp_path("linked-a.txt"), *b = tmp_path("linked-b.txt");
    write_text(a, "old\n", 0644);
    unlink(b);
    CHECK(link(a, b) == 0);
    CHECK(write_usage(&u, a, GT_FORMAT_TEXT) == GT_OK);
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
    CHECK(write_usage(&u, sa, GT_FORMAT_TEXT) == GT_OK);
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
    /* A snapshot under another name given to show: named for what it is,
     * and how show reads one. */
    const char *gz = tmp_path("snap.json");
    write_text(gz, "\x1f\x8b\x08rest", 0644);
    r = gt("show", gz, NULL);
    snprintf(want, sizeof want, "gpu-tracker: '%s' is not a gpu-tracker summary: it is gzip data "
             "(a snapshot? gpu-tracker show reads one whose name ends in .gz; stats, recommend "
             "and report read those)\n", gz);
    check_error(&r, 1, want);
    /* A .gz name is read as a snapshot: a broken one is one line, its name
     * and what is wrong. */
    const char *broken = tmp_path("broken.json.gz");
    write_text(broken, "\x1f\x8b\x08rest", 0644);
    r = gt("show", broken, NULL);
    CHECK(r.status == 1 && strstr(r.err.data, broken) && strstr(r.err.data, "gzip") &&
          strchr(r.err.data, '\n') == r.err.data + r.err.len - 1);
    result_free(&r);
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
    CHECK(write_usage(&u, link_path, GT_FORMAT_TEXT) == GT_OK);
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
    CHECK(output_file_check(l1) == GT_ERR_IO);
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
    CHECK(write_usage(&u, out, GT_FORMAT_JSON) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "is a symbolic link owned by user 65534");
    int fd;
    snprintf(out, sizeof out, "%s/%s", dir, names[3]);
    CHECK(output_file_open(out, &fd) == GT_ERR_IO && fd == -1);
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
    CHECK(write_usage(&u, out, GT_FORMAT_TEXT) == GT_ERR_IO);
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
    /* A FIFO named like a tracking file: refused at once, never opened (its
     * open would wait for a reader with the command held). */
    char fifo_tf[300];
    snprintf(fifo_tf, sizeof fifo_tf, "%s", tmp_path("fifo-tf.csv"));
    unlink(fifo_tf);
    CHECK(mkfifo(fifo_tf, 0600) == 0);
    unlink(marker);
    char *argv[] = {GT_BIN, "--tf", fifo_tf, "--overwrite", "-o", "/dev/null", "-e", touch, NULL};
    struct child c = spawn(argv, 0);
    memset(&r, 0, sizeof r);
    finish_within(&c, &r, 60, "--tf FIFO");
    char line[1024];
    snprintf(line, sizeof line, "gpu-tracker: cannot write tracking file '%s': it is not a "
             "regular file (a FIFO, a device or a directory); give a file's name\n", fifo_tf);
    CHECK_MSG(r.status == 2, "status %d", r.status);
    CHECK_STR(r.err.data, line);
    result_free(&r);
    CHECK(access(marker, F_OK) != 0);
}

/* Root replacing another user's file keeps it theirs. */
static void test_owner_kept(void)
{
    const char *out = tmp_path("theirs.txt");
    write_text(out, "old\n", 0600);
    CHECK(chown(out, OTHER_UID, OTHER_UID) == 0);
    gt_resource_usage u = some_usage();
    CHECK(write_usage(&u, out, GT_FORMAT_TEXT) == GT_OK);
    struct stat st;
    CHECK(stat(out, &st) == 0 && st.st_uid == OTHER_UID && st.st_gid == OTHER_UID &&
          (st.st_mode & 0777) == 0600);
}

/* ---- names squatted in shared directories (root only) ------------------- */

/* A FIFO or a file of user 65534 at dir/name, as `nobody` would make one. */
static void plant_as_nobody(const char *dir, const char *name, int fifo)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
    int ok = fifo ? mkfifo(path, 0666) == 0 : (write_text(path, "theirs\n", 0666), 1);
    if (!ok || lchown(path, OTHER_UID, OTHER_UID) < 0) {
        perror(path);
        exit(99);
    }
}

static int is_regular_of(const char *path, uid_t uid)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid;
}

/* Before the run: another user's FIFO or file at an output's name in a
 * sticky directory is refused, and nothing runs; the file is left as it
 * was, neither opened nor taken over. */
static void test_squatted_before(void)
{
    char dir[300], out[400], snap[400], want[1024], touch[400];
    snprintf(dir, sizeof dir, "%s/sticky-before", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 01777);
    plant_as_nobody(dir, "out.json", 0);
    plant_as_nobody(dir, "snap.json.gz", 1);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(snap, sizeof snap, "%s/snap.json.gz", dir);
    const char *marker = tmp_path("squatted-ran");
    snprintf(touch, sizeof touch, "touch %s", marker);
    struct result r = gt_within("-o on a file of nobody's", "-o", out, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot write output file '%s': 'out.json' is user "
             "%d's, in a directory others may write to: not writing to or replacing another "
             "user's file there (remove it, or give another path)\n", out, OTHER_UID);
    check_error(&r, 2, want);
    r = gt_within("--snapshot on a FIFO of nobody's", "--snapshot", snap, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot write --snapshot file '%s': 'snap.json.gz' "
             "is user %d's, in a directory others may write to: not writing to or replacing "
             "another user's file there (remove it, or give another path)\n", snap, OTHER_UID);
    check_error(&r, 2, want);
    /* The streams opened at the start, and the library's writers. */
    snprintf(out, sizeof out, "%s/p.csv", dir);
    plant_as_nobody(dir, "p.csv", 1);
    r = gt_within("--process-csv on a FIFO of nobody's", "--process-csv", out, "-e", touch, NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "'p.csv' is user 65534's");
    result_free(&r);
    CHECK(access(marker, F_OK) != 0);
    snprintf(out, sizeof out, "%s/out.json", dir);
    CHECK(output_file_check(out) == GT_ERR_IO);
    char *text = read_text(out);
    CHECK_STR(text, "theirs\n");
    free(text);
    CHECK(is_regular_of(out, OTHER_UID));
}

/* During the run: FIFOs and a file of nobody's put at the -o, --snapshot
 * and --report names of a root run in a sticky directory, after the check.
 * The attack: gpu-tracker waited at the end until the FIFOs were read, and
 * the attacker had the summary and the snapshot. Now each name gets a new
 * file of root's, and nothing waits. */
static void test_squatted_during(void)
{
    char dir[300], out[400], snap[400], report[400], cmd[8192];
    snprintf(dir, sizeof dir, "%s/sticky-during", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 01777);
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(snap, sizeof snap, "%s/snap.json.gz", dir);
    snprintf(report, sizeof report, "%s/run.html", dir);
    snprintf(cmd, sizeof cmd,
             "sh -c 'mkfifo -m 666 %s %s && echo theirs > %s && chown 65534:65534 %s %s %s'",
             out, snap, report, out, snap, report);
    struct result r = gt_within("a run whose outputs were squatted", "--disable-logs", "--st",
                                "0.05", "--no-backup", "-f", "json", "-o", out, "--snapshot", snap,
                                "--report", report, "-e", cmd, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.err.data, "");
    result_free(&r);
    const char *paths[] = {out, snap, report};
    for (int i = 0; i < 3; i++)
        CHECK_MSG(is_regular_of(paths[i], 0), "%s is not a regular file of root's", paths[i]);
    char *text = read_text(out);
    CHECK_CONTAINS(text, "\"max_ram\"");
    free(text);
    text = read_text(report);
    CHECK_CONTAINS(text, "<html");
    free(text);
}

/* The backup file in a directory anyone may write to (0777, not sticky),
 * replaced by a FIFO of nobody's during the run: the next write replaces
 * the FIFO (the attack held the backup thread for the rest of the run,
 * and the exit ~10 s), and the end removes the file, without a word. */
static void test_backup_replaced_by_fifo(void)
{
    char dir[300], backup[400], cmd[8192];
    snprintf(dir, sizeof dir, "%s/open-dir", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 0777);
    snprintf(backup, sizeof backup, "%s/backup.json", dir);
    /* The command waits for the first backup, puts the FIFO there, and
     * ends once a write has replaced it (never, when writes open it). */
    snprintf(cmd, sizeof cmd,
             "sh -c 'until [ -f %s ]; do sleep 0.01; done; rm -f %s; mkfifo -m 666 %s; "
             "chown 65534:65534 %s; while [ -p %s ]; do sleep 0.01; done'",
             backup, backup, backup, backup, backup);
    struct result r = gt_within("a run whose backup became a FIFO", "-q", "--st", "0.05",
                                "--backup", backup, "-o", tmp_path("backup-run.txt"), "-e", cmd,
                                NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_MSG(!strstr(r.err.data, "backup"), "a warning: %s", r.err.data);
    result_free(&r);
    struct stat st;
    CHECK_MSG(lstat(backup, &st) < 0 && errno == ENOENT, "the backup is still there (mode %o)",
              (unsigned)st.st_mode);
}

/* The metrics textfile: FIFOs of nobody's at gpu-tracker-<PID>.prom in a
 * 1777 textfile directory held the tracker in open() before the command
 * started. Tracked here: a child of ours, whose PID we know before it
 * creates its tracker (the name is the tracked process's PID). */
static void test_textfile_fifo(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/textfile", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 01777);
    int go[2];
    CHECK(pipe(go) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(3);
        gt_options o;
        gt_options_init(&o);
        o.metrics_textfile_dir = dir;
        o.sleep_time = 0.05;
        o.resource_usage_file = "";
        gt_tracker *t;
        if (gt_tracker_new(&o, &t) != GT_OK || gt_tracker_start(t) != GT_OK)
            _exit(4);
        char prom[400];
        snprintf(prom, sizeof prom, "%s/gpu-tracker-%d.prom", dir, (int)getpid());
        struct stat st;
        while (!(lstat(prom, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0)) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        int ok = gt_tracker_stop(t) == GT_OK;
        gt_tracker_free(t);
        _exit(ok ? 0 : 5);
    }
    close(go[0]);
    char name[64];
    snprintf(name, sizeof name, "gpu-tracker-%d.prom", (int)pid);
    plant_as_nobody(dir, name, 1);
    CHECK(write(go[1], "g", 1) == 1);
    close(go[1]);
    pid_t watchdog = fork();
    if (watchdog == 0) {
        sleep(60);
        kill(pid, SIGKILL);
        _exit(0);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    kill(watchdog, SIGKILL);
    waitpid(watchdog, NULL, 0);
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the tracker with a squatted textfile: %s %d",
              WIFEXITED(ws) ? "exit" : "signal", WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
    char prom[400];
    snprintf(prom, sizeof prom, "%s/%s", dir, name);
    CHECK(access(prom, F_OK) != 0); /* replaced by ours, then removed at the end */
}

/* A link or a directory put on the outputs' paths during the run: the
 * outputs were resolved (and their directories opened) before the command
 * started, so they are written where they were meant to go, and a name
 * taken by a directory keeps its data beside it. The attack lost the
 * snapshot and the report. */
static void test_planted_during_run(void)
{
    char dir[300], sub[400], out[450], snap[450], report[450], moved[450], cmd[8192], want[1024];
    snprintf(dir, sizeof dir, "%s/planted-during", tmpdir);
    mkdir(dir, 0777);
    chmod(dir, 01777);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0755);
    snprintf(moved, sizeof moved, "%s/sub.moved", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(snap, sizeof snap, "%s/run.json.gz", sub);
    snprintf(report, sizeof report, "%s/run.html", dir);
    char victim[400];
    snprintf(victim, sizeof victim, "%s/victim-during", tmpdir);
    write_text(victim, "precious\n", 0644);
    /* nobody's link at -o's name, the snapshot's directory moved away and a
     * link of nobody's in its place, a directory at the report's name. */
    snprintf(cmd, sizeof cmd,
             "sh -c 'ln -s %s %s && chown -h 65534:65534 %s && mv %s %s && ln -s %s %s && "
             "chown -h 65534:65534 %s && mkdir %s'",
             victim, out, out, sub, moved, tmpdir, sub, sub, report);
    struct result r = gt_within("a run whose paths changed", "--disable-logs", "--st", "0.05",
                                "--no-backup", "-o", out, "--snapshot", snap, "--report", report,
                                "-e", cmd, NULL);
    CHECK_MSG(r.status == 1, "status %d: %s", r.status, r.err.data);
    CHECK(is_regular_of(out, 0));
    char *text = read_text(out);
    CHECK(!strncmp(text, "Max RAM:", 8));
    free(text);
    text = read_text(victim);
    CHECK_STR(text, "precious\n");
    free(text);
    char held_snap[500];
    snprintf(held_snap, sizeof held_snap, "%s/run.json.gz", moved);
    CHECK_MSG(is_regular_of(held_snap, 0), "no snapshot in the directory held from the start");
    CHECK(access(tmp_path("run.json.gz"), F_OK) != 0); /* not where the link points */
    /* The report's name is a directory: kept beside it, and said where. */
    snprintf(want, sizeof want, "gpu-tracker: cannot write '%s': a directory is at its name; "
             "what was to be written is in '%s/run.html.saved-", report, dir);
    CHECK_CONTAINS(r.err.data, want);
    const char *saved = strstr(r.err.data, "run.html.saved-");
    char saved_path[600] = "";
    if (saved)
        snprintf(saved_path, sizeof saved_path, "%s/%.27s", dir, saved);
    text = read_text(saved_path);
    CHECK_CONTAINS(text, "<html");
    free(text);
    CHECK_MSG(strchr(r.err.data, '\n') == r.err.data + strlen(r.err.data) - 1,
              "more than one line: %s", r.err.data);
    result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "other-users")) {
        if (geteuid() != 0)
            SKIP_TEST("files of another user can only be made as root");
        tmpdir_make("outputs-root");
        test_planted_links();
        test_owner_kept();
        test_squatted_before();
        test_squatted_during();
        test_backup_replaced_by_fifo();
        test_textfile_fifo();
        test_planted_during_run();
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
