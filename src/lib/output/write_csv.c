/* write_csv.c - the series as CSV, as Python's csv module writes it with
 * QUOTE_NONNUMERIC: names quoted, numbers bare, floats as Python's repr,
 * "\r\n" line ends. */
#define _GNU_SOURCE
#include "output/write_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file_io.h"
#include "common/internal.h"
#include "common/num.h"
#include "common/pyfloat.h"

const char series_process_csv_header[] =
    "\"timestamp\",\"pid\",\"children\",\"utime\",\"stime\",\"cpu_usage\",\"memory\","
    "\"read_bytes\",\"write_bytes\",\"gpu_usage\",\"gpu_vram\",\"gpu_utilized\"\r\n";

const char series_system_csv_header[] =
    "\"timestamp\",\"processes\",\"utime\",\"stime\",\"cpu_usage\",\"memory_free\","
    "\"memory_used\",\"memory_buffers\",\"memory_cached\",\"memory_active\",\"memory_inactive\","
    "\"disk_read_bytes\",\"disk_write_bytes\",\"disk_space_total_gb\",\"disk_space_used_gb\","
    "\"disk_space_free_gb\",\"net_recv_bytes\",\"net_sent_bytes\",\"gpu_usage\",\"gpu_vram\","
    "\"gpu_utilized\"\r\n";

/* Appends fields to a row buffer. */
struct csv_line {
    char *buf;
    size_t len;
};

static void csv_sep(struct csv_line *l)
{
    if (l->len)
        l->buf[l->len++] = ',';
}

static void csv_float(struct csv_line *l, double v)
{
    csv_sep(l);
    char num[40];
    pyfloat_repr(v, num, sizeof num);
    size_t n = strlen(num);
    memcpy(l->buf + l->len, num, n);
    l->len += n;
}

static void csv_int(struct csv_line *l, long long v)
{
    csv_sep(l);
    l->len += num_i64_digits(v, l->buf + l->len);
}

static void csv_uint(struct csv_line *l, unsigned long long v)
{
    csv_sep(l);
    l->len += num_u64_digits(v, l->buf + l->len);
}

static size_t csv_end(struct csv_line *l)
{
    l->buf[l->len++] = '\r';
    l->buf[l->len++] = '\n';
    l->buf[l->len] = '\0';
    return l->len;
}

size_t series_process_csv_row(const gt_process_row *r, char *buf)
{
    struct csv_line l = {buf, 0};
    csv_float(&l, r->timestamp);
    csv_int(&l, r->pid);
    csv_int(&l, r->children);
    csv_float(&l, r->utime);
    csv_float(&l, r->stime);
    csv_float(&l, r->cpu_usage);
    csv_uint(&l, r->memory);
    csv_uint(&l, r->read_bytes);
    csv_uint(&l, r->write_bytes);
    csv_float(&l, r->gpu_usage);
    csv_float(&l, r->gpu_vram);
    csv_int(&l, r->gpu_utilized);
    return csv_end(&l);
}

size_t series_system_csv_row(const gt_system_row *r, char *buf)
{
    struct csv_line l = {buf, 0};
    csv_float(&l, r->timestamp);
    csv_int(&l, r->processes);
    csv_float(&l, r->utime);
    csv_float(&l, r->stime);
    csv_float(&l, r->cpu_usage);
    csv_uint(&l, r->memory_free);
    csv_uint(&l, r->memory_used);
    csv_uint(&l, r->memory_buffers);
    csv_uint(&l, r->memory_cached);
    csv_uint(&l, r->memory_active);
    csv_uint(&l, r->memory_inactive);
    csv_uint(&l, r->disk_read_bytes);
    csv_uint(&l, r->disk_write_bytes);
    csv_float(&l, r->disk_space_total_gb);
    csv_float(&l, r->disk_space_used_gb);
    csv_float(&l, r->disk_space_free_gb);
    csv_uint(&l, r->net_recv_bytes);
    csv_uint(&l, r->net_sent_bytes);
    csv_float(&l, r->gpu_usage);
    csv_float(&l, r->gpu_vram);
    csv_int(&l, r->gpu_utilized);
    return csv_end(&l);
}

char *gt_series_to_csv(const gt_series *series, gt_series_kind kind)
{
    error_clear();
    if (GT_CHECK_STRUCT("gt_series_to_csv", gt_series, series) != GT_OK)
        return NULL;
    int proc = kind == GT_SERIES_KIND_PROCESS;
    size_t n = proc ? series->nprocess : series->nsystem;
    const char *header = proc ? series_process_csv_header : series_system_csv_header;
    size_t cap = strlen(header) + n * SERIES_CSV_ROW_MAX + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t len = strlen(header);
    memcpy(out, header, len + 1);
    for (size_t i = 0; i < n; i++)
        len += proc ? series_process_csv_row(&series->process[i], out + len)
                    : series_system_csv_row(&series->system[i], out + len);
    return out;
}

gt_status write_csv_rows(const struct row_source *rows, gt_series_kind kind, int fd)
{
    int proc = kind == GT_SERIES_KIND_PROCESS;
    const char *header = proc ? series_process_csv_header : series_system_csv_header;
    size_t n = rows->count[kind], size = proc ? sizeof(gt_process_row) : sizeof(gt_system_row);
    char *batch = malloc(ROW_BATCH * size);
    char *text = malloc(ROW_BATCH * SERIES_CSV_ROW_MAX);
    if (!batch || !text) {
        free(batch);
        free(text);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    gt_status st = GT_OK;
    if (fd_write_all(fd, header, strlen(header)) < 0)
        st = error_set(GT_ERR_IO, "cannot write the %s series: %s", proc ? "process" : "system",
                       strerror(errno));
    for (size_t at = 0; st == GT_OK && at < n; at += ROW_BATCH) {
        size_t take = n - at < ROW_BATCH ? n - at : ROW_BATCH, len = 0;
        if (rows->read(rows, kind, at, take, batch) < 0) {
            st = error_set(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
            break;
        }
        for (size_t i = 0; i < take; i++)
            len += proc ? series_process_csv_row((const gt_process_row *)batch + i, text + len)
                        : series_system_csv_row((const gt_system_row *)batch + i, text + len);
        if (fd_write_all(fd, text, len) < 0)
            st = error_set(GT_ERR_IO, "cannot write the %s series: %s", proc ? "process" : "system",
                           strerror(errno));
    }
    free(batch);
    free(text);
    return st;
}
