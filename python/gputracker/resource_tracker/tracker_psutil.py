"""resource_tracker 0.5.0's ``resource_tracker.tracker_psutil``: the same
readings as ``tracker_procfs`` (same keys, same units) taken through psutil,
for code that asks for this module by name. Importing it raises ImportError
where psutil is not installed, as 0.5.0's does.

CPU, memory, processes, disks and network come from psutil; the GPU figures
from libgputracker's GPU library (NVML, ROCm SMI), as in tracker_procfs,
rather than from an ``nvidia-smi`` run per call. psutil's own choices stay:
memory is PSS where psutil can read it (USS, then RSS, otherwise), system
memory "used" is MemTotal - MemAvailable as 0.5.0 defines it, disks are psutil's per-disk counters without
partitions, network counts every interface but loopback."""
from __future__ import annotations

import os
import time
from contextlib import suppress
from typing import Dict, Union

import psutil

from .. import _native
from .disks import get_zfs_pools_space, is_partition
from .tracker_procfs import system_stats_from

__all__ = ['get_process_stats', 'get_system_stats']

_MIB = 1024 * 1024
_PSEUDO_MOUNTS = ('/proc', '/sys', '/dev', '/run')


def _gpu_of(pid: int, children: bool) -> Dict[str, Union[int, float, set]]:
    """The GPU figures of pid's tree from libgputracker's reading (zeros when
    the process is gone meanwhile)."""
    try:
        c = _native.read_counters(pid, children)
    except ProcessLookupError:
        return {'gpu_usage': 0, 'gpu_vram_mib': 0, 'gpu_utilized': 0, 'gpu_utilized_indexes': set()}
    return {'gpu_usage': c['gpu_usage'], 'gpu_vram_mib': c['gpu_vram_mib'],
            'gpu_utilized': c['gpu_utilized'], 'gpu_utilized_indexes': set(c['gpu_utilized_indexes'])}


def _memory_mib(process: psutil.Process) -> float:
    """PSS, else USS, else RSS of process, MiB (the first psutil has)."""
    info = process.memory_full_info()
    for name in ('pss', 'uss', 'rss'):
        value = getattr(info, name, None)
        if value:
            return value / _MIB
    return 0.0


def get_process_stats(pid: int, children: bool = True) -> Dict[str, Union[int, float, None, set]]:
    """tracker_procfs.get_process_stats() through psutil: the same keys.
    Raises psutil.NoSuchProcess when there is no process ``pid``; a
    descendant that ends meanwhile is left out."""
    main = psutil.Process(pid)
    descendants = main.children(recursive=True) if children else []
    stats: Dict[str, Union[int, float, None, set]] = {
        'timestamp': time.time(), 'pid': pid,
        'children': len(descendants) if children else None,
        'utime': 0.0, 'stime': 0.0, 'memory_mib': 0.0, 'disk_read_bytes': 0, 'disk_write_bytes': 0,
    }
    for process in [main, *descendants]:
        with suppress(psutil.Error):
            times = process.cpu_times()
            stats['utime'] += times.user + (times.children_user if children else 0)
            stats['stime'] += times.system + (times.children_system if children else 0)
            stats['memory_mib'] += _memory_mib(process)
            io = process.io_counters()
            stats['disk_read_bytes'] += io.read_bytes
            stats['disk_write_bytes'] += io.write_bytes
    stats.update(_gpu_of(pid, children))
    return stats


def get_system_stats() -> Dict[str, Union[int, float, Dict]]:
    """tracker_procfs.get_system_stats() through psutil: the same keys."""
    cpu = psutil.cpu_times()
    memory = psutil.virtual_memory()
    stats = system_stats_from(_native.read_counters(os.getpid(), False))  # the GPU part
    stats.update({
        'timestamp': time.time(),
        'processes': len(psutil.pids()),
        'utime': cpu.user + getattr(cpu, 'nice', 0.0),
        'stime': cpu.system,
        'memory_free_mib': memory.free / _MIB,
        # 0.5.0's "used" (MemTotal - MemAvailable), whatever psutil's version
        # counts as used (5.9 takes buffers and cache out of free instead)
        'memory_used_mib': (memory.total - memory.available) / _MIB,
        'memory_buffers_mib': getattr(memory, 'buffers', 0) / _MIB,
        'memory_cached_mib': getattr(memory, 'cached', 0) / _MIB,
        'memory_active_mib': getattr(memory, 'active', 0) / _MIB,
        'memory_inactive_mib': getattr(memory, 'inactive', 0) / _MIB,
        'disk_stats': {name: {'read_bytes': io.read_bytes, 'write_bytes': io.write_bytes}
                       for name, io in (psutil.disk_io_counters(perdisk=True) or {}).items()
                       if not is_partition(name)},
        'disk_spaces': {},
        'net_recv_bytes': 0,
        'net_sent_bytes': 0,
    })
    check_zfs = False
    for part in psutil.disk_partitions(all=False):
        if part.mountpoint.startswith(_PSEUDO_MOUNTS):
            continue
        if part.fstype == 'zfs':
            check_zfs = True
            continue
        with suppress(OSError):
            usage = psutil.disk_usage(part.mountpoint)
            if usage.total:
                stats['disk_spaces'][part.mountpoint] = {'total': usage.total, 'used': usage.used,
                                                         'free': usage.free}
    if check_zfs:
        stats['disk_spaces'].update(get_zfs_pools_space())
    for name, io in psutil.net_io_counters(pernic=True).items():
        if name != 'lo':
            stats['net_recv_bytes'] += io.bytes_recv
            stats['net_sent_bytes'] += io.bytes_sent
    return stats
