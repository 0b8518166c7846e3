/* metrics_text.c - the exporter's exposition text (metrics_text.h). The
 * formats: https://prometheus.io/docs/instrumenting/exposition_formats/
 * and the OpenMetrics 1.0 specification. */
#define _GNU_SOURCE
#include "output/metrics_text.h"

#include "common/gpu_advice.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/json_write.h"
#include "common/pyfloat.h"
#include "common/toolkit.h"

/* value as a label value: valid UTF-8 with '\\', '"' and newlines escaped,
 * appended to out (cap bytes, always terminated). */
static void append_label(char *out, size_t cap, const char *name, const char *value)
{
    if (!value || !*value)
        return;
    /* Made valid UTF-8 (U+FFFD for a stray byte), then through the one
     * escaper: a control character (an ESC a job put in its command) is
     * shown as the text \xNN, never stored raw for a terminal that reads
     * the Pushgateway's or our /metrics. */
    char valid[512], clean[2048];
    utf8_sanitize(value, valid, sizeof valid);
    text_escape_into(valid, clean, sizeof clean);
    size_t n = strlen(out);
    int wrote = snprintf(out + n, cap - n, "%s%s=\"", n ? "," : "", name);
    if (wrote < 0 || (size_t)wrote >= cap - n) {
        out[n] = '\0'; /* no room: the label is left out, never cut */
        return;
    }
    size_t at = n + (size_t)wrote;
    for (const char *c = clean; *c; c++) {
        const char *esc = *c == '\\' ? "\\\\" : *c == '"' ? "\\\"" : *c == '\n' ? "\\n" : NULL;
        size_t need = esc ? 2 : 1;
        if (at + need + 2 >= cap) {
            out[n] = '\0';
            return;
        }
        if (esc) {
            memcpy(out + at, esc, 2);
        } else {
            out[at] = *c;
        }
        at += need;
    }
    out[at++] = '"';
    out[at] = '\0';
}

