#!/bin/sh
# The GPU test on real hardware (CTest label "gpu"; run it with `ctest -L gpu`).
# It runs only where an NVIDIA GPU, its driver and PyTorch with CUDA are
# present, and says it is skipped (exit 77) anywhere else.
#
# A CUDA workload holds 1024 MiB on the GPU and keeps a kernel busy for 4 s.
# The tracked GPU RAM of main must hold the allocation (plus at most 1.5 GB:
# the CUDA context and PyTorch's own buffers are the process's memory too),
# and the GPU utilization must be above 0.
# usage: test_gpu_real.sh GPU_TRACKER_BINARY SOURCE_DIR
set -eu
gt=$1
src=$2
if ! python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
        >/dev/null 2>&1; then
    echo "skipped: needs an NVIDIA GPU with its driver, and PyTorch with CUDA"
    exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$gt" --st 0.2 -f json -o "$out" --gru megabytes --tu seconds -- \
    python3 "$src/tests/gpu_workload.py" 1024 4
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
main = d["max_gpu_ram"]["main"]
util = d["gpu_utilization"]["gpu_percentages"]["max_sum_percent"]
want = 1024 * 2**20 / 1e6
print(f"main GPU RAM {main} MB (allocated {want:.1f} MB), max GPU utilization {util} %")
print(json.dumps(d["gpu_details"], indent=1))
assert d["measurement"]["gpu"]["available"], d["measurement"]["gpu"]
assert want <= main <= want + 1500, f"main GPU RAM {main} MB, allocated {want:.1f} MB"
assert util > 0, "GPU utilization 0"
print("ok")
PY
