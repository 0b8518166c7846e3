/* metrics_text.h - the exporter's figures and their text: Prometheus's
 * exposition format (text 0.0.4) and OpenMetrics 1.0, as docs/metrics.md
 * lists them.
 *
 * Pure: the pipeline fills a metrics_point from a sample (pipeline.h, where
 * it is defined, the figures being the pipeline's), the
 * metrics sink keeps the newest and renders it here when scraped or when
 * the textfile is due. Every figure is in base units (bytes, seconds). */
#ifndef GT_METRICS_TEXT_H
#define GT_METRICS_TEXT_H

#include <stddef.h>
#include <sys/socket.h>

#include "gpu_tracker_internal.h"
#include "pipeline/pipeline.h" /* struct metrics_point */

/* What stays the same for a run: the labels of every metric and the GPUs'
 * names. Strings are copied in; a label left empty is left out. */
struct metrics_static {
    char labels[2048];             /* rendered: host="..",job_id="..",... */
    double start_time;             /* epoch seconds of the baseline */
    int ngpus;
    struct {
        char uuid[96], name[96];
        unsigned long long total;
    } gpus[METRICS_MAX_GPUS];
};

/* The labels of a run: host, Slurm's ids (job, gpu_tracker.h), the short
 * command name and the tracked PID, escaped as the format needs. */
void metrics_static_labels(struct metrics_static *st, const char *host, const gt_job_info *job,
                           const char *command, long pid);

/* The short name of a command line: its first word's last path component
 * ("python" for "/usr/bin/python train.py"), at most cap - 1 bytes. */
void metrics_command_name(const char *command_line, char *out, size_t cap);

/* The exposition text of p: *out malloc'd (*len bytes, NUL after), 0; -1
 * when out of memory. openmetrics: OpenMetrics 1.0 (# UNIT lines,
 * counters named without _total in # TYPE, # EOF at the end); else
 * Prometheus's text format 0.0.4. */
int metrics_render(const struct metrics_static *st, const struct metrics_point *p,
                   int openmetrics, char **out, size_t *len);

/* The Content-Type of each format. */
#define METRICS_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* 1 when an Accept header asks for OpenMetrics (as Prometheus's scraper
 * does when it prefers it). */
int metrics_accepts_openmetrics(const char *accept);

/* Where spec ("PORT", ":PORT", "ADDR:PORT", "[IPv6]:PORT", "localhost:PORT")
 * asks to listen: 0, or -1 with a one-line reason in err. No name is looked
 * up (only numeric addresses and "localhost"). */
int metrics_listen_parse(const char *spec, struct sockaddr_storage *addr, socklen_t *len,
                         char *err, size_t errcap);

#endif
