#!/bin/sh
# tests/gpu_validation.py end to end on a machine without a GPU, so that
# the validation run works before it meets one: the fake NVML answers as
# libnvidia-ml.so.1 and tests/standin_torch plays PyTorch (allocations and
# busy work written into the fake's scenario, DataLoader workers as real
# processes). Every check must pass but two, which say why they did not
# run: the per-sample cost (left out: against the fake it would time the
# fake's file reading, and a timing has no place in the suite) and the
# allocator check (it needs the built package; tests/python/
# test_torch_memory.py has that one).
# usage: test_gpu_validation_fake.sh GPU_TRACKER BUILD_DIR SOURCE_DIR FAKE_NVML
set -eu
gt=$1
build=$2
src=$3
fake=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$fake" "$work/libnvidia-ml.so.1"
printf 'device GPU-1111 Fake-H100 80000000000 1000000000 0\nenergy 0 1000\n' >"$work/scenario"
status=0
FAKE_NVML_SCENARIO=$work/scenario GPU_TRACKER_NVML_LIBRARY=$fake LD_LIBRARY_PATH=$work \
    PYTHONPATH=$src/tests/standin_torch PYTHONDONTWRITEBYTECODE=1 GT_VALIDATION_SKIP="sample cost" \
    python3 "$src/tests/gpu_validation.py" "$gt" "$build" "$src" "" >"$work/table" 2>"$work/err" ||
    status=$?
cat "$work/table"
if [ "$status" != 0 ]; then
    echo "gpu_validation.py exited $status:"
    cat "$work/err"
    exit 1
fi
for check in "CUDA context" "1 GiB of tensors" "two processes on one GPU" \
             "between samples, accounting off" "holding 256 MiB idle" "GPU energy" \
             "slow DataLoader" "the converse: a GPU-bound loop" "bf16 matmul loop" \
             "torch.cuda._sleep in a loop" "device-to-device copies" \
             "two processes sharing a GPU"; do
    if ! grep -q "$check.*| pass |$" "$work/table"; then
        echo "FAIL: no passing row for '$check'"
        exit 1
    fi
done
for check in "sample cost" "PyTorch's allocator"; do
    if ! grep -q "$check.*| skipped: " "$work/table"; then
        echo "FAIL: '$check' neither skipped with a reason"
        exit 1
    fi
done
echo ok
