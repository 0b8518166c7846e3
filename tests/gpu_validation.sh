#!/bin/sh
# The validation run on real NVIDIA hardware, in one command:
#
#     tests/gpu_validation.sh [BUILD_DIR]
#
# Runs tests/gpu_validation.py's checks (a job of known tensors against
# torch.cuda.memory_reserved plus the context, two processes on one GPU, a
# child on the GPU between samples, an idle holder, the energy against the
# driver's counter read directly, the per-sample cost against the three
# NVML calls it cannot do without, the input-bound verdict on a slow
# DataLoader and its converse, the Python Tracker reading PyTorch's
# allocator) under BUILD_DIR's gpu-tracker (default build/, made with
# `make build` when it or the benchmarks are missing) and prints a Markdown
# table to keep in docs/gpu-validation.md, with the date, driver and GPU.
# Exit 0 when every check that ran passed, 1 when one failed, 77 (skipped,
# with the reason) where there is no NVIDIA driver or no PyTorch with CUDA.
# The card's settings are never changed (accounting, clocks, MIG: as found).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
if [ ! -e /proc/driver/nvidia/version ] &&
   ! python3 -c 'import ctypes; ctypes.CDLL("libnvidia-ml.so.1")' >/dev/null 2>&1; then
    echo "skipped: no NVIDIA driver here (no /proc/driver/nvidia/version, no libnvidia-ml.so.1)"
    exit 77
fi
if ! python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
        >/dev/null 2>&1; then
    echo "skipped: the NVIDIA driver is here but not PyTorch with CUDA (python3 -c 'import torch')"
    exit 77
fi
if [ ! -x "$build/gpu-tracker" ] || [ ! -x "$build/bench/gt-bench-readers" ] ||
   [ ! -x "$build/bench/gt-bench-gpu-calls" ]; then
    make -C "$src" build BUILD_DIR="$build" >&2
fi
# The package for the allocator check, in a virtual environment that sees
# the system's PyTorch; without it that check says it is skipped.
python=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if sh "$src/scripts/python-venv.sh" "$src" "$work" >"$work/venv.log" 2>&1; then
    python=$work/venv/bin/python
else
    echo "note: the Python package could not be built ($(tail -n 1 "$work/venv.log")):" \
         "the allocator check is skipped" >&2
fi
python3 "$src/tests/gpu_validation.py" "$build/gpu-tracker" "$build" "$src" "$python"