void metrics_command_name(const char *command_line, char *out, size_t cap)
{
    if (cap == 0)
        return;
    out[0] = '\0';
    if (!command_line)
        return;
    /* The first word, as shlex_join writes it: bare, or in single quotes
     * when it holds a blank (the rare word with a quote inside is cut at
     * it: a label needs only a recognisable name). */
    const char *s = command_line + strspn(command_line, " \t");
    size_t word;
    if (*s == '\'') {
        s++;
        word = strcspn(s, "'");
    } else {
        word = strcspn(s, " \t");
    }
    const char *base = s;
    for (size_t i = 0; i < word; i++)
        if (s[i] == '/')
            base = s + i + 1;
    size_t n = (size_t)(s + word - base);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

void metrics_static_labels(struct metrics_static *st, const char *host, const gt_job_info *job,
                           const char *command, long pid)
{
    char *l = st->labels;
    size_t cap = sizeof st->labels;
    l[0] = '\0';
    append_label(l, cap, "host", host);
    if (job) {
        append_label(l, cap, "job_id", job->job_id);
        append_label(l, cap, "array_job_id", job->array_job_id);
        append_label(l, cap, "array_task_id", job->array_task_id);
        append_label(l, cap, "step_id", job->step_id);
        append_label(l, cap, "task_rank", job->task_rank);
    }
    char name[256];
    metrics_command_name(command, name, sizeof name);
    append_label(l, cap, "command", name);
    char p[32];
    snprintf(p, sizeof p, "%ld", pid);
    append_label(l, cap, "pid", p);
}

int metrics_accepts_openmetrics(const char *accept)
{
    return accept && strcasestr(accept, "application/openmetrics-text") != NULL;
}

/* A renderer: the stream, the run's labels, the format. */
struct out {
    FILE *f;
    const struct metrics_static *st;
    int om;
};

/* A family's header. name is the family's name as OpenMetrics has it
 * (counters without _total); unit: its unit suffix, or NULL. */
static void family(struct out *o, const char *name, const char *type, const char *unit,
                   const char *help)
{
    int counter = strcmp(type, "counter") == 0;
    const char *total = counter && !o->om ? "_total" : "";
    fprintf(o->f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, total, help, name, total, type);
    if (o->om && unit)
        fprintf(o->f, "# UNIT %s %s\n", name, unit);
}

/* One sample line: name{run labels, extra} value. */
static void sample_text(struct out *o, const char *name, const char *suffix, const char *extra,
                        const char *value)
{
    const char *run = o->st->labels;
    int any = run[0] || (extra && extra[0]);
    fprintf(o->f, "%s%s%s%s%s%s%s %s\n", name, suffix, any ? "{" : "", run,
            run[0] && extra && extra[0] ? "," : "", extra ? extra : "", any ? "}" : "", value);
}

static void sample_u(struct out *o, const char *name, const char *suffix, const char *extra,
                     unsigned long long v)
{
    char t[32];
    snprintf(t, sizeof t, "%llu", v);
    sample_text(o, name, suffix, extra, t);
}

static void sample_d(struct out *o, const char *name, const char *suffix, const char *extra,
                     double v)
{
    char t[40];
    pyfloat_repr(v, t, sizeof t);
    sample_text(o, name, suffix, extra, t);
}

static const char *const parts[3] = {"part=\"main\"", "part=\"descendants\"", "part=\"combined\""};

/* A family of one sample without labels of its own. */
static void single_u(struct out *o, const char *name, const char *type, const char *unit,
                     const char *help, unsigned long long v)
{
    family(o, name, type, unit, help);
    sample_u(o, name, strcmp(type, "counter") == 0 ? "_total" : "", NULL, v);
}

/* A gauge of bytes for main, descendants (and combined when n is 3). */
static void parts_bytes(struct out *o, const char *name, const char *help,
                        const unsigned long long *v, int n)
{
    family(o, name, "gauge", "bytes", help);
    for (int i = 0; i < n; i++)
        sample_u(o, name, "", parts[i], v[i]);
}

/* Device i's labels: its index, UUID and name. */
static const char *gpu_labels(const struct metrics_static *st, int i, char *out, size_t cap)
{
    snprintf(out, cap, "gpu=\"%d\"", i);
    append_label(out, cap, "uuid", st->gpus[i].uuid);
    append_label(out, cap, "name", st->gpus[i].name);
    return out;
}

/* The GPUs' activity counters, PCIe rates, throttle reasons and the
 * tracked processes' SM share, each family only when some GPU gave it. */
static void gpu_activity_families(struct out *o, const struct metrics_static *st,
                                  const struct metrics_point *p, int ngpus)
{
    char gpu[512], labels[600];
    int any = 0, pcie = 0;
    for (int i = 0; i < ngpus; i++) {
        any |= p->gpu_activity[i].read != 0;
        pcie |= p->gpu_activity[i].pcie_read;
    }
    if (any) {
        family(o, "gpu_tracker_gpu_activity_ratio", "gauge", "ratio",
               "Share of the last interval each activity counter of the GPU was active "
               "(counter: sm, sm_occupancy, tensor, dram, fp64, fp32, fp16, gfx; 0 to 1).");
        for (int i = 0; i < ngpus; i++)
            for (int m = 0; m < GPU_ACTIVITY_N; m++)
                if (p->gpu_activity[i].read >> m & 1) {
                    gpu_labels(st, i, gpu, sizeof gpu);
                    snprintf(labels, sizeof labels, "%s,counter=\"%s\"", gpu,
                             gpu_activity_name(m));
                    sample_d(o, "gpu_tracker_gpu_activity_ratio", "", labels,
                             p->gpu_activity[i].percent[m] / 100.0);
                }
    }
    if (pcie) {
        family(o, "gpu_tracker_gpu_pcie_bytes_per_second", "gauge", NULL,
               "PCIe traffic of the GPU over the last interval (direction: tx out, rx in).");
        for (int i = 0; i < ngpus; i++)
            for (int dir = 0; dir < 2 && p->gpu_activity[i].pcie_read; dir++) {
                gpu_labels(st, i, gpu, sizeof gpu);
                snprintf(labels, sizeof labels, "%s,direction=\"%s\"", gpu, dir ? "rx" : "tx");
                sample_d(o, "gpu_tracker_gpu_pcie_bytes_per_second", "", labels,
                         dir ? p->gpu_activity[i].pcie_rx : p->gpu_activity[i].pcie_tx);
            }
    }
    unsigned long long mask = ngpus >= 64 ? ~0ULL : (1ULL << ngpus) - 1;
    if (p->gpu_throttle_read & mask) {
        family(o, "gpu_tracker_gpu_throttle_reason", "gauge", NULL,
               "1 while the reason holds the GPU's clocks down at the last sample.");
        for (int i = 0; i < ngpus; i++)
            for (int r = 1; r < GT_GPU_THROTTLE_REASONS && (p->gpu_throttle_read >> i & 1); r++) {
                gpu_labels(st, i, gpu, sizeof gpu);
                snprintf(labels, sizeof labels, "%s,reason=\"%s\"", gpu, gpu_throttle_name(r));
                sample_u(o, "gpu_tracker_gpu_throttle_reason", "", labels,
                         p->gpu_throttle[i] >> r & 1);
            }
    }
    if (p->gpu_share_read & mask) {
        family(o, "gpu_tracker_gpu_process_sm_ratio", "gauge", "ratio",
               "Share of the GPU's time the tracked processes' kernels ran (0 to 1).");
        for (int i = 0; i < ngpus; i++)
            if (p->gpu_share_read >> i & 1)
                sample_d(o, "gpu_tracker_gpu_process_sm_ratio", "",
                         gpu_labels(st, i, gpu, sizeof gpu), p->gpu_job_sm[i] / 100.0);
    }
}

static void render(struct out *o, const struct metrics_point *p)
{
    const struct metrics_static *st = o->st;
    family(o, "gpu_tracker_start_time_seconds", "gauge", "seconds",
           "When tracking began (the baseline sample), seconds since the epoch.");
    sample_d(o, "gpu_tracker_start_time_seconds", "", NULL, st->start_time);
    single_u(o, "gpu_tracker_samples", "counter", NULL, "Samples taken, the baseline included.",
             (unsigned long long)p->samples);

    if (p->tree_ok) {
        parts_bytes(o, "gpu_tracker_memory_rss_bytes",
                    "Resident memory of the tracked processes now (combined: shared pages once).",
                    p->rss, 3);
        parts_bytes(o, "gpu_tracker_memory_private_bytes",
                    "Memory mapped by one process only, now.", p->private_bytes, 2);
        parts_bytes(o, "gpu_tracker_memory_shared_bytes",
                    "Memory also mapped by another process, now.", p->shared_bytes, 2);
        if (p->have_pss) {
            single_u(o, "gpu_tracker_memory_pss_bytes", "gauge", "bytes",
                     "Proportional set size of the tracked tree now.", p->pss);
        }
        family(o, "gpu_tracker_threads", "gauge", NULL, "Threads of the tracked processes now.");
        for (int i = 0; i < 2; i++)
            sample_u(o, "gpu_tracker_threads", "", parts[i],
                     p->threads[i] > 0 ? (unsigned long long)p->threads[i] : 0);
        single_u(o, "gpu_tracker_processes", "gauge", NULL,
                 "The tracked process and its live descendants.",
                 p->processes > 0 ? (unsigned long long)p->processes : 0);
    }
    parts_bytes(o, "gpu_tracker_memory_peak_rss_bytes",
                "Peak resident memory so far, never below the kernel's high-water marks.",
                p->peak_rss, 3);
    parts_bytes(o, "gpu_tracker_memory_peak_private_bytes",
                "Private memory at the peak so far.", p->peak_private, 3);
    parts_bytes(o, "gpu_tracker_memory_peak_shared_bytes", "Shared memory at the peak so far.",
                p->peak_shared, 3);
    family(o, "gpu_tracker_cpu_seconds", "counter", "seconds",
           "CPU time (user and system) used since tracking began.");
    for (int i = 0; i < 2; i++)
        sample_d(o, "gpu_tracker_cpu_seconds", "_total", parts[i], p->cpu_seconds[i]);
    if (p->have_io) {
        single_u(o, "gpu_tracker_io_read_bytes", "counter", "bytes",
                 "Bytes the tracked tree read from storage (/proc/PID/io read_bytes).",
                 p->read_bytes);
        single_u(o, "gpu_tracker_io_written_bytes", "counter", "bytes",
                 "Bytes the tracked tree wrote to storage (/proc/PID/io write_bytes).",
                 p->write_bytes);
    }
    if (p->sys_ok) {
        single_u(o, "gpu_tracker_system_memory_used_bytes", "gauge", "bytes",
                 "Memory in use on the machine now (MemTotal - MemAvailable).", p->system_used);
        single_u(o, "gpu_tracker_system_memory_total_bytes", "gauge", "bytes",
                 "The machine's memory (MemTotal).", p->system_total);
    }
    int ngpus = p->ngpus < st->ngpus ? p->ngpus : st->ngpus;
    if (ngpus > 0) {
        char gpu[512];
        family(o, "gpu_tracker_gpu_memory_used_bytes", "gauge", "bytes",
               "GPU memory in use on the device now, by every process.");
        for (int i = 0; i < ngpus; i++)
            sample_u(o, "gpu_tracker_gpu_memory_used_bytes", "", gpu_labels(st, i, gpu, sizeof gpu),
                     p->gpu_used[i]);
        family(o, "gpu_tracker_gpu_memory_total_bytes", "gauge", "bytes",
               "GPU memory of the device.");
        for (int i = 0; i < ngpus; i++)
            sample_u(o, "gpu_tracker_gpu_memory_total_bytes", "", gpu_labels(st, i, gpu, sizeof gpu),
                     st->gpus[i].total);
        int any_util = 0;
        for (int i = 0; i < ngpus; i++)
            any_util |= p->gpu_util[i] >= 0;
        if (any_util) {
            family(o, "gpu_tracker_gpu_utilization_ratio", "gauge", "ratio",
                   "Share of the last sample period the device was busy (0 to 1).");
            for (int i = 0; i < ngpus; i++)
                if (p->gpu_util[i] >= 0)
                    sample_d(o, "gpu_tracker_gpu_utilization_ratio", "",
                             gpu_labels(st, i, gpu, sizeof gpu),
                             p->gpu_util[i] / 100.0);
        }
        gpu_activity_families(o, st, p, ngpus);
        if (p->have_gpu_tree) {
            single_u(o, "gpu_tracker_gpu_process_memory_bytes", "gauge", "bytes",
                     "GPU memory of the tracked processes now, all devices.", p->gpu_tree_now);
        }
        parts_bytes(o, "gpu_tracker_gpu_process_memory_peak_bytes",
                    "Peak GPU memory of the tracked processes so far, all devices.",
                    p->gpu_tree_peak, 3);
        if (p->energy_ok) {
            family(o, "gpu_tracker_gpu_energy_joules", "counter", "joules",
                   "Energy of the selected GPUs since tracking began.");
            sample_d(o, "gpu_tracker_gpu_energy_joules", "_total", NULL, p->energy_joules);
        }
    }
    if (o->om)
        fputs("# EOF\n", o->f);
}

int metrics_render(const struct metrics_static *st, const struct metrics_point *p,
                   int openmetrics, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return -1;
    struct out o = {f, st, openmetrics};
    render(&o, p);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed || !text) {
        free(text);
        return -1;
    }
    *out = text;
    *len = n;
    return 0;
}

