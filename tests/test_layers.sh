#!/bin/sh
# The library's headers point down (docs/architecture.md, "Headers point
# down"): every header of src/lib has a layer here, and includes only
# headers of its own layer or below. In layer 2, the readers (producers of
# a sample) and the pure steps and writers (its consumers) share only
# sample.h: neither side includes the other's headers. A new header must be
# given a layer, or this test fails.
set -eu
lib="${1:?usage: test_layers.sh SRC_LIB_DIR}"

layer_of() {
    case "$1" in
    gpu_tracker.h | gpu_tracker_testing.h | internal.h | dl_bind.h | warn.h | file_io.h | background.h | cursor.h | exact_sum.h | hot_path.h | \
        http.h | json_read.h | json_span.h | json_stream.h | json_write.h | pyfloat.h | units.h | options.h | \
        row_source.h | series_columns.h | table_file.h | table_read.h | pandas_text.h | subtrack_results.h | \
        subtrack_blocks.h | metrics_text.h | request_guard.h) echo 0 ;;
    proc_parse.h | sys_parse.h | cgroup_parse.h | pid_index.h | sample.h | usage_json.h | gpu_pidmap.h | \
        drm_fdinfo.h) echo 1 ;;
    procfs.h | tree.h | system.h | system_series.h | gpu.h | server_info.h | cloud_info.h | \
        cgroup.h | cgroup_own.h | rapl.h | gpu_holders.h | drm_clients.h) echo 2R ;;
    usage.h | series.h | pipeline.h | row_store.h | snapshot.h | snapshot_rt.h | stats.h | report.h | \
        write_csv.h | cgroup_usage.h | cgroup_json.h | energy_usage.h | gpu_run.h) echo 2C ;;
    sample_reader.h | sink_interface.h | csv_sink.h | backup_sink.h | backup_identity.h | run_record.h | \
        tracking_file.h | metrics_sink.h) echo 3 ;;
    tracker_internal.h) echo 4 ;;
    *) echo "" ;;
    esac
}

rank() { echo "$1" | cut -c1; }

failures=0
for path in $(find "$lib" -name "*.h"); do
    h=$(basename "$path")
    mine=$(layer_of "$h")
    if [ -z "$mine" ]; then
        echo "test_layers: $h has no layer: add it to tests/test_layers.sh and docs/architecture.md"
        failures=$((failures + 1))
        continue
    fi
    for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$path"); do
        theirs=$(layer_of "$inc")
        [ -n "$theirs" ] || continue # not one of ours (a system header)
        if [ "$(rank "$theirs")" -gt "$(rank "$mine")" ]; then
            echo "test_layers: $h (layer $mine) includes $inc (layer $theirs), a layer above it"
            failures=$((failures + 1))
        elif [ "$mine" != "$theirs" ] && [ "$(rank "$mine")" = 2 ] && [ "$(rank "$theirs")" = 2 ]; then
            echo "test_layers: $h (layer $mine) includes $inc (layer $theirs): producers and" \
                "consumers of a sample share only sample.h"
            failures=$((failures + 1))
        fi
    done
done
if [ "$failures" -gt 0 ]; then
    exit 1
fi
echo "test_layers: every header includes only its layer or below"
