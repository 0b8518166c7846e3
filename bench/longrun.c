/* bench/longrun.c - what a long run costs the tracker in memory (figures,
 * not tests: `make bench`).
 *
 *   gt-bench-longrun [quick]
 *
 * Rows of 1 hour and 24 hours at --st 1 and --st 0.01 are made up (values
 * that vary like a real run's, so that formatting and compression cost what
 * they would) and added to the tracker's row store exactly as the sampling
 * thread adds them; then the snapshot and the report are written from it
 * with the tracker's own writers. Each case runs in a fresh process, whose
 * peak RSS (getrusage) is read after the rows and after the writing. For
 * comparison, the same rows kept all in memory (the store when no file can
 * be made: what the tracker did before the store). quick: the 1-hour cases
 * and 24 hours at --st 1 only. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"
#include "measure.h"
#include "report/report.h"
#include "sink/row_store.h"
#include "snapshot/snapshot.h"

struct figures {
    double rows_mib, written_mib; /* peak RSS after the rows, after writing */
    double add_s, write_s;        /* seconds adding the rows, writing both files */
    double snapshot_mib, report_kib;
    int ok;
};

static double peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static double file_mib(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1048576.0 : -1;
}

/* One made-up row pair at step i of a run with this interval. */
static void make_rows(size_t i, double interval, gt_process_row *p, gt_system_row *y)
{
    memset(p, 0, sizeof *p);
    memset(y, 0, sizeof *y);
    double t = 1795000000.0 + (double)(i + 1) * interval;
    double phase = (double)(i % 997) / 997.0;
    p->timestamp = y->timestamp = round(t * 1000) / 1000;
    p->pid = 123456;
    p->children = 4 + (long)(i % 3);
    p->utime = round(interval * 1.5 * phase * 1e6) / 1e6;
    p->stime = round(interval * 0.1 * phase * 1e6) / 1e6;
    p->cpu_usage = round((1.6 * phase + 0.2) * 1e4) / 1e4;
    p->memory = 2000000 + (unsigned long long)(i % 5000) * 37;
    p->read_bytes = (i % 7) * 4096;
    p->write_bytes = (i % 11) * 8192;
    p->gpu_usage = round(0.9 * phase * 1e4) / 1e4;
    p->gpu_vram = 1024.0 + (double)(i % 13);
    p->gpu_utilized = 1;
    y->processes = 300 + (long)(i % 17);
    y->utime = p->utime * 1.1;
    y->stime = p->stime * 1.2;
    y->cpu_usage = round(p->cpu_usage * 1.1 * 1e4) / 1e4;
    y->memory_free = 20000000 - p->memory;
    y->memory_used = p->memory + 500000;
    y->memory_buffers = 1100;
    y->memory_cached = 36976 + (i % 100);
    y->memory_active = 20816;
    y->memory_inactive = 12144;
    y->disk_read_bytes = p->read_bytes;
    y->disk_write_bytes = p->write_bytes * 2;
    y->disk_space_total_gb = 251.97;
    y->disk_space_used_gb = round((15.94 + (double)i * 1e-7) * 100) / 100;
    y->disk_space_free_gb = round((251.97 - y->disk_space_used_gb) * 100) / 100;
    y->net_recv_bytes = (i % 19) * 1500;
    y->net_sent_bytes = (i % 23) * 900;
    y->gpu_usage = p->gpu_usage;
    y->gpu_vram = p->gpu_vram + 500;
    y->gpu_utilized = 1;
}

/* Adds n rows as the sampler does: a full tail goes to the file. */
static int add_rows(struct row_store *st, size_t n, double interval)
{
    for (size_t i = 0; i < n; i++) {
        gt_process_row p;
        gt_system_row y;
        make_rows(i, interval, &p, &y);
        int fp = row_store_add(st, GT_SERIES_KIND_PROCESS, &p);
        int fy = row_store_add(st, GT_SERIES_KIND_SYSTEM, &y);
        if (fp < 0 || fy < 0)
            return -1;
        if (fp == 1)
            row_store_commit(st, GT_SERIES_KIND_PROCESS,
                             row_store_flush(st, GT_SERIES_KIND_PROCESS));
        if (fy == 1)
            row_store_commit(st, GT_SERIES_KIND_SYSTEM, row_store_flush(st, GT_SERIES_KIND_SYSTEM));
    }
    return 0;
}

