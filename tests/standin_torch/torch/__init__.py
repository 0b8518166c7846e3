"""A stand-in for PyTorch that drives the fake NVML (tests/fake_nvml.c):
just enough of torch's API for tests/gpu_workload.py, so that
tests/gpu_validation.py can be run end to end on a machine without a GPU
(tests/test_gpu_validation_fake.sh). A "CUDA" allocation registers this
process's bytes in the scenario file (FAKE_NVML_SCENARIO); busy work sets
the GPU's utilization to 95 % and adds energy, idling sets it to 0, the
DataLoader's training loop to 10 %. Nothing here computes."""
import fcntl
import os

__version__ = '0.0-standin'

uint8 = 'uint8'
bfloat16 = 'bfloat16'


def _edit(change):
    """Applies change(lines) -> lines to the scenario under a lock (the
    processes of the pair check edit it at once) and renames the result in
    (the tracker re-reads it at every call: never a half-written file)."""
    path = os.environ['FAKE_NVML_SCENARIO']
    with open(path + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path) as f:
            lines = f.read().splitlines()
        tmp = f'{path}.{os.getpid()}'
        with open(tmp, 'w') as f:
            f.write('\n'.join(change(lines)) + '\n')
        os.replace(tmp, path)


def _set_utilization(percent):
    """GPU 0's utilization (its device line's last field)."""
    def change(lines):
        out, first = [], True
        for line in lines:
            fields = line.split()
            if first and fields[:1] == ['device']:
                fields[-1] = str(int(percent))
                line = ' '.join(fields)
                first = False
            out.append(line)
        return out
    _edit(change)


def _set_gpm(metrics):
    """GPU 0's GPM counters (NVML_GPM_METRIC_* id: percent) from now on."""
    def change(lines):
        kept = [line for line in lines if not line.startswith('gpmmetric 0 -1 ')]
        return kept + [f'gpmmetric 0 -1 {i} {v}' for i, v in metrics.items()]
    _edit(change)


def _set_process_sm(percent):
    """This process's SM share of GPU 0 (NVML's process utilization), the
    lines of processes no longer alive dropped."""
    def alive(line):
        try:
            os.kill(int(line.split()[2]), 0)
            return True
        except (OSError, ValueError, IndexError):
            return False

    def change(lines):
        kept = [line for line in lines if not line.startswith('procutil 0 ') or
                (alive(line) and line.split()[2] != str(os.getpid()))]
        return kept + [f'procutil 0 {os.getpid()} {int(percent)}']
    _edit(change)


def _hold(nbytes):
    """This process holds nbytes more on GPU 0, idle for now (one process
    line per allocation: the tracker adds a PID's entries up)."""
    global _held
    _held += nbytes
    _edit(lambda lines: lines + [f'process 0 {os.getpid()} {nbytes}'])
    _set_utilization(0)


def _add_energy(millijoules):
    """The GPU's energy counter moves on (the last energy line counts)."""
    def change(lines):
        now = 0
        for line in lines:
            fields = line.split()
            if fields[:2] == ['energy', '0']:
                now = int(fields[2])
        return lines + [f'energy 0 {now + millijoules}']
    _edit(change)


_held = 0


class Tensor:
    """n elements of 4 bytes; on "cuda", held on GPU 0."""

    def __init__(self, n, device=None, dtype=None):
        self.n = n
        self.dtype = dtype
        if device == 'cuda':
            _hold(n * 4)

    def copy_(self, other):
        """A device-to-device copy: DRAM busy, little math."""
        _set_utilization(95)
        _set_gpm({2: 30, 5: 0, 10: 85})
        return self

    def numel(self):
        return self.n

    def __matmul__(self, other):
        if self.dtype == bfloat16:
            _set_gpm({2: 92, 5: 60, 10: 30})
        _set_utilization(95)
        _add_energy(50000)  # 50 J a step
        return self

    def __truediv__(self, other):
        return self

    def norm(self):
        return 1.0

    def cuda(self):
        return self

    def square(self):
        return self

    def mean(self):
        return self

    def backward(self):
        pass


def ones(n, dtype=None, device=None):
    t = Tensor(0)
    t.n = n
    if device == 'cuda':
        _hold(n)  # uint8: a byte each
    return t


def zeros(n, device=None):
    return Tensor(n, device)


def randn(*shape, device=None, dtype=None):
    n = 1
    for s in shape:
        n *= s
    return Tensor(n, device, dtype)


def empty(n, dtype=None, device=None):
    return ones(n, dtype, device)


def empty_like(t):
    return ones(t.n, t.dtype, 'cuda')


def full(shape, value):
    return Tensor(shape[0])


from . import cuda, nn, optim, utils, version  # noqa: E402,F401  (they use the above)
