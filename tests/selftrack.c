/* selftrack.c - gt-selftrack: a program that tracks itself with
 * libgputracker, for the tests of the library.
 *
 *   work MIB N CMIB SECONDS   track shared_work() (work.h) in-process and
 *                             print the JSON summary
 *   idle SECONDS INTERVAL     track SECONDS of sleeping at a fast interval and
 *                             print the JSON (the sampler's CPU is not ours)
 *   two SECONDS INTERVAL      as idle, with two trackers at once: two JSON
 *                             summaries (neither counts the other's thread)
 * work, idle and two also print "main cpu SECONDS" on stderr: the kernel's
 * count of the main thread's CPU from before start() to after stop(), what
 * the tracker's "main" must show (the library's threads are left out); and
 * "main threads N": the threads of the program that are not the library's
 * (1, or 2 with a sanitizer's own thread); work also "children cpu S", the
 * CPU of the children it reaped.
 *   crash BACKUP MIB          track with a backup file, allocate MIB MiB, wait
 *                             until the backup shows it, then die by SIGKILL
 *   attach MIB                fork a child, track it by process_id while it
 *                             allocates MIB MiB, print the JSON */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker.h"

#include <json-c/json.h>
#include "threads.h"
#include "work.h"

static gt_tracker *start(double sleep_time, const char *backup, pid_t pid)
{
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = sleep_time;
    o.ram_unit = "megabytes";
    o.time_unit = "seconds";
    o.resource_usage_file = backup;
    o.process_id = pid;
    gt_tracker *t;
    if (gt_tracker_new(&o, &t) != GT_OK || gt_tracker_start(t) != GT_OK) {
        fprintf(stderr, "gt-selftrack: %s\n", gt_last_error());
        exit(3);
    }
    return t;
}

static int stop(gt_tracker *t)
{
    if (gt_tracker_stop(t) != GT_OK) {
        fprintf(stderr, "gt-selftrack: %s\n", gt_last_error());
        return 3;
    }
    return 0;
}

/* Prints the JSON summary of a stopped tracker and frees it. */
static int print_json(gt_tracker *t)
{
    char *json = gt_tracker_to_json(t);
    if (!json)
        return 3;
    printf("%s\n", json);
    free(json);
    gt_tracker_free(t);
    return 0;
}

static int finish(gt_tracker *t)
{
    return stop(t) ? 3 : print_json(t);
}

static void sleep_for(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The main figures of a backup file, or -1 while it has none. */
static double backup_main_total(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *doc = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&doc, &cap, '\0', f);
    fclose(f);
    json_object *j = n > 0 ? json_tokener_parse(doc) : NULL, *ram, *main_ram, *total;
    double figure = -1;
    if (json_object_object_get_ex(j, "max_ram", &ram) &&
        json_object_object_get_ex(ram, "main", &main_ram) &&
        json_object_object_get_ex(main_ram, "total_rss", &total))
        figure = json_object_get_double(total);
    json_object_put(j);
    free(doc);
    return figure;
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "work")) {
        double cpu0 = work_thread_cpu_seconds(), children0 = work_children_cpu_seconds();
        gt_tracker *t = start(0.1, "", 0);
        shared_work(atol(argv[2]), atoi(argv[3]), atol(argv[4]), atof(argv[5]));
        int rc = stop(t);
        fprintf(stderr, "main cpu %.6f\nchildren cpu %.6f\nmain threads %ld\n",
                work_thread_cpu_seconds() - cpu0, work_children_cpu_seconds() - children0,
                program_threads());
        return rc ? rc : print_json(t);
    }
    if (argc == 4 && !strcmp(argv[1], "idle")) {
        double cpu0 = work_thread_cpu_seconds();
        gt_tracker *t = start(atof(argv[3]), "", 0);
        sleep_for(atof(argv[2]));
        int rc = stop(t);
        fprintf(stderr, "main cpu %.6f\nmain threads %ld\n", work_thread_cpu_seconds() - cpu0,
                program_threads());
        return rc ? rc : print_json(t);
    }
    if (argc == 4 && !strcmp(argv[1], "two")) {
        double cpu0 = work_thread_cpu_seconds();
        gt_tracker *a = start(atof(argv[3]), "", 0), *b = start(atof(argv[3]), "", 0);
        sleep_for(atof(argv[2]));
        int rc = stop(a) | stop(b);
        fprintf(stderr, "main cpu %.6f\nmain threads %ld\n", work_thread_cpu_seconds() - cpu0,
                program_threads());
        if (rc || print_json(a) || print_json(b))
            return 3;
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "crash")) {
        gt_tracker *t = start(0.02, argv[2], 0);
        long mib = atol(argv[3]);
        char *held = work_hold(mib);
        /* Wait for a sample to have seen it (not for a time; the bound only
         * turns a broken backup into a failure instead of a hang). */
        for (int i = 0; backup_main_total(argv[2]) < (double)mib * 1.048576; i++) {
            if (i == 12000) {
                fprintf(stderr, "gt-selftrack: the backup never showed %ld MiB\n", mib);
                return 4;
            }
            sleep_for(0.005);
        }
        (void)held;
        (void)t;
        raise(SIGKILL);
        return 3;
    }
    if (argc == 3 && !strcmp(argv[1], "attach")) {
        int go[2], done[2];
        if (pipe(go) < 0 || pipe(done) < 0)
            return 3;
        pid_t child = fork();
        if (child == 0) {
            close(go[1]);
            close(done[0]);
            char c;
            if (read(go[0], &c, 1) != 1)
                _exit(3);
            char *held = work_hold(atol(argv[2]));
            if (write(done[1], "x", 1) != 1)
                _exit(3);
            if (read(go[0], &c, 1) < 0) /* EOF: the parent is done with us */
                _exit(3);
            free(held);
            _exit(0);
        }
        close(go[0]);
        close(done[1]);
        gt_tracker *t = start(10, "", child);
        char c = 'x';
        if (write(go[1], &c, 1) != 1 || read(done[0], &c, 1) != 1)
            return 3;
        int rc = finish(t); /* its final sample sees the child holding it all */
        close(go[1]);
        waitpid(child, NULL, 0);
        return rc;
    }
    fprintf(stderr, "usage: gt-selftrack work|idle|crash|attach ...\n");
    return 2;
}
