/* output/output.h - the face of the output wing: every text the tracker
 * makes from results (the summary as JSON and as gpu_tracker's text, the
 * JSON of its parts, CSV rows, the exporter's metrics text), the run's
 * record and a snapshot's parts in memory (the tools' snapshot/ writes and
 * reads them). Pure formatting: nothing here samples. Other wings include this header, never the wing's others
 * (tests/test_layers.sh). */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include "output/cgroup_json.h"
#include "output/metrics_text.h"
#include "output/results.h"
#include "output/run_parts_json.h"
#include "output/snapshot_parts.h"
#include "output/run_record.h"
#include "output/usage_json.h"
#include "output/who_json.h"
#include "output/write_csv.h"

#endif
