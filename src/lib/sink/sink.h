/* sink/sink.h - the face of the sink wing: where the rows and the summary
 * go while a run is sampled (the row store, the CSV streams, the crash
 * backup file, gpu_tracker's tracking file, the metrics exporter), each
 * behind the one interface of sink_interface.h. Other wings include this
 * header, never the wing's others (tests/test_layers.sh). */
#ifndef GT_SINK_FACE_H
#define GT_SINK_FACE_H

#include "sink/backup_sink.h"
#include "sink/csv_sink.h"
#include "sink/metrics_sink.h"
#include "sink/row_store.h"
#include "sink/sink_interface.h"
#include "sink/sinks.h"
#include "sink/tracking_file.h"

#endif
