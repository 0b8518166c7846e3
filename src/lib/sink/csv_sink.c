/* csv_sink.c - see csv_sink.h. */
#include "sink/csv_sink.h"

#include <errno.h>
#include <string.h>

#include "common/file_io.h"
#include "output/output.h"

static const char *const kind_names[2] = {"process", "system"};

/* One line to the kind's descriptor; a failure stops that series' writing
 * with one warning (the rows stay in the row store). */
static void write_line(struct csv_sink *c, gt_series_kind kind, const char *line, size_t len)
{
    if (c->fd[kind] < 0 || c->failed[kind])
        return;
    if (fd_write_all(c->fd[kind], line, len) == 0)
        return;
    c->failed[kind] = 1;
    warn_once(c->warn_channel, kind == GT_SERIES_KIND_PROCESS ? WARN_CSV_PROCESS : WARN_CSV_SYSTEM,
              "cannot write the %s series: %s; its rows are kept in memory only",
              kind_names[kind], strerror(errno));
}

static void csv_rows(struct sink *s, const struct pipeline_rows *rows)
{
    struct csv_sink *c = (struct csv_sink *)s;
    char line[SERIES_CSV_ROW_MAX];
    if (rows->have_process)
        write_line(c, GT_SERIES_KIND_PROCESS, line, series_process_csv_row(&rows->process, line));
    if (rows->have_system)
        write_line(c, GT_SERIES_KIND_SYSTEM, line, series_system_csv_row(&rows->system, line));
}

static void csv_start(struct sink *s, double epoch_start)
{
    (void)epoch_start;
    struct csv_sink *c = (struct csv_sink *)s;
    if (c->no_header)
        return;
    write_line(c, GT_SERIES_KIND_PROCESS, series_process_csv_header,
               strlen(series_process_csv_header));
    write_line(c, GT_SERIES_KIND_SYSTEM, series_system_csv_header,
               strlen(series_system_csv_header));
}

static const struct sink_ops csv_ops = {.start = csv_start, .rows = csv_rows};

void csv_sink_init(struct csv_sink *c, int process_fd, int system_fd, int no_header,
                   struct warn_channel *w)
{
    memset(c, 0, sizeof *c);
    c->base.ops = &csv_ops;
    c->fd[GT_SERIES_KIND_PROCESS] = process_fd;
    c->fd[GT_SERIES_KIND_SYSTEM] = system_fd;
    c->no_header = no_header;
    c->warn_channel = w;
}
