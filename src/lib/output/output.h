/* output/output.h - the face of the output wing: the texts the tracker
 * makes from a run's results beyond the summary's sections (the document
 * that joins them, CSV rows, the exporter's metrics text, the run's
 * record), and the summary's writers they build on, which the tools share
 * (common/summary/). Pure formatting: nothing here samples. Other wings
 * include this header, never the wing's others (tests/test_layers.sh). */
#ifndef GT_OUTPUT_H
#define GT_OUTPUT_H

#include "common/summary/cgroup_json.h"
#include "output/metrics_text.h"
#include "output/results.h"
#include "common/summary/run_parts_json.h"
#include "common/summary/snapshot_parts.h"
#include "output/run_record.h"
#include "common/summary/usage_json.h"
#include "common/summary/who_json.h"
#include "output/write_csv.h"

#endif
