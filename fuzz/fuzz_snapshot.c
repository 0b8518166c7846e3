/* libFuzzer target: the snapshot loader (gzip or plain JSON, every key and
 * type checked; a merged job's tasks too), and what is done with a
 * snapshot that loads: its stats, recommendation, job view, JSON and HTML
 * report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu_tracker_tools.h"
#include "snapshot/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_snapshot *s = NULL;
    if (snapshot_read_memory(data, size, "fuzz", &s) != GT_OK)
        return 0;
    gt_stats st = {0};
    if (gt_snapshot_stats(s, &st) == GT_OK) {
        gt_recommendation r = {0};
        gt_recommend(&st, &r);
    }
    gt_job_summary *j = NULL;
    if (gt_job_summarize(s, &j) == GT_OK)
        free(gt_job_summary_to_json(j));
    gt_job_summary_free(j);
    free(gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER));
    free(gt_snapshot_report_html(s, NULL, NULL));
    gt_snapshot_free(s);
    return 0;
}
