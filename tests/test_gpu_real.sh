#!/bin/sh
# The GPU test on real hardware (CTest label "gpu"; run it with `ctest -L gpu`).
# It runs only where an NVIDIA GPU, its driver and PyTorch with CUDA are
# present, and says it is skipped (exit 77) anywhere else.
#
# 1. A CUDA workload holds 1024 MiB on the GPU and keeps a kernel busy for
#    4 s. The tracked GPU RAM of main must hold the allocation (plus at most
#    1.5 GB: the CUDA context and PyTorch's own buffers are the process's
#    memory too), the GPU utilization must be above 0, and where the driver
#    gives per-process utilization, main's busy kernel must show in it
#    (--gpu-details: read at every sample).
# 2. A child allocates 1024 MiB and ends between two samples (--st 30). With
#    NVML accounting on, its record must lift the descendants' GPU peak to
#    the allocation; with it off, the JSON must say the peaks are sampled
#    and why (the card's setting is the administrator's: we never change it).
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
"$gt" --st 0.2 --gpu-details -f json -o "$out" --gru megabytes --tu seconds -- \
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
pu = d["gpu_details"]["process_utilization"]
if pu["available"]:
    sm = pu["main"]["max_sum_percent"]
    print(f"main's SM utilization, max {sm} %")
    assert sm > 0, "per-process utilization of a busy kernel is 0"
else:
    print(f"no per-process utilization: {pu['reason']}")
run = d["gpu_run"]
print("throttle:", json.dumps(run["throttle"]["share"]), "ECC:", json.dumps(run["ecc"]))
print("ok")
PY

# 2: a GPU child that lives between two samples.
"$gt" --st 30 -f json -o "$out" --gru megabytes --tu seconds -- \
    python3 "$src/tests/gpu_workload.py" spawn 1024 0.3
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
acc = d["gpu_run"]["accounting"]
desc = d["max_gpu_ram"]["descendants"]
want = 1024 * 2**20 / 1e6
print(f"a child between samples: descendants' GPU RAM {desc} MB; accounting {json.dumps(acc)}")
print("max_gpu_ram:", d["measurement"]["sources"]["max_gpu_ram"])
if acc["available"]:
    assert acc["ended_unseen"] >= 1, "the child's record was not found"
    assert want <= desc <= want + 1500, f"descendants' GPU RAM {desc} MB, allocated {want:.1f} MB"
else:
    # missed, as samples miss it, and said so with the reason
    assert "accounting" in acc["reason"], acc
    assert "missed" in d["measurement"]["sources"]["max_gpu_ram"]
    assert desc < want, f"the child was seen by a sample ({desc} MB): the test needs --st longer"
print("ok")
PY