/* The snapshot's metadata, as a tracker fills it. */
static void make_meta(gt_snapshot *s, size_t n, double interval)
{
    memset(s, 0, sizeof *s);
    s->format_version = GT_SNAPSHOT_FORMAT;
    snprintf(s->tracker_version, sizeof s->tracker_version, "%s", gt_version());
    s->command = "python train.py --epochs 300";
    s->pid = 123456;
    s->interval = interval;
    s->start_time = 1795000000.0;
    s->stop_time = s->start_time + (double)n * interval;
    s->duration = (double)n * interval;
    s->exit_status = 0;
    snprintf(s->host, sizeof s->host, "bench");
    snprintf(s->server.allocation, sizeof s->server.allocation, "dedicated");
    snprintf(s->usage.max_ram.unit, sizeof s->usage.max_ram.unit, "gigabytes");
    snprintf(s->usage.max_gpu_ram.unit, sizeof s->usage.max_gpu_ram.unit, "gigabytes");
    snprintf(s->usage.compute_time.unit, sizeof s->usage.compute_time.unit, "hours");
    s->series.interval = interval;
    s->series.start_time = s->start_time;
}

/* One case, in this (fresh) process. */
static struct figures run_case(size_t n, double interval, int in_memory, const char *dir)
{
    struct figures f;
    memset(&f, 0, sizeof f);
    struct row_store st;
    row_store_init(&st);
    if (in_memory)
        st.dir = "/nonexistent-dir"; /* no file: every row stays in memory */
    double t0 = wall_seconds();
    if (add_rows(&st, n, interval) < 0) {
        row_store_free(&st);
        return f;
    }
    f.add_s = wall_seconds() - t0;
    f.rows_mib = peak_mib();
    if (!in_memory) {
        struct row_source rows;
        row_store_source(&st, &rows);
        gt_snapshot meta;
        make_meta(&meta, n, interval);
        meta.series.nprocess = meta.series.nsystem = n;
        char snap[512], html[512];
        snprintf(snap, sizeof snap, "%s/run.json.gz", dir);
        snprintf(html, sizeof html, "%s/run.html", dir);
        t0 = wall_seconds();
        int ok = snapshot_write_rows(&meta, &rows, GT_SNAPSHOT_GPU_TRACKER, snap) == GT_OK &&
                 report_write_rows(&meta, &rows, NULL, NULL, html) == GT_OK;
        f.write_s = wall_seconds() - t0;
        f.written_mib = peak_mib();
        f.snapshot_mib = file_mib(snap);
        f.report_kib = file_mib(html) * 1024;
        unlink(snap);
        unlink(html);
        if (!ok) {
            fprintf(stderr, "gt-bench-longrun: %s\n", gt_last_error());
            row_store_free(&st);
            return f;
        }
    }
    row_store_free(&st);
    f.ok = 1;
    return f;
}

/* run_case() in a child process, so that each peak RSS is its own. */
static struct figures in_child(size_t n, double interval, int in_memory, const char *dir)
{
    int fds[2];
    struct figures f;
    memset(&f, 0, sizeof f);
    if (pipe(fds) < 0)
        return f;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        struct figures got = run_case(n, interval, in_memory, dir);
        if (write(fds[1], &got, sizeof got) != (ssize_t)sizeof got)
            _exit(1);
        _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &f, sizeof f) != (ssize_t)sizeof f)
        f.ok = 0;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return f;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    char dir[] = "/tmp/gt-bench-longrun-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    const struct {
        const char *name;
        double interval, hours;
    } cases[] = {{"1 h at --st 1", 1, 1}, {"24 h at --st 1", 1, 24},
                 {"1 h at --st 0.01", 0.01, 1}, {"24 h at --st 0.01", 0.01, 24}};
    printf("Long runs: the tracker's peak RSS with N simulated rows in its row store, and after\n"
           "writing the snapshot and the report from it (each case a fresh process). \"all rows\n"
           "in memory\": the same rows with no file to keep them in (the tracker before the\n"
           "row store kept every row so, and built the snapshot from a json-c tree on top).\n");
    printf("%-18s %9s %11s %13s %8s %8s %12s %10s %16s\n", "run", "rows", "RSS rows", "RSS written",
           "add s", "write s", "snapshot MiB", "report KiB", "all in memory");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = (size_t)(cases[i].hours * 3600 / cases[i].interval + 0.5);
        if (quick && cases[i].interval < 1 && cases[i].hours > 1)
            continue;
        struct figures f = in_child(n, cases[i].interval, 0, dir);
        struct figures m = in_child(n, cases[i].interval, 1, dir);
        if (!f.ok) {
            printf("%-18s %9zu failed\n", cases[i].name, n);
            continue;
        }
        printf("%-18s %9zu %7.1f MiB %9.1f MiB %8.2f %8.2f %12.1f %10.0f %12.1f MiB\n",
               cases[i].name, n, f.rows_mib, f.written_mib, f.add_s, f.write_s, f.snapshot_mib,
               f.report_kib, m.ok ? m.rows_mib : -1.0);
        fflush(stdout);
    }
    rmdir(dir);
    return 0;
}
