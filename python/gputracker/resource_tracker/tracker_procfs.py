"""resource_tracker 0.5.0's ``resource_tracker.tracker_procfs``: a process
tree's and the system's cumulative counters, read once, with 0.5.0's keys
and units. The reading is libgputracker's (``gt_counters_read``): the tree
walk, /proc and /sys readers and GPU library a tracker samples with, not
0.5.0's Python parsing and ``nvidia-smi`` runs.

Where the figures differ from 0.5.0's, it is on purpose (docs/python.md,
"resource_tracker 0.5's module tree"): disk bytes count 512-byte sectors,
as /proc/diskstats does on every disk (0.5.0 multiplies by the disk's
hardware sector size); network bytes and disk spaces count what the
system series counts (interfaces with a device behind them; each
filesystem device once, bind mounts not again); GPU figures come from
NVML or ROCm SMI, every GPU (``nvidia-smi pmon`` sees at most 4). A process
that does not exist raises ProcessLookupError (0.5.0 returns zeros).

Each call opens the readers and closes them again, the GPU library's
start-up included: a look now and then, not a sampling loop (that is
ResourceTracker's, which keeps them open)."""
from __future__ import annotations

import os
from typing import Any, Dict, Set, Union

from .. import _native

__all__ = ['get_process_stats', 'get_system_stats', 'get_sector_sizes', 'get_process_children', 'get_process_rss',
           'get_process_pss_rollup', 'get_process_proc_times', 'get_process_proc_io']

_MIB = 1024 * 1024


def get_process_stats(pid: int, children: bool = True) -> Dict[str, Union[int, float, None, set]]:
    """Current and cumulative figures of process ``pid`` and, when
    ``children`` is true, of all its descendants (0.5.0's keys):

    - ``timestamp``: seconds since the epoch of the reading
    - ``pid``: the process ID
    - ``children``: live descendants now (None when ``children`` is false)
    - ``utime``, ``stime``: CPU seconds in user and system mode since each
      process started, with those of the children they waited for
    - ``memory_mib``: PSS (proportional set size) now, MiB
    - ``disk_read_bytes``, ``disk_write_bytes``: bytes moved at the storage
      layer, with those of the children they waited for
    - ``gpu_usage``: GPUs' worth of SM time now (0 to the GPU count)
    - ``gpu_vram_mib``: GPU memory the processes hold, MiB
    - ``gpu_utilized``: GPUs the processes keep busy
    - ``gpu_utilized_indexes``: which ones (their indexes)

    Raises ProcessLookupError when there is no process ``pid``, ValueError
    for a PID that is not positive."""
    c = _native.read_counters(int(pid), bool(children))
    return {
        'timestamp': c['timestamp'],
        'pid': c['pid'],
        'children': c['children'] if children else None,
        'utime': c['user_seconds'],
        'stime': c['system_seconds'],
        'memory_mib': c['pss_bytes'] / _MIB,
        'disk_read_bytes': c['read_bytes'],
        'disk_write_bytes': c['write_bytes'],
        'gpu_usage': c['gpu_usage'],
        'gpu_vram_mib': c['gpu_vram_mib'],
        'gpu_utilized': c['gpu_utilized'],
        'gpu_utilized_indexes': set(c['gpu_utilized_indexes']),
    }


def system_stats_from(c: Dict[str, Any]) -> Dict[str, Union[int, float, Dict]]:
    """0.5.0's get_system_stats() dict of a ``_native.read_counters()``
    reading."""
    return {
        'timestamp': c['timestamp'],
        'processes': c['processes'],
        'utime': c['system_user_seconds'],
        'stime': c['system_system_seconds'],
        'memory_free_mib': c['mem_free_kb'] / 1024,
        'memory_used_mib': (c['mem_total_kb'] - c['mem_available_kb']) / 1024,
        'memory_buffers_mib': c['mem_buffers_kb'] / 1024,
        'memory_cached_mib': (c['mem_cached_kb'] + c['mem_sreclaimable_kb']) / 1024,
        'memory_active_mib': c['mem_active_kb'] / 1024,
        'memory_inactive_mib': c['mem_inactive_kb'] / 1024,
        'disk_stats': {name: {'read_bytes': read, 'write_bytes': written}
                       for name, read, written in c['disks']},
        'disk_spaces': {mount: {'total': total, 'used': used, 'free': free}
                        for mount, total, used, free in c['spaces']},
        'net_recv_bytes': c['net_recv_bytes'],
        'net_sent_bytes': c['net_sent_bytes'],
        'gpu_usage': c['system_gpu_usage'],
        'gpu_vram_mib': c['system_gpu_vram_mib'],
        'gpu_utilized': c['system_gpu_utilized'],
    }


