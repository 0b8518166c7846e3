"""resource_tracker 0.5.0's ``resource_tracker.server_info``:
get_server_info(), get_total_memory_mib() and get_gpu_info(), read by
libgputracker as a tracker reads the machine (its GPUs through NVML or ROCm
SMI, not by spawning nvidia-smi)."""
from __future__ import annotations

from collections import Counter

from .. import _native

__all__ = ['get_server_info', 'get_total_memory_mib', 'get_gpu_info']


def _machine() -> dict:
    """The machine as a tracker reads it: a tracker started for the moment
    (no sample kept, nothing written)."""
    probe = _native.Tracker(sleep_time=86400.0, resource_usage_file='', series=0)
    probe.start()
    try:
        return probe.server_info()
    finally:
        probe.stop()


def get_total_memory_mib() -> float:
    """The machine's memory (MemTotal) in MiB, rounded to 2 decimals, as
    0.5.0 gives it."""
    return round(float(_machine()['memory_mb']), 2)


def get_gpu_info() -> dict:
    """The GPUs with 0.5.0's keys: count, memory_mib (their VRAM together)
    and gpu_names (one a GPU); 0, 0 and [] without GPUs."""
    info = _machine()
    return {'count': info['gpu_count'], 'memory_mib': info['gpu_memory_mb'],
            'gpu_names': list(info.get('gpu_names') or [])}


def get_server_info() -> dict:
    """The machine, with 0.5.0's keys: os ("Linux"), vcpus, memory_mib,
    gpu_count, gpu_names, gpu_name (the most common, "" without GPUs),
    gpu_memory_mib."""
    info = _machine()
    names = list(info.get('gpu_names') or [])
    return {
        'os': info['os'],
        'vcpus': info['vcpus'],
        'memory_mib': info['memory_mb'],
        'gpu_count': info['gpu_count'],
        'gpu_names': names,
        'gpu_name': Counter(names).most_common(1)[0][0] if names else '',
        'gpu_memory_mib': info['gpu_memory_mb'],
    }
