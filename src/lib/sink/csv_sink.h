/* csv_sink.h - the series written as CSV to the caller's descriptors, a line
 * per row as it is made (gt_options.process_csv_fd / system_csv_fd). */
#ifndef GT_CSV_SINK_H
#define GT_CSV_SINK_H

#include "sink/sink_interface.h"
#include "common/warn.h"

struct csv_sink {
    struct sink base;
    int fd[2];                /* by gt_series_kind; -1: not written */
    /* Writing failed at some row (a warning said why): later rows are
     * not written there, the row store keeps them. Read by the API. */
    int failed[2];
    int no_header;            /* options.csv_no_header */
    struct warn_channel *warn_channel;
};

/* A sink writing process rows to process_fd and system rows to system_fd
 * (either -1: none), each after its header line (when sampling begins;
 * no_header: none). The descriptors stay the caller's. */
void csv_sink_init(struct csv_sink *c, int process_fd, int system_fd, int no_header,
                   struct warn_channel *w);

#endif