int metrics_listen_parse(const char *spec, struct sockaddr_storage *addr, socklen_t *len,
                         char *err, size_t errcap)
{
    memset(addr, 0, sizeof *addr);
    static const char valid[] = "give PORT, ADDR:PORT or [IPv6]:PORT, with a numeric address "
                                "(or localhost) and a port from 0 (any free one) to 65535";
    if (!spec || !*spec || strlen(spec) > 80) {
        snprintf(err, errcap, "invalid metrics address '%.80s': %s", spec ? spec : "", valid);
        return -1;
    }
    char host[81] = "";
    const char *port;
    if (spec[0] == '[') {
        const char *close = strchr(spec, ']');
        if (!close || close[1] != ':') {
            snprintf(err, errcap, "invalid metrics address '%s': %s", spec, valid);
            return -1;
        }
        snprintf(host, sizeof host, "%.*s", (int)(close - spec - 1), spec + 1);
        port = close + 2;
    } else {
        const char *colon = strrchr(spec, ':');
        if (colon && strchr(spec, ':') != colon) {
            snprintf(err, errcap, "invalid metrics address '%s': write an IPv6 address in "
                     "brackets, as [::1]:9101", spec);
            return -1;
        }
        if (colon)
            snprintf(host, sizeof host, "%.*s", (int)(colon - spec), spec);
        port = colon ? colon + 1 : spec;
    }
    char *end;
    errno = 0;
    long p = *port >= '0' && *port <= '9' ? strtol(port, &end, 10) : -1;
    if (p < 0 || p > 65535 || errno || *end) {
        snprintf(err, errcap, "invalid metrics address '%s': %s", spec, valid);
        return -1;
    }
    if (!host[0] || strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1"); /* loopback unless told otherwise */
    struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((unsigned short)p);
        *len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((unsigned short)p);
        *len = sizeof *v6;
    } else {
        snprintf(err, errcap, "invalid metrics address '%s': '%s' is not a numeric address; %s",
                 spec, host, valid);
        return -1;
    }
    return 0;
}
