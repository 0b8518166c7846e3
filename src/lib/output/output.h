/* output/output.h - the face of the output wing: every text and file the
 * library writes from results (the summary as JSON and as gpu_tracker's
 * text, CSV, snapshots in both formats, the HTML report, the exporter's
 * metrics text, the run's record). Pure formatting and writing: nothing
 * here samples. Other wings include this header, never the wing's others
 * (tests/test_layers.sh). */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include "output/cgroup_json.h"
#include "output/metrics_text.h"
#include "output/report.h"
#include "output/results.h"
#include "output/run_parts_json.h"
#include "output/snapshot_parts.h"
#include "output/run_record.h"
#include "output/snapshot.h"
#include "output/usage_json.h"
#include "output/write_csv.h"

#endif
