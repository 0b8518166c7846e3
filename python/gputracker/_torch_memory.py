"""GPU memory explained: what PyTorch's CUDA caching allocator held beside
what the driver counted (docs/python.md, "GPU memory explained").

When the tracked program is this Python process and it has imported torch
with CUDA initialised, a Tracker also reads torch.cuda.memory_stats() at
its sampling interval: allocated (tensors) and reserved (what the
allocator holds from the driver), current and peak, the allocation
retries and OOMs that tell of fragmentation. torch is looked up in
sys.modules, never imported: a program that did not import it pays only
that lookup, and one that did but has not initialised CUDA is never made
to (is_initialized() is asked first)."""
from __future__ import annotations

import sys
import threading
import time

from . import _native

# The keys of memory_stats() read at each sample (all pools together).
_ALLOCATED = 'allocated_bytes.all.current'
_ALLOCATED_PEAK = 'allocated_bytes.all.peak'
_RESERVED = 'reserved_bytes.all.current'
_RESERVED_PEAK = 'reserved_bytes.all.peak'
_RETRIES = 'num_alloc_retries'
_OOMS = 'num_ooms'


def _cuda_in_use():
    """torch.cuda when this process imported torch and initialised CUDA; None
    otherwise (torch never imported nor CUDA initialised here)."""
    torch = sys.modules.get('torch')
    cuda = getattr(torch, 'cuda', None) if torch is not None else None
    if cuda is None:
        return None
    try:
        return cuda if cuda.is_initialized() else None
    except Exception:  # a broken or partial torch: no figures, never an error
        return None


def _read(cuda) -> dict[int, dict] | None:
    """memory_stats() of each device, the keys above; None when it fails."""
    try:
        out = {}
        for device in range(int(cuda.device_count())):
            stats = cuda.memory_stats(device)
            if not stats:
                continue  # a device this process has not used
            out[device] = {key: int(stats.get(key, 0)) for key in
                           (_ALLOCATED, _ALLOCATED_PEAK, _RESERVED, _RESERVED_PEAK, _RETRIES, _OOMS)}
        return out
    except Exception:
        return None


class AllocatorWatch:
    """Reads the allocator every interval seconds on a daemon thread between
    start() and stop(), keeping the sample where the allocator held the most
    (reserved, all devices) and the run's peaks and counters."""

    def __init__(self, interval: float):
        self._interval = interval
        self._stop = threading.Event()
        self._thread = None
        self._start = 0.0
        self._lock = threading.Lock()
        self.samples = 0
        self.failed = False
        self._at_peak = None       # (seconds, {device: stats}) at the most reserved
        self._last = {}            # device: the latest stats (the counters only grow)

    def start(self):
        self._start = time.monotonic()
        self.sample()
        self._thread = threading.Thread(target=self._run, name='gputracker-torch-memory', daemon=True)
        self._thread.start()

    def _run(self):
        # The tracker's work, not the program's: a tracker of this process
        # leaves this thread's CPU and its count out, as the library's own.
        _native.library_thread_enter()
        try:
            while not self._stop.wait(self._interval):
                self.sample()
        finally:
            _native.library_thread_leave()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()  # the last word: a run shorter than the interval has one

    def sample(self):
        """One reading, when CUDA is in use in this process."""
        cuda = _cuda_in_use()
        if cuda is None:
            return
        stats = _read(cuda)
        with self._lock:
            if stats is None:
                self.failed = True
                return
            if not stats:
                return
            self.samples += 1
            self._last.update(stats)
            reserved = sum(s[_RESERVED] for s in stats.values())
            if self._at_peak is None or reserved > sum(s[_RESERVED] for s in self._at_peak[1].values()):
                self._at_peak = (time.monotonic() - self._start, stats)

    def report(self, driver_peak_bytes: float | None) -> dict | None:
        """What the allocator held, or None when no sample read it (torch not
        imported, CUDA not initialised, another process tracked).
        driver_peak_bytes: the tracker's peak GPU memory of this process as the
        driver counted it (None or 0 when not known)."""
        with self._lock:
            if self._at_peak is None:
                return None
            at, stats = self._at_peak
            allocated = sum(s[_ALLOCATED] for s in stats.values())
            reserved = sum(s[_RESERVED] for s in stats.values())
            last = self._last
            out = {
                'source': 'torch.cuda.memory_stats',
                'samples': self.samples,
                'devices': sorted(last),
                'at_peak': {
                    'at_seconds': at,
                    'allocated_bytes': allocated,
                    'reserved_bytes': reserved,
                    'cached_bytes': reserved - allocated,
                },
                'allocated_peak_bytes': sum(s[_ALLOCATED_PEAK] for s in last.values()),
                'reserved_peak_bytes': sum(s[_RESERVED_PEAK] for s in last.values()),
                'alloc_retries': sum(s[_RETRIES] for s in last.values()),
                'ooms': sum(s[_OOMS] for s in last.values()),
                'driver_peak_bytes': driver_peak_bytes or None,
                'other_bytes': None,
            }
        if driver_peak_bytes and driver_peak_bytes >= out['reserved_peak_bytes']:
            # The driver's count beyond what the allocator ever held: the CUDA
            # context, cuBLAS/cuDNN workspaces, other libraries' memory.
            out['other_bytes'] = driver_peak_bytes - out['reserved_peak_bytes']
        out['summary'] = _sentence(out)
        return out


def _sentence(r: dict) -> str:
    human = _native.human_bytes
    p = r['at_peak']
    text = (f"at the allocator's peak ({p['at_seconds']:.1f} s in) {human(p['reserved_bytes'])} "
            f"reserved: {human(p['allocated_bytes'])} tensors, {human(p['cached_bytes'])} "
            f"cached by the allocator")
    if r['other_bytes'] is not None:
        text += (f"; the driver counted {human(r['driver_peak_bytes'])} at the process's peak, "
                 f"{human(r['other_bytes'])} beyond the allocator's (CUDA context, libraries)")
    if r['alloc_retries']:
        n = r['alloc_retries']
        text += (f"; {n} allocation retr{'y' if n == 1 else 'ies'}: the allocator had to free its "
                 f"cache to fit a block, a sign of fragmentation "
                 f"(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True may help)")
    if r['ooms']:
        n = r['ooms']
        text += f"; {n} out-of-memory error{'' if n == 1 else 's'} even after freeing the cache"
    return text
