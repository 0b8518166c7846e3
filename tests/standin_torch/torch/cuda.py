"""torch.cuda of the stand-in (torch/__init__.py)."""
import time


def synchronize():
    time.sleep(0.05)  # a step's wait for the GPU


def memory_reserved():
    from . import _held
    return _held


def is_initialized():
    from . import _held
    return _held > 0


def device_count():
    return 1


def memory_stats(device=0):
    from . import _held
    return {'allocated_bytes.all.current': _held, 'reserved_bytes.all.current': _held,
            'allocated_bytes.all.peak': _held, 'reserved_bytes.all.peak': _held,
            'num_alloc_retries': 0, 'num_ooms': 0}


# Kernel time of this process (torch.cuda._sleep), for its process
# utilization: busy seconds since its first kernel.
_first_kernel = None
_busy = 0.0


def _sleep(cycles):
    """A kernel spinning one thread: the GPU "busy", its SMs idle; it runs
    cycles / 1e9 s (a 1 GHz clock), and this process's SM share is what its
    kernels took of the time since the first."""
    global _first_kernel, _busy
    from . import _held, _hold, _set_gpm, _set_process_sm, _set_utilization
    if not _held:
        _hold(64 * 2**20)  # the context
    now = time.time()
    if _first_kernel is None:
        _first_kernel = now
    time.sleep(cycles / 1e9)
    _busy += cycles / 1e9
    _set_utilization(99)
    _set_gpm({2: 1, 5: 0, 10: 0})
    _set_process_sm(100 * _busy / max(time.time() - _first_kernel, 1e-6))


class Event:
    """Wall time where the real one times the GPU's stream."""

    def __init__(self, enable_timing=False):
        self.at = None

    def record(self):
        self.at = time.time()

    def elapsed_time(self, end):
        return 1000 * (end.at - self.at)