def get_system_stats() -> Dict[str, Union[int, float, Dict]]:
    """Current and cumulative system-wide figures (0.5.0's keys):

    - ``timestamp``: seconds since the epoch of the reading
    - ``processes``: processes now
    - ``utime``, ``stime``: CPU seconds of all cores since boot, user (with
      nice) and system
    - ``memory_free_mib``, ``memory_used_mib`` (MemTotal - MemAvailable, as
      0.5.0 counts it), ``memory_buffers_mib``, ``memory_cached_mib``
      (Cached + SReclaimable),
      ``memory_active_mib``, ``memory_inactive_mib``: MiB now
    - ``disk_stats``: ``{disk: {'read_bytes', 'write_bytes'}}`` since boot,
      whole disks only
    - ``disk_spaces``: ``{mount point: {'total', 'used', 'free'}}`` bytes
    - ``net_recv_bytes``, ``net_sent_bytes``: since boot
    - ``gpu_usage``, ``gpu_vram_mib``, ``gpu_utilized``: every GPU's, now"""
    return system_stats_from(_native.read_counters(os.getpid(), False))


# ---- 0.5.0's helpers: one process's own figures (gt_rt_process_read) -------
# As 0.5.0's, a process that is not there (or a file that cannot be read)
# gives zeros and empty sets, never an error; the figures are the library
# parsers' readings of the same /proc files.

def _process(pid: int):
    try:
        return _native.read_process(int(pid))
    except (ProcessLookupError, OSError, ValueError):
        return None


def get_process_children(pid: int) -> Set[int]:
    """Every live descendant of pid (the children of all its threads,
    recursively; 0.5.0 reads its main thread's only)."""
    p = _process(pid)
    return set(p['descendants']) if p else set()


def get_process_rss(pid: int) -> int:
    """Its resident set size now, KiB (VmRSS)."""
    p = _process(pid)
    return p['rss_kb'] if p else 0


def get_process_pss_rollup(pid: int) -> int:
    """Its proportional set size now, KiB (Pss of smaps_rollup)."""
    p = _process(pid)
    return (p['pss_kb'] or 0) if p else 0


def get_process_proc_times(pid: int, children: bool = True) -> Dict[str, int]:
    """{'utime', 'stime'}: its CPU time in clock ticks, with that of the
    children it waited for when children is true."""
    p = _process(pid)
    if not p:
        return {'utime': 0, 'stime': 0}
    return {'utime': p['utime'] + (p['cutime'] if children else 0),
            'stime': p['stime'] + (p['cstime'] if children else 0)}


def get_process_proc_io(pid: int) -> Dict[str, int]:
    """{'read_bytes', 'write_bytes'}: the bytes it made the storage layer
    read and write (/proc/PID/io; 0.5.0 returns every line of that file,
    the library reads these two)."""
    p = _process(pid)
    if not p or p['read_bytes'] is None:
        return {'read_bytes': 0, 'write_bytes': 0}
    return {'read_bytes': p['read_bytes'], 'write_bytes': p['write_bytes']}


def get_sector_sizes() -> Dict[str, int]:
    """{disk: hardware sector size in bytes} of the whole disks the system
    series counts (512 where the size cannot be read). The disk figures
    here count 512-byte sectors whatever this says, as /proc/diskstats
    does."""
    sizes = {}
    for name, _, _ in _native.read_counters(os.getpid(), False)['disks']:
        try:
            with open(f'/sys/block/{name}/queue/hw_sector_size', 'rb') as file:
                sizes[name] = int(file.read(32).strip())
        except (OSError, ValueError):
            sizes[name] = 512
    return sizes
