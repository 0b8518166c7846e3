/* libFuzzer target: the snapshot loader (gzip or plain JSON, every key and
 * type checked), and what is done with a snapshot that loads: its stats,
 * recommendation, JSON and HTML report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpu_tracker.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_snapshot *s = NULL;
    if (snapshot_read_memory(data, size, "fuzz", &s) != GT_OK)
        return 0;
    gt_stats st;
    if (gt_snapshot_stats(s, &st) == GT_OK) {
        gt_recommendation r;
        gt_recommend(&st, &r);
    }
    free(gt_snapshot_to_json(s));
    free(gt_snapshot_report_html(s, NULL));
    gt_snapshot_free(s);
    return 0;
}
