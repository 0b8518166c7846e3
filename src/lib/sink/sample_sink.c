/* sample_sink.c - see sample_sink.h. */
#include "sink/sample_sink.h"

#include <string.h>

#include "output/output.h"

/* The row as series_*_csv_row writes it, without its line end. */
static const char *row_text(char *line, size_t len)
{
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    line[len] = '\0';
    return line;
}

static void sample_rows(struct sink *s, const struct pipeline_rows *rows)
{
    struct sample_sink *k = (struct sample_sink *)s;
    if (!k->baseline_seen) {
        k->baseline_seen = 1;
        k->start = rows->now;
    }
    char process[SERIES_CSV_ROW_MAX], system[SERIES_CSV_ROW_MAX];
    gt_sample sample = {
        .struct_size = sizeof sample,
        .elapsed = rows->now - k->start,
        .process_row = rows->have_process
            ? row_text(process, series_process_csv_row(&rows->process, process)) : NULL,
        .system_row = rows->have_system
            ? row_text(system, series_system_csv_row(&rows->system, system)) : NULL,
    };
    k->fn(k->tracker, &sample, k->data);
}

/* The stop's own sample: no rows, last set (none when the sampler is stuck,
 * or the start failed before the baseline). */
static void sample_finish(struct sink *s, const struct pipeline_rows *final)
{
    struct sample_sink *k = (struct sample_sink *)s;
    if (!final || !k->baseline_seen)
        return;
    gt_sample sample = {
        .struct_size = sizeof sample,
        .elapsed = final->now - k->start,
        .last = 1,
    };
    k->fn(k->tracker, &sample, k->data);
}

static const struct sink_ops sample_ops = {.rows = sample_rows, .finish = sample_finish};

void sample_sink_init(struct sample_sink *k, gt_sample_fn fn, void *data, gt_tracker *tracker)
{
    memset(k, 0, sizeof *k);
    k->base.ops = &sample_ops;
    k->fn = fn;
    k->data = data;
    k->tracker = tracker;
}
