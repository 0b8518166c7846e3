"""GPU memory explained: the in-process Tracker reads PyTorch's caching
allocator (torch.cuda.memory_stats) when the program imported torch and
initialised CUDA, never otherwise. A stand-in torch module, whose
memory_stats the test scripts, plays PyTorch (as the fake NVML plays the
driver); tests/gpu_validation.sh reads the real one on a GPU machine."""
import logging
import os
import subprocess
import sys
import threading
import types

import pytest

import gputracker
from gputracker._torch_memory import AllocatorWatch

MIB = 1024 * 1024


def stats(allocated, reserved, allocated_peak=None, reserved_peak=None, retries=0, ooms=0):
    """A memory_stats() dict with the keys read, among others PyTorch has."""
    return {'allocated_bytes.all.current': allocated,
            'allocated_bytes.all.peak': allocated_peak or allocated,
            'reserved_bytes.all.current': reserved,
            'reserved_bytes.all.peak': reserved_peak or reserved,
            'num_alloc_retries': retries, 'num_ooms': ooms,
            'active_bytes.all.current': allocated, 'segment.all.current': 3}


class StandInCuda:
    """torch.cuda as far as the Tracker asks: is_initialized, device_count,
    memory_stats(device), which answers the script's steps in turn (the last
    one from then on) and counts its calls."""

    def __init__(self, script, initialized=True, devices=1, fail=False):
        self.script = list(script)
        self.initialized = initialized
        self.devices = devices
        self.fail = fail
        self.calls = 0
        self.served = threading.Event()

    def is_initialized(self):
        return self.initialized

    def device_count(self):
        return self.devices

    def memory_stats(self, device):
        if self.fail:
            raise RuntimeError('CUDA error: an illegal memory access was encountered')
        if device > 0:
            return {}  # a device this process has not used
        self.calls += 1
        step = self.script[min(self.calls, len(self.script)) - 1]
        if self.calls >= len(self.script):
            self.served.set()
        return dict(step)


@pytest.fixture
def standin(monkeypatch):
    def install(*args, **kwargs):
        cuda = StandInCuda(*args, **kwargs)
        monkeypatch.setitem(sys.modules, 'torch', types.SimpleNamespace(cuda=cuda))
        return cuda
    return install


def test_tensors_and_cache_at_the_allocators_peak(standin, caplog):
    # The program grows to 600 MiB of tensors in 1 GiB reserved, frees down
    # to 100 MiB (the cache keeps 1 GiB), then the allocator retries twice
    # and meets an OOM: fragmentation, said.
    cuda = standin([stats(100 * MIB, 128 * MIB),
                    stats(600 * MIB, 1024 * MIB),
                    stats(100 * MIB, 1024 * MIB, allocated_peak=600 * MIB),
                    stats(100 * MIB, 512 * MIB, allocated_peak=600 * MIB,
                          reserved_peak=1024 * MIB, retries=2, ooms=1)],
                   devices=2)
    threads_before = len(os.listdir('/proc/self/task'))
    with caplog.at_level(logging.WARNING):
        with gputracker.Tracker(sleep_time=0.1) as tracker:
            assert cuda.served.wait(60), 'the Tracker never read the allocator'
    # The reading thread is the tracker's, left out as the library's own.
    assert tracker.resource_usage.cpu_utilization.main_n_threads == threads_before
    explained = tracker.gpu_memory
    assert explained['source'] == 'torch.cuda.memory_stats'
    assert explained['devices'] == [0] and explained['samples'] >= 4
    assert explained['at_peak']['reserved_bytes'] == 1024 * MIB
    assert explained['at_peak']['allocated_bytes'] == 600 * MIB  # the first sample at 1 GiB
    assert explained['at_peak']['cached_bytes'] == 424 * MIB
    assert explained['at_peak']['at_seconds'] >= 0
    assert explained['allocated_peak_bytes'] == 600 * MIB
    assert explained['reserved_peak_bytes'] == 1024 * MIB
    assert explained['alloc_retries'] == 2 and explained['ooms'] == 1
    # No GPU here: the driver's figure is unknown, the rest not guessed.
    assert explained['driver_peak_bytes'] is None and explained['other_bytes'] is None
    summary = explained['summary']
    assert "1.00 GiB reserved: 600 MiB tensors, 424 MiB cached by the allocator" in summary
    assert '2 allocation retries: the allocator had to free its cache to fit a block' in summary
    assert 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True' in summary
    assert '1 out-of-memory error even after freeing the cache' in summary
    assert any(r.getMessage() == f'GPU memory: {summary}' for r in caplog.records)
    # gpu_tracker's own dictionary is unchanged by it.
    assert 'gpu_memory' not in tracker.to_json()


def test_the_driver_figure_beside_the_allocators():
    watch = AllocatorWatch(1.0)
    cuda = StandInCuda([stats(3000 * MIB, 4096 * MIB)])
    sys.modules['torch'] = types.SimpleNamespace(cuda=cuda)
    try:
        watch.start()
        watch.stop()
    finally:
        del sys.modules['torch']
    report = watch.report(4096 * MIB + 500 * MIB)
    assert report['other_bytes'] == 500 * MIB and report['driver_peak_bytes'] == 4596 * MIB
    assert ('the driver counted 4.49 GiB at the process\'s peak, 500 MiB beyond the '
            'allocator\'s (CUDA context, libraries)') in report['summary']
    assert 'retr' not in report['summary'] and 'out-of-memory' not in report['summary']
    # A driver figure below the allocator's (another process's peak, a
    # sample that missed it) explains nothing: not subtracted.
    assert watch.report(100 * MIB)['other_bytes'] is None


def test_cuda_not_initialised_is_not_initialised_by_us(standin):
    cuda = standin([stats(1, 1)], initialized=False)
    with gputracker.Tracker(sleep_time=0.1, disable_logs=True) as tracker:
        pass
    assert cuda.calls == 0 and tracker.gpu_memory is None


def test_a_failing_allocator_reading_is_no_figure(standin):
    cuda = standin([stats(1, 1)], fail=True)
    with gputracker.Tracker(sleep_time=0.1, disable_logs=True) as tracker:
        pass
    assert cuda.calls == 0 and tracker.gpu_memory is None


def test_another_process_tracked_is_not_read(standin):
    cuda = standin([stats(5 * MIB, 8 * MIB)])
    child = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'],
                             stdin=subprocess.PIPE)
    try:
        with gputracker.Tracker(sleep_time=0.1, process_id=child.pid, disable_logs=True) as tracker:
            pass
    finally:
        child.communicate(b'')
    assert cuda.calls == 0 and tracker.gpu_memory is None
    with pytest.raises(RuntimeError, match='before tracking completes'):
        gputracker.Tracker(disable_logs=True).gpu_memory


def test_torch_is_never_imported():
    code = ('import sys, gputracker\n'
            'with gputracker.Tracker(sleep_time=0.1, disable_logs=True) as t:\n'
            '    pass\n'
            'print("torch" in sys.modules, t.gpu_memory)\n')
    run = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True,
                         env={**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)})
    assert run.stdout == 'False None\n', run.stderr
